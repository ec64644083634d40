"""llvm-dialect module -> llvmlite -> O3 with both vectorizers -> object code -> MCJIT engine.

Each function is optimized in an LLVM module of its own (`function_text`: the
function and declarations of what it uses) as soon as the lowering reports it
(`to_llvm.lowered_functions`), while Python lowers the next function. Where that
LLVM work runs depends on the program's size, which the lowering tells first:

* a single operator (fewer than `POOL_MIN_OPS` flat loop ops): on a thread of this
  process (`FunctionPipeline`; llvmlite's calls release the GIL and hold only its
  own lock, so LLVM's middle end runs on a second core behind the lowering), then
  the optimized modules are linked into one and compiled to one object here;
* a network: in worker processes (`llvm_pool`, one per core, started by the first
  such build), each function's module optimized and compiled to an object there;
  the objects are packed into one cache entry (`engine.pack_objects`) and loaded
  into one MCJIT engine, where their calls to each other resolve.

What per-function modules give up is inlining across functions, which never
mattered here: the packed function calls its compute function once, and outlined
parallel bodies are called through pointers by libgomp.

This file and `engine.py` (target machines, optimizing and compiling one module,
loading objects: llvmlite's bindings only, what a cached build and a worker need)
are the only ones that import llvmlite (with `export.py`, which links shared
libraries). The object goes through the on-disk cache (`object_cache.py`: a second
process that compiles the same program loads the object and skips LLVM) and is
loaded into an MCJIT engine of its own (`load_object`), kept alive by the returned
`JitModule`.

Design notes (issue 27: compile time; measured on a 2-core AVX-512 machine shared
with other jobs, so seconds are rough and ratios are from interleaved runs).

Where a build's time went (in-process, cold, medians): the seed 000 chain 0.29 s =
passes 0.08 + lower-to-llvm's Python 0.09 (xDSL llvm-dialect ops, and 0.02 to print
them through llvmlite) + waiting for O3 0.03 (0.10 of O3 ran beside the lowering)
+ code generation 0.045 + loading 0.002; a first build in a new process adds 0.3 s
of imports (xDSL's dialects 0.15, islpy, llvmlite). ResNet-50 (`from_torch`, 11.7 s):
the Python lowering 4.0 s (of it `function_text` 1.0), O3 3.1 s beside it, then 0.6 s
of waiting and 1.1 s of code generation; its packed function (108 arguments' checks,
a 562 KB module) took O3 0.66 s and code generation 0.55 s, and was lowered last.

Chosen: (1) worker processes for networks (llvmlite's lock is per process): code
generation moves beside the lowering, and the tail after it runs on every core;
`subprocess` workers (`python -c`), not multiprocessing (its spawn and forkserver
re-import the user's main script, and a fork after torch's or OpenMP's threads
started is unsafe), started by the first large build, not at import (a cached build
must start nothing), at niceness 5 (the lowering is the longest path; against
niceness 0, interleaved, no clear difference). (2) The function with the most LLVM
work (an estimate: `to_llvm._llvm_work`) lowers first, so ResNet-50's packed function's
second of LLVM starts at the beginning instead of the end (by plain op counts, a single
operator's packed function went first and its loop nests' LLVM started later: 5%
slower). (3) lower_asserts split the packed function's blocks in time quadratic in its
checks (xDSL's split_before searches the block's index); split from the last assert
back, with a split of its own. (4) Scope metadata made once per name per module, and
aliasing's byte ranges read once per view. ResNet-50 cold, new process, load about 2:
7.5 s with the workers, 8.7 s without (11.7 s before); single operators unchanged
(interleaved: seed 000 in-process 0.29-0.31 s either way). The llvm-dialect IR of 29
builds (9 bench workloads x 3 schedules, two small networks) is byte-identical, and
their optimized IR has the same functions (their order, and the numbering of
metadata and attribute groups, differ).

Rejected or left: the pool for a single operator (the workers' start-up cost a
first build more than code generation beside the lowering gained); workers started
at `import compiler` (every process, cache hits included, would pay them); emitting
LLVM IR text from the flat loop IR instead of xDSL llvm-dialect ops (the lowering's
Python, 2-4 s of ResNet-50 and a third of a seed 000 build, is the largest cost
left, but it means a second lowering beside memory, control_flow, packed_abi,
scalar and vectorize, with the llvm dialect still printable for compiler-opt);
code generation at O0 for the packed function (0.55 -> 0.02 s on ResNet-50, its
object 44 -> 122 KB; the run-time cost per call is unmeasured) and O1 for it
(O3 0.66 -> 0.19 s): `llvm_ir` would no longer be the code that runs; what costs there
is the report block's five phis of 1,400 entries each (register coalescing 0.31 s,
jump threading 0.26 s, correlated value propagation 0.13 s of its 1.2 s), a shape
for lower_asserts to change. Compiling each function to an object on the in-process
thread as well (code generation beside the lowering): no gain measured (seed 000
0.318 s linked, 0.323 s per function), since that thread is the longer path already.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, cast

import llvmlite.binding as llvm
import xdsl.backend.llvm.convert_op as _convert_op
from llvmlite import ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import func
from xdsl.dialects import llvm as L
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.dialects import loop
from compiler.errors import IRError
from compiler.lowering.engine import (  # re-exported: the JIT's API lives in one place
    JitModule,
    LLVMModule,
    Toolchain,
    load_cached,
    load_object,
    object_key,
    object_of,
    optimize,
    pack_objects,
    target_description,
    target_machine,
    unpack_objects,
    uses_openmp,
)
from compiler.lowering.llvm_pool import LLVMPool, WorkerDied, WorkerUnavailable, shared_pool
from compiler.lowering.memory import WORKSPACE_ACQUIRE, WORKSPACE_RELEASE
from compiler.lowering.object_cache import ObjectCache, cache_enabled
from compiler.lowering.scalar import llvm_function_type
from compiler.lowering.to_llvm import lowered_functions

__all__ = [
    "JitModule",
    "LLVMModule",
    "Toolchain",
    "cache_once",
    "compile_functions",
    "compile_object",
    "function_text",
    "jit_compile",
    "load_cached",
    "load_object",
    "object_key",
    "optimize",
    "optimize_module",
    "target_description",
    "target_machine",
    "to_llvm_ir",
    "toolchain",
    "unpack_objects",
    "uses_openmp",
]


def _convert_gep(op: L.GEPOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    """xDSL 0.74 gives struct/multi-index GEPs a typed-pointer result; use opaque `ptr`."""
    ssa = iter(op.ssa_indices)
    idx = [
        val_map[next(ssa)] if i == L.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), i)
        for i in op.rawConstantIndices.iter_values()
    ]
    gep = builder.gep(
        val_map[op.ptr], idx, inbounds=op.inbounds is not None, source_etype=convert_type(op.elem_type)
    )
    gep.type = ir.PointerType()
    val_map[op.result] = gep


_convert_op._convert_getelementptr = _convert_gep  # looked up at call time


def _scope_list(module: ir.Module, names: ArrayAttr[StringAttr]) -> Any:
    """`!{!scope...}` for an ArrayAttr of scope names "function/group": a scope is
    `!{!"function/group", !domain}`, the domain `!{!"function"}` (uniqued by their
    strings, so every access of a group shares one node)."""
    # every access of a group carries the same list (aliasing.py): made once per module,
    # not once per access (a network's lists name a hundred groups)
    cache: dict[ArrayAttr[StringAttr], Any] = module.__dict__.setdefault("_compiler_scope_lists", {})
    if names in cache:
        return cache[names]
    # and each scope once per module: a network's lists share their names, and asking
    # llvmlite for a node it has costs as much as making it (its key is the operands)
    made: dict[str, Any] = module.__dict__.setdefault("_compiler_scopes", {})
    scopes = []
    for name in names.data:
        text = name.data
        if text not in made:
            domain = module.add_metadata([ir.MetaDataString(module, text.split("/")[0])])
            made[text] = module.add_metadata([ir.MetaDataString(module, text), domain])
        scopes.append(made[text])
    cache[names] = module.add_metadata(scopes)
    return cache[names]


def _add_alias_metadata(op: L.LoadOp | L.StoreOp, instr: Any, module: ir.Module) -> None:
    """aliasing.py's groups as scoped-noalias metadata."""
    for attr, kind in (("alias_scopes", "alias.scope"), ("noalias_scopes", "noalias")):
        names = op.attributes.get(attr)  # isinstance, not xDSL's isa: that builds a constraint per call
        if isinstance(names, ArrayAttr) and names.data and all(isinstance(n, StringAttr) for n in names.data):
            instr.set_metadata(kind, _scope_list(module, cast(ArrayAttr[StringAttr], names)))


def _convert_load(op: L.LoadOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    instr = builder.load(val_map[op.ptr], typ=convert_type(op.dereferenced_value.type))
    if op.alignment:
        instr.align = op.alignment.value.data
    _add_alias_metadata(op, instr, builder.module)
    val_map[op.dereferenced_value] = instr


def _convert_store(op: L.StoreOp, builder: ir.IRBuilder, val_map: dict[Any, Any]) -> None:
    instr = builder.store(val_map[op.value], val_map[op.ptr])
    if op.alignment:
        instr.align = op.alignment.value.data
    _add_alias_metadata(op, instr, builder.module)


class _LoopID(ir.values.MDValue):
    """A loop's `distinct !{!self, !{!"llvm.loop.unroll.full"}}`: LLVM finds loop
    properties on a distinct node that names itself first, which Module.add_metadata
    (uniqued nodes only) can not make."""

    def __init__(self, module: ir.Module, properties: list[Any]):
        super().__init__(module, [], name=str(len(module.metadata)))
        self.operands = (self, *properties)

    def descr(self, buf: list[str]) -> None:
        refs = ", ".join(op.get_reference() for op in self.operands)
        buf += (f"distinct !{{ {refs} }}", "\n")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def _convert_br(op: L.BrOp, builder: ir.IRBuilder, val_map: dict[Any, Any], block_map: dict[Any, Any]) -> None:
    """A branch; a loop's back edge marked `unroll_full` carries `llvm.loop.unroll.full`."""
    _convert_plain_br(op, builder, val_map, block_map)
    if loop.UNROLL_FULL in op.attributes:
        module = builder.module
        full = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.full")])
        builder.block.terminator.set_metadata("llvm.loop", _LoopID(module, [full]))


_convert_plain_br = _convert_op._convert_br
_convert_op._convert_load = _convert_load
_convert_op._convert_store = _convert_store
_convert_op._convert_br = _convert_br


def to_llvm_ir(module: ModuleOp) -> str:
    """The textual LLVM IR of an llvm-dialect module, before optimization."""
    # the cached triple: a call into llvmlite here would wait for the optimizing thread
    converted = convert_module(module, fallback_target_triple=target_description()["triple"])
    define_workspace(converted)
    return str(converted)


def define_workspace(module: ir.Module) -> None:
    """Define the workspace functions the module declares (`lowering/memory.py`): a slot
    holds a cached block's address, its capacity in the block's first 8 bytes and the
    data 64 bytes in. Acquire takes the block out of the slot with an atomic exchange
    (another thread calling at the same time finds the slot empty and allocates its own)
    and reallocates it when it is too small (NULL when that fails); release puts it back,
    freeing what the slot held meanwhile (nothing for NULL). Written with llvmlite's builder: xDSL's llvm dialect has no atomics."""
    globals_ = module.globals
    acquire, release = globals_.get(WORKSPACE_ACQUIRE), globals_.get(WORKSPACE_RELEASE)
    if not isinstance(acquire, ir.Function) or not isinstance(release, ir.Function):
        return
    i8, i64 = ir.IntType(8), ir.IntType(64)
    ptr = acquire.args[0].type
    aligned_alloc = _declared(module, "aligned_alloc", ir.FunctionType(ptr, [i64, i64]))
    free = _declared(module, "free", ir.FunctionType(ir.VoidType(), [ptr]))
    header = ir.Constant(i64, 64)

    acquire.linkage = "internal"
    slot, size = acquire.args
    b = ir.IRBuilder(acquire.append_basic_block("entry"))
    cached = b.atomic_rmw("xchg", slot, ir.Constant(i64, 0), "acq_rel")
    check, drop, fresh = (acquire.append_basic_block(n) for n in ("check", "drop", "fresh"))
    b.cbranch(b.icmp_unsigned("!=", cached, ir.Constant(i64, 0)), check, fresh)
    b.position_at_end(check)
    block = b.inttoptr(cached, ptr)
    reuse = acquire.append_basic_block("reuse")
    b.cbranch(b.icmp_unsigned(">=", b.load(block, typ=i64), size), reuse, drop)
    b.position_at_end(reuse)
    b.ret(b.gep(block, [header], source_etype=i8))
    b.position_at_end(drop)
    b.call(free, [block])
    b.branch(fresh)
    b.position_at_end(fresh)
    # a size of 2^63 bytes or more (a symbolic size that wrapped) or a failed allocation:
    # NULL, which the caller's allocation check reports (memory.add_allocation_checks)
    null = ir.Constant(ptr, None)
    allocate, failed = acquire.append_basic_block("allocate"), acquire.append_basic_block("failed")
    b.cbranch(b.icmp_signed("<", size, ir.Constant(i64, 0)), failed, allocate)
    b.position_at_end(failed)
    b.ret(null)
    b.position_at_end(allocate)
    new = b.call(aligned_alloc, [header, b.add(size, header)])
    got = acquire.append_basic_block("got")
    b.cbranch(b.icmp_unsigned("==", b.ptrtoint(new, i64), ir.Constant(i64, 0)), failed, got)
    b.position_at_end(got)
    b.store(size, new)
    b.ret(b.gep(new, [header], source_etype=i8))

    release.linkage = "internal"
    slot, data = release.args
    b = ir.IRBuilder(release.append_basic_block("entry"))
    put = release.append_basic_block("put")
    nothing = release.append_basic_block("nothing")  # a failed acquire's NULL
    b.cbranch(b.icmp_unsigned("==", b.ptrtoint(data, i64), ir.Constant(i64, 0)), nothing, put)
    b.position_at_end(nothing)
    b.ret_void()
    b.position_at_end(put)
    block = b.gep(data, [ir.Constant(i64, -header.constant)], source_etype=i8)
    old = b.atomic_rmw("xchg", slot, b.ptrtoint(block, i64), "acq_rel")
    drop, done = release.append_basic_block("drop"), release.append_basic_block("done")
    b.cbranch(b.icmp_unsigned("!=", old, ir.Constant(i64, 0)), drop, done)
    b.position_at_end(drop)
    b.call(free, [b.inttoptr(old, ptr)])
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def _declared(module: ir.Module, name: str, ftype: ir.FunctionType) -> ir.Function:
    found = module.globals.get(name)
    if isinstance(found, ir.Function):
        return found
    return ir.Function(module, ftype, name)


def function_text(module: ModuleOp, function: L.FuncOp) -> str:
    """The LLVM IR of one function of `module`, in a module with declarations of the
    functions it calls or takes the address of and the globals it reads (those of
    `module`, or made from the call for runtime functions declared later). The other
    functions may still be lowering (`FunctionPipeline`)."""
    symbols = {op.sym_name.data: op for op in module.ops if isinstance(op, L.FuncOp | L.GlobalOp | func.FuncOp)}
    used = _symbols_used(function)
    single = ModuleOp([_declaration(symbols.get(name), name, user) for name, user in sorted(used.items())])
    anchor = function.next_op
    function.detach()
    single.body.block.add_op(function)
    try:
        return to_llvm_ir(single)
    finally:
        function.detach()
        where = InsertPoint.before(anchor) if anchor is not None else InsertPoint.at_end(module.body.block)
        Rewriter.insert_op(function, where)


def _symbols_used(function: L.FuncOp) -> dict[str, Operation]:
    """The symbols `function` names, each with the (first) op naming it."""
    used: dict[str, Operation] = {}
    for op in walk_ops(function):
        if isinstance(op, L.CallOp) and op.callee is not None:
            used.setdefault(op.callee.root_reference.data, op)
        elif isinstance(op, L.AddressOfOp):
            used.setdefault(op.global_name.root_reference.data, op)
    return used


def _declaration(found: Operation | None, name: str, user: Operation) -> Operation:
    """A declaration of the symbol `name` (`found` in the module, or not: a runtime
    function `user` calls), or a copy of the global."""
    if isinstance(found, L.GlobalOp):
        return found.clone()
    if isinstance(found, L.FuncOp | func.FuncOp):  # a func.func is not lowered yet: its signature is final
        ftype = found.function_type if isinstance(found, L.FuncOp) else llvm_function_type(found)
        return L.FuncOp(name, ftype, linkage=L.LinkageAttr("external"))
    if not isinstance(user, L.CallOp):
        raise IRError(f"the address of @{name} is taken, but the module does not define it")
    result = user.returned.type if user.returned is not None else None
    return L.FuncOp(name, L.LLVMFunctionType(list(user.args.types), result), linkage=L.LinkageAttr("external"))


SWITCH_INTERVAL = 0.001
"""Seconds between the interpreter's thread switches while a `FunctionPipeline` runs (the
default is 0.005): the thread returns from each of its llvmlite calls into Python, and
waited up to a switch interval for the GIL each time, while the lowering held it (the
seed 000 chain's packed function took 50 ms to optimize instead of 20)."""


_switching = threading.Lock()
_pipelines = 0  # running now, in any thread
_interval_before = 0.005


def _switch_faster() -> None:
    """The first running pipeline lowers the switch interval; pipelines of other threads
    share it."""
    global _pipelines, _interval_before
    with _switching:
        if _pipelines == 0:
            _interval_before = sys.getswitchinterval()
            sys.setswitchinterval(min(_interval_before, SWITCH_INTERVAL))
        _pipelines += 1


def _switch_back() -> None:
    """The last pipeline to stop puts the interval back."""
    global _pipelines
    with _switching:
        _pipelines -= 1
        if _pipelines == 0:
            sys.setswitchinterval(_interval_before)


class FunctionPipeline:
    """Optimizes the LLVM modules of single functions (`submit`) on a thread of its own,
    then links them into one (`finish`)."""

    def __init__(self, tm: llvm.TargetMachine, opt: int):
        self._tm, self._opt = tm, opt
        self._texts: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._optimized: list[llvm.ModuleRef] = []
        self._error: BaseException | None = None
        self._stopped = False
        _switch_faster()
        self._thread = threading.Thread(target=self._run, name="llvm-optimize", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (text := self._texts.get()) is not None:
            if self._error is None:
                try:
                    self._optimized.append(optimize(text, self._tm, self._opt))
                except BaseException as err:  # raised again by `finish`, in the caller's thread
                    self._error = err

    def submit(self, text: str) -> None:
        self._texts.put(text)

    def abandon(self) -> None:
        """Stop the thread (what it optimized is dropped): the lowering failed."""
        if self._stopped:
            return
        self._stopped = True
        self._texts.put(None)
        self._thread.join()
        _switch_back()

    def finish(self) -> llvm.ModuleRef:
        """The optimized modules linked into one (waits for the thread)."""
        self.abandon()
        if self._error is not None:
            raise self._error
        if not self._optimized:
            return optimize("", self._tm, self._opt)
        linked, *others = self._optimized
        for other in others:
            linked.link_in(other)
        return linked


def optimize_module(module: LLVMModule, tm: llvm.TargetMachine, opt: int = 3) -> llvm.ModuleRef:
    """An llvm-dialect module, or the function lowering a program to one, optimized function
    by function in this process (`_Compilation` without workers), then linked into one."""
    compilation = _Compilation(opt, pic=False, tm=tm, workers=False)
    _lower_into(module, compilation)
    return compilation.linked()


POOL_MIN_OPS = 5000
"""The flat loop ops from which a program's LLVM work goes to the worker pool (`llvm_pool`)
instead of a thread of this process: a network (ResNet-50 lowers 12,400 ops, and its
LLVM work took 3 s of a core) gains the cores and the code generation done beside the
lowering; a single operator (a few hundred ops: the seed 000 chain 836, a matmul 379;
0.1-0.2 s of LLVM) would gain a few tens of ms and pay the workers' start-up (about 0.1 s
of a core each, on the cores its first build's passes use)."""


class _Compilation:
    """Where a program's functions go as the lowering reports them: a thread of this process
    (`FunctionPipeline`, then one linked module compiled here), or, for a program of
    `POOL_MIN_OPS` ops or more when `workers` allows, the worker pool (an object a function)."""

    def __init__(self, opt: int, *, pic: bool, tm: llvm.TargetMachine | None = None, workers: bool = True):
        self.opt, self.pic, self.workers = opt, pic, workers
        self.tm = tm
        self.sent: set[str] = set()
        self.pool: LLVMPool | None = None
        self.jobs: list[tuple[str, Future[bytes]]] = []
        self.pipeline: FunctionPipeline | None = None

    def plan(self, ops: int) -> None:
        if self.workers and ops >= POOL_MIN_OPS:
            self.pool = shared_pool()

    def send(self, module: ModuleOp, function: L.FuncOp) -> None:
        self.sent.add(function.sym_name.data)
        text = function_text(module, function)
        if self.pool is not None:
            self.jobs.append((text, self.pool.submit(text, opt=self.opt, pic=self.pic)))
        else:
            self._pipeline().submit(text)

    def _pipeline(self) -> FunctionPipeline:
        if self.pipeline is None:
            self.tm = self.tm or target_machine(self.opt, pic=self.pic)
            self.pipeline = FunctionPipeline(self.tm, self.opt)
        return self.pipeline

    def abandon(self) -> None:
        if self.pipeline is not None:
            self.pipeline.abandon()

    def linked(self) -> llvm.ModuleRef:
        """The functions optimized here, linked into one module (empty: none were)."""
        return self._pipeline().finish()

    def finish(self) -> tuple[bytes, dict[str, str]]:
        """The object code, and the optimized IR when all of it was linked here."""
        objects = []
        for text, job in self.jobs:
            try:
                objects.append(job.result())
            except (WorkerUnavailable, WorkerDied):  # no worker did it: compiled here
                objects.append(object_of(text, opt=self.opt, pic=self.pic))
        if objects and self.pipeline is None:
            return pack_objects(objects), {}
        linked = self.linked()
        ir = {"optimized_ir": str(linked)}  # before code generation changes `linked`
        assert self.tm is not None
        here = self.tm.emit_object(linked)
        return pack_objects([here, *objects]), {} if objects else ir


def _lower_into(module: LLVMModule, compilation: _Compilation) -> None:
    """Lower `module` (or take it lowered), giving `compilation` each function as soon as
    the lowering reports it (all of them after the lowering when it reports none, e.g. a
    module lowered already)."""
    lower = module if not isinstance(module, ModuleOp) else lambda: module
    try:
        with lowered_functions(compilation.send, compilation.plan):
            lowered = lower()
        rest = [op for op in lowered.ops if isinstance(op, L.FuncOp) and op.body.blocks and op.sym_name.data not in compilation.sent]
        if rest and not compilation.sent:  # lowered already: planned by its llvm ops (more
            # per function than flat loop ops, the unit of POOL_MIN_OPS: the pool comes sooner)
            compilation.plan(sum(len(walk_ops(op)) for op in rest))
        for op in rest:
            compilation.send(lowered, op)
    except BaseException:
        compilation.abandon()
        raise


def compile_functions(module: LLVMModule, *, opt: int = 3, pic: bool = False) -> tuple[bytes, dict[str, str]]:
    """The object code of a program (`module`: its llvm-dialect module or the function
    lowering it), each function optimized as soon as the lowering reports it, on a thread
    of this process or by the worker pool (`_Compilation`); and the optimized IR when this
    process linked all of it (`optimized_ir`)."""
    compilation = _Compilation(opt, pic=pic)
    _lower_into(module, compilation)
    return compilation.finish()


def compile_object(
    module: LLVMModule,
    program: str | Callable[[], str],
    *,
    pic: bool = False,
    opt: int = 3,
    cache: bool | None = None,
) -> tuple[bytes, dict[str, str] | None]:
    """The object code of a program: `program` is its text (the cache key's part that names
    it), `module` its llvm-dialect module or the function lowering it.

    Looked up in the on-disk cache first (`object_cache`; `program` is only computed then);
    on a miss the module is lowered (each function optimized as soon as it is: module
    docstring),
    converted to LLVM IR, optimized and compiled, and the object stored. Returns the object
    and, when LLVM ran, the IR after optimization (`optimized_ir`; `JitModule` prints the
    IR before when asked).
    """
    store = ObjectCache() if cache_enabled(cache) else None
    key = ""
    if store is not None:
        key = object_key(program if isinstance(program, str) else program(), pic=pic, opt=opt)
        obj = store.load(key)
        if obj is not None:
            return obj, None
    obj, ir = compile_functions(module, opt=opt, pic=pic)
    if store is not None:
        store.store(key, obj)
    return obj, ir


def jit_compile(
    module: LLVMModule,
    opt: int = 3,
    *,
    cache: bool | None = None,
    program: str | Callable[[], str] | None = None,
) -> JitModule:
    """Compile a program into a loaded `JitModule`.

    `module` is the llvm-dialect module or a function that lowers the program to it;
    `program` names the program in the cache key: the text of an IR that determines the
    llvm-dialect module, or a function computing it when the key is needed (default: the
    llvm-dialect module's own text). `cache` overrides
    `$COMPILER_CACHE` (see `object_cache`).
    """
    if program is None:
        if not isinstance(module, ModuleOp):
            module = module()
        program = str(module)
    if not isinstance(module, ModuleOp):
        module = cache_once(module)
    obj, ir = compile_object(module, program, opt=opt, cache=cache)
    return JitModule(
        module, program, obj, toolchain=toolchain, opt=opt, from_cache=ir is None, cache=cache, **(ir or {})
    )


def toolchain() -> Toolchain:
    """This module, as the `Toolchain` a `JitModule` computes its IR texts with."""
    return sys.modules[__name__]  # a module implementing the protocol


def cache_once(lower: Callable[[], ModuleOp]) -> Callable[[], ModuleOp]:
    """`lower`, called at most once."""
    done: list[ModuleOp] = []

    def once() -> ModuleOp:
        if not done:
            done.append(lower())
        return done[0]

    return once
