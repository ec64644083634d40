"""The functions `te.extern` stages call: found by name when a program is built.

A callee is, in this order: a function given to `register_extern` (a ctypes
function pointer, such as a `ctypes.CFUNCTYPE` of a Python function, or an
address), or a symbol of the process (libc, libm, any library loaded with
`ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)`). The JIT (MCJIT) resolves calls
through LLVM's symbol table only, so a symbol found in the process is added to
it; a name found nowhere is a `LinkError` at build time (MCJIT would abort the
process when loading the code).
"""

from __future__ import annotations

import ctypes
from _ctypes import CFuncPtr
from collections.abc import Iterable
from functools import cache

from compiler.errors import ExprTypeError, LinkError

_registered: dict[str, int] = {}
_alive: list[object] = []  # every registered function: code loaded earlier may still call it


def register_extern(name: str, function: CFuncPtr | int) -> None:
    """Make `function` the callee `name` of `te.call_extern` in the programs built from now
    on (and re-registering a name: in those only). `function` is a ctypes function
    pointer (`ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_float), ...)(py_function)`,
    a function of a `ctypes.CDLL`) or an address; it is kept alive for the process."""
    import llvmlite.binding as llvm

    if not isinstance(name, str) or not name.isidentifier():
        raise ExprTypeError(f"register_extern: the name must be a C identifier, got {name!r}")
    if isinstance(function, int) and not isinstance(function, bool):
        address = function
    elif isinstance(function, CFuncPtr):  # the base of ctypes' function pointers
        address = ctypes.cast(function, ctypes.c_void_p).value or 0
    else:
        raise ExprTypeError(
            f"register_extern {name}: expected a ctypes function pointer (ctypes.CFUNCTYPE(...)(f)) "
            f"or an address, got {type(function).__name__}"
        )
    if address == 0:
        raise ExprTypeError(f"register_extern {name}: the function's address is NULL")
    _alive.append(function)
    _registered[name] = address
    llvm.add_symbol(name, address)


def resolve_externs(names: Iterable[str]) -> None:
    """Make every callee in `names` known to the JIT, or raise a LinkError naming those
    that are nowhere."""
    missing = sorted({n for n in names if _resolve(n) is None})
    if missing:
        listed = ", ".join(missing)
        raise LinkError(
            f"te.extern: no function {listed} to call: register it with compiler.register_extern"
            f"(\"{missing[0]}\", ctypes_function) or load a library that defines it "
            "(ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL))"
        )


def _resolve(name: str) -> int | None:
    import llvmlite.binding as llvm

    if name in _registered:
        return _registered[name]
    try:
        function = getattr(_process(), name)
    except AttributeError:
        return None
    address = ctypes.cast(function, ctypes.c_void_p).value
    if address:
        llvm.add_symbol(name, address)  # MCJIT looks names up in LLVM's table, not in the process
    return address


@cache
def _process() -> ctypes.CDLL:
    """The process's global symbols (dlopen(NULL))."""
    return ctypes.CDLL(None)
