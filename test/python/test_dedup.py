"""lower-to-llvm's dedup (compiler/lowering/dedup.py): when two outlined bodies are one."""

from __future__ import annotations

import pytest
from xdsl.parser import Parser

from compiler.context import make_context
from compiler.dialects import loop
from compiler.lowering.dedup import Forms, structural_key

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


FORMS = Forms()  # one table for every key compared


def _key(index: str, name: str = "f") -> object:
    module = Parser(make_context(), BODY.format(name=name, index=index)).parse_module()
    func = next(op for op in module.ops if isinstance(op, loop.FuncOp))
    return structural_key(func, FORMS)


def test_a_commutative_op_matches_in_either_operand_order() -> None:
    """Index math built from names puts `i + row` in one layer and `row + i` in the next:
    the same code, one function (a 22-layer model's layers kept a function each)."""
    assert _key("arith.addi %row, %i : index") == _key("arith.addi %i, %row : index", name="g")


@pytest.mark.parametrize("other", ["arith.subi %i, %row : index", "arith.addi %row, %c4 : index"])
def test_a_different_computation_is_another_function(other: str) -> None:
    assert _key("arith.subi %row, %i : index") != _key(other)


TWO_TERMS = """
loop.func @{name}(%a: !loop.buffer<[4096], f32>, %b: !loop.buffer<[4096], f32> {{loop.output}}) {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  loop.for %o = %c0 extent %c8 {{
    loop.for %i = %c0 extent %c8 {{
      {index}
      %v = loop.load %a[%at] : !loop.buffer<[4096], f32>
      loop.store %v, %b[%at] : !loop.buffer<[4096], f32>
    }}
  }}
}}
"""


def _key_of(index: str, name: str) -> object:
    module = Parser(make_context(), TWO_TERMS.format(name=name, index=index)).parse_module()
    func = next(op for op in module.ops if isinstance(op, loop.FuncOp))
    return structural_key(func, FORMS)


def test_an_index_built_in_another_order_is_the_same_function() -> None:
    """The simplifier orders an index's terms by their loops' names, which differ from layer
    to layer: `o*48 + i*192 + 5` in one, `5 + (i*192 + o*48)` in the next, with the
    constants defined in another order. One function (a symbolic GPT-2's 12 attention
    bodies were 12 functions)."""
    first = """%c48 = arith.constant 48 : index
      %c192 = arith.constant 192 : index
      %c5 = arith.constant 5 : index
      %x = arith.muli %o, %c48 : index
      %y = arith.muli %i, %c192 : index
      %s = arith.addi %x, %y : index
      %at = arith.addi %s, %c5 : index"""
    second = """%c5 = arith.constant 5 : index
      %c192 = arith.constant 192 : index
      %y = arith.muli %c192, %i : index
      %c48 = arith.constant 48 : index
      %x = arith.muli %o, %c48 : index
      %s = arith.addi %y, %x : index
      %at = arith.addi %c5, %s : index"""
    assert _key_of(first, "f") == _key_of(second, "g")


@pytest.mark.parametrize(
    "other",
    [
        # another term
        "%x = arith.muli %o, %c48 : index\n %y = arith.muli %o, %c192 : index\n %at = arith.addi %x, %y : index",
        # a product of the terms, not a sum
        "%x = arith.muli %o, %c48 : index\n %y = arith.muli %i, %c192 : index\n %at = arith.muli %x, %y : index",
    ],
)
def test_a_different_index_is_another_function(other: str) -> None:
    constants = "%c48 = arith.constant 48 : index\n %c192 = arith.constant 192 : index\n "
    base = "%x = arith.muli %o, %c48 : index\n %y = arith.muli %i, %c192 : index\n %at = arith.addi %x, %y : index"
    assert _key_of(constants + base, "f") != _key_of(constants + other, "g")


def test_sums_under_a_no_wrap_flag_are_not_regrouped() -> None:
    """`(x + y) + z` and `x + (y + z)` are one form in wrapping arithmetic, not under `nsw`
    (where one may overflow and the other not)."""
    terms = "%x = arith.muli %o, %c48 : index\n %y = arith.muli %i, %c192 : index\n "
    constants = "%c48 = arith.constant 48 : index\n %c192 = arith.constant 192 : index\n "

    def pair(flags: str) -> tuple[object, object]:
        left = f"%s = arith.addi %x, %y{flags} : index\n %at = arith.addi %s, %o{flags} : index"
        right = f"%s = arith.addi %y, %o{flags} : index\n %at = arith.addi %x, %s{flags} : index"
        return _key_of(constants + terms + left, "f"), _key_of(constants + terms + right, "g")

    wrapping = pair("")
    assert wrapping[0] == wrapping[1]
    flagged = pair(" overflow<nsw>")
    assert flagged[0] != flagged[1]
