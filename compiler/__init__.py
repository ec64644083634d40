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
needs none of them does not pay for xDSL, llvmlite and NumPy. `build`, `lower` and
`Function` live in `compiler.driver`, `tune` in `compiler.tuning`: modules named
apart from the functions, since importing a submodule sets the package's attribute
of its name.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # what the lazy attributes are, for type checkers and IDEs
    from typing import Any

    from compiler import errors, ops, te
    from compiler.driver import Function, build, lower
    from compiler.errors import ArgumentError as ArgumentError
    from compiler.errors import ArgumentTypeError as ArgumentTypeError
    from compiler.errors import ArgumentValueError as ArgumentValueError
    from compiler.errors import BoundsError as BoundsError
    from compiler.errors import CompilerError as CompilerError
    from compiler.errors import ExprError as ExprError
    from compiler.errors import ExprIndexError as ExprIndexError
    from compiler.errors import ExprTypeError as ExprTypeError
    from compiler.errors import ExprValueError as ExprValueError
    from compiler.errors import InternalError as InternalError
    from compiler.errors import IRError as IRError
    from compiler.errors import LinkError as LinkError
    from compiler.errors import MemoryPlanError as MemoryPlanError
    from compiler.errors import ModuleLoadError as ModuleLoadError
    from compiler.errors import OptionError as OptionError
    from compiler.errors import OutOfMemoryError as OutOfMemoryError
    from compiler.errors import ReadOnlyOutputError as ReadOnlyOutputError
    from compiler.errors import ScheduleError as ScheduleError
    from compiler.errors import ScheduleTypeError as ScheduleTypeError
    from compiler.errors import UnsupportedOpError as UnsupportedOpError
    from compiler.runtime.externs import register_extern
    from compiler.runtime.module import load_module
    from compiler.runtime.threads import get_num_threads, set_num_threads
    from compiler.torch import from_torch
    from compiler.torch.quantize import quantize

    __version__: str

# errors.py uses the standard library only, so reading its names here stays cheap.
from compiler.errors import __all__ as _ERRORS  # noqa: E402

__all__ = [
    "Function",
    "TuneResult",
    "build",
    "errors",
    "from_torch",
    "get_num_threads",
    "load_module",
    "lower",
    "ops",
    "quantize",
    "register_extern",
    "set_num_threads",
    "te",
    "tune",
    *_ERRORS,
]

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
        from compiler.driver import Function, build, lower

        value = {"Function": Function, "build": build, "lower": lower}[name]
    elif name in ("tune", "TuneResult"):  # empirical tuning (compiler.tuning)
        from compiler.tuning import TuneResult, tune

        value = {"tune": tune, "TuneResult": TuneResult}[name]
    elif name == "te":
        import compiler.te

        value = sys.modules["compiler.te"]
    elif name == "errors" or name in _ERRORS:  # standard library only: cheap
        import compiler.errors

        module = sys.modules["compiler.errors"]
        value = module if name == "errors" else getattr(module, name)
    elif name == "ops":
        import compiler.ops  # noqa: F401

        value = sys.modules["compiler.ops"]
    elif name == "load_module":  # exported shared libraries: ctypes, no xDSL, no LLVM
        from compiler.runtime.module import load_module as value
    elif name == "register_extern":  # the functions te.extern stages call (ctypes, llvmlite)
        from compiler.runtime.externs import register_extern as value
    elif name in ("set_num_threads", "get_num_threads"):  # the parallel loops' thread count
        import compiler.runtime.threads as threads

        value = getattr(threads, name)
    elif name == "from_torch":  # the PyTorch frontend (needs torch)
        from compiler.torch import from_torch as value
    elif name == "quantize":  # weight-only int8/int4 linears of a torch module (needs torch)
        from compiler.torch.quantize import quantize as value
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
