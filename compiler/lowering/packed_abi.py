"""lower-to-llvm, step 1 (packed API): how lowered functions call each other and read DLTensors.

The ABI between functions (`ModuleABI`): a compute function takes one
pointer per buffer, then one i64 per symbolic variable
(`compiler.analysis.arg_binder.symbolic_variables`), and returns 0 or the
code of its failed check; codes follow `assert_table`, program order, where
a `packed.call` to a function with checks reserves the callee's codes.

The packed-API ops (`lower_packed_op`) read DLTensors by byte offset
(`compiler/runtime/dlpack.py`): `packed.arg %args[k]` loads `args[k]`,
`packed.dltensor_get` loads one field (`shape[k]`: the shape pointer, then
element k); addresses are `index` in the IR and become pointers with
`inttoptr` at calls and loads. `packed.call` becomes an `llvm.call`, followed,
when the callee has checks, by a `loop.assert` marked `FORWARD_ATTR` that
control_flow.py turns into forwarding the callee's failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.arith.builders import index_cast
from compiler.diagnostics import PassError
from compiler.dialects import loop, packed
from compiler.lowering.memory import PTR, allocation_failure, gep_constant, load_value


@dataclass(frozen=True)
class AssertEntry:
    """What failure code k + 1 means: the message template, the error, how many values."""

    message: str
    error: str
    n_values: int


def _assert_message(op: loop.AssertOp) -> str:
    """The message template of a failed `op`. An assert written in the input (it has a
    file location; the compiler's own checks have none and carry whole sentences) says
    which assert failed, around its own text, which may be a single word."""
    loc = op.location
    if not isinstance(loc, FileLineColLoc):
        return op.message.data
    where = f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    prefix = f"the loop.assert at {where} failed: "
    return prefix.replace("{", "{{").replace("}", "}}") + op.message.data


def assert_table(module: ModuleOp, name: str) -> list[AssertEntry]:
    """The failure codes of `@name`: entry k is code k + 1 (its asserts, and its callees')."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, loop.FuncOp)}

    def table(fname: str, active: frozenset[str]) -> list[AssertEntry]:
        entries = [  # memory.check_allocations: first, one per heap allocation
            AssertEntry(allocation_failure(fname, op.buffer_name.data), "MemoryError", 0)
            for op in walk_ops(funcs[fname])
            if isinstance(op, loop.AllocOp) and not op.is_local
        ]
        for op in walk_ops(funcs[fname]):
            if isinstance(op, loop.AssertOp):
                entries.append(AssertEntry(_assert_message(op), op.error_name, len(op.values)))
            elif isinstance(op, packed.CallOp):
                callee = op.callee.root_reference.data
                if callee in funcs and callee not in active:
                    entries.extend(table(callee, active | {callee}))
        return entries

    if name not in funcs:
        raise KeyError(f"no loop.func @{name} in the module")
    return table(name, frozenset({name}))


@dataclass(frozen=True)
class ModuleABI:
    variables: dict[str, list[str]]  # function -> its symbolic-variable arguments, in order
    tables: dict[str, list[AssertEntry]]  # function -> its failure codes
    reporters: frozenset[str] = frozenset()  # functions given a trailing error-values pointer


def is_packed_entry(f: loop.FuncOp | llvm.FuncOp) -> bool:
    """A packed function made by make-packed-api (it has the `{packed.error_values}`
    argument, which its lowering to `llvm.func` keeps): it checks the DLTensors and calls
    the compute function."""
    attrs = f.arg_attrs.data if f.arg_attrs is not None else []
    return any(packed.ERROR_VALUES_ATTR in d.data for d in attrs)


def needs_error_values(f: loop.FuncOp) -> bool:
    """A function with checks that report values (e.g. bound checks in a compute function)
    but no `{packed.error_values}` argument: lowering appends one, which its callers fill
    with their own (or NULL)."""
    if is_packed_entry(f):
        return False
    return any(isinstance(op, loop.AssertOp) and op.values for op in walk_ops(f))


FORWARD_ATTR = "loop.forward_failure"
"""On a `loop.assert` made for a call: the callee whose failure code it forwards."""

DLTENSOR_OFFSETS = {
    "data": 0,
    "device_type": 8,
    "device_id": 12,
    "ndim": 16,
    "dtype": 20,
    "shape": 24,
    "strides": 32,
    "byte_offset": 40,
}
"""Byte offsets of the DLTensor fields (dlpack.h, `compiler/runtime/dlpack.py`)."""


def lower_packed_op(
    op: packed.PackedArgOp | packed.DLTensorGetOp | packed.CallOp, abi: ModuleABI, error_values: SSAValue | None
) -> None:
    # built with `create` (memory.py's builders): a packed function has a few hundred of
    # these, and IRDL's argument building was a third of its lowering
    ops: list[Operation] = []
    if isinstance(op, packed.PackedArgOp):
        slot = gep_constant(op.args, op.position.data, PTR)
        ops.append(slot)
        value = _load(slot.result, PTR_ADDRESS, ops)
        Rewriter.insert_op(ops, InsertPoint.before(op))
        Rewriter.replace_op(op, [], [value])
    elif isinstance(op, packed.DLTensorGetOp):
        field = op.field.data
        at = gep_constant(_pointer(op.tensor, ops), DLTENSOR_OFFSETS[field], i8)
        ops.append(at)
        if op.axis is not None:  # shape[k] / strides[k]: through the array pointer
            array = load_value(at.result, PTR)
            elem = gep_constant(array.dereferenced_value, op.axis.data, i64)
            ops.extend([array, elem])
            value = _load(elem.result, IndexType(), ops)
        elif field in ("data", "shape", "strides"):
            value = _load(at.result, PTR_ADDRESS, ops)
        else:
            value = _load(at.result, op.result.type, ops)
        Rewriter.insert_op(ops, InsertPoint.before(op))
        Rewriter.replace_op(op, [], [value])
    else:
        _lower_call(op, abi, error_values)


def _lower_call(op: packed.CallOp, abi: ModuleABI, error_values: SSAValue | None) -> None:
    callee = op.callee.root_reference.data
    if callee not in abi.variables:
        raise PassError(f"lower-to-llvm: packed.call of @{callee}, which is no loop.func", op)
    bindings = op.bindings
    if missing := [n for n in abi.variables[callee] if n not in bindings]:
        raise PassError(
            f"lower-to-llvm: @{callee} needs the variable '{missing[0]}', which the packed.call does not bind",
            op,
        )
    ops: list[Operation] = []
    pointers = [_pointer(b, ops) for b in op.buffers]
    report: list[SSAValue] = []
    if callee in abi.reporters:  # the callee stores its values where the caller's go
        if error_values is None:
            null = llvm.ZeroOp(result_types=[PTR])
            ops.append(null)
            error_values = null.res
        report = [error_values]
    variables = [bindings[n] for n in abi.variables[callee]]
    call = llvm.CallOp(callee, *pointers, *variables, *report, return_type=i32)
    ops.append(call)
    status = call.returned
    assert status is not None  # return_type=i32: the call has a result
    if abi.tables[callee]:  # forward a failure of the callee (see control_flow.lower_asserts)
        zero = arith.ConstantOp(IntegerAttr(0, i32))
        ok = arith.CmpiOp(status, zero, "eq")
        forward = loop.AssertOp(ok, f"a check of @{callee} failed", [status])
        forward.attributes[FORWARD_ATTR] = StringAttr(callee)
        ops.extend([zero, ok, forward])
    Rewriter.insert_op(ops, InsertPoint.before(op))
    Rewriter.erase_op(op)


def _pointer(address: SSAValue, ops: list[Operation]) -> SSAValue:
    """An `index` address as a pointer."""
    cast = index_cast(address, i64)
    ptr = llvm.IntToPtrOp.create(operands=[cast.result], result_types=[PTR])
    ops.extend([cast, ptr])
    return ptr.results[0]


PTR_ADDRESS = StringAttr("address")  # marker for `_load`: a pointer read as an `index` address


def _load(ptr: SSAValue, t: Attribute, ops: list[Operation]) -> SSAValue:
    """Load a value; an `index` is read as i64, a pointer as its address (`index`)."""
    load = load_value(ptr, PTR if t == PTR_ADDRESS else i64 if isinstance(t, IndexType) else t)
    ops.append(load)
    value = load.dereferenced_value
    if t == PTR_ADDRESS:
        to_int = llvm.PtrToIntOp.create(operands=[value], result_types=[i64])
        ops.append(to_int)
        value = to_int.results[0]
    if isinstance(t, IndexType) or t == PTR_ADDRESS:
        cast = index_cast(value, IndexType())
        ops.append(cast)
        value = cast.result
    return value
