"""lower-to-llvm: loops, conditionals, returns and checks (`loop.assert`).

Step 1: `loop.for` -> `scf.for` (the loop kind kept as `loop.kind`), `loop.if`
-> `scf.if`, and every function ends by freeing its allocations and returning
0 (`add_returns`). Step 3, after `convert-scf-to-cf` made the CFG explicit:
`lower_asserts` splits the block of each `loop.assert` and gives it code
k + 1 in program order (see packed_abi.py for the codes of calls):

    ^pre:  ...                     ^pre:  ...
           loop.assert %ok   ==>          cf.cond_br %ok, ^rest, ^fail_k
           ^rest...               ^fail_k: free(...); return (k + 1)

In a function with an `{packed.error_values}` argument every assert branches
instead to one shared block, `^report(code, v0, ..., v3)`, which stores the
values (unless the pointer is NULL), frees, returns. An assert made for a
`packed.call` returns the callee's code shifted by the codes before it.
"""

from __future__ import annotations

from xdsl.dialects import arith, cf, func, llvm, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering

from compiler.analysis.walk import walk_ops
from compiler.arith.builders import index_cast, index_constant, int_constant
from compiler.diagnostics import PassError
from compiler.dialects import loop
from compiler.lowering.memory import (
    WORKSPACE_RELEASE,
    FunctionState,
    workspace_slot,
)
from compiler.lowering.packed_abi import FORWARD_ATTR, ModuleABI
from compiler.lowering.scalar import constant_int


def lower_for(op: loop.ForOp) -> None:
    """`scf.for %i = min to min + extent` (to `extent` when min is the constant 0), the
    body block moved over whole (its argument, the induction variable, is `index` in both)."""
    step = index_constant(op.step.value.data)
    head: list[Operation] = [step]
    if constant_int(op.min) == 0:
        upper = op.extent
    else:
        add = arith.AddiOp(op.min, op.extent)
        head.append(add)
        upper = add.result
    body = op.body.detach_block(op.body.block)
    body.add_op(scf.YieldOp())
    new = scf.ForOp(op.min, upper, step, [], Region(body))
    new.attributes |= op.attributes
    if op.loop_kind != loop.LoopKind.SERIAL:
        new.attributes["loop.kind"] = op.kind
    Rewriter.insert_op(head, InsertPoint.before(op))
    Rewriter.replace_op(op, new)


class _ForLoweringKeepingUnroll(ForLowering):
    """xDSL's scf.for lowering; a loop's `unroll_full` moves to its back edge (the branch
    that LLVM's loop metadata hangs on)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, scf.ForOp):
            return
        unroll = op.attributes.get(loop.UNROLL_FULL)
        header = op.body.first_block
        entry = op.parent_block()
        super().match_and_rewrite(op, rewriter)
        if unroll is None or header is None:
            return
        for use in header.uses:  # the entry's branch and the back edge jump to the header
            if isinstance(use.operation, cf.BranchOp) and use.operation.parent_block() is not entry:
                use.operation.attributes[loop.UNROLL_FULL] = unroll


def lower_structured_control_flow(root: Operation) -> None:
    """Step 2: scf.for/scf.if -> blocks and branches, with xDSL's convert-scf-to-cf patterns
    applied once to each op (outer ones first: an inner op moves with its parent's blocks
    and stays valid); the greedy pattern walker spent more time re-visiting every other op.
    The last of a block's ops goes first: each lowering moves the ops after it into a new
    block, which then holds no later loop or if (first to last, each moved all the later
    ones again: quadratic, 15 s of EfficientNet's build)."""
    for_lowering, if_lowering = _ForLoweringKeepingUnroll(), IfLowering()
    for op in [op for op in walk_ops(root, reverse=True) if isinstance(op, scf.ForOp | scf.IfOp)]:
        pattern = for_lowering if isinstance(op, scf.ForOp) else if_lowering
        pattern.match_and_rewrite(op, PatternRewriter(op))


def lower_if(op: loop.IfOp) -> None:
    def move(region: Region | None) -> Region:
        """The region's block, moved over whole, ended by a yield."""
        block = region.detach_block(region.block) if region is not None and region.blocks else Block()
        block.add_op(scf.YieldOp())
        return Region(block)

    new = scf.IfOp(op.cond, [], move(op.then_region), move(op.else_region))
    Rewriter.replace_op(op, new)


def add_returns(state: FunctionState) -> None:
    """Free the allocations and return 0 at the end; asserts return k + 1 (after cf)."""
    block = state.func.body.block
    for op in _free_and_return(state, 0):
        block.add_op(op)


def _frees(state: FunctionState) -> list[Operation]:
    """Every allocation back to its slot, the last allocated first."""
    return [llvm.CallOp(WORKSPACE_RELEASE, workspace_slot(p), p) for p in reversed(state.allocations)]


def _free_and_return(state: FunctionState, code: int) -> list[Operation]:
    frees = _frees(state)
    const = int_constant(code, i32)
    return [*frees, const, func.ReturnOp(const)]


def lower_asserts(state: FunctionState, abi: ModuleABI) -> None:
    """Step 3 (module docstring): each `loop.assert` ends its block with a branch to the
    rest or to its failure. A block's asserts are split off from its last one back (each
    op moves once: splitting from the first one moved the rest of the block each time,
    quadratic in a packed function's thousands of argument checks); the codes and the
    order of the blocks are those of splitting in program order."""
    asserts = [op for op in walk_ops(state.func) if isinstance(op, loop.AssertOp)]
    codes: list[int] = []
    code = 1
    for op in asserts:
        codes.append(code)
        forwarded = op.attributes.get(FORWARD_ATTR)
        code += len(abi.tables[forwarded.data]) if isinstance(forwarded, StringAttr) else 1
    by_block: dict[Block, list[tuple[loop.AssertOp, int]]] = {}
    for op, first_code in zip(asserts, codes, strict=True):
        block = op.parent_block()
        assert block is not None
        by_block.setdefault(block, []).append((op, first_code))
    report: list[Block] = []  # the shared report block, made at the first assert that needs it
    for block, found in by_block.items():
        # failure blocks follow the block's last rest, the later asserts' first
        anchor: Block | None = None
        for op, first_code in reversed(found):
            rest = _split_before(block, op)
            anchor = anchor or rest
            fail = _lower_assert(state, op, first_code, block, report)
            if fail is not None:
                region = block.parent
                assert region is not None
                region.insert_block_after(fail, anchor)
                anchor = fail
            Rewriter.erase_op(op)


def _split_before(block: Block, op: Operation) -> Block:
    """`block.split_before(op)` without xDSL's search for the block's index (linear in the
    blocks before it, each time): the ops from `op` on move to a new block after `block`."""
    region = block.parent
    assert region is not None
    rest = Block()
    region.insert_block_after(rest, block)
    moving: list[Operation] = []
    at: Operation | None = op
    while at is not None:
        moving.append(at)
        at = at.next_op
    for moved in moving:
        moved.detach()
        rest.add_op(moved)
    return rest


def _lower_assert(
    state: FunctionState, op: loop.AssertOp, code: int, block: Block, report: list[Block]
) -> Block | None:
    """End `block` (the ops before `op`) with the branch of `op`; its failure block if it
    has one of its own (not the shared report block)."""
    rest = block.next_block
    assert rest is not None
    forwarded = op.attributes.get(FORWARD_ATTR)
    if isinstance(forwarded, StringAttr):  # a callee failed with rc: return rc + code - 1
        fail = Block(_forward_failure(state, op.values[0], code - 1))
        block.add_op(cf.ConditionalBranchOp(op.cond, rest, [], fail, []))
        return fail
    if state.error_values is not None:  # one shared block reports code and values
        if not report:
            report.append(_report_block(state))
        block.add_op(
            cf.ConditionalBranchOp(op.cond, rest, [], report[0], _report_args(op, code, block))
        )
        return None
    if op.values:
        raise PassError(
            f"lower-to-llvm: @{state.func.sym_name.data} has a loop.assert with values but no "
            "argument marked {packed.error_values} to report them",
            op,
        )
    fail = Block(_free_and_return(state, code))
    block.add_op(cf.ConditionalBranchOp(op.cond, rest, [], fail, []))
    return fail


def _report_args(op: loop.AssertOp, code: int, block: Block) -> list[SSAValue]:
    """The code and the values (as i64, zeros after the last), appended to `block`."""
    const = int_constant(code, i32)
    block.add_op(const)
    values = [_as_i64_value(v, block) for v in op.values]
    if len(values) < loop.MAX_ASSERT_VALUES:
        zero = int_constant(0, i64)
        block.add_op(zero)
        values += [zero.result] * (loop.MAX_ASSERT_VALUES - len(values))
    return [const.result, *values]


def _report_block(state: FunctionState) -> Block:
    """`^report(code, v0..v3): if (error_values) { error_values[i] = v_i }; free(...); return code`.

    Allocations are hoisted to the function entry, so they all precede the asserts.
    """
    err = state.error_values
    assert err is not None
    report = Block(arg_types=[i32, *[i64] * loop.MAX_ASSERT_VALUES])
    code, *values = report.args
    ret = Block(_frees(state))
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
        op: Operation = index_cast(value, i64)
    elif isinstance(t, IntegerType) and t.width.data < 64:
        op = arith.ExtSIOp.create(operands=[value], result_types=[i64])
    else:
        return value
    block.add_op(op)
    return op.results[0]


def _forward_failure(state: FunctionState, rc: SSAValue, offset: int) -> list[Operation]:
    frees = _frees(state)
    const = int_constant(offset, i32)
    code = arith.AddiOp(rc, const)
    return [*frees, const, code, func.ReturnOp(code)]
