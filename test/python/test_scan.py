"""te.scan: recurrences over a time axis (TVM's ScanOp), run against NumPy.

The scan, its state and its init share one buffer; the stages that read the state
are computed inside the time loop (by default, or where the schedule attaches them
inside it); the time loop starts after the init's rows and stays serial.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from long_tests import examples
from references import assert_guard_unchanged, guarded_array

import compiler
from compiler import te


def _cumsum(m: te.Dim, n: te.Dim) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    return X, update, te.scan(init, update, state, name="cumsum")


@pytest.mark.parametrize("shape", [(5, 3), (1, 4), (9, 17)])
def test_cumulative_sum_over_rows_with_symbolic_shapes(shape: tuple[int, int]) -> None:
    m, n = te.var("m"), te.var("n")
    X, _, res = _cumsum(m, n)
    f = compiler.build(te.create_schedule(res.op), [X, res], check_bounds=True)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    out = np.full(shape, np.nan, np.float32)
    f(x, out)
    np.testing.assert_allclose(out, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-5)


def test_the_time_loop_starts_after_the_init_rows_and_reads_the_scan_buffer() -> None:
    X, _, res = _cumsum(6, 4)
    ir = str(compiler.lower(te.create_schedule(res.op), [X, res], until="loop"))
    assert "loop.alloc" not in ir  # init, state and scan are the output buffer
    time = ir.index("loop.for %cumsum_t")
    assert ", %cumsum[" in ir[ir.index("loop.for %init_i") : time]  # the init writes the scan's buffer
    assert "loop.load %cumsum[" in ir[time:]  # the state is the scan's previous row
    explained = compiler.lower(te.create_schedule(res.op), [X, res], until="te")
    assert 'te.state "cumsum"[0] init %init' in str(explained)


def test_two_init_rows_and_a_recurrence_of_order_two() -> None:
    """Fibonacci along the rows: the init writes rows 0 and 1, the steps start at 2."""
    n = te.var("n")
    A = te.placeholder((2, n), name="A")
    fib = te.placeholder((10, n), name="fib")
    init = te.compute((2, n), lambda r, i: A[r, i], name="init")
    update = te.compute((10, n), lambda t, i: fib[t - 1, i] + fib[t - 2, i], name="update")
    res = te.scan(init, update, fib, name="fibs")
    a = np.array([[0, 1, 2], [1, 1, 3]], np.float32)
    out = np.zeros((10, 3), np.float32)
    compiler.build(te.create_schedule(res.op), [A, res], check_bounds=True)(a, out)
    expected = np.zeros((10, 3), np.float32)
    expected[:2] = a
    for t in range(2, 10):
        expected[t] = expected[t - 1] + expected[t - 2]
    np.testing.assert_array_equal(out, expected)


def test_two_states_step_together() -> None:
    """(a, b) <- (b, a + b): each update reads both states."""
    m = te.var("m")
    a0 = te.placeholder((1, 2), name="a0")
    sa, sb = te.placeholder((m, 2), name="sa"), te.placeholder((m, 2), name="sb")
    ia = te.compute((1, 2), lambda _, i: a0[0, i], name="ia")
    ib = te.compute((1, 2), lambda _, i: a0[0, i] + 1.0, name="ib")
    ua = te.compute((m, 2), lambda t, i: sb[t - 1, i], name="ua")
    ub = te.compute((m, 2), lambda t, i: sa[t - 1, i] + sb[t - 1, i], name="ub")
    ra, rb = te.scan([ia, ib], [ua, ub], [sa, sb], name="pair")
    s = te.create_schedule(ra.op)
    assert s[ub] is s[ua]  # one stage steps both states
    s[ub].split(ub.op.axis[1], factor=1)  # the second update's axes are the scan's
    f = compiler.build(s, [a0, ra, rb], check_bounds=True)
    x = np.array([[1.0, 5.0]], np.float32)
    oa, ob = np.zeros((6, 2), np.float32), np.zeros((6, 2), np.float32)
    f(x, oa, ob)
    ea, eb = [x[0].copy()], [x[0] + 1.0]
    for _ in range(5):
        ea, eb = [*ea, eb[-1]], [*eb, ea[-1] + eb[-1]]
    np.testing.assert_allclose(oa, np.array(ea))
    np.testing.assert_allclose(ob, np.array(eb))


def _rnn(m: te.Dim, n: te.Dim) -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    """h[t] = tanh(h[t - 1] @ W + X[t]): a reduction inside the time loop; the last
    state, doubled, is the result (the scan is an intermediate)."""
    X = te.placeholder((m, n), name="X")
    W = te.placeholder((n, n), name="W")
    h = te.placeholder((m, n), name="h")
    h0 = te.compute((1, n), lambda _, i: X[0, i], name="h0")
    k = te.reduce_axis((0, n), "k")
    mv = te.compute((m, n), lambda t, i: te.sum(h[t - 1, k] * W[k, i], axis=k), name="mv")
    update = te.compute((m, n), lambda t, i: te.tanh(mv[t, i] + X[t, i]), name="update")
    rnn = te.scan(h0, update, h, name="rnn")
    out = te.compute((n,), lambda i: rnn[m - 1, i] * 2.0, name="out")
    return X, W, mv, out


def _rnn_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    h = x[0]
    for t in range(1, len(x)):
        h = np.tanh(h @ w + x[t])
    return h * 2.0


@pytest.mark.parametrize("scheduled", ["default", "auto"])
def test_an_rnn_cell_with_a_reduction_in_the_time_loop(scheduled: str) -> None:
    m, n = te.var("m"), te.var("n")
    X, W, _, out = _rnn(m, n)
    if scheduled == "auto":  # the auto-scheduler keeps the scan's stages as placed
        f = compiler.build([X, W, out], check_bounds=True)
    else:
        f = compiler.build(te.create_schedule(out.op), [X, W, out], check_bounds=True)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((7, 12)).astype(np.float32)
    w = (rng.standard_normal((12, 12)) * 0.3).astype(np.float32)
    o = np.zeros(12, np.float32)
    f(x, w, o)
    np.testing.assert_allclose(o, _rnn_reference(x, w), rtol=1e-4, atol=1e-5)
    ir = str(compiler.lower(te.create_schedule(out.op), [X, W, out], until="loop"))
    assert 'loop.alloc "mv" [%rnn_t, %' in ir  # one row per step
    assert '!loop.buffer<[1, "n"], f32>' in ir
    assert 'loop.alloc "rnn" [' in ir  # an intermediate scan: its whole buffer


def test_the_update_is_scheduled_through_its_tensor() -> None:
    """`s[update]` is the scan's stage: split and vectorize its row, compute a cache of
    X inside it (TVM's test_bound_scan with a vectorized inner loop)."""
    m, n = te.var("m"), te.var("n")
    X, update, res = _cumsum(m, n)
    s = te.create_schedule(res.op)
    XL = s.cache_read(X, "local", update)
    xo, xi = s[update].split(update.op.axis[1], factor=8)
    s[update].vectorize(xi)
    s[XL].compute_at(s[update], xo)
    f = compiler.build(s, [X, res], check_bounds=True)
    x = np.random.default_rng(2).standard_normal((6, 21)).astype(np.float32)
    out = np.zeros_like(x)
    f(x, out)
    np.testing.assert_allclose(out, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-5)


def _decay() -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    """out[t] = 0.5 * out[t - 1] + X[t], through a stage "prev" that reads the state."""
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    prev = te.compute((m, n), lambda t, i: state[t - 1, i] * 0.5, name="prev")
    update = te.compute((m, n), lambda t, i: prev[t, i] + X[t, i], name="update")
    return X, init, prev, update, te.scan(init, update, state, name="decay")


def test_a_body_stage_can_be_inlined_or_attached_inside_the_step() -> None:
    X, _, prev, update, res = _decay()
    x = np.random.default_rng(3).standard_normal((5, 9)).astype(np.float32)
    expected = x.copy()
    for t in range(1, 5):
        expected[t] = expected[t - 1] * 0.5 + x[t]
    for how in ("inline", "attached"):
        s = te.create_schedule(res.op)
        if how == "inline":
            s[prev].compute_inline()
        else:
            xo, _ = s[update].split(update.op.axis[1], factor=4)
            s[prev].compute_at(s[update], xo)
        out = np.zeros_like(x)
        compiler.build(s, [X, res], check_bounds=True)(x, out)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_schedules_that_break_the_time_order_are_rejected() -> None:
    m, n = te.var("m"), te.var("n")
    X, update, res = _cumsum(m, n)
    s = te.create_schedule(res.op)
    s[update].split(update.op.axis[0], factor=2)
    with pytest.raises(ValueError, match='scan "cumsum": its time axis cumsum_t must stay its outermost loop'):
        compiler.build(s, [X, res])
    s = te.create_schedule(res.op)
    s[update].reorder(update.op.axis[1], update.op.axis[0])
    with pytest.raises(ValueError, match="must stay its outermost loop"):
        compiler.build(s, [X, res])
    s = te.create_schedule(res.op)
    s[update].parallel(update.op.axis[0])
    with pytest.raises(ValueError, match="runs in order; it can't be parallel"):
        compiler.build(s, [X, res])


def test_a_stage_reading_the_state_outside_the_time_loop_is_rejected() -> None:
    X, init, prev, _, res = _decay()
    out = te.compute(res.shape, lambda t, i: res[t, i] + 1.0, name="out")
    s = te.create_schedule(out.op)
    s[prev].compute_at(s[out], out.op.axis[0])
    with pytest.raises(ValueError, match=r'stage "prev" reads the state of scan "decay", so it must be computed inside'):
        compiler.build(s, [X, out])
    s = te.create_schedule(out.op)
    s[init].compute_inline()
    with pytest.raises(ValueError, match='stage "init" is the init of scan "decay"'):
        compiler.build(s, [X, out])


def test_scan_arguments_are_checked() -> None:
    m, n = te.var("m"), te.var("n")
    X, _, res = _cumsum(m, n)
    state = te.placeholder((m, n), name="state2")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    wide = te.compute((2, n + 1), lambda _, i: X[0, 0], name="wide")
    upd = te.compute((m, n), lambda t, i: state[t - 1, i], name="upd")
    with pytest.raises(ValueError, match="must agree past the time axis"):
        te.scan(wide, upd, state)
    with pytest.raises(ValueError, match="one of each per output"):
        te.scan([init, init], upd, state)
    with pytest.raises(ValueError, match="must be a te\\.placeholder of no other scan"):
        te.scan(init, upd, init)
    assert res.op.scan is not None
    old_state = res.op.scan.states[0]
    with pytest.raises(ValueError, match=r"is the state of a te\.scan"):
        compiler.build([old_state, X, res])
    with pytest.raises(ValueError, match="is the state of a scan: it has no stage"):
        te.create_schedule(res.op)[old_state]


# ---------------------------------------------------------------------------
# Random scans under random schedules, bound-checked, outputs in guard memory
# ---------------------------------------------------------------------------
SCAN_EXAMPLES = examples(5, 20)
GUARD = 256


@st.composite
def scan_cases(draw: st.DrawFn) -> dict[str, object]:
    return {
        "m": draw(st.integers(1, 7), label="m"),
        "n": draw(st.integers(1, 19), label="n"),
        "rows": draw(st.integers(1, 3), label="init rows"),
        "symbolic": draw(st.booleans(), label="symbolic"),
        "body": draw(st.sampled_from(["inline", "default", "at inner loop", "at split outer"]), label="body stage"),
        "split": draw(
            st.one_of(
                st.none(),
                st.tuples(st.sampled_from(["factor", "nparts"]), st.integers(1, 24)),
            ),
            label="split of the row axis",
        ),
        "annotate": draw(st.sampled_from(["", "vectorize", "unroll", "parallel"]), label="inner loop"),
        "cache": draw(st.booleans(), label="cache_read of X at the row loop"),
    }


def _build_case(case: dict[str, object]) -> tuple[compiler.Function, int, int, int]:
    m_val, n_val, rows = int(case["m"]), int(case["n"]), int(case["rows"])  # type: ignore[call-overload]
    m_val = max(m_val, rows)
    m: te.Dim = te.var("m") if case["symbolic"] else m_val
    n: te.Dim = te.var("n") if case["symbolic"] else n_val
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((rows, n), lambda r, i: X[r, i] * 2.0, name="init")
    # reads the previous row at i and its neighbour: a region one wider than the row loop
    prev = te.compute(
        (m, n), lambda t, i: state[t - 1, i] * 0.5 + state[t - 1, te.min(i + 1, n - 1)] * 0.25, name="prev"
    )
    update = te.compute((m, n), lambda t, i: prev[t, i] + X[t, i], name="update")
    res = te.scan(init, update, state, name="scan")
    s = te.create_schedule(res.op)
    inner = update.op.axis[1]
    outer = update.op.axis[0]
    split = case["split"]
    if split is not None:
        how, value = split  # type: ignore[misc]
        outer, inner = s[update].split(inner, **{how: value})
    if case["annotate"] == "vectorize":
        s[update].vectorize(inner)
    elif case["annotate"] == "unroll":
        s[update].unroll(inner)
    elif case["annotate"] == "parallel" and split is not None:
        s[update].parallel(outer)
    body = case["body"]
    if body == "inline":
        s[prev].compute_inline()
    elif body == "at inner loop":
        s[prev].compute_at(s[update], inner)
    elif body == "at split outer":
        s[prev].compute_at(s[update], outer)
    if case["cache"]:
        XL = s.cache_read(X, "local", update)
        s[XL].compute_at(s[update], outer)
    return compiler.build(s, [X, res], check_bounds=True), m_val, n_val, rows


def _scan_reference(x: np.ndarray, rows: int) -> np.ndarray:
    out = np.zeros_like(x)
    out[:rows] = x[:rows] * 2.0
    n = x.shape[1]
    for t in range(rows, len(x)):
        shifted = out[t - 1, np.minimum(np.arange(n) + 1, n - 1)]
        out[t] = out[t - 1] * 0.5 + shifted * 0.25 + x[t]
    return out


@settings(max_examples=SCAN_EXAMPLES, deadline=None)
@given(scan_cases())
def test_random_scans_under_random_schedules(case: dict[str, object]) -> None:
    f, m, n, rows = _build_case(case)
    values = np.random.default_rng(m * 31 + n).standard_normal((m, n)).astype(np.float32)
    _, x = guarded_array((m, n), GUARD, np.nan, values)  # a read past X shows as NaN
    whole, out = guarded_array((m, n), GUARD)
    f(x, out)
    assert_guard_unchanged(whole, GUARD)
    np.testing.assert_allclose(out, _scan_reference(x, rows), rtol=1e-4, atol=1e-5)
