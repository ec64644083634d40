"""Nested groups of stages (TVM's group stages): the chain of groups holding one,
and the innermost group holding several. The schedule model's `Group` and the
Python schedule API's `Group` both nest through `parent`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, Self, TypeVar


class Nested(Protocol):
    @property
    def parent(self) -> Self | None: ...


G = TypeVar("G", bound=Nested)


def group_chain(group: G | None) -> list[G]:
    """The group and the groups that hold it, innermost first."""
    chain: list[G] = []
    while group is not None:
        chain.append(group)
        group = group.parent
    return chain


def common_group(groups: Sequence[G | None]) -> G | None:
    """The innermost group holding all of `groups` (None: the schedule's root)."""
    if not groups:
        return None
    common = group_chain(groups[0])
    for group in groups[1:]:
        chain = group_chain(group)
        common = [g for g in common if g in chain]
    return common[0] if common else None
