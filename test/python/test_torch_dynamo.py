"""torch.compile(model, backend="xdsl_tc"): graph breaks, unsupported operators run
in eager (one warning with the count), Dynamo's dynamic shapes as te vars."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from compiler import te  # noqa: E402
from compiler.torch import dynamo_backend  # noqa: E402
from compiler.torch.dynamo import CompiledGraph  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_dynamo() -> Any:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class Recorder:
    """A backend that records the CompiledGraph objects dynamo_backend returns."""

    def __init__(self) -> None:
        self.graphs: list[CompiledGraph] = []

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        compiled = dynamo_backend(gm, example_inputs)
        assert isinstance(compiled, CompiledGraph)
        self.graphs.append(compiled)
        return compiled


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn(self.conv(x)))
        return self.fc(y.mean((2, 3)))


class WithBreakAndSort(nn.Module):
    """A graph break (a data-dependent Python branch) and an operator the compiler does not lower."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.tanh(self.a(x))
        if y.sum() > 0:  # graph break: the branch depends on the data
            y = y * 2.0
        z = torch.lgamma(self.b(y))  # not lowered: runs in eager
        return torch.relu(z) + y


def test_backend_is_registered_by_name() -> None:
    assert "xdsl_tc" in torch._dynamo.list_backends()
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(2, 3, 8, 8)
    compiled = torch.compile(model, backend="xdsl_tc")
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


def test_whole_graph_compiles_to_one_function_with_constants() -> None:
    torch.manual_seed(1)
    model = Block().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    x = torch.randn(1, 3, 8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing falls back
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    (graph,) = rec.graphs
    assert graph.net is not None
    assert graph.report is None
    assert len(graph.net.graph.inputs) == 1  # parameters and buffers are constants, not inputs
    assert graph.net.graph.folded_batch_norms  # ... so the batch norm folds into the conv


def test_graph_break_and_unsupported_op_match_eager_with_one_warning() -> None:
    torch.manual_seed(2)
    model = WithBreakAndSort().eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(4, 6)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = compiled(x)
            torch.testing.assert_close(got, model(x), rtol=1e-5, atol=1e-6)
            fallbacks = [str(w.message) for w in caught if "xdsl_tc" in str(w.message)]
            if _ == 0:
                assert len(rec.graphs) >= 2  # Dynamo split the function at the break
                assert any("1 of" in m and "aten.lgamma.default" in m for m in fallbacks), fallbacks
                assert len(fallbacks) == 1, fallbacks  # once, when that graph compiles
            else:
                assert not fallbacks  # compiled once: no warning on later calls
    partitioned = [g for g in rec.graphs if g.report is not None]
    assert partitioned
    assert partitioned[0].report is not None
    assert partitioned[0].report.fallback_nodes == 1
    assert partitioned[0].report.ops == {"aten.lgamma.default"}


def test_dynamic_shapes_are_te_vars_and_one_build_serves_every_size() -> None:
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4)).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec, dynamic=True)
    with torch.no_grad():
        for rows in (3, 7, 12):
            x = torch.randn(rows, 8)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    (graph,) = rec.graphs  # no recompilation
    assert graph.net is not None
    (x_in,) = graph.net.graph.inputs
    assert isinstance(x_in.shape[0], te.Var)
    assert x_in.shape[1] == 8


def test_automatic_dynamic_after_a_new_size() -> None:
    """Dynamo's default: static first, a symbolic build when the size changes."""
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(5, 5), nn.ReLU()).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    with torch.no_grad():
        for rows in (2, 3, 9):
            x = torch.randn(rows, 5)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
    assert len(rec.graphs) == 2
    first, second = (g.net for g in rec.graphs)
    assert first is not None
    assert second is not None
    assert first.graph.inputs[0].shape[0] == 2
    assert isinstance(second.graph.inputs[0].shape[0], te.Var)
