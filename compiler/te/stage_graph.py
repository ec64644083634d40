"""What the Python schedule reads of the tensor graph: the tensors an op reads, the
stages between a group's inputs and outputs (TVM's GetSubGraph), and a stage's loop
relations among the primitives recorded so far."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compiler.errors import ScheduleError, ScheduleTypeError
from compiler.schedule import rules
from compiler.te import language as T
from compiler.te.primitives import CacheWrite, Fuse, Primitive, Rfactor, Singleton, Split


def tensor_list(items: T.Tensor | Sequence[T.Tensor], what: str) -> list[T.Tensor]:
    found = [items] if isinstance(items, T.Tensor) else list(items)
    if not found:
        raise ScheduleError(f"create_group: no {what} given")
    for t in found:
        if not isinstance(t, T.Tensor):
            raise ScheduleTypeError(f"create_group: the {what} are tensors, got {t!r}")
    return [t.op.output(0) if t.op.outputs else t for t in found]


def subgraph(op_of: Callable[[T.Tensor], T.Operation], outputs: list[T.Tensor], inputs: list[T.Tensor], include: bool) -> list[T.Tensor]:
    """The computed tensors on a path from an output down to an input (TVM's GetSubGraph)."""
    boundary = {t.uid for t in inputs}
    reaches: dict[int, bool] = {}
    order: list[T.Tensor] = []

    def visit(t: T.Tensor) -> bool:
        if t.uid in reaches:
            return reaches[t.uid]
        if t.uid in boundary:
            reaches[t.uid] = True
            if include and not t.is_placeholder:
                order.append(t)
            return True
        reaches[t.uid] = False
        if t.is_placeholder:
            return False
        found = [visit(r.op.output(0) if r.op.outputs else r) for r in read_tensors(op_of(t))]
        reaches[t.uid] = any(found)
        if reaches[t.uid]:
            order.append(t)
        return reaches[t.uid]

    unreaching = [t.name for t in outputs if not visit(t)]
    unread = [t.name for t in inputs if not reaches.get(t.uid)]
    rules.check_group_reach("create_group", [t.name for t in inputs], unreaching, unread)
    return order


def read_tensors(op: T.Operation) -> list[T.Tensor]:
    found: list[T.Tensor] = []
    for body in op.all_bodies():
        for node in T.walk(body):
            if isinstance(node, T.Read) and all(node.tensor is not t for t in found):
                found.append(node.tensor)
    return found


def reads(op: T.Operation, tensor: T.Tensor) -> bool:
    return any(isinstance(n, T.Read) and n.tensor is tensor for body in op.all_bodies() for n in T.walk(body))


def relations_of(primitives: Sequence[Primitive], tensor: T.Tensor) -> list[Split | Fuse | Singleton]:
    """The loop-axis relations of a stage since its op last changed (cache_write, rfactor)."""
    found: list[Split | Fuse | Singleton] = []
    for p in primitives:
        if isinstance(p, CacheWrite | Rfactor) and p.stage is tensor:
            found = []
        elif isinstance(p, Split | Fuse | Singleton) and p.stage is tensor:
            found.append(p)
    return found
