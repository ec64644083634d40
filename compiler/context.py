"""An xDSL context with xDSL's dialects and the project's, as compiler-opt has."""

from xdsl.context import Context
from xdsl.universe import Universe

from compiler.registry import get_all_dialects


def make_context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
