"""compiler.schedule.rules: a primitive's checks are written once, so the Python
schedule API and the `sched.schedule` verifier reject the same schedules with the same
message (`sched.` before the primitive's name on the IR side)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import compiler
from compiler import te
from compiler.errors import ScheduleError
from compiler.schedule import rules
from compiler.te.primitives import ComputeInline, Primitive, StorageAlign


def _program() -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
    k = te.reduce_axis((0, 8), name="k")
    R = te.compute((8,), lambda i: te.sum(B[i, k], axis=k), name="R")
    C = te.compute((8, 8), lambda i, j: B[i, j] * R[i], name="C")
    return A, B, R, C


Case = Callable[[te.Schedule, te.Tensor, te.Tensor, te.Tensor], tuple[Callable[[], object], Primitive]]

CASES: dict[str, Case] = {
    "inline a reduction": lambda s, B, R, C: (s[R].compute_inline, ComputeInline(stage=R)),
    "inline an output": lambda s, B, R, C: (s[C].compute_inline, ComputeInline(stage=C)),
    "align an output": lambda s, B, R, C: (
        lambda: s[C].storage_align(C.op.axis[0], 4, 1),
        StorageAlign(stage=C, axis=C.op.axis[0], factor=4, offset=1),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_api_and_the_verifier_give_one_message(case: str) -> None:
    A, B, R, C = _program()
    s = te.create_schedule(C.op)
    call, record = CASES[case](s, B, R, C)
    with pytest.raises(ScheduleError) as api:
        call()
    s.primitives.append(record)  # what the API refused, as the verifier sees it
    with pytest.raises(ScheduleError) as verifier:
        compiler.lower(s, [A, C], until="loop")
    assert str(verifier.value).endswith(f": sched.{api.value}")  # after the function's name


def test_cache_write_reads_where_the_stage_is_now() -> None:
    """compute_at then compute_root leaves B at the root: cache_write may follow (the
    verifier always said so; the API refused it before the rules were shared)."""
    A, B, _, C = _program()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[B].compute_root()
    BL = s.cache_write(B, "local")
    s[BL].compute_at(s[B], B.op.axis[0])
    a = np.random.default_rng(0).random((8, 8), dtype=np.float32)
    c = np.empty((8, 8), np.float32)
    compiler.build(s, [A, C])(a, c)
    b = a + 1.0
    np.testing.assert_allclose(c, b * b.sum(axis=1, keepdims=True), rtol=1e-5)


def test_cache_write_rules_in_order() -> None:
    facts = rules.CacheWriteFacts("B", attached_here=["C"], annotated=[("B_i", "parallel")])
    with pytest.raises(ScheduleError, match=r'^x: stage "B" has stage\(s\) C computed at its loops'):
        rules.check_cache_write("x", facts)
    facts.attached_here = []
    with pytest.raises(ScheduleError, match=r"has its loop B_i annotated \(parallel\)"):
        rules.check_cache_write("x", facts)
    facts.annotated = []
    rules.check_cache_write("x", facts)


@pytest.mark.parametrize(("factor_axis", "position"), [(0, 0), (2, 2), (-1, 2), (-3, 0)])
def test_rfactor_factor_axis_counts_from_the_end_when_negative(factor_axis: int, position: int) -> None:
    facts = rules.RfactorFacts("B", "k", is_reduce=True, fuses_data=False, factor_axis=factor_axis, ndata=2)
    assert rules.check_rfactor("rfactor", facts) == position


@pytest.mark.parametrize("factor_axis", [3, -4])
def test_rfactor_factor_axis_out_of_range(factor_axis: int) -> None:
    facts = rules.RfactorFacts("B", "k", is_reduce=True, fuses_data=False, factor_axis=factor_axis, ndata=2)
    with pytest.raises(ScheduleError, match=f"factor_axis {factor_axis} is past the 2 data axes"):
        rules.check_rfactor("rfactor", facts)
