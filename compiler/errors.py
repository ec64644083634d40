"""The exceptions the compiler raises: one base class, `CompilerError`, and a family per story.

```
CompilerError
├── ExprError              a tensor expression or an op of compiler.ops built wrongly
│   ├── ExprTypeError          (also TypeError: a float index, mixed dtypes, not a tensor)
│   ├── ExprValueError         (also ValueError: a bad shape, dtype, padding, axis)
│   └── ExprIndexError         (also IndexError: a tensor indexed with the wrong rank)
├── ScheduleError          (also ValueError) an invalid schedule primitive (Stage methods,
│   │                      the sched dialect's verifier)
│   └── ScheduleTypeError      (also TypeError: a primitive given something not an axis)
├── OptionError            (also ValueError) an option of build, lower or a pass that means
│                          nothing (an unknown pipeline stage...)
├── IRError                (also ValueError) IR that breaks an invariant or that a pass cannot
│                          handle; `compiler.diagnostics` holds the subclasses that are
│                          xDSL diagnostics too (VerifyError, PassError)
├── ArgumentError          a compiled function called with arguments it cannot bind
│   ├── ArgumentTypeError      (also TypeError: count, dtype, not an array)
│   └── ArgumentValueError     (also ValueError: shapes, strides, overlap, alignment...)
│       └── ReadOnlyOutputError    an output that must not be written (read-only NumPy
│                                  array, torch tensor requiring grad, JAX array...)
├── BoundsError            (also IndexError) a load or store outside its buffer, found
│                          at run time by `build(..., check_bounds=True)`
├── OutOfMemoryError       (also MemoryError) a compiled function found no memory for its
│                          intermediates (sizes from the call's shapes too large)
├── MemoryPlanError        (also AssertionError) storage-rewrite made an unsound plan:
│                          an internal error, please report it
├── InternalError          (also RuntimeError) any other state the compiler should never
│                          reach (a compiled function's unknown failure code...)
├── UnsupportedOpError     (also NotImplementedError) a PyTorch operator (or a variant)
│                          that compiler.torch cannot lower
├── ModuleLoadError        (also ValueError) a shared library that is not one
│                          `Function.export_library` wrote
└── LinkError              (also RuntimeError) `export_library` could not link: no C
                           compiler, or it failed; or a te.extern's function is nowhere
```

Every class also derives from the builtin exception that the same error was
before this hierarchy existed, so `except ValueError` and
`pytest.raises(TypeError)` keep working, while `except compiler.CompilerError`
catches anything the compiler reports on purpose. Exceptions of Python's own
protocols keep their builtin types: `KeyError` for a missing `s[tensor]`,
`AttributeError`, `FileNotFoundError`, `ImportError` for a missing optional
package.

This module imports nothing but the standard library: the runtime (which
loads exported libraries without xDSL) raises these classes too.

>>> import compiler
>>> from compiler import te
>>> A = te.placeholder((4,), name="A")
>>> try:
...     A[0, 1]
... except compiler.CompilerError as err:
...     print(type(err).__name__, isinstance(err, IndexError), err)
ExprIndexError True tensor A has 1 dimensions, indexed with 2
"""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "BoundsError",
    "CompilerError",
    "ExprError",
    "ExprIndexError",
    "ExprTypeError",
    "ExprValueError",
    "IRError",
    "InternalError",
    "LinkError",
    "MemoryPlanError",
    "ModuleLoadError",
    "OptionError",
    "OutOfMemoryError",
    "ReadOnlyOutputError",
    "ScheduleError",
    "ScheduleTypeError",
    "UnsupportedOpError",
]


class CompilerError(Exception):
    """The base class of every error the compiler raises on purpose."""


# ---------------------------------------------------------------------------
# Building programs: tensor expressions, ops, schedules, IR
# ---------------------------------------------------------------------------


class ExprError(CompilerError):
    """A tensor expression (`compiler.te`) or an op (`compiler.ops`) built wrongly."""


class ExprTypeError(ExprError, TypeError):
    """A value of the wrong kind in a tensor expression: a float index, mixed dtypes..."""


class ExprValueError(ExprError, ValueError):
    """A value out of its domain in a tensor expression or op: a shape, dtype, axis..."""


class ExprIndexError(ExprError, IndexError):
    """A tensor indexed with a number of indices other than its rank."""


class ScheduleError(CompilerError, ValueError):
    """An invalid schedule primitive: an axis of another stage, a split axis used again,
    a reduce axis made parallel, an attachment cycle..."""


class ScheduleTypeError(ScheduleError, TypeError):
    """A schedule primitive given a value of the wrong kind (a tensor for a stage, a
    number for an axis)."""


class OptionError(CompilerError, ValueError):
    """An option that means nothing: an unknown pipeline stage, split mode..."""


class IRError(CompilerError, ValueError):
    """IR that breaks an invariant of its dialect, or that a pass cannot handle."""


# ---------------------------------------------------------------------------
# Calling compiled functions
# ---------------------------------------------------------------------------


class ArgumentError(CompilerError):
    """A compiled function was called with arguments it cannot bind (the message names
    the function, the argument, the field and the values)."""


class ArgumentTypeError(ArgumentError, TypeError):
    """The wrong number of arguments, a wrong dtype, or an argument that is no array."""


class ArgumentValueError(ArgumentError, ValueError):
    """A shape, stride, device, alignment or aliasing check of an argument failed."""


class ReadOnlyOutputError(ArgumentValueError):
    """An array that must not be written was passed as an output.

    `function` and `argument` name the compiled function and the output.
    """

    def __init__(self, message: str, *, function: str = "", argument: str = ""):
        super().__init__(message)
        self.function = function
        self.argument = argument


class BoundsError(CompilerError, IndexError):
    """A load or store outside its buffer's region (`build(..., check_bounds=True)`)."""


class OutOfMemoryError(CompilerError, MemoryError):
    """A compiled function could not allocate its intermediates (the arena): the sizes the
    call's shapes give are more than the machine can hold."""


class ModuleLoadError(CompilerError, ValueError):
    """A shared library that `compiler.load_module` cannot load as a compiled function."""


class LinkError(CompilerError, RuntimeError):
    """`Function.export_library` could not link a shared library (no C compiler, or it failed),
    or `build` found no function a `te.extern` stage calls."""


# ---------------------------------------------------------------------------
# Internal errors and frontends
# ---------------------------------------------------------------------------


class MemoryPlanError(CompilerError, AssertionError):
    """storage-rewrite placed two buffers that are live at once over the same bytes:
    an internal error (the plan is checked before any code runs)."""


class InternalError(CompilerError, RuntimeError):
    """A state the compiler should never reach: a bug, please report it."""


class UnsupportedOpError(CompilerError, NotImplementedError):
    """An operator of a frontend (an ATen operator in `compiler.torch`) that has no lowering."""
