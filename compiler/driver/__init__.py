"""The Python entry points and what they return, one module each:

* `api`: `lower` and `build` (te tensors and a schedule in, IR or a `Function` out);
* `compile`: `compile_module`, a module through the `default-pipeline` pass;
* `lowered`: its passes up to the flat loop IR, and what the driver reads on the way;
* `function`: `Function`, the compiled function (its IR texts, profiling, export);
* `cache`: the build entries of the on-disk cache (a `Function` without any pass).
"""

from compiler.driver.api import build, compile_built, lower, split_args
from compiler.driver.compile import compile_module
from compiler.driver.function import CompileStats, Function
from compiler.driver.lowered import CompileOptions, dtype_of, specs_of, verify_passes
from compiler.runtime.module import ArgSpec

__all__ = [
    "ArgSpec",
    "CompileOptions",
    "CompileStats",
    "Function",
    "build",
    "compile_built",
    "compile_module",
    "dtype_of",
    "lower",
    "specs_of",
    "split_args",
    "verify_passes",
]
