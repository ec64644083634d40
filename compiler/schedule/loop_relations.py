"""The loop-axis relations of a stage and the passes over them (TVM's
src/te/schedule/message_passing.cc).

A stage's loops start as its root axes; each `split`, `fuse` or singleton
(`fuse()` of no axis) adds a relation between the axes it consumes and the
ones it makes. The passes here walk those relations:

* `touched`: the axes connected to one axis through splits and fuses
  (TVM's PassUpBitMaskOr and PassDownBitMaskOr);
* `pass_down_extent`: the extent of every axis from the root extents
  (PassDownDomain, without the ranges' minimums);
* `pass_up_index`: each consumed axis as an expression of the axes made
  from it, down to the leaves (PassUpIndex);
* `pass_down_index`: each made axis as an expression of the axes it came
  from, from the roots (PassDownIndex).

Both the schedule model (`compiler.schedule.model`, over its
`IterVar`s and `compiler.arith` expressions) and the Python schedule API
(`compiler.te.schedule`, over te axes and te expressions) use them, so the
passes are generic: an axis is any object hashed by identity, a value
anything with the integer operators of `IndexExpr`, and the arithmetic a
split does to an extent (a factor, or nparts) is the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, Self, TypeAlias, TypeVar

A = TypeVar("A")  # an axis; dictionaries key it by identity (its hash and `is`)
D = TypeVar("D")  # an extent


class IndexExpr(Protocol):
    """An index expression: `compiler.arith.expr.Expr` or `compiler.te.nodes.Expr`."""

    def __add__(self, other: Self | int, /) -> Self: ...
    def __radd__(self, other: int, /) -> Self: ...
    def __mul__(self, other: Self | int, /) -> Self: ...
    def __rmul__(self, other: int, /) -> Self: ...
    def __floordiv__(self, other: Self | int, /) -> Self: ...
    def __rfloordiv__(self, other: int, /) -> Self: ...
    def __mod__(self, other: Self | int, /) -> Self: ...
    def __rmod__(self, other: int, /) -> Self: ...


V = TypeVar("V", bound=IndexExpr)  # an index value


@dataclass(frozen=True, eq=False)
class Split(Generic[A]):
    """`parent` runs as `outer * (inner's extent) + inner`."""

    parent: A
    outer: A
    inner: A

    @property
    def inputs(self) -> tuple[A, ...]:
        return (self.parent,)

    @property
    def outputs(self) -> tuple[A, ...]:
        return (self.outer, self.inner)


@dataclass(frozen=True, eq=False)
class Fuse(Generic[A]):
    """`fused` runs over `outer` and `inner`: `outer * (inner's extent) + inner`."""

    outer: A
    inner: A
    fused: A

    @property
    def inputs(self) -> tuple[A, ...]:
        return (self.outer, self.inner)

    @property
    def outputs(self) -> tuple[A, ...]:
        return (self.fused,)


@dataclass(frozen=True, eq=False)
class Singleton(Generic[A]):
    """A loop of one iteration added outside the stage's loops (`fuse()` of no axis)."""

    iv: A

    @property
    def inputs(self) -> tuple[A, ...]:
        return ()

    @property
    def outputs(self) -> tuple[A, ...]:
        return (self.iv,)


Relation: TypeAlias = Split[A] | Fuse[A] | Singleton[A]
S = TypeVar("S", bound=Split[Any])  # a split with what determines its extents (a factor, nparts)


def made_axes(relations: Iterable[Relation[A]]) -> list[A]:
    """The axes the relations made (every axis that is not a root), in order."""
    return [iv for rel in relations for iv in rel.outputs]


def touched(relations: Sequence[Relation[A]], axis: A) -> set[A]:
    """The axes connected to `axis` through splits and fuses (PassUpBitMaskOr and
    PassDownBitMaskOr, to a fixed point)."""
    found = {axis}
    changed = True
    while changed:
        changed = False
        for rel in relations:
            group = [*rel.inputs, *rel.outputs]
            if any(iv in found for iv in group) and not all(iv in found for iv in group):
                found.update(group)
                changed = True
    return found


def pass_down_extent(
    relations: Iterable[S | Fuse[A] | Singleton[A]],
    extent: dict[A, D],
    split: Callable[[S, D], tuple[D, D]],
    product: Callable[[D, D], D],
    one: D,
) -> None:
    """Adds to `extent` the extent of every axis made from the axes it holds (PassDownDomain):
    `split(rel, parent extent)` gives the outer and inner extents, a fuse the `product` of
    its inputs', a singleton `one`. A relation of an axis `extent` lacks is skipped."""
    for rel in relations:
        match rel:
            case Split():
                if rel.parent in extent:
                    extent[rel.outer], extent[rel.inner] = split(rel, extent[rel.parent])
            case Fuse():
                if rel.outer in extent:
                    extent[rel.fused] = product(extent[rel.outer], extent[rel.inner])
            case Singleton():
                extent[rel.iv] = one


def pass_up_index(
    relations: Sequence[Relation[A]],
    value: dict[A, V],
    step: Mapping[A, V | int],
    base: Mapping[A, V] | None = None,
) -> None:
    """Adds to `value` (the leaves' values) each consumed axis as an expression of the axes
    made from it (PassUpIndex): a split's parent is `outer * step[inner] + inner`, a fuse's
    outer and inner are `fused // step[inner]` and `fused % step[inner]`, each plus its
    `base` (the minimum of its range) when given. A relation whose made axes `value`
    lacks is skipped."""
    for rel in reversed(relations):
        match rel:
            case Split():
                if rel.outer in value:
                    parent = value[rel.outer] * step[rel.inner] + value[rel.inner]
                    value[rel.parent] = parent if base is None else parent + base[rel.parent]
            case Fuse():
                if rel.fused in value:
                    fused, width = value[rel.fused], step[rel.inner]
                    if base is None:
                        value[rel.outer], value[rel.inner] = fused // width, fused % width
                    else:
                        value[rel.outer] = base[rel.outer] + fused // width
                        value[rel.inner] = base[rel.inner] + fused % width
            case Singleton():
                pass


def pass_down_index(
    relations: Iterable[Relation[A]],
    index: dict[A, V],
    step: Mapping[A, V | int],
    zero: V,
) -> None:
    """Adds to `index` (the roots' values) each made axis as an expression of the axes it
    came from (PassDownIndex): a split's outer and inner are `parent // step[inner]` and
    `parent % step[inner]`, a fuse's `outer * step[inner] + inner`, a singleton `zero`.
    A relation of an axis `index` lacks is skipped."""
    for rel in relations:
        match rel:
            case Split():
                if rel.parent in index:
                    parent, width = index[rel.parent], step[rel.inner]
                    index[rel.outer], index[rel.inner] = parent // width, parent % width
            case Fuse():
                if rel.outer in index:
                    index[rel.fused] = index[rel.outer] * step[rel.inner] + index[rel.inner]
            case Singleton():
                index[rel.iv] = zero


@dataclass
class Factoring(Generic[A, D]):
    """The axes an rfactor of one loop touches (TVM's Schedule::rfactor): the loop's
    connected axes, the relations among them and their extents (PassDownDomain)."""

    touched: set[A]
    relations: list[Any]  # the relations of touched axes, in order
    extent: dict[A, D]  # every touched axis
    leaves: list[A]  # the touched leaves, in loop order
    roots: list[A]  # the touched root reduce axes, in order


def factoring(
    relations: Sequence[S | Fuse[A] | Singleton[A]],
    axis: A,
    reduce_extents: Mapping[A, D],
    leaves: Sequence[A],
    split: Callable[[S, D], tuple[D, D]],
    product: Callable[[D, D], D],
    one: D,
) -> Factoring[A, D]:
    """What rfactor of loop `axis` touches, from the root reduce axes' extents (in order)
    and the stage's leaves; both the Python schedule and the IR rewrite start here."""
    found = touched(relations, axis)
    mine = [rel for rel in relations if set(rel.inputs) & found]
    extent = {iv: e for iv, e in reduce_extents.items() if iv in found}
    pass_down_extent(mine, extent, split, product, one)
    return Factoring(found, mine, extent, [iv for iv in leaves if iv in found], [iv for iv in reduce_extents if iv in found])
