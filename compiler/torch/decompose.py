"""Which ATen ops the importer keeps whole, and torch's decompositions for the rest.

Like Inductor and TVM Relax's `from_exported_program`, the importer runs torch's
own decomposition table (`torch.export.default_decompositions()`) on the exported
program, which rewrites every composite op down to the Core ATen opset (the
overloads tagged `torch.Tag.core`). Any exportable model therefore imports as
long as the Core ATen ops convert; the converters (aten.py, aten_transformer.py,
aten_core.py) cover that set.

`KEEP_WHOLE` is the one list of composite ops that are *not* decomposed, because
the importer lowers them better whole than as their decomposition: a convolution
into blocked NHWC kernels, a linear layer with a pre-blocked weight, a softmax or
a norm as one fused reduction, attention in row blocks, layout-only views kept as
`Permuted` views (no stage). Each op in it must have a converter
(`test_every_op_kept_whole_has_a_converter`).
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch.export import ExportedProgram

_LOWERED_BETTER = (
    # convolution and pooling: NHWC blocked kernels, the weight repacked once
    "aten.conv2d.default",
    "aten.conv2d.padding",
    "aten.max_pool2d.default",
    "aten.adaptive_avg_pool2d.default",
    # matrix products: a pre-blocked weight, batch dims kept (no reshape to 2-D)
    "aten.linear.default",
    "aten.matmul.default",
    "aten.baddbmm.default",
    # one fused reduction each (the decomposition makes mean, var, exp, sum stages)
    "aten.layer_norm.default",
    "aten.group_norm.default",
    "aten.softmax.int",
    "aten.log_softmax.int",
    "aten.scaled_dot_product_attention.default",
    # padding as one guarded read (the decomposition concatenates slices)
    "aten.pad.default",
    "aten.reflection_pad1d.default",
    "aten.reflection_pad2d.default",
    "aten.reflection_pad3d.default",
    "aten.replication_pad1d.default",
    "aten.replication_pad2d.default",
    "aten.replication_pad3d.default",
    # activations as one expression (their decompositions select with `where`)
    "aten.hardsigmoid.default",
    "aten.hardswish.default",
    "aten.silu.default",
    "aten.masked_fill.Scalar",
    "aten.masked_fill.Tensor",
    "aten.where.Scalar",
    "aten.where.ScalarOther",
    "aten.where.ScalarSelf",
    "aten.rsub.Scalar",
    "aten.rsub.Tensor",
    "aten.clamp_max.default",
    "aten.clamp_min.default",
    "aten.__and__.Tensor",
    "aten.__or__.Tensor",
    "aten.diff.default",
    # a cache write: rows written in place into state (aten_state.py), not an index_put
    "aten.index_copy.default",
)
"""Composite ops lowered better whole than decomposed."""

_CORE_DECOMPOSED = (
    # Core ATen ops that torch's table still decomposes; one stage each here
    "aten.fill.Scalar",
    "aten.fill.Tensor",
    "aten.select_scatter.default",
    "aten.var.dim",
    "aten.sym_stride.int",
    "aten.col2im.default",
)
"""Core ATen ops converted directly rather than through torch's decomposition."""

_VIEWS = (
    # layout-only: kept as `Permuted` views or slices (the decompositions are the same
    # views spelled through `permute`/`view`/`slice`, one more node each)
    "aten.t.default",
    "aten.transpose.int",
    "aten.squeeze.default",
    "aten.squeeze.dim",
    "aten.unbind.int",
    "aten.split.Tensor",
    "aten.concat.default",
    "aten._unsafe_view.default",
    "aten.detach.default",
    "aten.sym_size.int",
    "aten.sum.default",
    # creation: one `full` stage (the decompositions are `full`/`empty` + `fill`)
    "aten.arange.default",
    "aten.arange.start",
    "aten.zeros.default",
    "aten.ones.default",
    "aten.zeros_like.default",
    "aten.ones_like.default",
    "aten.empty_like.default",
    "aten.new_zeros.default",
    "aten.new_ones.default",
    "aten.new_full.default",
    "aten.new_empty.default",
)
"""Views and creation ops whose decomposition would only add nodes."""

KEEP_WHOLE: frozenset[str] = frozenset(_LOWERED_BETTER + _CORE_DECOMPOSED + _VIEWS)
"""ATen overloads the importer keeps whole; every other composite op is decomposed."""


def decomposition_table() -> dict[Any, Any]:
    """torch's Core ATen decomposition table without the ops in `KEEP_WHOLE`, as a
    dict of its own (`run_decompositions` copies it, and takes a dict as it takes
    torch's `CustomDecompTable`)."""
    return dict(_materialized_table(_composite_op_count()))


@functools.cache
def _materialized_table(composite_ops: int) -> dict[Any, Any]:
    """The table, materialized once per number of registered composite ops: torch
    builds it lazily on every `keys()` (~0.1 s an export), and a custom op registered
    since (a new CompositeImplicitAutograd kernel) makes a new one."""
    table = torch.export.default_decompositions()
    return {op: table[op] for op in list(table.keys()) if str(op) not in KEEP_WHOLE}


def decompose(program: ExportedProgram) -> ExportedProgram:
    """`program.run_decompositions(decomposition_table())`, the same graph in a
    fraction of the time.

    torch overrides the dispatch of every composite op it knows (~510) for the
    length of the call, each override costing ~0.5 ms of Python (0.25 s an
    export, the largest share of a small model's import). Most entries of the
    table only restate what the dispatcher does anyway: run the op's own C++
    composite kernel. Those are left out; torch still overrides the composite ops
    kept whole and those with a Python decomposition of their own (~60). The
    graph is the same (`test_fast_decomposition_gives_torchs_graph`); should
    torch's private entry point change, the public call is used."""
    try:
        from torch.export.exported_program import _decompose_exported_program
    except ImportError:  # pragma: no cover - another torch
        public: ExportedProgram = program.run_decompositions(decomposition_table())
        return public
    cia_to_decomp, python_table = _split_table(_composite_op_count())
    decomposed: ExportedProgram = _decompose_exported_program(
        program,
        cia_to_decomp=dict(cia_to_decomp),
        python_decomp_table=dict(python_table),
        joint_loss_index=None,
        decompose_custom_triton_ops=False,
    )
    return decomposed


def _composite_op_count() -> int:
    return len(torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd"))


@functools.cache
def _split_table(composite_ops: int) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """The table split as `run_decompositions` splits it (composite ops, whose dispatch
    torch overrides, and the rest, applied after autograd), less the composite ops
    whose entry is their own C++ kernel (`_get_decomp_for_cia`'s wrapper)."""
    from torch._export.utils import _collect_all_valid_cia_ops
    from torch.export.exported_program import _special_op_to_preserve_cia

    composite = set(_collect_all_valid_cia_ops())
    table = _materialized_table(composite_ops)
    python_table = {op: fn for op, fn in table.items() if op not in composite}
    cia_to_decomp = {op: _special_op_to_preserve_cia for op in composite if op not in table}
    for op, fn in table.items():
        if op in composite and not _is_own_composite_kernel(fn):
            cia_to_decomp[op] = fn
    return cia_to_decomp, python_table


def _is_own_composite_kernel(fn: Any) -> bool:
    return isinstance(fn, functools.partial) and getattr(fn.func, "__name__", "") == "_special_op_to_decompose_cia"


__all__ = ["KEEP_WHOLE", "decompose", "decomposition_table"]
