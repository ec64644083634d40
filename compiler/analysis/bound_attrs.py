"""What bound inference records on each `te.compute` (`compiler.analysis.bounds`): its
results as data, and the text of the `te.realize`, `te.loops`, ... attributes that
schedule-ops reads back (every expression over iteration-variable names)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, StringAttr

from compiler.arith.expr import IndexExpr
from compiler.arith.parse import parse_expr
from compiler.dialects import te
from compiler.errors import IRError
from compiler.schedule.model import IterVar, Stage

ATTRS = ("te.realize", "te.alloc_shape", "te.loops", "te.axis_values", "te.guards", "te.attach")


@dataclass
class Range_:
    min: IndexExpr
    extent: IndexExpr


@dataclass
class StageBounds:
    realize: list[Range_]
    alloc_shape: list[IndexExpr]
    loops: list[tuple[IterVar, Range_]]
    axis_values: list[IndexExpr]
    guards: list[str]


def _strings(items: Sequence[object]) -> ArrayAttr[StringAttr]:
    return ArrayAttr([StringAttr(str(x)) for x in items])


def format_range(lo: IndexExpr, extent: IndexExpr) -> str:
    """`[min, extent]`, as TVM prints a realize region."""
    return f"[{lo}, {extent}]"


def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    parts.append(text[start:].strip())
    return parts


def parse_range(text: str) -> tuple[IndexExpr, IndexExpr]:
    """The inverse of `format_range`."""
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise IRError(f"expected '[min, extent]', got '{text}'")
    lo, extent = _split_top_level(inner[1:-1])
    return parse_expr(lo), parse_expr(extent)


def format_loop(iv: IterVar, r: Range_) -> str:
    """`D_j_i = [0, 8] vectorized`, with ` reduce` for a reduction loop (` reduce mixed`
    for one that fuses data-parallel axes too) and ` pragma=name` for each pragma."""
    words = [iv.kind, *(["reduce"] if iv.is_reduce else []), *(["mixed"] if iv.mixed else [])]
    words += [f"pragma={p}" for p in iv.pragmas]
    return f"{iv.name} = {format_range(r.min, r.extent)} " + " ".join(words)


@dataclass
class LoopSpec:
    """One leaf loop of a stage, as `te.loops` records it."""

    name: str
    min: IndexExpr
    extent: IndexExpr
    kind: str
    is_reduce: bool
    pragmas: list[str]
    mixed: bool = False  # a reduce loop over data axes too (a fuse of both): initialised per iteration


def parse_loop(text: str) -> LoopSpec:
    """The inverse of `format_loop`."""
    name, _, rest = text.partition(" = ")
    close = rest.rfind("]")
    words = rest[close + 1 :].split()
    if close < 0 or not words:
        raise IRError(f"expected 'name = [min, extent] kind', got '{text}'")
    lo, extent = parse_range(rest[: close + 1])
    pragmas = [w.removeprefix("pragma=") for w in words[1:] if w.startswith("pragma=")]
    return LoopSpec(name, lo, extent, words[0], "reduce" in words[1:], pragmas, "mixed" in words[1:])


def record(op: te.ComputeOp, bounds: StageBounds, stage: Stage) -> None:
    op.attributes["te.realize"] = _strings([format_range(r.min, r.extent) for r in bounds.realize])
    op.attributes["te.alloc_shape"] = _strings(bounds.alloc_shape)
    op.attributes["te.loops"] = _strings([format_loop(iv, r) for iv, r in bounds.loops])
    op.attributes["te.axis_values"] = _strings(bounds.axis_values)
    op.attributes["te.guards"] = _strings(bounds.guards)
    if stage.attach_ivar is not None:
        op.attributes["te.attach"] = StringAttr(stage.attach_ivar.name)
    else:
        op.attributes.pop("te.attach", None)


def has_bounds(op: te.ComputeOp) -> bool:
    return "te.loops" in op.attributes
