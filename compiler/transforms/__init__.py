"""IR rewrites that the passes and the schedule model share (as xDSL's
`xdsl/transforms/`): TVM's dataflow rewrites of a `te.func`, `cache_stages`
(cache_read, cache_write) and `rfactor`.

The schedule model (`compiler.analysis.schedule_replay`) replays a schedule by
applying them, so this folder shares the analysis layer: it may import
analyses, and they it, without a circle (test/python/test_architecture.py).
"""
