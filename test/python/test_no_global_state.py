"""Importing the compiler changes nothing outside it: xDSL's converter functions and lexer
are xDSL's (the project's conversions are its own functions, `lowering/llvm_ir.py`, and
its parser its own class, `dialects/syntax.IRParser`), and the interpreter's switch
interval is the process's (the JIT lowers it only while its optimizing thread runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json
import sys

import xdsl.backend.llvm.convert as convert
import xdsl.backend.llvm.convert_op as convert_op
from xdsl.utils.mlir_lexer import MLIRLexer

NAMES = ["_convert_getelementptr", "_convert_load", "_convert_store", "_convert_br", "convert_op"]


def state():
    return {
        "converters": [id(getattr(convert_op, n)) for n in NAMES] + [id(convert.convert_module)],
        "lexer": MLIRLexer._unescaped_characters_regex.pattern,
        "switch_interval": sys.getswitchinterval(),
    }


before = state()
import compiler
import compiler.driver
import compiler.lowering.jit
import compiler.registry
import compiler.tools.compiler_opt
from compiler import te

imported = state()
A = te.placeholder((64,), name="A")
B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
compiler.build([A, B])
print(json.dumps({"before": before, "imported": imported, "built": state()}))
"""


def test_importing_and_building_change_no_global_state() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env={**os.environ, "COMPILER_CACHE": "0"},  # LLVM runs (the JIT's thread)
    )
    assert done.returncode == 0, done.stderr
    states = json.loads(done.stdout)
    assert states["imported"] == states["before"]
    assert states["built"] == states["before"]


def test_xdsl_parser_keeps_its_own_lexer() -> None:
    """The linear-time lexing is the project's parser's (test_cli checks it is fast there);
    xDSL's parser still parses, and refuses, string literals as before."""
    from compiler.context import make_context
    from compiler.dialects.syntax import IRParser

    text = 'builtin.module attributes {a = "x\\n"} {}'
    assert str(Parser(make_context(), text).parse_module()) == str(IRParser(make_context(), text).parse_module())
    for parser in (Parser, IRParser):
        with pytest.raises(ParseError, match="End of file reached before closing string literal"):
            parser(make_context(), 'builtin.module attributes {a = "open').parse_module()
