"""Memory planning: the numbers build() exposes, in-place and reuse decisions,
symbolic sizes, and random stage graphs whose plans must verify and compute right."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import compiler
from compiler import ops, te
from compiler.arith.expr import evaluate, parse_expr

RNG = np.random.default_rng(5)


def test_conv_relu_pool_plan_meets_the_lower_bound() -> None:
    x = te.placeholder((1, 8, 8, 4), name="x")
    w = te.placeholder((3, 3, 4, 4), name="w")
    p = ops.avg_pool2d(ops.relu(ops.conv2d_nhwc(x, w, padding=1, name="conv"), name="act"), 2, 2, layout="NHWC", name="pool")
    f = compiler.build([x, w, p])
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
    f = compiler.build([x, d])
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


@settings(max_examples=15, deadline=None)
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
    f = compiler.build([A, stages[-1]])
    out = np.zeros(n, np.float32)
    f(a, out)
    np.testing.assert_allclose(out, refs[-1], rtol=1e-5, atol=1e-5)
