"""lower-to-llvm's dedup (compiler/lowering/dedup.py): when two outlined bodies are one."""

from __future__ import annotations

import pytest
from xdsl.parser import Parser

from compiler.context import make_context
from compiler.dialects import loop
from compiler.lowering.dedup import structural_key

BODY = """
loop.func @{name}(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {{loop.output}}) {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  loop.for %o = %c0 extent %c8 {{
    loop.for %i = %c0 extent %c8 {{
      %row = arith.muli %o, %c8 : index
      %at = {index}
      %v = loop.load %a[%at] : !loop.buffer<[64], f32>
      loop.store %v, %b[%at] : !loop.buffer<[64], f32>
    }}
  }}
}}
"""


def _key(index: str, name: str = "f") -> object:
    module = Parser(make_context(), BODY.format(name=name, index=index)).parse_module()
    func = next(op for op in module.ops if isinstance(op, loop.FuncOp))
    return structural_key(func)


def test_a_commutative_op_matches_in_either_operand_order() -> None:
    """Index math built from names puts `i + row` in one layer and `row + i` in the next:
    the same code, one function (a 22-layer model's layers kept a function each)."""
    assert _key("arith.addi %row, %i : index") == _key("arith.addi %i, %row : index", name="g")


@pytest.mark.parametrize("other", ["arith.subi %i, %row : index", "arith.addi %row, %c4 : index"])
def test_a_different_computation_is_another_function(other: str) -> None:
    assert _key("arith.subi %row, %i : index") != _key(other)
