"""verify-memory-plan: no two buffers live at the same time share bytes.

After `storage-rewrite`, every intermediate buffer is a `loop.view` of the
arena at a byte offset. For every pair whose lifetimes overlap, their byte
ranges must be disjoint (proven for symbolic sizes: offsets are sums of sizes, sizes
products of shape variables and their floor divisions, so the proofs are polynomial,
compiler.analysis.size_proof, which is also told what the arguments' extents imply:
each is >= 0 at every call), except an in-place pair
(`inplace "x"`), which `storage-rewrite` proved safe. Every view must also fit
inside the arena.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.analysis.liveness import Lifetime, buffer_bytes, liveness, size_analyzer
from compiler.analysis.size_proof import SizeProver
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexConst, IndexExpr, IndexVar, Max, free_vars, substitute_index
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import Analyzer, const_value
from compiler.diagnostics import MemoryPlanPassError
from compiler.dialects import loop
from compiler.passes import LoopFunctionPass


def check_function(func: loop.FuncOp) -> list[str]:
    """The violations of the plan of one function (empty when it is sound)."""
    extents = [
        parse_expr(d)
        for t in func.function_type.inputs.data
        if isinstance(t, loop.BufferType)
        for d in t.get_shape()
        if isinstance(d, str)
    ]
    prover = SizeProver(size_analyzer(func, argument_shapes=True), opaque_minmax=True, facts=extents)
    az = prover.az
    positive = _nonempty(prover)
    views = {op.buffer_name.data: op for op in walk_ops(func) if isinstance(op, loop.ViewOp)}
    lifetimes = [t for t in liveness(func) if t.name in views]
    problems: list[str] = []
    # each offset parsed, and each arena's size simplified, once (a symbolic arena's size
    # is a max of every plan's end: thousands of characters)
    offsets = {name: parse_expr(view.offset.data) for name, view in views.items()}
    arena_bytes: dict[loop.BufferType, IndexExpr] = {}
    for t in lifetimes:
        view = views[t.name]
        arena = view.arena.type
        assert isinstance(arena, loop.BufferType)
        end = offsets[t.name] + t.size
        if arena not in arena_bytes:
            arena_bytes[arena] = buffer_bytes(arena)
        if not _fits(prover, end, arena_bytes[arena], positive) and not _fits_when_nonempty(
            prover, positive, t.size, end, arena_bytes[arena]
        ):
            problems.append(f"{t.name} ends at byte {az.simplify(end)}, past the arena")
    for k, a in enumerate(lifetimes):
        for b in lifetimes[k + 1 :]:
            if not a.overlaps(b) or a.name == b.name or _inplace_pair(views, a, b):
                continue  # (two views of one name: copies of one buffer made by unroll-loops)
            a_lo, b_lo = offsets[a.name], offsets[b.name]
            if not _disjoint(prover, (a_lo, a.size), (b_lo, b.size), positive):
                problems.append(
                    f"{a.name} (statements {a.first}-{a.last}, bytes {a_lo}..+{a.size}) and "
                    f"{b.name} (statements {b.first}-{b.last}, bytes {b_lo}..+{b.size}) are live at once "
                    "and may share bytes"
                )
    return problems


def _disjoint(prover: SizeProver, a: tuple[IndexExpr, IndexExpr], b: tuple[IndexExpr, IndexExpr], positive: SizeProver) -> bool:
    """The byte ranges `a` and `b` ((offset, size)) share no byte for any sizes: one ends
    before the other starts, or (for a shape variable at 0) one of them is empty."""
    def apart(p: SizeProver, x: tuple[IndexExpr, IndexExpr], y: tuple[IndexExpr, IndexExpr]) -> bool:
        return p.prove_le(x[0] + x[1], y[0]) or p.prove_le(y[0] + y[1], x[0])

    def empty_or_apart(at_zero: list[IndexExpr]) -> bool:
        sizes = (at_zero[1], at_zero[3])
        return any(const_value(n) == 0 for n in sizes) or apart(prover, (at_zero[0], at_zero[1]), (at_zero[2], at_zero[3]))

    return _by_cases(prover, positive, [*a, *b], lambda p, e: apart(p, (e[0], e[1]), (e[2], e[3])), empty_or_apart)


def _by_cases(
    prover: SizeProver,
    positive: SizeProver,
    exprs: list[IndexExpr],
    claim: Callable[[SizeProver, list[IndexExpr]], bool],
    at_zero: Callable[[list[IndexExpr]], bool],
) -> bool:
    """`claim` about `exprs` for every size: proven directly, else by cases: every shape
    variable at least 1 (`positive`), or some variable 0 (`at_zero` of the expressions
    with it substituted; the others still >= 0). A split's tail bound such as
    `max(.., s - 1)` or `-1 // ((s + 3) // 4)` only simplifies for s >= 1."""
    if claim(prover, exprs):
        return True
    if not claim(positive, exprs):
        return False
    names = sorted(n for e in exprs for n in free_vars(e) if _may_be_zero(prover, n))
    return all(at_zero([prover.az.simplify(substitute_index(e, {n: 0})) for e in exprs]) for n in dict.fromkeys(names))


def _nonempty(prover: SizeProver) -> SizeProver:
    """`prover` for the case where no shape variable is 0: each one's lower bound raised
    to 1, its other facts kept."""
    bounds = {n: (IndexConst(1) if _may_be_zero(prover, n) else lo, hi) for n, (lo, hi) in prover.az.bounds.items()}
    return SizeProver(Analyzer(bounds), opaque_minmax=prover.opaque_minmax, facts=prover.facts)


def _may_be_zero(prover: SizeProver, name: str) -> bool:
    """A shape variable whose bounds allow 0 (not one that an argument's extent `v - c`
    keeps at c or more)."""
    return name in prover.az.bounds and not prover.az.prove_ge(IndexVar(name), 1)


def _fits(prover: SizeProver, end: IndexExpr, arena: IndexExpr, positive: SizeProver) -> bool:
    """`end <= arena` (by cases, as `_disjoint`); an arena `max(a, b, ...)` is at least
    each operand."""
    if isinstance(arena, Max):
        return _fits(prover, end, arena.a, positive) or _fits(prover, end, arena.b, positive)
    return _by_cases(
        prover, positive, [end, arena], lambda p, e: p.prove_le(e[0], e[1]), lambda e: prover.prove_le(e[0], e[1])
    )


def _fits_when_nonempty(prover: SizeProver, positive: SizeProver, size: IndexExpr, end: IndexExpr, arena: IndexExpr) -> bool:
    """`_fits` for a buffer with a byte (`size >= 1` a fact): an empty one occupies none. A
    view of `m - 2` floats ends at `(m - 2) * 4` past its offset, before its start for
    m < 2, where its slot `(m * 4 + 55) // 64 * 64` is 0: true, but no bound of the
    rounding proves it for those m (a random schedule's symbolic plan, rejected as unsound)."""

    def nonempty(p: SizeProver) -> SizeProver:
        return SizeProver(p.az, opaque_minmax=p.opaque_minmax, facts=[*p.facts, size - 1])

    return _fits(nonempty(prover), end, arena, nonempty(positive))


def _inplace_pair(views: dict[str, loop.ViewOp], a: Lifetime, b: Lifetime) -> bool:
    def of(x: Lifetime) -> str | None:
        inplace = views[x.name].inplace
        return None if inplace is None else inplace.data

    return of(b) == a.name or of(a) == b.name


@dataclass(frozen=True)
class VerifyMemoryPlanPass(LoopFunctionPass):
    """Check that buffers live at the same time never overlap in the arena."""

    name = "verify-memory-plan"

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        problems = check_function(func)
        if problems:
            raise MemoryPlanPassError(f"verify-memory-plan: @{func.sym_name.data}: " + "; ".join(problems), func)
