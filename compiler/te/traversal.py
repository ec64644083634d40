"""Walking and rewriting tensor expressions, through the children each node lists
(`Expr.children`, `Expr.map_children`): the same for every node kind, `Read`s and
`Reduce`s included."""

from __future__ import annotations

from compiler.te.nodes import Expr, IterVar


def walk(e: Expr) -> list[Expr]:
    """Every node of an expression (pre-order), not descending into tensors."""
    out: list[Expr] = []
    stack = [e]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children()))
    return out


def substitute(e: Expr, mapping: dict[int, Expr]) -> Expr:
    """`e` with the axes in `mapping` (by uid) replaced; unchanged subtrees are shared.
    A user reducer's combiner is substituted too (it may name the compute's axes)."""
    if isinstance(e, IterVar):
        return mapping.get(e.uid, e)
    return e.map_children(lambda k: substitute(k, mapping))
