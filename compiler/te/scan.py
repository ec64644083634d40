"""`te.scan`: a recurrence over the first axis (TVM's `te.scan`)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from compiler.errors import ExprTypeError, ExprValueError
from compiler.te.nodes import Dim, dim_repr
from compiler.te.reducers import Reduce
from compiler.te.tensors import Operation, ScanParts, Tensor
from compiler.te.traversal import substitute


def _scan_list(items: Tensor | Sequence[Tensor], what: str, name: str) -> list[Tensor]:
    found = [items] if isinstance(items, Tensor) else list(items)
    if not found or not builtins.all(isinstance(t, Tensor) for t in found):
        raise ExprTypeError(f"scan {name}: {what} must be a tensor or a non-empty list of tensors, got {items!r}")
    return found


def _same_dims(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    return len(a) == len(b) and builtins.all(dim_repr(x) == dim_repr(y) for x, y in zip(a, b, strict=True))


def _check_scan_part(name: str, init: Tensor, update: Tensor, state: Tensor) -> None:
    if not state.is_placeholder or state.op.scan_of is not None:
        raise ExprValueError(f"scan {name}: the state {state.name} must be a te.placeholder of no other scan")
    if update.is_placeholder or init.is_placeholder:
        raise ExprValueError(f"scan {name}: init and update must be computed tensors (te.compute)")
    if update.op.num_outputs > 1 or update.op.scan_of is not None:
        raise ExprValueError(f"scan {name}: the update {update.name} must be a single-output compute of no other scan")
    if state.ndim == 0:
        raise ExprValueError(f"scan {name}: the state {state.name} needs a time axis (its first dimension)")
    if not _same_dims(update.shape, state.shape):
        raise ExprValueError(
            f"scan {name}: update {update.name} has shape {update.shape}, its state {state.name} {state.shape}"
        )
    if not _same_dims(init.shape[1:], state.shape[1:]) or init.ndim != state.ndim:
        raise ExprValueError(
            f"scan {name}: init {init.name} {init.shape} and state {state.name} {state.shape} must agree past "
            "the time axis"
        )
    if len({init.dtype, update.dtype, state.dtype}) != 1:
        raise ExprTypeError(
            f"scan {name}: init, update and state must have one dtype, got {init.dtype}, {update.dtype}, {state.dtype}"
        )


def _check_scan_parts(name: str, inits: list[Tensor], updates: list[Tensor], states: list[Tensor]) -> None:
    """One init, update and state per output, each agreeing, the states stepping together."""
    if not len(inits) == len(updates) == len(states):
        raise ExprValueError(
            f"scan {name}: {len(inits)} init(s), {len(updates)} update(s) and {len(states)} state(s): one of each per output"
        )
    for i, u, st in zip(inits, updates, states, strict=True):
        _check_scan_part(name, i, u, st)
    for i, u in zip(inits[1:], updates[1:], strict=True):
        if not _same_dims(i.shape[:1], inits[0].shape[:1]) or not _same_dims(u.shape, updates[0].shape):
            raise ExprValueError(
                f"scan {name}: the states step together: every init has {inits[0].name}'s first extent and every "
                f"update {updates[0].name}'s shape"
            )


def scan(
    init: Tensor | Sequence[Tensor],
    update: Tensor | Sequence[Tensor],
    state_placeholder: Tensor | Sequence[Tensor],
    inputs: Sequence[Tensor] | None = None,
    name: str = "scan",
    tag: str = "",
) -> Tensor | list[Tensor]:
    """A recurrence over the first axis (TVM's `te.scan`): for t below the inits' first
    extent, `out[t] = init[t]`; after it, `out[t] = update[t]`, where the update reads
    `state_placeholder[t - 1]` (the previous rows of `out`). Lists give several states
    stepped together (updates of one shape). The stages that read a state are computed
    inside the time loop; `inputs` (TVM's hint of the body's other inputs) is accepted
    and not needed. `s[update]` schedules the scan's stage (its first axis is the time
    loop and stays serial and outermost).

    >>> m, n = te.var("m"), te.var("n")
    >>> X = te.placeholder((m, n), name="X")
    >>> state = te.placeholder((m, n), name="state")
    >>> init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    >>> update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    >>> cumsum = te.scan(init, update, state, name="cumsum")
    >>> cumsum
    Tensor(cumsum, shape=(m, n), dtype=float32)
    """
    inits = _scan_list(init, "init", name)
    updates = _scan_list(update, "update", name)
    states = _scan_list(state_placeholder, "state_placeholder", name)
    _check_scan_parts(name, inits, updates, states)
    if inputs is not None:
        _scan_list(inputs, "inputs", name)
    axes = updates[0].op.axis
    bodies = []
    for u in updates:
        body = u.op.body
        assert body is not None
        bodies.append(substitute(body, {a.uid: b for a, b in zip(u.op.axis, axes, strict=True)}))
    if len(bodies) > 1 and builtins.any(isinstance(b, Reduce) for b in bodies):
        raise ExprValueError(f"scan {name}: an update that is a reduction steps alone (one state)")
    op = Operation(name, axes, bodies[0], bodies=tuple(bodies) if len(bodies) > 1 else (), tag=tag)
    op.scan = ScanParts(tuple(inits), tuple(updates), tuple(states))
    outputs = tuple(Tensor(st.shape, st.dtype, op, value_index=k) for k, st in enumerate(states))
    if len(outputs) > 1:
        op.outputs = outputs
    op.output_tensor = outputs[0]
    for t in (*states, *updates):
        t.op.scan_of = op
    for u, body in zip(updates, bodies, strict=True):  # every update's axes are the scan's
        u.op.axis, u.op.body = axes, body
    return outputs[0] if len(outputs) == 1 else list(outputs)
