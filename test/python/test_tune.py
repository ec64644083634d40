"""compiler.tune and tuning logs: the search, the log records, builds that use them."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import compiler
from compiler import ops, te
from compiler.te.to_ir import build_module
from compiler.tuning_log import TuningLogWarning, apply_logged_schedule, read_log, workload_key


def matmul(n: int = 24, m: int = 40, k: int = 16) -> list[te.Tensor]:
    A, B = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    return [A, B, ops.relu(ops.matmul(A, B, name="C"), name="D")]


def run(f: compiler.Function, n: int = 24, m: int = 40, k: int = 16) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, k), np.float32), rng.standard_normal((k, m), np.float32)
    out = np.zeros((n, m), np.float32)
    f(a, b, out)
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_tune_logs_the_best_and_build_uses_it(tmp_path) -> None:
    log = tmp_path / "tune.jsonl"
    tensors = matmul()
    seen: list[float | None] = []
    result = compiler.tune(tensors, trials=4, timeout=120, log=log, repeats=2, progress=False,
                           on_trial=lambda k, ms: seen.append(ms))
    assert result.trials == 4
    assert len(seen) == 4
    assert result.baseline_ms == seen[0]  # the auto-scheduler's schedule comes first
    assert result.best_ms == min(v for v in seen if v is not None)
    (line,) = log.read_text().splitlines()
    record = json.loads(line)
    assert record["key"] == result.key
    assert record["schedule"] == result.schedule
    assert record["trials"] == 4
    module, _ = build_module(tensors, "other_name")
    assert workload_key(module.ops.first) == result.key  # type: ignore[arg-type]
    assert apply_logged_schedule(module, "other_name", log) is not None
    f = compiler.build(tensors, tuning_log=log)
    run(f)


def test_build_reads_the_log_named_by_the_environment(tmp_path, monkeypatch) -> None:
    log = tmp_path / "env.jsonl"
    tensors = matmul()
    result = compiler.tune(tensors, trials=2, log=log, repeats=1, progress=False)
    monkeypatch.setenv("COMPILER_TUNING_LOG", str(log))
    module, _ = build_module(tensors, "main")
    record = apply_logged_schedule(module, "main", None)
    assert record is not None
    assert record.key == result.key


def test_interrupt_keeps_what_was_found(tmp_path) -> None:
    log = tmp_path / "t.jsonl"

    def stop(k: int, ms: float | None) -> None:
        if k == 2:
            raise KeyboardInterrupt

    result = compiler.tune(matmul(), trials=10, log=log, repeats=1, progress=False, on_trial=stop)
    assert result.interrupted
    assert result.trials == 2
    assert result.best_ms is not None
    assert len(log.read_text().splitlines()) == 1


def test_corrupt_and_stale_lines_are_skipped_with_a_warning(tmp_path) -> None:
    tensors = matmul()
    module, _ = build_module(tensors, "main")
    key = workload_key(module.ops.first)  # type: ignore[arg-type]
    log = tmp_path / "bad.jsonl"
    stale = 'sched.schedule @main {\n  %x = sched.axis "NoSuchStage" 0\n  sched.vectorize %x : !sched.iter<"NoSuchStage">\n}'
    log.write_text(
        "{not json\n"
        + json.dumps({"version": 1, "key": key, "ms": "fast"}) + "\n"
        + json.dumps({"version": 1, "key": key, "ms": 1.0, "schedule": stale}) + "\n"
    )
    with pytest.warns(TuningLogWarning) as caught:
        f = compiler.build(tensors, tuning_log=log)
    messages = [str(w.message) for w in caught]
    assert any("bad.jsonl:1: skipped a corrupt line" in m for m in messages)
    assert any("bad.jsonl:2: skipped a corrupt line" in m for m in messages)
    assert any("bad.jsonl:3: skipped a stale record" in m and "NoSuchStage" in m for m in messages)
    run(f)  # built with the auto-scheduler instead


def test_a_missing_log_is_no_log(tmp_path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(compiler.build(matmul(), tuning_log=tmp_path / "absent.jsonl"))
    assert read_log(tmp_path / "absent.jsonl") == {}


def test_the_key_depends_on_shapes() -> None:
    keys = set()
    for n in (24, 25):
        module, _ = build_module(matmul(n), "main")
        keys.add(workload_key(module.ops.first))  # type: ignore[arg-type]
    assert len(keys) == 2
