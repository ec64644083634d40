"""lower-to-llvm: `loop` + `arith` + `math` + `scf` to xDSL's `llvm` dialect.

Input: `loop.func`s whose buffers are 1-D (after `storage-flatten`). Output:
one `llvm.func` per `loop.func`. A function over buffers (a compute
function, called by its packed wrapper) has the signature

    i32 @name(ptr noalias %buf0, ..., ptr noalias %bufN, i64 %var0, ..., i64 %varM)

one pointer per buffer argument, then one i64 per symbolic variable
(`symbolic_vars()`: argument shapes and strides first, then the other
`loop.var`s); other arguments keep their types (`make-packed-api`'s
`(ptr %args, i32 %num_args, ptr %error_values)`). The result is 0 on
success or the code of the failed check: codes follow `assert_table()`,
program order, where a `packed.call` to a function with checks reserves the
callee's codes and forwards its failure. A failing `loop.assert` with values
stores them as i64 into the argument marked `{packed.error_values}` (if not NULL).

The packed-API ops read DLTensors by byte offset (`compiler/runtime/dlpack.py`):
`packed.arg %args[k]` loads `args[k]`, `packed.dltensor_get` loads one
field (`shape[k]`: the shape pointer, then element k); addresses are `index`
in the IR and become pointers with `inttoptr` at calls and loads.

Steps:
  1. loop ops -> scf + llvm memory ops: `loop.for` -> `scf.for`,
     `loop.if` -> `scf.if`, `loop.load/store` -> `llvm.getelementptr inbounds`
     + `llvm.load/store`, `loop.alloc` -> `aligned_alloc` (freed before every
     return), `loop.var` -> the function argument, `loop.func` -> `func.func`,
     `packed.arg`/`packed.dltensor_get` -> GEP + load, `packed.call` ->
     `llvm.call` (+ a forwarding check when the callee has checks);
  2. xDSL's `convert-scf-to-cf`;
  3. `loop.assert` splits its block (after step 2 the CFG is explicit):

         ^pre:  ...                     ^pre:  ...
                loop.assert %ok   ==>          llvm.cond_br %ok, ^rest, ^fail_k
                ^rest...               ^fail_k: free(...); llvm.return (k + 1)

     In a function with an `{packed.error_values}` argument every assert
     branches instead to one shared block, `^report(code, v0, ..., v3)`,
     which stores the values (unless the pointer is NULL), frees, returns.

  4. arith/math/cf/func -> llvm, then `index` -> `i64`.

Index arithmetic is 64-bit and marked `nsw`: index values are loop
counters and addresses, which never wrap. Floats keep IEEE semantics (no
fast-math): float reductions vectorize only where the schedule makes the
reduction axis an outer loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, math, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf
from xdsl.utils.exceptions import PassFailedException

from compiler.arith.expr import Const, Expr, parse_expr
from compiler.arith.ir import emit_expr
from compiler.dialects import loop, packed
from compiler.dialects.shape import shape_var_names

PTR = llvm.LLVMPointerType()
NSW = llvm.OverflowAttr((llvm.OverflowFlag.NO_SIGNED_WRAP,))
ALLOC_ALIGN = 64


def element_size(t: Attribute) -> int:
    try:
        return loop.element_bytes(t)
    except ValueError as err:
        raise PassFailedException(f"lower-to-llvm: {err}") from None


def symbolic_vars(f: loop.FuncOp) -> list[str]:
    """The symbolic variables of a function's ABI: those of the argument shapes and
    strides in order of first appearance, then the other `loop.var`s and allocation sizes."""
    names: list[str] = []
    for t in f.function_type.inputs.data:
        if isinstance(t, loop.BufferType):
            names.extend(shape_var_names((*t.get_shape(), *(t.get_strides() or ()))))
    for op in f.walk():
        if isinstance(op, loop.VarOp):
            names.append(op.var_name.data)
        elif isinstance(op, loop.AllocOp):
            names.extend(shape_var_names(op.buffer_type.get_shape()))
    return list(dict.fromkeys(names))


def assert_messages(f: loop.FuncOp) -> list[str]:
    """Messages of the function's own asserts, in program order."""
    return [op.message.data for op in f.walk() if isinstance(op, loop.AssertOp)]


@dataclass(frozen=True)
class AssertEntry:
    """What failure code k + 1 means: the message template, the error, how many values."""

    message: str
    error: str
    n_values: int


def assert_table(module: ModuleOp, name: str) -> list[AssertEntry]:
    """The failure codes of `@name`: entry k is code k + 1 (its asserts, and its callees')."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, loop.FuncOp)}

    def table(fname: str, active: frozenset[str]) -> list[AssertEntry]:
        entries: list[AssertEntry] = []
        for op in funcs[fname].walk():
            if isinstance(op, loop.AssertOp):
                entries.append(AssertEntry(op.message.data, op.error_name, len(op.values)))
            elif isinstance(op, packed.CallOp):
                callee = op.callee.root_reference.data
                if callee in funcs and callee not in active:
                    entries.extend(table(callee, active | {callee}))
        return entries

    if name not in funcs:
        raise KeyError(f"no loop.func @{name} in the module")
    return table(name, frozenset({name}))


# ---------------------------------------------------------------------------
# Step 1: loop ops
# ---------------------------------------------------------------------------


@dataclass
class _FunctionState:
    func: func.FuncOp
    var_args: dict[str, SSAValue]
    allocations: list[SSAValue]
    error_values: SSAValue | None = None


def _index_const(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _to_i64(value: SSAValue, before: Operation) -> SSAValue:
    if isinstance(value.type, IndexType):
        cast = arith.IndexCastOp(value, i64)
        Rewriter.insert_op(cast, InsertPoint.before(before))
        return cast.result
    return value


def _gep(ptr: SSAValue, index: SSAValue, elem: Attribute, before: Operation) -> SSAValue:
    gep = llvm.GEPOp.from_mixed_indices(ptr, [_to_i64(index, before)], elem, inbounds=True)
    Rewriter.insert_op(gep, InsertPoint.before(before))
    return gep.result


def _flat_index(indices: Sequence[SSAValue], what: str) -> SSAValue:
    if len(indices) != 1:
        raise PassFailedException(
            f"lower-to-llvm: {what} of a {len(indices)}-D buffer; run storage-flatten first"
        )
    return indices[0]


def _lower_alloc(op: loop.AllocOp, state: _FunctionState) -> None:
    t = op.buffer_type
    if any(not isinstance(m.owner, arith.ConstantOp) for m in op.mins) or t.rank != 1:
        raise PassFailedException(
            f"lower-to-llvm: buffer \"{op.buffer_name.data}\" is not flat; run storage-flatten first"
        )
    entry = state.func.body.blocks.first
    assert entry is not None
    if op.is_local:
        _lower_local_alloc(op, entry)
        return
    size: Expr = Const(element_size(t.element_type))
    for d in t.get_shape():
        size = size * (Const(d) if isinstance(d, int) else parse_expr(d))
    size = (size + (ALLOC_ALIGN - 1)) // ALLOC_ALIGN * ALLOC_ALIGN
    ops: list[Operation] = []
    nbytes = emit_expr(size, ops.append, lambda n: state.var_args[n])
    align = _index_const(ALLOC_ALIGN)
    ops.append(align)
    call = llvm.CallOp("aligned_alloc", _as_i64(align, ops), _as_i64(nbytes, ops), return_type=PTR)
    ops.append(call)
    # Hoisted to the function entry: a flat buffer's size depends only on the
    # shape variables (arguments), and an alloc inside a loop (a stage computed
    # at another stage's loop) must not allocate once per iteration.
    Rewriter.insert_op(ops, InsertPoint.at_start(entry))
    op.result.replace_all_uses_with(call.returned)
    Rewriter.erase_op(op)
    state.allocations.append(call.returned)


def _lower_view(op: loop.ViewOp, state: _FunctionState) -> None:
    """A planned buffer is the arena's pointer plus its byte offset."""
    ops: list[Operation] = []
    offset = emit_expr(parse_expr(op.offset.data), ops.append, lambda n: state.var_args[n])
    gep = llvm.GEPOp.from_mixed_indices(op.arena, [_as_i64(offset, ops)], IntegerType(8), inbounds=True)
    ops.append(gep)
    Rewriter.insert_op(ops, InsertPoint.before(op))
    op.result.replace_all_uses_with(gep.result)
    Rewriter.erase_op(op)


def _lower_local_alloc(op: loop.AllocOp, entry: Block) -> None:
    """A small constant-size scratch buffer: an `alloca` at the entry, which LLVM's
    mem2reg turns into registers (a reduction's accumulator)."""
    (count,) = op.buffer_type.get_shape()
    if not isinstance(count, int):
        raise PassFailedException(f"lower-to-llvm: local buffer \"{op.buffer_name.data}\" needs a static size")
    size = llvm.ConstantOp(IntegerAttr(count, i64), i64)
    alloca = llvm.AllocaOp(size, op.buffer_type.element_type, alignment=ALLOC_ALIGN)
    Rewriter.insert_op([size, alloca], InsertPoint.at_start(entry))
    op.result.replace_all_uses_with(alloca.res)
    Rewriter.erase_op(op)


def _as_i64(value: SSAValue, ops: list[Operation]) -> SSAValue:
    cast = arith.IndexCastOp(value, i64)
    ops.append(cast)
    return cast.result


def _lower_for(op: loop.ForOp) -> None:
    step = _index_const(op.step.value.data)
    upper = arith.AddiOp(op.min, op.extent)
    body = Block(arg_types=[IndexType()])
    new = scf.ForOp(op.min, upper, step, [], Region(body))
    new.attributes |= op.attributes
    if op.loop_kind != loop.LoopKind.SERIAL:
        new.attributes["loop.kind"] = op.kind
    Rewriter.insert_op([step, upper], InsertPoint.before(op))
    old_body = op.body.block
    old_body.args[0].replace_all_uses_with(body.args[0])
    body.args[0].name_hint = old_body.args[0].name_hint
    for inner in list(old_body.ops):
        inner.detach()
        body.add_op(inner)
    body.add_op(scf.YieldOp())
    Rewriter.replace_op(op, new)


def _lower_if(op: loop.IfOp) -> None:
    def move(region: Region | None) -> Region:
        block = Block()
        if region is not None and region.blocks:
            for inner in list(region.block.ops):
                inner.detach()
                block.add_op(inner)
        block.add_op(scf.YieldOp())
        return Region(block)

    new = scf.IfOp(op.cond, [], move(op.then_region), move(op.else_region))
    Rewriter.replace_op(op, new)


def _lower_loop_ops(state: _FunctionState, abi: _ModuleABI) -> None:
    body = state.func.body
    # children before parents, so that nested loops are rewritten before their parents move them
    for op in reversed(list(body.walk())):
        if isinstance(op, loop.LoadOp):
            idx = _flat_index(op.indices, "loop.load")
            ptr = _gep(op.buffer, idx, op.result.type, op)
            Rewriter.replace_op(op, llvm.LoadOp(ptr, op.result.type))
        elif isinstance(op, loop.StoreOp):
            idx = _flat_index(op.indices, "loop.store")
            ptr = _gep(op.buffer, idx, op.value.type, op)
            Rewriter.replace_op(op, llvm.StoreOp(op.value, ptr))
        elif isinstance(op, loop.VarOp):
            name = op.var_name.data
            if name not in state.var_args:
                raise PassFailedException(
                    f"lower-to-llvm: symbolic variable '{name}' appears in no argument shape of "
                    f"@{state.func.sym_name.data}, so it can't be bound at call time"
                )
            Rewriter.replace_op(op, [], [state.var_args[name]])
        elif isinstance(op, loop.ForOp):
            _lower_for(op)
        elif isinstance(op, loop.IfOp):
            _lower_if(op)
        elif isinstance(op, packed.PackedArgOp | packed.DLTensorGetOp | packed.CallOp):
            _lower_packed_op(op, abi)
    for op in list(body.walk()):
        if isinstance(op, loop.AllocOp):
            _lower_alloc(op, state)
    for op in list(body.walk()):
        if isinstance(op, loop.ViewOp):
            _lower_view(op, state)


def _convert_signature(f: loop.FuncOp, names: list[str]) -> _FunctionState:
    """Create the func.func shell (buffers -> noalias pointers, + variables) and move the body in."""
    n_args = len(f.args)
    noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
    inputs: list[Attribute] = []
    attrs: list[DictionaryAttr] = []
    for t in f.function_type.inputs.data:
        is_buffer = isinstance(t, loop.BufferType)
        inputs.append(PTR if is_buffer else t)
        attrs.append(noalias if is_buffer else DictionaryAttr({}))
    new = func.FuncOp(f.sym_name.data, ([*inputs, *[IndexType()] * len(names)], [i32]))
    new.arg_attrs = ArrayAttr([*attrs, *[DictionaryAttr({})] * len(names)])
    block = new.body.block
    for old, arg in zip(f.args, block.args[:n_args], strict=True):
        arg.name_hint = old.name_hint
        old.replace_all_uses_with(arg)
    var_args = dict(zip(names, block.args[n_args:], strict=True))
    for name, arg in var_args.items():
        arg.name_hint = name
    old_attrs = f.arg_attrs.data if f.arg_attrs is not None else [DictionaryAttr({})] * n_args
    marked = [a for a, d in zip(block.args, old_attrs, strict=False) if packed.ERROR_VALUES_ATTR in d.data]
    for inner in list(f.body.block.ops):
        inner.detach()
        block.add_op(inner)
    Rewriter.replace_op(f, new)
    return _FunctionState(new, var_args, [], marked[0] if marked else None)


def _add_returns(state: _FunctionState) -> None:
    """Free the allocations and return 0 at the end; asserts return k + 1 (after cf)."""
    block = state.func.body.block
    for op in _free_and_return(state.allocations, 0):
        block.add_op(op)


def _free_and_return(allocations: Sequence[SSAValue], code: int) -> list[Operation]:
    ops: list[Operation] = [llvm.CallOp("free", p) for p in reversed(allocations)]
    const = arith.ConstantOp(IntegerAttr(code, i32))
    return [*ops, const, func.ReturnOp(const)]


def _lower_asserts(state: _FunctionState, abi: _ModuleABI) -> None:
    asserts = [op for op in state.func.walk() if isinstance(op, loop.AssertOp)]
    report: Block | None = None
    code = 1
    for op in asserts:
        block = op.parent_block()
        assert block is not None
        rest = block.split_before(op)
        region = block.parent
        assert region is not None
        forwarded = op.attributes.get(FORWARD_ATTR)
        if isinstance(forwarded, StringAttr):  # a callee failed with rc: return rc + code - 1
            fail = Block(_forward_failure(state, op.values[0], code - 1))
            region.insert_block_after(fail, rest)
            block.add_op(cf.ConditionalBranchOp(op.cond, rest, [], fail, []))
            code += len(abi.tables[forwarded.data])
        elif state.error_values is not None:  # one shared block reports code and values
            report = report or _report_block(state)
            block.add_op(cf.ConditionalBranchOp(op.cond, rest, [], report, _report_args(op, code, block)))
            code += 1
        elif op.values:
            raise PassFailedException(
                f"lower-to-llvm: @{state.func.sym_name.data} has a loop.assert with values but no "
                "argument marked {packed.error_values} to report them"
            )
        else:
            fail = Block(_free_and_return(state.allocations, code))
            region.insert_block_after(fail, rest)
            block.add_op(cf.ConditionalBranchOp(op.cond, rest, [], fail, []))
            code += 1
        Rewriter.erase_op(op)


def _report_args(op: loop.AssertOp, code: int, block: Block) -> list[SSAValue]:
    """The code and the values (as i64, zeros after the last), appended to `block`."""
    const = arith.ConstantOp(IntegerAttr(code, i32))
    block.add_op(const)
    values = [_as_i64_value(v, block) for v in op.values]
    if len(values) < loop.MAX_ASSERT_VALUES:
        zero = arith.ConstantOp(IntegerAttr(0, i64))
        block.add_op(zero)
        values += [zero.result] * (loop.MAX_ASSERT_VALUES - len(values))
    return [const.result, *values]


def _report_block(state: _FunctionState) -> Block:
    """`^report(code, v0..v3): if (error_values) { error_values[i] = v_i }; free(...); return code`.

    Allocations are hoisted to the function entry, so they all precede the asserts.
    """
    err = state.error_values
    assert err is not None
    report = Block(arg_types=[i32, *[i64] * loop.MAX_ASSERT_VALUES])
    code, *values = report.args
    ret = Block([llvm.CallOp("free", p) for p in reversed(state.allocations)])
    ret.add_op(func.ReturnOp(code))
    store = Block()
    for j, value in enumerate(values):
        slot = llvm.GEPOp.from_mixed_indices(err, [j], i64)
        store.add_ops([slot, llvm.StoreOp(value, slot)])
    store.add_op(cf.BranchOp(ret))
    address = llvm.PtrToIntOp(err, i64)
    zero = llvm.ConstantOp(IntegerAttr(0, i64), i64)
    is_null = llvm.ICmpOp(address.results[0], zero.result, IntegerAttr(0, i64))  # eq
    report.add_ops([address, zero, is_null, cf.ConditionalBranchOp(is_null, ret, [], store, [])])
    state.func.body.add_block(report)
    state.func.body.add_block(store)
    state.func.body.add_block(ret)
    return report


def _as_i64_value(value: SSAValue, block: Block) -> SSAValue:
    t = value.type
    if isinstance(t, IndexType):
        op: Operation = arith.IndexCastOp(value, i64)
    elif isinstance(t, IntegerType) and t.width.data < 64:
        op = arith.ExtSIOp(value, i64)
    else:
        return value
    block.add_op(op)
    return op.results[0]


def _forward_failure(state: _FunctionState, rc: SSAValue, offset: int) -> list[Operation]:
    ops: list[Operation] = [llvm.CallOp("free", p) for p in reversed(state.allocations)]
    const = arith.ConstantOp(IntegerAttr(offset, i32))
    code = arith.AddiOp(rc, const)
    return [*ops, const, code, func.ReturnOp(code)]


# ---------------------------------------------------------------------------
# Step 1b: packed-API ops (DLTensor reads and calls)
# ---------------------------------------------------------------------------

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


@dataclass(frozen=True)
class _ModuleABI:
    variables: dict[str, list[str]]  # function -> its symbolic-variable arguments, in order
    tables: dict[str, list[AssertEntry]]  # function -> its failure codes


def _pointer(address: SSAValue, ops: list[Operation]) -> SSAValue:
    """An `index` address as a pointer."""
    cast = arith.IndexCastOp(address, i64)
    ptr = llvm.IntToPtrOp(cast)
    ops.extend([cast, ptr])
    return ptr.results[0]


def _load(ptr: SSAValue, t: Attribute, ops: list[Operation]) -> SSAValue:
    """Load a value; an `index` is read as i64, a pointer as its address (`index`)."""
    load = llvm.LoadOp(ptr, PTR if t == PTR_ADDRESS else i64 if isinstance(t, IndexType) else t)
    ops.append(load)
    value = load.dereferenced_value
    if t == PTR_ADDRESS:
        to_int = llvm.PtrToIntOp(value, i64)
        ops.append(to_int)
        value = to_int.results[0]
    if isinstance(t, IndexType) or t == PTR_ADDRESS:
        cast = arith.IndexCastOp(value, IndexType())
        ops.append(cast)
        value = cast.result
    return value


PTR_ADDRESS = StringAttr("address")  # marker for `_load`: a pointer read as an `index` address


def _lower_packed_op(op: packed.PackedArgOp | packed.DLTensorGetOp | packed.CallOp, abi: _ModuleABI) -> None:
    ops: list[Operation] = []
    if isinstance(op, packed.PackedArgOp):
        slot = llvm.GEPOp.from_mixed_indices(op.args, [op.position.data], PTR)
        ops.append(slot)
        value = _load(slot.result, PTR_ADDRESS, ops)
        Rewriter.insert_op(ops, InsertPoint.before(op))
        Rewriter.replace_op(op, [], [value])
    elif isinstance(op, packed.DLTensorGetOp):
        field = op.field.data
        at = llvm.GEPOp.from_mixed_indices(_pointer(op.tensor, ops), [DLTENSOR_OFFSETS[field]], i8)
        ops.append(at)
        if op.axis is not None:  # shape[k] / strides[k]: through the array pointer
            array = llvm.LoadOp(at.result, PTR)
            elem = llvm.GEPOp.from_mixed_indices(array.dereferenced_value, [op.axis.data], i64)
            ops.extend([array, elem])
            value = _load(elem.result, IndexType(), ops)
        elif field in ("data", "shape", "strides"):
            value = _load(at.result, PTR_ADDRESS, ops)
        else:
            value = _load(at.result, op.result.type, ops)
        Rewriter.insert_op(ops, InsertPoint.before(op))
        Rewriter.replace_op(op, [], [value])
    else:
        _lower_call(op, abi)


def _lower_call(op: packed.CallOp, abi: _ModuleABI) -> None:
    callee = op.callee.root_reference.data
    if callee not in abi.variables:
        raise PassFailedException(f"lower-to-llvm: packed.call of @{callee}, which is no loop.func")
    bindings = op.bindings
    if missing := [n for n in abi.variables[callee] if n not in bindings]:
        raise PassFailedException(
            f"lower-to-llvm: @{callee} needs the variable '{missing[0]}', which the packed.call does not bind"
        )
    ops: list[Operation] = []
    pointers = [_pointer(b, ops) for b in op.buffers]
    call = llvm.CallOp(callee, *pointers, *[bindings[n] for n in abi.variables[callee]], return_type=i32)
    ops.append(call)
    if abi.tables[callee]:  # forward a failure of the callee (see _lower_asserts)
        zero = arith.ConstantOp(IntegerAttr(0, i32))
        ok = arith.CmpiOp(call.returned, zero, "eq")
        forward = loop.AssertOp(ok, f"a check of @{callee} failed", [call.returned])
        forward.attributes[FORWARD_ATTR] = StringAttr(callee)
        ops.extend([zero, ok, forward])
    Rewriter.insert_op(ops, InsertPoint.before(op))
    Rewriter.erase_op(op)


# ---------------------------------------------------------------------------
# Step 4: arith / math / cf / func -> llvm
# ---------------------------------------------------------------------------

_INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
}
_NSW_OPS = (arith.AddiOp, arith.SubiOp, arith.MuliOp)
_FLOAT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_FLOAT_INTRINSIC: dict[type[Operation], str] = {
    arith.MaximumfOp: "maximum",
    arith.MinimumfOp: "minimum",
    arith.MaxnumfOp: "maxnum",
    arith.MinnumfOp: "minnum",
    math.ExpOp: "exp",
    math.Exp2Op: "exp2",
    math.LogOp: "log",
    math.Log2Op: "log2",
    math.Log10Op: "log10",
    math.SqrtOp: "sqrt",
    math.AbsFOp: "fabs",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.SinOp: "sin",
    math.CosOp: "cos",
    math.TanhOp: "tanh",
    math.PowFOp: "pow",
    math.FmaOp: "fma",
    math.RoundOp: "round",
    math.TruncOp: "trunc",
}
_INT_MINMAX: dict[type[Operation], str] = {
    arith.MaxSIOp: "smax",
    arith.MinSIOp: "smin",
    arith.MaxUIOp: "umax",
    arith.MinUIOp: "umin",
}


def _type_suffix(t: Attribute) -> str:
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return {Float16Type: "f16", Float32Type: "f32", Float64Type: "f64"}[type(t)]  # type: ignore[index]


def _llvm_type(t: Attribute) -> Attribute:
    return i64 if isinstance(t, IndexType) else t


class LowerScalarOps(RewritePattern):
    """arith, math, cf and func.return to llvm, one op at a time."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        new = self.lower(op, rewriter)
        if new is not None:
            rewriter.replace(op, new)

    def lower(self, op: Operation, rewriter: PatternRewriter) -> Operation | list[Operation] | None:
        if (cls := _INT_BINARY.get(type(op))) is not None:
            if isinstance(op, _NSW_OPS) and isinstance(op.results[0].type, IndexType):
                return cls(op.operands[0], op.operands[1], overflow=NSW)  # type: ignore[call-arg]
            return cls(op.operands[0], op.operands[1])  # type: ignore[call-arg]
        if (cls := _FLOAT_BINARY.get(type(op))) is not None:
            return cls(op.operands[0], op.operands[1])  # type: ignore[call-arg]
        t = op.results[0].type if op.results else None
        if (name := _FLOAT_INTRINSIC.get(type(op))) is not None:
            return llvm.CallIntrinsicOp(f"llvm.{name}.{_type_suffix(t)}", op.operands, [t])  # type: ignore[arg-type]
        if (name := _INT_MINMAX.get(type(op))) is not None:
            return llvm.CallIntrinsicOp(f"llvm.{name}.{_type_suffix(t)}", op.operands, [_llvm_type(t)])  # type: ignore[arg-type]
        match op:
            case arith.ConstantOp():
                return _lower_constant(op)
            case arith.FloorDivSIOp():
                return _floordiv(op.lhs, op.rhs)
            case arith.CmpiOp():
                return llvm.ICmpOp(op.lhs, op.rhs, op.predicate)
            case arith.CmpfOp():
                return llvm.FCmpOp(op.lhs, op.rhs, op.predicate)
            case arith.SelectOp():
                return llvm.SelectOp(op.cond, op.lhs, op.rhs)
            case arith.NegfOp():
                return llvm.FNegOp(op.operand)
            case math.AbsIOp():
                return llvm.CallIntrinsicOp(
                    f"llvm.abs.{_type_suffix(op.result.type)}",
                    [op.operand, llvm.ConstantOp(IntegerAttr(0, 1), IntegerType(1))],
                    [_llvm_type(op.result.type)],
                )
            case arith.IndexCastOp():
                return _int_cast(op.input, op.result.type, signed=True)
            case arith.ExtSIOp():
                return llvm.SExtOp(op.input, op.result.type)
            case arith.ExtUIOp():
                return llvm.ZExtOp(op.input, op.result.type)
            case arith.TruncIOp():
                return llvm.TruncOp(op.input, op.result.type)
            case arith.SIToFPOp():
                return llvm.SIToFPOp(op.input, op.result.type)
            case arith.FPToSIOp():
                return llvm.CallIntrinsicOp(
                    f"llvm.fptosi.sat.{_type_suffix(op.result.type)}.{_type_suffix(op.input.type)}",
                    [op.input],
                    [_llvm_type(op.result.type)],
                )
            case arith.ExtFOp():
                return llvm.FPExtOp(op.input, op.result.type)
            case arith.TruncFOp():
                return llvm.FPTruncOp(op.input, op.result.type)
            case arith.BitcastOp():
                return llvm.BitcastOp(op.input, op.result.type)
            case cf.BranchOp():
                return llvm.BrOp(op.successor, *op.arguments)
            case cf.ConditionalBranchOp():
                return llvm.CondBrOp(
                    op.cond, op.then_block, op.then_arguments, op.else_block, op.else_arguments
                )
            case func.ReturnOp():
                return llvm.ReturnOp(*op.arguments)
            case _:
                return None


def _lower_constant(op: arith.ConstantOp) -> Operation:
    value, t = op.value, op.result.type
    if isinstance(t, IndexType):
        assert isinstance(value, IntegerAttr)
        return llvm.ConstantOp(IntegerAttr(value.value.data, i64), i64)
    if isinstance(value, IntegerAttr | FloatAttr):
        return llvm.ConstantOp(value, t)
    raise PassFailedException(f"lower-to-llvm: unsupported constant {value}")


def _int_cast(value: SSAValue, to: Attribute, *, signed: bool) -> Operation | list[Operation]:
    src, dst = _llvm_type(value.type), _llvm_type(to)
    assert isinstance(src, IntegerType)
    assert isinstance(dst, IntegerType)
    if src.width.data == dst.width.data:
        return []  # replaced by its operand below
    if src.width.data < dst.width.data:
        return llvm.SExtOp(value, dst) if signed else llvm.ZExtOp(value, dst)
    return llvm.TruncOp(value, dst)


def _floordiv(lhs: SSAValue, rhs: SSAValue) -> list[Operation]:
    """floor(a / b) = q - ((r != 0) & ((r < 0) != (b < 0))), with q, r from sdiv/srem."""
    ops: list[Operation] = []

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    ne, slt = IntegerAttr(1, i64), IntegerAttr(2, i64)
    q = add(llvm.SDivOp(lhs, rhs))
    r = add(llvm.SRemOp(lhs, rhs))
    zero = add(llvm.ConstantOp(IntegerAttr(0, i64), i64))
    signs_differ = add(llvm.XOrOp(add(llvm.ICmpOp(r, zero, slt)), add(llvm.ICmpOp(rhs, zero, slt))))
    adjust = add(llvm.AndOp(add(llvm.ICmpOp(r, zero, ne)), signs_differ))
    add(llvm.SubOp(q, add(llvm.ZExtOp(adjust, i64))))
    return ops


class _ReplaceIdentityCast(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.IndexCastOp):
            src, dst = _llvm_type(op.input.type), _llvm_type(op.result.type)
            if src == dst:
                rewriter.replace(op, [], [op.input])


def _index_to_i64(module: ModuleOp) -> None:
    """Retype every `index` result and block argument as i64 (constants are lowered already).

    A direct walk: xDSL's recursive `TypeConversionPattern` rebuilds every
    attribute of every op and took most of this pass's time on the packed
    functions' checks.
    """
    for op in module.walk():
        for result in op.results:
            if isinstance(result.type, IndexType):
                Rewriter.replace_value_with_new_type(result, i64)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if isinstance(arg.type, IndexType):
                        Rewriter.replace_value_with_new_type(arg, i64)


def _lower_func(f: func.FuncOp) -> llvm.FuncOp:
    ins = [_llvm_type(t) for t in f.function_type.inputs.data]
    outs = f.function_type.outputs.data
    new = llvm.FuncOp(
        f.sym_name.data,
        llvm.LLVMFunctionType(ins, outs[0] if outs else None),
        linkage=llvm.LinkageAttr("external"),
        body=Rewriter.move_region_contents_to_new_regions(f.body),
    )
    new.arg_attrs = f.arg_attrs
    return new


def _declare_runtime(module: ModuleOp) -> None:
    used = {op.callee.root_reference.data for op in module.walk() if isinstance(op, llvm.CallOp)}
    existing = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)}
    decls = {
        "aligned_alloc": llvm.LLVMFunctionType([i64, i64], PTR),
        "free": llvm.LLVMFunctionType([PTR], None),
    }
    for name, ftype in decls.items():
        if name in used and name not in existing:
            module.body.block.add_op(
                llvm.FuncOp(name, ftype, linkage=llvm.LinkageAttr("external"))
            )


def lower_module(ctx: Context, module: ModuleOp) -> None:
    from compiler.lowering.parallel import outline_parallel_loops

    outline_parallel_loops(module)
    funcs = [op for op in module.ops if isinstance(op, loop.FuncOp)]
    abi = _ModuleABI(
        {f.sym_name.data: symbolic_vars(f) for f in funcs},
        {f.sym_name.data: assert_table(module, f.sym_name.data) for f in funcs},
    )
    states: list[_FunctionState] = []
    for f in funcs:
        state = _convert_signature(f, abi.variables[f.sym_name.data])
        _lower_loop_ops(state, abi)
        _add_returns(state)
        states.append(state)
    ConvertScfToCf().apply(ctx, module)
    for state in states:
        _lower_asserts(state, abi)
    PatternRewriteWalker(
        GreedyRewritePatternApplier([_ReplaceIdentityCast(), LowerScalarOps()], dce_enabled=False)
    ).rewrite_module(module)
    _index_to_i64(module)
    for f in [op for op in module.ops if isinstance(op, func.FuncOp)]:
        Rewriter.replace_op(f, _lower_func(f))
    _declare_runtime(module)


@dataclass(frozen=True)
class LowerToLLVMPass(ModulePass):
    """Lower flat `loop` functions to the `llvm` dialect (see the module docstring)."""

    name = "lower-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(ctx, op)
