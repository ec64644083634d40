"""Fast forms (`te.FastForm`): what `build` compiles of a stage when it schedules the
program itself. `ops.conv2d_nchw` computes in blocked NHWC there; a schedule names the
stages as written; the program itself is never changed."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from long_tests import examples
from references import assert_guard_intact, guarded_empty

import compiler
from compiler import graph_cache, ops, te
from compiler.te.fast_forms import with_fast_forms
from compiler.te.tensors import collect_stages


def conv_reference(x: np.ndarray, w: np.ndarray, stride: tuple[int, int], padding: tuple[int, int, int, int],
                   dilation: tuple[int, int]) -> np.ndarray:
    top, left, bottom, right = padding
    xp = torch.nn.functional.pad(torch.from_numpy(x).double(), (left, right, top, bottom))
    y = torch.nn.functional.conv2d(xp, torch.from_numpy(w).double(), stride=stride, dilation=dilation)
    return y.numpy()


def stage_names(tensors: list[te.Tensor]) -> set[str]:
    return {t.name for t in collect_stages([t for t in tensors if not t.is_placeholder])}


@st.composite
def conv_cases(draw: st.DrawFn) -> dict:
    kernel = draw(st.sampled_from([1, 2, 3, 5]))
    dilation = draw(st.sampled_from([1, 2])) if kernel > 1 else 1
    reach = (kernel - 1) * dilation + 1
    return {
        "channels": draw(st.integers(1, 9)),
        "out": draw(st.sampled_from([16, 32, 48, 64])),
        "size": (draw(st.integers(reach, reach + 9)), draw(st.integers(reach, reach + 9))),
        "kernel": kernel,
        "stride": (draw(st.integers(1, 3)), draw(st.integers(1, 3))),
        # a padded 1x1 too (it must not take the strided 1x1's subsampled copy)
        "padding": tuple(draw(st.integers(0, max(kernel - 1, 1))) for _ in range(4)),
        "dilation": (dilation, dilation),
    }


@given(case=conv_cases())
@settings(max_examples=examples(8, 60), deadline=None)
def test_nchw_convolutions_in_their_fast_form_match_torch(case: dict) -> None:
    c, k, r = case["channels"], case["out"], case["kernel"]
    x_t = te.placeholder((2, c, *case["size"]), name="x")
    w_t = te.placeholder((k, c, r, r), name="w")
    y_t = ops.conv2d_nchw(x_t, w_t, case["stride"], case["padding"], case["dilation"], name="y")
    f = compiler.build([x_t, w_t, y_t], check_bounds=True)
    assert "y_blocked_weight" in f.loop_ir  # what build compiled: the fast form
    assert "y_nhwc" in f.loop_ir
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, c, *case["size"])).astype(np.float32)
    w = rng.standard_normal((k, c, r, r)).astype(np.float32)
    whole, y = guarded_empty(tuple(int(d) for d in y_t.shape))
    f(x, w, y)
    np.testing.assert_allclose(y, conv_reference(x, w, case["stride"], case["padding"], case["dilation"]),
                               rtol=1e-4, atol=1e-4)
    assert_guard_intact(whole)


def test_a_schedule_names_the_stages_as_written() -> None:
    x_t = te.placeholder((1, 8, 10, 10), name="x")
    w_t = te.placeholder((32, 8, 3, 3), name="w")
    y_t = ops.conv2d_nchw(x_t, w_t, padding=1, name="y")
    s = te.create_schedule(y_t.op)
    s[y_t].split(y_t.op.axis[2], factor=4)
    text = str(compiler.lower(s, [x_t, w_t, y_t], until="te", auto_schedule=True))
    assert "y_nhwc" not in text
    assert "y_blocked_weight" not in text
    scheduled = compiler.build(s, [x_t, w_t, y_t], auto_schedule=True)
    automatic = compiler.build([x_t, w_t, y_t])
    assert "y_nhwc" not in scheduled.loop_ir
    assert "y_nhwc" in automatic.loop_ir
    assert "y_nhwc" in str(compiler.lower([x_t, w_t, y_t], until="te", auto_schedule=True))
    x = np.random.default_rng(1).standard_normal((1, 8, 10, 10)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((32, 8, 3, 3)).astype(np.float32)
    a, b = np.empty((1, 32, 10, 10), np.float32), np.empty((1, 32, 10, 10), np.float32)
    scheduled(x, w, a)
    automatic(x, w, b)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_the_program_is_not_changed() -> None:
    x_t = te.placeholder((1, 4, 6, 6), name="x")
    w_t = te.placeholder((16, 4, 3, 3), name="w")
    y_t = ops.conv2d_nchw(x_t, w_t, name="y")
    out = ops.relu(y_t, name="out")
    body = out.op.body
    replaced = with_fast_forms([x_t, w_t, out])
    assert replaced[:2] == [x_t, w_t]
    assert replaced[2] is not out
    assert out.op.body is body
    assert stage_names([out]) == {"y", "out"}
    assert "y_nhwc" in stage_names(replaced)


def test_consumers_of_a_float16_chain_read_the_fast_forms() -> None:
    """A conv, its relu and a second conv in float16 (accumulators attached to the
    stage that rounds them): the consumers are rebuilt to read the replacements."""
    h, wd = te.var("h"), te.var("w")
    x_t = te.placeholder((1, 8, h, wd), "float16", name="x")
    # 16-bit lanes: 32 to a 512-bit vector
    w1_t = te.placeholder((32, 8, 3, 3), "float16", name="w1")
    w2_t = te.placeholder((64, 32, 1, 1), "float16", name="w2")
    c1 = ops.relu(ops.conv2d_nchw(x_t, w1_t, padding=1, name="c1"), name="r1")
    c2 = ops.conv2d_nchw(c1, w2_t, stride=2, name="c2")
    assert {"c1_nhwc", "c2_nhwc", "c2_nhwc_input"} <= stage_names(with_fast_forms([x_t, w1_t, w2_t, c2]))
    f = compiler.build([x_t, w1_t, w2_t, c2], check_bounds=True)
    rng = np.random.default_rng(3)
    w1 = (rng.standard_normal((32, 8, 3, 3)) / 8).astype(np.float16)
    w2 = (rng.standard_normal((64, 32, 1, 1)) / 4).astype(np.float16)
    for size in [(7, 9), (12, 5)]:
        x = rng.standard_normal((1, 8, *size)).astype(np.float16)
        y = np.empty((1, 64, (size[0] + 1) // 2, (size[1] + 1) // 2), np.float16)
        f(x, w1, w2, y)
        mid = np.maximum(conv_reference(x.astype(np.float32), w1.astype(np.float32), (1, 1), (1,) * 4, (1, 1)), 0)
        ref = conv_reference(mid.astype(np.float16).astype(np.float32), w2.astype(np.float32), (2, 2), (0,) * 4,
                             (1, 1))
        np.testing.assert_allclose(y.astype(np.float32), ref, rtol=2e-2, atol=2e-2)


def test_output_channels_no_multiple_of_the_vector_keep_the_stage_as_written() -> None:
    x_t = te.placeholder((1, 4, 6, 6), name="x")
    w_t = te.placeholder((5, 4, 3, 3), name="w")  # 5: no multiple of any vector's lanes
    y_t = ops.conv2d_nchw(x_t, w_t, name="y")
    assert stage_names(with_fast_forms([x_t, w_t, y_t])) == {"y"}
    grouped = ops.conv2d_nchw(te.placeholder((1, 32, 6, 6), name="g"), te.placeholder((32, 8, 3, 3), name="gw"),
                              groups=4, name="grouped")
    assert stage_names(with_fast_forms([grouped])) == {"grouped"}  # grouped: as written


def test_programs_with_fast_forms_are_keyed_by_their_parameters() -> None:
    def key(stride: int) -> graph_cache.GraphKey | None:
        x_t = te.placeholder((1, 4, 8, 8), name="x")
        w_t = te.placeholder((16, 4, 1, 1), name="w")
        return graph_cache.graph_key([x_t, w_t, ops.conv2d_nchw(x_t, w_t, stride=stride, name="y")], None, "main", {})

    assert key(1) is not None
    assert key(1) == key(1)
    assert key(1) != key(2)


def test_tune_searches_the_fast_form_and_build_finds_its_record(tmp_path) -> None:
    x_t = te.placeholder((1, 8, 10, 10), name="x")
    w_t = te.placeholder((32, 8, 3, 3), name="w")
    y_t = ops.conv2d_nchw(x_t, w_t, padding=1, name="y")
    log = tmp_path / "tune.jsonl"
    result = compiler.tune([x_t, w_t, y_t], log=log, trials=2, progress=False)
    assert result.schedule is not None
    assert '"y_nhwc"' in result.schedule
    f = compiler.build([x_t, w_t, y_t], tuning_log=log)
    assert "y_nhwc" in f.loop_ir
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 8, 10, 10)).astype(np.float32)
    w = rng.standard_normal((32, 8, 3, 3)).astype(np.float32)
    y = np.empty((1, 32, 10, 10), np.float32)
    f(x, w, y)
    np.testing.assert_allclose(y, conv_reference(x, w, (1, 1), (1,) * 4, (1, 1)), rtol=1e-4, atol=1e-4)
