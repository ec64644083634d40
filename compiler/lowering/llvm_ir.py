"""The llvm dialect as LLVM IR text (llvmlite's `ir.Module`), for the JIT and `compiler-opt -t llvm`.

xDSL's converter (`xdsl.backend.llvm.convert`) with four conversions of the
project's own, chosen by `convert_op` before it falls back to xDSL's (nothing of
xDSL's is replaced: its converter keeps its behaviour in every other user):

* `llvm.getelementptr`: xDSL 0.74 gives a struct or multi-index GEP a typed-pointer
  result, which LLVM 15+ rejects beside opaque `ptr`s; here it is an opaque `ptr`.
* `llvm.load` / `llvm.store`: xDSL drops their `alias_scopes` / `noalias_scopes`
  (aliasing.py's groups); here they become scoped-noalias metadata, without
  which LLVM neither vectorizes nor keeps accumulators in registers.
* `llvm.br`: xDSL has no loop metadata; a loop's back edge marked `unroll_full`
  carries `llvm.loop.unroll.full` here (a self-referencing distinct node).

`to_llvm_ir` also defines the workspace functions the module declares
(`memory.define_workspace`: xDSL's llvm dialect has no atomics).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, cast

from llvmlite import ir
from xdsl.backend.llvm.convert import (
    _convert_global,  # pyright: ignore[reportPrivateUsage]
    _declare_func,  # pyright: ignore[reportPrivateUsage]
)
from xdsl.backend.llvm.convert_op import convert_op as xdsl_convert_op
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.context import Context
from xdsl.dialects import llvm as L
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.target import Target

from compiler.diagnostics import PassError
from compiler.dialects import loop
from compiler.lowering.engine import target_description
from compiler.lowering.memory import define_workspace


def to_llvm_ir(module: ModuleOp) -> str:
    """The textual LLVM IR of an llvm-dialect module, before optimization."""
    # the cached triple: a call into llvmlite here would wait for the optimizing thread
    converted = convert_module(module, target_description()["triple"])
    define_workspace(converted)
    return str(converted)


def convert_module(module: ModuleOp, triple: str) -> ir.Module:
    """xDSL's `convert_module` (globals, then declarations, then bodies) with `convert_op`."""
    converted = ir.Module()
    converted.triple = triple
    globals_ = [op for op in module.ops if isinstance(op, L.GlobalOp)]
    functions = [op for op in module.ops if isinstance(op, L.FuncOp)]
    if other := [op for op in module.ops if not isinstance(op, L.GlobalOp | L.FuncOp)]:
        message = f"no LLVM IR for a top-level {other[0].name} (only llvm.func and llvm.mlir.global)"
        raise PassError(message, other[0])  # located: a module-level op the pipeline kept
    for global_ in globals_:
        _convert_global(global_, converted)
    for function in functions:
        _declare_func(function, converted)
    for function in functions:
        if function.body.blocks:
            _convert_body(function, converted)
    return converted


def _convert_body(op: L.FuncOp, module: ir.Module) -> None:
    """A function's blocks, block arguments as phis (their incoming values are added by
    the branches), then each op."""
    function = module.get_global(op.sym_name.data)
    block_map: dict[Block, ir.Block] = {}
    val_map: dict[SSAValue, ir.Value] = {}
    for i, block in enumerate(op.body.blocks):
        block_map[block] = function.append_basic_block(name=block.name_hint or "")
        if i == 0:
            val_map.update(zip(block.args, function.args, strict=True))
    for block in list(op.body.blocks)[1:]:
        builder = ir.IRBuilder(block_map[block])
        for arg in block.args:
            val_map[arg] = builder.phi(convert_type(arg.type))
    for block in op.body.blocks:
        builder = ir.IRBuilder(block_map[block])
        if block_map[block].instructions:
            builder.position_after(block_map[block].instructions[-1])
        for inner in block.ops:
            convert_op(inner, builder, val_map, block_map)


def convert_op(op: Operation, builder: ir.IRBuilder, val_map: dict[Any, Any], block_map: dict[Any, Any]) -> None:
    """The project's conversion of `op` where it has one (module docstring), else xDSL's."""
    if isinstance(op, L.GEPOp):
        _convert_gep(op, builder, val_map)
    elif isinstance(op, L.LoadOp):
        _convert_load(op, builder, val_map)
    elif isinstance(op, L.StoreOp):
        _convert_store(op, builder, val_map)
    else:
        xdsl_convert_op(op, builder, val_map, block_map)
        if isinstance(op, L.BrOp) and loop.UNROLL_FULL in op.attributes:
            _mark_unroll_full(builder)


def _convert_gep(op: L.GEPOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    """A GEP whose result is an opaque `ptr` (xDSL 0.74: a typed pointer for a struct or
    multi-index GEP)."""
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


def _scope_list(module: ir.Module, names: ArrayAttr[StringAttr]) -> Any:
    """`!{!scope...}` for an ArrayAttr of scope names "function/group": a scope is
    `!{!"function/group", !domain}`, the domain `!{!"function"}` (uniqued by their
    strings, so every access of a group shares one node)."""
    # every access of a group carries the same list (aliasing.py): made once per module,
    # not once per access (a network's lists name a hundred groups)
    cache: dict[ArrayAttr[StringAttr], Any] = module.__dict__.setdefault("_compiler_scope_lists", {})
    if names in cache:
        return cache[names]
    # and each scope once per module: a network's lists share their names, and asking
    # llvmlite for a node it has costs as much as making it (its key is the operands)
    made: dict[str, Any] = module.__dict__.setdefault("_compiler_scopes", {})
    scopes = []
    for name in names.data:
        text = name.data
        if text not in made:
            domain = module.add_metadata([ir.MetaDataString(module, text.split("/")[0])])
            made[text] = module.add_metadata([ir.MetaDataString(module, text), domain])
        scopes.append(made[text])
    cache[names] = module.add_metadata(scopes)
    return cache[names]


def _add_alias_metadata(op: L.LoadOp | L.StoreOp, instr: Any, module: ir.Module) -> None:
    """aliasing.py's groups as scoped-noalias metadata."""
    for attr, kind in (("alias_scopes", "alias.scope"), ("noalias_scopes", "noalias")):
        names = op.attributes.get(attr)  # isinstance, not xDSL's isa: that builds a constraint per call
        if isinstance(names, ArrayAttr) and names.data and all(isinstance(n, StringAttr) for n in names.data):
            instr.set_metadata(kind, _scope_list(module, cast(ArrayAttr[StringAttr], names)))


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


def _mark_unroll_full(builder: ir.IRBuilder) -> None:
    """`llvm.loop.unroll.full` on the branch just converted (a loop's back edge)."""
    module = builder.module
    full = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.full")])
    builder.block.terminator.set_metadata("llvm.loop", _LoopID(module, [full]))


@dataclass(frozen=True)
class LLVMIRTarget(Target):
    """`compiler-opt -t llvm`: the LLVM IR `build` hands to LLVM (`to_llvm_ir`)."""

    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(to_llvm_ir(module), file=output)
