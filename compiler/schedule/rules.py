"""The checks of the schedule primitives and their messages, written once.

The Python API (`compiler.te.schedule`) and the replay of a `sched.schedule`
(`compiler.schedule.replay`) both call these rules with what they know of the
stage, so a primitive is valid or not, with the same message, whichever way it
is written; `prim` is the primitive as the caller shows it (`cache_write`, or
`sched.cache_write`).

A rule raises `ScheduleError`: users of the API catch it as it is; the replay
locates it at the primitive (as a `ScheduleVerifyError`, also a `ScheduleError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from compiler.errors import ScheduleError


class Named(Protocol):
    @property
    def name(self) -> str: ...


A = TypeVar("A", bound=Named)  # an axis of either side, compared by identity

ANNOTATION_KINDS = {"parallel": "parallel", "vectorize": "vectorized", "unroll": "unrolled"}
"""The loop annotations, by primitive: the kind of loop each makes."""


def check_not_extern(prim: str, stage: str, is_extern: bool) -> None:
    """A te.extern stage has no loops and is computed at the root, whole."""
    if is_extern:
        raise ScheduleError(
            f"{prim}: stage \"{stage}\" is a te.extern stage: an external function computes it over whole "
            "buffers, so it has no loops to split or reorder and can't be attached (compute_at) or inlined"
        )


def check_leaf(prim: str, stage: str, axis: str, is_leaf: bool) -> None:
    """A primitive names a loop the stage has now, not one a split or fuse replaced."""
    if not is_leaf:
        raise ScheduleError(
            f"{prim}: axis {axis} of stage \"{stage}\" was already split or fused; use the axes that replaced it"
        )


def check_annotation(prim: str, kind: str, axis: str, is_reduce: bool) -> None:
    """parallel / vectorize (not unroll) of a reduce loop would update one element at once."""
    if kind != "unroll" and is_reduce:
        how = "in parallel" if kind == "parallel" else "as vector lanes"
        raise ScheduleError(
            f"{prim}: {axis} is a reduce axis; its iterations update the same elements and can't run {how}"
        )


def fuse_position(prim: str, stage: str, leaves: Sequence[A], outer: A, inner: A) -> int:
    """The position of `outer` among the leaves, `inner` right after it."""
    position = next(k for k, iv in enumerate(leaves) if iv is outer)
    if position + 1 >= len(leaves) or leaves[position + 1] is not inner:
        raise ScheduleError(f"{prim}: {inner.name} must be the loop right inside {outer.name} in stage \"{stage}\"")
    return position


def check_distinct(prim: str, axes: Sequence[A]) -> None:
    """reorder names each axis once."""
    for k, iv in enumerate(axes):
        if any(iv is other for other in axes[:k]):
            raise ScheduleError(f"{prim} names the axis {iv.name} twice")


def check_compute_inline(prim: str, stage: str, is_reduction: bool, is_output: bool) -> None:
    if is_reduction:
        raise ScheduleError(f"{prim}: stage \"{stage}\" is a reduction and can't be inlined")
    if is_output:
        raise ScheduleError(f"{prim}: stage \"{stage}\" is a result of the function")


@dataclass
class CacheWriteFacts:
    """What cache_write's rules read of the stage, at the cache_write."""

    stage: str
    inline: bool = False
    attached: bool = False  # compute_at of the stage itself
    attached_here: list[str] = field(default_factory=list)  # stages and groups computed at its loops
    annotated: list[tuple[str, str]] = field(default_factory=list)  # (loop, its annotation)
    split_reduce: list[str] = field(default_factory=list)  # reduce axes split or fused


def check_cache_write(prim: str, facts: CacheWriteFacts) -> None:
    """TVM's cache_write rebuilds the stage: only its loop structure may come before."""
    where = f"{prim}: stage \"{facts.stage}\""
    if facts.inline:
        raise ScheduleError(f"{where} is inlined; cache its writes before compute_inline, or not at all")
    if facts.attached:
        raise ScheduleError(f"{where} is attached (compute_at); apply cache_write first, then attach it")
    if facts.attached_here:
        raise ScheduleError(
            f"{where} has stage(s) {', '.join(facts.attached_here)} computed at its loops, which cache_write "
            "replaces; attach them after the cache_write"
        )
    if facts.annotated:
        loop, annotation = facts.annotated[0]
        raise ScheduleError(
            f"{where} has its loop {loop} annotated ({annotation}); cache_write replaces the stage's loops: "
            "annotate after it"
        )
    if facts.split_reduce:
        raise ScheduleError(
            f"{where} has its reduce axis split or fused ({facts.split_reduce[0]}); the cache takes the reduce "
            "axes as declared: split them on the cache stage after the cache_write"
        )


def check_storage_align(prim: str, stage: str, axis: str, is_root_data_axis: bool, is_output: bool) -> None:
    """storage_align names a dimension of an intermediate stage's buffer."""
    if not is_root_data_axis:
        raise ScheduleError(
            f"{prim}: {axis} is not a data-parallel root axis of \"{stage}\" (it names a dimension of the "
            "stage's buffer: use a root axis, its sched.axis or .op.axis)"
        )
    if is_output:
        raise ScheduleError(
            f"{prim}: stage \"{stage}\" is a result of the function; its buffer's layout is the caller's"
        )


def check_align_values(prim: str, factor: int, offset: int) -> None:
    """The stride is padded to `stride % factor == offset` (the `sched.storage_align`
    op's verifier says the same of its attributes)."""
    if factor < 1:
        raise ScheduleError(f"{prim} needs a positive factor, got {factor}")
    if not 0 <= offset < factor:
        raise ScheduleError(f"{prim} needs 0 <= offset < factor, got offset {offset} for factor {factor}")


@dataclass
class RfactorFacts:
    """What rfactor's rules read of the stage and the factored axis."""

    stage: str
    axis: str
    is_reduce: bool
    fuses_data: bool  # the loop is connected to a data axis by fuses
    factor_axis: int
    ndata: int  # the stage's data axes
    attached_here: list[str] = field(default_factory=list)  # stages and groups computed at its loops
    reducer: str = ""
    axis_named_by_reducer: str | None = None  # an axis the reducer's identity or combiner names


def check_rfactor(prim: str, facts: RfactorFacts) -> int:
    """The factored loop is of reduce axes alone; returns where its data axis goes
    (a negative factor_axis counts from the end)."""
    stage = facts.stage
    if not facts.is_reduce:
        raise ScheduleError(
            f"{prim}: {facts.axis} is a data-parallel axis of \"{stage}\"; only a reduce axis can be factored"
        )
    if facts.fuses_data:
        raise ScheduleError(
            f"{prim}: {facts.axis} of \"{stage}\" fuses data-parallel and reduce axes; only a loop of reduce "
            "axes alone can be factored"
        )
    position = facts.factor_axis if facts.factor_axis >= 0 else facts.ndata + 1 + facts.factor_axis
    if not 0 <= position <= facts.ndata:
        raise ScheduleError(
            f"{prim}: factor_axis {facts.factor_axis} is past the {facts.ndata} data axes of \"{stage}\""
        )
    if facts.attached_here:
        raise ScheduleError(
            f"{prim}: stage(s) {', '.join(facts.attached_here)} are computed at loops of \"{stage}\", which "
            "rfactor replaces; attach them after the rfactor"
        )
    if facts.axis_named_by_reducer is not None:
        # each partial reduction would start from the identity at the factor stage's axes,
        # and the combiner merging the parts would see the stage's: neither is what it means
        raise ScheduleError(
            f"{prim}: the reducer {facts.reducer} of {stage} names its axis {facts.axis_named_by_reducer} "
            "(in its identity or combiner); rfactor of such a reduction is not supported"
        )
    return position


def check_group_cut(prim: str, inner: str, outside: Sequence[str]) -> None:
    """A new group holds every stage of a group it touches (groups nest whole)."""
    if outside:
        raise ScheduleError(
            f"{prim} cuts through group \"{inner}\": its stage(s) {', '.join(outside)} are not between the new "
            "group's inputs and outputs (a group nests whole groups only)"
        )


def check_group_reach(prim: str, inputs: Sequence[str], unreaching: Sequence[str], unread: Sequence[str]) -> None:
    """Each output of a group reads an input, and each input is read (TVM's GetSubGraph)."""
    if unreaching:
        raise ScheduleError(
            f"{prim}: output \"{unreaching[0]}\" reads none of the inputs ({', '.join(inputs)}), directly or "
            "through other stages"
        )
    if unread:
        raise ScheduleError(
            f"{prim}: input(s) {', '.join(unread)} are not read by the outputs (directly or through other "
            "stages): a group holds the stages between its inputs and outputs"
        )


def check_group_target(prim: str, group: str, target: str, target_in_group: bool) -> None:
    """A group can't be computed inside one of its own stages."""
    if target_in_group:
        raise ScheduleError(
            f"{prim}: stage \"{target}\" is in group \"{group}\", which can't be computed inside one of its "
            "own stages"
        )
