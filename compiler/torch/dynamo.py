"""`torch.compile(model, backend="xdsl_tc")`: a TorchDynamo backend.

```
Dynamo's FX graph (torch ops; parameters, buffers and SymInt sizes as inputs)
   | parameters and buffers become constants of the graph (read once, when compiled)
   | SymInt inputs are recomputed from the tensor sizes they name
   | torch.export of that wrapper, Dynamo's symbolic dimensions -> Dim.AUTO  -> ATen graph
   v
every node lowers?  yes -> one `from_torch` build (symbolic dims are te.vars)
                    no  -> CapabilityBasedPartitioner: maximal runs of lowered nodes become
                           submodules, each compiled by `from_torch` at its first call;
                           the other nodes (and any submodule that fails to compile) run in
                           torch, with one warning saying how many nodes fell back
```

Registered as "xdsl_tc" through the `torch_dynamo_backends` entry point (and on
import of this module). The backend is for inference: outputs carry no autograd
history, and parameters are read when a graph is compiled (an in-place update of
the weights afterwards is not seen: call `torch._dynamo.reset()`).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import fx
from torch.export import Dim
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase
from torch.utils import _pytree

from compiler.errors import CompilerError
from compiler.torch.aten import IDENTITY_OPS, IGNORED_OPS, OPS
from compiler.torch.graph import UnsupportedOperatorError, op_name
from compiler.torch.net import TorchFunction, from_torch

BACKEND_NAME = "xdsl_tc"


# ---------------------------------------------------------------------------
# Dynamo's inputs: constants, runtime tensors, sizes
# ---------------------------------------------------------------------------


def _is_constant(node: fx.Node, value: Any) -> bool:
    """Module state (parameters, buffers, float attributes Dynamo wraps as 0-d tensors:
    `L['self']._modules['ln'].eps`) and globals, as opposed to the call's own arguments
    (`L['x']`), by the source Dynamo records for the input."""
    if isinstance(value, torch.nn.Parameter):
        return True
    source = getattr(node.meta.get("grapharg"), "source", None)
    name = getattr(source, "name", None)
    if not isinstance(name, str):
        return False
    return name.startswith("L['self']") or not name.startswith("L[") or "._modules[" in name


@dataclass
class InputPlan:
    """Where each of Dynamo's graph inputs comes from when the compiled graph runs."""

    constants: dict[int, torch.Tensor] = field(default_factory=dict)  # position -> value, read once
    tensors: list[int] = field(default_factory=list)  # positions passed to the compiled function
    sizes: dict[int, tuple[int, int]] = field(default_factory=dict)  # SymInt position -> (tensor k, axis)
    fixed: dict[int, Any] = field(default_factory=dict)  # other numbers: constants of the build


def plan_inputs(gm: fx.GraphModule, example_inputs: Sequence[Any]) -> InputPlan:
    plan = InputPlan()
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    symbols: dict[str, tuple[int, int]] = {}
    for pos, (node, value) in enumerate(zip(placeholders, example_inputs, strict=True)):
        if isinstance(value, torch.Tensor) and _is_constant(node, value):
            plan.constants[pos] = value.detach()
        elif isinstance(value, torch.Tensor):
            fake = node.meta.get("example_value")
            for axis, d in enumerate(getattr(fake, "shape", ())):
                if isinstance(d, torch.SymInt):
                    symbols.setdefault(str(d.node.expr), (len(plan.tensors), axis))
            plan.tensors.append(pos)
    for pos, value in enumerate(example_inputs):
        if pos in plan.constants or pos in plan.tensors:
            continue
        key = str(value.node.expr) if isinstance(value, torch.SymInt) else None
        if key is not None and key in symbols:
            plan.sizes[pos] = symbols[key]
        else:  # set from the first call's values (Dynamo may pass floats as symbols)
            plan.fixed[pos] = None
    return plan


def inline_constant_items(gm: fx.GraphModule, plan: InputPlan) -> None:
    """`c.item()` of a 0-d constant (a float attribute such as a norm's eps) becomes the
    number itself: torch.export would see a data-dependent value."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    changed = False
    for pos, value in plan.constants.items():
        if value.ndim != 0:
            continue
        for item in [u for u in placeholders[pos].users if u.op == "call_method" and u.target == "item"]:
            number = value.item()
            for user in list(item.users):
                user.args = _pytree.tree_map(lambda a, i=item, v=number: v if a is i else a, user.args)
                user.kwargs = _pytree.tree_map(lambda a, i=item, v=number: v if a is i else a, user.kwargs)
            gm.graph.erase_node(item)
            changed = True
    if changed:
        gm.recompile()


class GraphOfTensors(torch.nn.Module):
    """Dynamo's graph as a module of its runtime tensors alone: constants are buffers,
    SymInt inputs are read off the tensors' sizes (what torch.export can trace)."""

    def __init__(self, gm: fx.GraphModule, plan: InputPlan):
        super().__init__()
        self.gm, self.plan = gm, plan
        for pos, value in plan.constants.items():
            self.register_buffer(f"c{pos}", value)

    def forward(self, *tensors: torch.Tensor) -> Any:
        n = len(self.plan.constants) + len(self.plan.tensors) + len(self.plan.sizes) + len(self.plan.fixed)
        args: list[Any] = [None] * n
        for pos in self.plan.constants:
            args[pos] = getattr(self, f"c{pos}")
        for k, pos in enumerate(self.plan.tensors):
            args[pos] = tensors[k]
        for pos, (k, axis) in self.plan.sizes.items():
            args[pos] = tensors[k].shape[axis]
        for pos, value in self.plan.fixed.items():
            args[pos] = value
        return self.gm(*args)


def dynamic_spec(values: Sequence[Any]) -> tuple[dict[int, Any] | None, ...] | None:
    """Dim.AUTO for every dimension that is symbolic in the fake values (None: all static)."""
    spec = []
    for v in values:
        dims = {axis: Dim.AUTO for axis, d in enumerate(getattr(v, "shape", ())) if isinstance(d, torch.SymInt)}
        spec.append(dims or None)
    return tuple(spec) if any(s is not None for s in spec) else None


# ---------------------------------------------------------------------------
# Running compiled code from torch
# ---------------------------------------------------------------------------


def _as_torch(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    if isinstance(value, tuple | list):
        return type(value)(_as_torch(v) for v in value)
    return value


def _call(net: TorchFunction, tensors: Sequence[torch.Tensor]) -> Any:
    return _as_torch(net(*(t.detach().contiguous() for t in tensors)))


class Supported(OperatorSupportBase):
    """Nodes the importer lowers to te stages (size arithmetic stays in torch: its
    results are Python ints, which a compiled partition cannot return)."""

    def is_node_supported(self, submodules: Any, node: fx.Node) -> bool:
        if node.op != "call_function":
            return False
        if node.target is operator.getitem:  # a part of a multi-result op goes with it
            source = node.args[0]
            return isinstance(source, fx.Node) and self.is_node_supported(submodules, source)
        name = op_name(node)
        if name == "aten.sym_size.int" or not isinstance(node.meta.get("val"), torch.Tensor | tuple | list):
            return False
        return name in OPS or name in IDENTITY_OPS or name in IGNORED_OPS


class CompiledPartition(torch.nn.Module):
    """A partition of lowered nodes, compiled by from_torch at its first call (its
    inputs' symbolic dimensions stay symbolic); one that fails to compile runs in torch."""

    def __init__(self, gm: fx.GraphModule, report: FallbackReport):
        super().__init__()
        self.gm, self.report = gm, report
        self.net: TorchFunction | None = None
        self.failed = False

    def forward(self, *args: Any) -> Any:
        if self.net is None and not self.failed:
            self.net = self._compile(args)
        if self.net is None:
            return self.gm(*args)
        return _call(self.net, args)

    def _compile(self, args: Sequence[Any]) -> TorchFunction | None:
        fakes = [n.meta.get("val") for n in self.gm.graph.nodes if n.op == "placeholder"]
        try:
            if not all(isinstance(a, torch.Tensor) for a in args):
                raise CompilerError("a partition input is not a tensor")
            return from_torch(self.gm, tuple(args), dynamic_shapes=dynamic_spec(fakes))
        except Exception as err:  # never an exception for what the compiler cannot do
            self.failed = True
            nodes = sum(1 for n in self.gm.graph.nodes if n.op == "call_function")
            self.report.warn_partition(nodes, err)
            return None


@dataclass
class FallbackReport:
    graph_nodes: int
    fallback_nodes: int = 0
    ops: set[str] = field(default_factory=set)

    def warn(self) -> None:
        warnings.warn(
            f"{BACKEND_NAME}: {self.fallback_nodes} of {self.graph_nodes} ATen node(s) of a graph run in torch eager "
            f"(not lowered: {', '.join(sorted(self.ops))}); the rest is compiled",
            stacklevel=3,
        )

    def warn_partition(self, nodes: int, err: Exception) -> None:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        warnings.warn(f"{BACKEND_NAME}: a partition of {nodes} node(s) runs in torch eager: {first}", stacklevel=3)


def partitioned(module: fx.GraphModule) -> tuple[fx.GraphModule, FallbackReport]:
    """The ATen graph with each maximal run of lowered nodes as a CompiledPartition."""
    calls = [n for n in module.graph.nodes if n.op == "call_function"]
    support = Supported()
    report = FallbackReport(sum(1 for n in calls if n.target is not operator.getitem))
    for n in calls:
        if not support.is_node_supported({}, n) and n.target is not operator.getitem:
            report.fallback_nodes += 1
            report.ops.add(op_name(n))
    split = CapabilityBasedPartitioner(module, support, allows_single_node_partition=True).partition_and_fuse()
    for node in split.graph.nodes:
        if node.op == "call_module" and str(node.target).startswith("fused_"):
            setattr(split, str(node.target), CompiledPartition(getattr(split, str(node.target)), report))
    return split, report


# ---------------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------------


class CompiledGraph:
    """What the backend returns for one Dynamo graph: compiled at its first call (outside
    Dynamo's tracing, where torch.export runs cleanly), then the compiled function, or
    the partitioned graph, on every call."""

    def __init__(self, gm: fx.GraphModule, plan: InputPlan, spec: Any):
        self.gm, self.plan, self.spec = gm, plan, spec
        self.run: Callable[[Sequence[torch.Tensor]], Any] | None = None
        self.net: TorchFunction | None = None  # the whole graph compiled, if it was
        self.report: FallbackReport | None = None  # what ran in torch, if it was partitioned

    def __call__(self, *args: Any) -> Any:
        tensors = [args[pos] for pos in self.plan.tensors]
        if self.run is None:
            self.plan.fixed = {pos: args[pos] for pos in self.plan.fixed}
            self.run = self._compile(tensors)
        elif any(args[pos] != value for pos, value in self.plan.fixed.items()):
            return self.gm(*args)  # a number the build took as a constant changed: eager
        with torch.no_grad():
            return self.run(tensors)

    def _compile(self, tensors: Sequence[torch.Tensor]) -> Callable[[Sequence[torch.Tensor]], Any]:
        wrapper = GraphOfTensors(self.gm, self.plan).eval()
        example = tuple(t.detach() for t in tensors)
        try:
            net = self.net = from_torch(wrapper, example, dynamic_shapes=self.spec)
            return lambda ts: _call(net, ts)
        except UnsupportedOperatorError:
            pass  # an operator it does not lower: partitions below
        except Exception as err:  # anything else (torch.export cannot trace it...): the graph as Dynamo gave it
            warnings.warn(f"{BACKEND_NAME}: a graph runs in torch eager: {str(err).splitlines()[0]}", stacklevel=3)
            return lambda ts: wrapper(*ts)
        from compiler.torch.importer import export

        split, self.report = partitioned(export(wrapper, example, self.spec).module())
        self.report.warn()
        return lambda ts: split(*ts)


def dynamo_backend(gm: fx.GraphModule, example_inputs: Sequence[Any], **options: Any) -> Callable[..., Any]:
    """Compile one FX graph of TorchDynamo: the whole graph in one function when every
    ATen node lowers, else the lowered partitions, the rest in torch (see the module
    docstring). Never raises for an operator the compiler does not lower."""
    plan = plan_inputs(gm, example_inputs)
    inline_constant_items(gm, plan)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    dims = dynamic_spec([placeholders[pos].meta.get("example_value") for pos in plan.tensors])
    return CompiledGraph(gm, plan, None if dims is None else (dims,))  # forward(*tensors): one tuple argument


def register() -> None:
    """Make `backend="xdsl_tc"` known to torch.compile (the entry point does it too)."""
    from torch._dynamo import list_backends, register_backend

    if BACKEND_NAME not in list_backends(exclude_tags=()):
        register_backend(dynamo_backend, name=BACKEND_NAME)


__all__ = ["BACKEND_NAME", "CompiledGraph", "dynamo_backend", "register"]
