"""What several passes share: bound inference, guards of lazy reads, buffer liveness,
dominance, the argument binder's plan and size proofs (the schedule model they read is
`compiler.schedule`).

Above the schedule model, below the passes (test/python/test_architecture.py).
"""
