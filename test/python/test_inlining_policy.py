"""The one inlining policy (`compiler.auto_schedule.inlining`), which the auto-scheduler
(recomputing) and the PyTorch importer's fusion schedule (not recomputing) share."""

from __future__ import annotations

from compiler import te
from compiler.analysis.target import Target
from compiler.auto_schedule import plan_function
from compiler.auto_schedule.inlining import Producer, inlined_stages
from compiler.te.to_ir import build_module
from compiler.torch.importer import fusion_schedule

TARGET = Target(vector_bits=256, registers=16, cores=2, cpu="test")


def test_an_elementwise_stage_lands_in_its_elementwise_consumer() -> None:
    stages = [Producer("mul", {"add": 1}), Producer("add", {"out": 1}), Producer("out", {}, pinned=True)]
    assert inlined_stages(stages, recompute=False) == ["mul", "add"]
    assert inlined_stages(stages, recompute=True) == ["mul", "add"]


def test_only_stages_that_move_elements_go_into_a_reduction() -> None:
    stages = [
        Producer("gelu", {"view": 1}),  # reaches the matmul through the view
        Producer("view", {"matmul": 1}, moves_only=True),
        Producer("pad", {"conv": 1}, moves_only=True, guarded=True),  # its guard would run per tap
        Producer("matmul", {"conv": 1}, reduction=True),
        Producer("conv", {}, reduction=True, pinned=True),
    ]
    for recompute in (False, True):
        assert inlined_stages(stages, recompute=recompute) == ["view"]


def test_a_guarded_stage_goes_where_no_reduction_is() -> None:
    stages = [Producer("pad", {"relu": 1}, moves_only=True, guarded=True), Producer("relu", {}, pinned=True)]
    assert inlined_stages(stages, recompute=False) == ["pad"]


def test_recomputation_only_when_allowed() -> None:
    stages = [
        Producer("shared", {"a": 1, "b": 1}),  # two consumers: computed in both
        Producer("stencil_in", {"a": 2}),  # read twice per element of a
        Producer("a", {}, pinned=True),
        Producer("b", {}, pinned=True),
    ]
    assert inlined_stages(stages, recompute=False) == []
    assert inlined_stages(stages, recompute=True) == ["shared", "stencil_in"]


def test_a_view_read_twice_is_still_inlined_without_recomputation() -> None:
    stages = [Producer("view", {"add": 2}, moves_only=True), Producer("add", {}, pinned=True)]
    assert inlined_stages(stages, recompute=False) == ["view"]


def test_decided_stages_are_homes_not_choices() -> None:
    stages = [
        Producer("exp", {"scale": 1}),
        Producer("scale", {"sum": 1}),  # the user inlined it into the reduction
        Producer("sum", {}, reduction=True, pinned=True),
    ]
    # scale would land in sum: it keeps a buffer, where exp lands
    assert inlined_stages(stages, recompute=True) == ["exp"]
    assert inlined_stages(stages, recompute=True, decided={"scale": True}) == []  # exp would land in sum
    assert inlined_stages(stages, recompute=True, decided={"scale": False}) == ["exp"]


def test_a_view_that_carries_an_inlined_stage_is_not_a_move() -> None:
    """A transformer's residual stream: the importer inlined each residual add into the
    view after it (its one consumer), and the view, read by the layer norm's reductions
    and by the next add, kept the buffer. The view moves elements only by its own body,
    but it now computes the add: inlined too, every layer norm recomputed the adds of
    all the layers before it (OPT-125M's layer norms took 3-4 ms each: 0.85x eager)."""
    stages = [
        Producer("add_1", {"view_1": 1}),
        Producer("view_1", {"norm_sum_1": 1, "add_2": 1}, moves_only=True),
        Producer("norm_sum_1", {"add_2": 1}, reduction=True),
        Producer("add_2", {"view_2": 1}),
        Producer("view_2", {"norm_sum_2": 1}, moves_only=True),
        Producer("norm_sum_2", {}, reduction=True, pinned=True),
    ]
    decided = {"add_1": True, "add_2": True}
    assert inlined_stages(stages, recompute=True, decided=decided) == []
    # undecided, the adds keep buffers and the views, moves only, are inlined
    assert inlined_stages(stages, recompute=True) == ["view_1", "view_2"]


def test_a_transpose_of_the_last_axis_keeps_a_buffer_before_a_reduction() -> None:
    """Keys transposed for q @ k^T (MPNet's attention, written with matmul): inlined, the
    matmul's vector lanes along the keys would read a stride apart (5.4 GFLOP/s); a
    buffer costs one pass. A view that keeps the last axis last is still inlined."""
    stages = [
        Producer("keys_t", {"scores": 1}, moves_only=True, transposes_last=True),
        Producer("query_view", {"scores": 1}, moves_only=True),
        Producer("scores", {}, reduction=True, pinned=True),
    ]
    for recompute in (False, True):
        assert inlined_stages(stages, recompute=recompute) == ["query_view"]
    elementwise = [Producer("keys_t", {"relu": 1}, moves_only=True, transposes_last=True), Producer("relu", {}, pinned=True)]
    assert inlined_stages(elementwise, recompute=False) == ["keys_t"]


def test_pinned_and_reductions_keep_their_buffers() -> None:
    stages = [Producer("rounded", {"out": 1}, pinned=True), Producer("out", {}, pinned=True)]
    assert inlined_stages(stages, recompute=True) == []


def attention_like() -> list[te.Tensor]:
    """x -> transpose (moves) -> exp (elementwise) -> row sum (reduction) -> scaled result,
    and a pad (guarded) read by the same reduction: one consumer each, read once."""
    x = te.placeholder((16, 32), name="x")
    xt = te.compute((32, 16), lambda i, j: x[j, i], name="xt")
    e = te.compute((32, 16), lambda i, j: te.exp(xt[i, j]), name="e")
    p = te.compute((32, 18), lambda i, j: te.if_then_else(te.all(j >= 1, j < 17), e[i, te.min(te.max(j - 1, 0), 15)], 0.0), name="p")
    k = te.reduce_axis((0, 18), name="k")
    s = te.compute((32,), lambda i: te.sum(p[i, k], axis=k), name="s")
    out = te.compute((32,), lambda i: s[i] * 0.5, name="out")
    return [x, out]


def test_importer_and_auto_scheduler_inline_the_same_stages_when_nothing_is_recomputed() -> None:
    args = attention_like()
    _, by_importer = fusion_schedule(args[-1:])
    module, _ = build_module(args, "f")
    func = next(op for op in module.ops if op.name == "te.func")
    plans = plan_function(func, None, TARGET)
    by_planner = [p.stage for p in plans if p.action == "inline"]
    assert by_importer == by_planner == ["xt", "e"]


def test_importer_and_auto_scheduler_keep_a_transpose_read_by_a_matmul() -> None:
    """q @ k^T with k^T a transpose stage: both sides see the transpose (its last axis
    indexes k's rows) and keep its buffer; q's reshape view (last axis last) is inlined."""
    q, k = te.placeholder((8, 2, 16), name="q"), te.placeholder((8, 16), name="k")
    qv = te.compute((16, 16), lambda i, d: q[i // 2, i % 2, d], name="qv")
    kt = te.compute((16, 8), lambda d, j: k[j, d], name="kt")
    r = te.reduce_axis((0, 16), name="r")
    scores = te.compute((16, 8), lambda i, j: te.sum(qv[i, r] * kt[r, j], axis=r), name="scores")
    _, by_importer = fusion_schedule([scores])
    module, _ = build_module([q, k, scores], "f")
    func = next(op for op in module.ops if op.name == "te.func")
    by_planner = [p.stage for p in plan_function(func, None, TARGET) if p.action == "inline"]
    assert by_importer == by_planner == ["qv"]
