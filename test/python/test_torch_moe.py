"""The ops a mixture of experts routes tokens with (`compiler/torch/aten_moe.py`), against
eager: `histc` (elements on the edges, outside the range, the right edge in the last
bin) and the grouped matmul of `transformers`' experts (random group sizes, empty
groups, rows past the last group's end). Mixtral itself runs in test_zoo.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import compiler  # noqa: E402
from compiler.torch import UnsupportedOperatorError  # noqa: E402


class Histc(torch.nn.Module):
    def __init__(self, bins: int, lo: float, hi: float):
        super().__init__()
        self.bins, self.lo, self.hi = bins, lo, hi

    def forward(self, x: Any) -> Any:
        return torch.histc(x, bins=self.bins, min=self.lo, max=self.hi)


def test_histc_counts_edges_and_ignores_what_is_outside() -> None:
    x = torch.tensor([[-1.0, -0.5, 0.0, 0.5, 1.0], [1.5, 2.0, -2.0, 0.3, 1.4999]])  # 1.5 = max: the last bin
    module = Histc(5, -1.0, 1.5)
    got = compiler.from_torch(module, (x,))(x)
    np.testing.assert_array_equal(got, module(x).numpy())
    for scalar in (torch.tensor(0.5), torch.tensor(7.0)):  # a 0-d input: one element, inside or not
        np.testing.assert_array_equal(compiler.from_torch(module, (scalar,))(scalar), module(scalar).numpy())


@settings(max_examples=15, deadline=None)
@given(bins=st.integers(1, 9), lo=st.integers(-4, 2), width=st.integers(1, 6), seed=st.integers(0, 2**16))
@example(bins=9, lo=-1, width=3, seed=0)  # 0.0 on an edge: binned from edges, it landed one bin low
def test_histc_of_integer_valued_and_random_floats_matches_eager(bins: int, lo: int, width: int, seed: int) -> None:
    """Integers land on edges often (a router's expert ids: bins = experts, max = the last
    id); random floats anywhere; and each edge itself."""
    gen = torch.Generator().manual_seed(seed)
    ints = torch.randint(lo - 1, lo + width + 2, (17,), generator=gen).float()
    floats = torch.rand(13, generator=gen) * (width + 2) + lo - 1
    x = torch.cat([ints, floats, torch.linspace(lo, lo + width, bins + 1)])
    module = Histc(bins, float(lo), float(lo + width))
    got = compiler.from_torch(module, (x,))(x)
    np.testing.assert_array_equal(got, module(x).numpy())


def test_histc_with_a_range_from_the_data_is_refused() -> None:
    x = torch.randn(8)
    with pytest.raises(UnsupportedOperatorError, match="histc with min 0 >= max 0"):
        compiler.from_torch(Histc(4, 0.0, 0.0), (x,))


class Grouped(torch.nn.Module):
    """transformers' grouped matmul of experts' weights [E, K, N] over rows sorted by group."""

    def __init__(self, weight: Any):
        super().__init__()
        self.weight = torch.nn.Parameter(weight)

    def forward(self, x: Any, offsets: Any) -> Any:
        return torch.ops.transformers.grouped_mm_fallback(x, self.weight, offs=offsets)


@settings(max_examples=10, deadline=None)
@given(sizes=st.lists(st.integers(0, 5), min_size=1, max_size=5), extra=st.integers(0, 3), seed=st.integers(0, 2**16))
def test_grouped_matmul_multiplies_each_row_by_its_groups_weight(sizes: list[int], extra: int, seed: int) -> None:
    """Groups of random sizes (empty ones too); `extra` rows past the last end come out zero."""
    import transformers.integrations.moe  # noqa: F401  (registers the op)

    gen = torch.Generator().manual_seed(seed)
    rows = sum(sizes) + extra
    assume(rows > 0)
    module = Grouped(torch.randn(len(sizes), 12, 20, generator=gen))
    x = torch.randn(rows, 12, generator=gen)
    offsets = torch.tensor(np.cumsum(sizes), dtype=torch.int32)
    with torch.no_grad():
        expected = module(x, offsets).numpy()
        got = compiler.from_torch(module, (x, offsets))(x, offsets)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_grouped_matmul_reads_its_experts_weights_blocked_by_column() -> None:
    """Constant expert weights are laid out [E, N / nb, K, nb], as a linear's are (a
    tile's column panel of one expert contiguous over K): the network holds that
    constant, not the [E, K, N] one, and matches eager."""
    import transformers.integrations.moe  # noqa: F401  (registers the op)

    gen = torch.Generator().manual_seed(3)
    module = Grouped(torch.randn(3, 40, 128, generator=gen))
    x = torch.randn(11, 40, generator=gen)
    offsets = torch.tensor([4, 4, 9], dtype=torch.int32)
    with torch.no_grad():
        expected = module(x, offsets).numpy()
        net = compiler.from_torch(module, (x, offsets))
        got = net(x, offsets)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    (name,) = [n for n in net.parameters if "weight" in n]
    assert name.endswith("_blocked")
    blocked, weight = net.parameters[name], module.weight.detach().numpy()
    assert blocked.ndim == 4
    assert blocked.shape[0] == 3
    assert blocked.shape[2] == 40
    nb = blocked.shape[3]
    assert blocked.shape[1] * nb == 128
    for column in range(128):  # [e, column // nb, k, column % nb] holds weight[e, k, column]
        np.testing.assert_array_equal(blocked[:, column // nb, :, column % nb], weight[:, :, column])
