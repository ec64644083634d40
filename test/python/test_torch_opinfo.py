"""torch's OpInfo samples through `from_torch`, against eager (torch_opinfo.py).

`make test` runs a fixed sample: ops whose decompositions reach different Core ATen
ops (math, rounding, remainders, reductions, scatters, sorting, norms, resizing,
convolutions), and the direct calls of the overloads no public op reaches
(`torch_opinfo.DIRECT`), the first sample of each (the long run: two and three;
COMPILER_OPINFO_SAMPLES=N: N). The long run (`make test-long`) runs every OpInfo
op's float32 samples and checks the share of Core ATen overloads that pass all
theirs; `bench/core_aten_coverage.py` prints the same table.
"""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("expecttest")  # torch's OpInfo database imports it


from long_tests import examples
from torch_opinfo import (
    DIRECT,
    Coverage,
    Outcome,
    core_aten_overloads,
    is_random,
    opinfo_id,
    opinfos,
    run_direct,
    run_op,
)

import compiler.torch  # noqa: F401  (registers every converter)
from compiler.torch.aten import IDENTITY_OPS, OPS
from compiler.torch.decompose import KEEP_WHOLE, decompose, decomposition_table

SAMPLED = [
    "sin", "asinh", "expm1", "log1p", "round", "sign", "isnan", "fmod", "remainder", "div.floor_rounding",
    "var", "std", "argmax", "max.reduction_with_dim", "prod", "any", "flip", "diagonal", "slice_scatter",
    "scatter_add", "sort", "topk", "nn.functional.group_norm", "nn.functional.conv1d",
    "nn.functional.conv_transpose2d", "cdist", "atan2", "nn.functional.elu", "clamp", "cumsum",
    "nn.functional.conv3d", "masked_scatter", "bitwise_xor", "index_put",
]
"""OpInfo ops of the fixed sample (`make test`)."""

BF16_SAMPLED = [
    "add", "mul", "div.no_rounding_mode", "exp", "rsqrt", "pow", "where", "cat", "softmax",
    "nn.functional.gelu", "nn.functional.silu", "nn.functional.layer_norm", "nn.functional.rms_norm",
    "sum", "mean", "var", "cumsum", "matmul", "bmm", "nn.functional.linear", "nn.functional.conv2d",
    "nn.functional.embedding", "nn.functional.scaled_dot_product_attention",
]
"""OpInfo ops whose bfloat16 samples run too: what a bf16 transformer or CNN is made of.
(Known differences: `sort` and `topk`, whose indices of equal values, frequent in bf16,
are in another order.)"""


@pytest.fixture(scope="module")
def infos() -> dict[str, object]:
    return {opinfo_id(i): i for i in opinfos()}


def test_every_op_kept_whole_has_a_converter() -> None:
    missing = sorted(op for op in KEEP_WHOLE if op not in OPS and op not in IDENTITY_OPS)
    assert not missing, f"kept whole but not converted: {missing}"


def test_no_converter_is_decomposed_away() -> None:
    """A converter of an op torch's table decomposes never runs: it is kept whole or dead."""
    decomposed = {str(op) for op in decomposition_table()}
    dead = sorted(op for op in [*OPS, *IDENTITY_OPS] if op in decomposed and op not in KEEP_WHOLE)
    assert not dead, f"converters of ops that are decomposed before the importer sees them: {dead}"


class _Composites(torch.nn.Module):
    """Composite ops of each kind: decomposed by their C++ kernel (einsum, roll, norm,
    type_as, one_hot...), by a Python decomposition of torch's (lstm, upsampling), or
    kept whole (softmax with a dtype, linear, group_norm, layer_norm)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 3, batch_first=True)
        self.norm = torch.nn.GroupNorm(2, 4)
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.einsum("ij,jk->ik", x, x.T).std() + torch.roll(x, 1, 0).norm()
        y = y + torch.nn.functional.one_hot(x.argmax(-1), 5).type_as(x).sum()
        y = y + self.lstm(x[None])[0].sum() + torch.nn.functional.softplus(x).mean()
        image = self.norm(x[None, :, :, None].expand(1, 4, 4, 2))
        y = y + torch.nn.functional.interpolate(image, scale_factor=2.0).sum()
        return self.linear(torch.nn.functional.layer_norm(x, (4,))).softmax(-1, dtype=torch.float32) + y


def test_fast_decomposition_gives_torchs_graph() -> None:
    """`decompose` leaves composite ops to their own kernels instead of overriding
    each; the graph is the one `run_decompositions` makes with the same table."""
    module, x = _Composites().eval(), torch.randn(4, 4)
    expected = torch.export.export(module, (x,)).run_decompositions(decomposition_table())
    got = decompose(torch.export.export(module, (x,)))
    assert got.graph_module.code == expected.graph_module.code
    assert str(got.graph_signature) == str(expected.graph_signature)
    assert "aten.einsum" not in got.graph_module.code
    assert "aten.linear.default" in got.graph_module.code


def test_the_decomposition_table_keeps_conv_and_linear_whole() -> None:
    decomposed = {str(op) for op in decomposition_table()}
    assert "aten.linear.default" not in decomposed
    assert "aten.conv2d.default" not in decomposed
    assert "aten.type_as.default" in decomposed  # decomposed: converted as _to_copy


@pytest.mark.parametrize("name", SAMPLED)
def test_opinfo_samples_match_eager(infos: dict[str, object], name: str) -> None:
    _all_pass(name, run_op(infos[name], limit=examples(1, 2, "COMPILER_OPINFO_SAMPLES")))


@pytest.mark.parametrize("name", BF16_SAMPLED)
def test_bf16_opinfo_samples_match_eager(infos: dict[str, object], name: str) -> None:
    _all_pass(name, run_op(infos[name], dtype=torch.bfloat16, limit=examples(1, 2, "COMPILER_OPINFO_SAMPLES")))


@pytest.mark.parametrize("label", sorted(DIRECT))
def test_direct_calls_of_unreached_overloads_match_eager(infos: dict[str, object], label: str) -> None:
    _all_pass(label, run_direct(label, infos, limit=examples(1, 3, "COMPILER_OPINFO_SAMPLES")))


def _all_pass(name: str, outcomes: list[Outcome]) -> None:
    assert outcomes, f"{name}: no sample ran"
    failed = [f"[{o.sample}] {o.reason}" for o in outcomes if not o.passed]
    assert not failed, f"{name}: " + "; ".join(failed)


@pytest.mark.long
def test_core_aten_coverage(infos: dict[str, object]) -> None:
    """Every OpInfo op's float32 samples; most Core ATen overloads pass all of theirs."""
    core = set(core_aten_overloads())
    coverage = Coverage()
    outcomes = [o for info in infos.values() if not is_random(info) for o in run_op(info, limit=None)]
    outcomes += [o for label in DIRECT for o in run_direct(label, infos)]
    for outcome in outcomes:
        coverage.add(outcome, core)
    passing = coverage.passing()
    print(f"\n{len(passing)} of {len(core)} Core ATen overloads pass all their samples")
    for op in sorted(coverage.failed):
        print(f"  {op}: {coverage.failed[op]}")
    assert len(passing) >= 0.95 * len(core)  # 181 of 189 (95.8%, 2026-11-28)
