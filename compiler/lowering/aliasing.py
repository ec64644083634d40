"""lower-to-llvm, step 0 (aliasing): which accesses of a function can't touch the same bytes.

LLVM only vectorizes a loop, keeps an accumulator in a register or reorders a
load past a store when it can tell the pointers apart. Two facts it can't see
on its own:

  * intermediate buffers are views of one arena (`storage-rewrite`): every
    access is `arena + offset + index`, and with a variable index LLVM can't
    prove that two views don't overlap;
  * a parallel loop's outlined body (parallel.py) reloads its buffer pointers
    from a context array, so the `noalias` of the compute function's
    arguments is lost there.

Before anything else is lowered, `annotate_alias_scopes` gives every
`loop.load`/`loop.store` of a function a discardable attribute naming its *alias
group*, `alias_scopes = ["f/G"]` (the group of the buffer it accesses), and, when
other groups may share its bytes (rare), `may_alias_scopes` naming them. They
survive the outlining of parallel bodies (ops are cloned with their attributes).
After outlining, `complete_alias_scopes` gives each access of each function its
`noalias_scopes`: the other groups that function accesses, less those it may
share bytes with. Listing only the function's own groups keeps the lists linear:
a network's parent function has thousands of groups, an outlined body a few (a
list of every group per access, pruned after outlining, took BART-large's
lowering 5 s). The lists are copied onto the `llvm.load`/`llvm.store`
(memory.py); jit.py turns them into LLVM's scoped-noalias metadata
(`!alias.scope`/`!noalias`, one domain per function). This is the same fact LLVM
derives itself when it inlines a call with `noalias` arguments.

Groups, and why they are sound (accesses in two groups never touch the same byte):

  * each buffer argument of a function is a group: the compute function
    already declares its buffer arguments `noalias`;
  * each allocation (`aligned_alloc`, `alloca`) is a group: fresh memory;
  * each view of an arena is a group, and two views are told apart only when
    their byte ranges `[offset, offset + size)` are proven disjoint (a buffer
    reused in place, or a later buffer at the bytes of a dead one, may share
    bytes with another: storage-rewrite reuses memory over time). The facts are
    pairwise, not a partition: in a network every byte of the arena is reused
    by many buffers, and grouping views by overlap transitively merged a conv's
    output, its padded input and everything between into one group (ResNet-18:
    every conv's accumulators stored back to memory on each step, 2.7x slower
    than the same conv in a small program). Disjointness is proven with the
    symbolic sizes (every shape variable >= 0); what can't be proven overlaps.
    An access to the arena itself joins all its views into one group.

An access's `noalias_scopes` lists every group of its function it is proven
apart from: all the others, less the views that may overlap its own.

An access whose buffer is none of these (none exist after storage-rewrite)
gets no attributes, so LLVM assumes it may alias anything.
"""

from __future__ import annotations

import heapq

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexConst, IndexExpr, free_vars
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import Analyzer, const_value
from compiler.dialects import loop
from compiler.dialects.shape import dim_expr
from compiler.names import fresh_name

ALIAS_SCOPES = "alias_scopes"
NOALIAS_SCOPES = "noalias_scopes"
MAY_ALIAS_SCOPES = "may_alias_scopes"
"""The groups an access may share bytes with, from `annotate_alias_scopes` until
`complete_alias_scopes` (its function's outlining and merging read it)."""


def buffer_bytes(t: loop.BufferType) -> IndexExpr:
    """The byte size of a (flat) buffer type as an expression."""
    size: IndexExpr = IndexConst(loop.element_bytes(t.element_type))
    for d in t.get_shape():
        size = size * dim_expr(d)
    return size


def _overlapping_views(views: list[loop.ViewOp]) -> list[tuple[int, int]]:
    """The pairs (i, j), j < i, of views whose byte ranges may intersect (each view's range
    read once: parsing its offset and size for every pair took a network's lowering 0.2 s)."""
    return overlapping_ranges([(parse_expr(v.offset.data), buffer_bytes(v.result.type)) for v in views])


def overlapping_ranges(ranges: list[tuple[IndexExpr, IndexExpr]]) -> list[tuple[int, int]]:
    """The pairs (i, j), j < i, of byte ranges (offset, size) that may intersect, every
    shape variable >= 0. The constant ranges are swept in order of offset (a network has
    thousands of views: testing every pair was quadratic); a symbolic range is tested
    against every other."""
    known = [(const_value(offset), const_value(size)) for offset, size in ranges]
    names: set[str] = set()
    for offset, size in ranges:
        names |= free_vars(offset) | free_vars(size)
    analyzer = Analyzer({n: (0, None) for n in names})

    def may_overlap(i: int, j: int) -> bool:
        (oa, sa), (ob, sb) = known[i], known[j]
        if oa is not None and sa is not None and ob is not None and sb is not None:
            return not (oa + sa <= ob or ob + sb <= oa)
        (oa_e, sa_e), (ob_e, sb_e) = ranges[i], ranges[j]
        return not (analyzer.prove_le(oa_e + sa_e, ob_e) or analyzer.prove_le(ob_e + sb_e, oa_e))

    constant = [(offset, size, k) for k, (offset, size) in enumerate(known) if offset is not None and size is not None]
    symbolic = [k for k, (offset, size) in enumerate(known) if offset is None or size is None]
    candidates = _touching_ranges(constant)
    candidates |= {(max(i, j), min(i, j)) for i in symbolic for j in range(len(ranges)) if j != i}
    return sorted(pair for pair in candidates if may_overlap(*pair))


def _touching_ranges(ranges: list[tuple[int, int, int]]) -> set[tuple[int, int]]:
    """The pairs (i, j), j < i, of (offset, size, index) ranges that intersect or touch (a
    superset of those that overlap: `may_overlap` decides), by a sweep in order of offset."""
    pairs: set[tuple[int, int]] = set()
    open_ends: list[tuple[int, int]] = []  # (end, index) of the ranges begun so far
    for offset, size, k in sorted(ranges):
        while open_ends and open_ends[0][0] < offset:
            heapq.heappop(open_ends)
        pairs |= {(max(k, j), min(k, j)) for _, j in open_ends}
        heapq.heappush(open_ends, (offset + size, k))
    return pairs


def alias_groups(f: loop.FuncOp) -> tuple[dict[SSAValue, str], set[frozenset[str]]]:
    """Every buffer value of `f` that is a root (argument, allocation, view) -> its group
    name, and the pairs of groups that may share bytes (views of one arena)."""
    groups: dict[SSAValue, str] = {}
    overlapping: set[frozenset[str]] = set()
    taken: set[str] = set()

    def unique(name: str) -> str:  # an argument and an allocation may share a name
        candidate = fresh_name(name, taken, "#")
        taken.add(candidate)
        return candidate

    for k, arg in enumerate(f.body.block.args):
        if isinstance(arg.type, loop.BufferType):
            groups[arg] = unique(arg.name_hint or f"arg{k}")
    views_of: dict[SSAValue, list[loop.ViewOp]] = {}
    for op in walk_ops(f):
        if isinstance(op, loop.AllocOp):
            groups[op.result] = unique(op.buffer_name.data)
        elif isinstance(op, loop.ViewOp):
            views_of.setdefault(op.arena, []).append(op)
    accessed = {op.buffer for op in walk_ops(f) if isinstance(op, loop.LoadOp | loop.StoreOp)}
    for arena, views in views_of.items():
        arena_name = groups.get(arena, "arena")
        if arena in accessed:  # the arena itself is read or written: one group for all
            for v in views:
                groups[v.result] = arena_name
            continue
        names = [unique(f"{arena_name}.{v.buffer_name.data}") for v in views]
        for v, name in zip(views, names, strict=True):
            groups[v.result] = name
        overlapping |= {frozenset((names[i], names[j])) for i, j in _overlapping_views(views)}
    return groups, overlapping


def _root(buffer: SSAValue) -> SSAValue | None:
    """The argument, allocation or view a buffer value is (None: unknown)."""
    owner = buffer.owner
    if isinstance(buffer, BlockArgument):
        assert isinstance(owner, Block)
        parent = owner.parent_op()
        return buffer if isinstance(parent, loop.FuncOp) else None
    if isinstance(owner, loop.AllocOp | loop.ViewOp):
        return buffer
    return None


def annotate_alias_scopes(f: loop.FuncOp) -> None:
    """Mark every load and store of `f` with its group, and the groups that may share its
    bytes (`complete_alias_scopes` lists the others once `f` is outlined)."""
    groups, overlapping = alias_groups(f)
    accesses: list[tuple[Operation, str]] = []
    for op in walk_ops(f):
        if isinstance(op, loop.LoadOp | loop.StoreOp):
            root = _root(op.buffer)
            if root is not None and root in groups:
                accesses.append((op, groups[root]))
    used = sorted({g for _, g in accesses})
    if len(used) < 2:  # nothing to tell apart
        return
    prefix = f.sym_name.data
    scope = {g: StringAttr(f"{prefix}/{g}") for g in used}
    partners: dict[str, set[str]] = {}
    for pair in overlapping:
        a, b = sorted(pair)
        if a in scope and b in scope:
            partners.setdefault(a, set()).add(b)
            partners.setdefault(b, set()).add(a)
    # one attribute per group, shared by its accesses
    own = {g: ArrayAttr([scope[g]]) for g in used}
    may = {g: ArrayAttr([scope[h] for h in sorted(hs)]) for g, hs in partners.items()}
    for op, group in accesses:
        op.attributes[ALIAS_SCOPES] = own[group]
        if group in may:
            op.attributes[MAY_ALIAS_SCOPES] = may[group]


def complete_alias_scopes(f: loop.FuncOp) -> None:
    """Give each access of `f` its `noalias_scopes`: the groups `f` accesses that it is proven
    apart from. After outlining, a parallel body accesses a few of its parent's groups; a
    group the body never accesses tells LLVM nothing about the body's accesses (each
    function is its own LLVM module: no inlining)."""
    accesses = [op for op in walk_ops(f) if isinstance(op, loop.LoadOp | loop.StoreOp) and ALIAS_SCOPES in op.attributes]
    used: set[StringAttr] = set()
    for op in accesses:
        scopes = op.attributes[ALIAS_SCOPES]
        if isinstance(scopes, ArrayAttr):
            used.update(s for s in scopes.data if isinstance(s, StringAttr))
    ordered = sorted(used, key=lambda s: s.data)
    lists: dict[tuple[Attribute, Attribute | None], ArrayAttr[StringAttr]] = {}  # by (own, may): a few scopes each
    for op in accesses:
        key = (op.attributes[ALIAS_SCOPES], op.attributes.pop(MAY_ALIAS_SCOPES, None))
        if key not in lists:
            excluded = {s for scopes in key if isinstance(scopes, ArrayAttr) for s in scopes.data}
            lists[key] = ArrayAttr([s for s in ordered if s not in excluded])
        if lists[key].data:
            op.attributes[NOALIAS_SCOPES] = lists[key]
        else:
            op.attributes.pop(NOALIAS_SCOPES, None)
