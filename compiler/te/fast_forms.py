"""A program's stages replaced by their fast forms (`FastForm`), the stages that read
them rebuilt to read the replacement: what `build` and `tune` compile when they
schedule a program themselves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from compiler.te.nodes import Expr, new_uid
from compiler.te.stage_graph import read_tensors
from compiler.te.tensors import Operation, Read, Tensor, collect_stages


def with_fast_forms(tensors: Sequence[Tensor]) -> list[Tensor]:
    """`tensors` (a program's arguments) with every stage that has a fast form computed by
    it. A program with a stage of another kind than a plain compute (an extern, a scan,
    a multi-output compute) is returned as it is."""
    stages = collect_stages([t for t in tensors if isinstance(t, Tensor) and not t.is_placeholder])
    if not any(t.op.fast_form is not None for t in stages) or not all(_plain(t.op) for t in stages):
        return list(tensors)
    changed = _changed(stages)
    new: dict[int, Tensor] = {}  # by the uid of the tensor it replaces
    for t in stages:
        form = t.op.fast_form
        made = None if form is None else form.make(*(new.get(i.uid, i) for i in form.inputs))
        if made is not None:
            new[t.uid] = made
        elif t.uid in changed:  # (a stage whose fast form declined: an identical copy)
            new[t.uid] = _rebuilt(t, new)
    for t in new.values():  # attached to a consumer that was rebuilt: to the copy
        if t.op.attach_to is not None and t.op.attach_to.uid in new:
            t.op.attach_to = new[t.op.attach_to.uid]
    return [new.get(t.uid, t) if isinstance(t, Tensor) else t for t in tensors]


def _changed(stages: Sequence[Tensor]) -> set[int]:
    """The uids of the stages (producers first) that are replaced or rebuilt: those with a
    fast form, those that read a changed stage, and those attached to one (the copy
    attaches to the copy of its consumer)."""
    changed: set[int] = set()
    while True:
        size = len(changed)
        for t in stages:
            attach = t.op.attach_to
            if t.op.fast_form is not None or _reads_any(t.op, changed) or (attach is not None and attach.uid in changed):
                changed.add(t.uid)
        if len(changed) == size:
            return changed


def _plain(op: Operation) -> bool:
    return type(op) is Operation and op.scan is None and op.scan_of is None and not op.outputs


def _reads_any(op: Operation, uids: set[int]) -> bool:
    return any(t.uid in uids for t in read_tensors(op))


def _rebuilt(t: Tensor, new: dict[int, Tensor]) -> Tensor:
    """A copy of the compute `t` reading the tensors in `new` in place of those they replace."""
    assert t.op.body is not None
    op = replace(t.op, body=_retarget(t.op.body, new), output_tensor=None, fast_form=None)
    tensor = replace(t, op=op, uid=new_uid())
    op.output_tensor = tensor
    return tensor


def _retarget(e: Expr, new: dict[int, Tensor]) -> Expr:
    e = e.map_children(lambda k: _retarget(k, new))
    if isinstance(e, Read) and e.tensor.uid in new:
        return replace(e, tensor=new[e.tensor.uid])
    return e
