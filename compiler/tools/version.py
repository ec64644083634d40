"""`-v`/`--version` of the tools: the project's version, xDSL's and LLVM's.

    $ compiler-opt --version
    compiler-opt (xdsl-tensor-compiler) 0.1.0
    xDSL 0.74.0
    LLVM 22.1.0 (llvmlite 0.50.0)

xDSL and llvmlite are only asked when the option is given, so it costs the
other runs nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


def version_text(tool: str) -> str:
    from importlib.metadata import version

    import llvmlite
    import llvmlite.binding as llvm

    import compiler

    llvm_version = ".".join(str(n) for n in llvm.llvm_version_info)
    return (
        f"{tool} ({compiler.DISTRIBUTION}) {compiler.__version__}\n"
        f"xDSL {version('xdsl')}\n"
        f"LLVM {llvm_version} (llvmlite {llvmlite.__version__})"
    )


class VersionAction(argparse.Action):
    """Prints `version_text(tool)` and exits, like argparse's own `version` action."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, *, tool: str, **kwargs: Any):
        kwargs.setdefault("help", "print the versions of this tool, xDSL and LLVM, and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.tool = tool

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        print(version_text(self.tool))
        parser.exit()


def add_version_argument(parser: argparse.ArgumentParser, tool: str) -> None:
    """Add `-v`/`--version`, replacing one the parser may already have (xdsl-opt's):
    argparse's `resolve` conflict handler, for this one argument (the handler is
    checked by the argument group that receives the option, hence the groups)."""
    containers = [parser, *parser._action_groups]
    handlers = [c.conflict_handler for c in containers]
    for c in containers:
        c.conflict_handler = "resolve"
    try:
        parser.add_argument("-v", "--version", action=VersionAction, tool=tool)
    finally:
        for c, handler in zip(containers, handlers, strict=True):
            c.conflict_handler = handler
