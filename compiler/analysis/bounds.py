"""Bound inference: TVM's InferBound over the stages of a scheduled `te.func`.

Mirrors src/te/schedule/bound.cc and message_passing.cc as the InferBound
document (shared/seeds/002) describes them:

  for stage in consumers-before-producers order:
      InferRootBound(stage)     # ranges of the root iteration variables
      PassDownDomain(stage)     # ranges of every split/fused variable

InferRootBound, for a stage that is not an output:
  1. for each consumer, an IntSet per consumer leaf variable: a point (the
     variable itself) for leaves whose loop encloses the stage (its attach
     path), a point for extent-1 leaves, the leaf's range otherwise;
  2. PassUpDomain through the consumer's splits and fuses to its roots;
     loop variables of the consumer's own attach path that do not enclose
     the stage are relaxed to their ranges (the relax set);
  3. PropBoundToInputs: every `te.read` of the stage's tensor, evaluated over
     those sets, is one request per dimension, cut to the stage's shape where
     it provably reaches past it (`clip_to_shape`, as TVM); a read is evaluated over
     a consumer domain assumed non-empty (`eval_set(nonempty=True)`: a consumer that
     runs no iteration reads nothing), so a fused axis over [0, batch * seq) reads
     rows [0, batch) and columns [0, seq) of a tensor it flattens, not bounds that
     hedge for seq == 0 and nest again at every reshape;
  4. GatherBound: the union of the requests, dimension by dimension.

Outputs are realized over their whole shape. A region that is not provably
inside the tensor's shape gets a bound check (`likely` guard) in schedule-ops,
as TVM's MakeBoundCheck: nothing is computed outside the declared domain.

Improvement on TVM (the document's PassDownDomain remark): for a split
whose factor does not provably divide the extent, the inner loop does no work
outside the parent's range: `split-mode=tight` gives it the extent
`min(factor, extent - outer * factor)`, `split-mode=guard` keeps the factor
and guards the body with `parent < min + extent`. PassUpDomain intersects
the parent's set with its range, so requests never exceed it either. Through
a fuse, a range of fused values gives its rows, and one row's columns when it
never crosses a row end (TVM's PassUpDomain: `split(fuse(i, j), 3)` over rows
of 6 reads 1 x 3 per outer iteration).

Results are recorded on each `te.compute` as discardable attributes
(`compiler.analysis.bound_attrs`: their text and its parser), so
`compiler-opt -p infer-bound` shows them (every expression is text over
iteration-variable names `<stage>_<axis>` and shape variables):

  te.realize      ["[min, extent]", ...]      the realized region per dimension
  te.alloc_shape  ["extent", ...]             buffer shape (upper bound over loops)
  te.loops        ["var = [min, extent] kind", ...]  the leaf loops, outer first
                                              (" reduce" marks a reduction loop)
  te.axis_values  [expr, ...]                 each root axis (data, then reduce)
                                              as a function of the leaf variables
  te.guards       [cond, ...]                 bound checks around the body
  te.attach       "D_j"                       the leaf loop of the consumer it is computed in

Inlined stages (`sched.compute_inline`) are substituted first (the
`compute-inline` pass); guarded reads annotated by `tighten-pad-regions`
(`te.guard`) are evaluated over their guarded domain only. The
`sched.schedule` op is consumed.

A reduce axis whose extent names a data axis (`te.reduce_axis((0, i))`, a
`dynamic(...)` extent of `te.reduce`) gets an exact range over that axis, which
its loop keeps (`Y_k = [0, Y_i]`, the data axis replaced by its leaf
expression, which must be a loop outside it), and a relaxed range, its upper
bound over the data axes, for everything that must not name loop variables
(producers' requests: the union over `i`).

Known limits: GatherBound is dimension-wise (two consumers reading disjoint
2-D blocks get their bounding box, see the document); reads through
non-affine indices request the whole tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.rewriter import Rewriter

from compiler.analysis.bound_attrs import Range_, StageBounds, format_range, record
from compiler.analysis.guards import (
    GUARD_ATTR,
    UNUSED_ATTR,
    conjuncts,
    tighten_domain,
    where_conditions,
)
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import (
    LE,
    LT,
    IndexConst,
    IndexExpr,
    IndexVar,
    emax,
    emin,
    free_vars,
    substitute_index,
)
from compiler.arith.int_set import IntSet, eval_set, union_all
from compiler.arith.ir import expr_from_value
from compiler.arith.parse import parse_cond
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.diagnostics import PassError
from compiler.dialects import te
from compiler.dialects.shape import dim_expr, shape_var_names, size_bounds
from compiler.schedule.inline import inline_function
from compiler.schedule.loop_relations import Fuse, Singleton, pass_up_index
from compiler.schedule.model import IterVar, ScheduleModel, Split, Stage, schedule_of

SplitMode = Literal["tight", "guard"]


# ---------------------------------------------------------------------------
# Accesses: what each stage reads, as index expressions over its root variables
# ---------------------------------------------------------------------------


@dataclass
class Access:
    source: str  # the stage name read
    indices: list[IndexExpr | None]  # None: not an affine function of the loop variables
    read: te.ReadOp


def stage_accesses(stage: Stage) -> list[Access]:
    """Every `te.read` of another stage in the body of `stage`."""
    leaf = stage.index_leaf()
    found: list[Access] = []
    for op in walk_ops(stage.op.body):
        if isinstance(op, te.ReadOp) and isinstance(op.tensor.owner, te.ComputeOp):
            indices = [expr_from_value(i, leaf) for i in op.indices]
            indices = [None if e is None else simplify(e) for e in indices]
            found.append(Access(op.tensor.owner.stage.data, indices, op))
    return found


# ---------------------------------------------------------------------------
# InferBound
# ---------------------------------------------------------------------------


@dataclass
class GuardUse:
    used: list[str]
    unused: list[str]


@dataclass
class Request:
    """One consumer's read of a stage, in one dimension (for GatherBound and explain)."""

    set: IntSet
    where: str
    guard: GuardUse
    clipped: bool = False  # cut to the stage's shape (the read reaches past it)


@dataclass
class InferBound:
    model: ScheduleModel
    split_mode: SplitMode = "tight"
    clip_to_shape: bool = True  # cut each read's set to the stage's shape (see clip_to_shape)
    ranges: dict[str, Range_] = field(default_factory=dict)  # exact, may name outer loop variables
    relaxed: dict[str, Range_] = field(default_factory=dict)  # no references to sibling loops
    accesses: dict[str, list[Access]] = field(default_factory=dict)
    guards: dict[str, list[IterVar]] = field(default_factory=dict)  # split parents to guard
    requests: dict[str, list[list[Request]]] = field(default_factory=dict)
    split_notes: dict[str, list[tuple[Split, IndexExpr, IndexExpr]]] = field(default_factory=dict)
    """Per stage, the splits whose outer extents `explain` words (formatted only then)."""
    consumers: dict[str, list[Stage]] = field(default_factory=dict)  # `run` fills it (consumer_map)

    def __post_init__(self) -> None:
        names = {n for t in self._arg_types() for n in shape_var_names(t.get_shape())}
        # the bounds of the shape variables, then of each loop as set_range gives its range. A
        # declared lower bound keeps blocked loops' bounds small; an upper bound is left out:
        # it capped extents at constants (`upper_extent`), which made a symbolic GPT-2's
        # matmuls 4x slower (256 rows: 26 ms against 5.9 ms)
        self._analyzer = Analyzer({n: (lo, None) for n, (lo, _) in size_bounds(self.model.func, names).items()})
        for stage in self.model.stages.values():
            self.accesses[stage.name] = stage_accesses(stage)

    def _arg_types(self) -> list[te.TensorType]:
        ft = self.model.func.function_type
        return [t for t in (*ft.inputs.data, *ft.outputs.data) if isinstance(t, te.TensorType)]

    def analyzer(self) -> Analyzer:
        """The one analyzer over the bounds known so far (`set_range` adds a loop's, and
        its memo starts again), which every query of the inference shares."""
        return self._analyzer

    def set_range(self, iv: IterVar, exact: Range_, relaxed: Range_ | None = None) -> None:
        az = self.analyzer()
        exact = Range_(az.simplify(exact.min), az.simplify(exact.extent))
        relaxed = exact if relaxed is None else Range_(az.simplify(relaxed.min), az.simplify(relaxed.extent))
        self.ranges[iv.name] = exact
        self.relaxed[iv.name] = relaxed
        az.set_bound(iv.name, (relaxed.min, az.simplify(relaxed.min + relaxed.extent - 1)))

    # -- the driver ----------------------------------------------------------

    def run(self) -> dict[str, StageBounds]:
        stages = list(self.model.stages.values())
        self.consumers = self.model.consumer_map()
        for stage in reversed(stages):
            self.infer_root_bound(stage)
            self.pass_down_domain(stage)
        return {s.name: self.stage_bounds(s) for s in stages}

    # -- InferRootBound ----------------------------------------------------------

    def infer_root_bound(self, stage: Stage) -> None:
        shape = [dim_expr(d) for d in stage.op.tensor_type.get_shape()]
        consumers = self.consumers[stage.name]
        # a te.extern reads its inputs whole, as the function's caller reads its results
        if stage.is_output or not consumers or self.model.extern_readers(stage.name) or stage.scan_from is not None:
            for iv, extent in zip(stage.axes, shape, strict=True):
                self.set_range(iv, Range_(IndexConst(0), extent))
            if stage.scan_from is not None:  # a scan steps over its time axis after the init's rows
                time = self.analyzer().simplify(shape[0] - stage.scan_from)
                self.set_range(stage.axes[0], Range_(stage.scan_from, time))  # m < init: no step
            self.set_reduce_ranges(stage)
            return
        requests: list[list[Request]] = [[] for _ in shape]
        for consumer in consumers:
            for dim, request in enumerate(self.requests_of(consumer, stage)):
                requests[dim].extend(request)
        for dim, (iv, extent) in enumerate(zip(stage.axes, shape, strict=True)):
            union = union_all([r.set for r in requests[dim]], self.analyzer())
            lo, ext = union.cover_range(IndexConst(0), extent, self.analyzer())
            self.set_range(iv, Range_(lo, ext), Range_(lo, self.upper_extent(ext, stage)))
        self.requests[stage.name] = requests
        self.set_reduce_ranges(stage)

    def clip(self, s: IntSet, extent: IndexExpr) -> IntSet:
        """A read's set without the part provably outside [0, extent) (TVM's PropBoundToInputs
        takes the shape when a read provably covers it): the stage computes nothing outside
        its shape, and a read there (`A[i]`, i beyond A's extent) is undefined. An end
        provably at or past the shape's is the shape's: a block's relaxed last row, `seq +
        (seq + 127) // 128 * 128 - 129` (seq - 1 at a multiple of 128, past it otherwise),
        does not widen the next stage's region, and the next, layer after layer. An end not
        provably outside is kept (the stage's bound checks keep the work inside the shape)."""
        az = self.analyzer()
        if s.empty_set:
            return s
        lo, hi = s.lo, s.hi
        if lo is not None and az.prove_le(lo, 0):
            lo = IndexConst(0)
        top = az.simplify(extent - 1)
        if hi is not None and az.prove_ge(hi, top):
            hi = top
        if lo is not None and hi is not None and az.prove_lt(hi, lo):
            return IntSet.empty()  # read only outside the shape
        return IntSet(lo, hi)

    def set_reduce_ranges(self, stage: Stage) -> None:
        """Reduce axes run over [0, extent). An extent over the stage's data axes (a
        triangular `te.reduce_axis((0, i))`) stays exact in the loop (it names the data
        variable, replaced by its leaf expression in `stage_bounds`); the relaxed range,
        free of loop variables, is its upper bound over the data axes' ranges."""
        for iv, extent in zip(stage.reduce_axes, stage.reduce_extents(), strict=True):
            relaxed = None
            if free_vars(extent) & {a.name for a in stage.axes}:
                hi = self.relax(IntSet.point(extent), [*stage.axes, *self.model.attach_path(stage)]).hi
                if hi is None or free_vars(hi) & set(self.relaxed):
                    raise PassError(f"infer-bound: can't bound the extent {extent} of reduce axis {iv.name}", stage.op)
                relaxed = Range_(IndexConst(0), self.analyzer().simplify(emax(hi, 0)))
            self.set_range(iv, Range_(IndexConst(0), extent), relaxed)

    def requests_of(self, consumer: Stage, stage: Stage) -> list[list[Request]]:
        """Phases 1-3: the regions of `stage` that `consumer` reads, per dimension."""
        enclosing = {iv.name for iv in self.model.attach_path(stage)}
        up: dict[str, IntSet] = {}
        full: dict[str, bool] = {}
        # the loops a leaf's exact range may depend on, keeping the request free of other
        # loops: the attach path (relaxed or kept by `relax`), and a split's outer loop
        # for its inner one (the pass up the split relaxes the inner one first)
        attach = {iv.name for iv in self.model.attach_path(consumer)}
        split_outer = {rel.inner.name: rel.outer.name for rel in consumer.relations if isinstance(rel, Split)}
        for leaf in consumer.leaves:
            outside = attach | ({split_outer[leaf.name]} if leaf.name in split_outer else set())
            r = self._request_range(leaf, outside)
            if leaf.name in enclosing:
                up[leaf.name], full[leaf.name] = IntSet.point(IndexVar(leaf.name)), False
            elif const_value(r.extent) == 1:
                up[leaf.name], full[leaf.name] = IntSet.point(r.min), True
            else:
                up[leaf.name] = IntSet.from_range(r.min, r.extent, self.analyzer())
                # not the whole relaxed range when the exact one depends on the attach
                # point (a row block's columns); a split's tail covers its parent still
                full[leaf.name] = r is self.relaxed[leaf.name] or not (free_vars(r.min) | free_vars(r.extent)) & attach
        self.pass_up_domain(consumer, up, full)
        dom = {iv.name: up[iv.name] for iv in consumer.root_vars}
        relax = [iv for iv in self.model.attach_path(consumer) if iv.name not in enclosing]
        requests: list[list[Request]] = [[] for _ in stage.axes]
        shape = [dim_expr(d) for d in stage.op.tensor_type.get_shape()]
        for access in self.accesses[consumer.name]:
            if access.source != stage.name:
                continue
            read_dom, guard = self.guarded_domain(access, dom, consumer)
            where = f"\"{consumer.name}\" reading {stage.name}[{', '.join(map(str, access.indices))}]"
            for dim, index in enumerate(access.indices):
                if index is None:
                    requests[dim].append(Request(IntSet.everything(), where, guard))
                    continue
                s = self.relax(eval_set(index, read_dom, self.analyzer(), nonempty=True), relax)
                clipped = self.clip(s, shape[dim]) if self.clip_to_shape else s
                requests[dim].append(Request(clipped, where, guard, clipped != s))
        return requests

    def _request_range(self, leaf: IterVar, loops: set[str]) -> Range_:
        """A consumer loop's range for its requests: the exact one when its bounds depend
        only on `loops` (a tight split's last tile, `min(n - o * 4, 4)`, whose outer loop
        the pass up the split relaxes after it), where the relaxed extent (4) would round
        every request up to whole tiles, realizing each producer (and theirs) past the end
        with a symbolic n."""
        exact, relaxed = self.ranges[leaf.name], self.relaxed[leaf.name]
        dependent = {v for v in free_vars(exact.min) | free_vars(exact.extent) if v in self.relaxed}
        if exact == relaxed or not dependent <= loops:
            return relaxed
        return exact

    def guarded_domain(
        self, access: Access, dom: dict[str, IntSet], consumer: Stage
    ) -> tuple[dict[str, IntSet], GuardUse]:
        """The consumer's domain restricted by the guard of a lazy read (tighten-pad-regions)
        and by the `where` of the reduction it is in (a causal product reads k <= i only:
        per block of rows i, the columns up to its last row)."""
        unused_attr = access.read.attributes.get(UNUSED_ATTR)
        unused = [unused_attr.data] if isinstance(unused_attr, StringAttr) else []
        guard_attr = access.read.attributes.get(GUARD_ATTR)
        used: list[str] = []
        if isinstance(guard_attr, StringAttr):
            tightened = tighten_domain(dom, conjuncts(parse_cond(guard_attr.data)), self.analyzer())
            dom, used, unused = tightened.dom, tightened.used, unused + tightened.unused
        wheres = [c for cond in where_conditions(access.read, consumer) for c in conjuncts(cond) if isinstance(c, LT | LE)]
        if wheres:
            dom = tighten_domain(dom, wheres, self.analyzer(), coupled=True).dom
        return dom, GuardUse(used, unused)

    def relax(self, s: IntSet, variables: Sequence[IterVar]) -> IntSet:
        """Widen a set over the ranges of loops that do not enclose the stage (innermost first)."""
        az = self.analyzer()
        for iv in variables:
            r = self.relaxed[iv.name]
            dom = {iv.name: IntSet.from_range(r.min, r.extent, az)}
            lo = None if s.lo is None else eval_set(az.fold_into_minmax(s.lo, iv.name), dom, az, nonempty=True).lo
            hi = None if s.hi is None else eval_set(az.fold_into_minmax(s.hi, iv.name), dom, az, nonempty=True).hi
            s = IntSet(lo, hi, s.empty_set)
        return s

    def upper_extent(self, extent: IndexExpr, stage: Stage) -> IndexExpr:
        """An extent free of loop variables, at least `extent` wherever the stage runs."""
        if not free_vars(extent) & set(self.relaxed):
            return extent
        az = self.analyzer()
        # The analyzer bounds `min(v, 5) - v + 1` by 1 (it splits the min); interval
        # relaxation over v's range cannot, and would realize the whole tensor.
        _, const_hi = az.const_bounds(extent)
        s = self.relax(IntSet.point(extent), self.model.attach_path(stage))
        if s.hi is None or free_vars(s.hi) & set(self.relaxed):
            if const_hi is not None:
                return IndexConst(const_hi)
            raise PassError(
                f"infer-bound: can't bound the extent {extent} of stage \"{stage.name}\" "
                "independently of its loops",
                stage.op,
            )
        hi = az.simplify(s.hi)
        if not az.prove_ge(hi, 0):
            # relaxed over loops assumed to run (`relax`), it may be negative where one is
            # empty: the buffer is still allocated there
            hi = az.simplify(emax(hi, 0))
        if const_hi is None or az.prove_le(hi, const_hi):
            return hi
        return IndexConst(const_hi) if az.prove_le(const_hi, hi) else az.simplify(emin(hi, const_hi))

    def pass_up_domain(self, stage: Stage, up: dict[str, IntSet], full: dict[str, bool]) -> None:
        loose: dict[str, IntSet] = {}  # a split parent's set before it is cut to the parent's range
        for rel in reversed(stage.relations):
            match rel:
                case Split():
                    self.pass_up_split(rel, up, full, loose)
                case Fuse():
                    self.pass_up_fuse(rel, up, full, loose)
                case Singleton():
                    pass

    def pass_up_split(
        self, rel: Split, up: dict[str, IntSet], full: dict[str, bool], loose: dict[str, IntSet]
    ) -> None:
        parent = self.relaxed[rel.parent.name]
        parent_set = IntSet.from_range(parent.min, parent.extent, self.analyzer())
        if full[rel.outer.name] and full[rel.inner.name]:
            up[rel.parent.name], full[rel.parent.name] = parent_set, True
            return
        factor = self.relaxed[rel.inner.name].extent
        value = IndexVar(rel.outer.name) * factor + IndexVar(rel.inner.name) + parent.min
        inner_set = up[rel.inner.name]
        inner_vars = set().union(*(free_vars(e) for e in (inner_set.lo, inner_set.hi) if e is not None))
        if rel.outer.name in inner_vars:
            # the inner variable first: its range depends on the outer one (a tight split's
            # min(n - o * f, f)), which then cancels before the outer one is relaxed
            by_inner = eval_set(value, {rel.inner.name: inner_set}, self.analyzer())
            az, outer_dom = self.analyzer(), {rel.outer.name: up[rel.outer.name]}
            lo = None if by_inner.lo is None else eval_set(
                az.fold_into_minmax(by_inner.lo, rel.outer.name), outer_dom, self.analyzer()
            ).lo
            hi = None if by_inner.hi is None else eval_set(
                az.fold_into_minmax(by_inner.hi, rel.outer.name), outer_dom, self.analyzer()
            ).hi
            loose[rel.parent.name] = IntSet(lo, hi, by_inner.empty_set)
        else:
            dom = {rel.outer.name: up[rel.outer.name], rel.inner.name: inner_set}
            loose[rel.parent.name] = eval_set(value, dom, self.analyzer())
        result = loose[rel.parent.name].intersect(parent_set, self.analyzer())
        up[rel.parent.name], full[rel.parent.name] = result, False

    def pass_up_fuse(
        self, rel: Fuse[IterVar], up: dict[str, IntSet], full: dict[str, bool], loose: dict[str, IntSet]
    ) -> None:
        """The fused variable's set back to its outer and inner variables (TVM's PassUpDomain):
        a point gives points; a range [lo, hi] gives the outer rows lo // inner .. hi // inner,
        and, when its extent divides the inner extent and lo is a multiple of it (the range
        never crosses a row), the inner columns lo % inner .. hi % inner of one row; any
        other range all columns."""
        fused = up[rel.fused.name]
        outer, inner = self.relaxed[rel.outer.name], self.relaxed[rel.inner.name]
        outer_full = IntSet.from_range(outer.min, outer.extent, self.analyzer())
        inner_full = IntSet.from_range(inner.min, inner.extent, self.analyzer())
        az = self.analyzer()
        fused_min = self.relaxed[rel.fused.name].min
        if not full[rel.fused.name] and fused.is_point(self.analyzer()):
            assert fused.lo is not None
            offset = fused.lo - fused_min
            up[rel.outer.name] = IntSet.point(az.simplify(outer.min + offset // inner.extent))
            up[rel.inner.name] = IntSet.point(az.simplify(inner.min + offset % inner.extent))
            full[rel.outer.name] = full[rel.inner.name] = False
            return
        # the split's set before the cut to the fused range: a superset, with the
        # regular shape that shows whether it stays in one row
        fused = loose.get(rel.fused.name, fused)
        if full[rel.fused.name] or fused.lo is None or fused.hi is None:
            up[rel.outer.name], up[rel.inner.name] = outer_full, inner_full
            full[rel.outer.name] = full[rel.inner.name] = True
            return
        lo, hi = az.simplify(fused.lo - fused_min), az.simplify(fused.hi - fused_min)
        width = az.simplify(hi - lo + 1)
        rows = IntSet(az.simplify(outer.min + lo // inner.extent), az.simplify(outer.min + hi // inner.extent))
        up[rel.outer.name] = rows.intersect(outer_full, self.analyzer())
        full[rel.outer.name] = False
        if az.prove_ge(width, 1) and az.prove_eq(az.simplify(inner.extent % width), 0) and az.prove_eq(
            az.simplify(lo % width), 0
        ):
            up[rel.outer.name] = IntSet.point(az.simplify(outer.min + lo // inner.extent))
            start = az.simplify(inner.min + lo % inner.extent)
            up[rel.inner.name] = IntSet(start, az.simplify(start + width - 1))
            full[rel.inner.name] = False
        else:
            up[rel.inner.name], full[rel.inner.name] = inner_full, True

    # -- PassDownDomain ------------------------------------------------------------

    def pass_down_domain(self, stage: Stage) -> None:
        guards: list[IterVar] = []
        for rel in stage.relations:
            match rel:
                case Split():
                    self.pass_down_split(rel, guards, tight_ok=self.outer_encloses(stage, rel))
                case Singleton():
                    self.set_range(rel.iv, Range_(IndexConst(0), IndexConst(1)))
                case Fuse():
                    outer, inner = self.relaxed[rel.outer.name], self.relaxed[rel.inner.name]
                    self.set_range(rel.fused, Range_(IndexConst(0), outer.extent * inner.extent))
                    # The fused loop runs over the relaxed extents; where a component's exact
                    # range at this attach point is smaller, its body is guarded (as a split's).
                    guards.extend(iv for iv in (rel.outer, rel.inner) if not self.exact_is_relaxed(iv))
        self.guards[stage.name] = guards

    def exact_is_relaxed(self, iv: IterVar) -> bool:
        az = self.analyzer()
        exact, relaxed = self.ranges[iv.name], self.relaxed[iv.name]
        return az.prove_eq(exact.min, relaxed.min) and az.prove_eq(exact.extent, relaxed.extent)

    @staticmethod
    def outer_encloses(stage: Stage, rel: Split) -> bool:
        """Whether a tight inner extent (which names the outer variable) can be a loop
        extent: both are loops and the outer one encloses the inner one. An inner
        variable that is split or fused again gets a guard instead, since its extent
        would be multiplied out of the outer loop's scope."""
        if rel.outer not in stage.leaves or rel.inner not in stage.leaves:
            return False
        return stage.leaves.index(rel.outer) < stage.leaves.index(rel.inner)

    def pass_down_split(self, rel: Split, guards: list[IterVar], *, tight_ok: bool = True) -> None:
        az = self.analyzer()
        parent = self.ranges[rel.parent.name]
        extent = self.relaxed[rel.parent.name].extent
        factor = self.split_factor(rel, extent)
        # Both forms cover the extent with ceil(extent / factor) outer iterations: for
        # nparts that is at most nparts, and fewer when nparts exceeds what the extent
        # needs (TVM keeps nparts iterations and guards the body; none of ours is idle).
        outer_extent = az.simplify((extent + factor - 1) // factor)
        # at an attach point where the parent's exact extent is smaller (a row block of
        # causal attention needs the columns up to its last row), the outer loop stops
        # there: its relaxed extent stays for the requests made past the attach point
        exact_outer = outer_extent if parent.extent == extent else az.simplify((parent.extent + factor - 1) // factor)
        self.set_range(rel.outer, Range_(IndexConst(0), exact_outer), Range_(IndexConst(0), outer_extent))
        self.note_split(rel, factor, outer_extent)
        # No guard is needed only when the loops cover exactly the parent's range: the
        # factor divides the extent, and the extent is the same at every iteration of the
        # loops around the stage (an attached stage's exact extent can be smaller).
        divides = const_value(factor) is not None and az.prove_eq(az.simplify(extent % factor), 0)
        if divides and az.prove_eq(parent.extent, extent):
            self.set_range(rel.inner, Range_(IndexConst(0), factor))
            return
        if rel.disable_predication:
            raise PassError(
                f"infer-bound: split of {rel.parent.name} by {factor} with disable_predication: the extent "
                f"{parent.extent} is not provably a multiple of {factor}, and without a predicate the loops "
                "would run past it",
                self.model.func,
            )
        if self.split_mode == "tight" and tight_ok:
            remaining = az.simplify(parent.extent - IndexVar(rel.outer.name) * factor)
            self.set_range(rel.inner, Range_(IndexConst(0), emin(factor, remaining)), Range_(IndexConst(0), factor))
        else:
            self.set_range(rel.inner, Range_(IndexConst(0), factor))
            guards.append(rel.parent)  # parent < min + extent, in leaf variables at the end

    def split_factor(self, rel: Split, extent: IndexExpr) -> IndexExpr:
        """The inner extent: the factor, or ceil(extent / nparts) but at least 1 (so that
        an empty symbolic extent still divides by it)."""
        if rel.factor is not None:
            return IndexConst(rel.factor)
        az = self.analyzer()
        if rel.factor_expr is not None:
            return az.simplify(rel.inner_extent(extent))
        assert rel.nparts is not None
        factor = az.simplify((extent + rel.nparts - 1) // rel.nparts)
        return factor if az.prove_ge(factor, 1) else az.simplify(emax(factor, IndexConst(1)))

    def note_split(self, rel: Split, factor: IndexExpr, outer_extent: IndexExpr) -> None:
        """Kept for `explain`, which words it: most builds never ask, and a symbolic
        extent's text can be far larger than its expression DAG."""
        self.split_notes.setdefault(rel.parent.stage, []).append((rel, factor, outer_extent))

    @staticmethod
    def _split_note(rel: Split, factor: IndexExpr, outer_extent: IndexExpr) -> str:
        how = f"nparts {rel.nparts}: factor {factor}," if rel.nparts is not None else f"factor {factor}:"
        note = f"split {rel.parent.name} by {how} outer loop {rel.outer.name} runs {outer_extent} iterations"
        if rel.nparts is not None and const_value(outer_extent) not in (None, rel.nparts):
            note += f" (not {rel.nparts}: more would compute nothing)"
        return note

    # -- explanation -------------------------------------------------------------------

    def explain(self, stage: Stage) -> list[str]:
        """Why the stage is realized over its region: what determined each side."""
        region = " x ".join(format_range(self.ranges[iv.name].min, self.ranges[iv.name].extent) for iv in stage.axes)
        lines = [f"stage \"{stage.name}\": realized {region}"]
        lines += [f"  {self._split_note(*note)}" for note in self.split_notes.get(stage.name, [])]
        if stage.name not in self.requests:
            readers = self.model.extern_readers(stage.name)
            whole = f"read whole by te.extern \"{readers[0]}\"" if readers else "an output (or unread)"
            lines.append(f"  {whole}: realized over its whole shape")
            return lines
        az = self.analyzer()
        for dim, (iv, requests) in enumerate(zip(stage.axes, self.requests[stage.name], strict=True)):
            r = self.ranges[iv.name]
            hi = az.simplify(r.min + r.extent - 1)
            lines.append(f"  dim {dim}: min {r.min} from {self._source(requests, r.min, 'lo', az)}; "
                         f"max {hi} from {self._source(requests, hi, 'hi', az)}")
        seen: set[str] = set()
        every = [req for dim in self.requests[stage.name] for req in dim]
        for request in every:
            if request.where in seen:
                continue
            seen.add(request.where)
            past = [str(d) for d, dim in enumerate(self.requests[stage.name]) if any(
                r.clipped and r.where == request.where for r in dim)]
            if past:
                lines.append(f"  {request.where}: reaches past the shape in dim {', '.join(past)}, cut to it")
            if request.guard.used:
                lines.append(f"  {request.where}: tightened by the guard {' and '.join(request.guard.used)}")
            for reason in request.guard.unused:
                lines.append(f"  {request.where}: guard left unused: {reason}")
        return lines

    @staticmethod
    def _source(requests: list[Request], value: IndexExpr, side: str, az: Analyzer) -> str:
        for request in requests:
            end = request.set.lo if side == "lo" else request.set.hi
            if end is not None and (end == value or az.prove_eq(end, value)):
                return request.where
        return "the union of the requests (no single read attains it)"

    # -- results ---------------------------------------------------------------------

    def root_values(self, stage: Stage) -> dict[str, IndexExpr]:
        """Each variable as a function of the leaf variables (MakeLoopNest's value map)."""
        values: dict[IterVar, IndexExpr] = {iv: IndexVar(iv.name) for iv in stage.leaves}
        step: dict[IterVar, IndexExpr] = {}
        base: dict[IterVar, IndexExpr] = {}
        for rel in stage.relations:
            if isinstance(rel, Split | Fuse):
                step[rel.inner] = self.relaxed[rel.inner.name].extent
            if isinstance(rel, Split):
                base[rel.parent] = self.ranges[rel.parent.name].min
            elif isinstance(rel, Fuse):
                base |= {iv: self.relaxed[iv.name].min for iv in rel.inputs}
        pass_up_index(stage.relations, values, step, base)
        az = self.analyzer()
        return {iv.name: az.simplify(value) for iv, value in values.items()}

    def leaf_loops(self, stage: Stage, values: dict[str, IndexExpr]) -> list[tuple[IterVar, Range_]]:
        """The leaf loops, outer first. A range over the stage's data axes (a triangular
        reduce axis, or a split of one) names them through their leaf expressions, which
        must be loops outside it."""
        az = self.analyzer()
        data = {iv.name: values[iv.name] for iv in stage.axes if values[iv.name] != IndexVar(iv.name)}
        leaves = {iv.name for iv in stage.leaves}
        loops: list[tuple[IterVar, Range_]] = []
        for k, iv in enumerate(stage.leaves):
            r = self.ranges[iv.name]
            if data and free_vars(r.min + r.extent) & set(data):
                r = Range_(az.simplify(substitute_index(r.min, data)), az.simplify(substitute_index(r.extent, data)))
            inner = (free_vars(r.min) | free_vars(r.extent)) & (leaves - {v.name for v in stage.leaves[:k]})
            if inner:
                raise PassError(
                    f"infer-bound: the loop {iv.name} of stage \"{stage.name}\" runs over [{r.min}, "
                    f"{r.min} + {r.extent}), which depends on {', '.join(sorted(inner))}: that loop must "
                    "be outside it (a reduce axis whose extent names a data axis can't be reordered outside it)",
                    stage.op,
                )
            loops.append((iv, r))
        return loops

    def stage_bounds(self, stage: Stage) -> StageBounds:
        az = self.analyzer()
        shape = [dim_expr(d) for d in stage.op.tensor_type.get_shape()]
        realize = [self.ranges[iv.name] for iv in stage.axes]
        alloc_shape = [az.simplify(self.relaxed[iv.name].extent) for iv in stage.axes]
        values = self.root_values(stage)
        loops = self.leaf_loops(stage, values)
        data = {iv.name: values[iv.name] for iv in stage.axes}
        guards = []
        for parent in self.guards.get(stage.name, []):
            r = self.ranges[parent.name]
            if not az.prove_eq(r.min, self.relaxed[parent.name].min):
                guards.append(f"{values[parent.name]} >= {az.simplify(substitute_index(r.min, data))}")
            guards.append(f"{values[parent.name]} < {az.simplify(substitute_index(r.min + r.extent, data))}")
        for iv, r, extent in zip(stage.axes, realize, shape, strict=True):
            value = values[iv.name]
            if not az.prove_ge(r.min, 0):
                guards.append(f"{value} >= 0")
            if not az.prove_le(az.simplify(r.min + r.extent), extent):
                guards.append(f"{value} < {extent}")
        return StageBounds(realize, alloc_shape, loops, [values[iv.name] for iv in stage.root_vars], guards)


def infer_function(
    module: ModuleOp,
    func: te.FuncOp,
    split_mode: SplitMode = "tight",
    *,
    explain: bool = False,
    clip_to_shape: bool = True,
) -> None:
    inline_function(module, func)  # a no-op when compute-inline already ran
    schedule = schedule_of(module, func)
    model = ScheduleModel.build(func, schedule)
    inference = InferBound(model, split_mode, clip_to_shape)
    results = inference.run()
    for stage in model.stages.values():
        record(stage.op, results[stage.name], stage)
    if explain:
        print(f"// infer-bound @{func.sym_name.data}")
        for stage in reversed(list(model.stages.values())):
            print("\n".join(f"//   {line}" for line in inference.explain(stage)))
    if schedule is not None:
        Rewriter.erase_op(schedule)
