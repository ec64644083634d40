"""Reprs say what a thing is, public names have docstrings, and the docstring examples run."""

from __future__ import annotations

import doctest
import inspect
import re
import sys
from types import ModuleType

import numpy as np
import pytest

import compiler
from compiler import ops, te
from compiler.te.schedule import Schedule, Stage


def test_function_repr_names_arguments_shapes_dtypes_outputs_and_target() -> None:
    n = te.var("n")
    A = te.placeholder((n, 64), name="A")
    W = te.placeholder((64,), dtype="float16", name="W", strided=True)
    B = te.compute((n, 64), lambda i, j: A[i, j] + W[j].astype("float32"), name="B")
    f = compiler.build([A, W, B], name="add_row")
    target = f.target
    assert repr(f) == (
        "<Function add_row(A: float32[n, 64], W: float16[64] strided, out B: float32[n, 64]) "
        f"for {target['triple']} ({target['cpu']})>"
    )
    assert target["triple"].startswith(("x86_64", "aarch64", "arm64"))


def test_tensor_operation_and_itervar_reprs() -> None:
    n = te.var("n")
    A = te.placeholder((n + 2, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i + 1, k], axis=k), name="B")
    assert repr(A) == "Tensor(A, shape=(n + 2, 4), dtype=float32)"
    assert repr(B) == "Tensor(B, shape=(n,), dtype=float32)"
    assert repr(A.op) == "PlaceholderOp(A)"
    assert repr(B.op) == "ComputeOp(B, axis=[i], reduce_axis=[k])"
    assert repr(B.op.axis[0]) == "IterVar(i, [0, n))"
    assert repr(k) == "IterVar(k, [0, 4), reduce)"
    C = te.compute((te.max(n, 3) * 2,), lambda i: te.const(1.0), name="C", strided=True)
    assert repr(C) == "Tensor(C, shape=(max(n, 3) * 2,), dtype=float32, strided=True)"


def test_stage_and_schedule_reprs() -> None:
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((64, 64), lambda i, j: B[i, j] * 2.0, name="C")
    D = te.compute((64, 64), lambda i, j: C[i, j] - 1.0, name="D")
    s = te.create_schedule(D.op)
    assert repr(s[D]) == "Stage(D, leaf_axes=[i, j])"
    jo, ji = s[D].split(D.op.axis[1], factor=8)
    s[D].reorder(jo, D.op.axis[0], ji)
    s[C].compute_at(s[D], jo)
    s[B].compute_inline()
    assert repr(s[D]) == "Stage(D, leaf_axes=[j.outer, i, j.inner])"
    assert s[D].leaf_axes == [jo, D.op.axis[0], ji]
    assert repr(s[C]) == "Stage(C, leaf_axes=[i, j], attached at D.j.outer)"
    assert repr(s[B]) == "Stage(B, leaf_axes=[i, j], inline)"
    assert repr(s) == (
        "Schedule(outputs=[D], stages=[B (inline), C (attached at D.j.outer), D], primitives=["
        "split(D, j, factor=8), reorder(D, j.outer, i, j.inner), compute_at(C, D, j.outer), "
        "compute_inline(B)])"
    )


def test_memory_plan_repr() -> None:
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    memory = compiler.build(te.create_schedule(C.op), [A, C]).memory  # B stays a buffer
    assert memory is not None
    assert repr(memory) == (
        "<MemorySummary @main_compute: arena 256 bytes for 1 buffer(s) (B 256); without reuse 256; "
        "liveness lower bound 256>"
    )
    assert str(memory).splitlines()[0] == "memory plan of @main_compute:"


def test_torch_function_repr() -> None:
    torch = pytest.importorskip("torch")
    from torch.export import Dim

    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU()).eval()
    net = compiler.from_torch(model, (torch.randn(2, 8),), dynamic_shapes={"input": {0: Dim("batch")}})
    assert repr(net) == "<TorchFunction main(input: (batch, 8) float32) -> (batch, 4) float32, 2 parameters>"


# ---------------------------------------------------------------------------
# Docstrings
# ---------------------------------------------------------------------------


def public_callables(module: ModuleType) -> dict[str, object]:
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    found = {}
    for name in names:
        value = getattr(module, name)
        if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__.startswith("compiler"):
            found[name] = value
    return found


def generated_doc(cls: type) -> bool:
    """A dataclass's generated docstring is its signature, `Name(field: type, ...)`."""
    return (cls.__doc__ or "").startswith(f"{cls.__name__}(")


@pytest.mark.parametrize("module", [compiler, te, ops], ids=lambda m: m.__name__)
def test_public_names_have_docstrings(module: ModuleType) -> None:
    missing = []
    for name, value in public_callables(module).items():
        doc = inspect.getdoc(value) or ""
        if not doc.strip() or (inspect.isclass(value) and generated_doc(value)):
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("cls", [Stage, Schedule, compiler.Function], ids=lambda c: c.__name__)
def test_methods_have_docstrings(cls: type) -> None:
    missing = [
        name
        for name, value in vars(cls).items()
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))
        and not (inspect.getdoc(value) or "").strip()
    ]
    assert missing == []


CHEAP_DOCTESTS = [
    "compiler.errors",
    "compiler.te.reducers",
    "compiler.te.tensors",
    "compiler.te.scan",
    "compiler.te.schedule",
    "compiler.ops.elementwise",
    "compiler.driver.api",
    "compiler.driver.function",
]


@pytest.mark.parametrize("name", CHEAP_DOCTESTS)
def test_docstring_examples_run(name: str) -> None:
    """The examples of the main entry points (all but from_torch's, which exports a model)."""
    module = sys.modules[name] if name in sys.modules else __import__(name, fromlist=["_"])
    globs = {"compiler": compiler, "te": te, "ops": ops, "np": np}
    result = doctest.testmod(module, extraglobs=globs, optionflags=doctest.ELLIPSIS, report=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_doc_examples_cover_the_entry_points() -> None:
    for entry in (compiler.build, compiler.lower, te.compute, te.create_schedule, compiler.load_module):
        assert re.search(r"^\s*>>> ", inspect.getdoc(entry) or "", re.M), entry.__name__
    from compiler.torch import from_torch

    assert ">>> net = compiler.from_torch(" in (inspect.getdoc(from_torch) or "")
