// RUN: compiler-opt %s --split-input-file -p schedule-ops | filecheck %s

// schedule-ops on the schedules of infer-bound-schedules.mlir. The input is
// infer-bound's output on them, checked in (`compiler-opt infer-bound-schedules.mlir
// -p infer-bound`), so a change to infer-bound does not change this test.

// Bound inference under split (factor, nparts, symbolic), fuse, reorder,
// compute_inline, and several consumers.
// A split of a symbolic extent by 8: the outer loop runs ceil(n / 8) times and, with the default split-mode=tight, the inner loop stops at the end of the parent's range instead of running 8 times (TVM's PassDownDomain improvement).
// CHECK-LABEL: loop.func @split_symbolic
// CHECK:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// CHECK:           %[[REST:.*]] = arith.subi %n, %{{.*}} : index
// CHECK:           %[[EXT:.*]] = arith.minsi %[[REST]], %{{.*}} : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[EXT]] {
builtin.module {
  te.func @split_symbolic(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
    %B = te.compute "B" (%i) : !te.tensor<["n"], f32> attributes {te.realize = ["[0, n]"], te.alloc_shape = ["n"], te.loops = ["B_i_o = [0, (n + 7) // 8] serial", "B_i_i = [0, min(n - B_i_o * 8, 8)] serial"], te.axis_values = ["B_i_i + B_i_o * 8"], te.guards = []} {
      %0 = te.read %A[%i] : !te.tensor<["n"], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    te.return %B : !te.tensor<["n"], f32>
  }
}

// -----

// Fuse 4x8 into one loop of 32 (vectorized); the axes are recovered by // and %.
// CHECK-LABEL: loop.func @fuse
// CHECK:         loop.for %B_i_f = %{{.*}} extent %{{.*}} vectorized {
// CHECK:           arith.floordivsi %B_i_f
builtin.module {
  te.func @fuse(%A: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
    %B = te.compute "B" (%i, %j) : !te.tensor<[4, 8], f32> attributes {te.realize = ["[0, 4]", "[0, 8]"], te.alloc_shape = ["4", "8"], te.loops = ["B_i_f = [0, 32] vectorized"], te.axis_values = ["B_i_f // 8", "B_i_f % 8"], te.guards = []} {
      %0 = te.read %A[%i, %j] : !te.tensor<[4, 8], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    te.return %B : !te.tensor<[4, 8], f32>
  }
}

// -----

// Reorder a reduce axis outside the data axis: the init moves to its own nest over the data loop.
// CHECK-LABEL: loop.func @reorder_reduce
// CHECK:         loop.for %B_i_init = %{{.*}} extent %{{.*}} {
// CHECK:           loop.store %{{.*}}, %B[%B_i_init]
// CHECK:         loop.for %B_k = %{{.*}} extent %{{.*}} {
// CHECK-NEXT:      %{{.*}} = arith.constant
// CHECK:           loop.for %B_i = %{{.*}} extent %{{.*}} {
builtin.module {
  te.func @reorder_reduce(%A: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
    %B = te.compute "B" (%i) : !te.tensor<[4], f32> attributes {te.realize = ["[0, 4]"], te.alloc_shape = ["4"], te.loops = ["B_k = [0, 8] serial reduce", "B_i = [0, 4] serial"], te.axis_values = ["B_i", "B_k"], te.guards = []} {
      %0 = te.reduce sum (%k) in [8] : f32 {
        %1 = te.read %A[%i, %k] : !te.tensor<[4, 8], f32>
        te.yield %1 : f32
      }
      te.yield %0 : f32
    }
    te.return %B : !te.tensor<[4], f32>
  }
}

// -----

// Two consumers request different regions of B: C1 reads B[0, 8), C2 reads B[4, 12); B is realized over their union [0, 12), not all 20.
// CHECK-LABEL: loop.func @union
// CHECK:       %B = loop.alloc "B" [%{{.*}}] : !loop.buffer<[12], f32>
builtin.module {
  te.func @union(%A: !te.tensor<[20], f32>) -> (!te.tensor<[8], f32>, !te.tensor<[8], f32>) {
    %B = te.compute "B" (%i) : !te.tensor<[20], f32> attributes {te.realize = ["[0, 12]"], te.alloc_shape = ["12"], te.loops = ["B_i = [0, 12] serial"], te.axis_values = ["B_i"], te.guards = []} {
      %0 = te.read %A[%i] : !te.tensor<[20], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %C1 = te.compute "C1" (%i_1) : !te.tensor<[8], f32> attributes {te.realize = ["[0, 8]"], te.alloc_shape = ["8"], te.loops = ["C1_i = [0, 8] serial"], te.axis_values = ["C1_i"], te.guards = []} {
      %3 = te.read %B[%i_1] : !te.tensor<[20], f32>
      te.yield %3 : f32
    }
    %C2 = te.compute "C2" (%i_2) : !te.tensor<[8], f32> attributes {te.realize = ["[0, 8]"], te.alloc_shape = ["8"], te.loops = ["C2_i = [0, 8] serial"], te.axis_values = ["C2_i"], te.guards = []} {
      %4 = arith.constant 4 : index
      %5 = arith.addi %i_2, %4 : index
      %6 = te.read %B[%5] : !te.tensor<[20], f32>
      te.yield %6 : f32
    }
    te.return %C1, %C2 : !te.tensor<[8], f32>, !te.tensor<[8], f32>
  }
}

// -----

// fuse() of no axis adds an outer loop of one iteration; a pragma that is no
// primitive is kept on its loop.
// CHECK-LABEL: loop.func @singleton
// CHECK:        loop.for %B_singleton = %{{.*}} extent %{{.*}} attributes {loop.pragmas = ["my_hint"]} {
// CHECK:          loop.for %B_i = %{{.*}} extent %{{.*}} {
builtin.module {
  te.func @singleton(%A: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
    %B = te.compute "B" (%i) : !te.tensor<[4], f32> attributes {te.realize = ["[0, 4]"], te.alloc_shape = ["4"], te.loops = ["B_singleton = [0, 1] serial pragma=my_hint", "B_i = [0, 4] serial"], te.axis_values = ["B_i"], te.guards = []} {
      %0 = te.read %A[%i] : !te.tensor<[4], f32>
      te.yield %0 : f32
    }
    te.return %B : !te.tensor<[4], f32>
  }
}

// -----

// B computed at D's row, then D's axes fused: the attach point becomes the fused
// loop f and B's column is f % m with a symbolic m. A divisor m >= 0 is read as
// max(m, 1) (it is never 0 where f % m runs), so B's column extent is bounded.
// CHECK-LABEL: loop.func @attach_fused_symbolic
// CHECK:         loop.for %D_i_f = %{{.*}} extent %{{.*}} {
// CHECK:           %B = loop.alloc "B" [%{{.*}}, %{{.*}}] : !loop.buffer<[1, "max(min(m * n - 1, max(m, 1) - 1), 0) + 1"], f32>
builtin.module {
  te.func @attach_fused_symbolic(%A: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n", "m"], f32> {
    %B = te.compute "B" (%i, %j) : !te.tensor<["n", "m"], f32> attributes {te.realize = ["[D_i_f // m, 1]", "[min(D_i_f % m, 0), max(D_i_f % m, 0) - min(D_i_f % m, 0) + 1]"], te.alloc_shape = ["1", "max(min(m * n - 1, max(m, 1) - 1), 0) + 1"], te.loops = ["B_i = [D_i_f // m, 1] serial", "B_j = [min(D_i_f % m, 0), max(D_i_f % m, 0) - min(D_i_f % m, 0) + 1] serial"], te.axis_values = ["B_i", "B_j"], te.guards = ["B_i >= 0", "B_i < n", "B_j >= 0", "B_j < m"], te.attach = "D_i_f"} {
      %0 = te.read %A[%i, %j] : !te.tensor<["n", "m"], f32>
      te.yield %0 : f32
    }
    %D = te.compute "D" (%i_1, %j_1) : !te.tensor<["n", "m"], f32> attributes {te.realize = ["[0, n]", "[0, m]"], te.alloc_shape = ["n", "m"], te.loops = ["D_i_f = [0, m * n] serial"], te.axis_values = ["D_i_f // m", "D_i_f % m"], te.guards = []} {
      %1 = te.read %B[%i_1, %j_1] : !te.tensor<["n", "m"], f32>
      %c0 = arith.constant 0 : index
      %2 = te.read %B[%i_1, %c0] : !te.tensor<["n", "m"], f32>
      %3 = arith.addf %1, %2 : f32
      te.yield %3 : f32
    }
    te.return %D : !te.tensor<["n", "m"], f32>
  }
}

// -----

// A triangular sum, Y[i] = sum(P[k] for k < i + 1), its reduce axis split by 4:
// the reduce loops stop at the row's extent (tight inner extent over Y_i), and P,
// computed at Y's row, covers the union of the rows' reads ([0, 10), relaxed).
// CHECK-LABEL: loop.func @triangular
// CHECK:         loop.for %Y_i = %{{.*}} extent %{{.*}} {
// CHECK:           loop.for %Y_k_o = %{{.*}} extent %{{.*}} {
// CHECK:             %[[E:.*]] = arith.minsi
// CHECK-NEXT:        loop.for %Y_k_i = %{{.*}} extent %[[E]] {
builtin.module {
  te.func @triangular(%X: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
    %P = te.compute "P" (%i) : !te.tensor<[10], f32> attributes {te.realize = ["[0, 10]"], te.alloc_shape = ["10"], te.loops = ["P_i = [0, 10] serial"], te.axis_values = ["P_i"], te.guards = [], te.attach = "Y_i"} {
      %0 = te.read %X[%i] : !te.tensor<[10], f32>
      te.yield %0 : f32
    }
    %Y = te.compute "Y" (%i_1) : !te.tensor<[10], f32> attributes {te.realize = ["[0, 10]"], te.alloc_shape = ["10"], te.loops = ["Y_i = [0, 10] serial", "Y_k_o = [0, 3] serial reduce", "Y_k_i = [0, min(Y_i - Y_k_o * 4 + 1, 4)] serial reduce"], te.axis_values = ["Y_i", "Y_k_i + Y_k_o * 4"], te.guards = []} {
      %c1 = arith.constant 1 : index
      %e = arith.addi %i_1, %c1 : index
      %r = te.reduce sum (%k) in ["?"] dynamic(%e) : f32 {
        %v = te.read %P[%k] : !te.tensor<[10], f32>
        te.yield %v : f32
      }
      te.yield %r : f32
    }
    te.return %Y : !te.tensor<[10], f32>
  }
}

// -----

// A split by a symbolic factor s (a scalar argument): s below 1 splits by 1, so the
// loops divide by max(s, 1); the tail is a tight inner extent, or a guard.
// CHECK-LABEL: loop.func @split_by_var
// CHECK:         %[[S:.*]] = loop.var "s" : index
// CHECK:         %[[F:.*]] = arith.maxsi %[[S]], %{{.*}} : index
// CHECK:         arith.floordivsi %{{.*}}, %[[F]] : index
builtin.module {
  te.func @split_by_var(%A: !te.tensor<["n"], f32>, %s: !te.tensor<[], i64> {te.scalar = "s"}) -> !te.tensor<["n"], f32> {
    %B = te.compute "B" (%i) : !te.tensor<["n"], f32> attributes {te.realize = ["[0, n]"], te.alloc_shape = ["n"], te.loops = ["B_i_o = [0, (n - 1) // max(s, 1) + 1] serial", "B_i_i = [0, min(max(s, 1), n - B_i_o * max(s, 1))] serial"], te.axis_values = ["B_i_i + B_i_o * max(s, 1)"], te.guards = []} {
      %0 = te.read %A[%i] : !te.tensor<["n"], f32>
      te.yield %0 : f32
    }
    te.return %B : !te.tensor<["n"], f32>
  }
}

// -----

// B fused and computed at C's middle loop of a nested split (j by 8, then by 7):
// with j's extent 2 the middle loop runs twice, and at its second iteration B's
// region [7, 2 - 7) is empty. The fused loop runs over the relaxed 1 x 2, so its
// body is guarded by the exact upper bound of the fused column (found by the
// property tests: it read A[i, 7] of a 3 x 2 A).
// CHECK-LABEL: loop.func @fused_attached_past_the_domain
// CHECK:         loop.for %B_i_f = %{{.*}} extent %{{.*}} {
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      loop.if %[[LT]] likely {
// CHECK:             loop.load %A
builtin.module {
  te.func @fused_attached_past_the_domain(%A: !te.tensor<[3, 2], f32>) -> !te.tensor<[3, 2], f32> {
    %B = te.compute "B" (%i, %j) : !te.tensor<[3, 2], f32> attributes {te.realize = ["[C_i, 1]", "[C_j_i_o * 7, 2 - C_j_i_o * 7]"], te.alloc_shape = ["1", "2"], te.loops = ["B_i_f = [0, 2] serial"], te.axis_values = ["C_i", "B_i_f + C_j_i_o * 7"], te.guards = ["B_i_f + C_j_i_o * 7 < 2"], te.attach = "C_j_i_o"} {
      %0 = te.read %A[%i, %j] : !te.tensor<[3, 2], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %C = te.compute "C" (%i_1, %j_1) : !te.tensor<[3, 2], f32> attributes {te.realize = ["[0, 3]", "[0, 2]"], te.alloc_shape = ["3", "2"], te.loops = ["C_i = [0, 3] serial", "C_j_o = [0, 1] serial", "C_j_i_o = [0, 2] serial", "C_j_i_i = [0, min(8 - C_j_i_o * 7, 7)] serial"], te.axis_values = ["C_i", "C_j_i_i + C_j_i_o * 7"], te.guards = ["C_j_i_i + C_j_i_o * 7 < 2"]} {
      %3 = te.read %B[%i_1, %j_1] : !te.tensor<[3, 2], f32>
      %4 = arith.constant 1.000000e+00 : f32
      %5 = arith.addf %3, %4 : f32
      te.yield %5 : f32
    }
    te.return %C : !te.tensor<[3, 2], f32>
  }
}

// -----

// B computed at E's outer loop, which does not read it: both of B's readers (C, D)
// are computed there too (TVM allows it). B's region is the union of theirs: C reads
// B[i] and B[i + 2], D reads B[i + 1], over 4 elements of i: 6 elements, and 4 in the
// last tile (i in [8, 10)): the tile's exact range (its extent min(4 o + 3, 9) - 4 o + 1)
// gives the region, so B needs no guard against its end (12).
// CHECK-LABEL: loop.func @attached_where_not_read
// CHECK:         loop.for %E_i_o
// CHECK:           loop.alloc "B" [%{{.*}}] : !loop.buffer<[6], f32>
// CHECK:           loop.alloc "C" [%{{.*}}] : !loop.buffer<[4], f32>
// CHECK:           loop.alloc "D" [%{{.*}}] : !loop.buffer<[4], f32>
builtin.module {
  te.func @attached_where_not_read(%A: !te.tensor<[12], f32>) -> !te.tensor<[10], f32> {
    %B = te.compute "B" (%i) : !te.tensor<[12], f32> attributes {te.realize = ["[E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 3]"], te.alloc_shape = ["6"], te.loops = ["B_i = [E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 3] serial"], te.axis_values = ["B_i"], te.guards = [], te.attach = "E_i_o"} {
      %0 = te.read %A[%i] : !te.tensor<[12], f32>
      %1 = arith.constant 3.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %C = te.compute "C" (%i_1) : !te.tensor<[10], f32> attributes {te.realize = ["[E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 1]"], te.alloc_shape = ["4"], te.loops = ["C_i = [E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 1] serial"], te.axis_values = ["C_i"], te.guards = [], te.attach = "E_i_o"} {
      %3 = te.read %B[%i_1] : !te.tensor<[12], f32>
      %4 = arith.constant 2 : index
      %5 = arith.addi %i_1, %4 : index
      %6 = te.read %B[%5] : !te.tensor<[12], f32>
      %7 = arith.addf %3, %6 : f32
      te.yield %7 : f32
    }
    %D = te.compute "D" (%i_2) : !te.tensor<[10], f32> attributes {te.realize = ["[E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 1]"], te.alloc_shape = ["4"], te.loops = ["D_i = [E_i_o * 4, min(E_i_o * 4 + 3, 9) - E_i_o * 4 + 1] serial"], te.axis_values = ["D_i"], te.guards = [], te.attach = "E_i_o"} {
      %8 = arith.constant 1 : index
      %9 = arith.addi %i_2, %8 : index
      %10 = te.read %B[%9] : !te.tensor<[12], f32>
      %11 = arith.constant 2.000000e+00 : f32
      %12 = arith.mulf %10, %11 : f32
      te.yield %12 : f32
    }
    %E = te.compute "E" (%i_3) : !te.tensor<[10], f32> attributes {te.realize = ["[0, 10]"], te.alloc_shape = ["10"], te.loops = ["E_i_o = [0, 3] serial", "E_i_i = [0, min(10 - E_i_o * 4, 4)] serial"], te.axis_values = ["E_i_i + E_i_o * 4"], te.guards = []} {
      %13 = te.read %C[%i_3] : !te.tensor<[10], f32>
      %14 = te.read %D[%i_3] : !te.tensor<[10], f32>
      %15 = arith.subf %13, %14 : f32
      te.yield %15 : f32
    }
    te.return %E : !te.tensor<[10], f32>
  }
}
