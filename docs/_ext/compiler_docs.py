"""The docs site's own Sphinx extension: what is generated from the code at build time.

* `compiler-opt` directive: runs `compiler-opt` in this process on a file (or on the
  directive's content) and shows the output, so IR on a page is what the tool prints
  today (`infer-bound{explain=true}` in the schedules guide, for one).
* The pass and dialect reference (`reference/passes`, `reference/dialects`): their
  Markdown is written here, from the registry, the passes' options and docstrings,
  the FileCheck files of test/filecheck/passes/ and the dialects' op classes, when
  Sphinx reads those two pages (`source-read`), so the reference cannot drift.
* The memory-plan picture of the guide, drawn from a build at `builder-inited`.
* Lexers for ```mlir fences and for ```output (a Python example's printed output,
  which test/python/test_docs.py compares with what the example prints).
* After the build, every internal link, anchor and image of the site is checked
  (`check_site`, shared with the test); a broken one is a warning, so `make docs` fails.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import inspect
import io
import itertools
import re
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from docutils import nodes
from docutils.parsers.rst import directives
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers.special import TextLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
PASS_TESTS = ROOT / "test" / "filecheck" / "passes"
TOOL_TESTS = ROOT / "test" / "filecheck" / "tools"
GENERATED = Path(__file__).resolve().parents[1] / "_generated"
AFTER_LINES = 60  # the longest "after" IR shown in the pass reference
logger = logging.getLogger(__name__)


# --- lexers -------------------------------------------------------------------------


class MLIRLexer(RegexLexer):
    """Just enough MLIR for colour: comments, SSA values, symbols, types, strings."""

    name = "MLIR"
    aliases = ["mlir"]
    tokens = {
        "root": [
            (r"//.*?$", Comment.Single),
            (r'"(\\\\|\\"|[^"])*"', String),
            (r"%[\w.$-]+", Name.Variable),
            (r"\^[\w.$-]+", Name.Label),
            (r"@[\w.$-]+", Name.Function),
            (r"![\w.]+", Keyword.Type),
            (r"\b(f16|f32|f64|i1|i8|i32|i64|index)\b", Keyword.Type),
            (r"\b[a-z_]+\.[a-z_.]+\b", Name.Builtin),
            (r"-?\d+(\.\d+)?(e[+-]?\d+)?", Number),
            (r"(\w+)(\s*)(=)", bygroups(Name.Attribute, Text, Operator)),
            (r"[{}()\[\]<>,:=]", Punctuation),
            (r"\s+", Text),
            (r"\w+", Text),
            (r".", Text),
        ]
    }


# --- running compiler-opt in this process --------------------------------------------


def run_compiler_opt(args: list[str], stdin: str | None = None) -> tuple[int, str]:
    """`compiler-opt ARGS` in this process: exit status and stdout + stderr."""
    import sys

    from compiler.tools import compiler_opt

    out = io.StringIO()
    old_stdin = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = compiler_opt.main([*args] if stdin is None else [*args, "-"])
    finally:
        sys.stdin = old_stdin
    return status, out.getvalue()


class CompilerOptDirective(SphinxDirective):
    """```{compiler-opt} PIPELINE``` with `:input: path` (from the checkout's root) or
    the IR as content; `:comments-only:` keeps the `//` lines (explain output),
    `:exclude: REGEX` drops the lines it matches; `:show-input:` shows the input first."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {
        "input": directives.unchanged,
        "comments-only": directives.flag,
        "show-input": directives.flag,
        "exclude": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        if "input" in self.options:
            path = ROOT / self.options["input"]
            self.env.note_dependency(str(path))
            text = path.read_text()
            shown = self.options["input"]
            status, out = run_compiler_opt([str(path), "-p", self.arguments[0]])
        else:
            text = "\n".join(self.content) + "\n"
            shown = "f.mlir"
            status, out = run_compiler_opt(["-p", self.arguments[0]], stdin=text)
        if status != 0:
            raise self.error(f"compiler-opt -p {self.arguments[0]} failed ({status}):\n{out}")
        if "comments-only" in self.options:
            out = "\n".join(line for line in out.splitlines() if line.startswith("//"))
        if "exclude" in self.options:
            out = "\n".join(line for line in out.splitlines() if not re.search(self.options["exclude"], line))
        result: list[nodes.Node] = []
        if "show-input" in self.options:
            result.append(_code(text, "mlir", shown))
        result.append(_code(out, "mlir", f"compiler-opt {shown} -p '{self.arguments[0]}'"))
        return result


def _code(text: str, language: str, caption: str | None = None) -> nodes.Node:
    block = nodes.literal_block(text.rstrip("\n"), text.rstrip("\n"))
    block["language"] = language
    if caption is None:
        return block
    container = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
    container += nodes.caption(caption, "", nodes.Text(caption))
    container += block
    return container


# --- the pass reference ---------------------------------------------------------------


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip()


def option_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings (a string right after the field) of a pass's options."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass) or klass.__module__.startswith("xdsl"):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for stmt, nxt in itertools.pairwise(body):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[stmt.target.id] = inspect.cleandoc(nxt.value.value)
    return docs


@dataclasses.dataclass
class PassExample:
    file: Path
    pipeline: str
    before: str
    after: str


def _run_lines(text: str) -> list[str]:
    """The `-p` pipelines of a FileCheck file's `compiler-opt %s ... -p P` RUN lines."""
    found = []
    for line in text.splitlines():
        m = re.match(r"//\s*RUN:\s*compiler-opt %s (.*?)\|", line)
        if m and "-t " not in m.group(1):
            p = re.search(r"-p\s+('([^']*)'|(\S+))", m.group(1))
            if p:
                found.append(p.group(2) or p.group(3))
    return found


def _strip_checks(chunk: str) -> str:
    kept = [
        line
        for line in chunk.splitlines()
        if not re.match(r"\s*//\s*([A-Z][A-Z0-9_-]*(-LABEL|-NEXT|-SAME|-NOT|-DAG|-EMPTY)?:|RUN:)", line)
    ]
    return "\n".join(kept).strip("\n") + "\n"


def pass_example(name: str) -> PassExample | None:
    """The first example of the pass's FileCheck file (`<name>.mlir`, else the first
    `<name>-*.mlir`) that a RUN line's pipeline runs without an error: its input, with
    the CHECK lines taken out, and what compiler-opt prints for it now."""
    files = [PASS_TESTS / f"{name}.mlir", *sorted(PASS_TESTS.glob(f"{name}-*.mlir")), TOOL_TESTS / f"{name}.mlir"]
    for file in files:
        if not file.exists():
            continue
        text = file.read_text()
        pipelines = [p for p in _run_lines(text) if name in p] or _run_lines(text)
        for chunk in text.split("// -----"):
            if "expected-error" in chunk or ("te.func" not in chunk and "loop.func" not in chunk):
                continue
            before = _strip_checks(chunk)
            for pipeline in pipelines:
                status, out = run_compiler_opt(["-p", pipeline], stdin=before)
                if status == 0 and out.strip():
                    return PassExample(file, pipeline, before, out)
    return None


def docstring_markdown(doc: str) -> str:
    """A docstring as Markdown: its runs of indented lines that are not list items
    (IR sketches, tables drawn with spaces) become text blocks."""
    out: list[str] = []
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        starts_block = (not out or not out[-1].strip()) and line.startswith("  ")
        if starts_block and not re.match(r"\s*([*+-]|\d+\.)\s", line) and not line.strip().startswith("```"):
            j = i
            while j < len(lines) and (lines[j].startswith("  ") or not lines[j].strip()):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            out += ["```text", *textwrap.dedent("\n".join(lines[i:j])).splitlines(), "```"]
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _indent_code(text: str, language: str) -> str:
    return f"```{language}\n{text.rstrip()}\n```\n"


def passes_markdown() -> str:
    from compiler.registry import get_all_passes

    out = [
        "# Pass reference\n",
        "Generated from the code when the docs are built: every pass `compiler-opt` knows "
        "(`compiler/registry.py`), its options (`-p 'name{option=value other=value}'`; "
        "dashes and underscores are the same in option names) and an example taken from "
        "its FileCheck test in `test/filecheck/passes/`, run through `compiler-opt` "
        "while the docs were built. The order of the default pipeline is in "
        "[Tools](../guide/tools.md#the-default-pipeline).\n",
    ]
    for name, factory in sorted(get_all_passes().items()):
        cls = factory()
        module = inspect.getmodule(cls)
        out.append(f"## `{name}`\n")
        out.append(f"*`{cls.__module__}.{cls.__name__}`* — {_doc(cls)}\n")
        module_doc = inspect.cleandoc(module.__doc__ or "") if module is not None else ""
        if module_doc:  # a pass's module is about that pass (compiler.passes.*, lowering.to_llvm, pipeline)
            out.append(docstring_markdown(module_doc) + "\n")
        fields = dataclasses.fields(cls)
        docs = option_docs(cls)
        if fields:
            out.append("| option | type | default | meaning |\n|---|---|---|---|")
            for f in fields:
                default = f.default if f.default is not dataclasses.MISSING else ""
                if isinstance(default, bool):
                    default = str(default).lower()
                meaning = " ".join(docs.get(f.name, "(no docstring)").split()).replace("|", "\\|")
                out.append(f"| `{f.name.replace('_', '-')}` | `{f.type}` | `{default!s}` | {meaning} |")
            out.append("")
        else:
            out.append("No options.\n")
        example = pass_example(name)
        if example is None:
            users = sorted(
                str(f.relative_to(ROOT))
                for f in (ROOT / "test" / "filecheck").rglob("*.mlir")
                if any(name in p.split(",") or p.startswith(name + "{") for p in _run_lines(f.read_text()))
            )
            where = ", ".join(f"`{u}`" for u in users) if users else "none"
            own = [f for f in [PASS_TESTS / f"{name}.mlir", *PASS_TESTS.glob(f"{name}-*.mlir")] if f.exists()]
            if own:
                head = (f"**No example**: no case of `{own[0].relative_to(ROOT)}` runs through its RUN "
                        "lines' pipelines without an error")
            else:
                head = (f"**No FileCheck file of its own** (`test/filecheck/passes/{name}.mlir` does not "
                        "exist), so no example here")
            out.append(f"{head}. FileCheck files whose RUN lines run it: {where}.\n")
            continue
        rel = example.file.relative_to(ROOT)
        after = example.after.rstrip().splitlines()
        more = len(after) - AFTER_LINES
        shown = "\n".join(after[:AFTER_LINES]) + (f"\n// ... {more} more lines" if more > 0 else "")
        out.append(f"Before (the first example of `{rel}`, CHECK lines taken out):\n")
        out.append(_indent_code(example.before, "mlir"))
        out.append(f"After `compiler-opt -p '{example.pipeline}'`:\n")
        out.append(_indent_code(shown, "mlir"))
    return "\n".join(out)


# --- the dialect reference ---------------------------------------------------------------


def _message(node: ast.expr) -> str | None:
    """The text of an error message argument; f-string fields as {expression}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                parts.append("{" + ast.unparse(v.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _message(node.left), _message(node.right)
        return None if left is None or right is None else left + right
    return None


def raised_messages(obj: Any) -> list[str]:
    """The messages of the errors a function or module raises."""
    try:
        return _raised(ast.parse(textwrap.dedent(inspect.getsource(obj))))
    except (OSError, TypeError):
        return []


def verifier_messages(cls: type) -> list[str]:
    """The messages of the errors the `verify_` methods the project wrote for an op
    class raise (its own and its bases'); read from the classes' source, since
    irdl_op_definition wraps `verify_`."""
    found: list[str] = []
    for klass in cls.__mro__:
        if not klass.__module__.startswith("compiler."):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        classdef = tree.body[0]
        if not isinstance(classdef, ast.ClassDef) or classdef.name != klass.__name__:
            continue
        module = inspect.getmodule(klass)
        for stmt in classdef.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "verify_":
                found += [m for m in _raised(stmt, module) if m not in found]
    return found


def _raised(tree: ast.AST, module: Any = None, depth: int = 2) -> list[str]:
    """The messages raised in `tree` and in the module's helper functions it calls."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            text = _message(node.exc.args[0])
            if text is not None and text not in found:
                found.append(text)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and module is not None and depth:
            helper = getattr(module, node.func.id, None)
            if inspect.isfunction(helper) and helper.__module__ == module.__name__:
                with contextlib.suppress(OSError, TypeError):
                    sub = ast.parse(textwrap.dedent(inspect.getsource(helper)))
                    found += [m for m in _raised(sub, module, depth - 1) if m not in found]
    return found


def _rules(messages: list[str]) -> str:
    return "\n".join(f"* `{' '.join(m.split())}`" for m in messages) + "\n"


def dialects_markdown() -> str:
    import compiler.schedule.model as schedule_model
    from compiler.registry import get_all_dialects
    from compiler.schedule import replay, rules

    out = [
        "# Dialect reference\n",
        "Generated from the code when the docs are built: for every op of the project's "
        "dialects (`compiler/dialects/`), its docstring (with its syntax) and its verifier "
        "rules, the messages of the errors its `verify_` raises (`{...}` is filled in with "
        "the offending value).\n",
    ]
    for dialect_name, factory in sorted(get_all_dialects().items()):
        dialect = factory()
        # the dialect's module (a package's __init__ when its ops live in submodules)
        first_op = next(iter(dialect.operations))
        module = sys.modules.get(".".join(first_op.__module__.split(".")[:3]))
        out.append(f"## `{dialect_name}`\n")
        if module is not None and module.__doc__:
            out.append(docstring_markdown(inspect.cleandoc(module.__doc__)) + "\n")
        for attr in dialect.attributes:
            out.append(f"### `{attr.name}` (type)\n")
            out.append((_doc(attr) or "(no docstring)") + "\n")
        for op in dialect.operations:
            out.append(f"### `{op.name}`\n")
            doc = _doc(op)
            out.append((docstring_markdown(doc) or "(no docstring)") + "\n")
            if op.name not in doc:
                out.append("*(Its docstring has no syntax example.)*\n")
            messages = verifier_messages(op)
            if op.name == "sched.schedule":
                out.append(
                    "Besides its own checks, it replays the schedule "
                    "(`compiler/schedule/`) and rejects, with the rules the Python schedule "
                    "API shares (`compiler/schedule/rules.py`, `{prim}` the primitive's name):\n"
                )
                found = [*raised_messages(schedule_model), *raised_messages(replay), *raised_messages(rules)]
                out.append(_rules(list(dict.fromkeys(found))))
            if messages:
                out.append("Verifier rules:\n")
                out.append(_rules(messages))
            elif op.name.startswith("sched."):
                out.append("Verifier rules: none of its own; `sched.schedule` replays it (above).\n")
            else:
                out.append("Verifier rules: none of its own (xDSL checks its operand and result types).\n")
    return "\n".join(out)


GENERATORS = {"reference/passes": passes_markdown, "reference/dialects": dialects_markdown}


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname in GENERATORS:
        source[0] = GENERATORS[docname]()


# --- the memory plan picture -------------------------------------------------------------


def draw_plan(path: Path) -> None:
    """seed 000's conv chain, unscheduled (one buffer per stage), as a memory-plan picture."""
    import compiler
    from compiler.memory_plot import plot_memory

    sys.path.append(str(ROOT / "bench"))  # the one builder of the chain
    from seed_chain import seed000_chain

    inputs, y3 = seed000_chain()
    built = compiler.build([*inputs, y3], name="conv_chain", auto_schedule=False)
    assert built.memory is not None
    plot_memory(built.memory, path, title="seed 000 conv chain, unscheduled")


def _builder_inited(app: Sphinx) -> None:
    import matplotlib

    matplotlib.use("Agg")
    GENERATED.mkdir(exist_ok=True)
    draw_plan(GENERATED / "seed000_plan.png")


# --- checking the built site's internal links ----------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.ids.add(value)
            if value is not None and ((key == "href" and tag in ("a", "link")) or (key == "src" and tag in ("img", "script"))):
                self.links.append((key, value))


def check_site(html_dir: Path) -> list[str]:
    """Every internal link, anchor and image of the built site that does not resolve."""
    pages: dict[Path, _Links] = {}
    for page in html_dir.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(errors="replace"))
        pages[page.resolve()] = parser
    broken = []
    for page, parser in sorted(pages.items()):
        for _key, link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//") or link.startswith("mailto:"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            where = f"{page.relative_to(html_dir.resolve())}: {link}"
            if not target.exists():
                broken.append(f"{where}: no file {target.name}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where}: no anchor #{parts.fragment}")
    return broken


def _build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        for problem in check_site(Path(app.outdir)):
            logger.warning(f"broken internal link: {problem}")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_lexer("mlir", MLIRLexer)
    app.add_lexer("output", TextLexer)
    app.add_directive("compiler-opt", CompilerOptDirective)
    app.connect("source-read", _source_read)
    app.connect("builder-inited", _builder_inited)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "version": "1"}
