"""SSA dominance: is every operand of an op defined before the op runs?

xDSL 0.74 verifies neither this nor MLIR's "operand does not dominate this
use" (its `xdsl.irdl.dominance.DominanceInfo` only relates the blocks of one
region), and its parser resolves forward references, so a value used before
its definition in a single-block region parses and verifies, then trips a pass
(the lowering's value maps miss it). `compiler-opt` and `compiler-run` check
every op with `undominated_operand` (`compiler.tools.compiler_opt.verify_located`).

A value defined in block B dominates a use U when, climbing from U to the
ancestor op A that lies in a block of B's region, either A is in B itself and
the definition comes before A (a block argument of B always does), or B
dominates A's block in the region's CFG (multi-block regions: `func.func`,
`llvm.func` with `cf`). A value used inside the op that defines it, or outside
the region it is defined in, is not dominated.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo


class DominanceChecker:
    """Answers "does `value` dominate `user`?", caching block positions and CFG dominance."""

    def __init__(self) -> None:
        self._positions: dict[Block, dict[Operation, int]] = {}
        self._regions: dict[Region, DominanceInfo] = {}

    def _position(self, op: Operation, block: Block) -> int:
        if block not in self._positions:
            self._positions[block] = {o: k for k, o in enumerate(block.ops)}
        return self._positions[block][op]

    def _blocks_dominate(self, region: Region, a: Block, b: Block) -> bool:
        if region not in self._regions:
            self._regions[region] = DominanceInfo(region)
        return self._regions[region].dominates(a, b)

    def dominates(self, value: SSAValue, user: Operation) -> bool:
        definer: Operation | None = None
        if isinstance(value, BlockArgument):
            def_block: Block | None = value.block
        elif isinstance(value, OpResult):
            definer = value.op
            def_block = definer.parent_block()
        else:  # the parser's placeholder of a name never defined where it is visible
            return False
        if def_block is None or def_block.parent is None:
            return False
        current: Operation | None = user
        while current is not None:
            block = current.parent_block()
            if block is None:
                return False
            if block is def_block:
                return definer is None or (
                    definer is not current
                    and self._position(definer, block) < self._position(current, block)
                )
            if block.parent is def_block.parent:
                return self._blocks_dominate(def_block.parent, def_block, block)
            current = block.parent_op()
        return False

    def undominated_operand(self, op: Operation) -> tuple[int, SSAValue] | None:
        """The first operand of `op` (its index and value) whose definition does not
        dominate `op`, or None."""
        for k, value in enumerate(op.operands):
            if not self.dominates(value, op):
                return k, value
        return None
