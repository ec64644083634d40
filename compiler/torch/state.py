"""State: the buffers a program writes (a KV cache), held by the compiled network.

torch.export's functional graph turns `self.cache.index_copy_(2, pos, k)` into a
new tensor `index_copy(cache, 2, pos, k)` that the graph signature lists as a
BUFFER_MUTATION output of buffer `cache`. Here such a buffer becomes *state*:

```
buffer `cache` (mutated)  -> te.placeholder `cache`, an argument after the parameters,
                             bound to the buffer's own memory (`net.state["cache"]`, a
                             NumPy view of the module's tensor)
index_copy / index_put /  -> the rows written (L of them) and their positions become
slice_scatter chains         outputs of the function (aten_state.py); readers see the
                             written rows through an inlined select, the rest of
                             `cache` read in place
after the call            -> the wrapper writes those L rows into the state array, in
                             place: a slice assignment when the positions are
                             consecutive (a KV cache's), else one per position
any other final value     -> the whole value is an output, copied into the state array
(copy_, add_, ...)           (a 0-d step counter; a module that rewrites its whole
                             buffer asks for that copy)
```

Why the rows are written by the wrapper and not by the function itself: a
stage can write into the state in place only through an output argument
that is a view of the state array, and that argument then overlaps the
state's own argument, which every stage reading the cache needs. The packed
API refuses overlapping arguments (`make-packed-api`, check 6, because the
code assumes noalias), and relaxing that check for one pair would need the
proof that no read of the state touches the written rows inside the
function. The wrapper's write needs no such proof: the function reads the
state as it was before the call (exactly the functional graph's meaning),
and the write touches only the rows written (L rows of a cache: a decode
step writes one row per layer and per K/V, 2 x L x heads x head_dim
elements, never the cache). The cost is that those rows are stored twice,
once in the output, once in the state.

The state persists across calls; `TorchFunction.reset_state()` restores the
values the buffers had at export (zeros for a fresh static cache: those are
not kept twice). The state is the module's buffers themselves, as in PyTorch
(running the network changes them), not a copy: a cache is held once, and the
graphs `torch.compile` hands the `xdsl_tc` backend (one per input shape, each a
network of its own) all read and write the same tensors, as the eager module
would. A buffer NumPy cannot view (not dense, not on the CPU) is copied. Prefill and decode are one function when the sequence
length is a symbolic dimension (`torch.export.Dim`): one set of parameters,
one state (`compiler.torch.generate`).

Export: a module that reaches its buffers through another object too (as
transformers' `StaticCache` behind `TorchExportableModuleWithStaticCache`)
is exported by torch's non-strict tracer with lifted constants aliasing the
buffers, and `run_decompositions` then fails with a bare
`AssertionError: expected compiled_fn to be GraphModule`; such a program is
exported again with `strict=True` (TorchDynamo, as transformers' own
`convert_and_export_with_cache` does); `from_torch(strict=True)` exports strictly
at once (`compiler.torch.generate.CausalLM` does). Whatever torch raises becomes an
`ExportError` that names the module and the cause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import fx
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind

from compiler import te
from compiler.errors import ArgumentValueError, UnsupportedOpError
from compiler.te.tensors import collect_stages
from compiler.torch.aten_state import UPDATES
from compiler.torch.graph import Converter, Permuted, from_host_array, host_array, te_dtype
from compiler.torch.symbolic import eval_dim

# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


class ExportError(UnsupportedOpError):
    """torch.export (or its decomposition) failed on a module: the message names the module
    and torch's error."""


def aliased_constants(program: ExportedProgram) -> list[str]:
    """The lifted constants of `program` that share memory with one of its parameters or
    buffers (the module reaches a buffer through another object too)."""
    sig = program.graph_signature
    owned: dict[int, str] = {}
    lifted: list[tuple[str, torch.Tensor]] = []
    for spec in sig.input_specs:
        if spec.target is None:
            continue
        value = program.state_dict.get(spec.target, program.constants.get(spec.target))
        if not isinstance(value, torch.Tensor) or value.numel() == 0:
            continue
        if spec.kind == InputKind.CONSTANT_TENSOR:
            lifted.append((spec.target, value))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            owned[value.untyped_storage().data_ptr()] = spec.target
    return [f"{name} (= {owned[v.untyped_storage().data_ptr()]})" for name, v in lifted if v.untyped_storage().data_ptr() in owned]


def export_strict_if_aliased(
    program: ExportedProgram, module: torch.nn.Module, args: tuple[Any, ...], dynamic_shapes: Any
) -> ExportedProgram:
    """`program`, or the module exported again with `strict=True` when its lifted
    constants alias its buffers (see the module docstring)."""
    if not aliased_constants(program):
        return program
    return torch.export.export(module, args, dynamic_shapes=dynamic_shapes, strict=True)


def export_error(module: torch.nn.Module, err: BaseException) -> ExportError:
    """torch's failure to export or decompose `module`, as an error of ours."""
    name = type(module).__name__
    text = f"{type(err).__name__}: {err}".strip()
    if len(text) > 2000:
        text = text[:2000] + " ..."
    hint = ""
    if "expected compiled_fn to be GraphModule" in text:
        hint = (
            "\n  torch's decomposition met inputs that alias each other: the module reaches some of its "
            "buffers through another object too (a cache object holding the tensors it registers as "
            "buffers), and the buffers are mutated"
        )
    return ExportError(f"from_torch: torch.export could not export module {name}: {text}{hint}")


# ---------------------------------------------------------------------------
# Import: buffers as state, writes as outputs
# ---------------------------------------------------------------------------


def mutated_buffers(program: ExportedProgram) -> dict[str, str]:
    """The buffers the program writes: the graph's output node name -> the buffer's name."""
    return dict(program.graph_signature.buffers_to_mutate)


@dataclass(frozen=True)
class Write:
    """How a state array changes after a call: `rows` (an output) written at `positions`
    (an output, 1-D int64) along `dim`; `positions` None: `rows` is the whole new value."""

    rows: te.Tensor
    dim: int = 0
    positions: te.Tensor | None = None


@dataclass
class StateBuffer:
    """A buffer the program writes, as an argument of the compiled function."""

    name: str
    """Its name in the module (`key_cache_0`)."""
    tensor: te.Tensor
    array: np.ndarray
    """The state itself: the memory the compiled function reads, written in place."""
    initial: np.ndarray | None
    """The value at export (None: zeros), which `reset` restores."""
    writes: list[Write] = field(default_factory=list)
    argument: Any = None
    """What the compiled function takes: `array`, or for bfloat16 (whose `array` holds the
    int16 bits: NumPy has no bf16) a bf16 torch tensor over the same memory."""

    def __post_init__(self) -> None:
        if self.argument is None:
            bf16 = self.tensor.dtype == "bfloat16"
            self.argument = from_host_array(self.array, torch.bfloat16) if bf16 else self.array


@dataclass
class StatePlan:
    """The state of a compiled network and the outputs that carry its writes."""

    buffers: list[StateBuffer]
    outputs: list[te.Tensor]
    """The extra outputs of the function, after the user's: rows and positions."""

    @property
    def tensors(self) -> list[te.Tensor]:
        return [b.tensor for b in self.buffers]

    @property
    def arrays(self) -> list[Any]:
        """The compiled function's state arguments (`StateBuffer.argument`)."""
        return [b.argument for b in self.buffers]

    @property
    def nbytes(self) -> int:
        return sum(int(b.array.nbytes) for b in self.buffers)

    def output_shapes(self, env: dict[str, int]) -> list[tuple[int, ...]]:
        return [tuple(eval_dim(d, env) for d in t.shape) for t in self.outputs]

    def write(self, values: Sequence[Any]) -> None:
        """Apply the writes of a call whose extra outputs are `values` to the state arrays:
        all of them, or none when a position is outside its buffer (ArgumentValueError)."""
        by_uid = {t.uid: _bits(v) for t, v in zip(self.outputs, values, strict=True)}
        for b in self.buffers:
            for w in b.writes:
                if w.positions is not None:
                    _check_positions(b, w.dim, by_uid[w.positions.uid])
        for b in self.buffers:
            for w in b.writes:
                rows = by_uid[w.rows.uid]
                if w.positions is None:
                    np.copyto(b.array, rows.reshape(b.array.shape))
                    continue
                _write_rows(b, w.dim, by_uid[w.positions.uid], rows)

    def reset(self) -> None:
        for b in self.buffers:
            if b.initial is None:
                b.array.fill(0)
            else:
                np.copyto(b.array, b.initial)


def _check_positions(b: StateBuffer, dim: int, positions: np.ndarray) -> None:
    n = b.array.shape[dim]
    if positions.size == 0:
        return
    low, high = int(positions.min()), int(positions.max())
    if low < 0 or high >= n:
        bad = low if low < 0 else high
        raise ArgumentValueError(
            f"state {b.name}: the program writes position {bad} along dimension {dim}, outside [0, {n}) "
            "(a cache position beyond the cache's length?); the state is left as it was"
        )


def _write_rows(b: StateBuffer, dim: int, positions: np.ndarray, rows: np.ndarray) -> None:
    """`rows` into `b` at `positions` along `dim` (checked by `_check_positions`)."""
    if positions.size == 0:
        return
    low, high = int(positions.min()), int(positions.max())
    lead: tuple[slice, ...] = (slice(None),) * dim
    first = int(positions[0])
    if high - low == positions.size - 1 and first == low and bool(np.all(np.diff(positions) == 1)):
        b.array[(*lead, slice(first, first + positions.size))] = rows
    else:
        index: tuple[slice | np.ndarray, ...] = (*lead, positions.astype(np.intp))
        b.array[index] = rows


def _bits(value: Any) -> np.ndarray:
    """An output as NumPy: a bf16 torch tensor's int16 bits (what the state arrays hold)."""
    return host_array(value) if isinstance(value, torch.Tensor) else np.asarray(value)


def _shared(value: torch.Tensor) -> np.ndarray:
    """The tensor's memory as a NumPy array (written, the tensor changes), or a copy where
    NumPy cannot view it (not dense, not on the CPU, requires grad); a bfloat16 tensor's
    as its int16 bits."""
    t = value.detach()
    if t.dtype == torch.bfloat16:  # (a view when the tensor is dense on the CPU)
        t = t.cpu().contiguous().view(torch.int16)
    if t.device.type == "cpu" and t.is_contiguous() and t.dtype in (torch.float32, torch.float64, torch.float16,
                                                                    torch.int64, torch.int32, torch.int16,
                                                                    torch.int8, torch.uint8, torch.bool):
        array = t.numpy()
    else:
        array = np.array(t.cpu().numpy(), order="C", copy=True)  # 0-d stays 0-d
    return array.view(np.int8) if array.dtype == np.bool_ else array


class StateImport:
    """What the importer does with the buffers the program writes."""

    def __init__(self, program: ExportedProgram):
        self.program = program
        self.mutated = set(mutated_buffers(program).values())
        self.buffers: dict[str, StateBuffer] = {}

    @property
    def tensors(self) -> list[te.Tensor]:
        return [b.tensor for b in self.buffers.values()]

    def bind(self, cx: Converter, node: fx.Node, target: str, value: torch.Tensor) -> te.Tensor:
        """The placeholder of buffer `target`, which the program writes. Its array is the
        buffer's own memory where it can be (a dense CPU tensor), else a copy."""
        array = _shared(value)
        dtype = te_dtype(value.dtype, f"buffer {target}")
        t = te.placeholder(tuple(int(d) for d in value.shape), dtype, name=cx.unique(target))
        initial = array.copy() if array.any() else None
        self.buffers[target] = StateBuffer(target, t, array, initial)
        return t

    def plan(self, cx: Converter, user_outputs: Sequence[te.Tensor]) -> StatePlan | None:
        """The writes of each mutated buffer, from the graph's BUFFER_MUTATION outputs."""
        if not self.buffers:
            return None
        graph = self.program.graph
        out_node = next(n for n in graph.nodes if n.op == "output")
        taken = {t.uid for t in user_outputs}
        outputs: list[te.Tensor] = []
        made: dict[int, te.Tensor] = {}

        def output(t: te.Tensor, what: str) -> te.Tensor:
            if t.uid in made:
                return made[t.uid]
            out = t
            if t.is_placeholder or t.uid in taken:  # an output must be a stage of its own
                out = te.compute(t.shape, lambda *i: t[i], name=cx.unique(what))
            taken.add(out.uid)
            made[t.uid] = out
            outputs.append(out)
            return out

        for arg, spec in zip(out_node.args[0], self.program.graph_signature.output_specs, strict=True):
            if spec.kind != OutputKind.BUFFER_MUTATION or spec.target not in self.buffers:
                continue
            buf = self.buffers[spec.target]
            value = cx.values[arg] if isinstance(arg, fx.Node) else arg
            if isinstance(value, Permuted | torch.Tensor):
                value = cx.tensor(value, f"{spec.target}_value")
            assert isinstance(value, te.Tensor)
            chain = []
            t = value
            while t is not buf.tensor and t.uid in UPDATES:
                chain.append(UPDATES[t.uid])
                t = UPDATES[t.uid].base
            if value is buf.tensor:
                continue  # written back unchanged
            if t is buf.tensor:
                for u in reversed(chain):
                    rows = output(u.rows, f"{spec.target}_rows")
                    positions = output(u.positions, f"{spec.target}_positions")
                    buf.writes.append(Write(rows, u.dim, positions))
            else:
                buf.writes.append(Write(output(value, f"{spec.target}_new")))
        return StatePlan(list(self.buffers.values()), outputs)


def inline_updates(schedule: te.Schedule, outputs: Sequence[te.Tensor], inlined_already: Sequence[str]) -> list[str]:
    """Inline every updated value (a row write's select) into its readers, where the
    fusion schedule did not (a reduction reads it): computed as a stage, it would be a
    copy of the whole tensor written. Returns the names inlined here."""
    output_ids = {t.uid for t in outputs}
    done = set(inlined_already)
    inlined = []
    for t in collect_stages(list(outputs)):
        if t.uid in UPDATES and t.uid not in output_ids and t.name not in done:
            schedule[t].compute_inline()
            inlined.append(t.name)
    return inlined


__all__ = [
    "ExportError",
    "StateBuffer",
    "StateImport",
    "StatePlan",
    "Write",
    "aliased_constants",
    "export_error",
    "export_strict_if_aliased",
    "inline_updates",
    "mutated_buffers",
]
