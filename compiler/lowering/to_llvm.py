"""lower-to-llvm: `loop` + `arith` + `math` + `scf` to xDSL's `llvm` dialect.

Input: `loop.func`s whose buffers are 1-D (after `storage-flatten`). Output:
one `llvm.func` per `loop.func`. A function over buffers (a compute
function, called by its packed wrapper) has the signature

    i32 @name(ptr noalias %buf0, ..., ptr noalias %bufN, i64 %var0, ..., i64 %varM)

one pointer per buffer argument, then one i64 per symbolic variable
(`symbolic_variables()`: argument shapes and strides first, then the other
`loop.var`s); other arguments keep their types (`make-packed-api`'s
`(ptr %args, i32 %num_args, ptr %error_values)`). The result is 0 on
success or the code of the failed check: codes follow `assert_table()`,
program order, where a `packed.call` to a function with checks reserves the
callee's codes and forwards its failure. A failing `loop.assert` with values
stores them as i64 into the argument marked `{packed.error_values}` (if not NULL).

The packed-API ops read DLTensors by byte offset (`compiler/runtime/dlpack.py`):
`packed.arg %args[k]` loads `args[k]`, `packed.dltensor_get` loads one
field (`shape[k]`: the shape pointer, then element k); addresses are `index`
in the IR and become pointers with `inttoptr` at calls and loads.

Steps (bfloat16.py first makes bf16 arithmetic f32 and bf16 values i16: step 0;
parallel.py then outlines the parallel loops into functions of their own):
  1. loop ops -> scf + llvm memory ops: `loop.for` -> `scf.for`,
     `loop.if` -> `scf.if` (control_flow.py), `loop.load/store` ->
     `llvm.getelementptr inbounds` + `llvm.load/store`, `loop.alloc` ->
     `aligned_alloc` (freed before every return), `loop.var` -> the function
     argument, `loop.func` -> `func.func` (memory.py),
     `packed.arg`/`packed.dltensor_get` -> GEP + load, `packed.call` ->
     `llvm.call` (+ a forwarding check when the callee has checks) (packed_abi.py),
     `loop.call_extern` -> `llvm.call` of an external declaration (extern_call.py);
  2. scf -> cf with xDSL's convert-scf-to-cf patterns; the back edge of a loop
     marked `{unroll_full}` (unroll-loops) keeps the mark, which becomes its
     `llvm.loop.unroll.full` metadata (jit.py's branch converter);
  3. `loop.assert` splits its block (after step 2 the CFG is explicit;
     control_flow.py):

         ^pre:  ...                     ^pre:  ...
                loop.assert %ok   ==>          llvm.cond_br %ok, ^rest, ^fail_k
                ^rest...               ^fail_k: free(...); llvm.return (k + 1)

     In a function with an `{packed.error_values}` argument every assert
     branches instead to one shared block, `^report(code, v0, ..., v3)`,
     which stores the values (unless the pointer is NULL), frees, returns.

  4. arith/math/cf/func -> llvm, then `index` -> `i64` (scalar.py).

Index arithmetic is 64-bit and marked `nsw`: index values are loop
counters and addresses, which never wrap. Floats keep IEEE semantics (no
fast-math): float reductions vectorize only where the schedule makes the
reduction axis an outer loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from compiler.analysis.arg_binder import symbolic_variables
from compiler.analysis.walk import walk_ops
from compiler.dialects import loop, packed
from compiler.lowering.aliasing import annotate_alias_scopes, complete_alias_scopes
from compiler.lowering.bfloat16 import legalize_bfloat16
from compiler.lowering.cleanup import drop_dead_arith
from compiler.lowering.control_flow import (
    add_returns,
    lower_asserts,
    lower_for,
    lower_if,
    lower_structured_control_flow,
)
from compiler.lowering.dedup import merge_identical_outlined
from compiler.lowering.extern_call import declare_externs, lower_call_extern
from compiler.lowering.math_expand import expand_math
from compiler.lowering.memory import (
    FunctionState,
    check_allocations,
    convert_signature,
    declare_runtime,
    lower_alloc,
    lower_load,
    lower_store,
    lower_var,
    lower_view,
)
from compiler.lowering.packed_abi import (
    ModuleABI,
    assert_table,
    lower_packed_op,
    needs_error_values,
)
from compiler.lowering.parallel import outline_parallel_loops, outline_serial_nests
from compiler.lowering.scalar import LowerScalarOps, lower_scalar_function
from compiler.lowering.vectorize import vectorize_loops
from compiler.runtime.host import host_vector_bits

__all__ = ["LowerToLLVMPass", "assert_table", "lower_module", "lowered_functions"]

FunctionListener = Callable[[ModuleOp, llvm.FuncOp], None]
PlanListener = Callable[[int], None]
_listener: ContextVar[tuple[FunctionListener, PlanListener | None] | None] = ContextVar(
    "lowered_functions", default=None
)


@contextmanager
def lowered_functions(listener: FunctionListener, planned: PlanListener | None = None) -> Iterator[None]:
    """Within: `lower_module` calls `planned(ops)` once, before it lowers the first function,
    with the number of ops it is about to lower (the JIT chooses where LLVM runs by it), then
    `listener(module, function)` with each function it has lowered completely (the JIT
    optimizes it while the next one lowers: jit.py)."""
    token = _listener.set((listener, planned))
    try:
        yield
    finally:
        _listener.reset(token)


@dataclass(frozen=True)
class LowerToLLVMPass(ModulePass):
    """Lower flat `loop` functions to the `llvm` dialect (see the module docstring)."""

    name = "lower-to-llvm"

    vector_bits: int = 0
    """The width of the vectors `vectorized` loops use (0: the host CPU's, `host_vector_bits`)."""

    fast_math: bool = False
    """Let LLVM reassociate and contract float math (`reassoc contract` on fadd/fsub/fmul:
    reductions vectorize, a*b+c becomes an FMA)."""

    fp_contract: bool = True
    """Let LLVM fuse a*b+c into one FMA, rounded once (`contract` on fadd/fsub/fmul), as
    TVM and clang do; off, every float operation rounds as written (IEEE-exact)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        bits = self.vector_bits or host_vector_bits()
        lower_module(ctx, op, vector_bits=bits, fast_math=self.fast_math, fp_contract=self.fp_contract)


def lower_module(
    ctx: Context, module: ModuleOp, *, vector_bits: int = 256, fast_math: bool = False, fp_contract: bool = True
) -> None:
    legalize_bfloat16(module)  # bf16 arithmetic in f32, bf16 values as i16
    parents = [op for op in module.ops if isinstance(op, loop.FuncOp)]
    for f in parents:
        annotate_alias_scopes(f)  # before outlining: the groups are the parent's
        drop_dead_arith(f)  # before outlining too: a dead op may be all that captures a value
        expand_math(f)  # f32 exp and tanh as arithmetic: vectors instead of libm calls
    outline_parallel_loops(module)
    outline_serial_nests(parents, module)
    merge_identical_outlined(module, [op for op in module.ops if isinstance(op, loop.FuncOp) and op not in parents])
    funcs = [op for op in module.ops if isinstance(op, loop.FuncOp)]
    for f in funcs:
        complete_alias_scopes(f)  # after outlining and merging: each body names only its own groups
    abi = ModuleABI(
        {f.sym_name.data: symbolic_variables(f) for f in funcs},
        {f.sym_name.data: assert_table(module, f.sym_name.data) for f in funcs},
        frozenset(f.sym_name.data for f in funcs if needs_error_values(f)),
    )
    # every signature first: a function's LLVM module declares the others (jit.py)
    states = [
        convert_signature(f, abi.variables[f.sym_name.data], report=f.sym_name.data in abi.reporters) for f in funcs
    ]
    scalar = LowerScalarOps(fast_math, fp_contract)
    listener, planned = _listener.get() or (None, None)
    order, ops = _lowering_order(states, len(parents))
    if planned is not None:
        planned(ops)
    for state in order:
        _lower_loop_ops(state, abi)
        vectorize_loops(state.func, vector_bits)
        add_returns(state)
        lower_structured_control_flow(state.func)
        lower_asserts(state, abi)
        lowered = lower_scalar_function(state.func, scalar)
        declare_runtime(module, lowered)
        if listener is not None:
            listener(module, lowered)
    declare_externs(module)


LOOP_WEIGHT = 10
"""How much more LLVM work an op in a loop (O3 unrolls and vectorizes loop bodies) or an
assert (a branch, a block, and the report block's phi entries: a packed function's
argument checks) costs than another op: the estimate that orders the functions
(`_lowering_order`). ResNet-50's packed function (1,400 checks) took LLVM 1.2 s, its
compute function (loops) 0.15 s, an outlined conv body 0.05-0.1 s."""


def _llvm_work(ops: list[Operation]) -> int:
    """An estimate of LLVM's work on ops and what they hold (`LOOP_WEIGHT`)."""
    work = 0
    stack = [(op, 1) for op in ops]
    while stack:
        op, weight = stack.pop()
        work += LOOP_WEIGHT if isinstance(op, loop.AssertOp) else weight
        inner = LOOP_WEIGHT if isinstance(op, loop.ForOp) else weight
        for region in op.regions:
            for block in region.blocks:
                stack.extend((child, inner) for child in block.ops)
    return work


def _lowering_order(states: list[FunctionState], parents: int) -> tuple[list[FunctionState], int]:
    """The order the functions lower in, which is the order LLVM starts on them (jit.py),
    and the number of their ops: the one with the most LLVM work first (`_llvm_work`: a
    network's packed function checks a hundred arguments, and took LLVM a second, started
    last; in a single operator, an outlined loop nest), then the outlined functions (added
    after the parents), then the parents."""
    order = states[parents:] + states[:parents]
    if not order:
        return order, 0
    work = [_llvm_work(list(s.func.body.ops)) for s in order]
    ops = sum(len(walk_ops(s.func.body)) for s in order)
    largest = order.pop(max(range(len(order)), key=work.__getitem__))
    return [largest, *order], ops


def _lower_loop_ops(state: FunctionState, abi: ModuleABI) -> None:
    """Step 1 on one function: every loop and packed op, then the allocations and views."""
    body = state.func.body
    # children before parents, so that nested loops are rewritten before their parents move them
    for op in reversed(walk_ops(body)):
        if isinstance(op, loop.LoadOp):
            lower_load(op)
        elif isinstance(op, loop.StoreOp):
            lower_store(op)
        elif isinstance(op, loop.VarOp):
            lower_var(op, state)
        elif isinstance(op, loop.ForOp):
            lower_for(op)
        elif isinstance(op, loop.IfOp):
            lower_if(op)
        elif isinstance(op, packed.PackedArgOp | packed.DLTensorGetOp | packed.CallOp):
            lower_packed_op(op, abi, state.error_values)
        elif isinstance(op, loop.CallExternOp):
            lower_call_extern(op)
    for op in walk_ops(body):
        if isinstance(op, loop.AllocOp):
            lower_alloc(op, state)
    check_allocations(state)
    for op in walk_ops(body):
        if isinstance(op, loop.ViewOp):
            lower_view(op, state)
