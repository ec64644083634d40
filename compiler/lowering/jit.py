"""llvm-dialect module -> llvmlite -> O3 with both vectorizers -> MCJIT engine.

This is the only file that imports llvmlite. Every
compiled module gets its own target machine and MCJIT engine, kept alive by
the returned `JitModule`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import llvmlite.binding as llvm
import xdsl.backend.llvm.convert_op as _convert_op
from llvmlite import ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm as L
from xdsl.dialects.builtin import ModuleOp


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


_convert_op._convert_getelementptr = _convert_gep  # type: ignore[attr-defined]  # looked up at call time


@cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def target_machine(opt: int = 3) -> llvm.TargetMachine:
    """A new host target machine (an MCJIT engine takes ownership of the one it gets)."""
    _initialize()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=opt,
        jit=True,
    )


@dataclass
class JitModule:
    """A compiled module: keep it alive while calling its functions."""

    engine: llvm.ExecutionEngine
    llvm_ir: str
    optimized_ir: str
    _keep: list[Any] = field(default_factory=list)

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if addr == 0:
            raise KeyError(f"no function @{name} in the compiled module")
        return addr

    def assembly(self) -> str:
        mod = llvm.parse_assembly(self.optimized_ir)
        return target_machine().emit_assembly(mod)


def to_llvm_ir(module: ModuleOp) -> str:
    """The textual LLVM IR of an llvm-dialect module, before optimization."""
    tm = target_machine()
    return str(convert_module(module, fallback_target_triple=tm.triple))


def jit_compile(module: ModuleOp, opt: int = 3) -> JitModule:
    tm = target_machine()
    text = to_llvm_ir(module)
    mod = llvm.parse_assembly(text)
    mod.verify()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    pto = llvm.PipelineTuningOptions(speed_level=opt)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pass_builder = llvm.create_pass_builder(tm, pto)
    pass_builder.getModulePassManager().run(mod, pass_builder)
    optimized = str(mod)
    _load_libc()
    if "GOMP_parallel" in text:
        from compiler.lowering.parallel import openmp_library

        llvm.load_library_permanently(openmp_library())
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    return JitModule(engine, text, optimized)


@cache
def _load_libc() -> None:
    name = ctypes.util.find_library("c")
    if name is not None:
        llvm.load_library_permanently(name)
