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
`loop.load`/`loop.store` of a function two discardable attributes naming
*alias groups*: `alias_scopes = ["f/G"]` (the group of the buffer it accesses)
and `noalias_scopes` (every other group of the function). They survive the
outlining of parallel bodies (ops are cloned with their attributes) and are
copied onto the `llvm.load`/`llvm.store` (memory.py); jit.py turns them into
LLVM's scoped-noalias metadata (`!alias.scope`/`!noalias`, one domain per
function). This is the same fact LLVM derives itself when it inlines a call
with `noalias` arguments.

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

An access's `noalias_scopes` lists every group of the function it is proven
apart from: all the others, less the views that may overlap its own.

An access whose buffer is none of these (none exist after storage-rewrite)
gets no attributes, so LLVM assumes it may alias anything.
"""

from __future__ import annotations

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


def buffer_bytes(t: loop.BufferType) -> IndexExpr:
    """The byte size of a (flat) buffer type as an expression."""
    size: IndexExpr = IndexConst(loop.element_bytes(t.element_type))
    for d in t.get_shape():
        size = size * dim_expr(d)
    return size


def _overlapping_views(views: list[loop.ViewOp]) -> list[tuple[int, int]]:
    """The pairs (i, j), j < i, of views whose byte ranges may intersect (each view's range
    read once: parsing its offset and size for every pair took a network's lowering 0.2 s)."""
    ranges = [(parse_expr(v.offset.data), buffer_bytes(v.result.type)) for v in views]
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

    return [(i, j) for i in range(len(views)) for j in range(i) if may_overlap(i, j)]


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
    """Mark every load and store of `f` with its group and the groups it doesn't alias."""
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
    # one attribute per group, shared by its accesses (and by their metadata nodes)
    own = {g: ArrayAttr([scope[g]]) for g in used}
    apart = {g: ArrayAttr([scope[h] for h in used if h != g and frozenset((g, h)) not in overlapping]) for g in used}
    for op, group in accesses:
        op.attributes[ALIAS_SCOPES] = own[group]
        op.attributes[NOALIAS_SCOPES] = apart[group]


def prune_alias_scopes(f: loop.FuncOp) -> None:
    """Keep in each noalias list of `f` only the groups `f` accesses. After outlining, a
    parallel body accesses a few of its parent's groups, but its lists named all of them
    (a network's hundreds, each a metadata node per list in every function's LLVM module:
    CLIP's lowering spent 4 s making them); a group the body never accesses tells LLVM
    nothing about the body's accesses (each function is its own LLVM module: no inlining)."""
    accesses = [op for op in walk_ops(f) if isinstance(op, loop.LoadOp | loop.StoreOp) and ALIAS_SCOPES in op.attributes]
    used: set[Attribute] = set()
    for op in accesses:
        scopes = op.attributes[ALIAS_SCOPES]
        if isinstance(scopes, ArrayAttr):
            used.update(scopes.data)
    pruned: dict[int, tuple[Attribute, ArrayAttr[StringAttr]]] = {}  # by the shared list (its id: held here)
    for op in accesses:
        apart = op.attributes.get(NOALIAS_SCOPES)
        if not isinstance(apart, ArrayAttr):
            continue
        if id(apart) not in pruned:
            pruned[id(apart)] = (apart, ArrayAttr([s for s in apart.data if s in used]))
        kept = pruned[id(apart)][1]
        if kept.data:
            op.attributes[NOALIAS_SCOPES] = kept
        else:
            del op.attributes[NOALIAS_SCOPES]
