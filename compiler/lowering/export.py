"""`Function.export_library`: a compiled function as a shared library, linked by `cc`.

The library is the program's objects and a metadata object, linked with the system C
compiler (`$CC`, else `cc`, `gcc` or `clang`; `cc -shared -Wl,-Bsymbolic`):

* the program, compiled position-independent (`JitModule.shared_object`, through
  the object cache like the JIT's object): the packed entry point, its compute
  functions and the outlined parallel bodies (one object a function when LLVM ran in
  worker processes: `llvm_pool`);
* a data object holding `__compiler_module_metadata`, the JSON that
  `compiler.load_module` reads back (`compiler/runtime/module.py`).

Its undefined symbols are resolved when it is loaded: `aligned_alloc`, `free`
and the math functions from libc and libm, `GOMP_parallel` and
`omp_get_thread_num`/`omp_get_num_threads` from libgomp (linked with `-lgomp`
when the program uses them). `-Bsymbolic` binds the library's calls to its
own functions, so an executable defining a function of the same name (a C
program's `main`) does not capture them. The code is compiled for this
machine's CPU (its features), like the JIT's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir

from compiler.errors import LinkError
from compiler.lowering.jit import (
    JitModule,
    target_description,
    target_machine,
    unpack_objects,
    uses_openmp,
)
from compiler.lowering.object_cache import DISTRIBUTION, versions
from compiler.runtime.module import METADATA_SYMBOL, ModuleMetadata


class LinkerNotFoundError(LinkError):
    """No C compiler to link a shared library with."""


def c_compiler() -> list[str]:
    """The command that links: `$CC` (split like a shell would), else cc, gcc or clang on PATH."""
    from_env = os.environ.get("CC", "").strip()
    if from_env:
        return shlex.split(from_env)
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return [found]
    raise LinkerNotFoundError(
        "export_library needs a C compiler to link the shared library: none of cc, gcc, clang "
        "is on PATH (install one, e.g. `apt-get install gcc`, or set $CC)"
    )


def metadata_object(metadata: ModuleMetadata) -> bytes:
    """A position-independent object defining `__compiler_module_metadata` (JSON, NUL-terminated)."""
    tm = target_machine(pic=True)
    data = bytearray(metadata.to_json().encode() + b"\x00")
    module = ir.Module(name="compiler_module_metadata")
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    array = ir.ArrayType(ir.IntType(8), len(data))
    symbol = ir.GlobalVariable(module, array, METADATA_SYMBOL)
    symbol.global_constant = True
    symbol.initializer = ir.Constant(array, data)
    obj: bytes = tm.emit_object(llvm.parse_assembly(str(module)))  # llvmlite is untyped
    return obj


def export_library(
    jit: JitModule, path: str | os.PathLike[str], metadata: ModuleMetadata, *, cache: bool | None = None
) -> Path:
    """Link `jit`'s program and its metadata into the shared library `path` (replaced atomically)."""
    target = Path(path).resolve()
    linker = c_compiler()
    program = jit.shared_object(cache=cache)
    openmp = uses_openmp(program)
    metadata = replace(
        metadata,
        compiler_version=versions()[DISTRIBUTION],
        target=target_description(jit.opt),
        openmp=openmp,
    )
    libraries = ["-lgomp"] if openmp else []
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="export-") as tmp:
        parts = [*unpack_objects(program), metadata_object(metadata)]  # one object a function from workers
        objects = [Path(tmp) / f"part{k}.o" for k in range(len(parts))]
        for path, part in zip(objects, parts, strict=True):
            path.write_bytes(part)
        fd, partial = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".tmp", dir=target.parent)
        os.close(fd)
        try:
            command = [
                *linker, "-shared", "-o", partial, *map(str, objects),
                "-Wl,-Bsymbolic", *libraries, "-lm",
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise LinkError(
                    f"export_library: linking {target.name} failed (status {done.returncode}):\n"
                    f"$ {shlex.join(command)}\n{done.stderr.strip()}"
                )
            os.chmod(partial, 0o755)
            os.replace(partial, target)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
    return target
