"""An xDSL context with xDSL's dialects and the project's, as compiler-opt has."""

from collections.abc import Callable
from functools import cache

from xdsl.context import Context
from xdsl.ir import Dialect

from compiler.registry import get_all_dialects


def make_context() -> Context:
    ctx = Context()
    for name, factory in _xdsl_dialects().items():
        ctx.register_dialect(name, factory)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


@cache
def _xdsl_dialects() -> dict[str, Callable[[], Dialect]]:
    """xDSL's own dialects (their factories: a dialect loads when first used). Not
    `Universe.get_multiverse()`: its entry-point scan loads every xDSL pass and target
    (xdsl.transforms, xdsl.targets) and cost the first build in a process 0.1 s; its only
    universe in this project's environment is xDSL's, whose dialects are these."""
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    return dict(xdsl_dialects())
