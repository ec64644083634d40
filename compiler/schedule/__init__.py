"""The schedule model, in one place: what a schedule means and which schedules are valid.

* `loop_relations`, `axes`: a stage's loops, and the splits, fuses and singletons
  between them (TVM's message passing);
* `groups`: nested groups of stages (`create_group`);
* `stages`, `model`, `replay`: a `sched.schedule` replayed over the stages of a
  `te.func`, primitive by primitive (`ScheduleModel.build`);
* `scans`, `cache_stages`, `rfactor`, `inline`: scan stages and the rewrites a
  schedule makes of its function (cache_read/cache_write, rfactor, compute_inline);
* `rules`: the checks of each primitive and their messages, which both the Python
  API (`compiler.te.schedule`) and the replay call, so each is written once.

A new primitive touches this package (its replay in `replay`, its checks in
`rules`, a rewrite of its own if it makes one), its op in `compiler/dialects/sched.py`
and what it does to the loops in `compiler/passes/schedule_ops.py`; in the Python
API, its record (`compiler/te/primitives.py`) and its `Stage` method
(`compiler/te/schedule.py`), which calls the same rules.

Above the dialects, below the analyses (bound inference reads the model), the
passes and the `te` front end (test/python/test_architecture.py).
"""
