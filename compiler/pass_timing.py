"""Where compile time goes, pass by pass, and the simplifier query that took the most
of it: the guard of issue 37's compile-time test and `bench/compile_time.py --symbolic`.

```python
with watch_passes() as watch:
    net = compiler.from_torch(model, (x,), dynamic_shapes=...)
print(watch.report())     # the passes, slowest first, and each one's slowest query
```

While the block runs, the `apply` of every registered pass (`compiler.registry`) and the
public queries of `compiler.arith.simplify.Analyzer` (the outermost of a nest of them)
are timed; both are restored when it ends. A pass run inside another (the passes of
`default-pipeline{...}`) counts in both.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PassTimes", "SlowQuery", "watch_passes"]

_QUERIES = ("simplify", "simplify_cond", "const_bounds", "prove_le", "prove_lt", "prove_ge", "prove_gt", "prove_eq")


@dataclass
class SlowQuery:
    """A simplifier query: which, its first argument as text (cut at 400 characters)
    and how long it took."""

    seconds: float
    query: str
    expression: str


@dataclass
class PassTimes:
    """Seconds per pass name, and each pass's slowest simplifier query."""

    seconds: dict[str, float] = field(default_factory=dict)
    slowest: dict[str, SlowQuery] = field(default_factory=dict)
    running: list[str] = field(default_factory=list)

    def slowest_pass(self) -> tuple[str, float] | None:
        if not self.seconds:
            return None
        name = max(self.seconds, key=self.seconds.__getitem__)
        return name, self.seconds[name]

    def report(self, top: int = 5) -> str:
        lines = []
        for name, seconds in sorted(self.seconds.items(), key=lambda kv: -kv[1])[:top]:
            line = f"{name}: {seconds:.2f} s"
            if (q := self.slowest.get(name)) is not None:
                line += f"; its slowest query, {q.query} ({q.seconds:.2f} s): {q.expression}"
            lines.append(line)
        return "\n".join(lines)


@contextmanager
def watch_passes() -> Iterator[PassTimes]:
    """Time every registered pass and the simplifier's queries inside the block."""
    from compiler.arith.simplify import Analyzer
    from compiler.registry import get_all_passes

    times = PassTimes()
    restore: list[tuple[type, str, Any]] = []

    def timed_apply(cls: type, original: Callable[..., None]) -> Callable[..., None]:
        def apply(self: Any, ctx: Any, op: Any) -> None:
            name = getattr(cls, "name", cls.__name__)
            times.running.append(name)
            start = time.perf_counter()
            try:
                original(self, ctx, op)
            finally:
                times.running.pop()
                times.seconds[name] = times.seconds.get(name, 0.0) + time.perf_counter() - start

        return apply

    def timed_query(method_name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def query(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self._in_query or not times.running:
                return original(self, *args, **kwargs)
            start = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                seconds = time.perf_counter() - start
                name = times.running[-1]
                best = times.slowest.get(name)
                if best is None or seconds > best.seconds:
                    text = str(args[0]) if args else ""
                    cut = text if len(text) <= 400 else text[:400] + "..."
                    times.slowest[name] = SlowQuery(seconds, method_name, cut)

        return query

    classes = list(dict.fromkeys(factory() for factory in get_all_passes().values()))
    originals = {cls: cls.apply for cls in classes}  # each its own apply (or its base's)
    for cls, original in originals.items():
        restore.append((cls, "apply", vars(cls).get("apply")))
        setattr(cls, "apply", timed_apply(cls, original))  # noqa: B010  (a method, replaced for the block)
    for method_name in _QUERIES:
        original = getattr(Analyzer, method_name)
        restore.append((Analyzer, method_name, original))
        setattr(Analyzer, method_name, timed_query(method_name, original))
    try:
        yield times
    finally:
        for owner, attr, value in reversed(restore):
            if value is None:
                delattr(owner, attr)
            else:
                setattr(owner, attr, value)
