"""make-packed-api: a uniform DLTensor calling convention with checked arguments.

Mirrors TVM's `MakePackedAPI` and `ArgBinder` (src/tir/transforms/
make_packed_api.cc, arg_binder.cc). Every `loop.func @f` over buffers
becomes two functions:

```mlir
loop.func @f(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
  ...                                  // read and check each DLTensor, bind the variables
  packed.call @f_compute(%A, %B) ["n" = %n]
}
loop.func @f_compute(%A: !loop.buffer<["n", 4], f32>, %B: ...) { ... }   // the original body
```

The ABI of `@f`, in C: `int32_t f(DLTensor **args, int32_t num_args,
int64_t *error_values)`. It returns 0, or `k + 1` when its k-th
`loop.assert` fails; that assert's message is a Python format string whose
`{i}` fields are the integers it stored in `error_values[i]` (the actual
value, the expected one...). The caller (`compiler.runtime.packed`) raises
the assert's `ValueError` or `TypeError` with the formatted message.
`@f_compute` keeps `noalias` buffers (LLVM vectorizes it as before) and
receives the bound variables by name.

Design choices:
  * The pass runs before `storage-flatten`, which drops the N-D argument
    types the binder reads; `@f_compute` then goes through the storage
    passes like any function (a declared-strided buffer is indexed with its
    bound stride variables).
  * Two functions rather than TVM's one: `noalias` on the compute
    function's pointers is what lets LLVM vectorize and keep accumulators
    in registers; when LLVM inlines the call it turns them into scoped
    alias metadata. The bound variables cross the call by name, so passes
    between this one and `lower-to-llvm` may add or drop `loop.var`s.
  * Addresses (`DLTensor*`, `data`, `strides`) are `index` values in the IR,
    so that the checks are plain `arith` and reuse `compiler.arith`'s
    simplifier: static checks fold away, shared sub-expressions are
    emitted once.
  * Outputs are the arguments marked `{loop.output}` or stored to. A
    DLTensor has no read-only flag, so the caller rejects read-only
    outputs (`compiler.runtime.packed`, from NumPy's flag or the versioned
    DLPack capsule's).
  * `make-packed-api{strided=A,B}` (and `compile_module(strided_args=...)`)
    declare buffer arguments strided, with stride variables `A_stride<k>`.

Where do a symbolic function's shape and stride variables come from (seed
003)? From the `packed.dltensor_get` that binds each of them, visible by name
right after this pass: `%h = packed.dltensor_get %x_tensor, shape[2] : index`,
and from the `packed.call` that passes `"h" = %h` to the compute function.

Algorithm (the `ArgBinder` plan, then its emission):

  1. `num_args` must be the number of buffers (TypeError).
  2. For each argument A, in order: A's `DLTensor*` is not NULL (TypeError);
     `ndim` is the rank; `dtype` (code, bits, lanes as one u32) is the
     element type (TypeError); `device_type` is kDLCPU; `shape` is not NULL.
  3. For each `A.shape[k]`: a symbolic name not bound yet is *bound* here
     (and must be >= 0); anything else (an int, a bound name, an expression
     of bound names) is *checked*: one assert, whose message names the
     field, the declared and the expected value and where each variable
     was bound. A check whose expression needs a variable bound by a later
     argument is deferred until every argument is bound.
  4. Strides (in elements). A compact buffer accepts NULL strides or the
     row-major strides of its shape (any strides if it is empty); a
     declared-strided buffer (`!loop.buffer<..., strides ["s0", 1]>`) binds
     or checks each stride like a shape field, NULL meaning compact, and an
     output's strides must not be 0. The stride of a dimension of size 1 is
     never checked (PyTorch exports arbitrary strides there).
  5. `data` is not NULL unless A is empty; `data + byte_offset` is aligned
     to the element size.
  6. An output must not overlap any other argument in memory (`@f_compute`
     assumes noalias): the byte ranges [lo, hi) spanned by the two
     arguments are disjoint, or one of them is empty.
  7. `packed.call @f_compute` with the data addresses and the variables.

Every check is one `loop.assert`; nothing is checked twice. Shapes and
strides are int64 read as `index` (64-bit, never truncated).

Known limits:
  * A variable is bound only from a field that is exactly its name; a
    variable that appears only inside expressions (`"n + 2"`) cannot be bound
    (the pass fails and says so). TVM has the same rule.
  * A stride variable bound from a dimension of size 1 takes whatever the
    producer put there; a later use of the same variable is checked
    against that value.
  * The overlap test compares address intervals, so interleaved views
    (`x[:, ::2]` and `x[:, 1::2]`) are rejected although they share no
    element; an output whose own elements overlap is only detected for a
    zero stride.
  * Only CPU tensors (kDLCPU); `dtype` is read as a little-endian u32.

# WARNING: like any DLPack consumer, the checks trust that a DLTensor
# describes memory its producer owns: a forged one claiming more elements
# than its allocation is not detected. Element counts and byte extents are
# int64 without overflow checks, so a forged compact output of shape
# (2^32, 2^32) has an element count that wraps to 0, looks empty, and
# passes the NULL-data and overlap checks. No tensor in memory reaches 2^63
# bytes, so real arrays (NumPy, PyTorch) are not affected.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from xdsl.context import Context
from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from compiler.arith.expr import (
    EQ,
    LE,
    NE,
    And,
    BoolConst,
    Cond,
    Const,
    Expr,
    Or,
    Var,
    emax,
    emin,
    free_vars,
    parse_expr,
)
from compiler.arith.ir import emit_cond, emit_expr
from compiler.arith.simplify import simplify, simplify_cond
from compiler.dialects import loop, packed
from compiler.dialects.shape import Dim, is_symbol_name, shape_var_names
from compiler.runtime.dlpack import KDL_BOOL, KDL_CPU, KDL_FLOAT, KDL_INT, KDL_UINT, pack_dtype

OUTPUT_ATTR = "loop.output"  # as schedule-ops marks the outputs
COMPUTE_SUFFIX = "_compute"

# ---------------------------------------------------------------------------
# ArgBinder: what to bind and what to check (pure, no IR)
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


@dataclass(frozen=True)
class FieldRef:
    """`A.shape[k]` or `A.strides[k]`."""

    arg: str
    kind: Literal["shape", "strides"]
    axis: int

    def __str__(self) -> str:
        return f"{self.arg}.{self.kind}[{self.axis}]"


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
    expected: Expr
    declared: Dim | None
    unit_exempt: bool = False


Step = Bind | Check


@dataclass
class ArgPlan:
    decl: ArgDecl
    shape: list[Step] = field(default_factory=lambda: [])
    strides: list[Step] = field(default_factory=lambda: [])


def dim_expr(d: Dim) -> Expr:
    return Const(d) if isinstance(d, int) else parse_expr(d)


def compact_strides(shape: Sequence[Dim]) -> list[Expr]:
    """Row-major strides in elements: stride[k] = shape[k+1] * ... * shape[-1]."""
    strides: list[Expr] = []
    acc: Expr = Const(1)
    for d in reversed(shape):
        strides.append(acc)
        acc = simplify(acc * dim_expr(d))
    return strides[::-1]


class ArgBinder:
    """Plans the binding of a function's arguments (see the module docstring, steps 3-4).

    `plans[i]` lists argument i's shape and stride steps in emission order;
    `deferred` holds checks that need a variable bound by a later argument;
    `origin[v]` is the field that binds `v`.
    """

    def __init__(self, func: str, args: Sequence[ArgDecl]):
        self.func = func
        self.args = list(args)
        self.origin: dict[str, FieldRef] = {}
        self.deferred: list[Check] = []
        self.plans = [self._plan(a) for a in self.args]
        for check in self.deferred:
            if missing := sorted(free_vars(check.expected) - self.origin.keys()):
                raise ValueError(
                    f"@{func}: symbolic variable '{missing[0]}' (in {check.field}) appears in no "
                    "argument shape or stride by itself, so no call can bind it"
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

    # -- messages -----------------------------------------------------------

    def bound_from(self, names: Sequence[str]) -> str:
        return ", ".join(f"{n} bound from {self.origin[n]}" for n in names)

    def check_message(self, check: Check) -> str:
        """The assert message: `{0}` is the actual value, `{1}` the expected one."""
        f, where = self.func, check.field
        if check.declared is None:
            a = where.arg
            return (
                f"{f}: {where} is {{0}}, expected {{1}} (strides count elements): {a} is not "
                f"C-contiguous, and {f} takes {a} compact (row-major)"
            )
        if isinstance(check.declared, int):
            return f"{f}: {where} is {{0}}, expected {check.declared}"
        names = sorted(free_vars(check.expected))
        return (
            f"{f}: {where} is {{0}}, expected {check.declared} = {{1}} ({self.bound_from(names)})"
        )


# ---------------------------------------------------------------------------
# Emission of the packed function
# ---------------------------------------------------------------------------


def dtype_of(t: Attribute) -> DType:
    """The DLPack data type of a buffer element type."""
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
    raise PassFailedException(f"make-packed-api: no DLPack data type for element type {t}")


def arg_decls(func: loop.FuncOp) -> list[ArgDecl]:
    """The declared arguments of a `loop.func` over buffers."""
    attrs = (
        func.arg_attrs.data if func.arg_attrs is not None else [DictionaryAttr({})] * len(func.args)
    )
    written = {op.buffer for op in func.walk() if isinstance(op, loop.StoreOp)}
    decls: list[ArgDecl] = []
    for i, (arg, attr) in enumerate(zip(func.args, attrs, strict=True)):
        t = arg.type
        assert isinstance(t, loop.BufferType)
        is_output = OUTPUT_ATTR in attr.data or arg in written
        decls.append(
            ArgDecl(
                arg.name_hint or f"arg{i}",
                t.get_shape(),
                dtype_of(t.element_type),
                t.get_strides(),
                is_output,
            )
        )
    return decls


class PackedBuilder:
    """Appends the body of the packed function, following an `ArgBinder` plan."""

    def __init__(self, binder: ArgBinder, packed: loop.FuncOp, compute: str):
        self.binder = binder
        self.f = binder.func
        self.compute = compute
        self.args, self.num_args, _ = packed.args
        self.block = packed.body.block
        self.env: dict[str, SSAValue] = {}  # variables, fields ("A.shape[0]") and data ("@A")
        self.cache: dict[Expr | Cond, SSAValue] = {}
        self.tensor: dict[str, SSAValue] = {}
        self.has_strides: dict[str, SSAValue] = {}

    # -- small emitters -----------------------------------------------------

    def add(self, op: Operation, name: str | None = None) -> SSAValue:
        self.block.add_op(op)
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]

    def expr(self, e: Expr) -> SSAValue:
        return emit_expr(simplify(e), self.block.add_op, self.env.__getitem__, self.cache)

    def cond(self, c: Cond) -> SSAValue:
        return emit_cond(simplify_cond(c), self.block.add_op, self.env.__getitem__, self.cache)

    def check(
        self, c: Cond, message: str, values: Sequence[SSAValue] = (), error: str | None = None
    ) -> None:
        c = simplify_cond(c)
        if c == BoolConst(True):
            return
        self.block.add_op(loop.AssertOp(self.cond(c), message, values, error=error))

    def check_i32(
        self, value: SSAValue, expected: int, message: str, error: str | None = None
    ) -> None:
        const = self.add(arith.ConstantOp(IntegerAttr(expected, i32)))
        ok = self.add(arith.CmpiOp(value, const, "eq"))
        self.block.add_op(loop.AssertOp(ok, message, [value], error=error))

    def field(
        self, tensor: SSAValue, name: str, axis: int | None = None, hint: str | None = None
    ) -> SSAValue:
        return self.add(packed.DLTensorGetOp(tensor, name, axis), hint)

    @contextmanager
    def guarded(self, cond: SSAValue) -> Iterator[None]:
        """Emit into `loop.if %cond { ... }` (values made inside stay inside)."""
        if_op = loop.IfOp(cond)
        self.block.add_op(if_op)
        outer, cache = self.block, self.cache
        self.block, self.cache = if_op.then_region.block, {}
        try:
            yield
        finally:
            self.block, self.cache = outer, cache

    # -- the function ---------------------------------------------------------

    def build(self) -> None:
        decls = self.binder.args
        names = ", ".join(d.name for d in decls)
        self.check_i32(
            self.num_args,
            len(decls),
            f"{self.f}() takes {len(decls)} arrays ({names}), got {{0}}",
            "TypeError",
        )
        for k, plan in enumerate(self.binder.plans):
            self.argument(k, plan)
        for check in self.binder.deferred:
            self.emit_check(check)
        self.overlaps()
        buffers = [self.env[f"@{d.name}"] for d in decls]
        variables = [(v, self.env[v]) for v in self.binder.variables]
        self.block.add_op(packed.CallOp(self.compute, buffers, variables))

    def argument(self, position: int, plan: ArgPlan) -> None:
        a, f, decl = plan.decl.name, self.f, plan.decl
        t = self.add(packed.PackedArgOp(self.args, position), f"{a}_tensor")
        self.tensor[a] = t
        self.env[f"{a}.tensor"] = t
        self.check(
            NE(Var(f"{a}.tensor"), Const(0)),
            f"{f}: argument {a} is NULL, expected a DLTensor*",
            (),
            "TypeError",
        )
        ndim = self.field(t, "ndim", hint=f"{a}_ndim")
        self.check_i32(ndim, len(decl.shape), f"{f}: {a}.ndim is {{0}}, expected {len(decl.shape)}")
        dtype = self.field(t, "dtype", hint=f"{a}_dtype")
        self.check_i32(
            dtype,
            decl.dtype.packed,
            f"{f}: {a}.dtype is {{0:dtype}}, expected {decl.dtype.name}",
            "TypeError",
        )
        device = self.field(t, "device_type", hint=f"{a}_device_type")
        self.check_i32(
            device, KDL_CPU, f"{f}: {a}.device_type is {{0:device}}, expected cpu (device_type 1)"
        )
        if decl.shape:
            self.env[f"{a}.shape"] = self.field(t, "shape", hint=f"{a}_shape")
            self.check(
                NE(Var(f"{a}.shape"), Const(0)),
                f"{f}: {a}.shape is NULL for a {len(decl.shape)}-D tensor",
            )
        steps = {s.field.axis: s for s in plan.shape}
        for k in range(len(decl.shape)):
            step = steps.get(k)
            hint = step.var if isinstance(step, Bind) else f"{a}_shape{k}"
            self.env[str(FieldRef(a, "shape", k))] = self.field(t, "shape", k, hint)
            if step is not None:
                self.emit_step(step)
        self.strides(plan)
        self.data(decl)

    def emit_step(self, step: Step) -> None:
        if isinstance(step, Check):
            self.emit_check(step)
            return
        value = self.env[str(step.field)]
        self.env[step.var] = value
        if step.field.kind == "shape":
            self.check(
                LE(Const(0), Var(step.var)),
                f"{self.f}: {step.field} is {{0}}, expected a size >= 0 (it binds {step.var})",
                [value],
            )

    def emit_check(self, check: Check) -> None:
        ref = str(check.field)
        if (
            check.field.kind == "strides"
            and self.binder.args[self._index(check.field.arg)].strides is None
        ):
            self.compact_stride_check(check)
            return
        actual = Var(ref)
        ok: Cond = EQ(actual, check.expected)
        if check.unit_exempt:
            ok = Or(
                EQ(Var(str(FieldRef(check.field.arg, "shape", check.field.axis))), Const(1)), ok
            )
        values = [self.env[ref]]
        if not isinstance(check.declared, int):
            values.append(self.expr(check.expected))
        self.check(ok, self.binder.check_message(check), values)

    def compact_stride_check(self, check: Check) -> None:
        with self.guarded(self.strides_to_check(check.field.arg)):
            self.compact_stride_check_inside(check)

    def compact_stride_check_inside(self, check: Check) -> None:
        """Inside `if strides != NULL`: load the stride and compare it with the row-major one."""
        a, k = check.field.arg, check.field.axis
        value = self.field(self.tensor[a], "strides", k, f"{a}_stride{k}")
        self.env[str(check.field)] = value
        ok: Cond = EQ(Var(str(check.field)), check.expected)
        if check.unit_exempt:
            ok = Or(EQ(Var(str(FieldRef(a, "shape", k))), Const(1)), ok)
        self.check(ok, self.binder.check_message(check), [value, self.expr(check.expected)])
        del self.env[str(check.field)]

    def _index(self, arg: str) -> int:
        return next(i for i, d in enumerate(self.binder.args) if d.name == arg)

    def strides_present(self, a: str) -> SSAValue:
        """`A.strides != NULL`, loaded at its first use (at the function's top level)."""
        if a not in self.has_strides:
            self.env[f"{a}.strides"] = self.field(self.tensor[a], "strides", hint=f"{a}_strides")
            self.has_strides[a] = self.cond(NE(Var(f"{a}.strides"), Const(0)))
        return self.has_strides[a]

    def strides_to_check(self, a: str) -> SSAValue:
        """`A.strides != NULL && A is not empty`: the strides of an empty tensor mean nothing."""
        decl = self.binder.args[self._index(a)]
        self.strides_present(a)
        return self.cond(And(NE(Var(f"{a}.strides"), Const(0)), NE(self._numel(decl), Const(0))))

    def strides(self, plan: ArgPlan) -> None:
        decl, a = plan.decl, plan.decl.name
        t = self.tensor[a]
        if decl.strides is None:
            if plan.strides:
                with self.guarded(self.strides_to_check(a)):
                    for step in plan.strides:
                        assert isinstance(step, Check)
                        self.compact_stride_check_inside(step)
            return
        shape = [Var(str(FieldRef(a, "shape", k))) for k in range(len(decl.shape))]
        compact = [self.expr(s) for s in _row_major(shape)]
        for k in range(len(decl.shape)):
            step = next((s for s in plan.strides if s.field.axis == k), None)
            hint = step.var if isinstance(step, Bind) else f"{a}_stride{k}"
            self.env[str(FieldRef(a, "strides", k))] = self.stride_or_compact(
                t, a, k, compact[k], hint
            )
            if step is not None:
                self.emit_step(step)
            if decl.is_output:
                self.check(
                    Or(LE(shape[k], Const(1)), NE(Var(str(FieldRef(a, "strides", k))), Const(0))),
                    f"{self.f}: {a}.strides[{k}] is 0, but {a} is an output: its elements must not overlap",
                )

    def stride_or_compact(
        self, t: SSAValue, a: str, k: int, compact: SSAValue, hint: str
    ) -> SSAValue:
        """`strides ? strides[k] : compact[k]` (a NULL strides pointer means row-major)."""
        then_block, else_block = Block(), Block()
        loaded = packed.DLTensorGetOp(t, "strides", k)
        then_block.add_ops([loaded, scf.YieldOp(loaded)])
        else_block.add_op(scf.YieldOp(compact))
        if_op = scf.IfOp(
            self.strides_present(a), [IndexType()], Region(then_block), Region(else_block)
        )
        return self.add(if_op, hint)

    def data(self, decl: ArgDecl) -> None:
        a, f, t = decl.name, self.f, self.tensor[decl.name]
        self.env[f"{a}.data"] = self.field(t, "data", hint=f"{a}_data")
        self.env[f"{a}.byte_offset"] = self.field(t, "byte_offset", hint=f"{a}_byte_offset")
        address = self.add(arith.AddiOp(self.env[f"{a}.data"], self.env[f"{a}.byte_offset"]), a)
        self.env[f"@{a}"] = address
        numel = self._numel(decl)
        self.check(
            Or(EQ(numel, Const(0)), NE(Var(f"{a}.data"), Const(0))),
            f"{f}: {a}.data is NULL, but {a} has {{0}} elements",
            [self.expr(numel)],
        )
        size = decl.dtype.itemsize
        if size > 1:
            rem = self.add(arith.RemUIOp(address, self.expr(Const(size))))
            ok = self.add(arith.CmpiOp(rem, self.expr(Const(0)), "eq"))
            message = (
                f"{f}: {a}.data + {a}.byte_offset = {{0:#x}} is not a multiple of {size} bytes, "
                f"the alignment of {decl.dtype.name}"
            )
            self.block.add_op(loop.AssertOp(ok, message, [address]))

    def _numel(self, decl: ArgDecl) -> Expr:
        numel: Expr = Const(1)
        for k in range(len(decl.shape)):
            numel = numel * self._dim(decl, k)
        return numel

    def _dim(self, decl: ArgDecl, k: int) -> Expr:
        """Shape k, as declared where that is already checked (simpler IR), else as read."""
        d = decl.shape[k]
        if isinstance(d, int) or (is_symbol_name(d) and d in self.env):
            return dim_expr(d)
        return Var(str(FieldRef(decl.name, "shape", k)))

    def _extent(self, decl: ArgDecl) -> tuple[Expr, Expr]:
        """Byte offsets [lo, hi) of the elements from the data address (non-empty tensors)."""
        a, size = decl.name, decl.dtype.itemsize
        if decl.strides is None:
            return Const(0), self._numel(decl) * size
        lo: Expr = Const(0)
        hi: Expr = Const(1)
        for k in range(len(decl.shape)):
            span = (self._dim(decl, k) - 1) * Var(str(FieldRef(a, "strides", k)))
            lo, hi = lo + emin(span, 0), hi + emax(span, 0)
        return lo * size, hi * size

    def overlaps(self) -> None:
        decls = self.binder.args
        for i, out in enumerate(decls):
            if not out.is_output:
                continue
            for j, other in enumerate(decls):
                if j == i or (other.is_output and j < i):
                    continue
                self.overlap(out, other)

    def overlap(self, out: ArgDecl, other: ArgDecl) -> None:
        (lo_o, hi_o), (lo_a, hi_a) = self._extent(out), self._extent(other)
        o, a = Var(f"@{out.name}"), Var(f"@{other.name}")
        lo_o, hi_o, lo_a, hi_a = o + lo_o, o + hi_o, a + lo_a, a + hi_a
        disjoint = Or(
            Or(EQ(self._numel(out), Const(0)), EQ(self._numel(other), Const(0))),
            Or(LE(hi_o, lo_a), LE(hi_a, lo_o)),
        )
        values = [self.expr(e) for e in (lo_o, hi_o, lo_a, hi_a)]
        self.check(
            disjoint,
            f"{self.f}: output {out.name} overlaps {other.name} in memory ([{{0:#x}}, {{1:#x}}) and "
            f"[{{2:#x}}, {{3:#x}})), but {self.f} assumes its arguments do not alias",
            values,
        )


def _row_major(shape: Sequence[Expr]) -> list[Expr]:
    strides: list[Expr] = []
    acc: Expr = Const(1)
    for d in reversed(shape):
        strides.append(acc)
        acc = acc * d
    return strides[::-1]


# ---------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------


def declare_strided(func: loop.FuncOp, names: Sequence[str], *, strict: bool = True) -> set[str]:
    """Give the named buffer arguments symbolic strides `<name>_stride<k>`, bound at call time.

    Arguments already strided keep their strides. Returns the names found;
    `strict` makes a missing one an error.
    """
    block = func.body.block
    by_name = {a.name_hint: a for a in block.args}
    found: set[str] = set()
    for name in names:
        arg = by_name.get(name)
        if arg is None or not isinstance(t := arg.type, loop.BufferType):
            if strict:
                raise PassFailedException(
                    f"make-packed-api: @{func.sym_name.data} has no buffer argument '{name}'"
                )
            continue
        found.add(name)
        if t.get_strides() is not None:
            continue
        strides = [f"{name}_stride{k}" for k in range(t.rank)]
        new = block.insert_arg(loop.BufferType(t.get_shape(), t.element_type, strides), arg.index)
        new.name_hint = name
        arg.replace_all_uses_with(new)
        block.erase_arg(arg)
    func.function_type = FunctionType.from_lists(list(block.arg_types), [])
    return found


def reorder_arguments(func: loop.FuncOp, order: Sequence[int]) -> None:
    """Permute the arguments: new argument k is old argument `order[k]` (attributes follow)."""
    if list(order) == list(range(len(func.args))):
        return
    block = func.body.block
    old = list(block.args)
    attrs = func.arg_attrs.data if func.arg_attrs is not None else None
    for i in order:
        new = block.insert_arg(old[i].type, len(block.args))
        new.name_hint = old[i].name_hint
        old[i].replace_all_uses_with(new)
    for arg in old:
        block.erase_arg(arg)
    func.function_type = FunctionType.from_lists(list(block.arg_types), [])
    if attrs is not None:
        func.arg_attrs = ArrayAttr([attrs[i] for i in order])


def _unique_symbol(module: ModuleOp, base: str) -> str:
    taken = {op.sym_name.data for op in module.ops if isinstance(op, loop.FuncOp)}
    name, k = base, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def _mentioned_variables(func: loop.FuncOp) -> list[str]:
    names: list[str] = []
    for t in func.function_type.inputs.data:
        if isinstance(t, loop.BufferType):
            names.extend(shape_var_names((*t.get_shape(), *(t.get_strides() or ()))))
    for op in func.walk():
        if isinstance(op, loop.VarOp):
            names.append(op.var_name.data)
        elif isinstance(op, loop.AllocOp):
            names.extend(shape_var_names(op.buffer_type.get_shape()))
    return list(dict.fromkeys(names))


def make_packed_api(module: ModuleOp, func: loop.FuncOp) -> loop.FuncOp:
    """Rename `func` to `<name>_compute` and insert the packed `<name>` before it."""
    name = func.sym_name.data
    try:
        binder = ArgBinder(name, arg_decls(func))
    except ValueError as err:
        raise PassFailedException(f"make-packed-api: {err}") from None
    if unbound := [v for v in _mentioned_variables(func) if v not in binder.origin]:
        raise PassFailedException(
            f"make-packed-api: symbolic variable '{unbound[0]}' of @{name} appears in no argument "
            "shape or stride by itself, so no call can bind it"
        )
    compute = _unique_symbol(module, name + COMPUTE_SUFFIX)
    func.sym_name = StringAttr(compute)
    ptr = llvm.LLVMPointerType()
    wrapper = loop.FuncOp(name, [ptr, i32, ptr])
    wrapper.arg_attrs = ArrayAttr(
        [
            DictionaryAttr({}),
            DictionaryAttr({}),
            DictionaryAttr({packed.ERROR_VALUES_ATTR: UnitAttr()}),
        ]
    )
    for arg, hint in zip(wrapper.args, ("args", "num_args", "error_values"), strict=True):
        arg.name_hint = hint
    PackedBuilder(binder, wrapper, compute).build()
    Rewriter.insert_op(wrapper, InsertPoint.before(func))
    return wrapper


def is_packable(func: loop.FuncOp, callees: set[str]) -> bool:
    """A function over buffers that no `packed.call` targets (so the pass is idempotent)."""
    return func.sym_name.data not in callees and all(
        isinstance(t, loop.BufferType) for t in func.function_type.inputs.data
    )


@dataclass(frozen=True)
class MakePackedAPIPass(ModulePass):
    """Give every buffer function the DLTensor ABI with checked, bound arguments."""

    name = "make-packed-api"

    strided: tuple[str, ...] = ()
    """Buffer arguments to declare strided (symbolic strides `<arg>_stride<k>`), e.g. `strided=A,B`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        callees = {c.callee.root_reference.data for c in op.walk() if isinstance(c, packed.CallOp)}
        found: set[str] = set()
        for func in [f for f in op.ops if isinstance(f, loop.FuncOp) and is_packable(f, callees)]:
            found |= declare_strided(func, self.strided, strict=False)
            make_packed_api(op, func)
        if missing := [n for n in self.strided if n not in found]:
            raise PassFailedException(
                f"make-packed-api: no function has a buffer argument '{missing[0]}'"
            )
