"""llvm-dialect module -> llvmlite -> O3 with both vectorizers -> object code -> MCJIT engine.

This file and `engine.py` (target machines, loading objects: llvmlite's bindings
only, what a cached build needs) are the only ones that import llvmlite (with
`export.py`, which links shared libraries). LLVM emits an object file (`compile_object`), which goes
through the on-disk cache (`object_cache.py`: a second process that compiles
the same program loads the object and skips LLVM) and is loaded into an MCJIT
engine of its own (`load_object`), kept alive by the returned `JitModule`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
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
from compiler.lowering.engine import (  # re-exported: the JIT's API lives in one place
    JitModule,
    LLVMModule,
    Toolchain,
    load_cached,
    load_object,
    object_key,
    target_description,
    target_machine,
    uses_openmp,
)
from compiler.lowering.memory import WORKSPACE_ACQUIRE, WORKSPACE_RELEASE
from compiler.lowering.object_cache import ObjectCache, cache_enabled

__all__ = [
    "JitModule",
    "LLVMModule",
    "Toolchain",
    "cache_once",
    "compile_object",
    "jit_compile",
    "load_cached",
    "load_object",
    "object_key",
    "optimize",
    "target_description",
    "target_machine",
    "to_llvm_ir",
    "toolchain",
    "uses_openmp",
]


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


class _LoopID(ir.values.MDValue):
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


def to_llvm_ir(module: ModuleOp) -> str:
    """The textual LLVM IR of an llvm-dialect module, before optimization."""
    tm = target_machine()
    converted = convert_module(module, fallback_target_triple=tm.triple)
    define_workspace(converted)
    return str(converted)


def define_workspace(module: ir.Module) -> None:
    """Define the workspace functions the module declares (`lowering/memory.py`): a slot
    holds a cached block's address, its capacity in the block's first 8 bytes and the
    data 64 bytes in. Acquire takes the block out of the slot with an atomic exchange
    (another thread calling at the same time finds the slot empty and allocates its own)
    and reallocates it when it is too small; release puts it back, freeing what the slot
    held meanwhile. Written with llvmlite's builder: xDSL's llvm dialect has no atomics."""
    globals_ = module.globals
    acquire, release = globals_.get(WORKSPACE_ACQUIRE), globals_.get(WORKSPACE_RELEASE)
    if not isinstance(acquire, ir.Function) or not isinstance(release, ir.Function):
        return
    i8, i64 = ir.IntType(8), ir.IntType(64)
    ptr = acquire.args[0].type
    aligned_alloc = _declared(module, "aligned_alloc", ir.FunctionType(ptr, [i64, i64]))
    free = _declared(module, "free", ir.FunctionType(ir.VoidType(), [ptr]))
    header = ir.Constant(i64, 64)

    acquire.linkage = "internal"
    slot, size = acquire.args
    b = ir.IRBuilder(acquire.append_basic_block("entry"))
    cached = b.atomic_rmw("xchg", slot, ir.Constant(i64, 0), "acq_rel")
    check, drop, fresh = (acquire.append_basic_block(n) for n in ("check", "drop", "fresh"))
    b.cbranch(b.icmp_unsigned("!=", cached, ir.Constant(i64, 0)), check, fresh)
    b.position_at_end(check)
    block = b.inttoptr(cached, ptr)
    reuse = acquire.append_basic_block("reuse")
    b.cbranch(b.icmp_unsigned(">=", b.load(block, typ=i64), size), reuse, drop)
    b.position_at_end(reuse)
    b.ret(b.gep(block, [header], source_etype=i8))
    b.position_at_end(drop)
    b.call(free, [block])
    b.branch(fresh)
    b.position_at_end(fresh)
    new = b.call(aligned_alloc, [header, b.add(size, header)])
    b.store(size, new)
    b.ret(b.gep(new, [header], source_etype=i8))

    release.linkage = "internal"
    slot, data = release.args
    b = ir.IRBuilder(release.append_basic_block("entry"))
    block = b.gep(data, [ir.Constant(i64, -header.constant)], source_etype=i8)
    old = b.atomic_rmw("xchg", slot, b.ptrtoint(block, i64), "acq_rel")
    drop, done = release.append_basic_block("drop"), release.append_basic_block("done")
    b.cbranch(b.icmp_unsigned("!=", old, ir.Constant(i64, 0)), drop, done)
    b.position_at_end(drop)
    b.call(free, [b.inttoptr(old, ptr)])
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def _declared(module: ir.Module, name: str, ftype: ir.FunctionType) -> ir.Function:
    found = module.globals.get(name)
    if isinstance(found, ir.Function):
        return found
    return ir.Function(module, ftype, name)


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


def compile_object(
    module: LLVMModule,
    program: str | Callable[[], str],
    *,
    pic: bool = False,
    opt: int = 3,
    cache: bool | None = None,
) -> tuple[bytes, dict[str, str] | None]:
    """The object code of a program: `program` is its text (the cache key's part that names
    it), `module` its llvm-dialect module or the function lowering it.

    Looked up in the on-disk cache first (`object_cache`; `program` is only computed then);
    on a miss the module is lowered,
    converted to LLVM IR, optimized and compiled, and the object stored. Returns the object
    and, when LLVM ran, the IR before and after optimization (`llvm_ir`, `optimized_ir`).
    """
    store = ObjectCache() if cache_enabled(cache) else None
    key = ""
    if store is not None:
        key = object_key(program if isinstance(program, str) else program(), pic=pic, opt=opt)
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


def jit_compile(
    module: LLVMModule,
    opt: int = 3,
    *,
    cache: bool | None = None,
    program: str | Callable[[], str] | None = None,
) -> JitModule:
    """Compile a program into a loaded `JitModule`.

    `module` is the llvm-dialect module or a function that lowers the program to it;
    `program` names the program in the cache key: the text of an IR that determines the
    llvm-dialect module, or a function computing it when the key is needed (default: the
    llvm-dialect module's own text). `cache` overrides
    `$COMPILER_CACHE` (see `object_cache`).
    """
    if program is None:
        if not isinstance(module, ModuleOp):
            module = module()
        program = str(module)
    if not isinstance(module, ModuleOp):
        module = cache_once(module)
    obj, ir = compile_object(module, program, opt=opt, cache=cache)
    return JitModule(
        module, program, obj, toolchain=toolchain, opt=opt, from_cache=ir is None, cache=cache, **(ir or {})
    )


def toolchain() -> Toolchain:
    """This module, as the `Toolchain` a `JitModule` computes its IR texts with."""
    return sys.modules[__name__]  # a module implementing the protocol


def cache_once(lower: Callable[[], ModuleOp]) -> Callable[[], ModuleOp]:
    """`lower`, called at most once."""
    done: list[ModuleOp] = []

    def once() -> ModuleOp:
        if not done:
            done.append(lower())
        return done[0]

    return once
