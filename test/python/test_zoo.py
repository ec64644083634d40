"""The model zoo (`compiler.torch.zoo`): every `transformers` architecture family at its
small config, random weights (nothing is downloaded), against torch eager.

* `test_from_torch_matches_eager`: `from_torch` imports the family and its outputs match
  eager's (float32: the largest error is at most 1e-4 of the output's largest magnitude).
* `test_torch_compile_matches_eager`: `torch.compile(model, backend="xdsl_tc")` compiles
  the forward as one graph (`fullgraph=True`: a graph break raises), every node lowers
  (no eager fallback: no partition report, no warning) and the outputs match eager's.

`make test` runs the `FAST` families; the others are marked `long` (COMPILER_LONG_TESTS=1,
`make test-long`). A family that fails today is `xfail(strict=True)` with the first error
it stops on (`FROM_TORCH_XFAIL`, `DYNAMO_XFAIL`): the mark flips to a failure once it is
fixed, so that the table is kept up to date.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from compiler.torch import UnsupportedOperatorError, dynamo_backend, from_torch  # noqa: E402
from compiler.torch.dynamo import CompiledGraph  # noqa: E402
from compiler.torch.zoo import FAMILIES, MAX_DEFAULT_PARAMS, build, count_params  # noqa: E402

FAST = ("llama", "bloom")
"""The families of `make test` (a decoder with rotary embeddings and grouped key/values,
one with ALiBi, an encoder-decoder over audio; BERT, GPT-2, ViT and MobileNetV2 run in
test_torch_transformers.py; `make test` stays under 4 minutes): the others are `long`."""

UNSUPPORTED = UnsupportedOperatorError

FROM_TORCH_XFAIL: dict[str, tuple[type[BaseException], str]] = {}
"""Families `from_torch` does not import or does not match today: the error it raises
and the first unsupported operator (or the mismatch)."""

DYNAMO_FAST = ("distilbert",)
"""The families `test_torch_compile_matches_eager` runs in `make test` (it runs every
family in the long run): Dynamo's graph of a `transformers` model differs from
torch.export's (its own guards, the parameters as inputs)."""

DYNAMO_XFAIL: dict[str, tuple[type[BaseException], str]] = {}
"""Families that break the graph, fall back to eager or do not match today."""


def family_params(
    names: tuple[str, ...], xfail: dict[str, tuple[type[BaseException], str]], fast: tuple[str, ...]
) -> list[Any]:
    params = []
    for name in names:
        marks: list[Any] = []
        if name not in fast:
            marks.append(pytest.mark.long)
        if name in xfail:
            raises, reason = xfail[name]
            marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def assert_close(got: Any, expected: tuple[Any, ...]) -> None:
    got = tuple(got) if isinstance(got, (tuple, list)) else (got,)
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        g = g.detach().numpy() if isinstance(g, torch.Tensor) else np.asarray(g)
        e = e.detach().numpy()
        assert g.shape == e.shape, f"output {k}: shape {g.shape}, eager's {e.shape}"
        scale = float(np.abs(e).max())
        err = float(np.abs(g.astype(np.float64) - e).max())
        assert err <= 1e-4 * scale, f"output {k}: max error {err:.3g} against an output scale of {scale:.3g}"


@pytest.mark.parametrize("name", family_params(tuple(FAMILIES), FROM_TORCH_XFAIL, FAST))
def test_from_torch_matches_eager(name: str) -> None:
    case = build(name, small=True)
    with torch.no_grad():
        expected = case.module(*case.example_args)
    net = from_torch(case.module, case.example_args)
    assert_close(net(*case.example_args), expected)


@pytest.fixture
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("name", family_params(tuple(FAMILIES), DYNAMO_XFAIL, DYNAMO_FAST))
def test_torch_compile_matches_eager(name: str) -> None:
    graphs: list[CompiledGraph] = []

    def recorder(gm: Any, example_inputs: Any) -> Any:
        compiled = dynamo_backend(gm, example_inputs)
        assert isinstance(compiled, CompiledGraph)
        graphs.append(compiled)
        return compiled

    case = build(name, small=True)
    with torch.no_grad():
        expected = case.module(*case.example_args)
        compiled = torch.compile(case.module, backend=recorder, fullgraph=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = compiled(*case.example_args)
    fallbacks = [str(w.message) for w in caught if "xdsl_tc" in str(w.message)]
    assert not fallbacks, fallbacks
    assert len(graphs) == 1
    assert graphs[0].report is None, graphs[0].report  # every node lowered: nothing ran in eager
    assert graphs[0].net is not None
    assert_close(got, expected)


def test_every_default_override_says_why() -> None:
    for family in FAMILIES.values():
        assert bool(family.default or family.common) == bool(family.note), family.name


@pytest.mark.long
def test_default_configs_stay_under_the_parameter_budget() -> None:
    for family in FAMILIES.values():
        n = count_params(family, small=False)
        assert n <= MAX_DEFAULT_PARAMS, f"{family.name}: {n / 1e6:.0f}M parameters at its default config"
