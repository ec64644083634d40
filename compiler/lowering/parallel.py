"""Parallel loops: `loop.for ... parallel` runs on the OpenMP runtime (libgomp).

Part of lower-to-llvm, before the loop functions are converted. Each
outermost parallel loop becomes a call to libgomp's `GOMP_parallel` with an
outlined body, the way GCC and Clang lower `#pragma omp parallel for`:

    loop.func @f(...) {                      loop.func @f(...) {
      loop.for %i = %lo extent %n parallel {   ctx = alloca [k x i64]; ctx[0] = %lo; ...
        body(%i, captured values)     ==>      GOMP_parallel(@f_parallel0, ctx, @compiler_num_threads, 0)
      }                                      }
    }                                        loop.func @f_parallel0(%ctx: !llvm.ptr) {
                                               reload the captured values from ctx
                                               t = omp_get_thread_num(), nt = omp_get_num_threads()
                                               loop.for over this thread's chunk { body }
                                             }

The thread count is the module's `@compiler_num_threads` global, which the
loader sets (`compiler.set_num_threads`, `compiler/runtime/threads.py`), not
OpenMP's process-wide default, which PyTorch's `set_num_threads` changes. The
iterations are split into `nt` contiguous chunks (static schedule). A
reduction's register accumulator (`loop.alloc local`) inside the loop moves
into the outlined function, so each thread has its own.

Known limits: a parallel loop that holds an intermediate buffer of its own (a
stage computed at it with compute_at) runs serially, since that buffer lives
at one place of the arena and would be shared by the threads; nested
parallel loops run the inner one serially, and so does a loop with checks
(`loop.assert`, e.g. bound checks: a failing one returns from the function).
The captured pointers are reloaded from the context array, which loses the
compute function's `noalias`: the loads and stores keep the alias groups
aliasing.py gave them in the parent function instead (scoped-noalias metadata),
so LLVM still keeps accumulators in registers and vectorizes the body; a
reload carries its buffer's alignment (`pointer_align`, read by vectorize.py),
and constants are copied into the body rather than passed, so LLVM sees its
loop bounds. Without libgomp on the machine, parallel loops run serially.

In a profiling variant (instrument-stages tagged the loop with its nest), each thread
calls the profiler's clock before and after its chunk (`_time_chunk`).

`outline_serial_nests` makes the top-level serial loop nests of a function
functions of their own in the same way, called directly: the JIT optimizes
each while the next lowers (jit.py), and equal ones are compiled once (dedup.py).
"""

from __future__ import annotations

from math import gcd

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnknownLoc,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexConst
from compiler.arith.parse import parse_expr
from compiler.dialects import loop
from compiler.lowering.memory import ALLOC_ALIGN, POINTER_ALIGN
from compiler.passes.instrument_stages import CHUNK_SYMBOL, NEST_ATTR
from compiler.runtime.host import openmp_library
from compiler.runtime.threads import NUM_THREADS_SYMBOL

PTR = llvm.LLVMPointerType()
RUNTIME = {
    "GOMP_parallel": llvm.LLVMFunctionType([PTR, PTR, i32, i32], None),
    "omp_get_thread_num": llvm.LLVMFunctionType([], i32),
    "omp_get_num_threads": llvm.LLVMFunctionType([], i32),
}


def _outermost_parallel_loops(func: loop.FuncOp) -> list[loop.ForOp]:
    found: list[loop.ForOp] = []
    for op in walk_ops(func):
        if isinstance(op, loop.ForOp) and op.loop_kind == loop.LoopKind.PARALLEL:
            parent = op.parent_op()
            nested = False
            while parent is not None and parent is not func:
                nested |= isinstance(parent, loop.ForOp) and parent.loop_kind == loop.LoopKind.PARALLEL
                parent = parent.parent_op()
            if not nested:
                found.append(op)
    return found


def _owns_shared_buffer(for_op: loop.ForOp) -> bool:
    return any(
        isinstance(op, loop.ViewOp) or (isinstance(op, loop.AllocOp) and not op.is_local)
        for op in walk_ops(for_op.body)
    )


def _has_checks(for_op: loop.ForOp) -> bool:
    """Checks (bound checks) return from the function when they fail, which an outlined
    body cannot do: such a loop runs serially."""
    return any(isinstance(op, loop.AssertOp) for op in walk_ops(for_op.body))


def _uses_from_outside(for_op: loop.ForOp) -> tuple[list[SSAValue], list[arith.ConstantOp]]:
    """What the loop uses but does not define (its bounds included), in order of first use:
    the values an outlined body reloads from its context, and the constants it copies
    instead, so that LLVM sees its bounds (trip counts, alignments)."""
    ops = walk_ops(for_op)
    inside = {id(op) for op in ops}
    captured: dict[SSAValue, None] = {}  # sets that keep the order of first use
    constants: dict[arith.ConstantOp, None] = {}
    for op in ops:
        for value in op.operands:
            owner = value.owner
            if isinstance(owner, arith.ConstantOp):
                if id(owner) not in inside:
                    constants[owner] = None
            elif (id(owner.parent_op()) if isinstance(owner, Block) else id(owner)) not in inside:
                captured[value] = None
    return list(captured), list(constants)


def _buffer_alignment(value: SSAValue) -> int:
    """The alignment the compiler gives a buffer: its allocations are ALLOC_ALIGN-aligned,
    and so is an arena view at a constant multiple of ALLOC_ALIGN bytes (1: unknown)."""
    owner = value.owner
    if isinstance(owner, loop.AllocOp):
        return ALLOC_ALIGN
    if isinstance(owner, loop.ViewOp) and isinstance(owner.arena.owner, loop.AllocOp):
        offset = parse_expr(owner.offset.data)
        if isinstance(offset, IndexConst):
            return gcd(ALLOC_ALIGN, offset.value) or ALLOC_ALIGN
    return 1


def _slot_type(value: SSAValue) -> Attribute:
    return PTR if isinstance(value.type, loop.BufferType) else value.type


def _const(value: int, t: IntegerType = i64) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, t), t)


def _spill(captured: list[SSAValue], entry: Block) -> tuple[llvm.AllocaOp, list[Operation]]:
    """A context array in the caller's entry block, and the stores of the captured values
    into it (to insert before the call)."""
    size = _const(len(captured))
    ctx = llvm.AllocaOp(size, i64, alignment=8)
    Rewriter.insert_op([size, ctx], InsertPoint.at_start(entry))
    spill: list[Operation] = []
    for k, value in enumerate(captured):
        slot = llvm.GEPOp.from_mixed_indices(ctx.res, [k], i64, inbounds=True)
        spill += [slot, llvm.StoreOp(value, slot.result)]
    return ctx, spill


def _reload(
    name: str, captured: list[SSAValue], constants: list[arith.ConstantOp], origin: Operation
) -> tuple[loop.FuncOp, dict[SSAValue, SSAValue]]:
    """The outlined function, its entry copying the constants and reloading the captured
    values from its context; it carries the location of the loop it is outlined from
    (`origin`, or its nearest ancestor with a file location), so that a later pass's
    diagnostic about an op inside it is located."""
    outlined = loop.FuncOp(name, [PTR])
    outlined.location = _file_location(origin)
    body = outlined.body.block
    body.args[0].name_hint = "ctx"
    mapping: dict[SSAValue, SSAValue] = {}
    for constant in constants:
        copy = constant.clone()
        body.add_op(copy)
        mapping[constant.result] = copy.result
    for k, value in enumerate(captured):
        slot = llvm.GEPOp.from_mixed_indices(body.args[0], [k], i64, inbounds=True)
        reload = llvm.LoadOp(slot.result, _slot_type(value))
        if (align := _buffer_alignment(value)) > 1:
            reload.attributes[POINTER_ALIGN] = IntegerAttr(align, i64)
        body.add_op(slot)
        body.add_op(reload)
        reload.results[0].name_hint = value.name_hint
        mapping[value] = reload.results[0]
    return outlined, mapping


def _file_location(op: Operation | None) -> FileLineColLoc | UnknownLoc:
    """The file location of `op` or of its nearest ancestor that has one (UnknownLoc)."""
    while op is not None:
        if isinstance(op.location, FileLineColLoc):
            return op.location
        op = op.parent_op()
    return UnknownLoc()


def _remap(root: Operation | Region, mapping: dict[SSAValue, SSAValue]) -> None:
    """Every use under `root` of a value of `mapping` uses its image."""
    for op in walk_ops(root):
        if any(v in mapping for v in op.operands):
            op.operands = [mapping.get(v, v) for v in op.operands]


def _outline(for_op: loop.ForOp, name: str, entry: Block) -> loop.FuncOp:
    captured, constants = _uses_from_outside(for_op)
    ctx, spill = _spill(captured, entry)
    fn = llvm.AddressOfOp(name, PTR)
    zero = _const(0, i32)
    count = _team_size(for_op, spill)
    spill += [fn, zero]
    spill.append(llvm.CallOp("GOMP_parallel", fn.result, ctx.res, count, zero.result))
    Rewriter.insert_op(spill, InsertPoint.before(for_op))
    outlined, mapping = _reload(name, captured, constants, for_op)
    body = outlined.body.block
    lo, extent = mapping[for_op.min], mapping[for_op.extent]
    chunk_lo, chunk_extent, thread = _chunk(body, lo, extent, for_op.step.value.data)
    # the loop body moves over whole (cheaper than a clone) into this thread's chunk
    inner = loop.ForOp(chunk_lo, chunk_extent, Region(for_op.body.detach_block(for_op.body.block)), step=for_op.step.value.data)
    body.add_op(inner)
    _remap(inner.body, mapping)
    nest = for_op.attributes.get(NEST_ATTR)
    if isinstance(nest, IntegerAttr):
        _time_chunk(inner, thread, nest.value.data)
    Rewriter.erase_op(for_op)
    return outlined


def _team_size(for_op: loop.ForOp, ops: list[Operation]) -> SSAValue:
    """The threads to fork: the module's count (compiler.runtime.threads), read per fork,
    but no more than the loop has iterations, and at least 1. A loop over a symbolic
    extent is parallel for its large sizes; at one iteration (a decode step's `seq`)
    libgomp then runs it in the calling thread, without waking the team, whose
    wake-up costs a scheduler time slice (~8 ms) when another process holds a core."""
    count_at = llvm.AddressOfOp(NUM_THREADS_SYMBOL, PTR)
    count = llvm.LoadOp(count_at.result, i32)
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    ops += [count_at, count, one]
    iterations = _trip_count(for_op.extent, for_op.step.value.data, ops)
    wide = arith.IndexCastOp(count.dereferenced_value, IndexType())
    smaller = arith.MinSIOp(wide.result, iterations)
    capped = arith.MaxSIOp(smaller.result, one.result)
    # 0 leaves the count to OpenMP (a library the loader did not bind): kept, but for one iteration
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    unbound = arith.CmpiOp(wide.result, zero.result, "eq")
    single = arith.CmpiOp(iterations, one.result, "sle")
    default = arith.SelectOp(single.result, one.result, zero.result)
    chosen = arith.SelectOp(unbound.result, default.result, capped.result)
    narrow = arith.IndexCastOp(chosen.result, i32)
    ops += [wide, smaller, capped, zero, unbound, single, default, chosen, narrow]
    return narrow.result


def _trip_count(extent: SSAValue, step: int, ops: list[Operation]) -> SSAValue:
    """A loop's iterations, ceil(extent / step) for extent >= 0, its ops appended to `ops`."""
    if step == 1:
        return extent
    bumped = arith.ConstantOp(IntegerAttr(step - 1, IndexType()))
    by = arith.ConstantOp(IntegerAttr(step, IndexType()))
    padded = arith.AddiOp(extent, bumped)
    count = arith.FloorDivSIOp(padded, by)
    ops += [bumped, by, padded, count]
    return count.result


def outline_serial_nest(for_op: loop.ForOp, name: str, entry: Block) -> loop.FuncOp:
    """A top-level serial loop nest as a function of its own, called once with its
    captured values in a context array (its return value, 0, is not read: a nest with
    checks stays where it is). The loop itself moves into the function."""
    captured, constants = _uses_from_outside(for_op)
    ctx, spill = _spill(captured, entry)
    spill.append(llvm.CallOp(name, ctx.res, return_type=i32))
    Rewriter.insert_op(spill, InsertPoint.before(for_op))
    outlined, mapping = _reload(name, captured, constants, for_op)
    for_op.detach()
    outlined.body.block.add_op(for_op)
    _remap(for_op, mapping)
    return outlined


def _time_chunk(inner: loop.ForOp, thread: SSAValue, nest: int) -> None:
    """A profiling variant's parallel loop (instrument-stages tagged it with its nest):
    each thread reads the clock before and after its chunk."""
    k, begin, end = (arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (nest, 0, 1))
    before = loop.CallExternOp(CHUNK_SYMBOL, [k, thread, begin])
    Rewriter.insert_op([k, begin, end, before], InsertPoint.before(inner))
    Rewriter.insert_op(loop.CallExternOp(CHUNK_SYMBOL, [k, thread, end]), InsertPoint.after(inner))


def _chunk(body: Block, lo: SSAValue, extent: SSAValue, step: int) -> tuple[SSAValue, SSAValue, SSAValue]:
    """This thread's contiguous share of the iterations (index arithmetic), and the thread's
    number."""
    ops: list[Operation] = []

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def index(value: int) -> SSAValue:
        return add(arith.ConstantOp(IntegerAttr(value, IndexType())))

    tid = add(arith.IndexCastOp(add(llvm.CallOp("omp_get_thread_num", return_type=i32)), IndexType()))
    nt = add(arith.IndexCastOp(add(llvm.CallOp("omp_get_num_threads", return_type=i32)), IndexType()))
    zero = index(0)

    def ceildiv(a: SSAValue, b: SSAValue) -> SSAValue:  # a >= 0, b >= 1
        return add(arith.FloorDivSIOp(add(arith.SubiOp(add(arith.AddiOp(a, b)), index(1))), b))

    def times_step(a: SSAValue) -> SSAValue:
        return a if step == 1 else add(arith.MuliOp(a, index(step)))

    count = _trip_count(extent, step, ops)
    per_thread = ceildiv(count, nt)
    first = add(arith.MuliOp(tid, per_thread))
    last = add(arith.MinSIOp(count, add(arith.AddiOp(first, per_thread))))
    mine = add(arith.MaxSIOp(zero, add(arith.SubiOp(last, first))))
    chunk_lo = add(arith.AddiOp(lo, times_step(first)))
    chunk_extent = times_step(mine)
    for op in ops:
        body.add_op(op)
    return chunk_lo, chunk_extent, tid


def outline_parallel_loops(module: ModuleOp) -> None:
    """Turn outermost parallel loops into GOMP_parallel calls (or serial loops without libgomp)."""
    funcs = [op for op in module.ops if isinstance(op, loop.FuncOp)]
    for func in funcs:
        for k, for_op in enumerate(_outermost_parallel_loops(func)):
            if openmp_library() is None or _owns_shared_buffer(for_op) or _has_checks(for_op):
                for_op.kind = StringAttr(str(loop.LoopKind.SERIAL))
                continue
            outlined = _outline(for_op, f"{func.sym_name.data}_parallel{k}", func.body.block)
            module.body.block.add_op(outlined)
    defined = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp | llvm.GlobalOp)}
    used = {
        op.callee.root_reference.data
        for op in walk_ops(module)
        if isinstance(op, llvm.CallOp) and op.callee is not None  # not an indirect call
    } - defined  # a module lowered before (lower-to-llvm run twice) declares them already
    for name, ftype in RUNTIME.items():
        if name in used:
            module.body.block.add_op(llvm.FuncOp(name, ftype, linkage=llvm.LinkageAttr("external")))
    if "GOMP_parallel" in used and NUM_THREADS_SYMBOL not in defined:
        # weak: a definition the loader finds by name (external with an initializer is
        # not valid LLVM IR); 0 until the loader binds it: OpenMP's default
        module.body.block.add_op(
            llvm.GlobalOp(i32, NUM_THREADS_SYMBOL, "weak", value=IntegerAttr(0, i32), alignment=4)
        )


MIN_NESTS = 2
"""A function's top-level serial loop nests are outlined when it has at least this many."""


def outline_serial_nests(funcs: list[loop.FuncOp], module: ModuleOp) -> None:
    """Each top-level serial loop nest of `funcs` as a function of its own
    (`outline_serial_nest`), when a function has `MIN_NESTS` of them: the JIT then
    optimizes one nest while the next lowers (jit.py), and nests that are the same
    code (a network's layers of one shape) are compiled once (dedup.py). Nests with
    checks, with buffers of their own, or around a parallel loop's fork stay."""
    for func in funcs:
        nests = [op for op in func.body.block.ops if isinstance(op, loop.ForOp) and _outlinable(op)]
        if len(nests) < MIN_NESTS:
            continue
        for k, nest in enumerate(nests):
            module.body.block.add_op(outline_serial_nest(nest, f"{func.sym_name.data}_nest{k}", func.body.block))


def _outlinable(nest: loop.ForOp) -> bool:
    if nest.loop_kind == loop.LoopKind.PARALLEL or _owns_shared_buffer(nest) or _has_checks(nest):
        return False
    return not any(op.dialect_name() == "llvm" for op in walk_ops(nest.body))
