"""A TVM-style tensor-expression compiler on xDSL.

```python
import numpy as np
import compiler
from compiler import te

A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
f = compiler.build([A, B])
a = np.ones(1024, np.float32); b = np.empty_like(a)
f(a, b)
```

`import compiler` is cheap: `build`, `lower`, `Function`, `te`, `ops` and
`__version__` are loaded on first use (PEP 562), so a tool or a script that
needs none of them does not pay for xDSL, llvmlite and NumPy.
"""

from __future__ import annotations

import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # what the lazy attributes are, for type checkers and IDEs
    from typing import Any

    from compiler import ops, te
    from compiler.build import Function, build, lower
    from compiler.runtime.module import load_module
    from compiler.torch import from_torch

__all__ = ["Function", "TuneResult", "build", "from_torch", "load_module", "lower", "ops", "te", "tune"]

DISTRIBUTION = "xdsl-tensor-compiler"
"""The name this package is installed under (`pip install xdsl-tensor-compiler`)."""


def _version() -> str:
    """The installed distribution's version; from a checkout that was never
    installed, the version in its pyproject.toml."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            project = tomllib.loads(pyproject.read_text())["project"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"
        return project["version"] if project.get("name") == DISTRIBUTION else "0+unknown"


def __getattr__(name: str) -> Any:
    value: Any
    if name in ("Function", "build", "lower"):
        from compiler.build import Function, build, lower

        value = {"Function": Function, "build": build, "lower": lower}[name]
    elif name in ("tune", "TuneResult"):  # empirical tuning (compiler.tune)
        from compiler.tune import TuneResult, tune

        value = {"tune": tune, "TuneResult": TuneResult}[name]
    elif name == "te":
        import compiler.te

        value = sys.modules["compiler.te"]
    elif name == "ops":
        import compiler.ops  # noqa: F401

        value = sys.modules["compiler.ops"]
    elif name == "load_module":  # exported shared libraries: ctypes, no xDSL, no LLVM
        from compiler.runtime.module import load_module as value
    elif name == "from_torch":  # the PyTorch frontend (needs torch)
        from compiler.torch import from_torch as value
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})


class _Package(types.ModuleType):
    """`compiler.build` names the function, not its module: importing the
    submodule `compiler.build` (which Python records by setting the package's
    attribute `build`) must not hide the function."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("build", "tune") and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
