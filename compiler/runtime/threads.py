"""How many threads a parallel loop forks: `compiler.set_num_threads` / `get_num_threads`.

Every compiled module with parallel loops holds an `int32` global (`NUM_THREADS_SYMBOL`)
that each `GOMP_parallel` call reads as its thread count. The loader (the JIT engine,
`compiler.load_module`) binds it here and writes the current count into it, and
`set_num_threads` rewrites it in every module still alive.

Why not leave the count to OpenMP (`GOMP_parallel(fn, data, 0, 0)`: its default)? The
default is a process-wide setting of libgomp, and PyTorch shares that libgomp (the same
soname, loaded once): `torch.set_num_threads(1)` made every parallel loop of ours run on
one thread. The count is ours to choose: `set_num_threads(n)`, else the environment
(`COMPILER_NUM_THREADS`, then `OMP_NUM_THREADS`'s first value), else the cores this
process may run on.
"""

from __future__ import annotations

import ctypes
import os
import weakref
from collections.abc import Callable

from compiler.errors import OptionError
from compiler.runtime.host import host_cores

NUM_THREADS_SYMBOL = "compiler_num_threads"
"""The global each parallel call reads its thread count from (0: OpenMP's default)."""

_chosen: int | None = None
_slots: list[tuple[Callable[[], object | None], ctypes.c_int32]] = []


def _from_environment() -> int | None:
    for name in ("COMPILER_NUM_THREADS", "OMP_NUM_THREADS"):
        text = os.environ.get(name, "").split(",")[0].strip()
        if text.isdigit() and int(text) > 0:
            return int(text)
    return None


def get_num_threads() -> int:
    """The threads a parallel loop forks (`set_num_threads`, else `COMPILER_NUM_THREADS`,
    else `OMP_NUM_THREADS`, else the cores this process may run on)."""
    if _chosen is not None:
        return _chosen
    return _from_environment() or host_cores()


def set_num_threads(n: int | None) -> None:
    """Fork `n` threads in every parallel loop from now on, in the functions compiled or
    loaded already too; `None` goes back to the environment's or the host's count."""
    global _chosen
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise OptionError(f"set_num_threads: expected a positive int or None, got {n!r}")
    _chosen = n
    _write_all()


def bind(owner: object, address: int) -> None:
    """The thread-count global of a loaded module, at `address`, alive as long as `owner`
    (its engine or library handle): set now and on every `set_num_threads`."""
    slot = ctypes.c_int32.from_address(address)
    slot.value = get_num_threads()
    _slots.append((weakref.ref(owner), slot))


def _write_all() -> None:
    count = get_num_threads()
    kept = []
    for owner, slot in _slots:
        module = owner()  # a strong reference while writing: its memory stays mapped
        if module is not None:
            slot.value = count
            kept.append((owner, slot))
        del module
    _slots[:] = kept
