"""A fast walk over the ops of the IR, for the passes and lower-to-llvm.

xDSL's `Operation.walk` nests a generator per region, block and op; a list built with
one explicit stack visits the same ops in the same order about 5x as fast (a dozen
walks of the seed 000 chain's functions). The list is a snapshot: the caller may
change the IR while going through it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, Region


def walk_ops(root: Operation | Region, *, reverse: bool = False) -> list[Operation]:
    """Every op under `root` (an op: itself first), in the order of `root.walk()`
    (`root.walk(reverse=True)` with `reverse`: an op still before the ops inside it, but
    regions, blocks and ops in reverse order)."""
    found: list[Operation] = []
    stack: list[Operation] = []
    if isinstance(root, Operation):
        stack.append(root)
    else:
        _push_ops(stack, (root,), reverse)
    while stack:
        op = stack.pop()
        found.append(op)
        if op.regions:
            _push_ops(stack, op.regions, reverse)
    return found


def _push_ops(stack: list[Operation], regions: Sequence[Region], reverse: bool) -> None:
    """Push the ops of `regions` so that the first one (the last with `reverse`) is popped first."""
    for region in regions if reverse else reversed(regions):
        for block in region.blocks if reverse else reversed(region.blocks):
            op = block.first_op if reverse else block.last_op
            while op is not None:
                stack.append(op)
                op = op.next_op if reverse else op.prev_op
