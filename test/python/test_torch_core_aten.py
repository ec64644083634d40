"""Core ATen forms the OpInfo samples reach thinly, against eager: 3-D and transposed
convolutions, index_put with N-d index tensors and boolean masks (last writer wins,
accumulate), masked_scatter, scatters of 0-d tensors, uint8 tensors, and the statistics batch norm returns beside its output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch_opinfo import compare  # noqa: E402

import compiler  # noqa: E402

A = torch.ops.aten
F = torch.nn.functional


class _Call(torch.nn.Module):
    def __init__(self, f: Callable[..., Any]):
        super().__init__()
        self.f = f

    def forward(self, *args: Any) -> Any:
        return self.f(*args)


def _matches_eager(f: Callable[..., Any], *args: Any) -> None:
    module = _Call(f)
    ref = module(*args)
    ours = compiler.from_torch(module, args)(*args)
    diff = compare(ours, ref)
    assert not diff, diff


def _r(*shape: int) -> Any:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape) + len(shape)))


CONVS = {
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 2), dilation=(1, 1, 2)),
               (_r(2, 4, 5, 6, 7), _r(6, 4, 3, 2, 3), _r(6))),
    "conv3d_groups": (lambda x, w: F.conv3d(x, w, None, groups=2), (_r(1, 4, 5, 6, 7), _r(6, 2, 3, 3, 3))),
    "conv_transpose3d": (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1),
                         (_r(1, 4, 3, 4, 5), _r(4, 3, 3, 3, 3), _r(3))),
    "conv_transpose2d_groups": (lambda x, w: F.conv_transpose2d(x, w, None, stride=(2, 3), padding=(1, 0), groups=2,
                                                                dilation=(1, 2)), (_r(2, 4, 5, 6), _r(4, 3, 3, 2))),
    "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, None, stride=2), (_r(2, 4, 5), _r(4, 3, 3))),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_convolutions_match_eager(name: str) -> None:
    f, args = CONVS[name]
    _matches_eager(f, *args)


_X = _r(5, 6, 7)
_I2, _J2 = torch.tensor([[0, 4], [2, 4]]), torch.tensor([[1, 5], [3, 5]])
_M2 = torch.tensor([[True, False, True, True, False, False]] * 2 + [[False] * 6, [True] * 6,
                   [False, True, False, False, True, True]])
_M1 = torch.tensor([False, True, True, False, False, True])

INDEX_PUTS = {
    "2d_indices": (lambda x, i, j, v: A.index_put(x, [i, j], v), (_X, _I2, _J2, _r(2, 2, 7))),
    "2d_indices_accumulate": (lambda x, i, j, v: A.index_put(x, [i, j], v, True), (_X, _I2, _J2, _r(2, 2, 7))),
    "2d_after_none": (lambda x, i, v: A.index_put(x, [None, i], v), (_X, _I2, _r(5, 2, 2, 7))),
    "repeated_positions_last_wins": (lambda x, i, v: A.index_put(x, [i], v), (_X, torch.tensor([[0, 3, 0]]), _r(1, 3, 6, 7))),
    "mask": (lambda x, m, v: A.index_put(x, [m], v), (_X, _M2, _r(int(_M2.sum()), 7))),
    "mask_accumulate": (lambda x, m, v: A.index_put(x, [m], v, True), (_X, _M2, _r(int(_M2.sum()), 7))),
    "mask_scalar_value": (lambda x, m, v: A.index_put(x, [m], v), (_X, _M2, torch.tensor(3.0))),
    "mask_after_none": (lambda x, m, v: A.index_put(x, [None, m], v), (_X, _M1, _r(5, int(_M1.sum()), 7))),
}


@pytest.mark.parametrize("name", sorted(INDEX_PUTS))
def test_index_put_matches_eager(name: str) -> None:
    f, args = INDEX_PUTS[name]
    _matches_eager(f, *args)


@pytest.mark.parametrize("mask", [_M2.unsqueeze(-1), _M1.unsqueeze(-1), torch.tensor(True)], ids=["2d", "broadcast", "0d"])
def test_masked_scatter_takes_source_in_order(mask: Any) -> None:
    _matches_eager(lambda x, m, s: A.masked_scatter(x, m, s), _X, mask, _r(300))


def test_batch_norm_statistics_match_eager() -> None:
    x, w, b, mean, var = _r(2, 3, 4, 4), _r(3), _r(3), _r(3), torch.rand(3) + 0.5
    _matches_eager(lambda x, w, b: A._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5), x, w, b)
    _matches_eager(lambda x, w, b, m, v: A._native_batch_norm_legit_no_training(x, w, b, m, v, 0.1, 1e-5),
                   x, w, b, mean, var)


def test_backward_ops_and_none_outputs_match_eager() -> None:
    """A convolution's and a pool's gradients (gathers over the windows covering each
    input position); an unrequested gradient is a None output of the compiled network."""
    x, w = _r(2, 4, 7, 6), _r(6, 2, 3, 3)
    conv = ([2, 1], [1, 0], [1, 2], False, [0, 0], 2)

    def conv_grads(x: Any, w: Any) -> Any:
        y = A.convolution(x, w, None, *conv)
        return A.convolution_backward(y, x, w, None, *conv, [True, True, False])

    _matches_eager(conv_grads, x, w)
    pool = ([3, 2], [2, 2], [1, 0], True, False, None)
    _matches_eager(lambda x: A.avg_pool2d_backward(A.avg_pool2d(x, *pool), x, *pool), x)
    _matches_eager(lambda x: A._adaptive_avg_pool2d_backward(A._adaptive_avg_pool2d(x, [3, 4]), x), x)

    def max_grad(x: Any) -> Any:
        y, idx = A.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1], [1, 1], False)
        return A.max_pool2d_with_indices_backward(y, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx)

    _matches_eager(max_grad, x)


def test_scatter_into_and_from_0d_tensors_matches_eager() -> None:
    """torch scatters 0-d tensors as one-element rows (and returns a 0-d result)."""
    index = torch.tensor(0)
    _matches_eager(lambda x, s: (A.scatter.value(x, 0, index, 2.5), A.scatter.src(x, 0, index, s),
                                 A.scatter_add(x, 0, index, s)), torch.tensor(0.7), torch.tensor(-1.2))
    _matches_eager(lambda x, s: A.scatter.src(x, 0, torch.tensor([1]), s), _r(3), torch.tensor(-1.2))


def test_uint8_tensors_are_unsigned_in_and_out() -> None:
    """uint8 inputs and outputs keep their dtype (the compiled function takes and returns
    uint8 arrays), and the math on them is unsigned: 200 > 100, 200 / 3, max(200, 7)."""
    pixels = torch.tensor([[0, 7, 100, 127, 128, 200, 255, 3]], dtype=torch.uint8)
    scale = torch.rand(1, 8) * 250

    def f(p: Any, s: Any) -> Any:
        q = s.to(torch.uint8)
        return (q, p.to(torch.float32) / 255, p > 100, torch.maximum(p, q), p // 3, p % 7, p + q,
                p.to(torch.int32) - 128, torch.where(p >= 128, p, q))

    _matches_eager(f, pixels, scale)


def test_uint8_arguments_of_build_are_numpy_uint8() -> None:
    import numpy as np

    from compiler import te

    x = te.placeholder((8,), "uint8", name="x")
    y = te.compute((8,), lambda i: te.maximum(x[i], te.const(130, "uint8")), name="y")
    f = compiler.build([x, y])
    data = np.array([0, 7, 100, 127, 128, 200, 255, 3], np.uint8)
    out = np.zeros(8, np.uint8)
    f(data, out)
    np.testing.assert_array_equal(out, np.maximum(data, 130))
    with pytest.raises(compiler.errors.ArgumentTypeError, match="uint8"):
        f(data.astype(np.int8), out)
