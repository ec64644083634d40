"""Shapes that mix static and symbolic dimensions, shared by `te` and `loop` types.

A dimension is an integer (`56`) or a string: a symbolic variable (`"h"`) or an
index expression over such variables (`"h // 2"`, `"h + 2"`). The same name in
two types of one function is one variable: the ArgBinder binds it once at call
time and checks every other occurrence.

Printed form, as in `!te.tensor<[1, "c", "h // 2"], f32>`: a square-bracketed
list of integers and string literals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from compiler.arith.expr import IndexConst, IndexExpr
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import const_value, simplify
from compiler.diagnostics import VerifyError

Dim = int | str
DimAttr = IntAttr | StringAttr


def dim_expr(d: Dim) -> IndexExpr:
    """A dimension as an index expression: an int, or its expression's text parsed."""
    return IndexConst(d) if isinstance(d, int) else parse_expr(d)


def expr_dim(e: IndexExpr) -> Dim:
    """An index expression as a dimension: simplified, an int when it is a constant."""
    e = simplify(e)
    c = const_value(e)
    return c if c is not None else str(e)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


_VALUE_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")


def verify_stage_name(name: str, what: str) -> None:
    """A stage or buffer name is also the name of its SSA values (`%conv_pad`): letters,
    digits, `_ $ . -`, not starting with a digit (xDSL refuses other value names)."""
    if _VALUE_NAME.fullmatch(name) is None:
        raise VerifyError(f"{what} \"{name}\": a name is letters, digits, _ $ . or -, not starting with a digit")


def verify_var_name(name: str, what: str) -> None:
    """A symbolic variable's name is an identifier (it appears in shape expressions)."""
    if not is_symbol_name(name):
        raise VerifyError(f"{what} \"{name}\": a symbolic variable's name is an identifier")


def is_symbol_name(dim: Dim) -> bool:
    """True for a dimension that is a plain symbolic variable such as "h"."""
    return isinstance(dim, str) and _IDENTIFIER.fullmatch(dim) is not None


def dims_to_attr(dims: Sequence[Dim]) -> ArrayAttr[DimAttr]:
    return ArrayAttr([IntAttr(d) if isinstance(d, int) else StringAttr(d) for d in dims])


def attr_to_dims(attr: ArrayAttr[DimAttr]) -> tuple[Dim, ...]:
    return tuple(d.data for d in attr.data)


def parse_dims(parser: AttrParser, what: str, *, dynamic: str | None = None) -> ArrayAttr[DimAttr]:
    """Parse `[1, "c", "h // 2"]`; a malformed dimension is reported at its position.
    `dynamic` is a marker string accepted as a dimension (te.reduce's `"?"`)."""

    def dim() -> DimAttr:
        value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
        if value is not None:
            return IntAttr(value)
        return StringAttr(parser.parse_str_literal(" (a dimension: an integer or a string)"))

    start = parser.pos
    dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, dim)
    try:
        verify_dims([d.data for d in dims if dynamic is None or d.data != dynamic], what)
    except VerifyException as err:
        parser.raise_error(str(err), start, parser.pos)
    return ArrayAttr(dims)


def print_dims(printer: Printer, dims: Sequence[Dim]) -> None:
    with printer.in_square_brackets():
        printer.print_list(
            dims,
            lambda d: printer.print_int(d) if isinstance(d, int) else printer.print_string_literal(d),
        )


MAX_BYTES = 2**63 - 1
"""The largest size in bytes of a buffer or tensor: index arithmetic is 64-bit and
signed, so a larger one's offsets would wrap."""

INTEGER_WIDTHS = (1, 8, 16, 32, 64)


def verify_element_type(t: Attribute, what: str) -> int:
    """An element type the compiler can store (f16, bf16, f32, f64, i1, i8, i16, i32, i64);
    its size in bytes (i1 takes a byte)."""
    if isinstance(t, IntegerType) and t.width.data in INTEGER_WIDTHS:
        width: int = t.width.data
        return max(1, width // 8)
    for cls, size in ((Float16Type, 2), (BFloat16Type, 2), (Float32Type, 4), (Float64Type, 8)):
        if isinstance(t, cls):
            return size
    raise VerifyError(f"{what}: unsupported element type {t}: expected f16, bf16, f32, f64, i1, i8, i16, i32 or i64")


def verify_dims(dims: Sequence[Dim], what: str, element_bytes: int = 1) -> None:
    """Reject negative extents, malformed symbolic dimensions and static sizes beyond
    MAX_BYTES (with `element_bytes` per element)."""
    from compiler.arith.parse import parse_expr

    size = element_bytes
    for axis, d in enumerate(dims):
        if isinstance(d, int):
            if d < 0:
                raise VerifyError(f"{what}: dimension {axis} is negative ({d})")
            size *= d
            if size > MAX_BYTES:
                raise VerifyError(
                    f"{what}: shape {list(dims)} is larger than a 64-bit index can address ({MAX_BYTES} bytes)"
                )
            continue
        try:
            parse_expr(d)
        except ValueError as err:
            raise VerifyError(
                f"{what}: dimension {axis} '{d}' is not a symbolic expression: {err}"
            ) from None


def shape_var_names(dims: Sequence[Dim]) -> list[str]:
    """The symbolic variables a shape mentions, in order of first appearance."""
    from compiler.arith.expr import free_vars
    from compiler.arith.parse import parse_expr

    names: list[str] = []
    for d in dims:
        if isinstance(d, str):
            found = [d] if is_symbol_name(d) else sorted(free_vars(parse_expr(d)))
            names.extend(n for n in found if n not in names)
    return names


SHAPE_BOUNDS = "shape_bounds"
"""A function's attribute: the range of the symbolic shape variables that have one,
`{seq = array<i64: 1, 2048>}` (lower, upper) or `{seq = array<i64: 1>}` (no upper
bound). The packed API checks each at every call, so passes may prove with it; a
variable it does not list is any size >= 0."""

SizeRange = tuple[int, int | None]

ANY_SIZE: SizeRange = (0, None)
"""The range of a variable `shape_bounds` does not list."""


def shape_bounds_attr(bounds: Mapping[str, SizeRange]) -> DictionaryAttr:
    return DictionaryAttr({
        name: DenseArrayBase.from_list(i64, [lo] if hi is None else [lo, hi]) for name, (lo, hi) in sorted(bounds.items())
    })


def declared_shape_bounds(op: Operation) -> dict[str, SizeRange]:
    """The ranges a function's `shape_bounds` attribute declares (see `SHAPE_BOUNDS`)."""
    attr = op.attributes.get(SHAPE_BOUNDS)
    if not isinstance(attr, DictionaryAttr):
        return {}
    found: dict[str, SizeRange] = {}
    for name, value in attr.data.items():
        ends = _range_ends(value)
        if ends is not None:
            found[name] = (ends[0], ends[1] if len(ends) == 2 else None)
    return found


def _range_ends(value: Attribute) -> tuple[int, ...] | None:
    """A range's `array<i64: lower>` or `array<i64: lower, upper>`, else None."""
    if not (isinstance(value, DenseArrayBase) and value.elt_type == i64):
        return None
    ends = tuple(int(e) for e in value.get_values())
    return ends if len(ends) in (1, 2) else None


def size_bounds(op: Operation, names: Iterable[str]) -> dict[str, SizeRange]:
    """The range of each shape variable in `names` that the analyzers assume: the one
    the function declares, else [0, inf)."""
    declared = declared_shape_bounds(op)
    return {n: declared.get(n, ANY_SIZE) for n in names}


def verify_shape_bounds(op: Operation, names: Iterable[str], what: str) -> None:
    """A `shape_bounds` attribute names shape variables of the function, each with a
    range 0 <= lower <= upper."""
    attr = op.attributes.get(SHAPE_BOUNDS)
    if attr is None:
        return
    if not isinstance(attr, DictionaryAttr):
        raise VerifyError(f"{what}: '{SHAPE_BOUNDS}' must be a dictionary of variable ranges, got {attr}")
    known = set(names)
    for name, value in attr.data.items():
        ends = _range_ends(value)
        if ends is None:
            raise VerifyError(
                f"{what}: the range of '{name}' must be array<i64: lower> or array<i64: lower, upper>, got {value}"
            )
        if name not in known:
            raise VerifyError(f"{what}: '{SHAPE_BOUNDS}' names '{name}', which is no symbolic dimension of the function")
        if ends[0] < 0 or (len(ends) == 2 and ends[1] < ends[0]):
            raise VerifyError(f"{what}: the range of '{name}' is {list(ends)}; a size range needs 0 <= lower <= upper")
