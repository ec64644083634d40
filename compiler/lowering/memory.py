"""lower-to-llvm, step 1 (memory): the function signature, buffers, loads and stores.

A `loop.func` becomes a `func.func` whose buffer arguments are `noalias`
pointers, followed by one `index` argument per symbolic variable
(`convert_signature`); a `loop.var` is that argument. On 1-D buffers:

  * `loop.load/store %buf[%i]` -> `llvm.getelementptr inbounds %buf[%i]` + `llvm.load/store`;
  * `loop.alloc` -> `compiler_workspace_acquire(@slot, size rounded up to 64)`,
    64-byte aligned, hoisted to the function entry and recorded in
    `FunctionState.allocations` (released before every return, see
    control_flow.py); a `loop.alloc local` (a small constant-size scratch
    buffer) -> an `llvm.alloca` at the entry;
  * `loop.view %arena` -> a byte GEP from the arena's pointer.

An allocation can fail (sizes from the call's shapes that the machine cannot hold;
acquire then returns NULL): `check_allocations` tests every pointer after the
entry's acquires with a `loop.assert ... raises "MemoryError"`, the function's
first failure codes, so that the call fails with `compiler.OutOfMemoryError`
instead of writing through NULL.

Each allocation site has a slot (an internal global) that keeps its block between
calls (TVM's workspace pool, PyTorch's caching allocator): a block from
`aligned_alloc` per call is a fresh `mmap` once glibc's threshold puts it there, and
the page faults of a 1.6 MB arena made the seed 000 chain 1.6x slower in such
processes. `define_workspace` defines the two functions in the LLVM IR (llvmlite's
builder, `llvm_ir.to_llvm_ir` calls it; atomic exchanges: two threads calling one
function at once each get a block of their own).

`declare_runtime` declares the functions these call and the slots.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir
from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.arith.builders import index_cast
from compiler.arith.expr import (
    Add,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Mul,
    Sub,
)
from compiler.arith.ir import emit_expr
from compiler.arith.parse import parse_expr
from compiler.diagnostics import PassError
from compiler.dialects import loop, packed
from compiler.dialects.shape import dim_expr
from compiler.lowering.aliasing import ALIAS_SCOPES, NOALIAS_SCOPES

PTR = llvm.LLVMPointerType()
ALLOC_ALIGN = 64
POINTER_ALIGN = "pointer_align"
"""An attribute of a pointer's load: the alignment of the buffer it points to (an outlined
body reloads its buffers from a context array, parallel.py; vectorize.py reads it)."""
WORKSPACE_ACQUIRE = "compiler_workspace_acquire"
WORKSPACE_RELEASE = "compiler_workspace_release"
WORKSPACE_SLOT = "compiler.workspace"  # + ".<function>.<k>": an allocation site's cached block


@dataclass
class FunctionState:
    """A function being lowered: its new shell, its variable arguments, what to free."""

    func: func.FuncOp
    var_args: dict[str, SSAValue]
    allocations: list[SSAValue]
    error_values: SSAValue | None = None


def convert_signature(f: loop.FuncOp, names: list[str], *, report: bool = False) -> FunctionState:
    """Create the func.func shell (buffers -> noalias pointers, + variables, + with `report`
    a pointer where failing checks store their values) and move the body in."""
    n_args = len(f.args)
    noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
    inputs: list[Attribute] = []
    attrs: list[DictionaryAttr] = []
    old_attrs = f.arg_attrs.data if f.arg_attrs is not None else [DictionaryAttr({})] * n_args
    for t, old_attr in zip(f.function_type.inputs.data, old_attrs, strict=True):
        is_buffer = isinstance(t, loop.BufferType)
        inputs.append(PTR if is_buffer else t)
        # the error-values mark stays: it tells the JIT a packed entry (LLVM ignores it)
        marks = {packed.ERROR_VALUES_ATTR: UnitAttr()} if packed.ERROR_VALUES_ATTR in old_attr.data else {}
        attrs.append(noalias if is_buffer else DictionaryAttr(marks))
    trailing = [PTR] if report else []
    new = func.FuncOp(f.sym_name.data, ([*inputs, *[IndexType()] * len(names), *trailing], [i32]))
    new.arg_attrs = ArrayAttr([*attrs, *[DictionaryAttr({})] * (len(names) + len(trailing))])
    new.location = f.location  # a later diagnostic about an op inside is located
    block = new.body.block
    for old, arg in zip(f.args, block.args[:n_args], strict=True):
        arg.name_hint = old.name_hint
        old.replace_all_uses_with(arg)
    var_args: dict[str, SSAValue] = dict(
        zip(names, block.args[n_args : n_args + len(names)], strict=True)
    )
    for name, var_arg in var_args.items():
        var_arg.name_hint = name
    marked = [a for a, d in zip(block.args, old_attrs, strict=False) if packed.ERROR_VALUES_ATTR in d.data]
    if report:
        block.args[-1].name_hint = "error_values"
        marked = [block.args[-1]]
    for inner in list(f.body.block.ops):
        inner.detach()
        block.add_op(inner)
    Rewriter.replace_op(f, new)
    return FunctionState(new, var_args, [], marked[0] if marked else None)


def lower_var(op: loop.VarOp, state: FunctionState) -> None:
    """A `loop.var` is the function argument of that name."""
    name = op.var_name.data
    if name not in state.var_args:
        raise PassError(
            f"lower-to-llvm: symbolic variable '{name}' appears in no argument shape of "
            f"@{state.func.sym_name.data}, so it can't be bound at call time",
            op,
        )
    Rewriter.replace_op(op, [], [state.var_args[name]])


# The properties the llvm op constructors set, for ops built with `create` (the
# constructors' IRDL argument building dominated the cost of lowering an access).
_NOT_ATOMIC = {"ordering": IntegerAttr(0, i64)}
_ONE_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_NO_WRAP = IntegerAttr(0, 32)


def gep_inbounds(ptr: SSAValue, index: SSAValue, elem: Attribute) -> llvm.GEPOp:
    """`llvm.getelementptr inbounds ptr[index]` over `elem`s, as
    `GEPOp.from_mixed_indices(ptr, [index], elem, inbounds=True)` builds it."""
    properties = {"rawConstantIndices": _ONE_SSA_INDEX, "elem_type": elem, "noWrapFlags": _NO_WRAP, "inbounds": UnitAttr()}
    return llvm.GEPOp.create(operands=[ptr, index], result_types=[PTR], properties=properties)


def gep_constant(ptr: SSAValue, index: int, elem: Attribute) -> llvm.GEPOp:
    """`llvm.getelementptr ptr[index]` over `elem`s, as
    `GEPOp.from_mixed_indices(ptr, [index], elem)` builds it."""
    properties = {"rawConstantIndices": DenseArrayBase.from_list(i32, [index]), "elem_type": elem, "noWrapFlags": _NO_WRAP}
    return llvm.GEPOp.create(operands=[ptr], result_types=[PTR], properties=properties)


def load_value(ptr: SSAValue, t: Attribute) -> llvm.LoadOp:
    """`llvm.load ptr : t`, as `LoadOp(ptr, t)` builds it."""
    return llvm.LoadOp.create(operands=[ptr], result_types=[t], properties=_NOT_ATOMIC)


def lower_load(op: loop.LoadOp) -> None:
    idx = _flat_index(op)
    ptr = _gep(op.buffer, idx, op.result.type, op)
    new = llvm.LoadOp.create(operands=[ptr], result_types=[op.result.type], properties=_NOT_ATOMIC)
    _keep_alias_scopes(op, new)
    Rewriter.replace_op(op, new)


def lower_store(op: loop.StoreOp) -> None:
    idx = _flat_index(op)
    ptr = _gep(op.buffer, idx, op.value.type, op)
    new = llvm.StoreOp.create(operands=[op.value, ptr], properties=_NOT_ATOMIC)
    _keep_alias_scopes(op, new)
    Rewriter.replace_op(op, new)


def _keep_alias_scopes(old: Operation, new: Operation) -> None:
    """The alias groups of aliasing.py, for jit.py's `!alias.scope`/`!noalias` metadata."""
    for name in (ALIAS_SCOPES, NOALIAS_SCOPES):
        if name in old.attributes:
            new.attributes[name] = old.attributes[name]


def _flat_index(op: loop.LoadOp | loop.StoreOp) -> SSAValue:
    if len(op.indices) != 1:
        raise PassError(f"lower-to-llvm: {op.name} of a {len(op.indices)}-D buffer; run storage-flatten first", op)
    return op.indices[0]


def _gep(ptr: SSAValue, index: SSAValue, elem: Attribute, before: Operation) -> SSAValue:
    gep = gep_inbounds(ptr, _to_i64(index, before), elem)
    Rewriter.insert_op(gep, InsertPoint.before(before))
    return gep.result


def _to_i64(value: SSAValue, before: Operation) -> SSAValue:
    if isinstance(value.type, IndexType):
        cast = index_cast(value, i64)
        Rewriter.insert_op(cast, InsertPoint.before(before))
        return cast.result
    return value


def allocation_failure(func: str, buffer: str) -> str:
    """The message of the failure code of a heap allocation that found no memory."""
    return f"{func}: out of memory: no block for buffer \"{buffer}\""


def check_allocations(state: FunctionState) -> None:
    """After the entry's acquires, a `loop.assert ... raises "MemoryError"` per allocation
    that its pointer is not NULL, in allocation order: the first failure codes of the
    function (`packed_abi.assert_table` counts them; the message is the table's)."""
    if not state.allocations:
        return
    entry = state.func.body.blocks.first
    assert entry is not None
    acquires = [op for op in entry.ops if isinstance(op, llvm.CallOp) and op.callee is not None
                and op.callee.root_reference.data == WORKSPACE_ACQUIRE]
    ops: list[Operation] = []
    for pointer in state.allocations:
        address = llvm.PtrToIntOp(pointer, i64)
        zero = llvm.ConstantOp(IntegerAttr(0, i64), i64)
        not_null = llvm.ICmpOp(address.results[0], zero.result, IntegerAttr(1, i64))  # ne
        ops += [address, zero, not_null, loop.AssertOp(not_null, "out of memory", error="MemoryError")]
    Rewriter.insert_op(ops, InsertPoint.after(acquires[-1]))


def lower_alloc(op: loop.AllocOp, state: FunctionState) -> None:
    t = op.buffer_type
    if any(not isinstance(m.owner, arith.ConstantOp) for m in op.mins) or t.rank != 1:
        raise PassError(
            f"lower-to-llvm: buffer \"{op.buffer_name.data}\" is not flat; run storage-flatten first", op
        )
    entry = state.func.body.blocks.first
    assert entry is not None
    if op.is_local:
        _lower_local_alloc(op, entry)
        return
    size: IndexExpr = IndexConst(loop.element_bytes(t.element_type))  # verified: the type has a size
    for d in t.get_shape():
        size = size * dim_expr(d)
    size = (size + (ALLOC_ALIGN - 1)) // ALLOC_ALIGN * ALLOC_ALIGN
    ops: list[Operation] = []
    nbytes = emit_expr(size, ops.append, lambda n: state.var_args[n])
    if not isinstance(size, IndexConst):
        nbytes = _unless_too_large(size, nbytes, ops, state)
    slot = llvm.AddressOfOp(f"{WORKSPACE_SLOT}.{state.func.sym_name.data}.{len(state.allocations)}", PTR)
    ops.append(slot)
    call = llvm.CallOp(WORKSPACE_ACQUIRE, slot.result, _as_i64(nbytes, ops), return_type=PTR)
    ops.append(call)
    pointer = call.returned
    assert pointer is not None  # return_type=PTR: the call has a result
    # Hoisted to the function entry: a flat buffer's size depends only on the
    # shape variables (arguments), and an alloc inside a loop (a stage computed
    # at another stage's loop) must not allocate once per iteration.
    Rewriter.insert_op(ops, InsertPoint.at_start(entry))
    op.result.replace_all_uses_with(pointer)
    Rewriter.erase_op(op)
    state.allocations.append(pointer)


SIZE_LIMIT = float(2**62)
"""A heap allocation of this many bytes or more is refused (its size, 64-bit index
arithmetic, may have wrapped: an n x n buffer at n = 2^33)."""


def _unless_too_large(size: IndexExpr, nbytes: SSAValue, ops: list[Operation], state: FunctionState) -> SSAValue:
    """`nbytes`, or -1 (acquire's NULL: an OutOfMemoryError) where `size` evaluated in
    f64, which does not wrap, reaches SIZE_LIMIT (the size grows with every operand but
    a divisor: division is rounded up to a real one)."""
    f64 = Float64Type()

    def value(e: IndexExpr) -> SSAValue:
        match e:
            case IndexConst(value=v):
                op: Operation = arith.ConstantOp(FloatAttr(float(v), f64))
            case IndexVar(name=n):
                as_int = arith.IndexCastOp(state.var_args[n], i64)
                ops.append(as_int)
                op = arith.SIToFPOp(as_int.result, f64)
            case Add(a, b) | Sub(a, b) | Mul(a, b) | FloorDiv(a, b) | FloorMod(a, b) | Min(a, b) | Max(a, b):
                x, y = value(a), value(b)
                kind: type[arith.FloatingPointLikeBinaryOperation] = {
                    Add: arith.AddfOp, Sub: arith.SubfOp, Mul: arith.MulfOp, FloorDiv: arith.DivfOp,
                    FloorMod: arith.MaximumfOp, Min: arith.MinimumfOp, Max: arith.MaximumfOp,
                }[type(e)]
                op = kind(x, y)
            case _:
                raise PassError(f"lower-to-llvm: unexpected size expression {e}")
        ops.append(op)
        return op.results[0]

    limit = arith.ConstantOp(FloatAttr(SIZE_LIMIT, f64))
    ops.append(limit)
    fits = arith.CmpfOp(value(size), limit.result, "olt")  # false for NaN too
    minus_one = arith.ConstantOp(IntegerAttr(-1, IndexType()))
    checked = arith.SelectOp(fits.result, nbytes, minus_one.result)
    ops += [fits, minus_one, checked]
    return checked.result


def _lower_local_alloc(op: loop.AllocOp, entry: Block) -> None:
    """A small constant-size scratch buffer: an `alloca` at the entry, which LLVM's
    mem2reg turns into registers (a reduction's accumulator)."""
    (count,) = op.buffer_type.get_shape()
    if not isinstance(count, int):
        raise PassError(f"lower-to-llvm: local buffer \"{op.buffer_name.data}\" needs a static size", op)
    size = llvm.ConstantOp(IntegerAttr(count, i64), i64)
    alloca = llvm.AllocaOp(size, op.buffer_type.element_type, alignment=ALLOC_ALIGN)
    Rewriter.insert_op([size, alloca], InsertPoint.at_start(entry))
    op.result.replace_all_uses_with(alloca.res)
    Rewriter.erase_op(op)


def lower_view(op: loop.ViewOp, state: FunctionState) -> None:
    """A planned buffer is the arena's pointer plus its byte offset."""
    ops: list[Operation] = []
    offset = emit_expr(parse_expr(op.offset.data), ops.append, lambda n: state.var_args[n])
    gep = llvm.GEPOp.from_mixed_indices(op.arena, [_as_i64(offset, ops)], IntegerType(8), inbounds=True)
    ops.append(gep)
    Rewriter.insert_op(ops, InsertPoint.before(op))
    op.result.replace_all_uses_with(gep.result)
    Rewriter.erase_op(op)


def _as_i64(value: SSAValue, ops: list[Operation]) -> SSAValue:
    cast = arith.IndexCastOp(value, i64)
    ops.append(cast)
    return cast.result


def workspace_slot(pointer: SSAValue) -> SSAValue:
    """The slot address an allocation was acquired from (its acquire call's first operand)."""
    call = pointer.owner
    assert isinstance(call, llvm.CallOp)
    assert call.callee is not None
    assert call.callee.root_reference.data == WORKSPACE_ACQUIRE
    return call.operands[0]


def declare_runtime(module: ModuleOp, within: Operation | None = None) -> None:
    """Declare the workspace functions where the module (or its op `within`) calls them,
    and their slots."""
    ops = walk_ops(module if within is None else within)
    used = {
        op.callee.root_reference.data
        for op in ops
        if isinstance(op, llvm.CallOp) and op.callee is not None  # not an indirect call
    }
    existing = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp | llvm.GlobalOp)}
    slots = {
        op.global_name.root_reference.data
        for op in ops
        if isinstance(op, llvm.AddressOfOp) and op.global_name.root_reference.data.startswith(WORKSPACE_SLOT)
    }
    for name in sorted(slots - existing):  # a cached block's address, 0 when none
        module.body.block.add_op(llvm.GlobalOp(i64, name, "internal", value=IntegerAttr(0, i64), alignment=8))
    decls = {
        WORKSPACE_ACQUIRE: llvm.LLVMFunctionType([PTR, i64], PTR),
        WORKSPACE_RELEASE: llvm.LLVMFunctionType([PTR, PTR], None),
    }
    for name, ftype in decls.items():
        if name in used and name not in existing:
            module.body.block.add_op(
                llvm.FuncOp(name, ftype, linkage=llvm.LinkageAttr("external"))
            )


def define_workspace(module: ir.Module) -> None:
    """Define the workspace functions the module declares (`declare_runtime`): a slot
    holds a cached block's address, its capacity in the block's first 8 bytes and the
    data 64 bytes in. Acquire takes the block out of the slot with an atomic exchange
    (another thread calling at the same time finds the slot empty and allocates its own)
    and reallocates it when it is too small (NULL when that fails); release puts it back,
    freeing what the slot held meanwhile (nothing for NULL). Written with llvmlite's
    builder: xDSL's llvm dialect has no atomics."""
    globals_ = module.globals
    acquire, release = globals_.get(WORKSPACE_ACQUIRE), globals_.get(WORKSPACE_RELEASE)
    if not isinstance(acquire, ir.Function) or not isinstance(release, ir.Function):
        return
    ptr, i64 = acquire.args[0].type, ir.IntType(64)
    aligned_alloc = _declared(module, "aligned_alloc", ir.FunctionType(ptr, [i64, i64]))
    free = _declared(module, "free", ir.FunctionType(ir.VoidType(), [ptr]))
    _define_acquire(acquire, aligned_alloc, free)
    _define_release(release, free)


_HEADER_BYTES = 64
"""Where a workspace block's data starts (its capacity is in the first 8 bytes)."""


def _define_acquire(acquire: ir.Function, aligned_alloc: ir.Function, free: ir.Function) -> None:
    i8, i64 = ir.IntType(8), ir.IntType(64)
    ptr = acquire.args[0].type
    header = ir.Constant(i64, _HEADER_BYTES)
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
    # a size of 2^63 bytes or more (a symbolic size that wrapped) or a failed allocation:
    # NULL, which the caller's allocation check reports (memory.add_allocation_checks)
    null = ir.Constant(ptr, None)
    allocate, failed = acquire.append_basic_block("allocate"), acquire.append_basic_block("failed")
    b.cbranch(b.icmp_signed("<", size, ir.Constant(i64, 0)), failed, allocate)
    b.position_at_end(failed)
    b.ret(null)
    b.position_at_end(allocate)
    new = b.call(aligned_alloc, [header, b.add(size, header)])
    got = acquire.append_basic_block("got")
    b.cbranch(b.icmp_unsigned("==", b.ptrtoint(new, i64), ir.Constant(i64, 0)), failed, got)
    b.position_at_end(got)
    b.store(size, new)
    b.ret(b.gep(new, [header], source_etype=i8))


def _define_release(release: ir.Function, free: ir.Function) -> None:
    i8, i64 = ir.IntType(8), ir.IntType(64)
    ptr = release.args[1].type
    release.linkage = "internal"
    slot, data = release.args
    b = ir.IRBuilder(release.append_basic_block("entry"))
    put = release.append_basic_block("put")
    nothing = release.append_basic_block("nothing")  # a failed acquire's NULL
    b.cbranch(b.icmp_unsigned("==", b.ptrtoint(data, i64), ir.Constant(i64, 0)), nothing, put)
    b.position_at_end(nothing)
    b.ret_void()
    b.position_at_end(put)
    block = b.gep(data, [ir.Constant(i64, -_HEADER_BYTES)], source_etype=i8)
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
