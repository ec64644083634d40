"""compiler-opt: xdsl-opt with the project's dialects and passes.

Diagnostics, never tracebacks: parse errors and verifier errors are printed
as `file:line:col: error: ...` and the exit status is 1; an unknown pass or
option is reported as `error: ...`. Set COMPILER_TRACEBACK=1 to see the
Python traceback of an internal error (status 2).

Beyond xDSL's own checks, the input is verified for what the passes assume:
every operand defined before its use (SSA dominance,
`compiler.analysis.dominance`), float constants that fit their type, `index`
constants that fit 64 signed bits, and the project dialects' verifiers; a
`PassError` names the op it is about, so a pass's diagnostic is located too
(at that op, or its nearest ancestor with a location). `test/fuzz/fuzz.py`
(`make fuzz`) checks all of this on mutated inputs.

The input file `-` (or none) is standard input. Output piped into a reader
that stops early (`compiler-opt f.mlir | head`) ends quietly with the status
of a process killed by SIGPIPE, 141, as mlir-opt's would.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from typing import IO, Any

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    AnyDenseElement,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    RankedStructure,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from compiler.analysis.dominance import DominanceChecker
from compiler.arith.builders import wrap_index
from compiler.diagnostics import PassError, VerifyError, location_prefix
from compiler.dialects.syntax import IRParser
from compiler.pipeline import expand_pipelines
from compiler.registry import get_all_dialects, get_all_passes
from compiler.tools.exits import exit_on_broken_pipe, internal_error
from compiler.tools.version import add_version_argument


class LocatedParser(IRParser):
    """Stamps each op with loc("file":line:col) of its first token."""

    line_offset = 0  # first line of a --split-input-file chunk

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as err:  # an attribute or a type constraint checked while parsing
            self.raise_error(str(err), start.start, start.end)
        if isinstance(op.location, UnknownLoc):
            file, line, col = start.get_location()
            op.location = FileLineColLoc(
                StringAttr(file), IntAttr(line + self.line_offset), IntAttr(col)
            )
        return op

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        """xDSL's, with a float too large for its type (`1.0e+308 : f32`) a parse error at
        the number, as mlir-opt's, instead of struct.pack's OverflowError."""
        token = self._current_token
        try:
            return super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:
            self.raise_error("float constant out of range for its type", token.span.start, token.span.end)

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        """xDSL's, with an element too large for its type a parse error (as above)."""
        start = self.pos
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except OverflowError:
            self.raise_error("float constant out of range for its type", start, self.pos)


def _verify_index_constant(op: Operation) -> None:
    """An `index` is 64-bit and signed here (xDSL accepts up to 2^64 - 1)."""
    if not (isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr)):
        return
    if isinstance(op.value.type, IndexType) and wrap_index(v := op.value.value.data) != v:
        raise VerifyError(f"{location_prefix(op)}error: index constant {v} does not fit a signed 64-bit index")


def _verify_if_results(op: Operation) -> None:
    """An `scf.if` with results yields one value per result from both of its regions
    (xDSL 0.74 accepts an implicit empty `scf.yield` and no else region)."""
    if not isinstance(op, scf.IfOp) or not op.results:
        return
    types = list(op.result_types)
    if not op.false_region.blocks:
        raise VerifyError(f"{location_prefix(op)}error: scf.if with results needs an else region")
    for region in (op.true_region, op.false_region):
        last = region.block.last_op
        yielded = list(last.operand_types) if isinstance(last, scf.YieldOp) else None
        if yielded != types:
            raise VerifyError(
                f"{location_prefix(op)}error: scf.if has results ({', '.join(map(str, types))}), "
                f"but a region yields ({', '.join(map(str, yielded or []))})"
            )


def _value_name(value: SSAValue, index: int) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"operand {index}"


def verify_located(module: ModuleOp) -> None:
    """Verify op by op, so that the failing op, hence its location, is known; and
    check that each operand is defined before its use (SSA dominance, which xDSL
    does not verify)."""
    dominance = DominanceChecker()
    for op in module.walk():  # first: the verifiers (IsolatedFromAbove...) assume it
        if (bad := dominance.undominated_operand(op)) is not None:
            index, value = bad
            raise VerifyError(
                f"{location_prefix(op)}error: {op.name} uses {_value_name(value, index)} before its "
                "definition (a value is defined earlier in the same block or in an enclosing one)"
            )
    for op in module.walk():
        _verify_index_constant(op)
        _verify_if_results(op)
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as err:
            named = getattr(err, "op", None)  # a schedule error names its primitive
            culprit = op if named is None or not location_prefix(named) else named
            raise VerifyError(f"{location_prefix(culprit)}error: {getattr(err, 'message', err)}") from None


class ListPassesAction(argparse.Action):
    """`--list-passes`: the project's passes with their options and one-line summaries."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        for name, factory in sorted(get_all_passes().items()):
            cls = factory()
            doc = (cls.__doc__ or "").strip().splitlines()
            options = [f.name.replace("_", "-") for f in dataclasses.fields(cls)]
            suffix = f"{{{' '.join(o + '=...' for o in options)}}}" if options else ""
            print(f"{name}{suffix}\n    {doc[0] if doc else ''}")
        parser.exit()


def _llvm_target() -> type[Target]:
    """`-t llvm`: the LLVM IR `build()` hands to LLVM (the project's conversions of alias
    scopes, GEPs and loop metadata, and the workspace functions: `lowering/llvm_ir.py`)."""
    from compiler.lowering.llvm_ir import LLVMIRTarget

    return LLVMIRTarget


class CompilerOptMain(xDSLOptMain):
    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        add_version_argument(arg_parser, "compiler-opt")
        arg_parser.add_argument(
            "--list-passes",
            nargs=0,
            action=ListPassesAction,
            help="list the tensor compiler's own passes, their options and what they do",
        )

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["llvm"] = _llvm_target

    def setup_pipeline(self) -> None:
        """xdsl-opt's pipeline, with `default-pipeline{...}` expanded into its passes
        (so that --print-between-passes and --time-passes see each of them)."""
        super().setup_pipeline()
        self.pipeline = PassPipeline(expand_pipelines(self.pipeline.passes), self.pipeline.callback)

    def apply_passes(self, prog: ModuleOp) -> None:
        """xdsl-opt's, with a pass error that names no located op (a bad pass option, a
        condition of the whole module) located at the module's first op: every
        diagnostic of compiler-opt has a `file:line:col`."""
        try:
            super().apply_passes(prog)
        except PassError as err:
            if location_prefix(err.op):
                raise
            first = next((op for op in prog.walk() if isinstance(op.location, FileLineColLoc)), None)
            if first is None:
                raise
            raise PassError(str(err), first) from None

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file == "-":  # mlir-opt's name for standard input
            return sys.stdin.buffer, "mlir"
        return super().get_input_stream()

    def get_input_name(self) -> str:
        return "stdin" if self.args.input_file == "-" else super().get_input_name()

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        parser = LocatedParser(self.ctx, chunk.read().decode(), self.get_input_name())
        parser.line_offset = start_offset
        module = parser.parse_module(not self.args.no_implicit_module)
        verify_located(module)
        return module


def main(argv: Sequence[str] | None = None) -> int:
    try:
        CompilerOptMain(description="compiler-opt: the tensor compiler's IR driver", args=argv).run()
        sys.stdout.flush()  # here, where a closed pipe can still be handled
        return 0
    except BrokenPipeError:
        return exit_on_broken_pipe()
    except (ParseError, DiagnosticException) as err:
        print(err, file=sys.stderr)
    except (ValueError, ArgSpecParseError) as err:  # bad -p text; ArgSpecParseError is a BaseException
        print(f"error: {err}", file=sys.stderr)
    except FileNotFoundError as err:
        print(f"error: {err.strerror}: {err.filename}", file=sys.stderr)
    except Exception as err:
        return internal_error(err)
    return 1


if __name__ == "__main__":
    sys.exit(main())
