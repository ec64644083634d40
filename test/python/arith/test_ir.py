"""Tests for compiler.arith.ir: reading arith SSA trees and emitting expressions."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, i1, i32
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Block, Operation, Region, SSAValue

from compiler.arith.expr import (
    Add,
    Cond,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Mul,
    Sub,
    evaluate,
    evaluate_cond,
)
from compiler.arith.ir import emit_cond, emit_expr, expr_from_value
from compiler.arith.parse import parse_cond, parse_expr
from compiler.arith.simplify import simplify

IDX = IndexType()
P = parse_expr


@register_impls
class _MinMaxFunctions(InterpreterFunctions):
    """xDSL's interpreter has no minsi/maxsi; add them for the tests."""

    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter: Interpreter, op: arith.MinSIOp, args: PythonValues):
        return (min(args),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter: Interpreter, op: arith.MaxSIOp, args: PythonValues):
        return (max(args),)


class _Builder:
    """Appends ops to a block with index-typed arguments named by ``names``."""

    def __init__(self, names: tuple[str, ...], types: tuple = ()) -> None:
        self.block = Block(arg_types=types or [IDX] * len(names))
        self.by_name = dict(zip(names, self.block.args, strict=True))
        self.by_value = {v: n for n, v in self.by_name.items()}

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def const(self, v: int, ty: IndexType | IntegerType = IDX) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(v, ty)))

    def leaf(self, value: SSAValue) -> IndexExpr | None:
        name = self.by_value.get(value)
        return None if name is None else IndexVar(name)

    def run(self, results: list[SSAValue], env: dict[str, int]) -> tuple:
        """Return ``results``, wrap the block in a func and interpret it."""
        self.block.add_op(func.ReturnOp(*results))
        arg_types = [a.type for a in self.block.args]
        ftype = (arg_types, [r.type for r in results])
        module = ModuleOp([func.FuncOp("f", ftype, Region(self.block))])
        module.verify()
        interp = Interpreter(module)
        for fns in (ArithFunctions(), FuncFunctions(), _MinMaxFunctions()):
            interp.register_implementations(fns)
        return interp.call_op("f", tuple(env[n] for n in self.by_name))


# -- expr_from_value ------------------------------------------------------------------


def test_expr_from_value_basic_ops() -> None:
    b = _Builder(("i", "j", "n"))
    i, j, n = b.by_name["i"], b.by_name["j"], b.by_name["n"]
    c8 = b.const(8)
    lin = b.add(arith.AddiOp(b.add(arith.MuliOp(i, c8)), j))
    mn = b.add(arith.MinSIOp(b.add(arith.SubiOp(n, lin)), c8))
    mx = b.add(arith.MaxSIOp(mn, b.const(0)))
    fd = b.add(arith.FloorDivSIOp(mx, b.const(2)))
    assert str(expr_from_value(lin, b.leaf)) == "i * 8 + j"
    assert str(expr_from_value(fd, b.leaf)) == "max(min(n - (i * 8 + j), 8), 0) // 2"
    assert str(expr_from_value(i, b.leaf)) == "i"
    assert expr_from_value(c8, lambda v: None) == IndexConst(8)


def test_expr_from_value_casts_and_integer_constants() -> None:
    b = _Builder(("n", "i"), (i32, IDX))
    n32 = b.by_name["n"]
    n = b.add(arith.IndexCastOp(n32, IDX))
    c = b.add(arith.IndexCastOp(b.const(3, i32), IDX))
    s = b.add(arith.AddiOp(b.add(arith.MuliOp(n, c)), b.by_name["i"]))
    assert str(expr_from_value(s, b.leaf)) == "n * 3 + i"
    assert expr_from_value(b.const(-5), b.leaf) == IndexConst(-5)


def test_expr_from_value_unknown_leaf() -> None:
    b = _Builder(("i", "j"))
    s = b.add(arith.AddiOp(b.by_name["i"], b.by_name["j"]))
    only_i = {b.by_name["i"]: IndexVar("i")}
    assert expr_from_value(s, lambda v: only_i.get(v)) is None
    # unknown ops are leaves too
    cmp = b.add(arith.CmpiOp(b.by_name["i"], b.by_name["j"], "slt"))
    seen: list[SSAValue] = []

    def leaf(v: SSAValue) -> IndexExpr | None:
        seen.append(v)
        return IndexVar("c") if v is cmp else b.leaf(v)

    assert expr_from_value(cmp, leaf) == IndexVar("c")
    assert seen == [cmp]


def test_expr_from_value_divsi_remsi() -> None:
    b = _Builder(("i", "j"))
    i, j = b.by_name["i"], b.by_name["j"]
    c4 = b.const(4)
    div = b.add(arith.DivSIOp(i, c4))
    rem = b.add(arith.RemSIOp(i, c4))
    nat = {"i": (0, None)}
    assert str(expr_from_value(div, b.leaf, nat)) == "i // 4"
    assert str(expr_from_value(rem, b.leaf, nat)) == "i % 4"
    # without bounds: exact truncating encoding, which simplifies under bounds
    e_div = expr_from_value(div, b.leaf)
    e_rem = expr_from_value(rem, b.leaf)
    assert e_div is not None
    assert e_rem is not None
    assert str(simplify(e_div, nat)) == "i // 4"
    assert str(simplify(e_rem, nat)) == "i % 4"
    for v in range(-9, 10):
        assert evaluate(e_div, {"i": v}) == int(v / 4)
        assert evaluate(e_rem, {"i": v}) == v - 4 * int(v / 4)
    # non-constant divisor of unknown sign: a leaf
    assert expr_from_value(b.add(arith.DivSIOp(i, j)), b.leaf) is None
    named = expr_from_value(b.add(arith.DivSIOp(i, j)), lambda v: b.leaf(v) or IndexVar("q"))
    assert named == IndexVar("q")
    # provably positive divisor and non-negative dividend
    pos = {"i": (0, None), "j": (1, None)}
    assert str(expr_from_value(b.add(arith.DivSIOp(i, j)), b.leaf, pos)) == "i // j"
    assert str(expr_from_value(b.add(arith.RemUIOp(i, j)), b.leaf, pos)) == "i % j"
    assert expr_from_value(b.add(arith.DivUIOp(i, c4)), b.leaf) is None
    assert str(expr_from_value(b.add(arith.CeilDivSIOp(i, c4)), b.leaf)) == "-(-i // 4)"


@settings(max_examples=60, deadline=None)
@given(st.integers(-40, 40), st.sampled_from([-7, -3, -1, 1, 2, 5, 8]))
def test_divsi_remsi_match_interpreter(x: int, c: int) -> None:
    b = _Builder(("x",))
    cst = b.const(c)
    div = b.add(arith.DivSIOp(b.by_name["x"], cst))
    rem = b.add(arith.RemSIOp(b.by_name["x"], cst))
    e_div = expr_from_value(div, b.leaf)
    e_rem = expr_from_value(rem, b.leaf)
    assert e_div is not None
    assert e_rem is not None
    out = b.run([div, rem], {"x": x})
    assert evaluate(e_div, {"x": x}) == out[0]
    assert evaluate(e_rem, {"x": x}) == out[1]


# -- emission ----------------------------------------------------------------------------------


def _emit_and_run(
    e: IndexExpr, env: dict[str, int], names: tuple[str, ...] = ("i", "j", "n")
) -> tuple[int, _Builder, SSAValue]:
    b = _Builder(names)
    result = emit_expr(e, b.block.add_op, b.by_name.__getitem__)
    value = b.run([result], env)[0]
    return value, b, result


def test_emit_ops_and_reuse() -> None:
    e = P("(i * 8 + j) % 3 + (i * 8 + j) // 3")
    b = _Builder(("i", "j"))
    emit_expr(e, b.block.add_op, b.by_name.__getitem__)
    names = [op.name for op in b.block.ops]
    assert names == [
        "arith.constant",  # 8
        "arith.muli",
        "arith.addi",  # i * 8 + j, emitted once
        "arith.constant",  # 3
        "arith.floordivsi",  # shared by % and //
        "arith.muli",
        "arith.subi",
        "arith.addi",
    ]
    assert all(isinstance(op.results[0].type, IndexType) for op in b.block.ops)


def test_emit_shared_cache_and_casts() -> None:
    b = _Builder(("n", "i"), (i32, IDX))
    cache: dict = {}
    v1 = emit_expr(P("n + i"), b.block.add_op, b.by_name.__getitem__, cache)
    count = len(b.block.ops)
    v2 = emit_expr(P("n + i"), b.block.add_op, b.by_name.__getitem__, cache)
    assert v1 is v2
    assert len(b.block.ops) == count
    assert next(iter(b.block.ops)).name == "arith.index_cast"
    assert b.run([v1], {"n": 4, "i": 5}) == (9,)


def test_emit_values_negative_operands() -> None:
    e = P("min(i % 3, j % -4) + max(i // -2, j // 5) - n * 2")
    for iv in range(-6, 7, 3):
        for jv in range(-7, 8, 5):
            env = {"i": iv, "j": jv, "n": 3}
            assert _emit_and_run(e, env)[0] == evaluate(e, env)


def test_emit_cond() -> None:
    c = parse_cond("0 <= i and i < n or not (j == 3 or i != j) or False")
    b = _Builder(("i", "j", "n"))
    result = emit_cond(c, b.block.add_op, b.by_name.__getitem__)
    assert result.type == i1
    preds = [op.predicate.value.data for op in b.block.ops if isinstance(op, arith.CmpiOp)]
    assert preds == [3, 2, 0, 1]  # sle, slt, eq, ne
    env = {"i": 2, "j": 2, "n": 1}
    out = b.run([result], env)[0]
    assert bool(out) == evaluate_cond(c, env)


# -- properties --------------------------------------------------------------------------------

VARS = ("i", "j", "n")
_leaves = st.one_of(st.integers(-9, 9).map(IndexConst), st.sampled_from(VARS).map(IndexVar))
_nonzero = st.integers(-9, 9).filter(bool).map(IndexConst)


def _extend(children: st.SearchStrategy[IndexExpr]) -> st.SearchStrategy[IndexExpr]:
    binary = st.tuples(st.sampled_from([Add, Sub, Mul, Min, Max]), children, children)
    division = st.tuples(st.sampled_from([FloorDiv, FloorMod]), children, _nonzero)
    return (binary | division).map(lambda t: t[0](t[1], t[2]))


exprs = st.recursive(_leaves, _extend, max_leaves=8)
envs = st.fixed_dictionaries({name: st.integers(-20, 20) for name in VARS})
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(exprs, envs)
def test_emit_matches_evaluate(e: IndexExpr, env: dict[str, int]) -> None:
    value, b, result = _emit_and_run(e, env)
    assert value == evaluate(e, env)
    # reading the emitted IR back gives an equal expression
    back = expr_from_value(result, b.leaf)
    assert back is not None
    assert evaluate(back, env) == value


@SETTINGS
@given(exprs, exprs, envs, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
def test_emit_cond_matches_evaluate(a: IndexExpr, b: IndexExpr, env: dict[str, int], op: str) -> None:
    c: Cond = parse_cond(f"{a} {op} {b} and not {b} == 1 or {a} < 0")
    builder = _Builder(VARS)
    result = emit_cond(c, builder.block.add_op, builder.by_name.__getitem__)
    assert bool(builder.run([result], env)[0]) == evaluate_cond(c, env)
