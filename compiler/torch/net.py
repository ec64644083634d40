"""`from_torch`: a whole PyTorch module compiled into one function.

```python
net = compiler.from_torch(model.eval(), (x,), dynamic_shapes={"x": {2: Dim("h"), 3: Dim("w")}})
y = net(x_numpy)           # NumPy arrays or DLPack tensors in, NumPy arrays out
net.memory                 # storage-rewrite's plan of every intermediate buffer
print(net.lower(until="loop"))
```

The module goes through `torch.export`, its ATen graph becomes te stages
(`compiler.torch.importer`), and `compiler.build` compiles all of them into
one function whose arguments are the user inputs, then the parameters
(bound once here, passed by the wrapper on every call), then the outputs
(allocated by the wrapper at the sizes the inputs bind).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch.utils import _pytree

from compiler.driver import Function, build, lower
from compiler.errors import ArgumentTypeError, ArgumentValueError
from compiler.pipeline_options import PipelineOptions
from compiler.te import Dim
from compiler.te.nodes import Var
from compiler.torch.graph import ParamArray
from compiler.torch.importer import ImportedGraph, Origin, dim_names, export, import_program
from compiler.torch.symbolic import eval_dim

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from compiler.analysis.memory_summary import MemorySummary
    from compiler.pipeline import Stage
    from compiler.profile import Profile


def _shape_text(shape: Sequence[Dim]) -> str:
    return "(" + ", ".join(str(d) if isinstance(d, int) else getattr(d, "name", "?") for d in shape) + ")"


class TorchFunction:
    """A compiled PyTorch module: `net(*inputs)` returns its outputs as NumPy arrays.

    Attributes: `function` (the compiled `Function`), `graph` (the te tensors,
    parameters and schedule), `exported` (torch's ExportedProgram), `stats`
    (seconds per phase: export, import, passes, llvm, total).
    """

    def __init__(
        self,
        name: str,
        graph: ImportedGraph,
        function: Function,
        exported: Any,
        seconds: dict[str, float],
        auto_schedule: bool = False,
    ):
        self.name = name
        self.auto_schedule = auto_schedule
        self.graph = graph
        self.function = function
        self.exported = exported
        self.stats = seconds
        self._params = graph.param_values
        self._state = graph.state.arrays if graph.state is not None else []
        self._bool_outputs = _bool_outputs(exported)
        self._allocation: tuple[tuple[Any, ...], list[tuple[tuple[int, ...], Any]]] | None = None

    def __repr__(self) -> str:
        outputs = ", ".join(f"{_shape_text(t.shape)} {t.dtype}" for t in self.graph.outputs)
        state = f", {len(self.graph.state.buffers)} state buffers" if self.graph.state is not None else ""
        return (
            f"<TorchFunction {self.name}({', '.join(self.input_shapes)}) -> {outputs}, "
            f"{len(self.graph.params)} parameters{state}>"
        )

    @property
    def memory(self) -> MemorySummary | None:
        """The memory plan of the intermediate buffers (as `build(...).memory`), with the
        bytes of the constants bound once (`constants`: the parameters as prepared at
        import, weights blocked, batch norms folded) apart from them."""
        plan = self.function.memory
        if plan is None:
            return None
        state = self.graph.state.nbytes if self.graph.state is not None else None
        return dataclasses.replace(plan, constants=sum(int(v.nbytes) for v in self._params), state=state)

    @property
    def state(self) -> dict[str, np.ndarray]:
        """The buffers the program writes (a KV cache), by name in the module: the arrays the
        compiled function reads and the calls update in place (`compiler.torch.state`)."""
        return {b.name: b.array for b in self.graph.state.buffers} if self.graph.state is not None else {}

    def reset_state(self) -> None:
        """Give the state the values its buffers had when the module was exported."""
        if self.graph.state is not None:
            self.graph.state.reset()

    @property
    def parameters(self) -> dict[str, ParamArray]:
        """The constants bound at compile time (folded batch norms included), by argument name:
        NumPy arrays, and torch tensors for bfloat16 ones."""
        return {t.name: v for t, v in zip(self.graph.params, self._params, strict=True)}

    @property
    def input_shapes(self) -> list[str]:
        """The name, shape (symbolic dimensions by name) and dtype of each input, as text."""
        return [f"{t.name}: {_shape_text(t.shape)} {t.dtype}" for t in self.graph.inputs]

    def lower(self, until: Stage = "llvm") -> ModuleOp:
        """The IR of the whole network after the default pipeline (or after `until`)."""
        g = self.graph
        args = [*g.inputs, *g.params, *_state_args(g), *g.outputs, *_state_outputs(g)]
        return lower(g.schedule, args, name=self.name, until=until, auto_schedule=self.auto_schedule)

    def bind(self, arrays: Sequence[Any]) -> dict[str, int]:
        """The symbolic sizes the inputs bind; raises ValueError for a wrong shape."""
        g = self.graph
        if len(arrays) != len(g.inputs):
            raise ArgumentTypeError(f"{self.name}: expected {len(g.inputs)} input(s) ({', '.join(self.input_shapes)}), got {len(arrays)}")
        env: dict[str, int] = {}
        bound_from: dict[str, str] = {}
        for t, a in zip(g.inputs, arrays, strict=True):
            shape = getattr(a, "shape", None)
            if shape is None:
                raise ArgumentTypeError(f"{self.name}: input {t.name} must be an array or a DLPack tensor, got {type(a).__name__}")
            shape = tuple(int(d) for d in shape)
            if len(shape) != t.ndim:
                raise ArgumentValueError(
                    f"{self.name}: input {t.name} has {len(shape)} dimension(s) {shape}, expected {t.ndim} {_shape_text(t.shape)}"
                )
            for k, (size, d) in enumerate(zip(shape, t.shape, strict=True)):
                where = f"{t.name}.shape[{k}]"
                if isinstance(d, int):
                    if size != d:
                        raise ArgumentValueError(f"{self.name}: {where} is {size}, expected {d}")
                    continue
                assert isinstance(d, Var)
                if d.name in env:
                    if env[d.name] != size:
                        raise ArgumentValueError(
                            f"{self.name}: {where} is {size}, expected {d.name} = {env[d.name]} "
                            f"({d.name} bound from {bound_from[d.name]})"
                        )
                    continue
                if size < d.lower or (d.upper is not None and size > d.upper):
                    upper = "inf" if d.upper is None else d.upper
                    raise ArgumentValueError(
                        f"{self.name}: {where} is {size}, outside the range [{d.lower}, {upper}] of {d.name} "
                        "the network was compiled for (torch.export's, and no empty dimension)"
                    )
                env[d.name] = size
                bound_from[d.name] = where
        return env

    def output_shapes(self, env: dict[str, int]) -> list[tuple[int, ...]]:
        return [tuple(eval_dim(d, env) for d in t.shape) for t in self.graph.outputs]

    def __call__(self, *inputs: Any) -> Any:
        arrays, outputs = self._arguments(inputs)
        self.function(*arrays, *self._params, *self._state, *outputs)
        n = len(self.graph.outputs)
        if self.graph.state is not None:  # the rows written, into the state (in place)
            self.graph.state.write(outputs[n:])
        computed = iter(outputs[:n])
        results = [None if k in self.graph.none_outputs else next(computed)
                   for k in range(n + len(self.graph.none_outputs))]
        results = [o.view(np.bool_) if k in self._bool_outputs and o is not None else o for k, o in enumerate(results)]
        return _pytree.tree_unflatten(results, self.graph.out_spec)

    def _arguments(self, inputs: Sequence[Any]) -> tuple[list[Any], list[np.ndarray]]:
        """The inputs as arrays (checked) and the outputs, allocated at the sizes they bind
        (the state's written rows after the user's outputs). A None input is skipped where
        the program has fewer inputs: torch.export takes an argument given as None as a
        constant, not an input (`inputs_embeds=None`)."""
        if len(inputs) != len(self.graph.inputs):
            inputs = [a for a in inputs if a is not None]
        arrays = [_as_array(a) for a in inputs]
        outputs = [_empty(shape, dtype) for shape, dtype in self._outputs_for(arrays)]
        return arrays, outputs

    def _outputs_for(self, arrays: Sequence[Any]) -> list[tuple[tuple[int, ...], Any]]:
        """The shape and dtype of each output (the state's written rows last). The inputs'
        shapes of the last call are remembered: a call with the same shapes (every call of a
        static network) skips binding them, whose checks they passed then."""
        key = tuple(getattr(a, "shape", None) for a in arrays)
        if self._allocation is not None and self._allocation[0] == key:
            return self._allocation[1]
        env = self.bind(arrays)
        allocation = [(s, t.dtype) for s, t in zip(self.output_shapes(env), self.graph.outputs, strict=True)]
        if self.graph.state is not None:
            shapes = self.graph.state.output_shapes(env)
            allocation += [(s, t.dtype) for s, t in zip(shapes, self.graph.state.outputs, strict=True)]
        if None not in key:
            self._allocation = (key, allocation)
        return allocation

    def profile(self, *inputs: Any, repeat: int = 10, warmup: int = 1) -> Profile:
        """Time each top-level stage of the network on `inputs` (`Function.profile`), each
        row naming the torch module and the ATen op(s) its stages came from.

        ```python
        prof = net.profile(torch.randn(1, 3, 224, 224), repeat=10)
        print(prof.table(15))              # the 15 slowest stages
        prof.rows[0].module                # 'encoder.stages.3.layers.0.layer.1.convolution'
        prof.rows[0].op                    # 'aten.convolution.default + aten._native_batch_norm...'
        ```
        The batch norm folded into a conv is named with the conv's op; its row is the conv's
        module's. The inputs are checked as a call checks them (the same errors).
        """
        arrays, outputs = self._arguments(inputs)
        prof = self.function.profile(*arrays, *self._params, *self._state, *outputs, repeat=repeat, warmup=warmup)
        return prof.with_origins(self._origin)

    def _origin(self, stages: Sequence[str]) -> tuple[str, str]:
        """The module of the first of `stages` with a known origin (the row's root first), and
        the ATen ops of all of them. A stage the importer did not name (a cache stage of the
        auto-scheduler, `conv.local`; a pad, `conv_pad`) takes the origin of the longest
        stage name it starts with."""
        origins = self.graph.origins
        found = [o for s in stages if (o := origins.get(s) or _by_prefix(origins, s)) is not None]
        if not found:
            return "", ""
        return found[0].module, ", ".join(dict.fromkeys(o.op for o in found))


def _by_prefix(origins: dict[str, Origin], name: str) -> Origin | None:
    best = max((k for k in origins if name.startswith(k) and name[len(k) : len(k) + 1] in ("_", ".")), key=len, default=None)
    return None if best is None else origins[best]


def _state_args(g: ImportedGraph) -> list[Any]:
    return g.state.tensors if g.state is not None else []


def _state_outputs(g: ImportedGraph) -> list[Any]:
    return g.state.outputs if g.state is not None else []


def _bool_outputs(exported: Any) -> set[int]:
    """The outputs torch computes as bool (masks: int8 0/1 in the compiled function)."""
    graph = getattr(exported, "graph", None)
    if graph is None:
        return set()
    out = next(n for n in graph.nodes if n.op == "output")
    vals = [a.meta.get("val") if hasattr(a, "meta") else None for a in out.args[0]]
    return {k for k, v in enumerate(vals) if isinstance(v, torch.Tensor) and v.dtype == torch.bool}


def _empty(shape: tuple[int, ...], dtype: str) -> Any:
    """An output's memory: a NumPy array, or a torch tensor for bfloat16 (NumPy has none)."""
    if dtype == "bfloat16":
        return torch.empty(shape, dtype=torch.bfloat16)
    return np.empty(shape, dtype=dtype)


def _as_array(a: Any) -> Any:
    """An input as an array the compiled function takes: bools as int8 masks (a view)."""
    if isinstance(a, torch.Tensor):
        a = a.detach()
        return a.view(torch.int8) if a.dtype == torch.bool else a
    if isinstance(a, np.ndarray) or hasattr(a, "__dlpack__"):
        return a.view(np.int8) if isinstance(a, np.ndarray) and a.dtype == np.bool_ else a
    a = np.asarray(a)
    return a.view(np.int8) if a.dtype == np.bool_ else a


def from_torch(
    module: torch.nn.Module,
    example_args: Sequence[Any],
    *,
    dynamic_shapes: Any = None,
    name: str = "main",
    auto_schedule: bool | None = None,
    channels_last: bool = True,
    strict: bool = False,
    **options: bool,
) -> TorchFunction:
    """Compile a PyTorch module into one function (see the module docstring).

    The importer's schedule fuses each chain of elementwise ops into its consumer;
    `auto_schedule=True` then schedules every other stage for the host (register
    tiles, vectors, parallel loops: ResNet-18 at 224x224 runs 7x faster than the
    fusion schedule alone); `False` compiles the fusion schedule as it is (the
    default, None, is True), with static or symbolic shapes: BERT-base built once
    for lengths 8 to 512 runs as fast as a build for one length.

    `channels_last=True` (the default) computes convolutions and pools in NHWC, with
    their weights blocked by output channel once, here, and carries that layout
    through the elementwise ops, batch norms, pools and reductions between them
    (TVM's AlterOpLayout): the vector lanes run along the channels, which deep layers
    have many of, where an NCHW row shrinks to 7 elements. The inputs and outputs stay
    NCHW (a transpose at each end, inlined into the first and last stages); `False`
    keeps NCHW throughout. The other keyword options are `build`'s
    (`compiler.pipeline.PipelineOptions`): `check_bounds=True` checks every load and
    store, intermediates included: an access outside its buffer raises IndexError.

    `example_args` and `dynamic_shapes` are passed to `torch.export.export`: a
    dimension given as `torch.export.Dim("h")` stays symbolic (a `te.var("h")`),
    every other is specialised to the example's size; `strict` is its option too
    (TorchDynamo traces the module: what a module that reaches its buffers through
    another object needs, such as transformers' static-cache recipe, which is otherwise
    exported again strictly once the first export shows it). Operators the importer does
    not lower raise `UnsupportedOperatorError` naming the op, its graph node and the
    source line, before anything is compiled.

    >>> import torch
    >>> from torch.export import Dim
    >>> model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).eval()
    >>> net = compiler.from_torch(model, (torch.randn(1, 3, 32, 32),),
    ...                           dynamic_shapes={"input": {2: Dim("h"), 3: Dim("w")}})
    >>> y = net(torch.randn(1, 3, 20, 24))             # NumPy arrays out
    >>> y.shape
    (1, 8, 20, 24)
    """
    start = time.perf_counter()
    if not isinstance(example_args, tuple | list):
        example_args = (example_args,)
    program = export(module, example_args, dynamic_shapes, strict)
    exported = time.perf_counter()
    n_inputs = len(program.graph_signature.user_inputs)
    graph = import_program(program, dim_names(module, n_inputs, dynamic_shapes), channels_last=channels_last)
    imported = time.perf_counter()
    automatic = True if auto_schedule is None else auto_schedule
    fn = build(
        graph.schedule,
        [*graph.inputs, *graph.params, *_state_args(graph), *graph.outputs, *_state_outputs(graph)],
        name=name,
        auto_schedule=automatic,
        options=PipelineOptions.of("from_torch", options),
    )
    done = time.perf_counter()
    seconds = {
        "export": exported - start,
        "import": imported - exported,
        **{k: v for k, v in fn.stats.seconds.items() if k in ("passes", "llvm")},
        "total": done - start,
    }
    return TorchFunction(name, graph, fn, program, seconds, automatic)


__all__ = ["TorchFunction", "from_torch"]

