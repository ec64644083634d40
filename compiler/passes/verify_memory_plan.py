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

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.analysis.liveness import Lifetime, buffer_bytes, liveness, size_analyzer
from compiler.analysis.size_proof import SizeProver
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import Expr, Max, parse_expr
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
    views = {op.buffer_name.data: op for op in walk_ops(func) if isinstance(op, loop.ViewOp)}
    lifetimes = [t for t in liveness(func) if t.name in views]
    problems: list[str] = []
    for t in lifetimes:
        view = views[t.name]
        arena = view.arena.type
        assert isinstance(arena, loop.BufferType)
        end = parse_expr(view.offset.data) + t.size
        if not _fits(prover, end, buffer_bytes(arena)):
            problems.append(f"{t.name} ends at byte {az.simplify(end)}, past the arena")
    for k, a in enumerate(lifetimes):
        for b in lifetimes[k + 1 :]:
            if not a.overlaps(b) or a.name == b.name or _inplace_pair(views, a, b):
                continue  # (two views of one name: copies of one buffer made by unroll-loops)
            a_lo, b_lo = parse_expr(views[a.name].offset.data), parse_expr(views[b.name].offset.data)
            if not (prover.prove_le(a_lo + a.size, b_lo) or prover.prove_le(b_lo + b.size, a_lo)):
                problems.append(
                    f"{a.name} (statements {a.first}-{a.last}, bytes {a_lo}..+{a.size}) and "
                    f"{b.name} (statements {b.first}-{b.last}, bytes {b_lo}..+{b.size}) are live at once "
                    "and may share bytes"
                )
    return problems


def _fits(prover: SizeProver, end: Expr, arena: Expr) -> bool:
    """`end <= arena`; an arena `max(a, b, ...)` is at least each operand."""
    if isinstance(arena, Max):
        return _fits(prover, end, arena.a) or _fits(prover, end, arena.b)
    return prover.prove_le(end, arena)


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
