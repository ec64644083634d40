"""Sphinx configuration of the API reference (`make docs`: warnings are errors).

The docstrings are written for readers of the source: `code` in single
backticks and fenced code blocks. `default_role` renders the backticks as code
and `_fenced_blocks` turns each fence into a `code-block` before Sphinx
parses the docstring as reStructuredText.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout, installed or not

import compiler  # noqa: E402

project = "xdsl-tensor-compiler"
release = compiler.__version__
version = release
copyright = "the xdsl-tensor-compiler authors (Apache-2.0)"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.doctest"]
default_role = "code"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"members": True, "show-inheritance": True}
# Annotations name classes of xDSL, NumPy and torch that this reference does not describe.
nitpicky = False
suppress_warnings = ["ref.python"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_title = f"{project} {release}"


def _fenced_blocks(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Markdown fences (```python ... ```) as reStructuredText code blocks, in place."""
    out: list[str] = []
    fence: str | None = None  # the indentation of the open fence
    for line in lines:
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if fence is None and stripped.startswith("```"):
            fence = indent
            language = stripped[3:].strip() or "text"
            out += [f"{indent}.. code-block:: {language}", ""]
        elif fence is not None and stripped == "```":
            out.append("")
            fence = None
        elif fence is not None:
            out.append(f"{fence}    {line[len(fence):]}" if line.strip() else "")
        else:
            out.append(line)
    lines[:] = out


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", _fenced_blocks)
