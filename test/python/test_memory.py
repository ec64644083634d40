"""Memory planning: the numbers build() exposes, in-place and reuse decisions,
symbolic sizes, and random stage graphs whose plans must verify and compute right."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from long_tests import examples

import compiler
from compiler import ops, te
from compiler.analysis.size_proof import SizeProver, prove_nonnegative
from compiler.arith.expr import evaluate
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import Analyzer

RNG = np.random.default_rng(5)


def build(args: list[te.Tensor]) -> compiler.Function:
    """TVM's default schedule (no auto-schedule): one buffer per stage, the plans below."""
    return compiler.build(args, auto_schedule=False)


def test_conv_relu_pool_plan_meets_the_lower_bound() -> None:
    x = te.placeholder((1, 8, 8, 4), name="x")
    w = te.placeholder((3, 3, 4, 4), name="w")
    p = ops.avg_pool2d(ops.relu(ops.conv2d_nhwc(x, w, padding=1, name="conv"), name="act"), 2, 2, layout="NHWC", name="pool")
    f = build([x, w, p])
    m = f.memory
    assert m is not None
    by_name = {b.name: b for b in m.buffers}
    assert by_name["act"].inplace_of == "conv"
    assert by_name["pool_sum"].inplace_of == "act"  # the avg_pool writes into the dead activation
    assert by_name["conv"].inplace_of is None
    assert "in-place over conv_pad unsafe" in (by_name["conv"].reason or "")
    assert int(m.arena) == m.lower_bound == 2624
    assert int(m.no_reuse) == 3904
    xs, ws = RNG.standard_normal((1, 8, 8, 4)).astype(np.float32), RNG.standard_normal((3, 3, 4, 4)).astype(np.float32)
    out = np.zeros((1, 4, 4, 4), np.float32)
    f(xs, ws, out)
    xp = np.pad(xs, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = sum(np.einsum("nhwc,ck->nhwk", xp[:, r : r + 8, s : s + 8, :], ws[r, s]) for r in range(3) for s in range(3))
    act = np.maximum(conv, 0)
    expected = act.reshape(1, 4, 2, 4, 2, 4).mean(axis=(2, 4))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_symbolic_sizes_give_an_arena_expression() -> None:
    h, w = te.var("h"), te.var("w")
    x = te.placeholder((h, w), name="x")
    a = te.compute((h, w), lambda i, j: x[i, j] * 2.0, name="a")
    b = te.compute((h // 2, w // 2), lambda i, j: a[2 * i, 2 * j] + a[2 * i + 1, 2 * j + 1], name="b")
    c = te.compute((h // 2, w // 2), lambda i, j: b[i, j] * 3.0, name="c")
    d = te.compute((h // 2, w // 2), lambda i, j: c[i, j] + b[i, j], name="d")
    f = build([x, d])
    assert f.memory is not None
    arena = parse_expr(f.memory.arena)
    # b and c live together; a dies at b; c reuses a's memory, proven to fit
    assert evaluate(arena, {"h": 10, "w": 10}) < 2 * 10 * 10 * 4 + 2 * 5 * 5 * 4
    for shape in [(10, 10), (7, 9)]:
        xs = RNG.standard_normal(shape).astype(np.float32)
        out = np.zeros((shape[0] // 2, shape[1] // 2), np.float32)
        f(xs, out)
        av = xs * 2
        bv = av[0 : 2 * out.shape[0] : 2, 0 : 2 * out.shape[1] : 2] + av[1 : 2 * out.shape[0] : 2, 1 : 2 * out.shape[1] : 2]
        np.testing.assert_allclose(out, bv * 3 + bv, rtol=1e-5)


@settings(max_examples=examples(6, 15), deadline=None)
@given(
    edges=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=8),
)
def test_random_stage_graphs(edges: list[tuple[int, int]]) -> None:
    """Random DAGs of elementwise stages (each reads its predecessor and random earlier
    stages): the plan verifies (build checks it, with in-place and reuse) and the
    result equals NumPy."""
    n = 32
    A = te.placeholder((n,), name="A")
    stages: list[te.Tensor] = [A]
    refs: list[np.ndarray] = []
    a = RNG.standard_normal(n).astype(np.float32)
    refs.append(a)
    for k in range(1, 6):
        srcs = sorted({s % k for s, t in edges if t % 6 == k} | {k - 1})

        def body(i: te.Expr, srcs: list[int] = srcs) -> te.Expr:
            total = stages[srcs[0]][i] * 1.0
            for s in srcs[1:]:
                total = total + stages[s][i] * 0.5
            return total

        stages.append(te.compute((n,), body, name=f"S{k}"))
        ref = refs[srcs[0]] * 1.0
        for s in srcs[1:]:
            ref = ref + refs[s] * 0.5
        refs.append(ref.astype(np.float32))
    f = build([A, stages[-1]])
    out = np.zeros(n, np.float32)
    f(a, out)
    np.testing.assert_allclose(out, refs[-1], rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Symbolic sizes: the polynomial prover, in-place with symbolic strides
# ---------------------------------------------------------------------------

HW = {"h": (0, None), "w": (0, None), "n": (0, None)}


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [
        # the sizes of two MobileNet blocks (was a strict xfail of the interval prover)
        ("(h + 1) // 2 * ((w + 1) // 2) * 4 + (h + 1) // 2 * 2", "h * w * 2 + h * 2 + w * 2 + 4"),
        ("n * 4", "(n * 4 + 63) // 64 * 64"),  # alignment
        ("n * 4", "(n * 4 + 55) // 64 * 64 + (n * 4 + 63) // 64 * 64"),  # sizes n and n - 2
        ("h * w * 128", "(h // 2 + 1) * (w // 2 + 1) * 512"),  # seed 001: conv vs pad of the 2nd conv
        ("(h * w * 6 + h * 12 + w * 12 + 24 + 63) // 64 * 64", "(h // 2 + 1) * (w // 2 + 1) * 512"),
        ("h // 2 * (w // 2) * 512", "h * w * 128"),
    ],
)
def test_size_prover_proves(smaller: str, larger: str) -> None:
    prover = SizeProver(Analyzer(HW))
    assert prover.prove_le(parse_expr(smaller), parse_expr(larger))


@pytest.mark.parametrize(
    ("a", "b", "counterexample"),
    [
        ("h * w * 128", "h // 2 * (w // 2) * 512", {"h": 3, "w": 2}),
        ("n * 4", "(n * 4 + 55) // 64 * 64", {"n": 1}),
        ("h * w", "h * w - 1", {"h": 0, "w": 0}),
        ("h * w * 4", "h // 2 * (w // 2) * 16 + h * 2", {"h": 3, "w": 9}),
        ("(h + 1) // 2 * 2", "h", {"h": 1}),
    ],
)
def test_size_prover_rejects_false_claims(a: str, b: str, counterexample: dict[str, int]) -> None:
    """Each claim is false (the counter-example shows it): no proof may be found, with or
    without the numeric pre-check."""
    ea, eb = parse_expr(a), parse_expr(b)
    assert evaluate(ea, counterexample) > evaluate(eb, counterexample)
    assert not SizeProver(Analyzer(HW)).prove_le(ea, eb)
    assert not prove_nonnegative(eb - ea, Analyzer(HW))


def test_plan_verifier_proves_by_cases_on_empty_shapes() -> None:
    """A bound such as `-1 // s` is -1 only for s >= 1; at s = 0 the buffer of size s * 4 is
    empty. The verifier proves the two cases apart (causal attention over a symbolic
    length needed it) and still rejects a real overlap."""
    from compiler.passes.verify_memory_plan import _disjoint, _nonempty

    prover = SizeProver(Analyzer({"s": (0, None)}))
    positive = _nonempty(prover)
    first = (parse_expr("0"), parse_expr("s * 4"))
    after = (parse_expr("s * 4 + -1 // s + 1"), parse_expr("4"))
    overlapping = (parse_expr("s * 4 + -1 // s"), parse_expr("4"))
    assert not prover.prove_le(first[0] + first[1], after[0])  # not directly
    assert _disjoint(prover, first, after, positive)
    assert not _disjoint(prover, first, overlapping, positive)


def flat_plan(args: list[te.Tensor]) -> dict[str, object]:
    from compiler.analysis.memory_summary import memory_summary
    from compiler.dialects import loop

    module = compiler.lower(args, until="flat")
    plans = [memory_summary(f) for f in module.ops if isinstance(f, loop.FuncOp)]
    return {b.name: b for p in plans for b in p.buffers}


def test_symbolic_pool_writes_in_place_of_the_activation() -> None:
    """Seed 001's question with symbolic h and w: the 2x2 pool's writes (row stride
    w // 2 * 64) lag behind its reads (row stride 2 * (w // 2) * 64), proven for all
    h, w; a 3x3 convolution over its padded input still is not in place."""
    h, w = te.var("h"), te.var("w")
    x = te.placeholder((1, h, w, 8), name="x", dtype="float16")
    k = te.placeholder((3, 3, 8, 8), name="k", dtype="float16")
    act = ops.leaky_relu(ops.conv2d_nhwc(x, k, padding=1, name="conv"), name="act")
    pool = ops.avg_pool2d(act, 2, 2, layout="NHWC", name="pool")
    by_name = flat_plan([x, k, ops.relu(pool, name="out")])
    # float16 sums accumulate in float32 registers (conv_acc, pool_sum), each rounded once
    # by its stage: the pool's rounding stage is the one written over the activation
    assert "pool_sum" not in by_name
    assert "conv_acc" not in by_name
    assert by_name["pool"].inplace_of == "act"  # type: ignore[attr-defined]
    assert by_name["act"].inplace_of == "conv"  # type: ignore[attr-defined]
    assert by_name["conv"].inplace_of is None  # type: ignore[attr-defined]
    assert "symbolic strides" in (by_name["conv"].reason or "")  # type: ignore[attr-defined]


def test_symbolic_reversed_rows_are_not_in_place() -> None:
    """B[i, j] = A[h - 1 - i, j] * 2 with a symbolic row stride: writing B over A would
    overwrite rows read later, so the plan keeps them apart, and the result is right."""
    h, w = te.var("h"), te.var("w")
    x = te.placeholder((h, w), name="x")
    a = te.compute((h, w), lambda i, j: x[i, j] + 1.0, name="a")
    b = te.compute((h, w), lambda i, j: a[h - 1 - i, j] * 2.0, name="b")
    c = te.compute((h, w), lambda i, j: b[i, j] - 1.0, name="c")
    by_name = flat_plan([x, c])
    assert by_name["b"].inplace_of is None  # type: ignore[attr-defined]
    f = build([x, c])
    xs = RNG.standard_normal((5, 7)).astype(np.float32)
    out = np.zeros_like(xs)
    f(xs, out)
    np.testing.assert_allclose(out, (xs + 1.0)[::-1] * 2.0 - 1.0, rtol=1e-6)


def test_symbolic_pool_in_place_computes_right() -> None:
    h, w = te.var("h"), te.var("w")
    x = te.placeholder((1, h, w, 4), name="x")
    act = ops.relu(te.compute((1, h, w, 4), lambda n, i, j, c: x[n, i, j, c] * 2.0, name="scale"), name="act")
    f = build([x, ops.avg_pool2d(act, 2, 2, layout="NHWC", name="pool")])
    assert f.memory is not None
    assert {b.name: b for b in f.memory.buffers}["pool_sum"].inplace_of == "act"
    for size in [(8, 6), (7, 9)]:
        xs = RNG.standard_normal((1, *size, 4)).astype(np.float32)
        out = np.zeros((1, size[0] // 2, size[1] // 2, 4), np.float32)
        f(xs, out)
        a = np.maximum(xs * 2.0, 0)[:, : 2 * out.shape[1], : 2 * out.shape[2]]
        expected = a.reshape(1, out.shape[1], 2, out.shape[2], 2, 4).mean(axis=(2, 4))
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_build_memory_plot_writes_a_png(tmp_path: object) -> None:
    """`plot_memory(build(...).memory, path)` draws the plan (matplotlib optional: skipped)."""
    pytest.importorskip("matplotlib")
    from compiler.memory_plot import plot_memory

    h = te.var("h")
    x = te.placeholder((h, 16), name="x")
    a = te.compute((h, 16), lambda i, j: x[i, j] * 2.0, name="a")
    b = te.compute((h, 16), lambda i, j: a[i, j] + 1.0, name="b")
    f = build([x, te.compute((h, 16), lambda i, j: b[i, j] * a[i, j], name="c")])
    assert f.memory is not None
    path = tmp_path / "plan.png"  # type: ignore[operator]
    plot_memory(f.memory, path, dims={"h": 8})
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="give dims"):
        plot_memory(f.memory, path)


def test_the_workspace_is_kept_between_calls_grown_for_larger_shapes_and_private_to_concurrent_calls() -> None:
    """An intermediate's block stays in its allocation site's slot between calls (no
    fresh `aligned_alloc`, often an `mmap`, per call); a larger symbolic size replaces
    it; threads calling one function at once (ctypes releases the GIL) each get a block
    of their own (the slot is taken with an atomic exchange)."""
    import threading

    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[n - 1 - i] + A[i], name="C")  # B is a whole buffer
    f = compiler.build(te.create_schedule(C.op), [A, C])
    text = f.llvm_ir  # optimized: acquire and release inlined
    assert text.count("atomicrmw xchg ptr @compiler.workspace.") == 2  # take, give back
    assert "internal global i64 0" in text
    for size in (5, 3, 4000, 17):
        a = np.random.default_rng(size).standard_normal(size).astype(np.float32)
        c = np.zeros(size, np.float32)
        f(a, c)
        np.testing.assert_allclose(c, a[::-1] * 2.0 + a, rtol=1e-6)

    errors: list[str] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(200):
            size = int(rng.integers(1, 3000))
            a = rng.standard_normal(size).astype(np.float32)
            c = np.zeros(size, np.float32)
            f(a, c)
            if not np.allclose(c, a[::-1] * 2.0 + a, rtol=1e-6):
                errors.append(f"thread {seed}, size {size}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@settings(max_examples=examples(50, 300), deadline=None)
@given(spans=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 1000)), max_size=12))
def test_liveness_lower_bound_is_the_most_bytes_live_at_one_statement(spans: list[tuple[int, int, int]]) -> None:
    """The sweep over lifetimes gives what summing the buffers live at every statement
    gives (lifetimes whose first statement is after their last count nowhere)."""
    from compiler.analysis.liveness import Lifetime, liveness_lower_bound
    from compiler.arith.expr import IndexConst

    lifetimes = [Lifetime(f"b{k}", None, None, IndexConst(size), first, last)  # type: ignore[arg-type]
                 for k, (first, last, size) in enumerate(spans)]
    statements = range(max((t.last for t in lifetimes), default=-1) + 1)
    brute = max((sum(t.static_size or 0 for t in lifetimes if t.first <= k <= t.last) for k in statements), default=0)
    assert liveness_lower_bound(lifetimes) == brute
