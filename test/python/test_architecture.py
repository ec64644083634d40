"""The package's imports point one way (DESIGN.md's layers) and never form a circle.

Every `import` in compiler/ counts, lazy ones inside functions and
`TYPE_CHECKING` ones included: a lazy import hides a circle from Python, not
from a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "compiler"

# Lowest first; a module may import its own layer or a lower one.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # the IR walk (compiler.analysis.walk) needs xDSL alone: the schedule model walks the IR with it
    ("base", ("compiler.arith", "compiler.runtime", "compiler.errors", "compiler.diagnostics", "compiler.names", "compiler.analysis.walk")),
    ("dialects", ("compiler.dialects",)),
    ("schedule", ("compiler.schedule",)),  # the schedule model: read by the analyses, passes and te
    ("analysis", ("compiler.analysis", "compiler.transforms")),
    ("planning", ("compiler.auto_schedule",)),  # reads the schedule model, writes sched ops
    ("passes", ("compiler.passes",)),
    ("lowering", ("compiler.lowering",)),
    ("pipeline", ("compiler.pipeline", "compiler.pipeline_options", "compiler.registry", "compiler.context")),
    ("frontend", ("compiler.te", "compiler.ops")),
    ("api", ("compiler.driver", "compiler", "compiler.torch", "compiler.tuning_log", "compiler.tuning")),
    ("tools", ("compiler.tools",)),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imported_modules(path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules a file imports; `from pkg import name` counts as `pkg.name`
    when that is a module (importing a submodule is not a use of its package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "compiler")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "compiler":
                continue
            submodules = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
            found.update(submodules or {node.module})
            if len(submodules) < len(node.names):
                found.add(node.module)
    return found - {module_name(path)}


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imported_modules(path, modules) for name, path in modules.items()}


def layer_of(module: str) -> int:
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    assert best is not None, f"{module} belongs to no layer: add it to LAYERS"
    return best[1]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_imports_point_down_the_layers() -> None:
    upward = [
        f"{src} ({LAYERS[layer_of(src)][0]}) imports {dst} ({LAYERS[layer_of(dst)][0]})"
        for src, deps in import_graph().items()
        for dst in sorted(deps)
        if layer_of(dst) > layer_of(src)
    ]
    assert upward == []


def test_passes_share_code_through_analysis_only() -> None:
    cross = [
        f"{src} imports {dst}"
        for src, deps in import_graph().items()
        if src.startswith("compiler.passes.")
        for dst in sorted(deps)
        if dst.startswith("compiler.passes.")
    ]
    assert cross == []


def test_dialects_hold_ir_definitions_only() -> None:
    """A dialect file imports other dialects and the base layer, nothing that
    transforms IR (xDSL's pattern rewriter and pass machinery included)."""
    offenders = []
    for name, path in all_modules().items():
        if not name.startswith("compiler.dialects"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in ("xdsl.passes", "xdsl.pattern_rewriter"):
                offenders.append(f"{name} imports {node.module}")
    assert offenders == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_cycle_finder(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(graph) == expected


def test_layer_of_prefers_the_longest_prefix() -> None:
    assert LAYERS[layer_of("compiler.passes.infer_bound")][0] == "passes"
    assert LAYERS[layer_of("compiler")][0] == "api"
    assert LAYERS[layer_of("compiler.te.schedule")][0] == "frontend"
    assert LAYERS[layer_of("compiler.schedule.rules")][0] == "schedule"


def test_every_folder_is_a_regular_package() -> None:
    """A wheel's package discovery (setuptools find_packages) skips folders without
    an __init__.py: their modules would be missing from an installed compiler."""
    folders = {p.parent for p in PACKAGE.rglob("*.py")}
    assert sorted(str(f.relative_to(PACKAGE)) for f in folders if not (f / "__init__.py").exists()) == []


def test_pass_registry_is_one_sorted_table() -> None:
    """Every pass once, by its own name, in alphabetical order; every pass file in it."""
    from compiler.registry import PASSES, get_all_passes

    assert list(PASSES) == sorted(PASSES)
    assert {name: get()().name for name, get in get_all_passes().items()} == {name: name for name in PASSES}
    files = {p.stem.replace("_", "-") for p in (PACKAGE / "passes").glob("*.py") if p.stem != "__init__"}
    assert files - set(PASSES) == set()
