"""What several passes share: the schedule model and attach paths, bound inference,
inlining, guards of lazy reads, buffer liveness and the argument binder's plan.

Above the dialects, below the passes (test/python/test_architecture.py).
"""
