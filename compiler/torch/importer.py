"""torch.export's ATen graph -> te tensors and a fusion schedule.

```
module, example args, dynamic_shapes
   | torch.export.export(...), decompose.decompose(...)  Core ATen, SymInt shapes (decompose.py:
   |                                                      composites decomposed but KEEP_WHOLE)
   v
placeholders   parameters/buffers -> constants; user inputs -> te.placeholder with te.var dims
   | fold constants     nodes computed from constants alone run once, in torch
   | check ops          every remaining op has a converter, else ONE error (op, node, source line)
   | fold batch norm    eval-mode batch norm after a conv scales the conv's weights and bias
   | convert            aten.py's converters call compiler.ops; shapes are checked against torch's
   v
te tensors (outputs) + schedule: injective stages with one consumer, itself injective,
are inlined into it (bias, activation, permute, view, slice... cost no buffer)
```

Known limits: inputs must be tensors whose symbolic dimensions are plain
`torch.export.Dim`s (no derived `2 * d`); data-dependent shapes and
control flow (torch.cond) are not supported.
"""

from __future__ import annotations

import inspect
import operator
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import fx
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils import _pytree

from compiler import ops, te
from compiler.auto_schedule.inlining import Producer, inlined_stages, transposes_last
from compiler.dialects.shape import ANY_SIZE
from compiler.errors import ExprValueError, InternalError
from compiler.names import fresh_name
from compiler.te.reducers import Reduce
from compiler.te.tensors import Read, collect_stages
from compiler.te.traversal import walk
from compiler.torch import state
from compiler.torch.aten import IDENTITY_OPS, IGNORED_OPS, OPS
from compiler.torch.aten_index import REFUSED
from compiler.torch.aten_norm import fold_batch_norm
from compiler.torch.decompose import decompose
from compiler.torch.graph import (
    Converter,
    ParamArray,
    Permuted,
    UnsupportedOperatorError,
    module_path,
    op_name,
    sanitize,
    te_dtype,
    where,
)
from compiler.torch.symbolic import eval_dim

SYM_OPS: dict[Callable[..., Any], Callable[..., Any]] = {
    operator.add: operator.add,
    operator.sub: operator.sub,
    operator.mul: operator.mul,
    operator.floordiv: operator.floordiv,
    operator.mod: operator.mod,
    operator.neg: operator.neg,
}
"""Arithmetic on SymInts (sizes computed in the graph)."""

_TRAINING = " (the module is in training mode: call module.eval() before from_torch)"
HINTS = {
    "aten.native_batch_norm.default": _TRAINING,
}
"""Why an unsupported op usually appears."""

CONV_OPS = ("aten.conv2d.default", "aten.convolution.default")
BN_OPS = ("aten._native_batch_norm_legit_no_training.default", "aten.batch_norm.default")


@dataclass(frozen=True)
class Origin:
    """Where a te stage came from: the fx node, its ATen op(s) (a conv with the batch norm
    folded into it names both) and the path of its innermost torch module (`layer1.0.conv1`,
    '' for the top module)."""

    node: str
    op: str
    module: str


@dataclass
class ImportedGraph:
    """What the importer made of a program: te tensors and how to call them."""

    inputs: list[te.Tensor]
    params: list[te.Tensor]
    param_values: list[ParamArray]
    outputs: list[te.Tensor]
    out_spec: Any
    schedule: te.Schedule
    inlined: list[str] = field(default_factory=list)
    folded_batch_norms: list[str] = field(default_factory=list)
    origins: dict[str, Origin] = field(default_factory=dict)
    """The node each te stage was made for, by stage name (the profiler's module column)."""
    state: state.StatePlan | None = None
    none_outputs: tuple[int, ...] = ()
    """The user outputs that are None (a backward op's unrequested gradient), by position."""
    """The buffers the program writes and the outputs carrying the writes (compiler.torch.state)."""


def export(
    module: torch.nn.Module, example_args: Sequence[Any], dynamic_shapes: Any = None, strict: bool = False
) -> ExportedProgram:
    """torch.export (`strict` is its option), then functional ATen: in-place ops replaced,
    and every composite op the importer does not keep whole (`decompose.KEEP_WHOLE`)
    decomposed by torch's table down to the Core ATen opset."""
    with warnings.catch_warnings():  # torch's own deprecation noise (pytree LeafSpec)
        warnings.filterwarnings("ignore", category=FutureWarning, module="copyreg")
        try:  # torch's failures become an error naming the module (compiler.torch.state)
            program = torch.export.export(module, tuple(example_args), dynamic_shapes=dynamic_shapes, strict=strict)
            if not strict:
                program = state.export_strict_if_aliased(program, module, tuple(example_args), dynamic_shapes)
            functional = decompose(program)
        except Exception as err:
            raise state.export_error(module, err) from err
        return functional


def dim_names(module: torch.nn.Module, n_inputs: int, dynamic_shapes: Any) -> list[dict[int, str]]:
    """The names of the `torch.export.Dim`s given for each input dimension."""
    names: list[dict[int, str]] = [{} for _ in range(n_inputs)]
    if dynamic_shapes is None:
        return names
    if isinstance(dynamic_shapes, dict):
        try:
            params = list(inspect.signature(module.forward).parameters)
        except (TypeError, ValueError):
            params = []
        specs = [dynamic_shapes.get(p) for p in params[:n_inputs]]
    else:
        specs = list(dynamic_shapes)[:n_inputs]
    for k, spec in enumerate(specs):
        items = spec.items() if isinstance(spec, dict) else enumerate(spec) if isinstance(spec, list | tuple) else ()
        for axis, dim in items:
            name = getattr(dim, "__name__", None)
            if isinstance(name, str) and name.isidentifier():
                names[k][int(axis)] = name
    return names


class Importer:
    def __init__(self, program: ExportedProgram, names: list[dict[int, str]], channels_last: bool = True):
        self.program = program
        self.graph = program.graph
        self.cx = Converter(channels_last=channels_last)
        self.names = names
        self.symbols: dict[str, te.Var] = {}  # sympy symbol name -> te var
        self.cx.symbols = self.symbols  # converters read torch's symbolic sizes too
        self.hints: dict[str, int] = {}  # te var name -> the example's value
        self.constants: dict[fx.Node, torch.Tensor] = {}
        self.inputs: list[te.Tensor] = []
        self.folded: dict[fx.Node, tuple[torch.Tensor, torch.Tensor]] = {}  # conv -> folded weight, bias
        self.bn_of_conv: dict[fx.Node, fx.Node] = {}
        self.none_outputs: list[int] = []
        self.origin_of: dict[int, Origin] = {}  # stage uid -> the node that made it
        self._stages_seen: set[int] = set()
        self.state = state.StateImport(program)  # the buffers the program writes

    # -- placeholders --------------------------------------------------------

    def bind_placeholders(self) -> None:
        sig = self.program.graph_signature
        nodes = [n for n in self.graph.nodes if n.op == "placeholder"]
        user = 0
        for node, spec in zip(nodes, sig.input_specs, strict=True):
            if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                assert spec.target is not None
                state = self.program.state_dict
                value = (state[spec.target] if spec.target in state else self.program.constants[spec.target]).detach()
                if spec.target in self.state.mutated:  # state: a placeholder, not a constant
                    self.cx.values[node] = self.state.bind(self.cx, node, spec.target, value)
                    continue
                self.constants[node] = value
                self.cx.values[node] = value
                self.cx.const_names[id(value)] = spec.target
            elif spec.kind == InputKind.USER_INPUT and node.meta.get("val", 0) is None:
                self.cx.values[node] = None  # an argument given as None (strict export keeps it)
                user += 1
            elif spec.kind == InputKind.USER_INPUT:
                self.cx.values[node] = self.user_input(node, user)
                user += 1
            else:
                raise UnsupportedOperatorError(f"from_torch: an input of kind {spec.kind.name} ({node.name}) is not supported", node)

    def user_input(self, node: fx.Node, k: int) -> te.Tensor:
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise UnsupportedOperatorError(
                f"from_torch: input '{node.name}' is a {type(val).__name__}; only tensor inputs are supported", node
            )
        shape: list[int | te.Var] = []
        for axis, d in enumerate(val.shape):
            if isinstance(d, int) or d.node.expr.is_Integer:  # Dim.AUTO may specialize a size
                shape.append(int(d))
                continue
            expr = d.node.expr
            if not hasattr(expr, "name") or not getattr(expr, "is_Symbol", False):
                raise UnsupportedOperatorError(
                    f"from_torch: dimension {axis} of input '{node.name}' is {expr}; only plain "
                    "torch.export.Dim dimensions are supported (no derived dimensions)", node
                )
            if expr.name not in self.symbols:
                name = self.names[k].get(axis) if k < len(self.names) else None
                name = self.cx.unique(name or f"{node.name}_{axis}")
                lower, upper = self.size_range(expr)
                self.symbols[expr.name] = te.var(name, lower=lower, upper=upper)
                self.hints[name] = int(d.node.hint)
            shape.append(self.symbols[expr.name])
        t = te.placeholder(tuple(shape), te_dtype(val.dtype, f"input {node.name}"), name=self.cx.unique(node.name))
        self.inputs.append(t)
        return t

    # -- constants and checks --------------------------------------------------

    def fold_constants(self) -> None:
        """Run in torch every node whose tensor inputs are all constants (a split of a
        constant too: nn.MultiheadAttention's in_proj_weight split into q, k and v is three
        constant weights, which a linear lays out for its tiles, not three slices computed
        at run time)."""
        tuples: dict[fx.Node, tuple[torch.Tensor, ...]] = {}
        for node in self.graph.nodes:
            if node.op != "call_function":
                continue
            if node.target is operator.getitem:
                source, index = node.args
                if source in tuples:
                    self.constants[node] = self.cx.values[node] = tuples[source][index]
                continue
            inputs = node.all_input_nodes
            if not all(n in self.constants for n in inputs) or op_name(node) in IGNORED_OPS:
                continue
            if not inputs and not isinstance(node.meta.get("val"), torch.Tensor):
                continue
            args, kwargs = fx.node.map_arg((node.args, node.kwargs), lambda n: self.constants[n])
            try:
                with torch.no_grad():
                    value = node.target(*args, **kwargs)
            except Exception:  # left to the converter, which reports it
                continue
            if isinstance(value, torch.Tensor):
                self.constants[node] = value
                self.cx.values[node] = value
            elif isinstance(value, tuple | list) and value and all(isinstance(v, torch.Tensor) for v in value):
                tuples[node] = self.cx.values[node] = tuple(value)
                source = self.cx.const_names.get(id(args[0])) if args else None
                for k, piece in enumerate(value if source else ()):
                    self.cx.const_names[id(piece)] = f"{source}_{k}"  # in_proj_weight_0: q's weight

    def is_known(self, node: fx.Node) -> bool:
        name = op_name(node)
        return (
            node in self.cx.values  # folded (a constant, or a split of one)
            or node.target is operator.getitem
            or node.target in SYM_OPS
            or name in OPS
            or name in IDENTITY_OPS
            or name in IGNORED_OPS
        )

    def check_ops(self) -> None:
        """One error for every unsupported operator, before anything is converted."""
        bad = [n for n in self.graph.nodes if n.op == "call_function" and not self.is_known(n)]
        if bad:
            first = bad[0]
            others = sorted({op_name(n) for n in bad[1:]} - {op_name(first)})
            also = f"; also unsupported: {', '.join(others)}" if others else ""
            hint = HINTS.get(op_name(first), "") or (f" ({REFUSED[op_name(first)]})" if op_name(first) in REFUSED else "")
            raise UnsupportedOperatorError(
                f"from_torch: {op_name(first)} is not supported{hint} ({len(bad)} unsupported node(s){also})\n"
                f"  first at {where(first)}",
                first,
            )
        for spec in self.program.graph_signature.output_specs:
            if spec.kind not in (OutputKind.USER_OUTPUT, OutputKind.BUFFER_MUTATION):
                raise UnsupportedOperatorError(
                    f"from_torch: the program has a {spec.kind.name} output ({spec.arg}); a module that "
                    "mutates its inputs or parameters is not supported (buffers are: compiler.torch.state)"
                )

    def plan_batch_norm_folding(self) -> None:
        """Eval-mode batch norms whose input is a conv used only by them fold into the conv."""
        for bn in self.graph.nodes:
            if op_name(bn) not in BN_OPS or not isinstance(bn.args[0], fx.Node):
                continue
            conv = bn.args[0]
            if op_name(conv) not in CONV_OPS or len(conv.users) != 1 or conv in self.constants:
                continue
            if op_name(conv) == "aten.convolution.default" and conv.args[6]:
                continue  # transposed
            if op_name(bn) == "aten.batch_norm.default" and bn.args[5]:
                continue  # training
            weight = conv.args[1]
            bias = conv.args[2] if len(conv.args) > 2 else conv.kwargs.get("bias")
            gamma, beta, mean, var = bn.args[1:5]
            eps = bn.args[6] if op_name(bn) == BN_OPS[0] else bn.args[7]
            stats = [gamma, beta, mean, var]
            if weight not in self.constants or (bias is not None and bias not in self.constants):
                continue
            if not all(s is None or s in self.constants for s in stats):
                continue
            if not isinstance(weight, fx.Node) or not isinstance(mean, fx.Node) or not isinstance(var, fx.Node):
                continue  # the fold needs the weight and the running statistics as graph constants
            scale, shift = fold_batch_norm(
                self.constants[mean],
                self.constants[var],
                self.constants[gamma] if isinstance(gamma, fx.Node) else None,
                self.constants[beta] if isinstance(beta, fx.Node) else None,
                float(eps),
            )
            w = self.constants[weight]
            b = self.constants[bias].double().numpy() if isinstance(bias, fx.Node) else 0.0
            per_channel = scale.reshape(-1, *([1] * (w.ndim - 1)))
            if w.dtype == torch.float32:  # one rounding either way; float64 copies of every
                fw = torch.from_numpy(w.numpy() * per_channel.astype(np.float32))  # weight cost ResNet-50 0.7 s
            else:
                fw = torch.from_numpy(w.double().numpy() * per_channel).to(w.dtype)
            fb = torch.from_numpy(b * scale + shift).to(w.dtype)
            self.folded[conv] = (fw, fb)
            source = self.cx.const_names.get(id(w), conv.name)
            self.cx.const_names[id(fw)] = f"{source}_folded"
            self.cx.const_names[id(fb)] = f"{source.removesuffix('weight')}bias_folded"
            self.bn_of_conv[bn] = conv

    # -- conversion ------------------------------------------------------------

    def convert(self) -> None:
        values = self.cx.values
        for node in self.graph.nodes:
            if node.op != "call_function" or node in values:
                continue
            self.cx.node = node
            name = op_name(node)
            if node.target is operator.getitem:
                source, index = node.args
                values[node] = values[source][index]
                continue
            args, kwargs = fx.node.map_arg((node.args, node.kwargs), lambda n: values[n])
            try:
                if node in self.bn_of_conv:
                    conv_value = values[self.bn_of_conv[node]]
                    values[node] = (conv_value, None, None) if name == BN_OPS[0] else conv_value
                elif node.target in SYM_OPS:
                    values[node] = SYM_OPS[node.target](*args)
                elif name in IDENTITY_OPS:
                    values[node] = args[0]
                elif name in IGNORED_OPS:
                    values[node] = None
                else:
                    if node in self.folded:
                        w, b = self.folded[node]
                        args = (args[0], w, b, *args[3:])
                        kwargs = {k: v for k, v in kwargs.items() if k != "bias"}
                    values[node] = OPS[name](self.cx, *args, **kwargs)
            except UnsupportedOperatorError as err:
                raise UnsupportedOperatorError(f"from_torch: {name}: {err}\n  at {where(node)}", node) from None
            except (ValueError, TypeError, IndexError) as err:
                raise ExprValueError(f"from_torch: cannot lower {name}: {err}\n  at {where(node)}") from err
            values[node] = self.match_torch(node, values[node])
            self.record_origin(node, values[node])

    def record_origin(self, node: fx.Node, value: Any) -> None:
        """The stages made while converting `node` (those its value reaches that no earlier
        node made) came from it."""
        tensors = [v.tensor if isinstance(v, Permuted) else v for v in _pytree.tree_leaves(value)]
        new = collect_stages([t for t in tensors if isinstance(t, te.Tensor)], self._stages_seen)
        if not new:
            return
        found = module_path(node)
        op = op_name(node)
        folded = [bn for bn, conv in self.bn_of_conv.items() if conv is node]
        if folded:
            op = f"{op} + {op_name(folded[0])}"
        origin = Origin(node.name, op, found[0] if found is not None else "")
        for t in new:
            self.origin_of[t.uid] = origin

    def match_torch(self, node: fx.Node, value: Any) -> Any:
        """Check a converted tensor's shape against torch's (at the example's sizes) and
        cast to torch's dtype where type promotion differs."""
        val = node.meta.get("val")
        if not isinstance(value, te.Tensor | Permuted) or not isinstance(val, torch.Tensor):
            return value
        expected = [int(d) if isinstance(d, int) else d.node.hint for d in val.shape]
        try:
            got = [eval_dim(d, self.hints) for d in value.shape]
        except (KeyError, TypeError):
            got = None
        if got is not None and None not in expected and got != expected:
            raise InternalError(
                f"internal error: from_torch lowered {op_name(node)} to a tensor of shape {got} at the "
                f"example's sizes, torch computes {expected}\n  at {where(node)}"
            )
        if isinstance(value, te.Tensor):
            value = self.cx.torch_shaped(value)
        dtype = te_dtype(val.dtype, node.name)
        if dtype != value.dtype:
            if isinstance(value, Permuted):
                return Permuted(ops.cast(value.tensor, dtype, name=f"{sanitize(node.name)}_cast"), value.perm)
            return ops.cast(value, dtype, name=f"{sanitize(node.name)}_cast")
        return value

    def outputs(self) -> list[te.Tensor]:
        out_node = next(n for n in self.graph.nodes if n.op == "output")
        specs = self.program.graph_signature.output_specs
        user = [a for a, spec in zip(out_node.args[0], specs, strict=True) if spec.kind == OutputKind.USER_OUTPUT]
        results: list[te.Tensor] = []
        seen: set[int] = set()
        for k, arg in enumerate(user):
            value = self.cx.values.get(arg) if isinstance(arg, fx.Node) else arg
            if arg is None:
                self.none_outputs.append(k)
                continue
            self.cx.node = arg if isinstance(arg, fx.Node) else None
            if isinstance(value, torch.Tensor | Permuted):
                value = self.cx.tensor(value, f"output{k}")
            if not isinstance(value, te.Tensor):
                raise UnsupportedOperatorError(f"from_torch: output {k} is a {type(value).__name__}, not a tensor")
            if value.is_placeholder or value.uid in seen:  # an output must be a stage of its own
                t = value
                value = te.compute(t.shape, lambda *i, t=t: t[i], name=self.cx.unique(f"output{k}"))
            seen.add(value.uid)
            results.append(value)
        return results

    def size_range(self, symbol: Any) -> tuple[int, int | None]:
        """The range torch.export derived for a dimension's symbol, at least 1: a compiled
        network refuses an empty dimension (with 0 possible, the bounds of every blocked loop
        over it hedge for it and nest at each stage)."""
        vr = self.program.range_constraints.get(symbol)
        lower, upper = ANY_SIZE if vr is None else (_finite(vr.lower) or 0, _finite(vr.upper))
        return max(lower, 1), upper if upper is None else max(upper, 1)


def rename_stages_like_placeholders(outputs: Sequence[te.Tensor], placeholders: Sequence[te.Tensor]) -> None:
    """A stage named like an argument gets a suffix: argument names must be unique."""
    taken = {p.name for p in placeholders}
    for t in collect_stages(outputs):
        if t.name in taken:
            t.op.name = fresh_name(t.name, taken, "_")
        taken.add(t.name)


def _finite(v: Any) -> int | None:
    """An integer bound of torch's value ranges, None for +-infinity (`int_oo`)."""
    import sympy

    return int(v) if isinstance(v, int | sympy.Integer) else None


def fusion_schedule(outputs: Sequence[te.Tensor]) -> tuple[te.Schedule, list[str]]:
    """TVM's injective fusion, without recomputation: the inlining policy of the
    auto-scheduler (`compiler.auto_schedule.inlining`) with `recompute=False`.

    A stage with one consumer is inlined into it when the code lands (through the
    consumer's own inlining) in:
    * any stage, if the stage only moves elements (its element is one read: a permute,
      view, slice...), which costs index arithmetic only (unless it holds a guard and
      lands in a reduction);
    * a stage that is not a reduction, evaluated once per element there, otherwise
      (elementwise chains, bias adds, activations: they land in the next stage that
      needs a buffer, e.g. a conv's pad or a residual add).
    Reductions and outputs always get a buffer, and so does a stage that rounds a wider
    accumulator attached in its loops (`Operation.attach_to`, which create_schedule
    honours: float16 convolutions, products and sums accumulate in float32 registers)."""
    stages = collect_stages(outputs)
    schedule = te.create_schedule([o.op for o in outputs])
    by_key = {str(t.uid): t for t in stages}  # names may repeat: the policy reads uids
    inlined = [by_key[key] for key in inlined_stages(_producers(stages, {o.uid for o in outputs}), recompute=False)]
    for t in reversed(inlined):  # consumers first, as the policy visits them
        schedule[t].compute_inline()
    return schedule, [t.name for t in inlined]


def _producers(stages: list[te.Tensor], output_ids: set[int]) -> list[Producer]:
    """The stages as the inlining policy reads them, named by uid (consumers: the stages
    that read each, with their reads of it)."""
    consumers: dict[int, dict[str, int]] = {}
    for s in stages:
        assert s.op.body is not None
        reads = {id(n): n for n in walk(s.op.body) if isinstance(n, Read) and not n.tensor.is_placeholder}
        for r in reads.values():
            sites = consumers.setdefault(r.tensor.uid, {})
            sites[str(s.uid)] = sites.get(str(s.uid), 0) + 1
    rounding = {s.op.attach_to.uid for s in stages if s.op.attach_to is not None}
    return [
        Producer(
            str(t.uid),
            consumers.get(t.uid, {}),
            reduction=isinstance(t.op.body, Reduce),
            moves_only=isinstance(t.op.body, Read),
            guarded=any(isinstance(n, te.Select) for b in t.op.all_bodies() for n in walk(b)),
            transposes_last=_transposes_last(t),
            pinned=t.uid in output_ids or t.uid in rounding,
        )
        for t in stages
    ]


def _transposes_last(t: te.Tensor) -> bool:
    """`inlining.transposes_last` of `t`, if it only moves elements."""
    body = t.op.body
    if not isinstance(body, Read) or not t.op.axis:
        return False
    last = t.op.axis[-1].var
    return transposes_last([any(n is last for n in walk(i)) for i in body.indices])


def import_program(
    program: ExportedProgram, names: list[dict[int, str]], *, channels_last: bool = True
) -> ImportedGraph:
    imp = Importer(program, names, channels_last)
    imp.bind_placeholders()
    imp.fold_constants()
    imp.check_ops()
    imp.plan_batch_norm_folding()
    imp.convert()
    outputs = imp.outputs()
    plan = imp.state.plan(imp.cx, outputs)
    written = plan.outputs if plan is not None else []
    rename_stages_like_placeholders([*outputs, *written], [*imp.inputs, *imp.cx.params, *imp.state.tensors])
    schedule, inlined = fusion_schedule([*outputs, *written])
    inlined += state.inline_updates(schedule, [*outputs, *written], inlined)
    origins = {t.name: imp.origin_of[t.uid] for t in collect_stages([*outputs, *written]) if t.uid in imp.origin_of}
    return ImportedGraph(
        inputs=imp.inputs,
        params=imp.cx.params,
        param_values=imp.cx.param_values,
        outputs=outputs,
        out_spec=program.call_spec.out_spec,
        schedule=schedule,
        inlined=inlined,
        folded_batch_norms=[bn.name for bn in imp.bn_of_conv],
        origins=origins,
        state=plan,
        none_outputs=tuple(imp.none_outputs),
    )


__all__ = ["ImportedGraph", "Importer", "Origin", "dim_names", "export", "fusion_schedule", "import_program"]
