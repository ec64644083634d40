"""Matrix products: `matmul` ([M, K] x [K, N]), `dense` (PyTorch's linear,
x @ w.T with w stored [N, K]) and `batch_matmul` with broadcast batch dimensions.

`out_dtype` is the output type (the inputs' by default), `acc_dtype` the
accumulation type (default: an `out_dtype` other than the inputs', else float32
for float16: stage `<name>_acc`, rounded once by `<name>`, `util.reduce_rounded`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.util import (
    broadcast_shape,
    product_dtypes,
    product_term,
    reduce_rounded,
    same_dim,
    static,
)
from compiler.te import Dim, Expr, Tensor

if TYPE_CHECKING:
    import numpy as np


def _check_k(ka: Dim, kb: Dim, name: str) -> None:
    if static(ka) is not None and static(kb) is not None and static(ka) != static(kb):
        raise ExprValueError(f"{name}: inner dimensions {ka} and {kb} differ")


def matmul(
    a: Tensor, b: Tensor, name: str = "matmul", out_dtype: str | None = None, acc_dtype: str | None = None
) -> Tensor:
    """[M, K] x [K, N] -> [M, N]."""
    m, kk = a.shape
    kb, n = b.shape
    _check_k(kk, kb, name)
    k = te.reduce_axis((0, kk), "k")
    out, acc = product_dtypes(a.dtype, out_dtype, acc_dtype)
    return reduce_rounded(
        (m, n), lambda i, j: te.sum(product_term(a[i, k], b[k, j], acc), axis=k), out, name, attach=False
    )


def dense(
    x: Tensor, w: Tensor, name: str = "dense", out_dtype: str | None = None, acc_dtype: str | None = None
) -> Tensor:
    """x [..., K] times w [N, K] transposed -> [..., N] (PyTorch's linear without bias).

    `w` may also be blocked by output, [N / nb, K, nb] (`block_dense_weight`): a vector
    of nb outputs is then contiguous over the whole reduction (a [N, K] weight has none:
    its rows are the reductions)."""
    if w.ndim == 3:
        blocks, kw, nb = w.shape
        n: Dim = blocks * nb
    else:
        (n, kw), nb = w.shape, None
    kk = x.shape[-1]
    _check_k(kk, kw, name)
    k = te.reduce_axis((0, kk), "k")
    out, acc = product_dtypes(x.dtype, out_dtype, acc_dtype)

    def weight(j: Expr) -> Expr:
        return w[j, k] if nb is None else w[j // nb, k, j % nb]

    return reduce_rounded(
        (*x.shape[:-1], n),
        lambda *i: te.sum(product_term(x[(*i[:-1], k)], weight(i[-1]), acc), axis=k),
        out,
        name,
        attach=False,
    )


def block_dense_weight(w: np.ndarray, nb: int) -> np.ndarray:
    """An [N, K] weight as [N / nb, K, nb] (`dense`'s blocked weight)."""
    import numpy as np  # not at import: compiler.ops loads without NumPy's start-up

    n, k = w.shape
    if nb < 1 or n % nb:
        raise ExprValueError(f"block_dense_weight: {n} outputs are not blocks of {nb}")
    return np.ascontiguousarray(w.reshape(n // nb, nb, k).transpose(0, 2, 1))


def block_grouped_weight(w: np.ndarray, nb: int) -> np.ndarray:
    """Groups' weights [E, K, N] (a grouped matmul's experts) as [E, N / nb, K, nb]: each
    group's `block_dense_weight` layout, its column blocks contiguous over K."""
    import numpy as np  # not at import: compiler.ops loads without NumPy's start-up

    e, k, n = w.shape
    if nb < 1 or n % nb:
        raise ExprValueError(f"block_grouped_weight: {n} columns are not blocks of {nb}")
    return np.ascontiguousarray(w.reshape(e, k, n // nb, nb).transpose(0, 2, 1, 3))


def batch_matmul(
    a: Tensor, b: Tensor, transpose_a: bool = False, transpose_b: bool = False,
    name: str = "batch_matmul", out_dtype: str | None = None, acc_dtype: str | None = None,
    where: Callable[[Expr, Expr, Expr], Expr] | None = None,
) -> Tensor:
    """a [..., M, K] x b [..., K, N] -> [..., M, N]; the batch dimensions broadcast
    (NumPy's matmul on arrays of two or more dimensions). `where(row, col, k)`, a
    condition, sums only the terms where it holds (TVM's reduction `where`; a causal
    product skips the triangle it does not need, and `te.likely` in it lets
    loop-partition cut the loops there)."""
    if a.ndim < 2 or b.ndim < 2:
        raise ExprValueError(f"{name}: operands need at least two dimensions, got {a.shape} and {b.shape}")
    m, ka = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    kb, n = (b.shape[-1], b.shape[-2]) if transpose_b else (b.shape[-2], b.shape[-1])
    _check_k(ka, kb, name)
    batch = broadcast_shape(a.shape[:-2], b.shape[:-2], name)
    k = te.reduce_axis((0, ka), "k")

    def batch_index(t: Tensor, i: Sequence[Expr]) -> tuple[Expr | int, ...]:
        offset = len(batch) - (t.ndim - 2)
        return tuple(0 if static(d) == 1 and not same_dim(d, batch[j + offset]) else i[j + offset]
                     for j, d in enumerate(t.shape[:-2]))

    def element(*i: Expr) -> Expr:
        bi, row, col = i[:-2], i[-2], i[-1]
        va = a[(*batch_index(a, bi), *((k, row) if transpose_a else (row, k)))]
        vb = b[(*batch_index(b, bi), *((col, k) if transpose_b else (k, col)))]
        return te.sum(product_term(va, vb, acc), axis=k, where=None if where is None else where(row, col, k))

    out, acc = product_dtypes(a.dtype, out_dtype, acc_dtype)
    return reduce_rounded((*batch, m, n), element, out, name, attach=False)
