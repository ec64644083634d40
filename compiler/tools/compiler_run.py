"""compiler-run: compile a function of a .mlir file, run it, print its outputs.

    compiler-run FILE [--entry NAME] [--dim n=16 ...] [--init random|arange|ones] [--seed 0]
                 [--no-check-bounds]
    compiler-run --version

The input holds a `te.func` or a `loop.func`; the default pipeline lowers
it and the JIT compiles it. Inputs are filled deterministically (`arange`
by default, or seeded random numbers), outputs start as zeros, and every
output is printed as `NAME = [...]` for lit/FileCheck tests of execution.

A testing tool, it checks every load and store against its buffer at run time
(`insert-bound-checks`): an out-of-range access in hand-written loop IR ends
with `compiler-run: error: BoundsError: ...` naming the buffer and the index,
not with a crash; `--no-check-bounds` compiles without the checks (the code
`build()` makes by default). Arguments whose `--dim` sizes need more memory
than the host has available now (`compiler.runtime.host.host_available_memory`)
are refused before anything is allocated.

Errors: a bad input is a located diagnostic (`file:line:col: error: ...`, status
1); a bad command line or an error of the run (a failed argument check, an
access out of bounds) is `compiler-run: error: ...` (status 1; for an error of the run, the message
starts with its class, `BoundsError: ...`); anything
else is an `internal error` (status 2; COMPILER_TRACEBACK=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from compiler.errors import ArgumentValueError, CompilerError
from compiler.tools.exits import internal_error
from compiler.tools.version import add_version_argument

if TYPE_CHECKING:
    import numpy as np

    from compiler.runtime.module import ArgSpec


class RunError(ArgumentValueError):
    """A command line compiler-run cannot run: a --dim that is missing or malformed, a
    size out of range or too large for the host's memory."""


def _parse_dims(items: Sequence[str]) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not value.lstrip("-").isdigit():
            raise RunError(f"--dim expects NAME=INT, got '{item}'")
        dims[name] = int(value)
    return dims


def _shape(dims: Sequence[int | str], env: dict[str, int], arg: str) -> tuple[int, ...]:
    from compiler.arith.expr import evaluate, free_vars
    from compiler.arith.parse import parse_expr

    shape: list[int] = []
    for d in dims:
        if isinstance(d, int):
            shape.append(d)
            continue
        e = parse_expr(d)
        missing = sorted(free_vars(e) - env.keys())
        if missing:
            raise RunError(f"{arg} has the symbolic dimension '{d}': give --dim {missing[0]}=N")
        try:
            shape.append(evaluate(e, env))
        except ZeroDivisionError:
            raise RunError(f"{arg} has the dimension '{d}', a division by zero at these --dim values") from None
    if any(n < 0 for n in shape):
        raise RunError(f"{arg} would have the negative shape {tuple(shape)} (its dimensions are {list(dims)})")
    return tuple(shape)


def _check_dims_known(env: dict[str, int], specs: Sequence[ArgSpec], entry: str) -> None:
    """Every --dim names a symbolic dimension of the entry's arguments: a misspelt or
    stale name would otherwise be ignored, and the run fail on something else."""
    from compiler.arith.expr import free_vars
    from compiler.arith.parse import parse_expr

    known: set[str] = set()
    for spec in specs:
        for d in spec.dims:
            if isinstance(d, str):
                known |= free_vars(parse_expr(d))
    if unknown := [name for name in env if name not in known]:
        has = f"its dimensions are {', '.join(sorted(known))}" if known else "it has none"
        raise RunError(f"--dim {unknown[0]}={env[unknown[0]]}: @{entry} has no symbolic dimension '{unknown[0]}' ({has})")


def _arena_bytes(arena: str, env: dict[str, int]) -> int:
    """The size of the function's arena (storage-rewrite's plan, an expression over the
    shape variables) at these dimensions; 0 when it does not evaluate."""
    from compiler.arith.expr import evaluate, free_vars
    from compiler.arith.parse import parse_expr

    e = parse_expr(arena)
    return evaluate(e, env) if free_vars(e) <= env.keys() else 0


def _check_memory(shapes: Sequence[tuple[tuple[int, ...], str, str]], arena: int) -> None:
    """Refuse arguments (shape, dtype, name) and an arena of intermediates that need more
    bytes than the host has free: the compiled function would find no memory for them."""
    import numpy as np

    from compiler.runtime.bfloat16 import numpy_dtype
    from compiler.runtime.host import host_available_memory

    sizes = [(name, int(np.prod(shape, dtype=object)) * numpy_dtype(dtype).itemsize) for shape, dtype, name in shapes]
    sizes.append(("the intermediates", arena))
    total = sum(size for _, size in sizes)
    available = host_available_memory()
    if available is not None and total > available:
        largest = max(sizes, key=lambda s: s[1])
        raise RunError(
            f"the arguments and intermediates need {total} bytes ({largest[0]}: {largest[1]}), more than the "
            f"{available} bytes of memory available: choose smaller --dim values"
        )


def _fill(shape: tuple[int, ...], dtype: str, init: str, rng: np.random.Generator) -> np.ndarray:
    import numpy as np

    size = int(np.prod(shape))
    data: np.ndarray
    if init == "ones":
        data = np.ones(size)
    elif init == "random":
        data = rng.uniform(-1.0, 1.0, size) if "float" in dtype else rng.integers(-8, 8, size)
    else:
        data = np.arange(size)
    if dtype == "bfloat16":  # NumPy has no bf16: its bits (`_as_argument` passes them as bf16)
        from compiler.runtime.bfloat16 import to_bf16_bits

        return to_bf16_bits(data).reshape(shape)
    return data.astype(dtype).reshape(shape)


def _as_argument(array: np.ndarray, dtype: str) -> Any:
    """What the compiled function takes for `array`: a bf16 DLTensor over the bits of a
    bfloat16 argument, else the array."""
    if dtype != "bfloat16":
        return array
    from compiler.runtime.dlpack import KDL_BFLOAT, RawTensor, pack_dtype

    return RawTensor(data=array.ctypes.data, shape=array.shape, dtype=pack_dtype(KDL_BFLOAT, 16))


def _printable(array: np.ndarray, dtype: str) -> np.ndarray:
    from compiler.runtime.bfloat16 import from_bf16_bits

    return from_bf16_bits(array) if dtype == "bfloat16" else array


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compiler-run", description=__doc__.split("\n")[0])
    parser.add_argument("file", help="a .mlir file, or - for standard input")
    parser.add_argument("--entry", help="function to run (default: the first one)")
    parser.add_argument("--dim", action="append", default=[], help="bind a symbolic dimension, NAME=INT")
    parser.add_argument("--init", choices=["arange", "random", "ones"], default="arange")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--check-bounds",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="check every load and store against its buffer at run time (default: on)",
    )
    add_version_argument(parser, "compiler-run")
    args = parser.parse_args(argv)

    import numpy as np
    from xdsl.dialects.builtin import StringAttr

    from compiler.context import make_context
    from compiler.driver import compile_module
    from compiler.runtime.bfloat16 import numpy_dtype
    from compiler.tools.compiler_opt import LocatedParser, verify_located

    if args.file == "-":  # standard input, as for compiler-opt
        text, name = sys.stdin.read(), "stdin"
    else:
        with open(args.file) as f:
            text, name = f.read(), args.file
    module = LocatedParser(make_context(), text, name).parse_module()
    verify_located(module)
    # a nested builtin.module has an optional sym_name, None when unnamed (make fuzz seed 89)
    names = [n.data for op in module.ops if isinstance(n := getattr(op, "sym_name", None), StringAttr)]
    if not names:
        raise RunError(f"{args.file} defines no function at its top level")
    entry = args.entry or names[0]
    env = _parse_dims(args.dim)
    fn = compile_module(module, entry, check_bounds=args.check_bounds)
    _check_dims_known(env, fn.specs, entry)
    rng = np.random.default_rng(args.seed)
    shapes = [(_shape(spec.dims, env, spec.name), spec.dtype, spec.name) for spec in fn.specs]
    _check_memory(shapes, 0 if fn.memory is None else _arena_bytes(fn.memory.arena, env))
    arrays = []
    for spec, (shape, _, _) in zip(fn.specs, shapes, strict=True):
        try:
            arrays.append(
                np.zeros(shape, numpy_dtype(spec.dtype)) if spec.is_output else _fill(shape, spec.dtype, args.init, rng)
            )
        except ValueError as err:  # NumPy: a shape whose extents multiply past 64 bits, even with a 0
            raise RunError(f"{spec.name} of shape {shape} cannot be allocated: {err}") from None
    fn(*(_as_argument(a, spec.dtype) for a, spec in zip(arrays, fn.specs, strict=True)))
    np.set_printoptions(threshold=sys.maxsize, linewidth=120, precision=6, suppress=True)
    for spec, a in zip(fn.specs, arrays, strict=True):
        if spec.is_output:
            print(f"{spec.name} = {np.array2string(_printable(a, spec.dtype), separator=', ')}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    try:
        status = run(argv)
        sys.stdout.flush()  # here, where a closed pipe can still be handled
        return status
    except BrokenPipeError:
        from compiler.tools.exits import exit_on_broken_pipe

        return exit_on_broken_pipe()
    except (ParseError, DiagnosticException) as err:  # located: the input is wrong
        print(err, file=sys.stderr)
    except (CompilerError, MemoryError) as err:  # the command line, or the run, is wrong
        if os.environ.get("COMPILER_TRACEBACK"):
            raise
        kind = "" if isinstance(err, RunError) else f"{type(err).__name__}: "  # the run's errors
        print(f"compiler-run: error: {kind}{err}", file=sys.stderr)
    except OSError as err:  # the input file
        print(f"compiler-run: error: {err.strerror}: {err.filename}", file=sys.stderr)
    except Exception as err:
        return internal_error(err)
    return 1


if __name__ == "__main__":
    sys.exit(main())
