"""lower-to-llvm, step 1b (vectors): a `vectorized` loop becomes explicit vector code.

After the loop ops are lowered (step 1), a loop marked `vectorized` is an
`scf.for` whose body holds index arithmetic, `llvm.getelementptr`,
`llvm.load`/`llvm.store` and scalar `arith`/`math` ops. `vectorize_loops`
rewrites each innermost one of unit step into

    scf.for %j0 = %lo to %lo + (n / W) * W step W {   W lanes at once
      <vector body>
    }
    scf.for %j = %lo + (n / W) * W to %hi { <the scalar body> }   the tail

(no tail when the static extent divides). W is the target's vector width in
elements of the widest type the loop loads or stores (the host's: 8 floats
with AVX2, 16 with AVX-512; a static extent below W takes the largest power of
two that fits). In the vector body every value is one of

  * uniform: the same in every lane (defined outside, a constant, or computed
    from uniform values only): kept scalar, broadcast where a vector needs it;
  * affine (index values): lane l is `lane0 + stride * l`;
  * lanes: an index value that is not affine (a floordiv of the loop
    variable): one scalar per lane;
  * vector: a `vector<W x T>` value.

A load whose index has stride 1 becomes a vector load, stride 0 a scalar
load (uniform), any other index W scalar loads gathered into a vector; a store
of stride 1 becomes a vector store. Float and integer arithmetic, casts and
`math` ops become the same ops on vectors (lowered to LLVM's vector
instructions and intrinsics by scalar.py). Loads and stores keep their alias
groups (aliasing.py).

What is not vectorized (the loop stays scalar, for LLVM's loop vectorizer):
a store of stride 0 (a reduction into one element: vectorizing it would
reassociate the sum) or of another stride, comparisons and selects of vectors
(xDSL's llvm dialect has no vector `icmp`/`fcmp`/`select`), conditionals whose
condition differs between lanes, nested loops in the body, and any op not
listed above. An `if` whose condition is the same in every lane (a causal
product's row guard, `jo <= i // 64`) stays an `if` around its vectorized ops.
Like TVM's `vectorize`, the rewrite trusts the schedule that the iterations are independent: a TE
stage writes its output only at the loop's own index (the checks above reject
the one dependence TE produces, a reduction into an element).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import TypeGuard

from xdsl.dialects import arith, llvm, math, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.lowering.aliasing import ALIAS_SCOPES, NOALIAS_SCOPES
from compiler.lowering.memory import POINTER_ALIGN, WORKSPACE_ACQUIRE
from compiler.lowering.scalar import constant_int

LOOP_KIND = "loop.kind"

_ELEMENTWISE: tuple[type[Operation], ...] = (
    arith.AddfOp,
    arith.SubfOp,
    arith.MulfOp,
    arith.DivfOp,
    arith.NegfOp,
    arith.MaximumfOp,
    arith.MinimumfOp,
    arith.MaxnumfOp,
    arith.MinnumfOp,
    arith.SIToFPOp,
    arith.FPToSIOp,
    arith.BitcastOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
    arith.ShRSIOp,
    arith.ShRUIOp,
    arith.ShLIOp,
    arith.MinUIOp,
    arith.ExtUIOp,
    arith.TruncIOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    math.ExpOp,
    math.Exp2Op,
    math.LogOp,
    math.Log2Op,
    math.Log10Op,
    math.SqrtOp,
    math.AbsFOp,
    math.FloorOp,
    math.CeilOp,
    math.SinOp,
    math.CosOp,
    math.TanhOp,
    math.PowFOp,
    math.FmaOp,
    math.RoundOp,
    math.RoundEvenOp,
    math.TruncOp,
    math.TanOp,
    math.AsinOp,
    math.AcosOp,
    math.AtanOp,
    math.Atan2Op,
    math.SinhOp,
    math.CoshOp,
)
"""Ops applied lane by lane: on vector operands, the same op on vectors."""


class _Bail(Exception):
    """The loop can't be vectorized: it stays scalar."""


@dataclass
class Affine:
    """An integer value whose lane l is `lane0 + stride * l`."""

    lane0: SSAValue
    stride: int


@dataclass
class Lanes:
    """One scalar per lane."""

    values: list[SSAValue]


@dataclass
class Vector:
    value: SSAValue


@dataclass
class Address:
    """A pointer per lane: `lane0 + stride * l` elements, or explicit `lanes`."""

    lane0: SSAValue | None
    stride: int
    elem: Attribute
    lanes: list[SSAValue] | None = None


Rep = SSAValue | Affine | Lanes | Vector | Address  # an SSAValue: uniform


def element_bits(t: Attribute) -> int | None:
    if isinstance(t, Float16Type | Float32Type | Float64Type):
        return t.bitwidth
    if isinstance(t, IntegerType):
        return t.bitwidth
    return None


def _static_extent(for_op: scf.ForOp) -> int | None:
    """The extent of a loop made by control_flow.lower_for (`ub = lb + extent`, or `ub =
    extent` from 0), when constant."""
    ub = for_op.ub.owner
    if isinstance(ub, arith.AddiOp) and ub.lhs == for_op.lb:
        return constant_int(ub.rhs)
    if constant_int(for_op.lb) == 0:
        return constant_int(for_op.ub)
    return None


def _unit_step(for_op: scf.ForOp) -> bool:
    owner = for_op.step.owner
    return isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr) and owner.value.value.data == 1


def _width(for_op: scf.ForOp, vector_bits: int) -> int:
    """Lanes: the vector width in elements of the widest type the loop loads or stores
    per lane. A load at the same address in every lane is one scalar, whatever its type:
    a grouped matmul's int64 expert id, read in the column loop, made its float columns
    vectors of 8 on AVX-512 (a tile of 8 rows x 6 vectors: twice the registers)."""
    ops = _body_ops(for_op.body.block)
    varying = _varying_values(for_op.body.block.args[0], ops)
    bits = [
        element_bits(t)
        for op in ops
        for t in (
            [op.dereferenced_value.type] if isinstance(op, llvm.LoadOp) and op.ptr in varying
            else [op.value.type] if isinstance(op, llvm.StoreOp)
            else []
        )
    ]
    if not bits or any(b is None for b in bits):
        raise _Bail
    width = vector_bits // max(b for b in bits if b is not None)
    extent = _static_extent(for_op)
    if extent is not None:
        while width > max(extent, 1):  # an extent below 1 (no iteration) ends at width 1: no vectors
            width //= 2
    if width < 2:
        raise _Bail
    return width


def _varying_values(iv: SSAValue, ops: list[Operation]) -> set[SSAValue]:
    """The values of `ops` (a loop body, in order) that may differ between iterations:
    the counter `iv`, and what the body computes from it or loads (a value defined
    outside the loop is the same in every lane)."""
    varying: set[SSAValue] = {iv}
    for op in ops:
        if isinstance(op, llvm.LoadOp) or any(v in varying for v in op.operands):
            varying.update(op.results)
    return varying


class _LoopVectorizer:
    """Builds the vector body of one loop (raises _Bail where it can't)."""

    def __init__(self, for_op: scf.ForOp, width: int, iv0: SSAValue, block: Block):
        self.width = width
        self.block = block
        self.reps: dict[SSAValue, Rep] = {for_op.body.block.args[0]: Affine(iv0, 1)}

    # -- emitting ---------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else SSAValue.get(op)

    def rep(self, value: SSAValue) -> Rep:
        return self.reps.get(value, value)

    def index_const(self, value: int, t: Attribute) -> SSAValue:
        assert isinstance(t, IntegerType | IndexType)  # the type of an index value
        return self.emit(arith.ConstantOp(IntegerAttr(value, t)))

    def lane(self, value: SSAValue, k: int) -> SSAValue:
        """The scalar value of lane k."""
        r = self.rep(value)
        if isinstance(r, SSAValue):
            return r
        if isinstance(r, Affine):
            if r.stride * k == 0:
                return r.lane0
            return self.emit(arith.AddiOp(r.lane0, self.index_const(r.stride * k, r.lane0.type)))
        if isinstance(r, Lanes):
            return r.values[k]
        raise _Bail  # a vector lane: xDSL's converter has no extractelement

    def vector(self, value: SSAValue) -> SSAValue:
        """`value` as a vector: broadcast a uniform value, gather lanes."""
        r = self.rep(value)
        if isinstance(r, Vector):
            return r.value
        if isinstance(r, Address):
            raise _Bail
        t = value.type
        if isinstance(t, IndexType) or element_bits(t) is None:
            raise _Bail
        vt = VectorType(t, [self.width])
        vec = self.emit(llvm.UndefOp(vt))
        if isinstance(r, SSAValue):  # broadcast: insert lane 0, shuffle it everywhere
            vec = self.emit(llvm.InsertElementOp(vec, r, self.emit(llvm.ConstantOp(IntegerAttr(0, i32), i32))))
            mask = DenseArrayBase.from_list(i32, [0] * self.width)
            return self.emit(llvm.ShuffleVectorOp(vec, vec, mask, vt))
        for k in range(self.width):
            position = self.emit(llvm.ConstantOp(IntegerAttr(k, i32), i32))
            vec = self.emit(llvm.InsertElementOp(vec, self.lane(value, k), position))
        return vec

    def clone_uniform(self, op: Operation) -> None:
        mapping = {v: r for v in op.operands if isinstance(r := self.rep(v), SSAValue)}
        new = op.clone_without_regions(value_mapper=mapping)  # `visit` lets no op with regions here
        self.block.add_op(new)
        for old, result in zip(op.results, new.results, strict=True):
            self.reps[old] = result

    def per_lane(self, op: Operation) -> None:
        """An integer op of non-affine lanes: one clone per lane."""
        lanes: list[SSAValue] = []
        for k in range(self.width):
            mapping = {v: self.lane(v, k) for v in op.operands}
            new = op.clone_without_regions(value_mapper=mapping)
            self.block.add_op(new)
            lanes.append(new.results[0])
        self.reps[op.results[0]] = Lanes(lanes)

    # -- visiting ---------------------------------------------------------

    def uniform(self, value: SSAValue) -> bool:
        return isinstance(self.rep(value), SSAValue)

    def visit(self, op: Operation) -> None:
        if isinstance(op, scf.YieldOp):
            return
        if isinstance(op, scf.IfOp) and _uniform_guard(op) and self.uniform(op.cond):
            self.guarded(op)
            return
        if op.regions:
            raise _Bail
        if isinstance(op, llvm.StoreOp):
            self.store(op)
        elif isinstance(op, llvm.LoadOp):
            self.load(op)
        elif all(self.uniform(v) for v in op.operands):
            if not isinstance(op, _PURE):
                raise _Bail
            self.clone_uniform(op)
        elif isinstance(op, llvm.GEPOp):
            self.gep(op)
        elif _integer_op(op) and not any(isinstance(self.rep(v), Vector) for v in op.operands):
            self.integer(op)
        elif isinstance(op, _ELEMENTWISE):
            self.elementwise(op)
        else:
            raise _Bail

    def guarded(self, op: scf.IfOp) -> None:
        """An `if` without results or else, its condition the same in every lane (a
        causal product's row guard): the same `if` around the vectorized ops it holds."""
        then = Block()
        cond = self.rep(op.cond)
        assert isinstance(cond, SSAValue)  # uniform
        self.block.add_op(scf.IfOp(cond, [], Region(then)))
        outer, self.block = self.block, then
        try:
            for inner in op.true_region.block.ops:
                self.visit(inner)
        finally:
            self.block = outer
        then.add_op(scf.YieldOp())

    def integer(self, op: Operation) -> None:
        """Index arithmetic: affine where it stays affine, else one value per lane."""
        reps = [self.rep(v) for v in op.operands]
        if any(isinstance(r, Vector | Address) for r in reps):
            raise _Bail
        if not _integer_op(op):
            raise _Bail
        strides = [0 if isinstance(r, SSAValue) else r.stride if isinstance(r, Affine) else None for r in reps]
        stride: int | None = None
        known = [s for s in strides if s is not None]
        if len(known) == len(strides):  # every operand uniform or affine
            if isinstance(op, arith.AddiOp):
                stride = known[0] + known[1]
            elif isinstance(op, arith.SubiOp):
                stride = known[0] - known[1]
            elif isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
                stride = known[0]
            elif isinstance(op, arith.MuliOp):
                factors = [constant_int(v) for v in op.operands]
                if known[1] == 0 and factors[1] is not None:
                    stride = known[0] * factors[1]
                elif known[0] == 0 and factors[0] is not None:
                    stride = known[1] * factors[0]
        if stride is None:
            self.per_lane(op)
            return
        mapping = {v: self.lane(v, 0) for v in op.operands}
        new = op.clone_without_regions(value_mapper=mapping)
        self.block.add_op(new)
        self.reps[op.results[0]] = Affine(new.results[0], stride)

    def gep(self, op: llvm.GEPOp) -> None:
        if not self.uniform(op.ptr) or len(op.ssa_indices) != 1:
            raise _Bail
        (index,) = op.ssa_indices
        r = self.rep(index)
        if isinstance(r, Affine):
            new = op.clone_without_regions(value_mapper={index: r.lane0})
            self.block.add_op(new)
            self.reps[op.result] = Address(new.result, r.stride, op.elem_type)
        elif isinstance(r, Lanes):
            lanes: list[SSAValue] = []
            for k in range(self.width):
                new = op.clone_without_regions(value_mapper={index: r.values[k]})
                self.block.add_op(new)
                lanes.append(new.result)
            self.reps[op.result] = Address(None, 0, op.elem_type, lanes)
        else:
            raise _Bail

    def lane_pointer(self, address: Address, k: int) -> SSAValue:
        if address.lanes is not None:
            return address.lanes[k]
        assert address.lane0 is not None
        if address.stride * k == 0:
            return address.lane0
        offset = self.emit(llvm.ConstantOp(IntegerAttr(address.stride * k, 64), IntegerType(64)))
        return self.emit(llvm.GEPOp.from_mixed_indices(address.lane0, [offset], address.elem, inbounds=True))

    def load(self, op: llvm.LoadOp) -> None:
        r = self.rep(op.ptr)
        t = op.dereferenced_value.type
        if isinstance(r, SSAValue):
            self.clone_uniform(op)
            return
        if not isinstance(r, Address):
            raise _Bail
        if r.lanes is None and r.stride == 0:
            assert r.lane0 is not None  # no explicit lanes: a base pointer
            new = llvm.LoadOp(r.lane0, t)
            _copy_scopes(op, new)
            self.reps[op.dereferenced_value] = self.emit(new)
            return
        if r.lanes is None and r.stride == 1:
            assert r.lane0 is not None
            new = llvm.LoadOp(r.lane0, VectorType(t, [self.width]), alignment=known_alignment(r.lane0, t))
            _copy_scopes(op, new)
            self.reps[op.dereferenced_value] = Vector(self.emit(new))
            return
        lanes = []  # gather
        for k in range(self.width):
            new = llvm.LoadOp(self.lane_pointer(r, k), t)
            _copy_scopes(op, new)
            lanes.append(self.emit(new))
        self.reps[op.dereferenced_value] = Lanes(lanes)

    def store(self, op: llvm.StoreOp) -> None:
        r = self.rep(op.ptr)
        if not isinstance(r, Address) or r.lanes is not None or r.stride != 1:
            raise _Bail  # a reduction into one element, or a scattered store
        assert r.lane0 is not None
        new = llvm.StoreOp(self.vector(op.value), r.lane0, alignment=known_alignment(r.lane0, op.value.type))
        _copy_scopes(op, new)
        self.block.add_op(new)

    def elementwise(self, op: Operation) -> None:
        operands = [self.vector(v) for v in op.operands]
        result_type = op.results[0].type
        if element_bits(result_type) is None:
            raise _Bail
        new = type(op).create(
            operands=operands,
            result_types=[VectorType(result_type, [self.width])],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        self.reps[op.results[0]] = Vector(self.emit(new))


_INTEGER_OPS = (
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.FloorDivSIOp,
    arith.DivSIOp,
    arith.RemSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.CmpiOp,
    arith.SelectOp,
)


_PURE: tuple[type[Operation], ...] = (
    arith.ConstantOp,
    llvm.ConstantOp,
    llvm.GEPOp,
    arith.CmpfOp,
    arith.SelectOp,
    *_ELEMENTWISE,
    *_INTEGER_OPS,
)
"""Ops without side effects, cloned as they are when all their operands are uniform."""


def _uniform_guard(op: scf.IfOp) -> bool:
    """An `if` that only guards (no results, an else branch of nothing but its yield),
    whose branch holds no region of its own."""
    if op.results or any(inner.regions for inner in op.true_region.block.ops):
        return False
    return not op.false_region.blocks or all(isinstance(o, scf.YieldOp) for o in op.false_region.block.ops)


def _body_ops(block: Block) -> list[Operation]:
    """The ops of a loop body, those in its guarding `if`s included."""
    found: list[Operation] = []
    for op in block.ops:
        found.append(op)
        if isinstance(op, scf.IfOp):
            found += list(op.true_region.block.ops)
    return found


def _integer_op(op: Operation) -> bool:
    return isinstance(op, _INTEGER_OPS) and all(
        isinstance(v.type, IndexType | IntegerType) for v in (*op.operands, *op.results)
    )


MAX_ALIGN = 64  # what the compiler's allocations guarantee (memory.ALLOC_ALIGN)


def known_multiple(value: SSAValue, depth: int = 0) -> int:
    """A number that divides every value `value` can take (1 when nothing is known;
    MAX_ALIGN * 64 stands for "any multiple", a zero constant)."""
    owner = value.owner
    if depth > 16:
        return 1
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return abs(owner.value.value.data) or MAX_ALIGN * 64
    if isinstance(owner, arith.AddiOp | arith.SubiOp | llvm.AddOp | llvm.SubOp):
        return gcd(known_multiple(owner.operands[0], depth + 1), known_multiple(owner.operands[1], depth + 1))
    if isinstance(owner, arith.MuliOp | llvm.MulOp):
        return known_multiple(owner.operands[0], depth + 1) * known_multiple(owner.operands[1], depth + 1)
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp):
        return known_multiple(owner.operands[0], depth + 1)
    if isinstance(owner, Block) and isinstance(loop_op := owner.parent_op(), scf.ForOp) and value in owner.args:
        return gcd(known_multiple(loop_op.lb, depth + 1), known_multiple(loop_op.step, depth + 1))
    return 1


def _base_alignment(ptr: SSAValue) -> int:
    """The alignment the compiler gave a buffer pointer: 64 for its allocations and for
    arena views at multiples of 64 bytes (also when an outlined body reloads them); 1
    for anything else (arguments: DLPack data may have any alignment)."""
    owner = ptr.owner
    if (
        isinstance(owner, llvm.CallOp)
        and owner.callee is not None  # not an indirect call
        and owner.callee.root_reference.data == WORKSPACE_ACQUIRE
    ):
        return MAX_ALIGN
    if isinstance(owner, llvm.AllocaOp) and owner.alignment is not None:
        return owner.alignment.value.data
    if isinstance(owner, llvm.LoadOp) and isinstance(align := owner.attributes.get(POINTER_ALIGN), IntegerAttr):
        return align.value.data  # a buffer an outlined body reloads (parallel.py)
    if isinstance(owner, llvm.GEPOp) and len(owner.ssa_indices) == 1 and element_bits(owner.elem_type) == 8:
        return gcd(_base_alignment(owner.ptr), known_multiple(owner.ssa_indices[0]))
    return 1


def known_alignment(ptr: SSAValue, t: Attribute) -> int:
    """The alignment of a vector access at `ptr` (a GEP of elements of type `t` from a
    buffer): what the buffer's alignment and the index's known factors prove, at least
    the element's (LLVM otherwise assumes the vector's own size)."""
    bits = element_bits(t)
    assert bits is not None
    elem = max(1, bits // 8)
    owner = ptr.owner
    if isinstance(owner, llvm.GEPOp) and len(owner.ssa_indices) == 1:
        proven = gcd(_base_alignment(owner.ptr), elem * known_multiple(owner.ssa_indices[0]), MAX_ALIGN)
        return max(elem, proven & -proven)  # the largest power of two dividing it
    return elem


def _copy_scopes(old: Operation, new: Operation) -> None:
    for name in (ALIAS_SCOPES, NOALIAS_SCOPES):
        if name in old.attributes:
            new.attributes[name] = old.attributes[name]


def _discard(block: Block) -> None:
    """Drop a vector body that was given up (its ops use values of the function)."""
    ops = list(block.ops)
    for op in ops:
        block.detach_op(op)
    for op in ops:
        op.drop_all_references()


def _align_vector_accesses(body: Block) -> None:
    """Vector loads and stores get the alignment their address is known to have (once the
    loop exists: its induction variable's factors come from its bounds and step)."""
    for op in _body_ops(body):
        accessed = (
            op.dereferenced_value.type if isinstance(op, llvm.LoadOp) else op.value.type if isinstance(op, llvm.StoreOp) else None
        )
        if isinstance(op, llvm.LoadOp | llvm.StoreOp) and isinstance(accessed, VectorType):
            op.alignment = IntegerAttr(known_alignment(op.ptr, accessed.element_type), 64)


def vectorize_loop(for_op: scf.ForOp, vector_bits: int) -> bool:
    """Rewrite one loop into a vector loop and a scalar tail; False if it stays scalar."""
    if not _unit_step(for_op) or for_op.iter_args:
        return False
    if any(op.regions and not (isinstance(op, scf.IfOp) and _uniform_guard(op)) for op in for_op.body.block.ops):
        return False
    try:
        width = _width(for_op, vector_bits)
    except _Bail:
        return False
    body = Block(arg_types=[IndexType()])
    vectorizer = _LoopVectorizer(for_op, width, body.args[0], body)
    try:
        for op in for_op.body.block.ops:
            vectorizer.visit(op)
    except _Bail:
        _discard(body)
        return False
    body.add_op(scf.YieldOp())
    body.args[0].name_hint = (for_op.body.block.args[0].name_hint or "i") + "_vec"
    # the vector loop covers (extent / W) * W iterations; the scalar loop, the rest
    lb, ub = for_op.lb, for_op.ub
    step = arith.ConstantOp(IntegerAttr(width, IndexType()))
    head: list[Operation] = [step]
    static = _static_extent(for_op)
    covered: Operation
    if static is not None:
        covered = arith.ConstantOp(IntegerAttr(static // width * width, IndexType()))
        head.append(covered)
    else:
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        head.append(zero)
        span = ub
        if constant_int(lb) != 0:
            head.append(subtract := arith.SubiOp(ub, lb))
            span = subtract.result
        extent = arith.MaxSIOp(span, zero)
        count = arith.DivUIOp(extent, step)
        covered = arith.MuliOp(count, step)
        head += [extent, count, covered]
    split = covered.results[0]  # from 0; else lb + covered
    if constant_int(lb) != 0:
        head.append(add := arith.AddiOp(lb, covered))
        split = add.result
    vector_loop = scf.ForOp(lb, split, step, [], Region(body))
    vector_loop.attributes[LOOP_KIND] = for_op.attributes[LOOP_KIND]
    Rewriter.insert_op([*head, vector_loop], InsertPoint.before(for_op))
    _align_vector_accesses(body)
    if static is not None and static % width == 0:
        Rewriter.erase_op(for_op)
    else:
        for_op.operands[0] = split  # the tail starts where the vectors end
    return True


def is_vectorized(op: Operation) -> TypeGuard[scf.ForOp]:
    kind = op.attributes.get(LOOP_KIND)
    return isinstance(op, scf.ForOp) and kind is not None and getattr(kind, "data", None) == "vectorized"


def vectorize_loops(root: Operation, vector_bits: int) -> int:
    """Vectorize every innermost `vectorized` loop under `root`; returns how many."""
    loops = [op for op in walk_ops(root) if is_vectorized(op)]
    return sum(vectorize_loop(op, vector_bits) for op in reversed(loops))
