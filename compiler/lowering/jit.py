"""llvm-dialect module -> llvmlite -> O3 with both vectorizers -> object code -> MCJIT engine.

This is the only file that imports llvmlite (with `export.py`, which links
shared libraries). LLVM emits an object file (`compile_object`), which goes
through the on-disk cache (`object_cache.py`: a second process that compiles
the same program loads the object and skips LLVM) and is loaded into an MCJIT
engine of its own (`load_object`), kept alive by the returned `JitModule`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache
from typing import Any

import llvmlite.binding as llvm
import xdsl.backend.llvm.convert_op as _convert_op
from llvmlite import ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm as L
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.utils.hints import isa

from compiler.dialects import loop
from compiler.lowering.object_cache import ObjectCache, cache_enabled, cache_key
from compiler.lowering.parallel import openmp_library


def _convert_gep(op: L.GEPOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    """xDSL 0.74 gives struct/multi-index GEPs a typed-pointer result; use opaque `ptr`."""
    ssa = iter(op.ssa_indices)
    idx = [
        val_map[next(ssa)] if i == L.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), i)
        for i in op.rawConstantIndices.iter_values()
    ]
    gep = builder.gep(
        val_map[op.ptr], idx, inbounds=op.inbounds is not None, source_etype=convert_type(op.elem_type)
    )
    gep.type = ir.PointerType()
    val_map[op.result] = gep


_convert_op._convert_getelementptr = _convert_gep  # looked up at call time


def _scope_list(module: ir.Module, names: ArrayAttr[StringAttr]) -> Any:
    """`!{!scope...}` for an ArrayAttr of scope names "function/group": a scope is
    `!{!"function/group", !domain}`, the domain `!{!"function"}` (uniqued by their
    strings, so every access of a group shares one node)."""
    scopes = []
    for name in names.data:
        text = name.data
        domain = module.add_metadata([ir.MetaDataString(module, text.split("/")[0])])
        scopes.append(module.add_metadata([ir.MetaDataString(module, text), domain]))
    return module.add_metadata(scopes)


def _add_alias_metadata(op: L.LoadOp | L.StoreOp, instr: Any, module: ir.Module) -> None:
    """aliasing.py's groups as scoped-noalias metadata."""
    for attr, kind in (("alias_scopes", "alias.scope"), ("noalias_scopes", "noalias")):
        names = op.attributes.get(attr)
        if isa(names, ArrayAttr[StringAttr]) and names.data:
            instr.set_metadata(kind, _scope_list(module, names))


def _convert_load(op: L.LoadOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    instr = builder.load(val_map[op.ptr], typ=convert_type(op.dereferenced_value.type))
    if op.alignment:
        instr.align = op.alignment.value.data
    _add_alias_metadata(op, instr, builder.module)
    val_map[op.dereferenced_value] = instr


def _convert_store(op: L.StoreOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    instr = builder.store(val_map[op.value], val_map[op.ptr])
    if op.alignment:
        instr.align = op.alignment.value.data
    _add_alias_metadata(op, instr, builder.module)


class _LoopID(ir.values.MDValue):  # type: ignore[misc]  # llvmlite is untyped
    """A loop's `distinct !{!self, !{!"llvm.loop.unroll.full"}}`: LLVM finds loop
    properties on a distinct node that names itself first, which Module.add_metadata
    (uniqued nodes only) can not make."""

    def __init__(self, module: ir.Module, properties: list[Any]):
        super().__init__(module, [], name=str(len(module.metadata)))
        self.operands = (self, *properties)

    def descr(self, buf: list[str]) -> None:
        refs = ", ".join(op.get_reference() for op in self.operands)
        buf += (f"distinct !{{ {refs} }}", "\n")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def _convert_br(op: L.BrOp, builder: ir.IRBuilder, val_map: dict[Any, Any], block_map: dict[Any, Any]) -> None:
    """A branch; a loop's back edge marked `unroll_full` carries `llvm.loop.unroll.full`."""
    _convert_plain_br(op, builder, val_map, block_map)
    if loop.UNROLL_FULL in op.attributes:
        module = builder.module
        full = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.full")])
        builder.block.terminator.set_metadata("llvm.loop", _LoopID(module, [full]))


_convert_plain_br = _convert_op._convert_br
_convert_op._convert_load = _convert_load
_convert_op._convert_store = _convert_store
_convert_op._convert_br = _convert_br


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


def to_llvm_ir(module: ModuleOp) -> str:
    """The textual LLVM IR of an llvm-dialect module, before optimization."""
    tm = target_machine()
    return str(convert_module(module, fallback_target_triple=tm.triple))


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


def uses_openmp(object_code: bytes) -> bool:
    """Whether an object calls libgomp (its symbol table names `GOMP_parallel`)."""
    return b"GOMP_" in object_code


LLVMModule = ModuleOp | Callable[[], ModuleOp]
"""An llvm-dialect module, or a function that lowers the program to one (called at most
once, and only when LLVM runs or the IR is asked for)."""


class JitModule:
    """A compiled module, loaded into its own MCJIT engine: keep it alive while calling its
    functions. `from_cache` tells whether its object code came from the on-disk cache:
    then neither the lowering to the llvm dialect nor LLVM ran, and `llvm_module()`,
    `llvm_ir` and `optimized_ir` are computed when first asked for."""

    def __init__(
        self,
        module: LLVMModule,
        program: str | Callable[[], str],
        object_code: bytes,
        *,
        opt: int,
        from_cache: bool,
        cache: bool | None = None,
        llvm_ir: str | None = None,
        optimized_ir: str | None = None,
    ):
        self._program = program
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
        if not isinstance(self._module, ModuleOp):
            self._module = self._module()
        return self._module

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR before optimization."""
        if self._llvm_ir is None:
            self._llvm_ir = to_llvm_ir(self.llvm_module())
        return self._llvm_ir

    @property
    def optimized_ir(self) -> str:
        if self._optimized_ir is None:
            self._optimized_ir = str(optimize(self.llvm_ir, target_machine(self.opt), self.opt))
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
        obj, _ = compile_object(self.llvm_module, self.program, pic=True, opt=self.opt, cache=cache)
        return obj


def object_key(program: str, *, pic: bool = False, opt: int = 3) -> str:
    """The cache key of `program`'s object (`compile_object`)."""
    return cache_key(program, kind="pic" if pic else "jit", target=target_description(opt))


def load_cached(
    key: str, module: LLVMModule, program: Callable[[], str], *, opt: int = 3, cache: bool | None = None
) -> JitModule | None:
    """The module whose object is stored under `key`, loaded; None when the entry is missing
    or unusable (`ObjectCache.load` warns). `module` and `program` compute the llvm-dialect
    module and the program's text when they are asked for (IR texts, shared libraries)."""
    obj = ObjectCache().load(key)
    if obj is None:
        return None
    return JitModule(module, program, obj, opt=opt, from_cache=True, cache=cache)


def compile_object(
    module: LLVMModule,
    program: str,
    *,
    pic: bool = False,
    opt: int = 3,
    cache: bool | None = None,
) -> tuple[bytes, dict[str, str] | None]:
    """The object code of a program: `program` is its text (the cache key's part that names
    it), `module` its llvm-dialect module or the function lowering it.

    Looked up in the on-disk cache first (`object_cache`); on a miss the module is lowered,
    converted to LLVM IR, optimized and compiled, and the object stored. Returns the object
    and, when LLVM ran, the IR before and after optimization (`llvm_ir`, `optimized_ir`).
    """
    store = ObjectCache() if cache_enabled(cache) else None
    key = object_key(program, pic=pic, opt=opt)
    if store is not None:
        obj = store.load(key)
        if obj is not None:
            return obj, None
    tm = target_machine(opt, pic=pic)
    text = to_llvm_ir(module if isinstance(module, ModuleOp) else module())
    mod = optimize(text, tm, opt)
    ir = {"llvm_ir": text, "optimized_ir": str(mod)}  # before code generation changes `mod`
    obj = tm.emit_object(mod)
    if store is not None:
        store.store(key, obj)
    return obj, ir


def load_object(object_code: bytes) -> llvm.ExecutionEngine:
    """A finalized MCJIT engine holding `object_code`, its calls to libc and libgomp
    resolved against the process."""
    _load_libc()
    if uses_openmp(object_code):
        library = openmp_library()
        if library is not None:
            llvm.load_library_permanently(library)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine())
    engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
    engine.finalize_object()
    return engine


def jit_compile(
    module: LLVMModule, opt: int = 3, *, cache: bool | None = None, program: str | None = None
) -> JitModule:
    """Compile a program into a loaded `JitModule`.

    `module` is the llvm-dialect module or a function that lowers the program to it;
    `program` names the program in the cache key: the text of an IR that determines the
    llvm-dialect module (default: the llvm-dialect module's own text). `cache` overrides
    `$COMPILER_CACHE` (see `object_cache`).
    """
    if program is None:
        if not isinstance(module, ModuleOp):
            module = module()
        program = str(module)
    if not isinstance(module, ModuleOp):
        module = cache_once(module)
    obj, ir = compile_object(module, program, opt=opt, cache=cache)
    return JitModule(module, program, obj, opt=opt, from_cache=ir is None, cache=cache, **(ir or {}))


def cache_once(lower: Callable[[], ModuleOp]) -> Callable[[], ModuleOp]:
    """`lower`, called at most once."""
    done: list[ModuleOp] = []

    def once() -> ModuleOp:
        if not done:
            done.append(lower())
        return done[0]

    return once


@cache
def _load_libc() -> None:
    name = ctypes.util.find_library("c")
    if name is not None:
        llvm.load_library_permanently(name)
