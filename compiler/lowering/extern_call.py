"""lower-to-llvm, the calls of `te.extern` stages: `loop.call_extern` -> `llvm.call`.

A buffer argument passes its base pointer (after storage-flatten and memory
planning: the function argument, the allocation or the arena view), an
`index` scalar an i64, other scalars as they are; the callee returns void
(a C function's result is ignored). `declare_externs`, once the scalars are
lowered, declares each callee `external` with the types of its call, for the
JIT to resolve by name (`compiler.runtime.externs`).
"""

from __future__ import annotations

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import IndexType, ModuleOp, UnitAttr, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.diagnostics import PassError
from compiler.dialects import loop

EXTERN_CALL_ATTR = "compiler.extern_call"
"""On an `llvm.call` of a `loop.call_extern`, until its callee is declared."""


def lower_call_extern(op: loop.CallExternOp) -> None:
    args: list[SSAValue] = []
    for value in op.args:
        if isinstance(value.type, IndexType):
            cast = arith.IndexCastOp(value, i64)
            Rewriter.insert_op(cast, InsertPoint.before(op))
            value = cast.result
        args.append(value)  # a buffer becomes its pointer when its allocation is lowered
    call = llvm.CallOp(op.callee_name, *args)
    call.attributes[EXTERN_CALL_ATTR] = UnitAttr()
    Rewriter.replace_op(op, call)


def declare_externs(module: ModuleOp) -> None:
    """An external declaration per callee; one callee called with two signatures, or
    named as a function of the module, is an error."""
    defined = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp | func.FuncOp)}
    signatures: dict[str, list[Attribute]] = {}
    for op in walk_ops(module):
        if not (isinstance(op, llvm.CallOp) and EXTERN_CALL_ATTR in op.attributes and op.callee is not None):
            continue
        del op.attributes[EXTERN_CALL_ATTR]
        name = op.callee.root_reference.data
        types = list(op.args.types)
        if name in defined:
            raise PassError(f"lower-to-llvm: the external function @{name} has the name of a function of the module", op)
        if signatures.setdefault(name, types) != types:
            raise PassError(
                f"lower-to-llvm: the external function @{name} is called with two signatures: "
                f"({', '.join(map(str, signatures[name]))}) and ({', '.join(map(str, types))})",
                op,
            )
    for name, types in signatures.items():
        ftype = llvm.LLVMFunctionType(types, None)
        module.body.block.add_op(llvm.FuncOp(name, ftype, linkage=llvm.LinkageAttr("external")))
