"""The passes, one a file (`<name>.py` for `compiler-opt -p <name>`), and the base of
those that run on each function of one kind on its own."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from compiler.dialects import loop, te

F = TypeVar("F", bound=Operation)


class FunctionPass(ModulePass, ABC, Generic[F]):
    """A pass that rewrites (or checks) each function of its kind, in the module's order;
    `prepare` runs once first (option checks, what every function shares)."""

    @classmethod
    @abstractmethod
    def function_kind(cls) -> type[F]: ...

    def prepare(self, module: ModuleOp) -> None:
        """Runs once before the functions (nothing by default)."""

    @abstractmethod
    def run_on_function(self, module: ModuleOp, func: F) -> None: ...

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.prepare(op)
        kind = self.function_kind()
        for func in [f for f in op.ops if isinstance(f, kind)]:
            self.run_on_function(op, func)


class TeFunctionPass(FunctionPass[te.FuncOp]):
    """A pass over each `te.func`."""

    @classmethod
    def function_kind(cls) -> type[te.FuncOp]:
        return te.FuncOp


class LoopFunctionPass(FunctionPass[loop.FuncOp]):
    """A pass over each `loop.func`."""

    @classmethod
    def function_kind(cls) -> type[loop.FuncOp]:
        return loop.FuncOp
