"""instrument-stages: time every top-level loop nest of a function (the profiler's marks).

Runs on the N-D loop IR that schedule-ops produces (the end of the `loop` stage of
`default-pipeline{profile=true}`; `Function.profile` builds that variant, the normal
build never runs it). In each `loop.func`, every op of the body that holds loops (a
root stage's nest, with everything computed at it or inlined into it) is bracketed by
two calls of the profiler's clock:

    %e0 = arith.constant 0 : index                   (event 2k before nest k,
    loop.call_extern @compiler_profile_mark(%e0) : index    2k + 1 after it)
    loop.for ... { ... }
    %e1 = arith.constant 1 : index
    loop.call_extern @compiler_profile_mark(%e1) : index

The outermost parallel loops of nest k get `{profile.nest = k}`: lower-to-llvm then
has each thread record the start and end of its chunk (`CHUNK_SYMBOL`: the threads'
tracks of the profile's trace).

The function gets a `profile.stages` attribute: per nest, in order, a dictionary with
`name` (the root stage: the buffer the nest stores to that is defined outside it, an
intermediate of the function or an output argument), `stores` (every buffer the nest
stores to, its root first: the te stages it computes, thread-local tiles included),
`args` (for each of those, its position among the function's arguments, or -1),
`shape` (the root buffer's shape) and `schedule` (its loops as short text:
`par ff_o(128) | rc(16) ry(3) rx(3) | unroll ff_i(8) | vec xx(32)`, the loops around
the nest's deepest store, outer first, a `|` where the loop kind changes; extent-1
loops left out; stage names cut from the loop names).

The callee is resolved at build time (`compiler.lowering.profile_marks`: a native
function that stores the monotonic clock at slot `event` of the profiler's buffer).
The marks are opaque calls: LLVM moves no load or store of a nest across them, and
the later passes leave top-level calls where they are (make-packed-api binds the
arguments before the first one; lower-to-llvm outlines nests and parallel loops in
place, between their marks).

Known limits: a top-level op without loops (a `te.extern` call, a 0-d stage) is not
timed: its time counts as outside the stages. A parallel loop run many times in its
nest (inside a serial loop) is timed from its first chunk to its last, with the sum of
the chunks as the thread's busy time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.value_names import ValueNames, enclosing_loops
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexConst, IndexExpr
from compiler.arith.simplify import const_bounds
from compiler.dialects import loop
from compiler.dialects.shape import Dim
from compiler.passes import LoopFunctionPass

MARK_SYMBOL = "compiler_profile_mark"
"""The callee of the marks: `void compiler_profile_mark(int64_t event)`."""

CHUNK_SYMBOL = "compiler_profile_chunk"
"""What a thread calls before and after its chunk of a tagged parallel loop:
`void compiler_profile_chunk(int64_t nest, int64_t thread, int64_t end)` (lower-to-llvm
emits the calls in the outlined body)."""

NEST_ATTR = "profile.nest"
"""On the outermost parallel loops of nest k: k (lower-to-llvm times each thread's chunk)."""

STAGES_ATTR = "profile.stages"
"""On a `loop.func`: what the nests between its marks compute (see the module docstring)."""

_KINDS = {
    loop.LoopKind.SERIAL: "",
    loop.LoopKind.PARALLEL: "par",
    loop.LoopKind.VECTORIZED: "vec",
    loop.LoopKind.UNROLLED: "unroll",
}


@dataclass(frozen=True)
class NestRecord:
    """What nest k of a function computes (one entry of `profile.stages`)."""

    name: str
    stores: tuple[str, ...]
    shape: tuple[Dim, ...]
    schedule: str
    args: tuple[int, ...] = ()
    """Per entry of `stores`: the position of the function's argument it is, or -1 (an
    output argument's name hint is not always its stage's name: xDSL drops a `_4`)."""

    def to_attr(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "name": StringAttr(self.name),
                "stores": ArrayAttr([StringAttr(s) for s in self.stores]),
                "args": DenseArrayBase.from_list(i64, self.args),
                "shape": ArrayAttr([StringAttr(str(d)) for d in self.shape]),
                "schedule": StringAttr(self.schedule),
            }
        )

    def renamed(self, names: Mapping[int, str]) -> NestRecord:
        """The record with the stores that are arguments named by `names` (position -> name)."""
        stores = tuple(names.get(a, s) if a >= 0 else s for s, a in zip(self.stores, self.args, strict=True))
        return replace(self, name=stores[0] if stores else self.name, stores=stores)

    @classmethod
    def from_attr(cls, attr: Attribute) -> NestRecord:
        assert isinstance(attr, DictionaryAttr)
        data = attr.data
        name, stores, shape, schedule, args = (data[k] for k in ("name", "stores", "shape", "schedule", "args"))
        assert isinstance(name, StringAttr)
        assert isinstance(schedule, StringAttr)
        assert isinstance(stores, ArrayAttr)
        assert isinstance(shape, ArrayAttr)
        assert isinstance(args, DenseArrayBase)
        texts = tuple(s.data for s in stores.data if isinstance(s, StringAttr))
        dims = tuple(_dim(d.data) for d in shape.data if isinstance(d, StringAttr))
        positions = tuple(int(a) for a in args.get_values())
        return cls(name.data, texts, dims, schedule.data, positions)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NestRecord:
        """The record of `dataclasses.asdict` (a build entry of the cache)."""
        shape = tuple(_dim(str(d)) for d in data["shape"])
        args = tuple(int(a) for a in data.get("args") or [-1] * len(data["stores"]))
        return cls(str(data["name"]), tuple(map(str, data["stores"])), shape, str(data["schedule"]), args)


def _dim(text: str) -> Dim:
    return int(text) if text.isdigit() else text


def nest_records(func: loop.FuncOp) -> list[NestRecord] | None:
    """The `profile.stages` of an instrumented function, or None."""
    attr = func.attributes.get(STAGES_ATTR)
    if not isinstance(attr, ArrayAttr):
        return None
    return [NestRecord.from_attr(a) for a in attr.data]


# ---------------------------------------------------------------------------
# Analysis: the nests and what they compute
# ---------------------------------------------------------------------------


def top_level_nests(func: loop.FuncOp) -> list[Operation]:
    """The ops of the function's body that hold loops, in order."""
    return [op for op in func.body.block.ops if any(isinstance(o, loop.ForOp) for o in walk_ops(op))]


def buffer_name(buffer: SSAValue) -> str:
    owner = buffer.owner
    if isinstance(owner, loop.AllocOp | loop.ViewOp):
        return owner.buffer_name.data
    return buffer.name_hint or "?"


def _is_local(buffer: SSAValue) -> bool:
    return isinstance(buffer.owner, loop.AllocOp) and buffer.owner.is_local


def _defined_inside(buffer: SSAValue, nest: Operation) -> bool:
    return nest.is_ancestor(buffer.owner)


def _loops_around(op: Operation, nest: Operation) -> list[loop.ForOp]:
    """The loops of `nest` around `op` (`nest` among them if it is one), outer first."""
    return enclosing_loops(op, stop=nest.parent_op())[::-1]


def _sanitized(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _short(name: str) -> str:
    """A loop's name after its stage's: without the counter that made it unique (`4_ax1`)."""
    head, _, rest = name.partition("_")
    return rest if head.isdigit() and rest else name


def schedule_text(loops: list[loop.ForOp], names: ValueNames, stages: tuple[str, ...] = ()) -> str:
    """`par ff_o(128) | rc(16) ry(3) rx(3) | unroll ff_i(8) | vec xx(32)`: the loops with
    their extents, grouped by kind; extent-1 loops left out, a stage's name cut from the
    front of a loop's name, a tail loop's extent shown by its bound (`xx(<=48)`)."""
    prefixes = sorted((_sanitized(s) + "_" for s in stages), key=len, reverse=True)
    groups: list[tuple[str, list[str]]] = []
    bounds: dict[str, tuple[IndexExpr | int | None, IndexExpr | int | None]] = {}
    for for_op in loops:
        lo, extent = names.expr(for_op.min), names.expr(for_op.extent)
        bounds[names.name(for_op.induction_var)] = (lo, lo + extent - 1)
        if extent == IndexConst(1):
            continue
        shown = str(extent)
        if not isinstance(extent, IndexConst):  # a tail's extent: at most its constant bound
            _, hi = const_bounds(extent, bounds)
            shown = f"<={hi}" if hi is not None else shown
        name = for_op.induction_var.name_hint or "i"
        name = next((_short(name.removeprefix(p)) for p in prefixes if name.startswith(p) and len(name) > len(p)), name)
        word = f"{name}({shown})"
        kind = _KINDS[for_op.loop_kind]
        if groups and groups[-1][0] == kind:
            groups[-1][1].append(word)
        else:
            groups.append((kind, [word]))
    return " | ".join(" ".join([kind, *words]) if kind else " ".join(words) for kind, words in groups)


def describe_nest(nest: Operation) -> NestRecord:
    """The root stage of a nest, the stages it stores to, and the schedule of its deepest store."""
    stores = [op for op in walk_ops(nest) if isinstance(op, loop.StoreOp)]
    outside = [s for s in stores if not _is_local(s.buffer) and not _defined_inside(s.buffer, nest)]
    root = (outside or stores)[-1].buffer if stores else None
    names: dict[str, int] = {}  # name -> argument position or -1, root first
    for buffer in [*([root] if root is not None else []), *(s.buffer for s in stores)]:
        names.setdefault(buffer_name(buffer), buffer.index if isinstance(buffer, BlockArgument) else -1)
    schedule = ""
    if stores:
        depths = [(len(_loops_around(s, nest)), k) for k, s in enumerate(stores)]
        deepest = stores[max(depths)[1]]
        schedule = schedule_text(_loops_around(deepest, nest), ValueNames(), tuple(names))
    shape: tuple[Dim, ...] = ()
    if root is not None and isinstance(root.type, loop.BufferType):
        shape = root.type.get_shape()
    return NestRecord(next(iter(names), "?"), tuple(names), shape, schedule, tuple(names.values()))


def _outermost_parallel(nest: Operation) -> list[loop.ForOp]:
    found: list[loop.ForOp] = []
    for op in walk_ops(nest):
        if not isinstance(op, loop.ForOp) or op.loop_kind != loop.LoopKind.PARALLEL:
            continue
        if not any(f.is_ancestor(op) for f in found):  # walk_ops: outer loops first
            found.append(op)
    return found


# ---------------------------------------------------------------------------
# Rewrite: the marks
# ---------------------------------------------------------------------------


def _mark(event: int) -> list[Operation]:
    constant = arith.ConstantOp(IntegerAttr(event, IndexType()))
    return [constant, loop.CallExternOp(MARK_SYMBOL, [constant.result])]


def instrument_function(func: loop.FuncOp) -> list[NestRecord]:
    """Bracket each top-level nest of `func` by its marks; record what the nests compute."""
    records: list[NestRecord] = []
    for k, nest in enumerate(top_level_nests(func)):
        records.append(describe_nest(nest))
        for for_op in _outermost_parallel(nest):
            for_op.attributes[NEST_ATTR] = IntegerAttr(k, i64)
        Rewriter.insert_op(_mark(2 * k), InsertPoint.before(nest))
        Rewriter.insert_op(_mark(2 * k + 1), InsertPoint.after(nest))
    func.attributes[STAGES_ATTR] = ArrayAttr([r.to_attr() for r in records])
    return records


@dataclass(frozen=True)
class InstrumentStagesPass(LoopFunctionPass):
    """Time each top-level loop nest: profiler marks around it, its stages recorded."""

    name = "instrument-stages"

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        if STAGES_ATTR not in func.attributes:  # once: a second run would mark the marks
            instrument_function(func)
