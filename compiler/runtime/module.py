"""Shared libraries written by `Function.export_library`, and loading them back.

An exported library holds the packed function (make-packed-api's ABI)

    int32_t name(DLTensor **args, int32_t num_args, int64_t *error_values);  // int64_t[6]

the functions it calls, and one data symbol, `__compiler_module_metadata`: a
NUL-terminated JSON object (`ModuleMetadata`) with everything a caller needs
besides the code: the entry point's name, the arguments (name, shape with
symbolic dimensions as strings, dtype, output or not) and the failure table
(code k + 1 is entry k: a message template, the exception's name, the number
of values the check stored in `error_values`).

`load_module(path)` opens the library with ctypes and returns a
`LoadedFunction`, which checks and reports errors exactly like the `Function`
that was exported (`PackedFunction`). It needs neither xDSL nor llvmlite: a
process that only runs exported libraries never imports them.
"""

from __future__ import annotations

import ctypes
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from compiler.errors import ModuleLoadError
from compiler.runtime.packed import ErrorEntry, PackedArg, PackedFunction
from compiler.runtime.threads import NUM_THREADS_SYMBOL
from compiler.runtime.threads import bind as bind_thread_count

METADATA_SYMBOL = "__compiler_module_metadata"
"""The data symbol holding a library's `ModuleMetadata` (JSON, NUL-terminated)."""

FORMAT = "xdsl-tensor-compiler/module-2"
READS = ("xdsl-tensor-compiler/module-1", FORMAT)
"""Formats this loader reads: module-1 libraries report at most 4 error values, and
module-2 ones up to 6 (`packed.MAX_ERROR_VALUES`); a caller passes an array of 6."""
ABI = "int32_t(DLTensor **args, int32_t num_args, int64_t *error_values)"


@dataclass(frozen=True)
class ArgSpec:
    """An argument of a compiled or exported function: its name, shape (symbolic
    dimensions as their text), dtype name, whether the function writes it, and whether
    it takes any strides."""

    name: str
    dims: tuple[int | str, ...]
    dtype: str
    is_output: bool
    strided: bool = False

    def __str__(self) -> str:
        role = "out " if self.is_output else ""
        layout = " strided" if self.strided else ""
        return f"{role}{self.name}: {self.dtype}[{', '.join(map(str, self.dims))}]{layout}"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArgSpec:
        """The spec `asdict` wrote (JSON: the dims as a list)."""
        fields = (data["name"], tuple(data["dims"]), data["dtype"], bool(data["is_output"]))
        return cls(*fields, bool(data.get("strided", False)))


@dataclass
class ModuleMetadata:
    """What `load_module` needs to call an exported function (stored as JSON in the library)."""

    name: str
    args: list[ArgSpec]
    errors: list[ErrorEntry]
    compiler_version: str = "unknown"
    target: dict[str, str] = field(default_factory=dict)
    openmp: bool = False

    def to_json(self) -> str:
        data = {"format": FORMAT, "abi": ABI, **asdict(self)}
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> ModuleMetadata:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") not in READS:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ModuleLoadError(f"unknown metadata format {found!r} (this loader reads {', '.join(map(repr, READS))})")
        return cls(
            name=data["name"],
            args=[ArgSpec.from_dict(a) for a in data["args"]],
            errors=[ErrorEntry(e["message"], e["error"], int(e["n_values"])) for e in data["errors"]],
            compiler_version=data.get("compiler_version", "unknown"),
            target=dict(data.get("target", {})),
            openmp=bool(data.get("openmp", False)),
        )


class LoadedFunction:
    """An exported function loaded from its shared library: call it like the `Function`
    it was exported from (arrays in call order, outputs written in place)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.path.abspath(os.fspath(path))
        if not os.path.exists(self.path):
            raise FileNotFoundError(f"load_module: no such file: {self.path}")
        self._library = ctypes.CDLL(self.path)
        self.metadata = read_metadata(self._library, self.path)
        try:  # the parallel loops' thread count (compiler.set_num_threads); none without them
            count = ctypes.c_int32.in_dll(self._library, NUM_THREADS_SYMBOL)
        except ValueError:
            pass
        else:
            bind_thread_count(self, ctypes.addressof(count))
        self.name = self.metadata.name
        self.specs = list(self.metadata.args)
        try:
            address = ctypes.cast(getattr(self._library, self.name), ctypes.c_void_p).value
        except AttributeError:
            raise ModuleLoadError(f"{self.path}: no function {self.name!r} in the library") from None
        assert address is not None
        args = [PackedArg(a.name, a.dtype, a.is_output) for a in self.specs]
        self._packed = PackedFunction(self.name, address, args, self.metadata.errors)

    def __call__(self, *arrays: Any) -> None:
        """Run on NumPy arrays, DLPack tensors or `RawTensor`s; outputs are written in place."""
        self._packed(*arrays)

    def __repr__(self) -> str:
        args = ", ".join(map(str, self.specs))
        return f"<LoadedFunction {self.name}({args}) from {self.path}>"


def read_metadata(library: ctypes.CDLL, path: str = "") -> ModuleMetadata:
    """The `ModuleMetadata` embedded in a loaded library."""
    try:
        start = ctypes.c_char.in_dll(library, METADATA_SYMBOL)
    except ValueError:
        raise ModuleLoadError(
            f"{path or library}: not a library written by export_library (no {METADATA_SYMBOL})"
        ) from None
    return ModuleMetadata.from_json(ctypes.string_at(ctypes.addressof(start)).decode())


def load_module(path: str | os.PathLike[str]) -> LoadedFunction:
    """Load a shared library written by `Function.export_library` (ctypes; no xDSL, no LLVM).

    The `LoadedFunction` takes the same arguments as the exported `Function` and runs
    the same checks; a library that `export_library` did not write is a `ModuleLoadError`.

    >>> f = compiler.build([A, B], name="scale")        # doctest: +SKIP
    >>> f.export_library("scale.so")                    # doctest: +SKIP
    >>> g = compiler.load_module("scale.so")            # doctest: +SKIP
    >>> g(a, b)                                         # doctest: +SKIP
    """
    return LoadedFunction(path)
