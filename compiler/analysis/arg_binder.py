"""ArgBinder: which DLTensor field binds each symbolic variable, and what is checked.

TVM's `ArgBinder` (src/tir/transforms/arg_binder.cc) as a plan without IR,
a pure function of a function's buffer arguments. `make-packed-api` emits
the plan as the checks of the packed wrapper (steps 3-4 of its calling
convention); `compiler.build` reads the same declarations (`arg_decls`).

For each argument in order, each `A.shape[k]` that is a symbolic name not
bound yet *binds* that name (`Bind`); anything else (an int, a bound name,
an expression of bound names) is *checked* against it (`Check`). Strides
(in elements) follow: a compact buffer's must be row-major, a
declared-strided buffer's bind or check like shapes. The stride of a
dimension of static size 1 is never looked at, and that of a symbolic one
is not checked when it is 1 at run time (`unit_exempt`). A check that needs
a variable bound by a later argument is deferred until all are bound; a
variable no field binds by itself is an error. A scalar argument
(`{loop.scalar = "n"}`, a 0-d int64 buffer) binds or checks its variable
from its value (`n.value`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from xdsl.dialects.builtin import (
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute

from compiler.analysis import arg_messages
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexConst, IndexExpr, free_vars
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import simplify
from compiler.diagnostics import PassError
from compiler.dialects import loop
from compiler.dialects.shape import Dim, dim_expr, is_symbol_name, shape_var_names
from compiler.dialects.te.types import UNSIGNED_DTYPES
from compiler.errors import IRError
from compiler.runtime.dlpack import KDL_BFLOAT, KDL_BOOL, KDL_FLOAT, KDL_INT, KDL_UINT, pack_dtype

OUTPUT_ATTR = "loop.output"  # as schedule-ops marks the outputs

# ---------------------------------------------------------------------------
# The arguments as declared
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DType:
    """A DLPack data type and the name messages use (`float32`)."""

    name: str
    code: int
    bits: int
    lanes: int = 1

    @property
    def packed(self) -> int:
        return pack_dtype(self.code, self.bits, self.lanes)

    @property
    def itemsize(self) -> int:
        return max(1, self.bits // 8) * self.lanes


@dataclass(frozen=True)
class ArgDecl:
    """A buffer argument as its type declares it; `strides` None means compact row-major."""

    name: str
    shape: tuple[Dim, ...]
    dtype: DType
    strides: tuple[Dim, ...] | None = None
    is_output: bool = False
    scalar: str | None = None  # the variable whose value this 0-d argument holds


def dlpack_dtype(t: Attribute, unsigned: str | None = None) -> DType:
    """The DLPack data type of a buffer element type (`unsigned`: the dtype a
    `loop.dtype` attribute gives signless integer elements, such as uint8)."""
    if unsigned is not None:  # loop.func's verifier checked it names an unsigned dtype of t's width
        return DType(unsigned, KDL_UINT, UNSIGNED_DTYPES[unsigned])
    if isinstance(t, BFloat16Type):
        return DType("bfloat16", KDL_BFLOAT, 16)
    if isinstance(t, Float16Type | Float32Type | Float64Type):
        bits = t.bitwidth
        return DType(f"float{bits}", KDL_FLOAT, bits)
    if isinstance(t, IndexType):
        return DType("int64", KDL_INT, 64)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return DType("bool", KDL_BOOL, 8)
        if t.signedness.data == Signedness.UNSIGNED:
            return DType(f"uint{width}", KDL_UINT, width)
        return DType(f"int{width}", KDL_INT, width)
    raise PassError(f"make-packed-api: no DLPack data type for element type {t}")


def arg_decls(func: loop.FuncOp) -> list[ArgDecl]:
    """The declared arguments of a `loop.func` over buffers.

    An output is an argument marked `{loop.output}` or one the function stores to.
    """
    attrs = (
        func.arg_attrs.data if func.arg_attrs is not None else [DictionaryAttr({})] * len(func.args)
    )
    written = {op.buffer for op in walk_ops(func) if isinstance(op, loop.StoreOp)}
    decls: list[ArgDecl] = []
    for i, (arg, attr) in enumerate(zip(func.args, attrs, strict=True)):
        t = arg.type
        if not isinstance(t, loop.BufferType):  # a packed wrapper (already lowered), or scalars
            raise PassError(
                f"@{func.sym_name.data} takes a {t} as argument {i}, not a buffer: only a loop.func over "
                "buffers can be compiled and called",
                func,
            )
        is_output = OUTPUT_ATTR in attr.data or arg in written
        scalar = attr.data.get(loop.SCALAR_ATTR)
        unsigned = attr.data.get(loop.DTYPE_ATTR)
        decls.append(
            ArgDecl(
                arg.name_hint or f"arg{i}",
                t.get_shape(),
                dlpack_dtype(t.element_type, unsigned.data if isinstance(unsigned, StringAttr) else None),
                t.get_strides(),
                is_output,
                scalar.data if isinstance(scalar, StringAttr) else None,
            )
        )
    return decls


def symbolic_variables(func: loop.FuncOp) -> list[str]:
    """The symbolic variables a function needs bound: those of the argument shapes and
    strides in order of first appearance, then the other `loop.var`s, allocation sizes and
    view offsets (a view's offset is emitted as code over them, as a size is)."""
    names: list[str] = []
    for t in func.function_type.inputs.data:
        if isinstance(t, loop.BufferType):
            names.extend(shape_var_names((*t.get_shape(), *(t.get_strides() or ()))))
    for op in walk_ops(func):
        if isinstance(op, loop.VarOp):
            names.append(op.var_name.data)
        elif isinstance(op, loop.AllocOp):
            names.extend(shape_var_names(op.buffer_type.get_shape()))
        elif isinstance(op, loop.ViewOp):
            names.extend(sorted(free_vars(parse_expr(op.offset.data))))
    return list(dict.fromkeys(names))


def row_major_strides(
    shape: Sequence[IndexExpr], normalize: Callable[[IndexExpr], IndexExpr] = lambda e: e
) -> list[IndexExpr]:
    """Strides in elements: stride[k] = shape[k+1] * ... * shape[-1], each partial product normalized."""
    strides: list[IndexExpr] = []
    acc: IndexExpr = IndexConst(1)
    for d in reversed(shape):
        strides.append(acc)
        acc = normalize(acc * d)
    return strides[::-1]


def compact_strides(shape: Sequence[Dim]) -> list[IndexExpr]:
    """The row-major strides of a declared shape, simplified."""
    return row_major_strides([dim_expr(d) for d in shape], simplify)


# ---------------------------------------------------------------------------
# The plan: binds and checks
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldRef:
    """`A.shape[k]`, `A.strides[k]`, or `n.value` (the element of a scalar argument)."""

    arg: str
    kind: Literal["shape", "strides", "value"]
    axis: int

    def __str__(self) -> str:
        return f"{self.arg}.value" if self.kind == "value" else f"{self.arg}.{self.kind}[{self.axis}]"


@dataclass(frozen=True)
class Bind:
    """The variable takes the field's value (its first occurrence)."""

    var: str
    field: FieldRef


@dataclass(frozen=True)
class Check:
    """The field must equal `expected` (an expression of bound variables).

    `declared` is the dimension as written (`4`, `"h"`, `"n + 2"`), None for
    the row-major stride of a compact buffer. `unit_exempt`: not checked
    when the dimension has size 1 (strides only).
    """

    field: FieldRef
    expected: IndexExpr
    declared: Dim | None
    unit_exempt: bool = False


Step = Bind | Check


@dataclass
class ArgPlan:
    decl: ArgDecl
    shape: list[Step] = field(default_factory=lambda: [])
    strides: list[Step] = field(default_factory=lambda: [])
    value: list[Step] = field(default_factory=lambda: [])  # a scalar argument's variable


class ArgBinder:
    """Plans the binding of a function's arguments (see the module docstring).

    `plans[i]` lists argument i's shape and stride steps in emission order;
    `deferred` holds checks that need a variable bound by a later argument;
    `origin[v]` is the field that binds `v`. Raises ValueError when a
    variable appears only inside expressions.
    """

    def __init__(self, func: str, args: Sequence[ArgDecl]):
        self.func = func
        self.args = list(args)
        self.origin: dict[str, FieldRef] = {}
        self.deferred: list[Check] = []
        self.plans = [self._plan(a) for a in self.args]
        for check in self.deferred:
            if missing := sorted(free_vars(check.expected) - self.origin.keys()):
                raise IRError(
                    arg_messages.unbindable_in_field(func, missing[0], str(check.field))
                )

    def _plan(self, decl: ArgDecl) -> ArgPlan:
        plan = ArgPlan(decl)
        for k, d in enumerate(decl.shape):
            self._add(plan.shape, FieldRef(decl.name, "shape", k), d)
        for k, d in enumerate(decl.shape):
            if d == 1:  # the stride of a size-1 dimension is never used
                continue
            ref = FieldRef(decl.name, "strides", k)
            symbolic = not isinstance(d, int)  # may be 1 at run time
            if decl.strides is None:
                expected = compact_strides(decl.shape)[k]
                self._add_check(plan.strides, Check(ref, expected, None, unit_exempt=symbolic))
            else:
                self._add(plan.strides, ref, decl.strides[k], unit_exempt=symbolic)
        if decl.scalar is not None:
            self._add(plan.value, FieldRef(decl.name, "value", 0), decl.scalar)
        return plan

    def _add(self, steps: list[Step], ref: FieldRef, d: Dim, *, unit_exempt: bool = False) -> None:
        if isinstance(d, str) and is_symbol_name(d) and d not in self.origin:
            self.origin[d] = ref
            steps.append(Bind(d, ref))
        else:
            self._add_check(steps, Check(ref, dim_expr(d), d, unit_exempt=unit_exempt))

    def _add_check(self, steps: list[Step], check: Check) -> None:
        if free_vars(check.expected) <= self.origin.keys():
            steps.append(check)
        else:
            self.deferred.append(check)

    @property
    def variables(self) -> list[str]:
        """The bound variables, in binding order."""
        return list(self.origin)

    def arg(self, name: str) -> ArgDecl:
        """The declaration of the argument called `name`."""
        return next(d for d in self.args if d.name == name)

    def check_message(self, check: Check) -> str:
        """The assert message: `{0}` is the actual value, `{1}` the expected one."""
        where = str(check.field)
        if check.declared is None:
            return arg_messages.not_compact(self.func, where, check.field.arg)
        origins = {v: str(self.origin[v]) for v in sorted(free_vars(check.expected))}
        return arg_messages.field_mismatch(self.func, where, check.declared, origins)
