"""make-packed-api: a uniform DLTensor calling convention with checked arguments.

Mirrors TVM's `MakePackedAPI` (src/tir/transforms/make_packed_api.cc).
What binds and what is checked is the `ArgBinder`'s plan
(`compiler.analysis.arg_binder`), the assert messages are
`compiler.analysis.arg_messages`; this pass emits them. Every
`loop.func @f` over buffers becomes two functions:

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
    declare buffer arguments strided, with stride variables `A_stride<k>`
    (`compiler.analysis.arg_signature.declare_strided`); `order=B,A` puts
    the arguments of the function with exactly these names in this order
    first (`build` passes them in the order of its list: `reorder_arguments`).

Where do a symbolic function's shape and stride variables come from (seed
003)? From the `packed.dltensor_get` that binds each of them, visible by name
right after this pass: `%h = packed.dltensor_get %x_tensor, shape[2] : index`,
and from the `packed.call` that passes `"h" = %h` to the compute function.

Algorithm (the `ArgBinder` plan, steps 3-4, then its emission):

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
     to the element size. A scalar argument (`{loop.scalar = "n"}`, a 0-d
     int64 buffer: a `te.var` that `build` takes as an int) binds or checks
     its variable from its element, `packed.dltensor_get %n_tensor, data[0]`
     (byte_offset must be 0).
  6. An output must not overlap any other argument in memory (`@f_compute`
     assumes noalias): the byte ranges [lo, hi) spanned by the two
     arguments are disjoint, or one of them is empty. The spans go into a
     stack table (`loop.alloc local "arg_spans"`, the outputs' rows first)
     and two loops check each output's row against every later row: code
     linear in the arguments, where a check per pair was quadratic.
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

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis import arg_messages
from compiler.analysis.arg_binder import (
    ArgBinder,
    ArgDecl,
    ArgPlan,
    Bind,
    Check,
    FieldRef,
    Step,
    arg_decls,
    row_major_strides,
    symbolic_variables,
)
from compiler.analysis.arg_signature import declare_strided, order_arguments
from compiler.analysis.walk import walk_ops
from compiler.arith.builders import binary, cmpi, index_cast, int_constant
from compiler.arith.expr import (
    EQ,
    LE,
    NE,
    And,
    BoolConst,
    Cond,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Or,
    as_binary,
    emax,
    emin,
)
from compiler.arith.ir import emit_cond, emit_expr
from compiler.arith.simplify import Analyzer
from compiler.diagnostics import PassError
from compiler.dialects import loop, packed
from compiler.dialects.shape import SizeRange, declared_shape_bounds, dim_expr, is_symbol_name
from compiler.names import fresh_name
from compiler.runtime.dlpack import KDL_CPU

COMPUTE_SUFFIX = "_compute"
_I64 = IntegerType(64)

# ---------------------------------------------------------------------------
# Emission of the packed function, following the ArgBinder's plan
# ---------------------------------------------------------------------------


class PackedBuilder:
    """Appends the body of the packed function, following an `ArgBinder` plan."""

    def __init__(self, binder: ArgBinder, packed: loop.FuncOp, compute: str, ranges: Mapping[str, SizeRange]):
        self.binder = binder
        self.ranges = ranges  # the declared ranges of variables (`shape_bounds`)
        self.f = binder.func
        self.compute = compute
        self.args, self.num_args, _ = packed.args
        self.block = packed.body.block
        self.env: dict[str, SSAValue] = {}  # variables, fields ("A.shape[0]") and data ("@A")
        self.cache: dict[IndexExpr | Cond, SSAValue] = {}
        self.tensor: dict[str, SSAValue] = {}
        self.has_strides: dict[str, SSAValue] = {}
        self.analyzer = Analyzer()  # one memo for every check (most share their terms)

    # -- small emitters -----------------------------------------------------

    def add(self, op: Operation, name: str | None = None) -> SSAValue:
        self.block.add_op(op)
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]

    def expr(self, e: IndexExpr) -> SSAValue:
        return emit_expr(self.analyzer.simplify(e), self.block.add_op, self.env.__getitem__, self.cache)

    def cond(self, c: Cond) -> SSAValue:
        return emit_cond(self.analyzer.simplify_cond(c), self.block.add_op, self.env.__getitem__, self.cache)

    def check(
        self, c: Cond, message: str, values: Sequence[SSAValue] = (), error: str | None = None
    ) -> None:
        c = self.analyzer.simplify_cond(c)
        if c == BoolConst(True):
            return
        self.block.add_op(loop.AssertOp(self.cond(c), message, values, error=error))

    def check_i32(
        self, value: SSAValue, expected: int, message: str, error: str | None = None
    ) -> None:
        const = self.add(int_constant(expected, i32))
        ok = self.add(cmpi(value, const, "eq"))
        self.block.add_op(loop.AssertOp(ok, message, [value], error=error))

    def field(
        self, tensor: SSAValue, name: str, axis: int | None = None, hint: str | None = None
    ) -> SSAValue:
        return self.add(packed.DLTensorGetOp(tensor, name, axis), hint)

    @contextmanager
    def guarded(self, cond: SSAValue) -> Iterator[None]:
        """Emit into `loop.if %cond { ... }`."""
        if_op = loop.IfOp(cond)
        self.block.add_op(if_op)
        with self.inside(if_op.then_region.block):
            yield

    @contextmanager
    def looped(self, start: SSAValue, extent: SSAValue) -> Iterator[SSAValue]:
        """Emit into `loop.for %i = %start extent %extent { ... }`; yields `%i`."""
        for_op = loop.ForOp(start, extent)
        self.block.add_op(for_op)
        with self.inside(for_op.body.block):
            yield for_op.body.block.args[0]

    @contextmanager
    def inside(self, block: Block) -> Iterator[None]:
        """Emit into a nested block: it sees the values made outside (they dominate it),
        and what it makes stays inside."""
        outer, cache = self.block, self.cache
        self.block, self.cache = block, dict(cache)
        try:
            yield
        finally:
            self.block, self.cache = outer, cache

    # -- the function ---------------------------------------------------------

    def build(self) -> None:
        decls = self.binder.args
        self.check_i32(
            self.num_args,
            len(decls),
            arg_messages.wrong_num_args(self.f, [d.name for d in decls]),
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
            NE(IndexVar(f"{a}.tensor"), IndexConst(0)),
            arg_messages.null_tensor(f, a),
            (),
            "TypeError",
        )
        ndim = self.field(t, "ndim", hint=f"{a}_ndim")
        self.check_i32(ndim, len(decl.shape), arg_messages.wrong_ndim(f, a, len(decl.shape)))
        dtype = self.field(t, "dtype", hint=f"{a}_dtype")
        self.check_i32(
            dtype,
            decl.dtype.packed,
            arg_messages.wrong_dtype(f, a, decl.dtype.name),
            "TypeError",
        )
        device = self.field(t, "device_type", hint=f"{a}_device_type")
        self.check_i32(device, KDL_CPU, arg_messages.wrong_device(f, a))
        if decl.shape:
            self.env[f"{a}.shape"] = self.field(t, "shape", hint=f"{a}_shape")
            self.check(
                NE(IndexVar(f"{a}.shape"), IndexConst(0)),
                arg_messages.null_shape(f, a, len(decl.shape)),
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
        if plan.value:
            self.scalar_value(decl, plan.value)

    def scalar_value(self, decl: ArgDecl, steps: Sequence[Step]) -> None:
        """A scalar argument (0-d int64, `{loop.scalar = "n"}`): its element, read at
        `data` (the offset must be 0), binds or checks the variable."""
        a = decl.name
        self.check(
            EQ(IndexVar(f"{a}.byte_offset"), IndexConst(0)),
            arg_messages.scalar_byte_offset(self.f, a),
            [self.env[f"{a}.byte_offset"]],
        )
        hint = next((s.var for s in steps if isinstance(s, Bind)), f"{a}_value")
        self.env[str(FieldRef(a, "value", 0))] = self.field(self.tensor[a], "data", 0, hint)
        for step in steps:
            self.emit_step(step)

    def emit_step(self, step: Step) -> None:
        if isinstance(step, Check):
            self.emit_check(step)
            return
        value = self.env[str(step.field)]
        self.env[step.var] = value
        declared = self.ranges.get(step.var)
        if declared is not None:  # the function's proofs assume it: checked at every call
            lower, upper = declared
            v = IndexVar(step.var)
            in_range = LE(IndexConst(lower), v) if upper is None else And(LE(IndexConst(lower), v), LE(v, IndexConst(upper)))
            self.check(in_range, arg_messages.size_out_of_range(self.f, str(step.field), step.var, lower, upper), [value])
        elif step.field.kind == "shape":
            self.check(
                LE(IndexConst(0), IndexVar(step.var)),
                arg_messages.negative_size(self.f, str(step.field), step.var),
                [value],
            )

    def emit_check(self, check: Check) -> None:
        ref = str(check.field)
        if check.field.kind == "strides" and self.binder.arg(check.field.arg).strides is None:
            self.compact_stride_check(check)
            return
        actual = IndexVar(ref)
        ok: Cond = EQ(actual, check.expected)
        if check.unit_exempt:
            ok = Or(
                EQ(IndexVar(str(FieldRef(check.field.arg, "shape", check.field.axis))), IndexConst(1)), ok
            )
        values = [self.env[ref]]
        if not isinstance(check.declared, int):
            for divisor in _divisors(check.expected):  # `n // x` with x == 0 would trap
                message = arg_messages.zero_divisor(self.f, ref, str(check.expected), str(divisor))
                self.check(NE(divisor, IndexConst(0)), message)
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
        ok: Cond = EQ(IndexVar(str(check.field)), check.expected)
        if check.unit_exempt:
            ok = Or(EQ(IndexVar(str(FieldRef(a, "shape", k))), IndexConst(1)), ok)
        self.check(ok, self.binder.check_message(check), [value, self.expr(check.expected)])
        del self.env[str(check.field)]

    def strides_present(self, a: str) -> SSAValue:
        """`A.strides != NULL`, loaded at its first use (at the function's top level)."""
        if a not in self.has_strides:
            self.env[f"{a}.strides"] = self.field(self.tensor[a], "strides", hint=f"{a}_strides")
            self.has_strides[a] = self.cond(NE(IndexVar(f"{a}.strides"), IndexConst(0)))
        return self.has_strides[a]

    def strides_to_check(self, a: str) -> SSAValue:
        """`A.strides != NULL && A is not empty`: the strides of an empty tensor mean nothing."""
        decl = self.binder.arg(a)
        self.strides_present(a)
        return self.cond(And(NE(IndexVar(f"{a}.strides"), IndexConst(0)), NE(self._numel(decl), IndexConst(0))))

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
        shape = [IndexVar(str(FieldRef(a, "shape", k))) for k in range(len(decl.shape))]
        compact = [self.expr(s) for s in row_major_strides(shape)]
        for k in range(len(decl.shape)):
            stride_step = next((s for s in plan.strides if s.field.axis == k), None)
            hint = stride_step.var if isinstance(stride_step, Bind) else f"{a}_stride{k}"
            self.env[str(FieldRef(a, "strides", k))] = self.stride_or_compact(
                t, a, k, compact[k], hint
            )
            if stride_step is not None:
                self.emit_step(stride_step)
            if decl.is_output:
                self.check(
                    Or(LE(shape[k], IndexConst(1)), NE(IndexVar(str(FieldRef(a, "strides", k))), IndexConst(0))),
                    arg_messages.zero_output_stride(self.f, a, k),
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
            Or(EQ(numel, IndexConst(0)), NE(IndexVar(f"{a}.data"), IndexConst(0))),
            arg_messages.null_data(f, a),
            [self.expr(numel)],
        )
        size = decl.dtype.itemsize
        if size > 1:
            rem = self.add(arith.RemUIOp(address, self.expr(IndexConst(size))))
            ok = self.add(arith.CmpiOp(rem, self.expr(IndexConst(0)), "eq"))
            message = arg_messages.misaligned(f, a, size, decl.dtype.name)
            self.block.add_op(loop.AssertOp(ok, message, [address]))

    def _numel(self, decl: ArgDecl) -> IndexExpr:
        numel: IndexExpr = IndexConst(1)
        for k in range(len(decl.shape)):
            numel = numel * self._dim(decl, k)
        return numel

    def _dim(self, decl: ArgDecl, k: int) -> IndexExpr:
        """Shape k, as declared where that is already checked (simpler IR), else as read."""
        d = decl.shape[k]
        if isinstance(d, int) or (is_symbol_name(d) and d in self.env):
            return dim_expr(d)
        return IndexVar(str(FieldRef(decl.name, "shape", k)))

    def _extent(self, decl: ArgDecl) -> tuple[IndexExpr, IndexExpr]:
        """Byte offsets [lo, hi) of the elements from the data address (non-empty tensors)."""
        a, size = decl.name, decl.dtype.itemsize
        if decl.strides is None:
            return IndexConst(0), self._numel(decl) * size
        lo: IndexExpr = IndexConst(0)
        hi: IndexExpr = IndexConst(1)
        for k in range(len(decl.shape)):
            span = (self._dim(decl, k) - 1) * IndexVar(str(FieldRef(a, "strides", k)))
            lo, hi = lo + emin(span, 0), hi + emax(span, 0)
        return lo * size, hi * size

    def overlaps(self) -> None:
        """Step 6 as two loops over a stack table of the arguments' byte spans, the outputs'
        rows first: code linear in the arguments. (Straight-line checks of every pair were
        quadratic: a 22-layer LLaMA's 45 outputs by its 200 arguments, most of the time
        LLVM spent on a 30-minute build.)"""
        decls = self.binder.args
        rows = [k for k, d in enumerate(decls) if d.is_output]
        outputs = len(rows)
        rows += [k for k, d in enumerate(decls) if not d.is_output]
        if outputs == 0 or len(rows) < 2:
            return
        c0 = self.expr(IndexConst(0))
        spans = loop.BufferType([len(rows), 3], _I64)
        table = self.add(loop.AllocOp("arg_spans", [c0, c0], spans, local=True), "spans")
        for row, k in enumerate(rows):
            row_values = (*self._span(decls[k]), self.expr(IndexConst(k)))
            for column, value in enumerate(row_values):
                at = [self.expr(IndexConst(row)), self.expr(IndexConst(column))]
                self.block.add_op(loop.StoreOp(self.add(index_cast(value, _I64)), table, at))
        with self.looped(c0, self.expr(IndexConst(outputs))) as i:
            out = self._row(table, i)
            after = self.add(binary(arith.AddiOp, i, self.expr(IndexConst(1))))
            rest = self.add(binary(arith.SubiOp, self.expr(IndexConst(len(rows) - 1)), i))
            with self.looped(after, rest) as j:
                other = self._row(table, j)
                values = [out[2], other[2], out[0], out[1], other[0], other[1]]
                self.block.add_op(loop.AssertOp(self._disjoint(out, other), arg_messages.overlap(self.f), values))

    def _span(self, decl: ArgDecl) -> tuple[SSAValue, SSAValue]:
        """The addresses [lo, hi) of `decl`'s elements; an empty tensor's span is empty (hi = lo)."""
        lo, hi = self._extent(decl)
        address = IndexVar(f"@{decl.name}")
        start, end = self.expr(address + lo), self.expr(address + hi)
        empty = self.analyzer.simplify_cond(EQ(self._numel(decl), IndexConst(0)))
        if empty == BoolConst(False):
            return start, end
        return start, self.add(arith.SelectOp(self.cond(empty), start, end))

    def _disjoint(self, a: list[SSAValue], b: list[SSAValue]) -> SSAValue:
        """Either span is empty, or one ends before the other starts (rows of the table)."""
        ends = [self.add(cmpi(hi, lo, "sle")) for hi, lo in ((a[1], a[0]), (b[1], b[0]), (a[1], b[0]), (b[1], a[0]))]
        either = [self.add(binary(arith.OrIOp, ends[k], ends[k + 1])) for k in (0, 2)]
        return self.add(binary(arith.OrIOp, *either))

    def _row(self, table: SSAValue, row: SSAValue) -> list[SSAValue]:
        """lo, hi and the argument's position, from the span table."""
        return [self.add(loop.LoadOp(table, [row, self.expr(IndexConst(c))])) for c in range(3)]


# ---------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------


def _divisors(e: IndexExpr) -> list[IndexExpr]:
    """The divisors of the `//` and `%` in `e` that are not constants, innermost first."""
    if isinstance(e, IndexConst | IndexVar):
        return []
    node = as_binary(e)
    found = _divisors(node.a) + _divisors(node.b)
    if isinstance(node, FloorDiv | FloorMod) and not isinstance(node.b, IndexConst):
        found.append(node.b)
    return list(dict.fromkeys(found))


def _unique_symbol(module: ModuleOp, base: str) -> str:
    taken = {op.sym_name.data for op in module.ops if isinstance(op, loop.FuncOp)}
    return fresh_name(base, taken, "_")


def make_packed_api(module: ModuleOp, func: loop.FuncOp) -> loop.FuncOp:
    """Rename `func` to `<name>_compute` and insert the packed `<name>` before it."""
    name = func.sym_name.data
    try:
        binder = ArgBinder(name, arg_decls(func))
    except ValueError as err:
        raise PassError(f"make-packed-api: {err}", func) from None
    if unbound := [v for v in symbolic_variables(func) if v not in binder.origin]:
        raise PassError(f"make-packed-api: {arg_messages.unbindable_in_body(name, unbound[0])}", func)
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
    PackedBuilder(binder, wrapper, compute, declared_shape_bounds(func)).build()
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

    order: tuple[str, ...] = ()
    """The arguments in call order, by name (all of a function's), e.g. `order=B,A`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        callees = {c.callee.root_reference.data for c in walk_ops(op) if isinstance(c, packed.CallOp)}
        found: set[str] = set()
        ordered = not self.order
        for func in [f for f in op.ops if isinstance(f, loop.FuncOp) and is_packable(f, callees)]:
            ordered |= bool(self.order) and order_arguments(func, self.order)
            found |= declare_strided(func, self.strided, strict=False)
            make_packed_api(op, func)
        if missing := [n for n in self.strided if n not in found]:
            raise PassError(
                f"make-packed-api: no function has a buffer argument '{missing[0]}'"
            )
        if not ordered:
            raise PassError(f"make-packed-api: no function has exactly the arguments {', '.join(self.order)}")
