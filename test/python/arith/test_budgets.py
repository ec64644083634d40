"""Issue 37: every search of the simplifier is bounded (depth and step budgets), its
memo tables hash and compare a node once, and an exhausted budget gives a sound,
looser answer, never a wrong one."""

from __future__ import annotations

import pickle
import random
import time

from compiler.arith.bound_search import STEP_BUDGET
from compiler.arith.expr import (
    Add,
    FloorDiv,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    evaluate,
    free_vars,
)
from compiler.arith.int_set import IntSet, eval_set
from compiler.arith.simplify import Analyzer

n, i = IndexVar("n"), IndexVar("i")
BOUNDS = {"n": (0, None), "i": (0, n - 1)}


def nested(depth: int) -> IndexExpr:
    """min/max nested `depth` deep over shared subtrees, as a symbolic block's offsets
    are: min(max((e + 3) // 4 - 1, n - i - k), max(e, 1) * 4 + 3) from e = n."""
    e: IndexExpr = n
    for k in range(depth):
        e = Min(Max((e + 3) // 4 - 1, n - i - k), Max(e, IndexConst(1)) * 4 + 3)
    return e


def test_a_deep_minmax_is_bounded_in_time_and_answered_soundly() -> None:
    """Depth 16 took 174 s before the budgets (8: 1 s, 12: 11 s, each level about 2.5x);
    depth 30 now takes about 0.2 s on one core, like depth 8. The time limit is generous
    (CPU time of this thread, 100x that: a loaded CI machine must not fail it); without the
    budget depth 30 would take days. `exhausted` is what shows the budget at work."""
    az = Analyzer(BOUNDS)
    e = nested(30)
    start = time.thread_time()
    lower_holds = az.prove_le(IndexConst(-(10**9)), e)
    upper_refuted = az.prove_le(e, IndexConst(-1))
    lo, hi = az.const_bounds(e)
    seconds = time.thread_time() - start
    assert seconds < 20.0, f"{seconds:.1f} s"
    assert az.exhausted >= 1  # the budget ran out: the answers below are the conservative ones
    assert lower_holds
    assert not upper_refuted
    # sound: the bounds hold at sample points (e is -1 at n = i = 0, and grows with n)
    for nv in (1, 2, 7, 100, 5000):
        for iv in (0, nv // 2, nv - 1):
            value = evaluate(e, {"n": nv, "i": iv})
            assert lo is None or lo <= value
            assert hi is None or value <= hi


def test_a_query_within_the_budget_is_not_changed_by_it() -> None:
    """The shallow queries the passes make stay exact (the budget is five times the
    largest query of the test suite): a split's last index folds into its min."""
    az = Analyzer({"o": (0, (n + 3) // 4 - 1), "n": (1, None)})
    assert str(az.simplify(Min(IndexVar("o") * 4 + 4, n) - 1)) == "min(n, o * 4 + 4) - 1"
    assert az.prove_le(IndexVar("o") * 4, n - 1)
    assert az.exhausted == 0
    assert STEP_BUDGET >= 1000


def test_an_exhausted_budget_never_proves_a_falsehood() -> None:
    """Random nested min/max/floordiv over n and i: every proof the analyzer makes holds
    at every sample point, whether or not the budget ran out."""
    rng = random.Random(37)

    def random_expr(depth: int) -> IndexExpr:
        if depth == 0:
            return rng.choice([n, i, IndexConst(rng.randint(-3, 5))])
        a, b = random_expr(depth - 1), random_expr(depth - 1)
        kind = rng.randrange(4)
        if kind == 0:
            return Min(a, b)
        if kind == 1:
            return Max(a, b)
        if kind == 2:
            return FloorDiv(a, IndexConst(rng.randint(1, 4)))
        return Add(a, b)

    points = [{"n": nv, "i": iv} for nv in (1, 3, 8, 33) for iv in range(0, nv, max(1, nv // 4))]
    for _ in range(30):
        e = random_expr(rng.randint(3, 7))
        az = Analyzer(BOUNDS)
        lo, hi = az.const_bounds(e)
        values = [evaluate(e, p) for p in points]
        assert lo is None or lo <= min(values), (e, lo)
        assert hi is None or max(values) <= hi, (e, hi)
        if az.prove_le(IndexConst(0), e):
            assert min(values) >= 0, e


def test_nodes_are_built_once_and_hash_once() -> None:
    """Building the same structure again gives the node already built (equality is then
    identity, not a walk of the tree); a pickled node comes back equal and hashed anew."""
    a = nested(12)
    b = nested(12)
    assert a is b
    assert a == b
    assert hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a
    assert free_vars(nested(200)) == {"n", "i"}  # 200 levels: 2^200 paths, 800 nodes


def test_eval_set_visits_a_shared_subtree_once() -> None:
    """GPT-2 with a symbolic batch and length: infer-bound passes a fused (batch * seq) axis
    up through every reshape, each nesting `s * (x // s) + min(s - 1, x)` over the last
    one (s = max(seq, 1)). A DAG of about 130 nodes printed as 77 million characters, and
    eval_set walked every path of it: one call took 240 s, the build did not finish.
    Here 40 levels (2^40 paths) in well under a second, and the set is sound at samples."""
    seq, batch, o = IndexVar("seq"), IndexVar("batch"), IndexVar("o")
    s = Max(seq, IndexConst(1))
    x: IndexExpr = batch * seq - 1
    for _ in range(40):
        x = seq * (x // s) + Min(s - 1, x)
    e = Min(x, o * 4 + 3)
    bounds = {"seq": (0, None), "batch": (0, None), "o": (0, (seq + 3) // 4 - 1)}
    dom = {"o": IntSet(IndexConst(0), (seq + 3) // 4 - 1)}
    start = time.thread_time()
    got = eval_set(e, dom, bounds)
    seconds = time.thread_time() - start
    assert seconds < 5.0, f"{seconds:.1f} s"
    for sv, bv in ((1, 1), (3, 2), (8, 5), (17, 3)):
        values = [evaluate(e, {"seq": sv, "batch": bv, "o": ov}) for ov in range((sv + 3) // 4)]
        env = {"seq": sv, "batch": bv}
        assert got.lo is None or evaluate(got.lo, env) <= min(values)
        assert got.hi is None or max(values) <= evaluate(got.hi, env)


def test_a_fused_axis_through_every_reshape_stays_closed() -> None:
    """Issue 37: GPT-2's Conv1D flattens (batch, seq) to one axis and unflattens it, in
    every layer. Infer-bound's requests through `f // seq` and `f % seq` over the fused
    axis [0, batch * seq - 1] knew only seq >= 0, so each round trip nested the last one
    twice (`seq * (x // max(seq, 1)) + min(x, max(seq, 1) - 1)`) and a 12-layer build
    stalled in the simplifier. A non-empty fused axis implies batch, seq >= 1
    (`eval_set(..., nonempty=True)`), and every round trip gives [0, batch * seq - 1]."""
    seq, batch = IndexVar("seq"), IndexVar("batch")
    bounds = {"seq": (0, None), "batch": (0, None)}
    hi: IndexExpr = batch * seq - 1
    start = time.thread_time()
    for _ in range(40):
        dom = {"f": IntSet(IndexConst(0), hi)}
        rows = {"r": eval_set(IndexVar("f") // seq, dom, bounds, nonempty=True),
                "c": eval_set(IndexVar("f") % seq, dom, bounds, nonempty=True)}  # fmt: skip
        flat = eval_set(IndexVar("r") * seq + IndexVar("c"), rows, bounds, nonempty=True)
        assert flat.lo == IndexConst(0)
        assert flat.hi is not None
        hi = flat.hi
    seconds = time.thread_time() - start
    assert str(hi) == "batch * seq - 1"
    assert seconds < 5.0, f"{seconds:.1f} s"


def test_size_proofs_key_atoms_by_node_not_by_text() -> None:
    """The memory-plan prover's polynomial builder keyed its floor-division atoms by their
    text, which is exponential in the depth of a DAG of shared subtrees: a symbolic BERT
    with attention row blocks sat in `str` inside verify-memory-plan. 40 levels here (did
    not finish in 20 s before; about half a second now, on one core)."""
    from compiler.analysis.size_proof import _Builder

    seq, batch = IndexVar("seq"), IndexVar("batch")
    d: IndexExpr = batch * seq
    for _ in range(40):
        d = Max(d, seq) // 2 + Max(d, batch) // 3
    az = Analyzer({"seq": (IndexConst(1), None), "batch": (IndexConst(1), None)})
    start = time.thread_time()
    poly = _Builder(az, frozenset()).poly((d + 7) // 8 * 8 - d)
    seconds = time.thread_time() - start
    assert seconds < 10.0, f"{seconds:.1f} s"
    assert poly is not None
