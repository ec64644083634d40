"""Loading object code into MCJIT engines, and what an object depends on: the host
target machine and its description (a part of every cache key).

`jit.py` compiles (xDSL's LLVM backend, LLVM's optimizer and code generator); this
module only needs llvmlite's bindings, so a build served by the cache
(`compiler.build`: its build entry, then `load_cached`) never imports xDSL's llvm
dialect or its converter. `JitModule` computes its IR texts through `jit.py` when
they are first asked for.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Protocol, TypeAlias

import llvmlite.binding as llvm

from compiler.errors import ModuleLoadError
from compiler.lowering.object_cache import ObjectCache, cache_key
from compiler.runtime.host import openmp_library, shared_library
from compiler.runtime.threads import NUM_THREADS_SYMBOL
from compiler.runtime.threads import bind as bind_thread_count


@cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def target_machine(opt: int = 3, *, pic: bool = False) -> llvm.TargetMachine:
    """A new host target machine (an MCJIT engine takes ownership of the one it gets).

    `pic=False`: what MCJIT uses (JIT code model); `pic=True`: position-independent code,
    small code model, for shared libraries.
    """
    _initialize()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=opt,
        reloc="pic" if pic else "default",
        codemodel="default" if pic else "jitdefault",
        jit=not pic,
    )


def target_description(opt: int = 3) -> dict[str, str]:
    """What an object depends on besides the program: a part of its cache key."""
    return dict(_target_description(opt))


@cache
def _target_description(opt: int) -> dict[str, str]:
    _initialize()
    return {
        "triple": llvm.get_default_triple(),
        "cpu": llvm.get_host_cpu_name(),
        "features": llvm.get_host_cpu_features().flatten(),
        "opt": f"O{opt} loop-vectorize slp-vectorize",
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
        "openmp": str(openmp_library() is not None),  # parallel loops lower to serial ones without
    }


def optimize(text: str, tm: llvm.TargetMachine, opt: int = 3) -> llvm.ModuleRef:
    """Parse LLVM IR and run the O`opt` pipeline with both vectorizers for `tm`."""
    mod = llvm.parse_assembly(text)
    mod.verify()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    pto = llvm.PipelineTuningOptions(speed_level=opt)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pass_builder = llvm.create_pass_builder(tm, pto)
    pass_builder.getModulePassManager().run(mod, pass_builder)
    return mod


def object_of(text: str, *, opt: int = 3, pic: bool = False) -> bytes:
    """The object code of the LLVM IR `text`: optimized (`optimize`) and compiled for the
    host (what a worker of `llvm_pool` does with each function's module)."""
    tm = target_machine(opt, pic=pic)
    obj: bytes = tm.emit_object(optimize(text, tm, opt))  # llvmlite is untyped
    return obj


BUNDLE_MAGIC = b"XTCOBJS\x01"
"""The first bytes of several object files kept as one (`pack_objects`)."""
_BUNDLE_COUNT = struct.Struct("<I")
_BUNDLE_SIZE = struct.Struct("<Q")


def pack_objects(objects: list[bytes]) -> bytes:
    """Object files as one byte string (the cache stores one blob a key; the loader and
    `export_library` take them apart): a single object is itself, several are
    `BUNDLE_MAGIC`, their count and sizes, then their bytes."""
    if len(objects) == 1:
        return objects[0]
    sizes = b"".join(_BUNDLE_SIZE.pack(len(o)) for o in objects)
    return b"".join([BUNDLE_MAGIC, _BUNDLE_COUNT.pack(len(objects)), sizes, *objects])


def unpack_objects(blob: bytes) -> list[bytes]:
    """The object files `pack_objects` made one (a plain object file: itself)."""
    if not blob.startswith(BUNDLE_MAGIC):
        return [blob]
    at = len(BUNDLE_MAGIC)
    truncated = ModuleLoadError("a truncated bundle of object files")
    if len(blob) < at + _BUNDLE_COUNT.size:
        raise truncated
    (count,) = _BUNDLE_COUNT.unpack_from(blob, at)
    at += _BUNDLE_COUNT.size
    if len(blob) < at + count * _BUNDLE_SIZE.size:
        raise truncated
    sizes = [_BUNDLE_SIZE.unpack_from(blob, at + k * _BUNDLE_SIZE.size)[0] for k in range(count)]
    at += count * _BUNDLE_SIZE.size
    objects = []
    for size in sizes:
        objects.append(blob[at : at + size])
        at += size
    if at != len(blob):  # short objects leave `at` past the end
        raise truncated
    return objects


def uses_openmp(object_code: bytes) -> bool:
    """Whether an object calls libgomp: its symbol table names `GOMP_parallel`, or only the
    outlined body's `omp_get_thread_num` (LLVM dropped the fork as dead code behind a check
    that always fails: with libgomp not loaded, that name resolved to nothing and took the
    object's other calls, `aligned_alloc` among them, to address 0; make fuzz seed 59)."""
    return b"GOMP_" in object_code or b"omp_get_" in object_code


if TYPE_CHECKING:  # xDSL: only to lower or print (a cached object is loaded without it)
    from xdsl.dialects.builtin import ModuleOp

LLVMModule: TypeAlias = "ModuleOp | Callable[[], ModuleOp]"
"""An llvm-dialect module, or a function that lowers the program to one (called at most
once, and only when LLVM runs or the IR is asked for)."""


class Toolchain(Protocol):
    """What turns an llvm-dialect module into LLVM IR and object code: the `jit` module
    (given to a `JitModule` as a function returning it, so that loading an object never
    imports xDSL's LLVM backend)."""

    def to_llvm_ir(self, module: ModuleOp) -> str: ...

    def optimize_module(self, module: ModuleOp, tm: llvm.TargetMachine, opt: int = 3) -> llvm.ModuleRef: ...

    def compile_object(
        self,
        module: LLVMModule,
        program: str | Callable[[], str],
        *,
        pic: bool = False,
        opt: int = 3,
        cache: bool | None = None,
    ) -> tuple[bytes, dict[str, str] | None]: ...


class JitModule:
    """A compiled module, loaded into its own MCJIT engine: keep it alive while calling its
    functions. `from_cache` tells whether its object code came from the on-disk cache:
    then neither the lowering to the llvm dialect nor LLVM ran, and `llvm_module()`,
    `llvm_ir` and `optimized_ir` are computed (by `toolchain()`) when first asked for."""

    def __init__(
        self,
        module: LLVMModule,
        program: str | Callable[[], str],
        object_code: bytes,
        *,
        toolchain: Callable[[], Toolchain],
        opt: int,
        from_cache: bool,
        cache: bool | None = None,
        llvm_ir: str | None = None,
        optimized_ir: str | None = None,
    ):
        self._program = program
        self._toolchain = toolchain
        self.object_code = object_code
        self.opt = opt
        self.from_cache = from_cache
        self.cache = cache  # as asked for at compile time (None: the environment decides)
        self._module = module
        self._llvm_ir = llvm_ir
        self._optimized_ir = optimized_ir
        self.engine = load_object(object_code)

    @property
    def program(self) -> str:
        """The text naming the program in the cache key (computed now if a build entry of the
        cache gave the object without it: `compiler.build`)."""
        if not isinstance(self._program, str):
            self._program = self._program()
        return self._program

    def llvm_module(self) -> ModuleOp:
        """The llvm-dialect module (lowered now if it came from the cache)."""
        if callable(self._module):  # an xDSL ModuleOp is not callable
            self._module = self._module()
        return self._module

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR before optimization."""
        if self._llvm_ir is None:
            self._llvm_ir = self._toolchain().to_llvm_ir(self.llvm_module())
        return self._llvm_ir

    @property
    def optimized_ir(self) -> str:
        if self._optimized_ir is None:
            tm = target_machine(self.opt)
            self._optimized_ir = str(self._toolchain().optimize_module(self.llvm_module(), tm, self.opt))
        return self._optimized_ir

    def address(self, name: str) -> int:
        addr: int = self.engine.get_function_address(name)  # llvmlite is untyped
        if addr == 0:
            raise KeyError(f"no function @{name} in the compiled module")
        return addr

    def assembly(self) -> str:
        mod = llvm.parse_assembly(self.optimized_ir)
        asm: str = target_machine().emit_assembly(mod)  # llvmlite is untyped
        return asm

    def shared_object(self, *, cache: bool | None = None) -> bytes:
        """The program as a position-independent object, for a shared library (through the
        cache too, unless `cache` or the module's own setting turn it off)."""
        cache = self.cache if cache is None else cache
        compile_object = self._toolchain().compile_object
        obj, _ = compile_object(self.llvm_module, lambda: self.program, pic=True, opt=self.opt, cache=cache)
        return obj


def object_key(program: str, *, pic: bool = False, opt: int = 3) -> str:
    """The cache key of `program`'s object (`compile_object`)."""
    return cache_key(program, kind="pic" if pic else "jit", target=target_description(opt))


def load_cached(
    key: str,
    module: LLVMModule,
    program: Callable[[], str],
    *,
    toolchain: Callable[[], Toolchain],
    opt: int = 3,
    cache: bool | None = None,
) -> JitModule | None:
    """The module whose object is stored under `key`, loaded; None when the entry is missing
    or unusable (`ObjectCache.load` warns). `module` and `program` compute the llvm-dialect
    module and the program's text when they are asked for (IR texts, shared libraries)."""
    obj = ObjectCache().load(key)
    if obj is None:
        return None
    return JitModule(module, program, obj, toolchain=toolchain, opt=opt, from_cache=True, cache=cache)


def load_object(object_code: bytes) -> llvm.ExecutionEngine:
    """A finalized MCJIT engine holding `object_code`, its calls to libc and libgomp
    resolved against the process."""
    _load_libc()
    if uses_openmp(object_code):
        library = openmp_library()
        if library is not None:
            _load_openmp(library)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine())
    for part in unpack_objects(object_code):  # one object per function from `llvm_pool`
        engine.add_object_file(llvm.ObjectFileRef.from_data(part))
    engine.finalize_object()
    if uses_openmp(object_code):
        address = engine.get_global_value_address(NUM_THREADS_SYMBOL)
        if address:  # an object cached before the global existed has none
            bind_thread_count(engine, address)
    return engine


def load_ir(text: str) -> llvm.ExecutionEngine:
    """A finalized MCJIT engine holding the LLVM IR `text` (a runtime helper of a few lines,
    such as the profiler's clock), its calls to libc resolved against the process."""
    _load_libc()
    module = llvm.parse_assembly(text)
    module.verify()
    engine = llvm.create_mcjit_compiler(module, target_machine())
    engine.finalize_object()
    return engine


@cache
def _load_openmp(library: str) -> ctypes.CDLL:
    """libgomp for the JIT's symbol lookup, and a handle of our own that nothing closes:
    llvmlite closes the libraries it loaded when the process exits, and an OpenMP
    worker still spinning in libgomp then (OMP_WAIT_POLICY=ACTIVE) ran into unmapped
    code (a segfault at exit)."""
    handle = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
    llvm.load_library_permanently(library)
    return handle


@cache
def _load_libc() -> None:
    name = shared_library("c", "libc.so.6")
    if name is not None:
        llvm.load_library_permanently(name)
