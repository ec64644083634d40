"""The JIT: an llvm-dialect module (or the function lowering a program to one) to
object code, loaded into an MCJIT engine (`jit_compile` -> `JitModule`).

Each function is converted to LLVM IR in a module of its own (`function_text`:
the function and declarations of what it uses, `llvm_ir.to_llvm_ir`) as soon as
the lowering reports it (`to_llvm.lowered_functions`), and optimized (O3, both
vectorizers) while Python lowers the next one:

* a single operator (fewer than `POOL_MIN_OPS` flat loop ops): on a thread of this
  process (`FunctionPipeline`), then linked into one module compiled here;
* a network: in worker processes (`llvm_pool`), each function compiled to an
  object there, the objects packed into one cache entry (`engine.pack_objects`).

The object goes through the on-disk cache (`object_cache.py`) and is loaded into
an MCJIT engine of its own (`engine.load_object`), kept alive by the `JitModule`.
With `engine.py` (target machines, loading objects) and `export.py` this is where
llvmlite's bindings are used. Why it is built this way, and what was measured and
rejected: the JIT section of docs/guide/internals.md.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future

import llvmlite.binding as llvm
from xdsl.dialects import func
from xdsl.dialects import llvm as L
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
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
from compiler.lowering.llvm_ir import to_llvm_ir
from compiler.lowering.llvm_pool import LLVMPool, WorkerDied, WorkerUnavailable, shared_pool
from compiler.lowering.object_cache import ObjectCache, cache_enabled
from compiler.lowering.packed_abi import is_packed_entry
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
        self._texts: queue.SimpleQueue[tuple[str, int] | None] = queue.SimpleQueue()
        self._optimized: list[llvm.ModuleRef] = []
        self._error: BaseException | None = None
        self._stopped = False
        _switch_faster()
        self._thread = threading.Thread(target=self._run, name="llvm-optimize", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (job := self._texts.get()) is not None:
            if self._error is None:
                try:
                    self._optimized.append(optimize(job[0], self._tm, job[1]))
                except BaseException as err:  # raised again by `finish`, in the caller's thread
                    self._error = err

    def submit(self, text: str, opt: int | None = None) -> None:
        """Optimize `text` at `opt` (the pipeline's level when None)."""
        self._texts.put((text, self._opt if opt is None else opt))

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


PACKED_ENTRY_OPT = 0
"""The optimization level of a network's packed function (make-packed-api's): straight-
line checks of each DLTensor, thousands of branches to its failure reports, and the
argument-overlap loop. It runs once a call, and O3 gains it nothing measurable
(DistilBERT at 128 tokens: 55.6 ms a call either way) but costs superlinear time in
LLVM's jump threading, CFG simplification and register coalescing (CLIP's packed
function, 400 arguments: 11 s at O3, 0.2 s at O0, more than all its kernels)."""


class _Compilation:
    """Where a program's functions go as the lowering reports them: a thread of this process
    (`FunctionPipeline`, then one linked module compiled here), or, for a program of
    `POOL_MIN_OPS` ops or more when `workers` allows, the worker pool (an object a function)."""

    def __init__(self, opt: int, *, pic: bool, tm: llvm.TargetMachine | None = None, workers: bool = True):
        self.opt, self.pic, self.workers = opt, pic, workers
        self.tm = tm
        self.sent: set[str] = set()
        self.pool: LLVMPool | None = None
        self.jobs: list[tuple[str, int, Future[bytes]]] = []
        self.pipeline: FunctionPipeline | None = None

    def plan(self, ops: int) -> None:
        if self.workers and ops >= POOL_MIN_OPS:
            self.pool = shared_pool()

    def send(self, module: ModuleOp, function: L.FuncOp) -> None:
        self.sent.add(function.sym_name.data)
        text = function_text(module, function)
        opt = min(self.opt, PACKED_ENTRY_OPT) if is_packed_entry(function) else self.opt
        if self.pool is not None:
            self.jobs.append((text, opt, self.pool.submit(text, opt=opt, pic=self.pic)))
        else:  # the IR at the function's level (what `optimized_ir` shows); code generation
            # is the linked module's, at the build's level
            self._pipeline().submit(text, opt)

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
        for text, opt, job in self.jobs:
            try:
                objects.append(job.result())
            except (WorkerUnavailable, WorkerDied):  # no worker did it: compiled here
                objects.append(object_of(text, opt=opt, pic=self.pic))
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
