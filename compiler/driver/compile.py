"""`compile_module`: a te or loop module through the default pipeline into a `Function`,
through the on-disk cache (`compiler.driver.cache`)."""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from compiler.driver.cache import build_key, load_build, store_build
from compiler.driver.function import CompileStats, Function
from compiler.driver.lowered import CompileOptions, lower_to_flat
from compiler.pipeline_options import PipelineOptions

if TYPE_CHECKING:  # xDSL and the passes are imported where used: a cached build needs none
    from xdsl.dialects.builtin import ModuleOp

    from compiler.profile import StageFacts


@dataclass
class Recipe:
    """What `compile_module` needs to compile a function again with other options (its
    profiling variant): the module as it was given (not lowered), the options, the cache."""

    source: Callable[[], ModuleOp]
    name: str
    options: CompileOptions
    cache: bool | None

    def compile(self, **changes: Any) -> Function:
        return _compile(self.source().clone(), self.name, replace(self.options, **changes), self.cache)

    def compile_options(self) -> CompileOptions:
        return self.options

    def module(self) -> ModuleOp:
        """The module as `compile_module` was given it (not lowered)."""
        return self.source()

    def facts(self) -> dict[str, StageFacts]:
        """The te stages of the source program: shapes and reduction extents."""
        from compiler.profile import te_stage_facts

        return te_stage_facts(self.source(), self.name)


def compile_module(
    module: ModuleOp,
    name: str,
    *,
    order: Sequence[str] = (),
    strided_args: Sequence[str] = (),
    cache: bool | None = None,
    options: PipelineOptions | None = None,
    **changes: bool,
) -> Function:
    """Compile the `te.func` or `loop.func` named `name` of a module.

    `order` names the arguments in the order the caller passes them (all of them;
    none: the function's order); `strided_args` names buffer arguments that accept any strides
    (symbolic strides `<name>_stride<k>`, bound at call time: a NumPy view
    such as `a[:, ::2]` runs without a copy); `check_bounds` checks every load and
    store against its buffer's region (an IndexError instead of a wrong access); the
    pipeline's options are `options` with `changes` (`compiler.pipeline.PipelineOptions`).
    `cache=False` compiles without the on-disk cache (`COMPILER_CACHE=0`: the
    whole process; `compiler.lowering.object_cache`). `auto_schedule` runs
    `auto-schedule` first (the stages no `sched` op names get a schedule for the host).
    `loop_partition=False` keeps the likely guards in the loops (no `loop-partition`).

    A build entry of the cache (keyed by the module's text as given here, `name` and
    the options) gives the compiled function without running any pass: `module` is
    then left as it is (the passes run on a copy when an IR text is read).
    `profile=True` compiles the profiling variant (`Function.profile` asks for it).
    """
    pipeline = PipelineOptions.of("compile_module", changes, options)
    gathered = CompileOptions(order=tuple(order), strided=tuple(strided_args), **pipeline.pipeline_fields())
    return _compile(module, name, gathered, cache)


def _compile(module: ModuleOp, name: str, options: CompileOptions, cache: bool | None) -> Function:
    """`compile_module` with its options gathered."""
    from compiler.lowering.object_cache import cache_enabled
    from compiler.te.to_ir import verify_program

    _resolve_externs(module)
    if options.profile:
        from compiler.lowering.profile_marks import register_marks

        register_marks()
    stats = CompileStats()
    key = None
    if cache_enabled(cache):
        start = time.perf_counter()
        key = build_key(str(module), name, options)
        hit = load_build(key, module, name, options, stats, cache, start)
        if hit is not None:
            return hit.with_recipe(Recipe(lambda: module, name, options, cache))
    with _cyclic_gc_paused():
        start = time.perf_counter()
        verify_program(module, name)  # what the caller gives (`build` leaves this to a miss)
        source = module.clone()
        lowered = lower_to_flat(module, name, options, texts=_texts_of(source, name, options))
        stats.seconds["passes"] = time.perf_counter() - start
        fn = Function(name, lowered, stats, options, cache=cache, identity=key)
        fn.with_recipe(Recipe(lambda: source, name, options, cache))
    if key is not None:
        store_build(key, fn)
    return fn


def _resolve_externs(module: ModuleOp) -> None:
    """The functions te.extern stages call, found before the JIT loads code that calls them
    (a LinkError names those that are nowhere)."""
    from compiler.dialects import loop, te
    from compiler.runtime.externs import resolve_externs

    names = [op.callee_name for op in module.walk() if isinstance(op, te.ExternOp | loop.CallExternOp)]
    if names:
        from compiler.passes.instrument_stages import MARK_SYMBOL

        if MARK_SYMBOL in names:  # loop IR instrumented already (compiler-opt's output)
            from compiler.lowering.profile_marks import register_marks

            register_marks()
        resolve_externs(names)


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """xDSL's IR is a web of reference cycles (parents, uses, blocks): while the passes
    create ops, Python's cyclic collector runs every few thousand allocations and walks
    all of it again each time (a sixth of a cold build). Paused for the compilation; the
    cycles it leaves are collected by the first automatic run after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _texts_of(source: ModuleOp, name: str, options: CompileOptions) -> Callable[[], tuple[str, str]]:
    """The loop and flat IR of `source`, from a second lowering of a copy of it when first
    asked for: printing them on every build cost a tenth of the passes' time, and few
    builds read them."""
    return functools.cache(lambda: lower_to_flat(source.clone(), name, options).texts())


class LazyRecipe(Recipe):
    """A `Recipe` made when first used (a function from the graph level of the cache: the
    program's module is emitted then)."""

    def __init__(self, make: Callable[[], Recipe]):
        self._make = functools.cache(make)

    def compile(self, **changes: Any) -> Function:
        return self._make().compile(**changes)

    def compile_options(self) -> CompileOptions:
        return self._make().options

    def module(self) -> ModuleOp:
        return self._make().module()

    def facts(self) -> dict[str, StageFacts]:
        return self._make().facts()
