"""lower-to-llvm, step 0 (cleanup): no dead index arithmetic to lower.

The flat loop IR carries index arithmetic nothing reads (schedule-ops computes
every axis value; storage-flatten replaces the N-D indices that used some of
them). LLVM would remove it, but each op costs the Python lowering several op
creations first: on the seed 000 chain a fifth of the flat ops are dead. It
goes before the parallel loops are outlined, where a dead op may be all that
captures a value into the outlined body.

(The repeated constants are merged by the scalar step, scalar.py; xDSL's CSE
over the rest of the index arithmetic cost more time than it saved.)
"""

from __future__ import annotations

from xdsl.ir import Operation

from compiler.transforms.dead_code import erase_dead_arith


def drop_dead_arith(root: Operation) -> None:
    """Erase the unused `arith` ops under `root`, users first (one walk: a chain of dead
    ops goes at once)."""
    erase_dead_arith(root)
