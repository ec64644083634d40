"""Which injective stages are inlined into their consumers: the one policy of the
auto-scheduler (`plan_function`) and of `compiler.torch`'s fusion schedule.

A stage's code lands where its consumers are computed: in a consumer that has a
buffer, or, through consumers that are inlined too, in the stage that computes
them (its home). A stage is inlined when:

* it only moves elements (its element is one read: a view, transpose, slice),
  which costs index arithmetic wherever it lands, unless it lands in a reduction
  and is guarded (a lazy if: a pad, whose guard would run in the reduction's
  innermost loop) or transposes its last axis (the keys of q @ k^T: the
  reduction's vector lanes would read a stride apart);
* otherwise, when it lands in no reduction: computed inside one, an element is
  computed again for every read of it (a conv reads each input element R * S * K
  times; ResNet-50's residual chain, inlined into the next convs, ran many times
  its cost; GPT-2's GELU, read through a view by the next matmul, was computed
  again for every column panel of it). Without recomputation (`recompute=False`,
  the importer's fusion, which runs without a cost model) it must also have one
  consumer that computes each of its elements once.

Reductions and pinned stages (results, stages something is computed at, stages a
`te.extern` reads whole) keep a buffer. Decisions already made (the user's
schedule, or the importer's when the auto-scheduler extends it) are given, not
taken; a stage that moves elements but has a stage decided inlined into it
computes that stage's element, so it no longer counts as a move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Producer:
    """What the inlining policy reads of a stage."""

    name: str
    consumers: Mapping[str, int]  # the stages that read it, with how many reads each has of it
    reduction: bool = False
    moves_only: bool = False  # its element is one read (index arithmetic aside)
    guarded: bool = False  # its body holds a lazy if (a pad, a stencil's edge)
    transposes_last: bool = False  # a move whose last axis indexes another dimension than the last
    pinned: bool = False  # keeps a buffer whatever its consumers


def inlined_stages(
    stages: Sequence[Producer], *, recompute: bool, decided: Mapping[str, bool] | None = None
) -> list[str]:
    """The names of `stages` (producers first) that the policy inlines, producers first;
    `decided`: stages already inlined (True) or kept (False), which it does not choose."""
    decided = decided or {}
    stages = _with_inlined_work(stages, decided)
    by_name = {p.name: p for p in stages}
    homes: dict[str, frozenset[str]] = {}  # where a stage's elements are computed
    evaluations: dict[str, int] = {}  # how often per element of its home (one consumer)
    chosen: list[str] = []
    for p in reversed(stages):
        inline = decided.get(p.name)
        if inline is None:
            inline = _inlines(p, by_name, homes, evaluations, recompute)
            if inline:
                chosen.append(p.name)
        if inline:
            homes[p.name] = frozenset().union(*(homes.get(c, {c}) for c in p.consumers))
            evaluations[p.name] = sum(n * evaluations.get(c, 1) for c, n in p.consumers.items())
        else:
            homes[p.name], evaluations[p.name] = frozenset({p.name}), 1
    return list(reversed(chosen))


def transposes_last(last_axis_in: Sequence[bool]) -> bool:
    """Whether a move transposes its last axis, given for each index of its one read
    whether that index uses the move's last axis: the last axis indexes another
    dimension than the last (a transpose; not a view, which keeps it last, nor a
    broadcast, which uses it nowhere)."""
    return bool(last_axis_in) and not last_axis_in[-1] and any(last_axis_in[:-1])


def _with_inlined_work(stages: Sequence[Producer], decided: Mapping[str, bool]) -> list[Producer]:
    """`stages` (producers first), a move that computes a stage decided inlined into it
    (directly or through other moves) marked as not moving only: inlined in turn, it
    would recompute that stage at each of its consumers (a residual add inlined into its
    view, the view into the layer norms and the next add: a chain through every layer)."""
    computes: dict[str, bool] = {}  # its element is more than a read
    producers: dict[str, list[str]] = {}
    for p in stages:
        for c in p.consumers:
            producers.setdefault(c, []).append(p.name)
    out = []
    for p in stages:
        computes[p.name] = not p.moves_only or any(
            decided.get(q) and computes.get(q, True) for q in producers.get(p.name, [])
        )
        out.append(replace(p, moves_only=False) if p.moves_only and computes[p.name] else p)
    return out


def _inlines(
    p: Producer,
    by_name: Mapping[str, Producer],
    homes: Mapping[str, frozenset[str]],
    evaluations: Mapping[str, int],
    recompute: bool,
) -> bool:
    if p.pinned or p.reduction or (not recompute and len(p.consumers) != 1):
        return False
    lands = {h for c in p.consumers for h in homes.get(c, {c})}
    in_reduction = any(h in by_name and by_name[h].reduction for h in lands)
    if p.moves_only and not ((p.guarded or p.transposes_last) and in_reduction):
        return True
    if in_reduction:
        return False
    return recompute or sum(n * evaluations.get(c, 1) for c, n in p.consumers.items()) == 1
