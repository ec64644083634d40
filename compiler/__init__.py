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
"""

from compiler.build import Function, build, lower

__all__ = ["Function", "build", "lower"]

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


__version__ = _version()
