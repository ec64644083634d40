// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'infer-bound{split-mode=guard}' | filecheck %s --check-prefix=GUARD

// Bound inference under split (factor, nparts, symbolic), fuse, reorder,
// compute_inline, and several consumers.
// A split of a symbolic extent by 8: the outer loop runs ceil(n / 8) times and, with the default split-mode=tight, the inner loop stops at the end of the parent's range instead of running 8 times (TVM's PassDownDomain improvement).
te.func @split_symbolic(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %B = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %0 = te.read %A[%i] : !te.tensor<["n"], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @split_symbolic {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i by 8 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @split_symbolic
// CHECK:      te.loops = ["B_i_o = [0, (n + 7) // 8] serial", "B_i_i = [0, min(n - B_i_o * 8, 8)] serial"]
// CHECK-SAME: te.axis_values = ["B_i_i + B_i_o * 8"], te.guards = []
// GUARD-LABEL: te.func @split_symbolic
// GUARD:      te.loops = ["B_i_o = [0, (n + 7) // 8] serial", "B_i_i = [0, 8] serial"]
// GUARD-SAME: te.guards = ["B_i_i + B_i_o * 8 < n"]

// -----

// 20 split by 8: 8 does not divide 20, so the last inner loop runs 4 times.
te.func @split_static(%A: !te.tensor<[20], f32>) -> !te.tensor<[20], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[20], f32> {
    %0 = te.read %A[%i] : !te.tensor<[20], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<[20], f32>
}
sched.schedule @split_static {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i by 8 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @split_static
// CHECK:      te.loops = ["B_i_o = [0, 3] serial", "B_i_i = [0, min(20 - B_i_o * 8, 8)] serial"]
// GUARD-LABEL: te.func @split_static
// GUARD:      te.guards = ["B_i_i + B_i_o * 8 < 20"]

// -----

// 20 split into 3 parts: inner extent ceil(20 / 3) = 7, the last part has 6.
te.func @split_nparts(%A: !te.tensor<[20], f32>) -> !te.tensor<[20], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[20], f32> {
    %0 = te.read %A[%i] : !te.tensor<[20], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<[20], f32>
}
sched.schedule @split_nparts {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i nparts 3 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @split_nparts
// CHECK:      te.loops = ["B_i_o = [0, 3] serial", "B_i_i = [0, min(20 - B_i_o * 7, 7)] serial"]

// -----

// Fuse 4x8 into one loop of 32 (vectorized); the axes are recovered by // and %.
te.func @fuse(%A: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %B = te.compute "B" (%i, %j) : !te.tensor<[4, 8], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<[4, 8], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<[4, 8], f32>
}
sched.schedule @fuse {
  %i = sched.axis "B" 0
  %j = sched.axis "B" 1
  %i_j_fused = sched.fuse %i, %j : !sched.iter<"B">
  sched.vectorize %i_j_fused : !sched.iter<"B">
}
// CHECK-LABEL: te.func @fuse
// CHECK:      te.loops = ["B_i_f = [0, 32] vectorized"], te.axis_values = ["B_i_f // 8", "B_i_f % 8"]

// -----

// Reorder a reduce axis outside the data axis: the init moves to its own nest over the data loop.
te.func @reorder_reduce(%A: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[4], f32> {
    %0 = te.reduce sum (%k) in [8] : f32 {
      %1 = te.read %A[%i, %k] : !te.tensor<[4, 8], f32>
      te.yield %1 : f32
    }
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<[4], f32>
}
sched.schedule @reorder_reduce {
  %k = sched.axis "B" reduce 0
  %i = sched.axis "B" 0
  sched.reorder %k, %i : !sched.iter<"B">
}
// CHECK-LABEL: te.func @reorder_reduce
// CHECK:      te.loops = ["B_k = [0, 8] serial reduce", "B_i = [0, 4] serial"]

// -----

// compute_inline: C disappears; D reads A through a copy of C's body.
te.func @inline(%A: !te.tensor<[16], f32>) -> !te.tensor<[16], f32> {
  %C = te.compute "C" (%i) : !te.tensor<[16], f32> {
    %0 = te.read %A[%i] : !te.tensor<[16], f32>
    %1 = arith.constant 1.000000e+00 : f32
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  %D = te.compute "D" (%i_1) : !te.tensor<[16], f32> {
    %3 = te.read %C[%i_1] : !te.tensor<[16], f32>
    %4 = te.read %C[%i_1] : !te.tensor<[16], f32>
    %5 = arith.mulf %3, %4 : f32
    te.yield %5 : f32
  }
  te.return %D : !te.tensor<[16], f32>
}
sched.schedule @inline {
  sched.compute_inline "C"
}
// CHECK-LABEL: te.func @inline
// CHECK-NOT:  te.compute "C"
// CHECK:      te.compute "D"
// CHECK:        te.read %A[%i]
// CHECK:        arith.addf
// CHECK-NOT:    te.read %C

// -----

// Two consumers request different regions of B: C1 reads B[0, 8), C2 reads B[4, 12); B is realized over their union [0, 12), not all 20.
te.func @union(%A: !te.tensor<[20], f32>) -> (!te.tensor<[8], f32>, !te.tensor<[8], f32>) {
  %B = te.compute "B" (%i) : !te.tensor<[20], f32> {
    %0 = te.read %A[%i] : !te.tensor<[20], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %C1 = te.compute "C1" (%i_1) : !te.tensor<[8], f32> {
    %3 = te.read %B[%i_1] : !te.tensor<[20], f32>
    te.yield %3 : f32
  }
  %C2 = te.compute "C2" (%i_2) : !te.tensor<[8], f32> {
    %4 = arith.constant 4 : index
    %5 = arith.addi %i_2, %4 : index
    %6 = te.read %B[%5] : !te.tensor<[20], f32>
    te.yield %6 : f32
  }
  te.return %C1, %C2 : !te.tensor<[8], f32>, !te.tensor<[8], f32>
}
sched.schedule @union {
^bb0:
}
// CHECK-LABEL: te.func @union
// CHECK:      te.compute "B" {{.*}}te.realize = ["[0, 12]"]

// -----

// The document's GatherBound limit: P reads T[0:2, 0:2] and Q reads T[2:4, 2:4], disjoint blocks. The dimension-wise union is T[0:4, 0:4]: all 16 elements are realized and computed although only 8 are read (an over-approximation by 8 elements).
te.func @disjoint(%A: !te.tensor<[4, 4], f32>) -> (!te.tensor<[2, 2], f32>, !te.tensor<[2, 2], f32>) {
  %T = te.compute "T" (%i, %j) : !te.tensor<[4, 4], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<[4, 4], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %P = te.compute "P" (%i_1, %j_1) : !te.tensor<[2, 2], f32> {
    %3 = te.read %T[%i_1, %j_1] : !te.tensor<[4, 4], f32>
    te.yield %3 : f32
  }
  %Q = te.compute "Q" (%i_2, %j_2) : !te.tensor<[2, 2], f32> {
    %4 = arith.constant 2 : index
    %5 = arith.addi %i_2, %4 : index
    %6 = arith.constant 2 : index
    %7 = arith.addi %j_2, %6 : index
    %8 = te.read %T[%5, %7] : !te.tensor<[4, 4], f32>
    te.yield %8 : f32
  }
  te.return %P, %Q : !te.tensor<[2, 2], f32>, !te.tensor<[2, 2], f32>
}
sched.schedule @disjoint {
^bb0:
}
// CHECK-LABEL: te.func @disjoint
// CHECK:      te.compute "T" {{.*}}te.realize = ["[0, 4]", "[0, 4]"]

// -----

// 8 split into 32 parts: the factor is ceil(8 / 32) = 1 and the outer loop runs
// ceil(8 / 1) = 8 iterations, not 32 (nothing past the end is computed or stored).
te.func @nparts_exceeds(%A: !te.tensor<[8], f32>) -> !te.tensor<[8], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[8], f32> {
    %0 = te.read %A[%i] : !te.tensor<[8], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<[8], f32>
}
sched.schedule @nparts_exceeds {
  %i = sched.axis "B" 0
  %o, %in = sched.split %i nparts 32 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @nparts_exceeds
// CHECK:      te.loops = ["B_i_o = [0, 8] serial", "B_i_i = [0, 1] serial"]
// CHECK-SAME: te.guards = []

// -----

// 10 split into 4 parts: factor 3, the outer loop runs 4 times and the last inner
// loop only once (tight) or is guarded (guard).
te.func @nparts_tail(%A: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[10], f32> {
    %0 = te.read %A[%i] : !te.tensor<[10], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<[10], f32>
}
sched.schedule @nparts_tail {
  %i = sched.axis "B" 0
  %o, %in = sched.split %i nparts 4 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @nparts_tail
// CHECK:      te.loops = ["B_i_o = [0, 4] serial", "B_i_i = [0, min(10 - B_i_o * 3, 3)] serial"]
// GUARD-LABEL: te.func @nparts_tail
// GUARD:      te.loops = ["B_i_o = [0, 4] serial", "B_i_i = [0, 3] serial"]
// GUARD-SAME: te.guards = ["B_i_i + B_i_o * 3 < 10"]

// -----

// A symbolic extent split into 4 parts: the factor is at least 1, so an empty
// extent gives an empty outer loop instead of a division by zero.
te.func @nparts_symbolic(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %B = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %0 = te.read %A[%i] : !te.tensor<["n"], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @nparts_symbolic {
  %i = sched.axis "B" 0
  %o, %in = sched.split %i nparts 4 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @nparts_symbolic
// CHECK:      te.loops = ["B_i_o = [0, (n - 1) // max((n + 3) // 4, 1) + 1] serial", "B_i_i = [0, min(max((n + 3) // 4, 1), n - B_i_o * max((n + 3) // 4, 1))] serial"]

// -----

// C is computed at D's row loop, which is then split: the attach point moves to
// the inner row loop (TVM's LegalizeInvalidAttach), so C is one row (none past
// the last row of D: the region's extent is 0 there).
te.func @attach_moves(%A: !te.tensor<[6, 10], f32>) -> !te.tensor<[6, 10], f32> {
  %C = te.compute "C" (%i, %j) : !te.tensor<[6, 10], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<[6, 10], f32>
    te.yield %0 : f32
  }
  %D = te.compute "D" (%i, %j) : !te.tensor<[6, 10], f32> {
    %0 = te.read %C[%i, %j] : !te.tensor<[6, 10], f32>
    te.yield %0 : f32
  }
  te.return %D : !te.tensor<[6, 10], f32>
}
sched.schedule @attach_moves {
  %i = sched.axis "D" 0
  sched.compute_at "C", %i : !sched.iter<"D">
  %o, %in = sched.split %i by 4 : !sched.iter<"D">
}
// CHECK-LABEL: te.func @attach_moves
// CHECK:      te.compute "C"
// CHECK-SAME: te.realize = ["[D_i_i + D_i_o * 4, min(D_i_i + D_i_o * 4, 5) - D_i_i - D_i_o * 4 + 1]", "[0, 10]"], te.alloc_shape = ["1", "10"]
// CHECK-SAME: te.attach = "D_i_i"

// -----

// fuse() of no axis adds an outer loop of one iteration; a pragma that is no
// primitive is kept on its loop.
te.func @singleton(%A: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[4], f32> {
    %0 = te.read %A[%i] : !te.tensor<[4], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<[4], f32>
}
sched.schedule @singleton {
  %s = sched.singleton "B"
  sched.pragma %s "my_hint" : !sched.iter<"B">
}
// CHECK-LABEL: te.func @singleton
// CHECK:      te.loops = ["B_singleton = [0, 1] serial pragma=my_hint", "B_i = [0, 4] serial"]

// -----

// B computed at D's row, then D's axes fused: the attach point becomes the fused
// loop f and B's column is f % m with a symbolic m. Its buffer holds one row of m:
// relaxed over f in [0, n * m), which runs only when n, m >= 1 (an empty loop reads
// nothing, so any extent would do), f % m spans [0, m - 1].
te.func @attach_fused_symbolic(%A: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n", "m"], f32> {
  %B = te.compute "B" (%i, %j) : !te.tensor<["n", "m"], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<["n", "m"], f32>
    te.yield %0 : f32
  }
  %D = te.compute "D" (%i, %j) : !te.tensor<["n", "m"], f32> {
    %0 = te.read %B[%i, %j] : !te.tensor<["n", "m"], f32>
    %c0 = arith.constant 0 : index
    %1 = te.read %B[%i, %c0] : !te.tensor<["n", "m"], f32>
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %D : !te.tensor<["n", "m"], f32>
}
sched.schedule @attach_fused_symbolic {
  %i = sched.axis "D" 0
  %j = sched.axis "D" 1
  sched.compute_at "B", %i : !sched.iter<"D">
  %f = sched.fuse %i, %j : !sched.iter<"D">
}
// CHECK-LABEL: te.func @attach_fused_symbolic
// CHECK:      te.compute "B"
// CHECK-SAME: te.realize = ["[D_i_f // m, 1]", "[min(D_i_f % m, 0), max(D_i_f % m, 0) - min(D_i_f % m, 0) + 1]"]
// CHECK-SAME: te.alloc_shape = ["1", "m"]
// CHECK-SAME: te.attach = "D_i_f"

// -----

// The same with m declared at least 1 (`shape_bounds`, checked at every call): f % m
// is then provably in [0, m), so B's columns are [0, f % m] (D reads columns f % m and
// 0), not a min/max hedging for a zero divisor.
te.func @attach_fused_ranged(%A: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n", "m"], f32> attributes {shape_bounds = {m = array<i64: 1>}} {
  %B = te.compute "B" (%i, %j) : !te.tensor<["n", "m"], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<["n", "m"], f32>
    te.yield %0 : f32
  }
  %D = te.compute "D" (%i, %j) : !te.tensor<["n", "m"], f32> {
    %0 = te.read %B[%i, %j] : !te.tensor<["n", "m"], f32>
    %c0 = arith.constant 0 : index
    %1 = te.read %B[%i, %c0] : !te.tensor<["n", "m"], f32>
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %D : !te.tensor<["n", "m"], f32>
}
sched.schedule @attach_fused_ranged {
  %i = sched.axis "D" 0
  %j = sched.axis "D" 1
  sched.compute_at "B", %i : !sched.iter<"D">
  %f = sched.fuse %i, %j : !sched.iter<"D">
}
// CHECK-LABEL: te.func @attach_fused_ranged
// CHECK:      te.compute "B"
// CHECK-SAME: te.realize = ["[D_i_f // m, 1]", "[0, D_i_f % m + 1]"]
// CHECK-SAME: te.alloc_shape = ["1", "m"]

// -----

// A triangular sum, Y[i] = sum(P[k] for k < i + 1), its reduce axis split by 4:
// the reduce loops stop at the row's extent (the outer one at its last block, the
// tight inner extent over Y_i), and P,
// computed at Y's row, covers the union of the rows' reads ([0, 10), relaxed).
te.func @triangular(%X: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
  %P = te.compute "P" (%i) : !te.tensor<[10], f32> {
    %0 = te.read %X[%i] : !te.tensor<[10], f32>
    te.yield %0 : f32
  }
  %Y = te.compute "Y" (%i) : !te.tensor<[10], f32> {
    %c1 = arith.constant 1 : index
    %e = arith.addi %i, %c1 : index
    %r = te.reduce sum (%k) in ["?"] dynamic(%e) : f32 {
      %v = te.read %P[%k] : !te.tensor<[10], f32>
      te.yield %v : f32
    }
    te.yield %r : f32
  }
  te.return %Y : !te.tensor<[10], f32>
}
sched.schedule @triangular {
  %i = sched.axis "Y" 0
  sched.compute_at "P", %i : !sched.iter<"Y">
  %k = sched.axis "Y" reduce 0
  %ko, %ki = sched.split %k by 4 : !sched.iter<"Y">
}
// CHECK-LABEL: te.func @triangular
// CHECK:      te.compute "P" {{.*}}te.realize = ["[0, 10]"], te.alloc_shape = ["10"]
// CHECK:      te.compute "Y"
// CHECK-SAME: te.loops = ["Y_i = [0, 10] serial", "Y_k_o = [0, Y_i // 4 + 1] serial reduce", "Y_k_i = [0, min(Y_i - Y_k_o * 4 + 1, 4)] serial reduce"]
// GUARD-LABEL: te.func @triangular
// GUARD:      te.loops = ["Y_i = [0, 10] serial", "Y_k_o = [0, Y_i // 4 + 1] serial reduce", "Y_k_i = [0, 4] serial reduce"]
// GUARD-SAME: te.guards = ["Y_k_i + Y_k_o * 4 < Y_i + 1"]

// -----

// A split by a symbolic factor s (a scalar argument): s below 1 splits by 1, so the
// loops divide by max(s, 1); the tail is a tight inner extent, or a guard.
te.func @split_by_var(%A: !te.tensor<["n"], f32>, %s: !te.tensor<[], i64> {te.scalar = "s"}) -> !te.tensor<["n"], f32> {
  %B = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %0 = te.read %A[%i] : !te.tensor<["n"], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @split_by_var {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i by "s" : !sched.iter<"B">
}
// CHECK-LABEL: te.func @split_by_var
// CHECK:      te.loops = ["B_i_o = [0, (n - 1) // max(s, 1) + 1] serial", "B_i_i = [0, min(max(s, 1), n - B_i_o * max(s, 1))] serial"]
// CHECK-SAME: te.guards = []
// GUARD-LABEL: te.func @split_by_var
// GUARD:      te.loops = ["B_i_o = [0, (n - 1) // max(s, 1) + 1] serial", "B_i_i = [0, max(s, 1)] serial"]
// GUARD-SAME: te.guards = ["B_i_i + B_i_o * max(s, 1) < n"]

// -----

// B fused and computed at C's middle loop of a nested split (j by 8, then by 7):
// with j's extent 2 the middle loop runs twice, and at its second iteration B's
// region [7, 2 - 7) is empty. The fused loop runs over the relaxed 1 x 2, so its
// body is guarded by the exact upper bound of the fused column (found by the
// property tests: it read A[i, 7] of a 3 x 2 A).
te.func @fused_attached_past_the_domain(%A: !te.tensor<[3, 2], f32>) -> !te.tensor<[3, 2], f32> {
  %B = te.compute "B" (%i, %j) : !te.tensor<[3, 2], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<[3, 2], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %C = te.compute "C" (%i_1, %j_1) : !te.tensor<[3, 2], f32> {
    %3 = te.read %B[%i_1, %j_1] : !te.tensor<[3, 2], f32>
    %4 = arith.constant 1.000000e+00 : f32
    %5 = arith.addf %3, %4 : f32
    te.yield %5 : f32
  }
  te.return %C : !te.tensor<[3, 2], f32>
}
sched.schedule @fused_attached_past_the_domain {
  %j = sched.axis "C" 1
  %j_outer, %j_inner = sched.split %j by 8 : !sched.iter<"C">
  %j_inner_outer, %j_inner_inner = sched.split %j_inner by 7 : !sched.iter<"C">
  sched.compute_at "B", %j_inner_outer : !sched.iter<"C">
  %i = sched.axis "B" 0
  %j_1 = sched.axis "B" 1
  %i_j_fused = sched.fuse %i, %j_1 : !sched.iter<"B">
}
// CHECK-LABEL: te.func @fused_attached_past_the_domain
// CHECK:      te.realize = ["[C_i, 1]", "[C_j_i_o * 7, 2 - C_j_i_o * 7]"]
// CHECK-SAME: te.loops = ["B_i_f = [0, 2] serial"]
// CHECK-SAME: te.guards = ["B_i_f + C_j_i_o * 7 < 2"]

// -----

// B computed at E's outer loop, which does not read it: both of B's readers (C, D)
// are computed there too (TVM allows it). B's region is the union of theirs: C reads
// B[i] and B[i + 2], D reads B[i + 1], over 4 elements of i: 6 elements, and 4 in the
// last tile (i in [8, 10)): the tile's exact range (its extent min(4 o + 3, 9) - 4 o + 1)
// gives the region, so B needs no guard against its end (12).
te.func @attached_where_not_read(%A: !te.tensor<[12], f32>) -> !te.tensor<[10], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[12], f32> {
    %0 = te.read %A[%i] : !te.tensor<[12], f32>
    %1 = arith.constant 3.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %C = te.compute "C" (%i_1) : !te.tensor<[10], f32> {
    %3 = te.read %B[%i_1] : !te.tensor<[12], f32>
    %4 = arith.constant 2 : index
    %5 = arith.addi %i_1, %4 : index
    %6 = te.read %B[%5] : !te.tensor<[12], f32>
    %7 = arith.addf %3, %6 : f32
    te.yield %7 : f32
  }
  %D = te.compute "D" (%i_2) : !te.tensor<[10], f32> {
    %8 = arith.constant 1 : index
    %9 = arith.addi %i_2, %8 : index
    %10 = te.read %B[%9] : !te.tensor<[12], f32>
    %11 = arith.constant 2.000000e+00 : f32
    %12 = arith.mulf %10, %11 : f32
    te.yield %12 : f32
  }
  %E = te.compute "E" (%i_3) : !te.tensor<[10], f32> {
    %13 = te.read %C[%i_3] : !te.tensor<[10], f32>
    %14 = te.read %D[%i_3] : !te.tensor<[10], f32>
    %15 = arith.subf %13, %14 : f32
    te.yield %15 : f32
  }
  te.return %E : !te.tensor<[10], f32>
}
sched.schedule @attached_where_not_read {
  %i = sched.axis "E" 0
  %i_outer, %i_inner = sched.split %i by 4 : !sched.iter<"E">
  sched.compute_at "C", %i_outer : !sched.iter<"E">
  sched.compute_at "D", %i_outer : !sched.iter<"E">
  sched.compute_at "B", %i_outer : !sched.iter<"E">
}
// CHECK-LABEL: te.func @attached_where_not_read
// CHECK:      %B = te.compute "B"
// CHECK:      te.realize = ["[E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 3]"], te.alloc_shape = ["6"]
// CHECK-SAME: te.guards = [], te.attach = "E_i_o"
