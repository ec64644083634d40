"""The first level of `compiler.build`'s cache: entries keyed by the Python program itself.

`build([A, B, C])` computes the key of its program before it emits any IR: the
canonical text of the tensor-expression graph and the schedule
(`compiler.te.fingerprint`), the function's name, every option of `build`, the
target (triple, CPU, features, LLVM, OpenMP, as for objects), the host facts the
auto-scheduler reads (vector width, cores, cache sizes: `runtime.host.host_facts`),
and the versions of this package, xDSL and llvmlite with a digest of the package's
sources (`object_cache.cache_key`). An entry (in the cache's `graphs/` folder; the
entries keyed by the te module's text are in `builds/`) holds what the compiled
function needs besides its code (argument specs, failure table, memory plan), the
key of its object and the extern functions it calls. A hit loads the object with
llvmlite's bindings and calls it through ctypes: it imports neither xDSL nor any
pass, and emits no IR. The IR texts of such a function (`loop_ir`, `flat_ir`, ...) and its profiling variant
are made from the program when first asked for.

A program that is not keyable so (`Unkeyable`: it holds something the text cannot
write) and a build that reads a tuning log go through the te module's key as
before (`build.py`'s `_build_key`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compiler.te.fingerprint import Unkeyable, fingerprint

if TYPE_CHECKING:
    from compiler.te import Tensor
    from compiler.te.schedule import Schedule

KIND = "te-graph"
"""The key's kind (`object_cache.cache_key`): no key of another level can equal one of these."""


@dataclass(frozen=True)
class GraphKey:
    key: str
    externs: tuple[str, ...]


def graph_key(
    tensors: Sequence[Tensor], schedule: Schedule | None, name: str, options: dict[str, Any]
) -> GraphKey | None:
    """The key of `build(schedule, tensors, name=name, **options)`, or None when the program
    cannot be keyed without its IR (`compiler.te.fingerprint.Unkeyable`)."""
    from compiler.lowering.engine import target_description
    from compiler.lowering.object_cache import cache_key
    from compiler.runtime.host import host_facts

    roots: list[object] = [list(tensors)]
    if schedule is not None:
        roots.append(schedule)
    try:
        printed = fingerprint(roots)
    except Unkeyable:
        return None
    target = {
        **target_description(),
        **host_facts(),
        "function": name,
        "scheduled": str(schedule is not None),
        "options": json.dumps(options, sort_keys=True),
    }
    return GraphKey(cache_key(printed.text, kind=KIND, target=target), tuple(printed.externs))


def read(key: GraphKey) -> bytes | None:
    """The build entry stored under `key` (`compiler.build`'s `_BuildEntry` as JSON), the
    extern functions it calls found; None when there is none or it is unusable (warns)."""
    from compiler.lowering.object_cache import graph_cache

    payload = graph_cache().load(key.key)
    if payload is None:
        return None
    try:
        externs = json.loads(payload)["externs"]
    except (ValueError, KeyError, TypeError) as err:
        unreadable(key, err)
        return None
    if externs != list(key.externs):
        unreadable(key, ValueError(f"the entry calls {externs}, the program {list(key.externs)}"))
        return None
    if key.externs:
        from compiler.runtime.externs import resolve_externs

        resolve_externs(key.externs)
    return payload


def unreadable(key: GraphKey, err: Exception) -> None:
    from compiler.lowering.object_cache import CacheWarning, graph_cache

    warnings.warn(
        f"compiler cache: {graph_cache().path(key.key)} is unreadable ({type(err).__name__}: {err}); compiling again",
        CacheWarning,
        stacklevel=4,
    )


def write(key: GraphKey, entry: bytes) -> None:
    """Store a build entry (JSON) under `key`, with the extern functions the program calls."""
    from compiler.lowering.object_cache import graph_cache

    data = json.loads(entry)
    data["externs"] = list(key.externs)
    graph_cache().store(key.key, json.dumps(data, sort_keys=True).encode())
