"""`compiler.lower` and `compiler.build`: the Python entry points.

`build([A, B, C])` runs the default pipeline (`compiler.pipeline`), JIT
compiles the result and returns a `Function` whose arguments are arrays in
the order of the list, outputs included, as in TVM. Arrays are NumPy arrays
or any object with `__dlpack__`; they are passed zero-copy.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler import te as T
from compiler.errors import ExprTypeError, IRError, MemoryPlanError
from compiler.pipeline_options import PipelineOptions
from compiler.te.schedule import Schedule

if TYPE_CHECKING:  # xDSL, loop and the passes are imported where used: a cached build needs none
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute

    from compiler.analysis.memory_summary import MemorySummary
    from compiler.dialects import loop
    from compiler.graph_cache import GraphKey
    from compiler.lowering.engine import JitModule, Toolchain
    from compiler.passes.instrument_stages import NestRecord
    from compiler.pipeline import Stage
    from compiler.profile import Profile, StageFacts
    from compiler.runtime.packed import ErrorEntry
    from compiler.te.to_ir import FunctionSignature

_NUMPY_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")
"""The element types a compiled function's arguments can have, by NumPy's names."""


def _split_args(
    schedule_or_args: Schedule | Sequence[T.Tensor], args: Sequence[T.Tensor] | None
) -> tuple[Schedule | None, Sequence[T.Tensor]]:
    if isinstance(schedule_or_args, Schedule):
        if args is None:
            raise ExprTypeError("build(s, args): the argument tensors are missing")
        return schedule_or_args, args
    if args is not None:
        raise ExprTypeError("build(s, args): the first argument must be a schedule (te.create_schedule)")
    return None, schedule_or_args


def lower(
    schedule_or_args: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    name: str = "main",
    until: Stage = "llvm",
    **options: bool,
) -> ModuleOp:
    """The IR after the default pipeline (or after the stage `until`).

    `lower([A, B, C])` or, with a schedule, `lower(s, [A, B, C])`. `until` is one of
    `compiler.pipeline.STAGES` (`"te"`, `"loop"`: after schedule-ops, `"flat"`,
    `"llvm"`); the keyword options are `compiler.pipeline.PipelineOptions`' (those of
    `build`: `check_bounds`, `tighten_pad_regions`, `loop_partition`, ...), with
    `auto_schedule` off unless asked for (`build` turns it on when it is given no
    schedule).

    >>> A = te.placeholder((16,), name="A")
    >>> B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    >>> ir = compiler.lower([A, B], until="loop")
    >>> "loop.func @main" in str(ir)
    True
    """
    from compiler.context import make_context
    from compiler.pipeline import default_pipeline
    from compiler.te.to_ir import build_module

    pipeline = PipelineOptions.of("lower", options)
    schedule, tensors = _split_args(schedule_or_args, args)
    module, _ = build_module(tensors, name, schedule)
    ctx = make_context()
    for p in default_pipeline(until, options=pipeline):
        p.apply(ctx, module)
    module.verify()
    return module


@dataclass
class ArgSpec:
    """An argument of a compiled function: its name, shape (symbolic dimensions as their
    text), dtype name, whether the function writes it, and whether it takes any strides."""

    name: str
    dims: tuple[int | str, ...]
    dtype: str
    is_output: bool
    strided: bool = False

    def __str__(self) -> str:
        role = "out " if self.is_output else ""
        layout = " strided" if self.strided else ""
        return f"{role}{self.name}: {self.dtype}[{', '.join(map(str, self.dims))}]{layout}"


@dataclass
class CompileStats:
    seconds: dict[str, float] = field(default_factory=dict)


class Function:
    """A compiled tensor function: call it with arrays in the order given to `build`.

    The call goes through the packed ABI of `make-packed-api`: every
    argument becomes a DLTensor (NumPy arrays and DLPack tensors, zero-copy),
    the compiled code checks and binds them, and a failed check raises the
    ValueError or TypeError it describes (`compiler.runtime.packed`).
    `specs` describe the arguments in call order. The object code goes through
    the on-disk cache (`compiler.lowering.object_cache`; `cache=False` or
    `COMPILER_CACHE=0` turn it off); `export_library` writes it as a shared library.
    A function built from a cache entry ran no pass: its IR texts (`loop_ir`,
    `flat_ir`, `llvm_dialect_ir`, `llvm_ir`) are computed when first read.
    """

    def __init__(
        self,
        name: str,
        lowered: _Lowered,
        stats: CompileStats,
        *,
        cache: bool | None = None,
        fast_math: bool = False,
        fp_contract: bool = True,
        identity: str | None = None,
    ):
        """`identity` names the program in the object cache's key (`_llvm_lowering`)."""
        from compiler.lowering.jit import jit_compile
        from compiler.lowering.to_llvm import assert_table
        from compiler.runtime.packed import ErrorEntry

        errors = [ErrorEntry(e.message, e.error, e.n_values) for e in assert_table(lowered.module, name)]
        start = time.perf_counter()
        lower_to_llvm, program = _llvm_lowering(lambda: lowered, fast_math, fp_contract, identity)
        jit = jit_compile(lower_to_llvm, cache=cache, program=program)
        stats.seconds["llvm"] = time.perf_counter() - start
        self._setup(name, jit, lowered.specs, errors, stats, lowered.memory, lowered.stages)
        self._lowered = lambda: lowered

    @classmethod
    def _from_cache(
        cls,
        name: str,
        jit: JitModule,
        entry: _BuildEntry,
        stats: CompileStats,
        lowered: Callable[[], _Lowered],
    ) -> Function:
        """A function whose object and metadata came from a build entry (no pass ran);
        `lowered` runs the passes when an IR text is asked for."""
        fn = cls.__new__(cls)
        fn._setup(name, jit, entry.specs, entry.errors, stats, entry.memory, entry.stages)
        fn._lowered = lowered
        return fn

    def _setup(
        self,
        name: str,
        jit: JitModule,
        specs: list[ArgSpec],
        errors: list[ErrorEntry],
        stats: CompileStats,
        memory: MemorySummary | None,
        stages: list[NestRecord] | None,
    ) -> None:
        from compiler.runtime.packed import PackedArg, PackedFunction

        self.name = name
        self.stats = stats
        self.specs = specs
        self.memory = memory  # storage-rewrite's plan
        self._errors = errors
        self._stages = stages  # what the nests between the marks compute (a profiling variant)
        self._jit = jit
        self._llvm_dialect_ir: str | None = None
        self._recipe: _Recipe | None = None  # how to compile this again (its profiling variant)
        self._profiling: Function | None = None
        args = [PackedArg(s.name, s.dtype, s.is_output) for s in specs]
        self._packed = PackedFunction(name, jit.address(name), args, errors)

    @property
    def loop_ir(self) -> str:
        """The IR after schedule-ops (and the argument reordering of `call_order`)."""
        return self._lowered().loop_ir

    @property
    def flat_ir(self) -> str:
        """The flat loop IR: after make-packed-api, storage-flatten and storage-rewrite."""
        return self._lowered().flat_ir

    @property
    def llvm_dialect_ir(self) -> str:
        """The IR after lower-to-llvm (lowered when first read if the object was cached)."""
        if self._llvm_dialect_ir is None:
            self._llvm_dialect_ir = str(self._jit.llvm_module())
        return self._llvm_dialect_ir

    @property
    def llvm_ir(self) -> str:
        """The optimized LLVM IR."""
        return self._jit.optimized_ir

    def assembly(self) -> str:
        """The machine code, as assembly text for the host CPU."""
        return self._jit.assembly()

    @property
    def from_cache(self) -> bool:
        """Whether the object code came from the on-disk cache (lower-to-llvm and LLVM did not
        run; with a build entry of the cache, no pass ran either)."""
        return self._jit.from_cache

    def export_library(self, path: str | os.PathLike[str], *, cache: bool | None = None) -> Path:
        """Write a shared library holding this function (`compiler.load_module` loads it;
        C calls `int32_t name(DLTensor **args, int32_t num_args, int64_t *error_values)`)."""
        from compiler.lowering.export import export_library
        from compiler.runtime.module import ArgInfo, ModuleMetadata

        args = [ArgInfo(s.name, tuple(s.dims), s.dtype, s.is_output) for s in self.specs]
        return export_library(self._jit, path, ModuleMetadata(self.name, args, self._errors), cache=cache)

    def __call__(self, *arrays: Any) -> None:
        """Run on NumPy arrays, DLPack tensors or `RawTensor`s; outputs are written in place."""
        self._packed(*arrays)

    def profile(self, *arrays: Any, repeat: int = 10, warmup: int = 1) -> Profile:
        """Time each top-level stage of a call on `arrays` (the arguments of a call).

        >>> A = te.placeholder((64, 64), name="A")
        >>> k = te.reduce_axis((0, 64), name="k")
        >>> C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * A[k, j], axis=k), name="C")
        >>> f = compiler.build([A, C])
        >>> a = np.ones((64, 64), np.float32)
        >>> c = np.empty_like(a)
        >>> prof = f.profile(a, c, repeat=5)
        >>> [(r.name, r.shape, r.gflops is not None) for r in prof.rows]
        [('C', (64, 64), True)]

        `print(prof)` shows the rows as a table, slowest first (`prof.table(limit=15)`:
        the first 15), `prof.save_chrome_trace("trace.json")` writes the calls for
        Perfetto or chrome://tracing (`compiler.profile.Profile`).

        One row per top-level stage (a root stage's loop nest, with every stage computed
        at it or inlined into it): `name`, `shape`, `schedule` (its loops as the schedule
        made them: kind, name, extent), `ms` (the median over `repeat` calls), `share`
        (of the median call), `gflops` (for a nest that computes a reduction: 2 x output
        elements x reduction extent, summed over its reductions, per second). The
        timestamps come from a profiling variant of this function, compiled (through the
        cache) when first profiled: the same passes and schedule, with a native clock
        read before and after each nest (`instrument-stages`); this function itself
        carries no timing code. The arguments are checked as a call checks them (the
        same errors), and the outputs are written as a call writes them.
        """
        from compiler.errors import OptionError
        from compiler.profile import measure

        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            raise OptionError(f"profile: repeat must be a positive int, got {repeat!r}")
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
            raise OptionError(f"profile: warmup must be a non-negative int, got {warmup!r}")
        self._packed(*arrays)  # a wrong argument fails here, before the variant compiles
        variant = self.profiling_variant()
        assert variant._stages is not None
        assert variant._recipe is not None
        facts, dims = variant._recipe.facts(), [s.dims for s in variant.specs]
        return measure(self.name, variant, dims, variant._stages, facts, arrays, repeat=repeat, warmup=warmup)

    def profiling_variant(self) -> Function:
        """This function compiled with the profiler's marks (`instrument-stages`), made
        when first asked for; itself if it is one."""
        if self._stages is not None:
            return self
        if self._profiling is None:
            if self._recipe is None:
                raise IRError(f"{self.name}: this function was not compiled by compile_module: it cannot be profiled")
            self._profiling = self._recipe.compile(profile=True)
        return self._profiling

    @property
    def target(self) -> dict[str, str]:
        """What the code was compiled for (LLVM's `triple`, the host `cpu`, its `features`...)."""
        from compiler.lowering.engine import target_description

        return target_description(self._jit.opt)

    def __repr__(self) -> str:
        args = ", ".join(map(str, self.specs))
        target = self.target
        return f"<Function {self.name}({args}) for {target['triple']} ({target['cpu']})>"


def _llvm_lowering(
    lowered: Callable[[], _Lowered], fast_math: bool, fp_contract: bool, identity: str | None = None
) -> tuple[Callable[[], ModuleOp], Callable[[], str]]:
    """The lowering of the flat module to the llvm dialect (run when LLVM runs or its IR is
    read), and the cache key's program: `identity` (the build entry's key, which names the
    source program, the options and the target) or else the flat IR, and the passes that
    lower it further."""

    def lower_to_llvm() -> ModuleOp:
        from compiler.context import make_context
        from compiler.pipeline import stage_passes

        module = lowered().module
        ctx = make_context()
        for p in stage_passes("llvm", fast_math=fast_math, fp_contract=fp_contract):
            p.apply(ctx, module)
        return module

    def program() -> str:
        from compiler.pipeline import stage_passes

        passes = ",".join(map(str, stage_passes("llvm", fast_math=fast_math, fp_contract=fp_contract)))
        source = f"build {identity}" if identity is not None else lowered().flat_ir
        return f"{source}\n// then: {passes}\n"

    return lower_to_llvm, program


def specs_of(func: loop.FuncOp) -> list[ArgSpec]:
    """The arguments of a `loop.func` before make-packed-api (N-D shapes).

    An output is an argument marked `{loop.output}` or one the function stores to.
    """
    from compiler.analysis.arg_binder import arg_decls
    from compiler.dialects import loop

    return [
        ArgSpec(d.name, d.shape, dtype_of(t.element_type), d.is_output, d.strides is not None)
        for d, t in zip(arg_decls(func), func.function_type.inputs.data, strict=True)
        if isinstance(t, loop.BufferType)
    ]


def dtype_of(t: Attribute) -> str:
    from compiler.te.to_ir import mlir_type

    for dtype in _NUMPY_DTYPES:
        if mlir_type(dtype, element=True) == t:
            return dtype
    raise ExprTypeError(f"no NumPy dtype for element type {t}")


@dataclass(frozen=True, kw_only=True)
class _Options(PipelineOptions):
    """Every option of `compile_module` that changes what it compiles (a part of the build key)."""

    call_order: tuple[int, ...] | None
    strided_args: tuple[str, ...]


@dataclass
class _Recipe:
    """What `compile_module` needs to compile a function again with other options (its
    profiling variant): the module as it was given (not lowered), the options, the cache."""

    source: Callable[[], ModuleOp]
    name: str
    options: _Options
    cache: bool | None

    def compile(self, **changes: Any) -> Function:
        return _compile(self.source().clone(), self.name, replace(self.options, **changes), self.cache)

    def facts(self) -> dict[str, StageFacts]:
        """The te stages of the source program: shapes and reduction extents."""
        from compiler.profile import te_stage_facts

        return te_stage_facts(self.source(), self.name)


@dataclass
class _Lowered:
    """`compile_module`'s passes up to the flat loop IR, and what they tell."""

    module: ModuleOp  # the flat module (lowered further to the llvm dialect in place)
    specs: list[ArgSpec]
    memory: MemorySummary | None
    texts: Callable[[], tuple[str, str]]
    """The loop IR and the flat IR, printed when first asked for (`_lower_to_flat`)."""
    stages: list[NestRecord] | None = None
    """What each timed nest computes (a profiling variant: `instrument-stages`)."""

    @property
    def loop_ir(self) -> str:
        return self.texts()[0]

    @property
    def flat_ir(self) -> str:
        return self.texts()[1]


def compile_module(
    module: ModuleOp,
    name: str,
    call_order: list[int] | None = None,
    *,
    strided_args: Sequence[str] = (),
    cache: bool | None = None,
    options: PipelineOptions | None = None,
    **changes: bool,
) -> Function:
    """Compile the `te.func` or `loop.func` named `name` of a module.

    `call_order[k]` is the argument of the `loop.func` that the caller passes
    k-th; `strided_args` names buffer arguments that accept any strides
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
    gathered = _Options(
        call_order=None if call_order is None else tuple(call_order),
        strided_args=tuple(strided_args),
        **pipeline.pipeline_fields(),
    )
    return _compile(module, name, gathered, cache)


def _compile(module: ModuleOp, name: str, options: _Options, cache: bool | None) -> Function:
    """`compile_module` with its options gathered."""
    from compiler.lowering.object_cache import cache_enabled
    from compiler.te.to_ir import verify_program

    _resolve_externs(module)
    if options.profile:
        from compiler.lowering.profile_marks import register_marks

        register_marks()
    fast_math, fp_contract = options.fast_math, options.fp_contract
    stats = CompileStats()
    key = None
    if cache_enabled(cache):
        start = time.perf_counter()
        key = _build_key(str(module), name, options)
        hit = _load_build(key, module, name, options, stats, cache, start)
        if hit is not None:
            hit._recipe = _Recipe(lambda: module, name, options, cache)
            return hit
    with _cyclic_gc_paused():
        start = time.perf_counter()
        verify_program(module, name)  # what the caller gives (`build` leaves this to a miss)
        source = module.clone()
        lowered = _lower_to_flat(module, name, options, texts=_texts_of(source, name, options))
        stats.seconds["passes"] = time.perf_counter() - start
        fn = Function(
            name, lowered, stats, cache=cache, fast_math=fast_math, fp_contract=fp_contract, identity=key
        )
        fn._recipe = _Recipe(lambda: source, name, options, cache)
    if key is not None:
        _store_build(key, fn)
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


def _texts_of(source: ModuleOp, name: str, options: _Options) -> Callable[[], tuple[str, str]]:
    """The loop and flat IR of `source`, from a second lowering of a copy of it when first
    asked for: printing them on every build cost a tenth of the passes' time, and few
    builds read them."""
    return functools.cache(lambda: _lower_to_flat(source.clone(), name, options).texts())


def _lower_to_flat(
    module: ModuleOp, name: str, options: _Options, texts: Callable[[], tuple[str, str]] | None = None
) -> _Lowered:
    """Run the passes up to the flat loop IR on `module` (in place). The IR texts are
    `texts`, or printed along the way."""
    from compiler.analysis.arg_signature import declare_strided, reorder_arguments
    from compiler.context import make_context
    from compiler.dialects import loop, te
    from compiler.pipeline import default_pipeline, stage_passes

    ctx = make_context()
    outputs = _output_stages(module, name) if options.profile else {}
    if any(isinstance(op, te.FuncOp) for op in module.ops):
        for p in default_pipeline("loop", options=options):
            p.apply(ctx, module)
    else:  # a loop.func given directly
        if options.check_bounds:
            from compiler.passes.insert_bound_checks import InsertBoundChecksPass

            InsertBoundChecksPass().apply(ctx, module)
        if options.profile:
            from compiler.passes.instrument_stages import InstrumentStagesPass

            InstrumentStagesPass().apply(ctx, module)
    func = next((op for op in module.ops if isinstance(op, loop.FuncOp) and op.sym_name.data == name), None)
    if func is None:
        raise IRError(f"no function @{name} in the module")
    stages = None
    if options.profile:
        from compiler.passes.instrument_stages import nest_records

        stages = nest_records(func)
        if stages is not None:
            stages = [r.renamed(outputs) for r in stages]
    if options.call_order is not None:  # the packed function takes the arguments in call order
        reorder_arguments(func, list(options.call_order))
    if options.strided_args:
        declare_strided(func, options.strided_args)
    specs = specs_of(func)
    loop_ir = str(module) if texts is None else ""
    for p in stage_passes("flat", options=options):
        p.apply(ctx, module)
    if verify_passes():
        module.verify()
    if texts is None:
        printed = (loop_ir, str(module))
        texts = lambda: printed  # noqa: E731
    return _Lowered(module, specs, _memory_plan(module), texts, stages)


def _output_stages(module: ModuleOp, name: str) -> dict[int, str]:
    """The stage each output argument of the `te.func @name` holds, by the position of
    its argument in the `loop.func` (the te arguments, then the results)."""
    from compiler.dialects import te
    from compiler.passes.schedule_ops import result_name

    func = next((op for op in module.ops if isinstance(op, te.FuncOp) and op.sym_name.data == name), None)
    if func is None:
        return {}
    returned = func.body.block.last_op
    assert isinstance(returned, te.ReturnOp)
    return {len(func.args) + k: result_name(v) for k, v in enumerate(returned.operands)}


def verify_passes() -> bool:
    """Whether builds verify the IR the passes made ($COMPILER_VERIFY=1: the test suite
    does). A wrong op there is a compiler bug, not the user's: checking every build cost
    a sixth of the passes' time."""
    return os.environ.get("COMPILER_VERIFY", "0") not in ("", "0")


# ---------------------------------------------------------------------------
# Build entries of the cache: `compile_module` without any pass
# ---------------------------------------------------------------------------


@dataclass
class _BuildEntry:
    """What a compiled function needs besides its object code, and the object's key."""

    object_key: str
    specs: list[ArgSpec]
    errors: list[ErrorEntry]
    memory: MemorySummary | None
    stages: list[NestRecord] | None = None

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "object": self.object_key,
                "specs": [asdict(s) for s in self.specs],
                "errors": [asdict(e) for e in self.errors],
                "memory": None if self.memory is None else self.memory.as_dict(),
                "stages": None if self.stages is None else [asdict(r) for r in self.stages],
            },
            sort_keys=True,
        ).encode()

    @classmethod
    def from_json(cls, payload: bytes) -> _BuildEntry:
        from compiler.analysis.memory_summary import MemorySummary
        from compiler.runtime.packed import ErrorEntry

        data = json.loads(payload)
        specs = [ArgSpec(**{**s, "dims": tuple(s["dims"])}) for s in data["specs"]]
        errors = [ErrorEntry(**e) for e in data["errors"]]
        memory = None if data["memory"] is None else MemorySummary.from_dict(data["memory"])
        stages = None
        if data.get("stages") is not None:
            from compiler.passes.instrument_stages import NestRecord

            stages = [NestRecord.from_json(r) for r in data["stages"]]
        return cls(str(data["object"]), specs, errors, memory, stages)


def _build_key(text: str, name: str, options: _Options) -> str:
    """The build entry's key: the module's text, the function, the options, the target (as
    for objects) and the host facts the auto-scheduler reads."""
    from compiler.lowering.engine import target_description
    from compiler.lowering.object_cache import cache_key
    from compiler.runtime.host import host_facts

    target = {
        **target_description(),
        **host_facts(),
        "function": name,
        "options": json.dumps(asdict(options), sort_keys=True),
    }
    return cache_key(text, kind="build", target=target)


def _load_build(
    key: str,
    module: ModuleOp,
    name: str,
    options: _Options,
    stats: CompileStats,
    cache: bool | None,
    start: float,
) -> Function | None:
    """The function of the build entry `key` (no pass runs), or None: no entry, or an
    unusable one (warns), or its object is gone."""
    from compiler.lowering.object_cache import CacheWarning, build_cache

    store = build_cache()
    payload = store.load(key)
    if payload is None:
        return None
    try:
        entry = _BuildEntry.from_json(payload)
    except (ValueError, KeyError, TypeError) as err:
        warnings.warn(
            f"compiler cache: {store.path(key)} is unreadable ({type(err).__name__}: {err}); compiling again",
            CacheWarning,
            stacklevel=4,
        )
        return None
    # the passes, on a copy of the module as given, only when an IR text is read
    lowered = functools.cache(lambda: _lower_to_flat(module.clone(), name, options))
    return _function_of_entry(entry, key, name, lowered, options.fast_math, options.fp_contract, stats, cache, start)


def _function_of_entry(
    entry: _BuildEntry,
    key: str,
    name: str,
    lowered: Callable[[], _Lowered],
    fast_math: bool,
    fp_contract: bool,
    stats: CompileStats,
    cache: bool | None,
    start: float,
) -> Function | None:
    """The function of a build entry whose object is loaded from the cache (None: it is gone);
    `lowered` runs the passes when an IR text is read."""
    from compiler.lowering.engine import load_cached

    stats.seconds["passes"] = time.perf_counter() - start
    start = time.perf_counter()
    lower_to_llvm, program = _llvm_lowering(lowered, fast_math, fp_contract, key)
    jit = load_cached(entry.object_key, lower_to_llvm, program, toolchain=_toolchain, cache=cache)
    if jit is None:
        return None
    stats.seconds["llvm"] = time.perf_counter() - start
    return Function._from_cache(name, jit, entry, stats, lowered)


def _load_graph(
    graph: GraphKey, name: str, options: dict[str, Any], source: Callable[[], tuple[ModuleOp, _Options]], start: float
) -> Function | None:
    """`build`'s function from the entry keyed by the Python program (`compiler.graph_cache`),
    or None; `source` emits the program when an IR text or the profiling variant is asked for."""
    from compiler import graph_cache

    payload = graph_cache.read(graph)
    if payload is None:
        return None
    try:
        entry = _BuildEntry.from_json(payload)
    except (ValueError, KeyError, TypeError) as err:
        graph_cache.unreadable(graph, err)
        return None
    made = functools.cache(source)

    def lowered() -> _Lowered:
        module, built = made()
        return _lower_to_flat(module.clone(), name, built)

    fn = _function_of_entry(
        entry, graph.key, name, functools.cache(lowered), options["fast_math"], options["fp_contract"], CompileStats(), None, start
    )
    if fn is not None:
        fn._recipe = _LazyRecipe(lambda: _Recipe(lambda: made()[0], name, made()[1], None))
    return fn


class _LazyRecipe(_Recipe):
    """A `_Recipe` made when first used (a function from the graph level of the cache: the
    program's module is emitted then)."""

    def __init__(self, make: Callable[[], _Recipe]):
        self._make = functools.cache(make)

    def compile(self, **changes: Any) -> Function:
        return self._make().compile(**changes)

    def facts(self) -> dict[str, StageFacts]:
        return self._make().facts()


def _toolchain() -> Toolchain:
    """The JIT's compiler (imported when an IR text is asked for: a build served by the cache
    never loads xDSL's LLVM backend)."""
    from compiler.lowering.jit import toolchain

    return toolchain()


def _store_build(key: str, fn: Function) -> None:
    from compiler.lowering.object_cache import build_cache

    build_cache().store(key, _entry_of(fn).to_json())


def _entry_of(fn: Function) -> _BuildEntry:
    from compiler.lowering.engine import object_key

    return _BuildEntry(object_key(fn._jit.program, opt=fn._jit.opt), fn.specs, fn._errors, fn.memory, fn._stages)


def _memory_plan(module: ModuleOp) -> MemorySummary | None:
    """The plan storage-rewrite made (checked: a wrong plan is an internal error)."""
    from compiler.analysis.memory_summary import memory_summary
    from compiler.dialects import loop
    from compiler.passes.verify_memory_plan import check_function

    for func in module.ops:
        if isinstance(func, loop.FuncOp):
            problems = check_function(func)
            if problems:
                raise MemoryPlanError(f"internal error: unsound memory plan: {'; '.join(problems)}")
            summary = memory_summary(func)
            if summary.buffers or summary.stack:
                return summary
    return None


def build(
    schedule_or_args: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    name: str = "main",
    *,
    auto_schedule: bool | None = None,
    tuning_log: str | os.PathLike[str] | None = None,
    options: PipelineOptions | None = None,
    **changes: bool,
) -> Function:
    """Compile `args` (inputs and outputs, in call order) into a callable `Function`.

    >>> n = te.var("n")
    >>> A = te.placeholder((n, 4), name="A")
    >>> B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0, name="B")
    >>> f = compiler.build([A, B])
    >>> a = np.ones((3, 4), np.float32)
    >>> b = np.empty_like(a)
    >>> f(a, b)
    >>> float(b.sum())
    24.0
    >>> f                                               # doctest: +ELLIPSIS
    <Function main(A: float32[n, 4], out B: float32[n, 4]) for ...>

    `build([A, B, C])`, or with a schedule `build(s, [A, B, C])`; `check_bounds=True`
    checks every load and store, intermediates included, against its buffer's region:
    an access outside raises IndexError naming the buffer, the index and the region.

    Without a schedule, the program is scheduled automatically: the schedule recorded
    for it in the tuning log (`tuning_log=`, else the file named by COMPILER_TUNING_LOG;
    `compiler.tune` writes it) if there is one, else the `auto-schedule` pass's for the
    host. `auto_schedule=False` compiles the unscheduled program (TVM's default
    schedule); `auto_schedule=True` also extends a partial schedule to the stages it
    does not name. `a * b + c` becomes one fused multiply-add, rounded once (as TVM,
    clang and the BLAS libraries do; the FMA units are twice the throughput of a
    multiply and an add); `fp_contract=False` rounds every float operation as written.
    `fast_math=True` also lets LLVM reassociate float math (reductions vectorize):
    faster, and the sum's order no longer the program's. The keyword options are
    `compiler.pipeline.PipelineOptions`' (`check_bounds`, `fast_math`, `fp_contract`,
    `loop_partition`, `tighten_pad_regions`), over `options` if given; an unknown one
    raises OptionError.
    """
    from compiler import graph_cache

    start = time.perf_counter()
    pipeline = PipelineOptions.of("build", changes, options)
    schedule, tensors = _split_args(schedule_or_args, args)
    automatic = schedule is None if auto_schedule is None else auto_schedule
    chosen = replace(pipeline, auto_schedule=automatic)
    fields = chosen.pipeline_fields()

    def source() -> tuple[ModuleOp, FunctionSignature]:
        from compiler.te.to_ir import build_module
        from compiler.tuning_log import apply_logged_schedule

        # verified by compile_module unless its cache has an entry for the module's text (a
        # program that compiled before, with this compiler: it verified then)
        module, sig = build_module(tensors, name, schedule, verify=False)
        if schedule is None and automatic:
            apply_logged_schedule(module, name, tuning_log)
        return module, sig

    # the first level of the cache: keyed by the Python program, before any IR is emitted
    # (not with a tuning log, whose records are keyed by the te module's text)
    logged = schedule is None and automatic and _tuning_log_named(tuning_log)
    graph = None if logged or not _cache_on() else graph_cache.graph_key(tensors, schedule, name, fields)
    if graph is not None:

        def unchanged() -> tuple[ModuleOp, _Options]:
            """The program's module, for the IR texts of a hit (made when first read)."""
            if graph_cache.graph_key(tensors, schedule, name, fields) != graph:
                raise IRError(
                    f"{name}: the program or its schedule changed after build() found it in the cache; "
                    "its IR can not be made again (build the changed program)"
                )
            return _built_options(*source(), name, fields)

        hit = _load_graph(graph, name, fields, unchanged, start)
        if hit is not None:
            hit.stats.seconds["total"] = time.perf_counter() - start
            return hit
    module, sig = source()
    fn = compile_built(module, sig, name, options=chosen)
    if graph is not None:
        graph_cache.write(graph, _entry_of(fn).to_json())
    fn.stats.seconds["total"] = time.perf_counter() - start
    return fn


def _cache_on() -> bool:
    from compiler.lowering.object_cache import cache_enabled

    return cache_enabled()


def _tuning_log_named(tuning_log: str | os.PathLike[str] | None) -> bool:
    from compiler.tuning_log import log_path

    return log_path(tuning_log) is not None


def compile_built(module: ModuleOp, sig: FunctionSignature, name: str, **options: Any) -> Function:
    """Compile a module made by `build_module` (arguments in the order of `sig.args`);
    `options` are those of `compile_module`."""
    call_order, strided_args = _call_order(module, sig, name)
    return compile_module(module, name, call_order, strided_args=strided_args, **options)


def _call_order(module: ModuleOp, sig: FunctionSignature, name: str) -> tuple[list[int], list[str]]:
    """The `loop.func` argument each argument of `sig` is, and the names of the strided ones."""
    abi = sig.inputs + sig.outputs
    abi_index = {t.uid: i for i, t in enumerate(abi)}
    arg_names = dict(zip((t.uid for t in abi), _te_argument_names(module, name), strict=True))
    return [abi_index[t.uid] for t in sig.args], [arg_names[t.uid] for t in sig.args if t.strided]


def _built_options(module: ModuleOp, sig: FunctionSignature, name: str, options: dict[str, Any]) -> tuple[ModuleOp, _Options]:
    """The module and the options `compile_built(module, sig, name, **options)` compiles."""
    call_order, strided_args = _call_order(module, sig, name)
    return module, _Options(call_order=tuple(call_order), strided_args=tuple(strided_args), **options)


def _te_argument_names(module: ModuleOp, name: str) -> list[str]:
    """The names the compiled function gives the inputs and then the outputs of the
    `te.func @name` (the tensors' names, made unique by `build_module`)."""
    from compiler.dialects import te

    func = next(op for op in module.ops if isinstance(op, te.FuncOp) and op.sym_name.data == name)
    returned = func.body.block.last_op
    assert isinstance(returned, te.ReturnOp)
    values = [*func.body.block.args, *returned.operands]
    return [v.name_hint or "" for v in values]
