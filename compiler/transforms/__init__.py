"""IR rewrites that the passes and lower-to-llvm share (as xDSL's `xdsl/transforms/`):
`dead_code`. The schedule's own rewrites (cache stages, rfactor, inlining) are in
`compiler.schedule`.
"""
