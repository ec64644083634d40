"""The tensor-expression language in one namespace, for the modules that lower or
schedule it and spell its names apart from the index language's (`T.Const`,
`T.Var` beside `compiler.arith`'s): the nodes, tensors, reducers and traversal,
without `compiler.te`'s schedules (which import this)."""

from compiler.te.nodes import (
    INDEX,
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    Dim,
    Expr,
    ExprLike,
    IterVar,
    Logical,
    Select,
    Var,
    as_expr,
    const,
    dim_repr,
    is_float,
)
from compiler.te.reducers import Combiner, CommReducer, Reduce, reducer_axes
from compiler.te.tensors import Operation, Read, ScanParts, Tensor, collect_stages, placeholder
from compiler.te.traversal import substitute, walk

__all__ = [
    "INDEX",
    "Binary",
    "Call",
    "Cast",
    "Combiner",
    "CommReducer",
    "Compare",
    "Const",
    "Dim",
    "Expr",
    "ExprLike",
    "IterVar",
    "Logical",
    "Operation",
    "Read",
    "Reduce",
    "ScanParts",
    "Select",
    "Tensor",
    "Var",
    "as_expr",
    "collect_stages",
    "const",
    "dim_repr",
    "is_float",
    "placeholder",
    "reducer_axes",
    "substitute",
    "walk",
]
