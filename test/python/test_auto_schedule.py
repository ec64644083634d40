"""The automatic scheduler (`auto-schedule`, `build()` without a schedule).

* properties: the random programs of test_schedule_properties (elementwise
  chains, matmul-like reductions, padded strided convs, two consumers, guarded
  stencils; static and symbolic sizes) built without a schedule, and with a
  random partial schedule that the auto-scheduler extends, keep their results
  and stay in bounds (check_bounds, guard memory around every argument);
* the choices on known shapes, for a pinned target (AVX2-like: 8 floats,
  16 registers, 2 cores): the register tile, the reduce loops outside it, the
  parallel loop, inlined producers, pads kept, partial schedules kept;
* the host target (vector width from the CPU features, caches, cores).
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from long_tests import examples
from references import assert_guard_intact, guarded_empty
from test_schedule_properties import PROGRAM_KINDS, SETTINGS, Case, check, draw_case, program_cases

import compiler
from compiler import ops, te
from compiler.analysis.target import Target, host_target
from compiler.auto_schedule import StageInfo, plan_function
from compiler.auto_schedule.cost import StagePlan, worth_parallel
from compiler.context import make_context
from compiler.passes.auto_schedule import AutoSchedulePass
from compiler.schedule.model import schedule_of
from compiler.te.to_ir import build_module

AVX2 = Target(vector_bits=256, registers=16, l1_bytes=32 * 1024, l2_bytes=512 * 1024, cores=2, cpu="test")


@pytest.mark.parametrize("kind", PROGRAM_KINDS)
@SETTINGS
@given(data=st.data())
def test_auto_scheduled_programs_keep_results_and_bounds(kind: str, data: st.DataObject) -> None:
    case = data.draw(program_cases(kind), label="program")
    check(Case(case.kind, case.params, case.symbolic, case.sizes, [], auto_schedule=True))


@pytest.mark.parametrize("kind", PROGRAM_KINDS)
@SETTINGS
@given(data=st.data())
def test_partial_schedules_extended_keep_results_and_bounds(kind: str, data: st.DataObject) -> None:
    case = draw_case(data, kind)
    case.auto_schedule = True
    check(case)


def sched_text(tensors: list[te.Tensor], schedule: te.Schedule | None = None, **options: object) -> str:
    module, _ = build_module(tensors, "main", schedule)
    options = {"vector_bits": 256, "registers": 16, "cores": 2, "l1_bytes": 32 * 1024, "l2_bytes": 512 * 1024, **options}
    AutoSchedulePass(**options).apply(make_context(), module)  # type: ignore[arg-type]
    return str(schedule_of(module, module.ops.first))  # type: ignore[arg-type]


def test_matmul_register_tile_reduce_outside_parallel_columns() -> None:
    A, B = te.placeholder((512, 512), name="A"), te.placeholder((512, 512), name="B")
    text = sched_text([A, B, ops.matmul(A, B, name="C")])
    # 4 rows x 3 vectors of 8 (12 accumulators, 7 loads per 12 FMAs; the last column
    # tile 8 wide), the column panel (k x 24 floats = 48 KiB) within a quarter of L2, so
    # k is not blocked (each block would reload and store the accumulators), and packed
    # per column tile
    assert "sched.split %C_i by 4" in text
    assert "sched.split %C_j by 24" in text
    assert "sched.split %C_k" not in text
    assert "sched.reorder %C_j_o, %C_i_o, %C_k, %C_i_i, %C_j_i" in text
    assert "sched.unroll %C_i_i" in text
    assert "sched.vectorize %C_j_i" in text
    assert "sched.parallel %C_j_o" in text
    assert 'sched.cache_read "B", "global" readers ["C"]' in text
    assert 'sched.compute_at "B.global", %C_j_o' in text


def test_matmul_long_reduction_blocked_to_a_quarter_of_l2() -> None:
    A, B = te.placeholder((256, 4096), name="A"), te.placeholder((4096, 256), name="B")
    text = sched_text([A, B, ops.matmul(A, B, name="C")])
    # 4096 x 24 floats = 384 KiB: blocked by the longest divisor of k within 128 KiB
    assert "sched.split %C_k by 1024" in text
    assert 'sched.compute_at "B.global", %C_k_o' in text
    # a smaller L2 gives a shorter block
    assert "sched.split %C_k by 512" in sched_text([A, B, ops.matmul(A, B, name="C")], l2_bytes=256 * 1024)


def test_matmul_1000_tile_with_tails() -> None:
    A, B = te.placeholder((1000, 1000), name="A"), te.placeholder((1000, 1000), name="B")
    text = sched_text([A, B, ops.matmul(A, B, name="C")])
    # 1000 = 8 * 125, but an 8 x 8 tile (one vector a row) ran 1.6x slower than 4 x 24 at
    # 512: the wide tile is kept, loop-partition peels the 16-column tail; k not blocked
    # (1000 x 24 floats: 94 KiB, within a quarter of L2)
    assert "sched.split %C_j by 24" in text
    assert "sched.split %C_i by 4" in text
    assert "sched.split %C_k" not in text
    assert 'sched.compute_at "B.global", %C_j_o' in text


@pytest.mark.parametrize("n", [1000, 517])
def test_auto_scheduled_matmul_with_tails_and_packed_panel_is_exact(n: int) -> None:
    """The packed, tail-peeled kernel against NumPy, the output guarded on both sides
    (the panel copy and the peeled tails write nothing outside)."""
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    C = ops.matmul(A, B, name="C")
    f = compiler.build([A, B, C], tuning_log=os.devnull, check_bounds=False)
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    guarded = np.full(n * n + 64, np.nan, np.float32)
    c = guarded[32 : 32 + n * n].reshape(n, n)
    f(a, b, c)
    assert np.isnan(guarded[:32]).all()
    assert np.isnan(guarded[-32:]).all()
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_linear_symbolic_in_batch_and_length_unrolls_the_length() -> None:
    """Rows of (batch, length), both symbolic: the tile's rows come from the length, a
    constant stride apart, so a batch of one still fills the tile (unrolling the batch
    ran one-row tiles at batch 1: a symbolic BERT 3-4x slower than a static one)."""
    batch, seq = te.var("batch"), te.var("seq")
    X, W = te.placeholder((batch, seq, 64), name="X"), te.placeholder((64, 96), name="W")
    k = te.reduce_axis((0, 64), name="k")
    Y = te.compute((batch, seq, 96), lambda b, t, j: te.sum(X[b, t, k] * W[k, j], axis=k), name="Y")
    text = sched_text([X, W, Y])
    assert "sched.split %Y_t by 4" in text
    assert "sched.unroll %Y_t_i" in text
    assert "sched.vectorize %Y_j_i" in text
    assert "%Y_b_o" not in text


def test_conv_pad_kept_channels_unrolled_rows_vectorized_in_its_relu_tile() -> None:
    x = te.placeholder((1, 64, 56, 56), name="x")
    w = te.placeholder((64, 64, 3, 3), name="w")
    y = ops.conv2d_nchw(x, w, padding=1, name="y")
    out = ops.relu(y, name="r")
    text = sched_text([x, w, out])
    assert 'compute_inline' not in text.split("sched.axis")[0]  # the pad is not inlined
    # the conv is computed in the relu's tile: the relu's loops take the conv's tile
    # (4 channels x 3 vectors of the row: 56 = 2 x 24 + 8) and the conv is computed at
    # the innermost outer loop, its reduction outside the tile's loops
    assert "sched.split %r_ax1 by 4" in text
    assert "sched.split %r_ax3 by 24" in text
    lines = text.splitlines()
    relu_order = next(line for line in lines if "sched.reorder %r_" in line)
    assert relu_order.endswith("%r_ax1_o, %r_ax1_i, %r_ax3_i : !sched.iter<\"r\">")
    assert 'sched.compute_at "y", %r_ax1_o' in text
    assert "sched.unroll %r_ax1_i" in text
    assert "sched.vectorize %r_ax3_i" in text
    conv_order = next(line for line in lines if "sched.reorder %y_nn" in line)
    assert conv_order.index("%y_rc") < conv_order.index("%y_ff") < conv_order.index("%y_xx")
    # the 3-tap loop stays a loop around 12 accumulators (unrolled, it ran no faster and
    # tripled the code); around a small tile it is unrolled
    assert "sched.unroll %y_rx" not in text
    xs, ws = te.placeholder((1, 4, 8, 8), name="x"), te.placeholder((2, 4, 3, 3), name="w")
    assert "sched.unroll %y_rx" in sched_text([xs, ws, ops.conv2d_nchw(xs, ws, padding=1, name="y")])
    assert "sched.unroll %y_ff" in text
    assert "sched.vectorize %y_xx" in text
    assert "sched.parallel" in text
    f = compiler.build([x, w, out], tuning_log=os.devnull)
    assert f.memory is not None
    assert "y" not in {b.name for b in f.memory.buffers}  # one tile, not a 64 x 56 x 56 tensor


def test_conv_tile_weighs_its_tails() -> None:
    """Loads per FMA averaged over the tails. A row of 56 (7 vectors): 4 channels x 3
    vectors (two full tiles and a 1-vector tail: 0.68) beats 8 x 1 (1.13) and 6 x 2 (64
    channels by 6 and 56 by 16: 0.74). A row of 32 (4 vectors): 3 vectors would leave a
    1-vector tail (4 x 3: 0.75), so 2 vectors, with 6 channels (10 blocks and a tail of 4:
    0.67) over 4 (0.75)."""
    for width, channels, tile in [(56, 4, 24), (32, 6, 16)]:
        x = te.placeholder((1, 64, 8, width), name="x")
        w = te.placeholder((64, 64, 3, 3), name="w")
        text = sched_text([x, w, ops.conv2d_nchw(x, w, padding=1, name="y")])
        assert f"sched.split %y_ff by {channels}" in text
        assert f"sched.split %y_xx by {tile}" in text


def test_a_split_with_a_tail_stays_out_of_the_parallel_fuse() -> None:
    """NHWC conv, 64 channels by 24 (a 16-channel tail): the channel blocks (3) are too
    few for the cores, but fused with the rows their index would be a division that
    hides the tail guard from loop-partition (which then stayed in the vector loop: 5x
    slower). The rows' blocks run in parallel and the channel blocks right inside."""
    x = te.placeholder((1, 34, 34, 64), name="x")
    w = te.placeholder((3, 3, 64, 64), name="w")
    text = sched_text([x, w, ops.conv2d_nhwc(x, w, padding=0, name="y")])
    assert "sched.split %y_ff by 24" in text
    assert "sched.fuse" not in text
    assert "sched.reorder %y_nn, %y_yy_o, %y_ff_o, %y_xx" in text
    assert "sched.parallel %y_yy_o" in text
    f = compiler.build([x, w, ops.conv2d_nhwc(x, w, padding=0, name="y")], tuning_log=os.devnull)
    vector_loops = [line for line in f.flat_ir.splitlines() if "vectorized" in line]
    assert vector_loops
    assert " likely" not in f.flat_ir.split("loop.for %y_nn")[-1]  # no guard left in the conv


def test_elementwise_producers_inlined_output_vectorized() -> None:
    a = te.placeholder((1 << 16,), name="a")
    b = ops.multiply(a, 2.0, name="b")
    c = ops.relu(b, name="c")
    text = sched_text([a, c])
    assert 'sched.compute_inline "b"' in text
    assert "sched.split %c_i by 64" in text or "sched.split %c_ax0 by 64" in text
    assert "sched.vectorize" in text
    assert "sched.parallel" in text


def test_user_stages_are_kept() -> None:
    A, B = te.placeholder((64, 64), name="A"), te.placeholder((64, 64), name="B")
    C = ops.matmul(A, B, name="C")
    D = ops.relu(C, name="D")
    s = te.create_schedule(D.op)
    s[C].split(C.op.axis[0], factor=5)
    text = sched_text([A, B, D], s)
    c_lines = [line for line in text.splitlines() if '"C"' in line or "!sched.iter<\"C\">" in line]
    assert len(c_lines) == 2, text  # the user's axis and split; nothing added to C
    assert "sched.vectorize %D_" in text


def test_options_serial_and_no_inline() -> None:
    a = te.placeholder((256,), name="a")
    c = ops.relu(ops.multiply(a, 2.0, name="b"), name="c")
    text = sched_text([a, c], parallel=False, inline=False)
    assert "parallel" not in text
    assert "compute_inline" not in text


def test_row_sum_is_not_vectorized_across_rows() -> None:
    A = te.placeholder((64, 128), name="A")
    k = te.reduce_axis((0, 128), name="k")
    S = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="S")
    module, _ = build_module([A, S], "main")
    (plan,) = plan_function(module.ops.first, None, AVX2)  # type: ignore[arg-type]
    assert plan.vector_axis is None  # lanes over rows would gather


def test_row_block_holds_the_column_tiles_of_its_result() -> None:
    """Attention in row blocks with a head of 64 (three column tiles of 24): the block
    loop is the last parallel loop and the column tiles run inside it, so each block's
    scores and exponentials are computed once, not once per column tile (a Swin MLP
    blocked this way ran 6x the work: 0.51x eager)."""
    Q, K, V = (te.placeholder((1, 2, 256, 64), name=n) for n in "QKV")
    text = sched_text([Q, K, V, ops.scaled_dot_product_attention(Q, K, V)], l2_bytes=64 * 1024)
    assert "sched.split %attention_ax2 by 16" in text  # the row block
    assert "sched.split %attention_ax3 by 24" in text  # the column tiles
    assert (
        "sched.reorder %attention_ax0, %attention_ax1, %attention_ax2_o, %attention_ax3_o, %attention_ax2_i_o, "
        "%attention_ax2_i_i, %attention_ax3_i" in text
    )
    assert "%attention_par = sched.fuse %attention_ax1, %attention_ax2_o" in text
    assert "sched.parallel %attention_par " in text
    assert 'sched.compute_at "attention_scores", %attention_par ' in text


@pytest.mark.parametrize("seq", [1, 37, 300])
def test_symbolic_length_attention_in_row_blocks_matches_numpy(seq: int) -> None:
    """Attention over a symbolic length (at least 1) in row blocks too (issue 37): a block
    is sized as if the length were `plan.SYMBOLIC_EXTENT`, and its bounds stay small
    because an empty length is excluded (`te.var(lower=1)`, checked at each call; with
    0 possible, each block count `(seq + 15) // 16` hedged for it and the bounds nested at
    every stage). Right at one, a few and many blocks, every access checked."""
    n = te.var("seq", lower=1, upper=512)
    Q, K, V = (te.placeholder((1, 2, n, 16), name=x) for x in "QKV")
    out = ops.scaled_dot_product_attention(Q, K, V)
    text = sched_text([Q, K, V, out], l2_bytes=64 * 1024)
    assert "sched.split %attention_ax2 by" in text  # the row block
    assert 'sched.compute_at "attention_scores", %attention_par ' in text
    f = compiler.build([Q, K, V, out], check_bounds=True)
    rng = np.random.default_rng(seq)
    q, k, v = (rng.standard_normal((1, 2, seq, 16), dtype=np.float32) for _ in range(3))
    got = np.empty_like(q)
    f(q, k, v, got)
    scores = q @ k.transpose(0, 1, 3, 2) / 4.0
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    np.testing.assert_allclose(got, weights / weights.sum(-1, keepdims=True) @ v, rtol=1e-4, atol=1e-5)


def test_symbolic_row_block_members_take_the_tiles_of_their_longest_static_length() -> None:
    """A block's stages over a symbolic length are planned at the longest length it is
    declared to take: their buffers live on the stack at that length, rows a constant
    stride apart, so the scores need no local tile, and their tiles are the static
    stage's (the symbolic scores took 8 rows x 3 vectors, a tail in every block of 30
    rows, and a local tile copied out: 1.7x the static attention's time)."""

    def scores_lines(n: te.Var | int) -> list[str]:
        Q, K, V = (te.placeholder((1, 12, n, 64), name=x) for x in "QKV")
        text = sched_text([Q, K, V, ops.scaled_dot_product_attention(Q, K, V)], vector_bits=512, registers=32)
        return [line.strip() for line in text.splitlines() if '"attention_scores' in line or "%attention_scores_" in line]

    symbolic = scores_lines(te.var("seq", lower=1, upper=2048))
    assert symbolic == scores_lines(2048)
    assert any("sched.split %attention_scores_ax3 by 64" in line for line in symbolic)
    assert not any("attention_scores.local" in line for line in symbolic)


@pytest.mark.parametrize(("lower", "upper"), [(0, 512), (1, None)], ids=["may-be-empty", "no-largest"])
def test_symbolic_length_without_a_bounded_range_keeps_whole_stages(lower: int, upper: int | None) -> None:
    """The same attention over a length that may be 0 (the blocks' bounds would nest
    hedging for it) or has no largest size (a block would be of no bounded size, in the
    arena, and the blocks would run serially): no row blocks."""
    n = te.var("seq", lower=lower, upper=upper)
    Q, K, V = (te.placeholder((1, 2, n, 16), name=x) for x in "QKV")
    text = sched_text([Q, K, V, ops.scaled_dot_product_attention(Q, K, V)], l2_bytes=64 * 1024)
    assert "%attention_par" not in text


def test_row_block_fits_a_threads_scratch_whatever_the_l2() -> None:
    """A block is at most PRIVATE_SCRATCH_BYTES (each thread's copy, on its stack), not
    a quarter of a large L2: a larger one lives in the arena, shared by the threads, and
    the blocks run serially (lowering/parallel.py)."""
    import re

    from compiler.analysis.target import PRIVATE_SCRATCH_BYTES

    Q, K, V = (te.placeholder((1, 16, 1024, 64), name=n) for n in "QKV")  # heads enough for the cores
    text = sched_text([Q, K, V, ops.scaled_dot_product_attention(Q, K, V)], l2_bytes=16 * 1024 * 1024)
    found = re.search(r"sched.split %attention_ax2 by (\d+)", text)
    assert found is not None
    assert int(found.group(1)) * 1024 * 4 <= PRIVATE_SCRATCH_BYTES  # rows x a row of scores


def test_weights_picked_per_row_by_data_still_get_a_row_tile() -> None:
    """A grouped matmul (each row times the weights of its expert, `W[g[s], k, n]`): no
    axis is free of the weights' read, the rows only through data. The rows are tiled and
    the column panel runs outermost, so the panel stays in cache while the rows pass
    (untiled, each row read all its expert's weights: Mixtral's experts at 10 GFLOP/s).
    The weights are not packed (which experts a panel needs is data)."""
    x, w = te.placeholder((64, 256), name="x"), te.placeholder((4, 256, 48), name="w")
    g = te.placeholder((64,), dtype="int64", name="g")
    k = te.reduce_axis((0, 256), name="k")
    out = te.compute((64, 48), lambda s, n: te.sum(x[s, k] * w[g[s], k, n], axis=k), name="out")
    module, _ = build_module([x, w, g, out], "main")
    (plan,) = plan_function(module.ops.first, None, AVX2)  # type: ignore[arg-type]
    assert plan.vector_axis == 1
    assert plan.unroll_axis == 0
    assert plan.unroll_factor > 1
    assert plan.vector_first
    assert plan.pack_input is None


def test_compiler_opt_prints_the_chosen_schedule(tmp_path) -> None:
    import subprocess
    import sys

    src = tmp_path / "m.mlir"
    src.write_text(
        'te.func @f(%a: !te.tensor<[64], f32>) -> !te.tensor<[64], f32> {\n'
        '  %b = te.compute "B" (%i) : !te.tensor<[64], f32> {\n'
        "    %v = te.read %a[%i] : !te.tensor<[64], f32>\n"
        "    te.yield %v : f32\n  }\n  te.return %b : !te.tensor<[64], f32>\n}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "compiler.tools.compiler_opt", str(src), "-p", "auto-schedule{vector_bits=256 cores=1}"],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "sched.schedule @f" in done.stdout
    assert "sched.vectorize" in done.stdout


def test_build_without_schedule_matches_numpy() -> None:
    A, B = te.placeholder((67, 45), name="A"), te.placeholder((45, 101), name="B")
    C = ops.matmul(A, B, name="C")
    f = compiler.build([A, B, C], check_bounds=True)
    assert "parallel" in f.loop_ir or host_target().cores == 1
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((67, 45), np.float32), rng.standard_normal((45, 101), np.float32)
    c = np.zeros((67, 101), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_build_auto_schedule_false_is_the_default_schedule() -> None:
    A = te.placeholder((64,), name="A")
    B = ops.relu(A, name="B")
    assert "vectorized" not in compiler.build([A, B], auto_schedule=False).loop_ir


def test_host_target() -> None:
    t = host_target()
    assert t.vector_bits in (128, 256, 512)
    assert t.registers in (16, 32)
    assert t.cores >= 1
    assert t.l1_bytes >= 4096
    assert t.lanes(32) == t.vector_bits // 32


@pytest.mark.parametrize(("k", "c", "h", "w"), [(5, 3, 2, 19), (8, 16, 3, 16), (1, 1, 1, 1), (13, 7, 1, 33)])
def test_symbolic_1x1_conv_with_channel_and_width_tails_matches_numpy(k: int, c: int, h: int, w: int) -> None:
    # the plan unrolls the symbolic channels by 4 and splits the symbolic width by vectors:
    # sizes that leave tails of both (and sizes smaller than one tile) compute every output
    kv, cv, hv, wv = te.var("k"), te.var("c"), te.var("h"), te.var("w")
    x = te.placeholder((1, cv, hv, wv), name="x")
    wt = te.placeholder((kv, cv, 1, 1), name="wt")
    out = ops.relu(ops.conv2d_nchw(x, wt, name="conv"), name="relu")
    f = compiler.build([x, wt, out], check_bounds=True)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1, c, h, w)).astype(np.float32)
    ws = rng.standard_normal((k, c, 1, 1)).astype(np.float32)
    got = np.full((1, k, h, w), np.nan, np.float32)
    f(xs, ws, got)
    want = np.maximum(np.einsum("kc,chw->khw", ws[:, :, 0, 0], xs[0]), 0)[None]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_small_stages_stay_on_one_core_under_the_default_threshold() -> None:
    """The host's threshold is 2^18 iterations unless COMPILER_PARALLEL_MIN_WORK says
    otherwise (this suite sets 0); an 8 x 64 stage is then serial, a 1024 x 512 one parallel."""
    import subprocess
    import sys

    code = (
        "from compiler.analysis.target import host_target, PARALLEL_MIN_WORK\n"
        "print(host_target().parallel_min_work == PARALLEL_MIN_WORK == 1 << 18)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "COMPILER_PARALLEL_MIN_WORK"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
    env["COMPILER_PARALLEL_MIN_WORK"] = "7"
    code = "from compiler.analysis.target import host_target\nprint(host_target().parallel_min_work)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "7"
    target = replace(host_target(), cores=2, parallel_min_work=1 << 18)
    small, large = _elementwise_info([8, 64]), _elementwise_info([1024, 512])
    assert not worth_parallel(small, target)
    assert worth_parallel(large, target)
    assert not worth_parallel(large, replace(target, cores=1))


def _elementwise_info(shape: list[int]) -> StageInfo:
    return StageInfo("T", list(shape), [], 32, False, True, [], [], [], [], [], [str(d) for d in shape],
                     ["i", "j"], [])


def _members_by_fixed_point(name: str, infos: dict[str, StageInfo], plans: dict[str, StagePlan], whole: set[str]) -> list[str]:
    """The row block's members as first written: every stage of the row shape, removed
    until none is left whose consumers are not all members or the group (quadratic)."""
    info = infos[name]
    rows = len(info.extents) - 1
    tile_of = plans[name].tile_of
    group = {name} | ({tile_of} if tile_of else set())
    members = {
        m for m, i in infos.items()
        if plans[m].action in ("root", "inline", "keep") and not plans[m].tile_of
        and not i.is_output and m not in whole and m != name and i.shape[:rows] == info.shape[:rows]
    }

    def row_for_row(member: str, consumer: str) -> bool:
        c = infos[consumer]
        return all(c.leading_identity[k] >= rows for k, t in enumerate(c.read_tensors) if t == member) and (
            c.shape[:rows] == info.shape[:rows])

    changed = True
    while changed:
        changed = False
        for m in sorted(members):
            consumers = infos[m].consumers
            if not consumers or not all(c in members | group and row_for_row(m, c) for c in consumers):
                members.discard(m)
                changed = True
    return sorted(members)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_row_block_members_are_the_fixed_point_of_the_rule(data: st.DataObject) -> None:
    """Random stage graphs (stages reading earlier ones, some row for row, of two row
    shapes, some results, kept whole, inlined or epilogues): the members `_block_members`
    finds through the group's producers are the largest set the rule allows, as the
    first, quadratic fixed point over every stage of the row shape found them."""
    from compiler.auto_schedule.plan import _block_members, _producer_map

    n = data.draw(st.integers(2, 12), label="stages")
    names = [f"s{k}" for k in range(n)]
    infos: dict[str, StageInfo] = {}
    plans: dict[str, StagePlan] = {}
    for k, name in enumerate(names):
        # mostly the last few stages: chains, as a block's producers are
        reads = data.draw(st.lists(st.sampled_from(names[max(0, k - 3):k]), max_size=3, unique=True), label=f"{name} reads") if k else []
        shape = data.draw(st.sampled_from([["4", "8"], ["4", "16"], ["4", "8"], ["2", "8"]]), label=f"{name} shape")
        infos[name] = StageInfo(
            name, [int(d) for d in shape], [], 32, False, data.draw(st.booleans(), label=f"{name} output") and k < n - 1,
            [[frozenset()] * 2 for _ in reads], list(reads), [False] * len(reads),
            [data.draw(st.sampled_from([0, 1, 1, 2]), label=f"{name} leading") for _ in reads],
            [([4, 8], 32) for _ in reads], shape, ["a", "b"], [],
        )
        for r in reads:
            if name not in infos[r].consumers:
                infos[r].consumers.append(name)
        action = data.draw(st.sampled_from(["root", "root", "root", "inline", "keep", "epilogue"]), label=f"{name} action")
        tile_of = names[k - 1] if action == "epilogue" and k else None
        plans[name] = StagePlan(name, action="root" if action == "epilogue" else action, tile_of=tile_of)
    whole = set(data.draw(st.lists(st.sampled_from(names), max_size=2), label="whole"))
    producers = _producer_map(infos)
    for name in names:
        assert _block_members(name, infos, plans, whole, producers) == _members_by_fixed_point(name, infos, plans, whole)


def test_symbolic_batch_and_length_fuse_with_the_columns_for_the_cores() -> None:
    """An elementwise stage over (batch, seq, 3072), both symbolic: either may be 1, so the
    parallel loop takes the constant column tiles too (the batch loop alone in parallel
    ran a GELU at batch 1 on one thread, 2x slower than the static build)."""
    batch, seq = te.var("batch", lower=1, upper=16), te.var("seq", lower=1, upper=512)
    A = te.placeholder((batch, seq, 3072), name="A")
    B = te.compute((batch, seq, 3072), lambda b, t, j: A[b, t, j] * 2.0, name="B")
    text = sched_text([A, B])
    assert "%B_par = sched.fuse %B_b, %B_t" in text
    assert "%B_par_1 = sched.fuse %B_par, %B_j_o" in text
    assert "sched.parallel %B_par_1" in text


def test_symbolic_rows_may_take_eight_row_tiles() -> None:
    """A linear over (batch, seq) rows on a host of 32 registers: 8 rows of 3 vectors (24
    accumulators), as a long static row axis that 8 divides gets: unroll-loops versions
    the symbolic tail by its row count, so a tall tile costs no slow tail (symbolic rows
    were held to 4, then 6: a symbolic BERT's linears ran 4 x 64 tiles where static ones
    ran 6 x 64, and GPT-2's at 16 tokens 6 + 6 + 4 rows where static ones ran 8 + 8)."""
    batch, seq = te.var("batch", lower=1, upper=16), te.var("seq", lower=1, upper=512)
    X, W = te.placeholder((batch, seq, 64), name="X"), te.placeholder((64, 768), name="W")
    k = te.reduce_axis((0, 64), name="k")
    Y = te.compute((batch, seq, 768), lambda b, t, j: te.sum(X[b, t, k] * W[k, j], axis=k), name="Y")
    text = sched_text([X, W, Y], vector_bits=512, registers=32)
    assert "sched.split %Y_t by 8" in text
    assert "sched.split %Y_j by 48" in text


def test_symbolic_row_tails_are_versioned_and_exact() -> None:
    """Every row count of a symbolic linear, each tail of the host's row tile among them,
    against NumPy with the output between guards; the flat IR has no unrolled loop of
    symbolic extent left (each tail is a chain of constant-extent copies)."""
    seq = te.var("seq", lower=1, upper=64)
    X, W = te.placeholder((seq, 64), name="X"), te.placeholder((64, 96), name="W")
    k = te.reduce_axis((0, 64), name="k")
    Y = te.compute((seq, 96), lambda t, j: te.sum(X[t, k] * W[k, j], axis=k), name="Y")
    f = compiler.build([X, W, Y], tuning_log=os.devnull)
    unrolled = [line for line in f.flat_ir.splitlines() if "loop.for" in line and " unrolled" in line]
    assert unrolled
    assert all("{unroll_full}" in line for line in unrolled)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 96), dtype=np.float32)
    for rows in range(1, 20):
        x = rng.standard_normal((rows, 64), dtype=np.float32)
        guarded = np.full(rows * 96 + 64, np.nan, np.float32)
        y = guarded[32 : 32 + rows * 96].reshape(rows, 96)
        f(x, w, y)
        assert np.isnan(guarded[:32]).all()
        assert np.isnan(guarded[-32:]).all()
        np.testing.assert_allclose(y, x.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)


@settings(max_examples=examples(6, 40), deadline=None)
@given(data=st.data())
def test_transposes_tiled_match_numpy_and_stay_in_bounds(data: st.DataObject) -> None:
    """Permutations of 2-4 dimensions (static, odd and symbolic extents), built without a
    schedule: a transpose's tile (rows of its source's last axis by a vector of its own
    last axis) with tails, checked against NumPy, every access in bounds."""
    rank = data.draw(st.integers(2, 4), label="rank")
    sizes = data.draw(st.lists(st.integers(1, 37), min_size=rank, max_size=rank), label="sizes")
    perm = data.draw(st.permutations(range(rank)), label="perm")
    symbolic = data.draw(st.integers(-1, rank - 1), label="symbolic dimension")
    dims = [te.var("n") if k == symbolic else n for k, n in enumerate(sizes)]
    x_t = te.placeholder(tuple(dims), name="x")
    y_t = ops.transpose(x_t, perm, name="y")
    f = compiler.build([x_t, y_t], check_bounds=True)
    x = np.random.default_rng(0).standard_normal(sizes).astype(np.float32)
    expected = x.transpose(perm)
    whole, y = guarded_empty(expected.shape)
    f(x, y)
    np.testing.assert_array_equal(y, expected)
    assert_guard_intact(whole)
