"""The guards of lazy reads, and tightening a domain with them.

`path_conditions` finds the branch conditions around a `te.read`;
`tighten_domain` intersects a consumer's loop domain with the conjuncts that
bound one variable each. `tighten-pad-regions` records the guards and bound
inference uses them.
"""


from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Operation

from compiler.arith.expr import (
    EQ,
    LE,
    LT,
    NE,
    And,
    BoolConst,
    Cond,
    IndexConst,
    IndexExpr,
    IndexVar,
    Not,
    Or,
    free_vars,
    substitute_index,
)
from compiler.arith.int_set import IntSet, eval_set
from compiler.arith.ir import cond_from_value
from compiler.arith.simplify import Analyzer, BoundsArg, const_value
from compiler.dialects import te
from compiler.schedule.model import Stage

GUARD_ATTR = "te.guard"
UNUSED_ATTR = "te.guard_unused"


# ---------------------------------------------------------------------------
# Guards of a read: the conditions of the scf.if branches around it
# ---------------------------------------------------------------------------


def path_conditions(read: Operation, stage: Stage) -> list[Cond | str]:
    """The branch conditions that hold where `read` runs, innermost first; a string
    where a condition is not an affine comparison tree (the reason)."""
    leaf = stage.index_leaf()
    found: list[Cond | str] = []
    child: Operation = read
    parent = read.parent_op()
    while parent is not None and parent is not stage.op:
        if isinstance(parent, scf.IfOp):
            cond = cond_from_value(parent.cond, leaf)
            in_then = child.parent_region() is parent.true_region
            if cond is None:
                found.append("a condition that is not an affine comparison of loop variables")
            else:
                found.append(cond if in_then else Not(cond))
        child, parent = parent, parent.parent_op()
    return found


def where_conditions(read: Operation, stage: Stage) -> list[Cond]:
    """The `te.where` conditions that hold where `read` runs: those before it in the body
    of the reduction that holds it (a causal product's `k <= i`); the affine ones only."""
    leaf = stage.index_leaf()
    child: Operation = read
    parent = read.parent_op()
    while parent is not None and not isinstance(parent, te.ReduceOp):
        child, parent = parent, parent.parent_op()
    if parent is None:
        return []
    found: list[Cond] = []
    for op in parent.body.block.ops:
        if op is child:
            break
        if isinstance(op, te.WhereOp) and (cond := cond_from_value(op.cond, leaf)) is not None:
            found.append(cond)
    return found


def conjuncts(cond: Cond) -> list[Cond]:
    if isinstance(cond, And):
        return conjuncts(cond.a) + conjuncts(cond.b)
    if isinstance(cond, Not) and isinstance(cond.a, LT | LE):
        # not (a < b)  ==  b <= a ;  not (a <= b)  ==  b < a
        return [LE(cond.a.b, cond.a.a) if isinstance(cond.a, LT) else LT(cond.a.b, cond.a.a)]
    if isinstance(cond, Not) and isinstance(cond.a, Or):
        return conjuncts(Not(cond.a.a)) + conjuncts(Not(cond.a.b))
    return [cond]


def split_usable(conds: list[Cond | str]) -> tuple[list[Cond], list[str]]:
    usable: list[Cond] = []
    unused: list[str] = []
    for cond in conds:
        if isinstance(cond, str):
            unused.append(cond)
            continue
        for part in conjuncts(cond):
            if isinstance(part, LT | LE):
                usable.append(part)
            elif isinstance(part, BoolConst):
                continue
            else:
                unused.append(f"'{part}' is {_kind(part)}, not a conjunction of inequalities")
    return usable, unused


_KIND: dict[type[Cond], str] = {
    Or: "a disjunction",
    Not: "a negation",
    EQ: "an equality",
    NE: "a disequality",
}


def _kind(c: Cond) -> str:
    return _KIND.get(type(c), "not affine")


# ---------------------------------------------------------------------------
# Tightening a domain with guard conjuncts (used by infer-bound)
# ---------------------------------------------------------------------------


@dataclass
class Tightening:
    dom: dict[str, IntSet]
    used: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)


def _linear_in(e: IndexExpr, name: str, az: Analyzer) -> tuple[int, IndexExpr] | None:
    """(c, rest) with e == c * name + rest, c a constant; None if not linear in `name`."""
    rest = az.simplify(substitute_index(e, {name: 0}))
    coeff = az.simplify(substitute_index(e, {name: 1}) - rest)
    c = const_value(coeff)
    if c is None or const_value(az.simplify(e - (rest + IndexVar(name) * c))) != 0:
        return None
    return c, rest


def _bound_of(cond: LT | LE, var: str, az: Analyzer) -> IntSet | None:
    """The values of `var` allowed by `a < b` / `a <= b` (as `diff >= 0`)."""
    linear = _linear_in(_diff(cond, az), var, az)
    return None if linear is None else _linear_bound(*linear, az)


def _diff(cond: LT | LE, az: Analyzer) -> IndexExpr:
    """`cond` as `diff >= 0`."""
    return az.simplify(cond.b - cond.a - (1 if isinstance(cond, LT) else 0))


def _linear_bound(c: int, rest: IndexExpr, az: Analyzer) -> IntSet | None:
    """The values of v with `c * v + rest >= 0`; None when c is 0."""
    if c > 0:  # v >= ceil(-rest / c)
        return IntSet(az.simplify((IndexConst(0) - rest + (c - 1)) // c), None)
    if c < 0:  # v <= floor(rest / -c)
        return IntSet(None, az.simplify(rest // (-c)))
    return None


def tighten_domain(
    dom: Mapping[str, IntSet], guard: Sequence[Cond], bounds: BoundsArg | Analyzer, *, coupled: bool = False
) -> Tightening:
    """Intersect the sets of the variables each conjunct bounds on its own; `coupled`:
    also those a conjunct of several bounds for some values of the others (`k <= i`
    keeps k <= the largest i: the union of the reads over i)."""
    az = Analyzer.of(bounds)
    result = Tightening(dict(dom))
    ranged = {name for name, s in dom.items() if not s.is_point(az)}
    for cond in guard:
        assert isinstance(cond, LT | LE)
        involved = sorted(free_vars(cond) & ranged)
        if len(involved) > 1 and coupled:
            _tighten_coupled(cond, involved, result, az)
            continue
        if len(involved) != 1:
            if involved:
                result.unused.append(f"'{cond}' couples the loop variables {', '.join(involved)}")
            continue
        var = involved[0]
        bound = _bound_of(cond, var, az)
        if bound is None:
            result.unused.append(f"'{cond}' is not linear in {var}")
            continue
        result.dom[var] = result.dom[var].intersect(bound, az)
        result.used.append(str(cond))
    return result


def _tighten_coupled(cond: LT | LE, involved: list[str], result: Tightening, az: Analyzer) -> None:
    """Each variable of `cond` bounded by the values of the others that allow the most."""
    diff = _diff(cond, az)
    narrowed: dict[str, IntSet] = {}
    for var in involved:
        linear = _linear_in(diff, var, az)
        if linear is None:
            continue
        c, rest = linear
        others = {o: result.dom[o] for o in involved if o != var}
        best = eval_set(rest, others, az).hi  # c * var + rest >= 0 for some others
        bound = None if best is None else _linear_bound(c, best, az)
        if bound is not None:
            narrowed[var] = result.dom[var].intersect(bound, az)
    if narrowed:
        result.dom.update(narrowed)
        result.used.append(str(cond))
    else:
        result.unused.append(f"'{cond}' couples the loop variables {', '.join(involved)}")
