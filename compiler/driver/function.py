"""`Function`: a compiled tensor function, called with arrays through the packed ABI."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from compiler.errors import IRError
from compiler.runtime.module import ArgSpec

if TYPE_CHECKING:  # xDSL and the passes are imported where used: a cached build needs none
    from xdsl.dialects.builtin import ModuleOp

    from compiler.analysis.memory_summary import MemorySummary
    from compiler.driver.lowered import CompileOptions, Lowered
    from compiler.lowering.engine import JitModule, Toolchain
    from compiler.passes.instrument_stages import NestRecord
    from compiler.profile import Profile, StageFacts
    from compiler.runtime.packed import ErrorEntry


class Recompile(Protocol):
    """What compiled a function, able to compile it again (`compiler.driver.compile.Recipe`)."""

    def compile(self, **changes: Any) -> Function: ...

    def compile_options(self) -> CompileOptions: ...

    def module(self) -> ModuleOp: ...

    def facts(self) -> dict[str, StageFacts]: ...


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
        lowered: Lowered,
        stats: CompileStats,
        options: CompileOptions,
        *,
        cache: bool | None = None,
        identity: str | None = None,
    ):
        """`identity` names the program in the object cache's key (`llvm_lowering`)."""
        from compiler.lowering.jit import jit_compile
        from compiler.lowering.to_llvm import assert_table
        from compiler.runtime.packed import ErrorEntry

        errors = [ErrorEntry(e.message, e.error, e.n_values) for e in assert_table(lowered.module, name)]
        start = time.perf_counter()
        lower_to_llvm, program = llvm_lowering(lambda: lowered, options, identity)
        jit = jit_compile(lower_to_llvm, cache=cache, program=program)
        stats.seconds["llvm"] = time.perf_counter() - start
        self._setup(name, jit, lowered.specs, errors, stats, lowered.memory, lowered.stages)
        self._lowered = lambda: lowered

    @classmethod
    def restored(
        cls,
        name: str,
        jit: JitModule,
        stats: CompileStats,
        lowered: Callable[[], Lowered],
        *,
        specs: list[ArgSpec],
        errors: list[ErrorEntry],
        memory: MemorySummary | None,
        stages: list[NestRecord] | None,
    ) -> Function:
        """A function whose object and metadata came from a build entry of the cache (no
        pass ran); `lowered` runs the passes when an IR text is asked for."""
        fn = cls.__new__(cls)
        fn._setup(name, jit, specs, errors, stats, memory, stages)
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
        self._recipe: Recompile | None = None  # how to compile this again (its pipeline, its profiling variant)
        self._profiling: Function | None = None
        args = [PackedArg(s.name, s.dtype, s.is_output) for s in specs]
        self._packed = PackedFunction(name, jit.address(name), args, errors)

    def with_recipe(self, recipe: Recompile) -> Function:
        """This function, which `recipe` compiles again (its pipeline, its profiling variant)."""
        self._recipe = recipe
        return self

    @property
    def pipeline(self) -> str:
        """The pipeline that compiled this function, as `compiler-opt -p` text (from the
        module `source_ir`, it makes the same llvm-dialect IR)."""
        return str(self._made_by().compile_options().pipeline())

    @property
    def source_ir(self) -> str:
        """The module the pipeline started from (`build`'s te and sched IR)."""
        return str(self._made_by().module())

    def _made_by(self) -> Recompile:
        if self._recipe is None:
            raise IRError(f"{self.name}: this function was not compiled by compile_module")
        return self._recipe

    @property
    def loop_ir(self) -> str:
        """The IR after schedule-ops (the loop stage of the pipeline)."""
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
        from compiler.runtime.module import ModuleMetadata

        return export_library(self._jit, path, ModuleMetadata(self.name, self.specs, self._errors), cache=cache)

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
            self._profiling = self._made_by().compile(profile=True)
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


def llvm_lowering(
    lowered: Callable[[], Lowered], options: CompileOptions, identity: str | None = None
) -> tuple[Callable[[], ModuleOp], Callable[[], str]]:
    """The lowering of the flat module to the llvm dialect (run when LLVM runs or its IR is
    read), and the cache key's program: `identity` (the build entry's key, which names the
    source program, the options and the target) or else the flat IR, and the passes that
    lower it further."""

    def lower_to_llvm() -> ModuleOp:
        from compiler.context import make_context

        module = lowered().module
        ctx = make_context()
        for p in options.pipeline().stage("llvm"):
            p.apply(ctx, module)
        return module

    def program() -> str:
        passes = ",".join(map(str, options.pipeline().stage("llvm")))
        source = f"build {identity}" if identity is not None else lowered().flat_ir
        return f"{source}\n// then: {passes}\n"

    return lower_to_llvm, program


def toolchain() -> Toolchain:
    """The JIT's compiler (imported when an IR text is asked for: a build served by the cache
    never loads xDSL's LLVM backend)."""
    from compiler.lowering.jit import toolchain

    return toolchain()
