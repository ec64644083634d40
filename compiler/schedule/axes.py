"""The axes of a stage in the schedule model: its iteration variables and the
relations that splits, fuses and singletons make between them (the relation
types and their passes are in `compiler.schedule.loop_relations`; a split here
also carries what sizes its inner loop)."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.arith.expr import IndexConst, IndexExpr, emax
from compiler.schedule import loop_relations


@dataclass(eq=False)
class IterVar:
    name: str
    stage: str
    is_reduce: bool = False
    root_index: int | None = None
    kind: str = "serial"
    pragmas: list[str] = field(default_factory=list)
    mixed: bool = False  # a reduce loop that also runs over data axes (a fuse of both kinds)

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=False)
class Split(loop_relations.Split[IterVar]):
    """A split of the model, with what determines its inner extent."""

    factor: int | None
    nparts: int | None
    disable_predication: bool = False
    factor_expr: IndexExpr | None = None  # a symbolic factor (`sched.split ... by "s"`)

    def inner_extent(self, extent: IndexExpr) -> IndexExpr:
        """The inner loop's extent for the parent's extent: the factor (a symbolic one
        at least 1: a split by 0 is read as a split by 1), or ceil(extent / nparts), at
        least 1 (an empty symbolic extent still divides by it)."""
        if self.factor is not None:
            return IndexConst(self.factor)
        if self.factor_expr is not None:
            return emax(self.factor_expr, 1)
        nparts = self.nparts or 1
        return emax((extent + nparts - 1) // nparts, 1)


Fuse = loop_relations.Fuse
Singleton = loop_relations.Singleton
Relation = Split | loop_relations.Fuse[IterVar] | loop_relations.Singleton[IterVar]
