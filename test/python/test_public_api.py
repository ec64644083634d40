"""The public modules say what they export: `__all__` lists names that exist, a star
import brings exactly those (no `dataclass`, `inspect`, `Sequence` ...), and the package
ships its inline types (PEP 561 `py.typed`)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import compiler

PUBLIC_MODULES = ["compiler", "compiler.te", "compiler.ops", "compiler.torch", "compiler.errors"]
# Submodules a package exports on purpose (`from compiler import te, ops, errors`).
EXPORTED_MODULES = {"compiler": {"te", "ops", "errors"}}
# Names a leaked import would bring: none of them is part of any public API.
LEAKS = {
    "annotations",
    "dataclass",
    "field",
    "inspect",
    "np",
    "numpy",
    "operator",
    "sys",
    "types",
    "Any",
    "Callable",
    "Iterable",
    "Mapping",
    "Sequence",
    "TYPE_CHECKING",
}


def _module(name: str) -> types.ModuleType:
    return importlib.import_module(name)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_names_exist_and_are_unique(name: str) -> None:
    module = _module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ lists names the module does not have: {missing}"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_star_import_exports_exactly_all(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {name} import *", namespace)
    exported = set(namespace) - {"__builtins__"}
    assert exported == set(_module(name).__all__)
    assert not exported & LEAKS, f"from {name} import * leaks {sorted(exported & LEAKS)}"
    modules = {n for n in exported if isinstance(namespace[n], types.ModuleType)}
    assert modules <= EXPORTED_MODULES.get(name, set()), f"{name} exports modules {modules}"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_names_are_defined_by_the_project(name: str) -> None:
    # Every exported function or class comes from the project (or is an exception
    # class of the project), never a re-export of the standard library or xDSL.
    module = _module(name)
    for n in module.__all__:
        value = getattr(module, n)
        if isinstance(value, type | types.FunctionType):
            assert value.__module__.split(".")[0] == "compiler", f"{name}.{n} is {value!r}"


def test_package_dir_lists_the_lazy_names_without_loading_them() -> None:
    # compiler/__init__.py is lazy (PEP 562): dir() shows the API, importing it does not
    # import xDSL.
    code = (
        "import sys, compiler\n"
        "names = dir(compiler)\n"
        "assert 'xdsl' not in sys.modules, 'import compiler loaded xDSL'\n"
        "missing = set(compiler.__all__) - set(names)\n"
        "assert not missing, missing\n"
        "assert '__version__' in names\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_package_is_typed() -> None:
    assert (Path(compiler.__file__).parent / "py.typed").is_file()


def test_every_type_ignore_names_its_error_and_a_reason() -> None:
    # mypy runs with warn_unused_ignores and ignore-without-code; the reason is ours.
    package = Path(compiler.__file__).parent
    pattern = re.compile(r"# type: ignore\[[a-z-]+(, [a-z-]+)*\]  # \S")
    bad = [
        f"{path.relative_to(package.parent)}:{number}"
        for path in sorted(package.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "type: ignore" in line and not pattern.search(line)
    ]
    assert not bad, f"type: ignore without an error code and a reason: {bad}"
