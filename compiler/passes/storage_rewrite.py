"""storage-rewrite: plan all intermediate buffers into one arena (TVM's StorageRewrite, seed 001).

Runs on flat `loop.func`s (after storage-flatten). Algorithm:

  1. Liveness: the statements of the function body are numbered in program
     order; an intermediate buffer (`loop.alloc`, not `local`) is live from
     the first top-level statement that uses it to the last one (a buffer of a
     stage attached with compute_at lives within its nest's statement).
  2. In-place: a statement S that writes buffer O and reads buffer I, where I
     dies at S and O is born at S, may write O over I when no read of I
     executes after a write of O to the same bytes (in a parallel loop: in any
     other iteration, since they run in any order). `inplace_conflicts` builds
     that set exactly with islpy (loop domains, program order, byte
     addresses) and must find it empty. With symbolic strides
     (`i * (w // 2) * 64`: not Presburger, islpy rejects it) the same question is answered by
     `_symbolic_disjoint`: in each case of "the read runs later", the read's
     bytes are proven wholly above or below the written ones, a polynomial
     proof (compiler.analysis.size_proof). Elementwise stages qualify; a 2x2
     stride-2 pool (with its accumulator in a register) qualifies, for static
     and symbolic h and w; a 3x3 convolution never does.
  3. Packing: in-place pairs are merged; buffers are placed greedy-by-size
     (largest first, at the lowest offset free during their lifetime: a best
     fit that beats first-fit by time). With symbolic sizes the candidate
     offsets are 0 and the ends of the buffers live at the same time (sums of
     sizes); a candidate is taken when it is proven disjoint from each of them
     (`h // 2 * (w // 2) * 64 * 4 <= h * w * 64 * 4` for h, w >= 0), and the
     arena size is an expression evaluated at call time (seed 001 at 256x256:
     the static plan's size, the liveness lower bound).
  4. Rewrite: one `loop.alloc "arena"` of i8 and a `loop.view` per buffer at
     its byte offset (`inplace` names the buffer it overwrites).

Options `reuse=false` / `inplace=false` turn the two optimisations off, for
comparisons. Offsets and sizes are rounded up to 64 bytes.

Known limits (# WARNING): conditions (`loop.if`) are ignored by the in-place
proof (it considers more iterations than run: sound, maybe conservative).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.liveness import (
    ARENA,
    REASON_ATTR,
    Lifetime,
    aligned,
    element_bytes,
    liveness,
    shape_params,
    size_analyzer,
)
from compiler.analysis.size_proof import SizeProver, prove_nonnegative
from compiler.analysis.value_names import ValueNames
from compiler.analysis.walk import walk_ops
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
    as_binary,
    evaluate,
    free_vars,
    substitute_index,
)
from compiler.arith.ir import expr_from_value
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.diagnostics import PassError
from compiler.dialects import loop
from compiler.errors import InternalError
from compiler.passes import LoopFunctionPass

# ---------------------------------------------------------------------------
# In-place: exact dependence test with islpy
# ---------------------------------------------------------------------------


@dataclass
class Access:
    buffer: SSAValue
    is_write: bool
    address: IndexExpr  # element index
    loops: list[loop.ForOp]
    position: int  # program order within the statement


def statement_accesses(stmt: Operation, buffers: set[SSAValue], names: ValueNames) -> list[Access]:
    found: list[Access] = []
    for k, op in enumerate(walk_ops(stmt)):
        if isinstance(op, loop.LoadOp | loop.StoreOp) and op.buffer in buffers:
            loops: list[loop.ForOp] = []
            parent = op.parent_op()
            while parent is not None and parent is not stmt.parent_op():
                if isinstance(parent, loop.ForOp):
                    loops.insert(0, parent)
                parent = parent.parent_op()
            address = expr_from_value(op.indices[0], names.leaf)
            assert address is not None
            found.append(Access(op.buffer, isinstance(op, loop.StoreOp), address, loops, k))
    return found


_ISL_FORMS: dict[type, str] = {
    Add: "({} + {})", Sub: "({} - {})", Mul: "({} * {})", FloorDiv: "floor({} / {})",
    FloorMod: "({} mod {})", Min: "min({}, {})", Max: "max({}, {})",
}  # fmt: skip


def _isl(e: IndexExpr, rename: dict[str, str]) -> str:
    match e:
        case IndexConst(value=v):
            return str(v)
        case IndexVar(name=n):
            return rename.get(n, n)
    form = _ISL_FORMS.get(type(e))
    if form is None:
        raise InternalError(f"no isl form for {e}")
    binary = as_binary(e)
    return form.format(_isl(binary.a, rename), _isl(binary.b, rename))


def _loop_domain(loops: Sequence[loop.ForOp], prefix: str, names: ValueNames) -> tuple[list[str], list[str], dict[str, str]]:
    variables: list[str] = []
    constraints: list[str] = []
    rename: dict[str, str] = {}
    for k, for_op in enumerate(loops):
        iv = names.leaf(for_op.induction_var)
        assert isinstance(iv, IndexVar)
        rename[iv.name] = f"{prefix}{k}"
        variables.append(f"{prefix}{k}")
        lo = expr_from_value(for_op.min, names.leaf)
        ext = expr_from_value(for_op.extent, names.leaf)
        assert lo is not None
        assert ext is not None
        step = for_op.step.value.data
        v = f"{prefix}{k}"
        constraints.append(f"{_isl(lo, rename)} <= {v} < {_isl(lo, rename)} + {_isl(ext, rename)}")
        if step != 1:
            constraints.append(f"exists (q{prefix}{k} : {v} = {_isl(lo, rename)} + {step} * q{prefix}{k})")
    return variables, constraints, rename


def inplace_conflicts(
    stmt: Operation, source: SSAValue, target: SSAValue, params: Sequence[str], az: Analyzer | None = None
) -> str | None:
    """Why writing `target` over `source` in `stmt` is unsafe, or None when it is safe:
    no read of `source` runs after a write of `target` to the same bytes."""
    import islpy as isl

    for call in walk_ops(stmt):
        # an external function reads and writes whole buffers, in an order no one knows
        if isinstance(call, loop.CallExternOp) and {source, target} & set(call.args):
            return f"the external function @{call.callee_name} accesses them"
    az = az or Analyzer({n: (0, None) for n in params})
    names = ValueNames(hints=False)
    accesses = statement_accesses(stmt, {source, target}, names)
    writes = [a for a in accesses if a.is_write and a.buffer is target]
    reads = [a for a in accesses if not a.is_write and a.buffer is source]
    assert isinstance(source.type, loop.BufferType)
    assert isinstance(target.type, loop.BufferType)
    read_bytes, write_bytes = element_bytes(source.type), element_bytes(target.type)
    for w in writes:
        for r in reads:
            common = 0
            while common < min(len(w.loops), len(r.loops)) and w.loops[common] is r.loops[common]:
                common += 1
            wv, wc, wren = _loop_domain(w.loops, "w", names)
            rv, rc, rren = _loop_domain(r.loops, "r", names)
            parallel = any(lp.loop_kind == loop.LoopKind.PARALLEL for lp in (*w.loops, *r.loops))
            if parallel:
                # iterations of a parallel loop run in any order: any other iteration may come later
                later = [f"r{k} < w{k} or r{k} > w{k}" for k in range(common)]
            else:
                later = [" and ".join([*(f"r{j} = w{j}" for j in range(k)), f"r{k} > w{k}"]) for k in range(common)]
            if r.position > w.position:  # same iteration of the common loops, read after the write
                later.append(" and ".join(f"r{j} = w{j}" for j in range(common)) or "true")
            if not later:
                continue
            wa = f"{write_bytes} * {_isl(w.address, wren)}"
            ra = f"{read_bytes} * {_isl(r.address, rren)}"
            overlap = f"{ra} < {wa} + {write_bytes} and {wa} < {ra} + {read_bytes}"
            params_text = ", ".join(sorted(set(params) | names.shape_names()))
            text = (
                f"[{params_text}] -> {{ [{', '.join(wv + rv)}] : {' and '.join(wc + rc) or 'true'}"
                f" and (({') or ('.join(later)})) and {overlap} }}"
            )
            try:
                conflict = _isl_nonempty(text)
            except isl.Error:
                # symbolic strides (products of variables): not Presburger, prove it polynomially
                if _same_element(w, r, common) and read_bytes == write_bytes:
                    continue
                if _symbolic_disjoint(w, r, common, parallel, names, (write_bytes, read_bytes), az):
                    continue
                return (
                    "the accesses have symbolic strides, and no read of the input provably "
                    "stays clear of the bytes written before it"
                )
            if conflict:
                return "a read of the input follows a write of the output to the same bytes"
    return None


@lru_cache(maxsize=4096)
def _isl_nonempty(text: str) -> bool:
    """Whether the ISL set `text` has a point (a network's layers of one shape ask the same
    question: its text, parsed once)."""
    import islpy as isl

    return not isl.Set(text).is_empty()


def _box(for_op: loop.ForOp, names: ValueNames, rename: Mapping[str, IndexExpr]) -> tuple[IndexExpr, IndexExpr]:
    """A loop counter's inclusive range (a step > 1 is ignored: a superset)."""
    lo = expr_from_value(for_op.min, names.leaf)
    ext = expr_from_value(for_op.extent, names.leaf)
    assert lo is not None
    assert ext is not None
    return substitute_index(lo, rename), substitute_index(lo + ext - 1, rename)


def _symbolic_disjoint(
    w: Access,
    r: Access,
    common: int,
    parallel: bool,
    names: ValueNames,
    sizes: tuple[int, int],
    az: Analyzer,
) -> bool:
    """The exact test's question with symbolic strides, answered by a polynomial proof
    (compiler.analysis.size_proof): in every case of "the read runs after the write"
    (a later iteration of common loop k, or any other one when a loop is parallel;
    the same iteration when the read follows in the body), the read's bytes lie
    wholly above, or wholly below, the written bytes."""
    write_bytes, read_bytes = sizes
    wren = {names.leaf(lp.induction_var).name: f"w{k}" for k, lp in enumerate(w.loops)}
    rren = {names.leaf(lp.induction_var).name: f"r{k}" for k, lp in enumerate(r.loops)}
    boxes = {f"w{k}": _box(lp, names, {n: IndexVar(v) for n, v in wren.items()}) for k, lp in enumerate(w.loops)}
    boxes |= {f"r{k}": _box(lp, names, {n: IndexVar(v) for n, v in rren.items()}) for k, lp in enumerate(r.loops)}
    wa = substitute_index(w.address, {n: IndexVar(v) for n, v in wren.items()}) * write_bytes
    ra = substitute_index(r.address, {n: IndexVar(v) for n, v in rren.items()}) * read_bytes
    # a loop of one iteration (a stage attached at its consumer's innermost loop runs one
    # element: `for yy = i extent 1`) is its start, which may name other such counters
    points = {v: lo for v, (lo, hi) in boxes.items() if simplify(hi - lo) == IndexConst(0)}
    for _ in range(len(points)):
        wa, ra = substitute_index(wa, points), substitute_index(ra, points)
    cases: list[dict[str, IndexExpr]] = []  # read counters fixed by the case
    gap = IndexVar("d't")  # >= 0
    for k in range(common):
        lo, hi = boxes[f"w{k}"]
        if prove_nonnegative(lo - hi, az):
            continue  # one iteration: no later (or other) one
        same = {} if parallel else {f"r{j}": IndexVar(f"w{j}") for j in range(k)}
        cases.append(same | {f"r{k}": IndexVar(f"w{k}") + 1 + gap})
        if parallel:
            cases.append({f"r{k}": IndexVar(f"w{k}") - 1 - gap})
    if r.position > w.position:
        cases.append({f"r{j}": IndexVar(f"w{j}") for j in range(common)})
    for fixed in cases:
        case_boxes = {v: b for v, b in boxes.items() if v not in fixed}
        read = substitute_index(ra, fixed)
        above = read - wa - write_bytes
        below = wa - read - read_bytes
        if not (prove_nonnegative(above, az, case_boxes) or prove_nonnegative(below, az, case_boxes)):
            return False
    return True


def _same_element(w: Access, r: Access, common: int) -> bool:
    """Elementwise: the read and the write are in the same loop nest, the read comes
    first in the body, and both address the same element. A row-major index of
    in-bounds coordinates is injective, so no other iteration (later, or concurrent
    in a parallel loop) reads that element."""
    return (
        common == len(w.loops) == len(r.loops)
        and r.position < w.position
        and simplify(w.address - r.address) == IndexConst(0)
    )


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Slot:
    """Buffers sharing memory: in-place chains, or reuse of a dead buffer's bytes."""

    members: list[Lifetime]
    size: IndexExpr
    offset: IndexExpr = field(default_factory=lambda: IndexConst(0))

    @property
    def first(self) -> int:
        return min(m.first for m in self.members)

    @property
    def last(self) -> int:
        return max(m.last for m in self.members)


@dataclass
class Plan:
    offsets: dict[str, IndexExpr]
    arena: IndexExpr
    inplace: dict[str, str]  # buffer -> the buffer it overwrites
    reasons: dict[str, str]  # buffer -> why it got fresh memory


def _check_unique_names(lifetimes: Sequence[Lifetime]) -> None:
    """The plan (offsets, in-place pairs, the report) names each buffer: two allocations
    of one name would share its entries, and so its memory."""
    seen: set[str] = set()
    for t in lifetimes:
        if t.name in seen:
            raise PassError(f"storage-rewrite: two buffers are named \"{t.name}\"; give each loop.alloc its own name", t.op)
        seen.add(t.name)


def plan_function(func: loop.FuncOp, *, reuse: bool = True, inplace: bool = True) -> Plan:
    az = size_analyzer(func)
    prover = SizeProver(az)
    lifetimes = liveness(func)
    _check_unique_names(lifetimes)
    statements = list(func.body.block.ops)
    params = shape_params(func)
    inplace_of: dict[str, str] = {}
    reasons: dict[str, str] = {}
    slots: dict[str, Slot] = {}
    for t in lifetimes:
        slots[t.name] = Slot([t], aligned(t.size))
    if inplace:
        for t in lifetimes:
            for source in lifetimes:
                if source is t or source.last != t.first or source.name in inplace_of.values():
                    continue
                slot = slots[source.name]
                # the slot is its first member's size, aligned: aligned() is monotone
                if not prover.prove_le(t.size, slot.members[0].size) and not prover.prove_le(aligned(t.size), slot.size):
                    continue
                why = inplace_conflicts(statements[t.first], source.value, t.value, params, az)
                if why is None:
                    inplace_of[t.name] = source.name
                    slot.members.append(t)
                    slots[t.name] = slot
                    break
                reasons[t.name] = f"in-place over {source.name} unsafe: {why}"
    unique = list({id(s): s for s in slots.values()}.values())
    if not reuse:
        offset: IndexExpr = IndexConst(0)
        for s in unique:
            s.offset = offset
            offset = az.simplify(offset + s.size)
        return Plan({t.name: slots[t.name].offset for t in lifetimes}, offset, inplace_of, reasons)
    if all(const_value(s.size) is not None for s in unique):
        arena = _pack_static(unique)
    else:
        arena = _pack_symbolic(unique, az, reasons)
    _explain(unique, reasons)
    return Plan({t.name: slots[t.name].offset for t in lifetimes}, arena, inplace_of, reasons)


def _explain(slots: list[Slot], reasons: dict[str, str]) -> None:
    """For each buffer on bytes no earlier buffer used, say why no dead buffer's were
    taken. Symbolic offsets and sizes are evaluated with every variable 256, by
    substitution alone: this only words the report (the plan is proven elsewhere), and
    simplifying them here (an analyzer per expression, nested min/max of a symbolic
    attention's offsets) cost minutes on a dynamic BERT."""
    where = {id(s): (_sample(s.offset), _sample(s.size)) for s in slots}
    for s in slots:
        lo, size = where[id(s)]
        earlier = [o for o in slots if o is not s and o.last < s.first]
        reused = [o for o in earlier if lo < sum(where[id(o)]) and where[id(o)][0] < lo + size]
        head = s.members[0]
        if reused:
            reasons.pop(head.name, None)
        elif head.name not in reasons:
            reasons[head.name] = (
                "no buffer is dead yet"
                if not earlier
                else "the dead buffers ("
                + ", ".join(m.name for o in earlier for m in o.members)
                + ") are smaller or their bytes are taken by live ones"
            )


def _sample(e: IndexExpr) -> int:
    """`e` with every variable 256 (17 where that divides by zero), evaluated: no
    simplification."""
    names = free_vars(e)
    try:
        return evaluate(e, dict.fromkeys(names, 256))
    except ZeroDivisionError:
        return evaluate(e, dict.fromkeys(names, 17))


def _pack_static(slots: list[Slot]) -> IndexExpr:
    """Greedy by size: the largest slot first, at the lowest offset that no slot
    live at the same time occupies (best fit among the gaps)."""
    placed: list[Slot] = []
    for s in sorted(slots, key=lambda s: (-(const_value(s.size) or 0), s.first)):
        size = const_value(s.size) or 0
        busy = sorted(
            (const_value(o.offset) or 0, (const_value(o.offset) or 0) + (const_value(o.size) or 0)) for o in placed if o.first <= s.last and s.first <= o.last
        )
        best, best_gap, cursor = None, None, 0
        for lo, hi in busy:
            gap = lo - cursor
            if gap >= size and (best_gap is None or gap < best_gap):
                best, best_gap = cursor, gap
            cursor = max(cursor, hi)
        s.offset = IndexConst(best if best is not None else cursor)
        placed.append(s)
    return IndexConst(max(((const_value(s.offset) or 0) + (const_value(s.size) or 0) for s in slots), default=0))


def _pack_symbolic(slots: list[Slot], az: Analyzer, reasons: dict[str, str]) -> IndexExpr:
    """Greedy by size with symbolic sizes, as `_pack_static`: the largest slot first
    (sizes compared at sample points: only the order depends on them), at the lowest
    candidate offset (0, or the end of a slot live at the same time) whose bytes are
    proven disjoint from every slot live at the same time. Offsets are sums of sizes,
    so the proofs are polynomial (compiler.analysis.size_proof); the sum of all sizes
    placed so far is always a valid offset. The arena is the largest end, or the max
    of the ends no other is proven to cover."""
    prover = SizeProver(az)
    placed: list[Slot] = []
    top: IndexExpr = IndexConst(0)
    for s in sorted(slots, key=lambda s: (_samples(s.size), -s.first), reverse=True):
        live = [o for o in placed if o.first <= s.last and s.first <= o.last]
        candidates = sorted([IndexConst(0), *(az.simplify(o.offset + o.size) for o in live)], key=_samples)
        for at in candidates:
            end = az.simplify(at + s.size)
            if all(prover.prove_le(end, o.offset) or prover.prove_le(o.offset + o.size, at) for o in live):
                s.offset = at
                break
        else:
            s.offset = top
            head = s.members[0].name
            reasons.setdefault(head, "no offset below the other buffers live with it is proven free")
        placed.append(s)
        top = az.simplify(top + s.size)
    ends: list[IndexExpr] = []
    for e in sorted((az.simplify(s.offset + s.size) for s in placed), key=_samples, reverse=True):
        if not any(prover.prove_le(e, kept) for kept in ends):
            ends = [kept for kept in ends if not prover.prove_le(kept, e)] + [e]
    if not ends:
        return IndexConst(0)
    arena = ends[0]
    for e in ends[1:]:
        arena = Max(arena, e)
    return arena


def _samples(e: IndexExpr) -> tuple[int, int]:
    """A size at two sample points (every variable 256, then 17): the packing order."""
    big, small = (evaluate(e, {n: v for n in free_vars(e)}) for v in (256, 17))
    return big, small


# ---------------------------------------------------------------------------
# Rewrite
# ---------------------------------------------------------------------------

def check_unplanned(func: loop.FuncOp) -> None:
    """storage-rewrite plans a function once: a PassError at the first `loop.view` or
    arena allocation of a function that already has a plan (hand-written or planned)."""
    for op in walk_ops(func):
        if isinstance(op, loop.ViewOp) or (isinstance(op, loop.AllocOp) and op.buffer_name.data == ARENA):
            raise PassError(
                f"storage-rewrite: @{func.sym_name.data} already has a memory plan ({op.name} "
                f"\"{op.buffer_name.data}\"); a function is planned once, from loop.alloc only",
                op,
            )


def rewrite_function(func: loop.FuncOp, plan: Plan) -> None:
    lifetimes = liveness(func)
    if not lifetimes:
        return
    block = func.body.block
    first = block.first_op
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    total = plan.arena
    dim = const_value(total)
    arena = loop.AllocOp(ARENA, [zero], loop.BufferType([dim if dim is not None else str(total)], IntegerType(8)))
    arena.result.name_hint = ARENA
    if first is None:
        block.add_op(zero)
        block.add_op(arena)
    else:
        Rewriter.insert_op([zero, arena], InsertPoint.before(first))
    for t in lifetimes:
        assert isinstance(t.op, loop.AllocOp)
        view = loop.ViewOp(t.name, arena.result, str(plan.offsets[t.name]), t.op.buffer_type, inplace=plan.inplace.get(t.name))
        view.result.name_hint = t.value.name_hint
        if t.name in plan.reasons and t.name not in plan.inplace:
            view.attributes[REASON_ATTR] = StringAttr(plan.reasons[t.name])
        Rewriter.replace_op(t.op, view)


@dataclass(frozen=True)
class StorageRewritePass(LoopFunctionPass):
    """Plan every intermediate buffer of a flat loop function into one arena."""

    name = "storage-rewrite"

    reuse: bool = True
    """Let a buffer take the memory of a dead one."""

    inplace: bool = True
    """Let a stage write its output over an input that dies there, when proven safe."""

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        check_unplanned(func)
        plan = plan_function(func, reuse=self.reuse, inplace=self.inplace)
        rewrite_function(func, plan)
