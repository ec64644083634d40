"""The documentation's examples run, and the built site has no broken internal link.

* Every ```python block of README.md and of the site's Markdown pages (docs/) runs;
  the blocks of one page run in order in one namespace (a page reads as one session),
  in a temporary directory. A ```output block right after a python block is what
  that block prints (doctest's rules: `...` stands for any text, runs of whitespace
  are equal). A block preceded by `<!-- norun: why -->` is shown, not run.
* Every ```console block runs its `$ ` commands from the checkout's root (tools/ on
  PATH), and the lines under a command are its expected output (stdout and stderr, as
  a terminal shows them), matched the same way; a command must exit with status 0.
  ```sh blocks are commands to type (make, pip), not run.
* The site: built once (or the build `make docs` just made, when it is newer than
  every source), then every internal link, anchor and image must resolve
  (docs/_ext/compiler_docs.py's check_site, which `make docs` runs too).
"""

from __future__ import annotations

import contextlib
import doctest
import io
import linecache
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if not {"_build", "_generated"} & set(p.parts))]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Block:
    language: str
    text: str
    line: int  # of the opening fence, 1-based
    run: bool = True
    output: str | None = None  # the ```output block that follows a python block
    commands: list[tuple[str, str]] = field(default_factory=list)  # console: (command, output)


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, outputs attached to their code."""
    lines = path.read_text().splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(`{3,})\s*([\w{}-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, language = m.group(1), m.group(2), m.group(3)
        start = i
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i][len(indent):])
            i += 1
        i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        block = Block(language, "\n".join(body) + "\n", start + 1, run="<!-- norun" not in before)
        if language == "output" and found and found[-1].language == "python":
            found[-1].output = block.text
            continue
        if language == "console":
            for line in body:
                if line.startswith("$ "):
                    block.commands.append((line[2:], ""))
                elif block.commands:
                    command, out = block.commands[-1]
                    block.commands[-1] = (command, out + line + "\n")
        found.append(block)
    return found


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _pages_with(language: str) -> list[Path]:
    return [p for p in PAGES if any(b.language == language and b.run for b in blocks(p))]


# The tutorials' and the profiling guide's examples compile whole layers and chains:
# the long run only (COMPILER_LONG_TESTS=1); the README's and the other guides' run always.
LONG_PAGES = ("docs/tutorials/", "docs/guide/profiling.md")


def _examples_of(language: str) -> list[object]:
    return [
        pytest.param(p, marks=pytest.mark.long) if _page_id(p).startswith(LONG_PAGES) else p
        for p in _pages_with(language)
    ]


def test_every_page_has_its_examples_found() -> None:
    """The extractor sees the README's and the guide's examples (a silent zero would
    pass every other test here)."""
    counts = {_page_id(p): sum(b.language == "python" and b.run for b in blocks(p)) for p in PAGES}
    assert counts["README.md"] >= 2
    assert sum(counts.values()) >= 40, counts


def _check(want: str, got: str, where: str) -> None:
    if not doctest.OutputChecker().check_output(want, got, FLAGS):
        pytest.fail(f"{where}: printed\n{got}\nexpected\n{want}")


@pytest.mark.parametrize("page", _examples_of("python"), ids=_page_id)
def test_python_examples(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in blocks(page):
        if block.language != "python" or not block.run:
            continue
        where = f"{_page_id(page)}:{block.line}"
        out = io.StringIO()
        # tracebacks (and the frontend's source-line messages) show the example's lines
        linecache.cache[where] = (len(block.text), None, block.text.splitlines(True), where)
        with contextlib.redirect_stdout(out):
            exec(compile(block.text, where, "exec"), namespace)
        if block.output is not None:
            _check(block.output, out.getvalue(), where)


@pytest.mark.parametrize("page", _pages_with("console"), ids=_page_id)
def test_console_examples(page: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(ROOT / "tools"), str(Path(sys.executable).parent), env["PATH"]])
    env["COMPILER_CACHE"] = "0"
    for block in blocks(page):
        if block.language != "console" or not block.run:
            continue
        for command, want in block.commands:
            done = subprocess.run(
                command, shell=True, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, check=False,
            )  # as on a terminal: errors and output in one stream
            where = f"{_page_id(page)}:{block.line}: $ {command}"
            assert done.returncode == 0, f"{where}: status {done.returncode}\n{done.stdout}"
            if want.strip():
                _check(want, done.stdout, where)


# --- the built site ------------------------------------------------------------------

STAMP = DOCS / "_build" / ".clean"  # written by `make docs` after a build without warnings
SOURCE_SUFFIXES = {".py", ".md", ".rst", ".mlir", ".toml"}  # what the site is built from (lit's own files are not)


def _newest_source() -> float:
    roots = [DOCS, ROOT / "compiler", ROOT / "test" / "filecheck", ROOT / "pyproject.toml"]
    newest = 0.0
    for r in roots:
        files = [r] if r.is_file() else [
            p for p in r.rglob("*")
            if p.suffix in SOURCE_SUFFIXES and not p.name.startswith(".")
            and not {"_build", "_generated", "Output", "__pycache__"} & set(p.parts)
        ]
        newest = max([newest, *(p.stat().st_mtime for p in files)])
    return newest


def built_site(tmp_path: Path) -> Path:
    """`make docs`'s build when it is clean and newer than every source, else a fresh
    build (warnings fail it, as in `make docs`)."""
    html = DOCS / "_build" / "html"
    if STAMP.exists() and STAMP.stat().st_mtime > _newest_source():
        return html
    out = tmp_path / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stderr}"
    return out


@pytest.mark.long  # every link of the built site: the long run
def test_site_links_anchors_and_images_resolve(tmp_path: Path) -> None:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from compiler_docs import check_site
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    html = built_site(tmp_path)
    assert (html / "reference" / "passes.html").exists()
    assert check_site(html) == []
    # the generated reference holds every registered pass and op
    from compiler.registry import get_all_dialects, get_all_passes

    passes = (html / "reference" / "passes.html").read_text()
    for name in get_all_passes():
        assert f'id="{name}"' in passes, name
    ops = (html / "reference" / "dialects.html").read_text()
    for factory in get_all_dialects().values():
        for op in factory().operations:
            assert op.name in ops, op.name


def test_check_site_finds_broken_links(tmp_path: Path) -> None:
    """The link checker fails on a missing page, anchor and image."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from compiler_docs import check_site
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><a href="b.html#nowhere">b</a><a href="#top">ok</a>')
    (tmp_path / "b.html").write_text('<a href="a.html#top">a</a><a href="c.html">c</a><img src="x.png">')
    assert sorted(check_site(tmp_path)) == [
        "a.html: b.html#nowhere: no anchor #nowhere",
        "b.html: c.html: no file c.html",
        "b.html: x.png: no file x.png",
    ]


def test_readme_links_resolve() -> None:
    """The README is read on its own (on a forge, from PyPI): its relative links name
    files of the checkout."""
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links, "the README links to the guide"
    missing = [link for link in links if "://" not in link and not (ROOT / link.split("#")[0]).exists()]
    assert missing == []
