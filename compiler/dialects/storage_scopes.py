"""Storage scopes of cache stages, without xDSL (`compiler.te.schedule` checks them while a
schedule is written; the `sched` dialect verifies them)."""

CACHE_SCOPES = ("global", "local", "shared")
"""Storage scopes of cache stages. No GPU: each only means a buffer of its own."""
