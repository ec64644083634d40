"""`compiler.tune`: measure schedules around the auto-scheduler's, log the best.

```python
result = compiler.tune([A, B, C], trials=40, timeout=300, log="tune.jsonl")
f = compiler.build([A, B, C], tuning_log="tune.jsonl")   # or COMPILER_TUNING_LOG=tune.jsonl
```

The candidates vary the auto-scheduler's plan (`compiler.auto_schedule`)
stage by stage: the vector tile (one to four vectors, or the whole axis), the
unrolled rows, the blocking of the reduction, the order of the outer tiles,
how many outer loops are fused for the cores, parallel or serial, unrolled
reduce loops, and inline or not for intermediate stages. The first candidate
is the auto-scheduler's own. Each is compiled through the JIT and timed on
random inputs (the median of `repeats` calls after a warm-up call); its output
is compared with the first candidate's, so a wrong schedule can't win. The
search stops after `trials` candidates or `timeout` seconds; Ctrl-C stops it
too and keeps what was found. The best schedule (its `sched` IR) is appended
to the log under the workload key (`compiler.tuning_log`).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from compiler import te as T
from compiler.analysis.target import Target, host_target
from compiler.auto_schedule import (
    StagePlan,
    emit_plans,
    plan_function,
    plan_injective,
    stage_info,
)
from compiler.dialects import sched
from compiler.driver import Function, compile_built, split_args
from compiler.driver.api import compiled_program
from compiler.errors import OptionError
from compiler.schedule.model import ScheduleModel, schedule_of
from compiler.te.schedule import Schedule
from compiler.te.to_ir import build_module
from compiler.tuning_log import append_record, function_of, workload_key


@dataclass
class TuneResult:
    """What `compiler.tune` found for one workload (`key`): the best time and schedule
    among `trials` candidates, against the auto-scheduler's (`baseline_ms`)."""

    key: str
    best_ms: float | None  # None: no candidate ran
    baseline_ms: float | None  # the auto-scheduler's schedule
    schedule: str | None  # the best `sched.schedule`, as IR text
    trials: int
    seconds: float
    interrupted: bool = False

    @property
    def speedup(self) -> float | None:
        if self.best_ms is None or self.baseline_ms is None:
            return None
        return self.baseline_ms / self.best_ms


# ---------------------------------------------------------------------------
# Candidates
# ---------------------------------------------------------------------------


def _variants(plan: StagePlan, extents: Sequence[int | None], reduce: Sequence[int | None], lanes: int,
              root: StagePlan | None) -> list[StagePlan]:
    """The single-choice changes of one stage's plan."""
    if plan.action == "keep":
        return []
    if plan.action == "inline":
        return [root] if root is not None else []
    out: list[StagePlan] = []
    if root is not None and root.action == "inline":
        out.append(root)
    if plan.vector_axis is not None:
        e = extents[plan.vector_axis]
        for vf in (lanes, 2 * lanes, 3 * lanes, 4 * lanes, 8 * lanes, None):
            if vf != plan.vector_factor and (vf is None or e is None or vf < e):
                out.append(replace(plan, vector_factor=vf))
    if plan.unroll_axis is not None:
        e = extents[plan.unroll_axis]
        for uf in (1, 2, 3, 4, 6, 8, 12, 16):
            if uf != plan.unroll_factor and (e is None or uf <= e):
                out.append(replace(plan, unroll_factor=uf))
    elif plan.vector_axis is not None and reduce:
        for a, e in enumerate(extents):
            if a != plan.vector_axis and (e is None or e > 1):
                out.extend(replace(plan, unroll_axis=a, unroll_factor=uf) for uf in (2, 4, 8))
    if reduce and reduce[0] is not None and plan.vector_axis is not None:
        for kc in (None, 32, 64, 128, 256, 512):
            if kc != plan.reduce_split and (kc is None or kc < reduce[0]):
                out.append(replace(plan, reduce_split=kc))
    out.append(replace(plan, vector_first=not plan.vector_first))
    out.append(replace(plan, parallel=not plan.parallel))
    out.extend(replace(plan, min_parallel=m) for m in (1, 2, 8, 32) if m != plan.min_parallel)
    if reduce:
        out.append(replace(plan, unroll_reduce=not plan.unroll_reduce))
    return out


class Candidates:
    """The auto plan first, then random combinations of single-stage changes."""

    def __init__(self, model: ScheduleModel, base: list[StagePlan], target: Target, seed: int):
        self.base = base
        self.rng = random.Random(seed)
        self.options: list[list[StagePlan]] = []
        for plan in base:
            stage = model.stages[plan.stage]
            info = stage_info(model, stage)
            lanes = target.lanes(info.element_bits)
            root = None
            if plan.action == "inline":
                root = plan_injective(info, target)
            elif plan.action == "root" and not info.reduce_extents and not info.is_output:
                root = StagePlan(plan.stage, action="inline")
            self.options.append(_variants(plan, info.extents, info.reduce_extents, lanes, root))

    def __iter__(self) -> Iterator[list[StagePlan]]:
        seen: set[tuple[StagePlan, ...]] = set()
        yield list(self.base)
        seen.add(tuple(self.base))
        changeable = [k for k, o in enumerate(self.options) if o]
        misses = 0
        while changeable and misses < 200:
            plans = list(self.base)
            for k in self.rng.sample(changeable, self.rng.randint(1, min(3, len(changeable)))):
                for _ in range(self.rng.randint(1, 2)):
                    choice = self.rng.choice(self.options[k])
                    plans[k] = _merge(plans[k], choice)
            key = tuple(plans)
            if key in seen:
                misses += 1
                continue
            seen.add(key)
            misses = 0
            yield plans


def _merge(current: StagePlan, change: StagePlan) -> StagePlan:
    """Applies a variant's change to a plan that may already differ from the base."""
    if change.action != current.action or current.action != "root":
        return change
    base = StagePlan(current.stage)
    fields = {f: getattr(change, f) for f in change.__dataclass_fields__ if getattr(change, f) != getattr(base, f)}
    return replace(current, **{k: v for k, v in fields.items() if getattr(change, k) != getattr(current, k)})


# ---------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------


def _shape(dims: Sequence[int | str], sizes: dict[str, int]) -> tuple[int, ...]:
    from compiler.arith.expr import evaluate
    from compiler.arith.parse import parse_expr

    shape = []
    for d in dims:
        if isinstance(d, int):
            shape.append(d)
            continue
        try:
            shape.append(int(evaluate(parse_expr(d), sizes)))
        except Exception:
            raise OptionError(f"tune: the symbolic size {d!r} needs a value: pass sizes={{...}}") from None
    return tuple(shape)


def _arrays(fn: Function, sizes: dict[str, int], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in fn.specs:
        shape = _shape(spec.dims, sizes)
        if spec.is_output:
            arrays.append(np.zeros(shape, spec.dtype))
        elif spec.dtype.startswith("float"):
            arrays.append(rng.standard_normal(shape).astype(spec.dtype))
        else:
            arrays.append(rng.integers(-8, 8, shape).astype(spec.dtype))
    return arrays


def measure(fn: Function, arrays: list[np.ndarray], repeats: int) -> float:
    """Median milliseconds of `repeats` calls after one warm-up call."""
    fn(*arrays)
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        fn(*arrays)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


class _Progress:
    """tqdm when it is installed, else one plain line per trial on stderr."""

    def __init__(self, total: int, enabled: bool):
        self.enabled = enabled
        self.bar: Any = None
        self.total = total
        self.count = 0
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc="tune", unit="trial")
            except ImportError:
                self.bar = None

    def update(self, best: float | None, last: float | None) -> None:
        self.count += 1
        if not self.enabled:
            return
        text = f"best {best:.3f} ms" if best is not None else "no result yet"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
            self.bar.update(1)
        else:
            lastt = "failed" if last is None else f"{last:.3f} ms"
            print(f"tune: trial {self.count}/{self.total}: {lastt}; {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def tune(
    tensors_or_schedule: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    *,
    trials: int = 32,
    timeout: float = 300.0,
    log: str | os.PathLike[str] | None = "tune.jsonl",
    repeats: int = 5,
    sizes: dict[str, int] | None = None,
    name: str = "main",
    seed: int = 0,
    progress: bool = True,
    on_trial: Callable[[int, float | None], None] | None = None,
) -> TuneResult:
    """Search schedules of `tensors` (or of the stages a partial schedule leaves out:
    `tune(s, [A, B, C])`) and append the fastest to `log` (None: don't write).

    `trials` and `timeout` (seconds) bound the search; `sizes` binds symbolic sizes
    for the measurements (the log's key does not depend on them).
    """
    schedule, tensors = split_args(tensors_or_schedule, args)
    tensors = compiled_program(tensors, schedule, True)  # the program build compiles
    start = time.perf_counter()
    target = host_target()
    module, _ = build_module(tensors, name, schedule)
    func = function_of(module, name)
    key = workload_key(func, target)
    user = schedule_of(module, func)
    base = plan_function(func, user, target)
    model = ScheduleModel.build(func, user)
    sizes = dict(sizes or {})

    best: tuple[float, str] | None = None
    baseline: float | None = None
    reference: list[np.ndarray] | None = None
    count = 0
    interrupted = False
    bar = _Progress(trials, progress)
    try:
        for plans in Candidates(model, base, target, seed):
            if count >= trials or time.perf_counter() - start > timeout:
                break
            count += 1
            ms, text = _trial(tensors, schedule, name, plans, target, sizes, repeats, reference)
            if ms is not None and reference is None:
                reference = ms[1]
            value = None if ms is None else ms[0]
            if count == 1:
                baseline = value
            if value is not None and (best is None or value < best[0]):
                best = (value, text)
            bar.update(None if best is None else best[0], value)
            if on_trial is not None:
                on_trial(count, value)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    result = TuneResult(key, None if best is None else best[0], baseline, None if best is None else best[1],
                        count, seconds, interrupted)
    if best is not None and log is not None:
        append_record(log, {
            "key": key, "target": target.key(), "workload": _describe(func), "ms": round(best[0], 4),
            "baseline_ms": None if baseline is None else round(baseline, 4), "trials": count,
            "seconds": round(seconds, 2), "schedule": best[1], "sizes": sizes,
        })
    return result


def _trial(
    tensors: Sequence[T.Tensor], schedule: Schedule | None, name: str, plans: list[StagePlan], target: Target,
    sizes: dict[str, int], repeats: int, reference: list[np.ndarray] | None,
) -> tuple[tuple[float, list[np.ndarray]] | None, str]:
    """Compile and time one candidate: ((ms, outputs) or None if it failed, its schedule)."""
    module, sig = build_module(tensors, name, schedule)
    func = function_of(module, name)
    op = schedule_of(module, func)
    if op is None:
        op = sched.ScheduleOp(name)
        module.body.block.add_op(op)
    emit_plans(func, op, plans, target)
    text = str(op)
    try:
        module.verify()
        fn = compile_built(module, sig, name)
        arrays = _arrays(fn, sizes, seed=1)
        ms = measure(fn, arrays, repeats)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # a candidate the compiler rejects is skipped, not fatal
        warnings.warn(f"tune: a candidate failed ({type(err).__name__}: {err})", RuntimeWarning, stacklevel=3)
        return None, text
    outputs = [a for a, s in zip(arrays, fn.specs, strict=True) if s.is_output]
    if reference is not None:
        for got, want in zip(outputs, reference, strict=True):
            if not np.allclose(got, want, rtol=1e-3, atol=1e-3 * (float(np.max(np.abs(want))) if want.size else 1.0)):
                warnings.warn("tune: a candidate's output differs from the auto schedule's; skipped", RuntimeWarning,
                              stacklevel=3)
                return None, text
    return (ms, outputs), text


def _describe(func: Any) -> str:
    shapes = [str(t) for t in func.function_type.outputs.data]
    return f"{func.sym_name.data}: {len(list(func.body.block.ops)) - 1} ops -> {', '.join(shapes)}"
