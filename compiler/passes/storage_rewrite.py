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
     addresses) and must find it empty. Elementwise stages qualify; a 2x2
     stride-2 pool (with its accumulator in a register) qualifies; a 3x3
     convolution never does.
  3. Packing: in-place pairs are merged; with static sizes, buffers are placed
     greedy-by-size (largest first, at the lowest offset free during their
     lifetime: a best fit that beats first-fit by time); with symbolic sizes,
     a buffer reuses a dead buffer's slot only when its size is proven to fit
     (`h // 2 * (w // 2) * 64 * 4 <= h * w * 64 * 4` for h, w >= 0), and the
     arena size is an expression evaluated at call time.
  4. Rewrite: one `loop.alloc "arena"` of i8 and a `loop.view` per buffer at
     its byte offset (`inplace` names the buffer it overwrites).

Options `reuse=false` / `inplace=false` turn the two optimisations off, for
comparisons. Offsets and sizes are rounded up to 64 bytes.

Known limits (# WARNING): conditions (`loop.if`) are ignored by the in-place
proof (it considers more iterations than run: sound, maybe conservative).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
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
from compiler.arith.expr import (
    Add,
    Const,
    Expr,
    FloorDiv,
    FloorMod,
    Max,
    Min,
    Mul,
    Sub,
    Var,
)
from compiler.arith.ir import expr_from_value
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.dialects import loop

# ---------------------------------------------------------------------------
# In-place: exact dependence test with islpy
# ---------------------------------------------------------------------------


@dataclass
class Access:
    buffer: SSAValue
    is_write: bool
    address: Expr  # element index
    loops: list[loop.ForOp]
    position: int  # program order within the statement


class _Names:
    """Names for the leaves of address expressions: shape variables keep their
    names (isl parameters), every other value (loop counters) gets `v<k>`."""

    def __init__(self) -> None:
        self.names: dict[SSAValue, str] = {}
        self.params: set[str] = set()

    def leaf(self, value: SSAValue) -> Expr:
        if isinstance(value.owner, loop.VarOp):
            self.params.add(value.owner.var_name.data)
            return Var(value.owner.var_name.data)
        if value not in self.names:
            self.names[value] = f"v{len(self.names)}"
        return Var(self.names[value])


def statement_accesses(stmt: Operation, buffers: set[SSAValue], names: _Names) -> list[Access]:
    found: list[Access] = []
    for k, op in enumerate(stmt.walk()):
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


def _isl(e: Expr, rename: dict[str, str]) -> str:
    match e:
        case Const(value=v):
            return str(v)
        case Var(name=n):
            return rename.get(n, n)
        case Add(a=a, b=b):
            return f"({_isl(a, rename)} + {_isl(b, rename)})"
        case Sub(a=a, b=b):
            return f"({_isl(a, rename)} - {_isl(b, rename)})"
        case Mul(a=a, b=b):
            return f"({_isl(a, rename)} * {_isl(b, rename)})"
        case FloorDiv(a=a, b=b):
            return f"floor({_isl(a, rename)} / {_isl(b, rename)})"
        case FloorMod(a=a, b=b):
            return f"({_isl(a, rename)} mod {_isl(b, rename)})"
        case Min(a=a, b=b):
            return f"min({_isl(a, rename)}, {_isl(b, rename)})"
        case Max(a=a, b=b):
            return f"max({_isl(a, rename)}, {_isl(b, rename)})"
    raise ValueError(f"no isl form for {e}")


def _loop_domain(loops: Sequence[loop.ForOp], prefix: str, names: _Names) -> tuple[list[str], list[str], dict[str, str]]:
    variables: list[str] = []
    constraints: list[str] = []
    rename: dict[str, str] = {}
    for k, for_op in enumerate(loops):
        iv = names.leaf(for_op.induction_var)
        assert isinstance(iv, Var)
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


def inplace_conflicts(stmt: Operation, source: SSAValue, target: SSAValue, params: Sequence[str]) -> str | None:
    """Why writing `target` over `source` in `stmt` is unsafe, or None when it is safe:
    no read of `source` runs after a write of `target` to the same bytes."""
    import islpy as isl

    names = _Names()
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
            if any(lp.loop_kind == loop.LoopKind.PARALLEL for lp in (*w.loops, *r.loops)):
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
            params_text = ", ".join(sorted(set(params) | names.params))
            text = (
                f"[{params_text}] -> {{ [{', '.join(wv + rv)}] : {' and '.join(wc + rc) or 'true'}"
                f" and (({') or ('.join(later)})) and {overlap} }}"
            )
            try:
                conflict = isl.Set(text)
            except isl.Error:
                if _same_element(w, r, common) and read_bytes == write_bytes:
                    continue
                return "the accesses have symbolic strides that the exact (affine) test cannot handle"
            if not conflict.is_empty():
                return "a read of the input follows a write of the output to the same bytes"
    return None


def _same_element(w: Access, r: Access, common: int) -> bool:
    """Elementwise: the read and the write are in the same loop nest, the read comes
    first in the body, and both address the same element. A row-major index of
    in-bounds coordinates is injective, so no other iteration (later, or concurrent
    in a parallel loop) reads that element."""
    return (
        common == len(w.loops) == len(r.loops)
        and r.position < w.position
        and simplify(w.address - r.address) == Const(0)
    )


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Slot:
    """Buffers sharing memory: in-place chains, or reuse of a dead buffer's bytes."""

    members: list[Lifetime]
    size: Expr
    offset: Expr = field(default_factory=lambda: Const(0))

    @property
    def first(self) -> int:
        return min(m.first for m in self.members)

    @property
    def last(self) -> int:
        return max(m.last for m in self.members)


@dataclass
class Plan:
    offsets: dict[str, Expr]
    arena: Expr
    inplace: dict[str, str]  # buffer -> the buffer it overwrites
    reasons: dict[str, str]  # buffer -> why it got fresh memory


def plan_function(func: loop.FuncOp, *, reuse: bool = True, inplace: bool = True) -> Plan:
    az = size_analyzer(func)
    lifetimes = liveness(func)
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
                if not az.prove_le(aligned(t.size), slot.size):
                    continue
                why = inplace_conflicts(statements[t.first], source.value, t.value, params)
                if why is None:
                    inplace_of[t.name] = source.name
                    slot.members.append(t)
                    slots[t.name] = slot
                    break
                reasons[t.name] = f"in-place over {source.name} unsafe: {why}"
    unique = list({id(s): s for s in slots.values()}.values())
    if not reuse:
        offset: Expr = Const(0)
        for s in unique:
            s.offset = offset
            offset = az.simplify(offset + s.size)
        return Plan({t.name: slots[t.name].offset for t in lifetimes}, offset, inplace_of, reasons)
    if all(const_value(s.size) is not None for s in unique):
        arena = _pack_static(unique)
    else:
        arena = _pack_symbolic(unique, az, reasons)
    _explain_static(unique, reasons)
    return Plan({t.name: slots[t.name].offset for t in lifetimes}, arena, inplace_of, reasons)


def _explain_static(slots: list[Slot], reasons: dict[str, str]) -> None:
    """For each buffer on bytes no earlier buffer used, say why no dead buffer's were taken."""
    for s in slots:
        lo, size = const_value(s.offset), const_value(s.size)
        if lo is None or size is None:
            continue
        earlier = [o for o in slots if o is not s and o.last < s.first]
        reused = [
            o
            for o in earlier
            if (olo := const_value(o.offset)) is not None and lo < olo + (const_value(o.size) or 0) and olo < lo + size
        ]
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


def _pack_static(slots: list[Slot]) -> Expr:
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
        s.offset = Const(best if best is not None else cursor)
        placed.append(s)
    return Const(max(((const_value(s.offset) or 0) + (const_value(s.size) or 0) for s in slots), default=0))


def _pack_symbolic(slots: list[Slot], az: Analyzer, reasons: dict[str, str]) -> Expr:
    """Greedy by size with symbolic sizes: provably larger slots first; each takes the
    smallest region whose occupants are never live at the same time and whose size
    is proven to be enough, or a new region at the end of the arena."""
    ordered: list[Slot] = []
    for s in sorted(slots, key=lambda s: s.first):
        k = 0
        while k < len(ordered) and not _provably_larger(s, ordered[k], az):
            k += 1
        ordered.insert(k, s)
    regions: list[tuple[Expr, Expr, list[Slot]]] = []  # offset, size, occupants
    end: Expr = Const(0)
    for s in ordered:
        free = [r for r in regions if not any(o.first <= s.last and s.first <= o.last for o in r[2])]
        fitting = [r for r in free if az.prove_le(s.size, r[1])]
        if fitting:
            region = min(fitting, key=lambda r: const_value(r[1]) or 0)
            region[2].append(s)
            s.offset = region[0]
            continue
        head = s.members[0].name
        if free:
            sizes = ", ".join(str(r[1]) for r in free)
            reasons.setdefault(head, f"size {s.size} is not provably <= a free region's ({sizes})")
        elif regions:
            reasons.setdefault(head, "every region is in use during its lifetime")
        else:
            reasons.setdefault(head, "no buffer is dead yet")
        s.offset = end
        regions.append((end, s.size, [s]))
        end = az.simplify(end + s.size)
    return end


def _provably_larger(a: Slot, b: Slot, az: Analyzer) -> bool:
    return az.prove_le(b.size, a.size) and not az.prove_le(a.size, b.size)


# ---------------------------------------------------------------------------
# Rewrite
# ---------------------------------------------------------------------------

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
class StorageRewritePass(ModulePass):
    """Plan every intermediate buffer of a flat loop function into one arena."""

    name = "storage-rewrite"

    reuse: bool = True
    """Let a buffer take the memory of a dead one."""

    inplace: bool = True
    """Let a stage write its output over an input that dies there, when proven safe."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.ops if isinstance(f, loop.FuncOp)]:
            plan = plan_function(func, reuse=self.reuse, inplace=self.inplace)
            rewrite_function(func, plan)
