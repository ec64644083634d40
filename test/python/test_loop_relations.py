"""The loop-axis relation passes (compiler.schedule.loop_relations) on plain ints:
random splits and fuses of a few root axes; the points of the leaves' iteration
space whose every axis stays inside its extent (the others are guarded) reach each
root point once, and PassDownIndex inverts PassUpIndex there."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.schedule import loop_relations as lr


class Axis:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


def _split(rel: lr.Split[Axis], extent: int) -> tuple[int, int]:
    factor = FACTORS[rel]
    return -(-extent // factor), factor


FACTORS: dict[lr.Split[Axis], int] = {}


@st.composite
def schedules(draw: st.DrawFn) -> tuple[list[Axis], dict[Axis, int], list[Axis], list[lr.Relation[Axis]]]:
    roots = [Axis(f"r{k}") for k in range(draw(st.integers(1, 2)))]
    extent = {iv: draw(st.sampled_from([1, 2, 4, 6])) for iv in roots}
    leaves = list(roots)
    relations: list[lr.Relation[Axis]] = []
    for _ in range(draw(st.integers(0, 3))):
        if len(leaves) > 1 and draw(st.booleans()):
            k = draw(st.integers(0, len(leaves) - 2))
            outer, inner = leaves[k], leaves[k + 1]
            fused = Axis(f"{outer}.{inner}.f")
            relations.append(lr.Fuse(outer, inner, fused))
            leaves[k : k + 2] = [fused]
        else:
            k = draw(st.integers(0, len(leaves) - 1))
            parent = leaves[k]
            rel = lr.Split(parent, Axis(f"{parent}.o"), Axis(f"{parent}.i"))
            FACTORS[rel] = draw(st.sampled_from([1, 2, 3]))
            relations.append(rel)
            leaves[k : k + 1] = [rel.outer, rel.inner]
    return roots, extent, leaves, relations


@settings(max_examples=60, deadline=None)
@given(schedules())
def test_up_and_down_index_are_inverse(case: tuple[list[Axis], dict[Axis, int], list[Axis], list[lr.Relation[Axis]]]) -> None:
    roots, root_extent, leaves, relations = case
    extent = dict(root_extent)
    lr.pass_down_extent(relations, extent, _split, lambda a, b: a * b, 1)
    assert set(lr.made_axes(relations)) | set(roots) == set(extent)
    reached: list[tuple[int, ...]] = []
    for point in itertools.product(*(range(extent[iv]) for iv in leaves)):
        value: dict[Axis, int] = dict(zip(leaves, point, strict=True))
        lr.pass_up_index(relations, value, extent)
        root_point = tuple(value[iv] for iv in roots)
        if all(value[iv] < extent[iv] for iv in value):  # else a split that does not divide guards it
            reached.append(root_point)
            index: dict[Axis, int] = dict(zip(roots, root_point, strict=True))
            lr.pass_down_index(relations, index, extent, 0)
            assert [index[iv] for iv in leaves] == list(point)
    every = list(itertools.product(*(range(root_extent[iv]) for iv in roots)))
    assert sorted(reached) == every


def test_touched_follows_splits_and_fuses() -> None:
    a, b, c = Axis("a"), Axis("b"), Axis("c")
    s = lr.Split(a, Axis("a.o"), Axis("a.i"))
    f = lr.Fuse(s.inner, b, Axis("f"))
    relations: list[lr.Relation[Axis]] = [s, f, lr.Singleton(Axis("one"))]
    assert lr.touched(relations, b) == {a, b, s.outer, s.inner, f.fused}
    assert lr.touched(relations, c) == {c}
