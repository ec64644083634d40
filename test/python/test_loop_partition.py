"""loop-partition: results unchanged, guards gone from the hot loops.

The pass is on by default, so every other test runs through it (the property
tests with guard memory and bound checks included); here the same programs are
built with and without it and compared, and the IR shows what it removed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from long_tests import examples
from test_schedule_properties import PROGRAM_KINDS, draw_case, execute

import compiler
from compiler import ops, te
from compiler.te.tensors import collect_stages

EXAMPLES = examples(1, 3)  # per program kind: each example compiles two functions


def _build_both(make: Any) -> tuple[compiler.Function, compiler.Function]:
    """`make()` -> (schedule, args), built with and without loop-partition; without FMA
    contraction, which LLVM applies where a multiply and its add share a block, and a
    partitioned loop (no guard between them) has more such places: bit-identical
    results are a property of the partitioning only when every operation rounds."""
    s, args = make()
    on = compiler.build(s, args, fp_contract=False)
    s, args = make()
    off = compiler.build(s, args, loop_partition=False, fp_contract=False)
    return on, off


def _run(f: compiler.Function, inputs: list[np.ndarray], out_shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(out_shape, np.nan, np.float32)
    f(*inputs, out)
    return out


@pytest.mark.parametrize("kind", PROGRAM_KINDS)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_schedules_give_the_same_results_with_and_without_partitioning(kind: str, data: st.DataObject) -> None:
    case = draw_case(data, kind)
    program = case.program()

    def make() -> tuple[Any, Any]:
        namespace = execute(case.source())
        return namespace["s"], namespace["args"]

    try:
        on, off = _build_both(make)
    except (ValueError, AssertionError) as err:  # a known bug of another pass: same for both
        s, args = make()
        with pytest.raises(type(err)):
            compiler.build(s, args, loop_partition=False)
        return
    rng = np.random.default_rng(0)
    for sizes in case.sizes:
        env = dict(sizes)
        inputs = [
            rng.uniform(-1, 1, tuple(int(eval(d, {}, env)) for d in dims)).astype(np.float32)
            for _, dims in program.inputs
        ]
        results = []
        for f in (on, off):
            outs = [np.full(tuple(int(eval(d, {}, env)) for d in dims), np.nan, np.float32) for _, dims in program.outputs]
            f(*inputs, *outs)
            results.append(outs)
        for (name, _), a, b in zip(program.outputs, *results, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"output {name} at {sizes}:\n{case.source()}")


def _conv(inline_pad: bool, h: Any, w: Any, schedule: bool) -> Any:
    def make() -> tuple[Any, Any]:
        x = te.placeholder((1, 4, h, w), name="x")
        k = te.placeholder((6, 4, 3, 3), name="k")
        y = ops.conv2d_nchw(x, k, padding=1, name="y")
        s = te.create_schedule(y.op)
        if inline_pad:
            stages = {t.name: t for t in collect_stages([y])}
            s[stages["y_pad"]].compute_inline()
        if schedule:  # the bench's NCHW schedule: rows as vectors, reduction outside
            nn, ff, yy, xx = y.op.axis
            rc, ry, rx = y.op.reduce_axis
            fo, fi = s[y].split(ff, factor=4)  # 6 channels: a tail of 2
            s[y].reorder(nn, fo, yy, rc, ry, rx, fi, xx)
            s[y].unroll(fi)
            s[y].unroll(rx)
            s[y].vectorize(xx)
        return s, [x, k, y]

    return make


@pytest.mark.parametrize(
    ("inline_pad", "schedule", "symbolic"),
    [
        (True, False, False),
        pytest.param(True, True, False, marks=pytest.mark.long),  # the long run: two more forms
        (True, True, True),
        pytest.param(False, True, True, marks=pytest.mark.long),
    ],
)
def test_padded_conv_matches_torch_with_and_without_partitioning(inline_pad: bool, schedule: bool, symbolic: bool) -> None:
    torch = pytest.importorskip("torch")
    h, w = (te.var("h"), te.var("w")) if symbolic else (9, 13)
    on, off = _build_both(_conv(inline_pad, h, w, schedule))
    rng = np.random.default_rng(1)
    for size in [(9, 13), (1, 2), (3, 17)] if symbolic else [(9, 13)]:
        x = rng.standard_normal((1, 4, *size)).astype(np.float32)
        k = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
        ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(k), padding=1).numpy()
        a, b = (_run(f, [x, k], (1, 6, *size)) for f in (on, off))
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, ref, rtol=1e-4, atol=1e-4)


def _vector_loops(make: Any, *, loop_partition: bool) -> list[tuple[bool, bool, int]]:
    """(reads x, has a guard, copies LLVM makes of it) for each vectorized loop of the flat
    IR; the copies are the trip count of the enclosing loop marked {unroll_full}."""
    from xdsl.dialects import scf

    from compiler.dialects import loop
    from compiler.passes.unroll_loops import trip_count

    s, args = make()
    module = compiler.lower(s, args, until="flat", loop_partition=loop_partition)
    found = []
    for op in module.walk():
        if isinstance(op, loop.ForOp) and op.loop_kind == loop.LoopKind.VECTORIZED:
            inner = list(op.body.walk())
            reads = any(isinstance(o, loop.LoadOp) and o.buffer.name_hint == "x" for o in inner)
            copies, parent = 1, op.parent_op()
            while parent is not None:
                if isinstance(parent, loop.ForOp) and loop.UNROLL_FULL in parent.attributes:
                    copies *= trip_count(parent) or 1
                parent = parent.parent_op()
            found.append((reads, any(isinstance(o, scf.IfOp) for o in inner), copies))
    return found


def test_an_inlined_pad_leaves_the_row_loops_of_the_interior_without_guards() -> None:
    make = _conv(True, 20, 13, True)
    off = _vector_loops(make, loop_partition=False)
    on = _vector_loops(make, loop_partition=True)
    assert off
    assert all(guarded for reads, guarded, _ in off if reads)
    # interior rows (yy in [1, 19)): one guard-free vector loop per tap rx (the columns
    # [1, 13), [0, 13), [0, 12)) and part of ff.o, in an fi loop that LLVM unrolls (4 copies
    # in the main part of ff.o, 2 in its tail); only the two border rows (cold: each 1/20
    # of the rows, under loop-partition's 1/16) keep the guard
    hot = sorted(copies for reads, guarded, copies in on if reads and not guarded)
    assert hot == [2, 2, 2, 4, 4, 4]


def test_a_non_dividing_matmul_tile_gets_constant_inner_loops() -> None:
    def make() -> tuple[Any, Any]:
        A = te.placeholder((37, 29), name="A")
        B = te.placeholder((29, 45), name="B")
        C = ops.matmul(A, B, name="C")
        s = te.create_schedule(C.op)
        i, j = C.op.axis
        (k,) = C.op.reduce_axis
        io, ii = s[C].split(i, factor=8)
        jo, ji = s[C].split(j, factor=8)
        s[C].reorder(jo, io, k, ii, ji)
        s[C].unroll(ii)
        s[C].vectorize(ji)
        return s, [A, B, C]

    on, off = _build_both(make)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((37, 29)).astype(np.float32), rng.standard_normal((29, 45)).astype(np.float32)
    got, base = (_run(f, [a, b], (37, 45)) for f in (on, off))
    np.testing.assert_array_equal(got, base)
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)
    # without the pass the unrolled ii loop has the extent min(37 - io * 8, 8), which
    # unroll-loops versions (8 copies behind a test of the extent, in every io iteration);
    # with it, the main io loop's ii is 8 and the tail's 5: constants, no versions
    assert "arith.minsi" in off.flat_ir
    assert "arith.minsi" not in on.flat_ir
    assert off.flat_ir.count("loop.if") == on.flat_ir.count("loop.if") + 8


def test_the_pragma_loop_partition_0_keeps_a_loop_as_scheduled() -> None:
    def make(pragma: bool) -> tuple[Any, Any]:
        n = te.var("n")
        A = te.placeholder((n,), name="A")
        B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
        s = te.create_schedule(B.op)
        o, _ = s[B].split(B.op.axis[0], factor=8)
        if pragma:
            s[B].pragma(o, "loop_partition", 0)
        return s, [A, B]

    kept = compiler.build(*make(True))
    split = compiler.build(*make(False))
    def compute_loops(f: Any) -> int:  # the packed entry has loops of its own (the overlap check)
        return f.flat_ir.split("loop.func @main_compute", 1)[1].count("loop.for")

    assert compute_loops(kept) == 2
    assert "arith.minsi" in kept.flat_ir
    assert compute_loops(split) == 4
    x = np.arange(21, dtype=np.float32)
    for f in (kept, split):
        np.testing.assert_array_equal(_run(f, [x], (21,)), x * 2)


def test_default_pipeline_option_turns_the_pass_off() -> None:
    from compiler.pipeline import DefaultPipelinePass

    names = [p.name for p in DefaultPipelinePass(until="flat").passes()]
    assert "loop-partition" in names
    assert "loop-partition" not in [p.name for p in DefaultPipelinePass(until="flat", loop_partition=False).passes()]
    assert "loop-partition" not in [p.name for p in DefaultPipelinePass(until="loop").passes()]


def test_the_tail_block_of_a_short_split_gets_guard_free_vector_loops() -> None:
    """64 output channels in blocks of 6 (11 blocks, the last one 4 channels) and rows of
    20 in tiles of 16 (a tail of 4): the last channel block is 1/11 of the loop, more than
    loop-partition's 1/16, so it is hot and its column loop is partitioned too. Before,
    it kept the column guard in its vector loop (guarded scalar code for 1/16 of the
    conv: a 2x slower conv)."""

    def make() -> tuple[Any, Any]:
        x = te.placeholder((1, 8, 6, 20), name="x")
        k = te.placeholder((64, 8, 1, 1), name="k")
        y = ops.conv2d_nchw(x, k, name="y")
        s = te.create_schedule(y.op)
        nn, ff, yy, xx = y.op.axis
        rc, ry, rx = y.op.reduce_axis
        fo, fi = s[y].split(ff, factor=6)
        xo, xi = s[y].split(xx, factor=16)
        s[y].reorder(nn, fo, yy, xo, rc, ry, rx, fi, xi)
        s[y].unroll(fi)
        s[y].vectorize(xi)
        return s, [x, k, y]

    loops = _vector_loops(make, loop_partition=True)
    reading = [(guarded, copies) for reads, guarded, copies in loops if reads]
    # main blocks: 6 channels x (a 16-wide tile, the 4-wide tail); last block: 4 channels x the same
    assert sorted(reading) == [(False, 4), (False, 4), (False, 6), (False, 6)]
    on, off = _build_both(make)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 8, 6, 20)).astype(np.float32)
    k = rng.standard_normal((64, 8, 1, 1)).astype(np.float32)
    a, b = (_run(f, [x, k], (1, 64, 6, 20)) for f in (on, off))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a, np.einsum("nchw,fc->nfhw", x, k[:, :, 0, 0]), rtol=1e-4, atol=1e-4)


def test_nests_of_the_same_form_share_their_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A network's repeated layers ask loop-partition the same questions with other loop
    counters: the prover renames the counters by depth and answers each form once. Two
    stages of one form cost no more questions than one, and each gets its own counters
    back (the result is right at every size, tails included)."""
    from compiler.passes import loop_partition

    asked: list[str] = []
    shared = loop_partition.Prover.shared

    def counting(self: Any, kind: str, levels: Any, args: Any, compute: Any) -> Any:
        def compute_and_count() -> Any:
            asked.append(kind)
            return compute()

        return shared(self, kind, levels, args, compute_and_count)

    monkeypatch.setattr(loop_partition.Prover, "shared", counting)

    def build(stages: int) -> Any:
        n = te.var("n", lower=1, upper=4096)
        tensors = [te.placeholder((n, 20), name="A")]
        for k in range(stages):
            prev = tensors[-1]
            tensors.append(te.compute((n, 20), lambda i, j, p=prev, k=k: p[i, j] * 2.0 + k, name=f"B{k}"))
        s = te.create_schedule(tensors[-1].op)
        for t in tensors[1:]:
            i, j = t.op.axis
            io, ii = s[t].split(i, factor=8)
            jo, ji = s[t].split(j, factor=16)
            s[t].reorder(io, jo, ii, ji)
            s[t].vectorize(ji)
        asked.clear()
        f = compiler.build(s, [tensors[0], tensors[-1]])
        return f, len(asked)

    one, asked_for_one = build(1)
    two, asked_for_two = build(2)
    assert asked_for_one > 0
    assert asked_for_two == asked_for_one
    for rows in (1, 7, 8, 21):
        x = np.arange(rows * 20, dtype=np.float32).reshape(rows, 20)
        np.testing.assert_array_equal(_run(two, [x], (rows, 20)), (x * 2.0) * 2.0 + 1.0)
        np.testing.assert_array_equal(_run(one, [x], (rows, 20)), x * 2.0)


def test_a_shared_answer_names_the_counters_of_the_nest_that_asks() -> None:
    from compiler.analysis.partition_prover import Level, Prover
    from compiler.analysis.value_names import ValueNames
    from compiler.arith import IndexConst, IndexVar

    prover = Prover(ValueNames(), {})

    def simplify_in(prefix: str) -> tuple[object, int]:
        inner, outer = IndexVar(f"{prefix}_in"), IndexVar(f"{prefix}_out")
        levels = [Level(inner.name, IndexConst(0), IndexConst(7)), Level(outer.name, IndexConst(0), IndexConst(99))]
        e = (outer * 8 + inner) // 8 + inner // 8
        computed: list[int] = []

        def compute() -> object:
            computed.append(1)
            return prover.analyzer(levels).simplify(e)

        return prover.shared("simplify", levels, (e,), compute), len(computed)

    assert simplify_in("a") == (IndexVar("a_out"), 1)
    assert simplify_in("b") == (IndexVar("b_out"), 0)  # the first answer, in b's names
