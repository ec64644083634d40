"""The build entries of the on-disk cache: a `Function` without running any pass.

Two levels (`compiler.lowering.object_cache`, `compiler.graph_cache`): an entry keyed
by the module `compile_module` receives, and one keyed by the Python program `build`
receives, before any IR is emitted. Both hold a `BuildEntry`: what the function needs
besides its object code, and the object's key.
"""

from __future__ import annotations

import functools
import json
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from compiler.driver.function import CompileStats, Function, llvm_lowering, toolchain
from compiler.driver.lowered import CompileOptions, Lowered, lower_to_flat
from compiler.runtime.module import ArgSpec

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from compiler.analysis.memory_summary import MemorySummary
    from compiler.graph_cache import GraphKey
    from compiler.passes.instrument_stages import NestRecord
    from compiler.runtime.packed import ErrorEntry


@dataclass
class BuildEntry:
    """What a compiled function needs besides its object code, and the object's key."""

    object_key: str
    specs: list[ArgSpec]
    errors: list[ErrorEntry]
    memory: MemorySummary | None
    stages: list[NestRecord] | None = None

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "object": self.object_key,
                "specs": [asdict(s) for s in self.specs],
                "errors": [asdict(e) for e in self.errors],
                "memory": None if self.memory is None else self.memory.as_dict(),
                "stages": None if self.stages is None else [asdict(r) for r in self.stages],
            },
            sort_keys=True,
        ).encode()

    @classmethod
    def from_json(cls, payload: bytes) -> BuildEntry:
        from compiler.analysis.memory_summary import MemorySummary
        from compiler.runtime.packed import ErrorEntry

        data = json.loads(payload)
        specs = [ArgSpec.from_dict(s) for s in data["specs"]]
        errors = [ErrorEntry(**e) for e in data["errors"]]
        memory = None if data["memory"] is None else MemorySummary.from_dict(data["memory"])
        stages = None
        if data.get("stages") is not None:
            from compiler.passes.instrument_stages import NestRecord

            stages = [NestRecord.from_json(r) for r in data["stages"]]
        return cls(str(data["object"]), specs, errors, memory, stages)


def build_key(text: str, name: str, options: CompileOptions) -> str:
    """The build entry's key: the module's text, the function, the options, the target (as
    for objects) and the host facts the auto-scheduler reads."""
    from compiler.lowering.engine import target_description
    from compiler.lowering.object_cache import cache_key
    from compiler.runtime.host import host_facts

    target = {
        **target_description(),
        **host_facts(),
        "function": name,
        "options": json.dumps(asdict(options), sort_keys=True),
    }
    return cache_key(text, kind="build", target=target)


def load_build(
    key: str,
    module: ModuleOp,
    name: str,
    options: CompileOptions,
    stats: CompileStats,
    cache: bool | None,
    start: float,
) -> Function | None:
    """The function of the build entry `key` (no pass runs), or None: no entry, or an
    unusable one (warns), or its object is gone."""
    from compiler.lowering.object_cache import CacheWarning, build_cache

    store = build_cache()

    def unreadable(err: Exception) -> None:
        warnings.warn(  # stacklevel: the caller of compile_module
            f"compiler cache: {store.path(key)} is unreadable ({type(err).__name__}: {err}); compiling again",
            CacheWarning,
            stacklevel=6,
        )

    entry = _read_entry(store.load(key), unreadable)
    if entry is None:
        return None
    # the passes, on a copy of the module as given, only when an IR text is read
    lowered = functools.cache(lambda: lower_to_flat(module.clone(), name, options))
    return _function_of_entry(entry, key, name, lowered, options, stats, cache, start)


def _read_entry(payload: bytes | None, unreadable: Callable[[Exception], None]) -> BuildEntry | None:
    """The entry `payload` holds; None without one, or (after `unreadable`) for a damaged one."""
    if payload is None:
        return None
    try:
        return BuildEntry.from_json(payload)
    except (ValueError, KeyError, TypeError) as err:
        unreadable(err)
        return None


def _function_of_entry(
    entry: BuildEntry,
    key: str,
    name: str,
    lowered: Callable[[], Lowered],
    options: CompileOptions,
    stats: CompileStats,
    cache: bool | None,
    start: float,
) -> Function | None:
    """The function of a build entry whose object is loaded from the cache (None: it is gone);
    `lowered` runs the passes when an IR text is read."""
    from compiler.lowering.engine import load_cached

    stats.seconds["passes"] = time.perf_counter() - start
    start = time.perf_counter()
    lower_to_llvm, program = llvm_lowering(lowered, options, key)
    jit = load_cached(entry.object_key, lower_to_llvm, program, toolchain=toolchain, cache=cache)
    if jit is None:
        return None
    stats.seconds["llvm"] = time.perf_counter() - start
    return Function.restored(
        name, jit, stats, lowered, specs=entry.specs, errors=entry.errors, memory=entry.memory, stages=entry.stages
    )


def load_graph(
    graph: GraphKey, name: str, options: dict[str, Any], made: Callable[[], tuple[ModuleOp, CompileOptions]], start: float
) -> Function | None:
    """`build`'s function from the entry keyed by the Python program (`compiler.graph_cache`),
    or None; `made` emits the program (once) when an IR text is asked for."""
    from compiler import graph_cache

    entry = _read_entry(graph_cache.read(graph), lambda err: graph_cache.unreadable(graph, err))
    if entry is None:
        return None

    def lowered() -> Lowered:
        module, built = made()
        return lower_to_flat(module.clone(), name, built)

    llvm_options = CompileOptions(**options)  # the pipeline's: what the llvm stage reads
    return _function_of_entry(entry, graph.key, name, functools.cache(lowered), llvm_options, CompileStats(), None, start)


def store_build(key: str, fn: Function) -> None:
    from compiler.lowering.object_cache import build_cache

    build_cache().store(key, entry_of(fn).to_json())


def entry_of(fn: Function) -> BuildEntry:
    from compiler.lowering.engine import object_key

    return BuildEntry(object_key(fn._jit.program, opt=fn._jit.opt), fn.specs, fn._errors, fn.memory, fn._stages)
