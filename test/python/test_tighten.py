"""Guard-aware bound inference (seed 000): same numbers as NumPy with the pass on
and off, and with it on, every padded chain keeps its buffers at their exact size."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from long_tests import examples
from references import conv2d_reference

import compiler
from compiler import ops, te

RNG = np.random.default_rng(3)


def alloc_shapes(loop_ir: str) -> dict[str, tuple[int, ...]]:
    found = re.findall(r'loop\.alloc "(\w+)" \[[^\]]*\] : !loop\.buffer<\[([^\]]*)\]', loop_ir)
    return {name: tuple(int(d) for d in dims.split(", ")) for name, dims in found}


def conv_chain(pads: list[int], size: int = 9, channels: int = 2) -> tuple[list[te.Tensor], te.Tensor]:
    x = te.placeholder((1, channels, size, size), name="x")
    ws = [te.placeholder((channels, channels, 3, 3), name=f"w{k}") for k in range(len(pads))]
    y = x
    for k, (w, p) in enumerate(zip(ws, pads, strict=True)):
        y = ops.conv2d_nchw(y, w, padding=p, name=f"y{k}")
    return [x, *ws], y


@pytest.mark.parametrize("tighten", [True, False])
def test_seed_chain_matches_numpy(tighten: bool) -> None:
    inputs, y = conv_chain([0, 1, 1])
    f = compiler.build([*inputs, y], tighten_pad_regions=tighten)
    xs = [RNG.standard_normal(tuple(int(d) for d in t.shape)).astype(np.float32) for t in inputs]
    out = np.zeros((1, 2, 7, 7), np.float32)
    f(*xs, out)
    expected = xs[0]
    for w, p in zip(xs[1:], [0, 1, 1], strict=True):
        expected = conv2d_reference(expected, w, 1, p)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    shapes = alloc_shapes(f.loop_ir)
    if tighten:
        assert shapes == {"y0": (1, 2, 7, 7), "y1_pad": (1, 2, 9, 9), "y1": (1, 2, 7, 7), "y2_pad": (1, 2, 9, 9)}
    else:  # TVM's growth, compounding backwards: y1 9x9, y1_pad and y0 11x11
        assert shapes == {"y0": (1, 2, 11, 11), "y1_pad": (1, 2, 11, 11), "y1": (1, 2, 9, 9), "y2_pad": (1, 2, 9, 9)}


@settings(max_examples=examples(4, 10), deadline=None)
@given(
    pads=st.lists(st.integers(0, 2), min_size=1, max_size=3),
    size=st.integers(7, 9),
)
def test_random_padded_chains_stay_tight(pads: list[int], size: int) -> None:
    """Every intermediate conv is realized at exactly its shape, every pad at its shape."""
    inputs, y = conv_chain(pads, size=size, channels=1)
    f = compiler.build([*inputs, y])
    shapes = alloc_shapes(f.loop_ir)
    expected_size = size
    for k, p in enumerate(pads):
        if p:
            assert shapes[f"y{k}_pad"] == (1, 1, expected_size + 2 * p, expected_size + 2 * p)
        expected_size = expected_size + 2 * p - 2
        if k < len(pads) - 1:
            assert shapes[f"y{k}"] == (1, 1, expected_size, expected_size)
    xs = [RNG.standard_normal(tuple(int(d) for d in t.shape)).astype(np.float32) for t in inputs]
    out = np.zeros(tuple(int(d) for d in y.shape), np.float32)
    f(*xs, out)
    expected = xs[0]
    for w, p in zip(xs[1:], pads, strict=True):
        expected = conv2d_reference(expected, w, 1, p)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
