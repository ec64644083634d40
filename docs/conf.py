"""Sphinx configuration of the docs site (`make docs`: warnings are errors).

The guide and the tutorials are MyST Markdown (`myst_parser`); the pass and dialect
reference, the IR a page shows and the memory-plan picture are generated from the
code while the site is built (`_ext/compiler_docs.py`), which also checks every
internal link of the built site.

The docstrings are written for readers of the source: `code` in single
backticks and fenced code blocks. `default_role` renders the backticks as code
and `_fenced_blocks` turns each fence into a `code-block` before Sphinx
parses the docstring as reStructuredText.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))
# the builds the pages make stay out of the user's object cache
os.environ.setdefault("COMPILER_CACHE", "0")

import compiler  # noqa: E402

project = "xdsl-tensor-compiler"
release = compiler.__version__
version = release
copyright = "the xdsl-tensor-compiler authors (Apache-2.0)"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.doctest", "myst_parser", "compiler_docs"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# `page.md#a-heading` links resolve to headings down to ###
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
default_role = "code"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"members": True, "show-inheritance": True}
# Annotations name classes of xDSL, NumPy and torch that this reference does not describe.
nitpicky = False
suppress_warnings = ["ref.python"]
exclude_patterns = ["_build", "_generated"]
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
smartquotes = False  # commands in captions and prose stay copyable
