// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'infer-bound{explain=true}' | filecheck %s --check-prefix=EXPLAIN
// RUN: compiler-opt %s --split-input-file -p 'infer-bound{clip-to-shape=false}' | filecheck %s --check-prefix=NOCLIP

// Bound inference as TVM's test_te_schedule_bound_inference.py asserts it.
// test_bound_fusesplit2: A1 computed at the outer loop of split(fuse(i, j), 3) over
// (m, 6). The 3 fused iterations of one outer iteration stay in one row (3 divides
// 6 and the range starts at a multiple of 3): A1 is 1 x 3, row xo // 2, columns
// (xo % 2) * 3 .. + 2 (TVM's PassUpDomain of a fuse), not the whole m x 6.
te.func @fusesplit2(%A: !te.tensor<["m", 6], f32>) -> !te.tensor<["m", 6], f32> {
  %A1 = te.compute "A1" (%i, %j) : !te.tensor<["m", 6], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<["m", 6], f32>
    te.yield %0 : f32
  }
  %A2 = te.compute "A2" (%i_1, %j_1) : !te.tensor<["m", 6], f32> {
    %1 = te.read %A1[%i_1, %j_1] : !te.tensor<["m", 6], f32>
    %2 = arith.constant 3.000000e+00 : f32
    %3 = arith.addf %1, %2 : f32
    te.yield %3 : f32
  }
  te.return %A2 : !te.tensor<["m", 6], f32>
}
sched.schedule @fusesplit2 {
  %i = sched.axis "A2" 0
  %j = sched.axis "A2" 1
  %f = sched.fuse %i, %j : !sched.iter<"A2">
  %o, %in = sched.split %f by 3 : !sched.iter<"A2">
  sched.compute_at "A1", %o : !sched.iter<"A2">
}
// CHECK-LABEL: te.func @fusesplit2
// CHECK:       te.compute "A1" {{.*}}te.realize = ["[A2_i_f_o // 2, 1]", "[A2_i_f_o % 2 * 3, 3]"], te.alloc_shape = ["1", "3"]
// CHECK-SAME:  te.attach = "A2_i_f_o"
// CHECK:       te.compute "A2" {{.*}}te.loops = ["A2_i_f_o = [0, m * 2] serial", "A2_i_f_i = [0, 3] serial"]

// -----

// Split by 12 over rows of 6: each outer iteration covers two whole rows (12 does
// not divide 6, so every column; the rows are xo * 2 .. xo * 2 + 1, at most m).
te.func @fuse_two_rows(%A: !te.tensor<["m", 6], f32>) -> !te.tensor<["m", 6], f32> {
  %A1 = te.compute "A1" (%i, %j) : !te.tensor<["m", 6], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<["m", 6], f32>
    te.yield %0 : f32
  }
  %A2 = te.compute "A2" (%i_1, %j_1) : !te.tensor<["m", 6], f32> {
    %1 = te.read %A1[%i_1, %j_1] : !te.tensor<["m", 6], f32>
    te.yield %1 : f32
  }
  te.return %A2 : !te.tensor<["m", 6], f32>
}
sched.schedule @fuse_two_rows {
  %i = sched.axis "A2" 0
  %j = sched.axis "A2" 1
  %f = sched.fuse %i, %j : !sched.iter<"A2">
  %o, %in = sched.split %f by 12 : !sched.iter<"A2">
  sched.compute_at "A1", %o : !sched.iter<"A2">
}
// CHECK-LABEL: te.func @fuse_two_rows
// CHECK:       te.compute "A1" {{.*}}te.realize = ["[A2_i_f_o * 2, min(A2_i_f_o * 2 + 1, m - 1) - A2_i_f_o * 2 + 1]", "[0, 6]"]
// CHECK-SAME:  te.alloc_shape = ["min(m, 2)", "6"]

// -----

// Split by 4 over rows of 6: 4 fused iterations may cross a row end (4 does not
// divide 6), so two rows and every column: 2 x 6 at most.
te.func @fuse_crossing(%A: !te.tensor<[5, 6], f32>) -> !te.tensor<[5, 6], f32> {
  %A1 = te.compute "A1" (%i, %j) : !te.tensor<[5, 6], f32> {
    %0 = te.read %A[%i, %j] : !te.tensor<[5, 6], f32>
    te.yield %0 : f32
  }
  %A2 = te.compute "A2" (%i_1, %j_1) : !te.tensor<[5, 6], f32> {
    %1 = te.read %A1[%i_1, %j_1] : !te.tensor<[5, 6], f32>
    te.yield %1 : f32
  }
  te.return %A2 : !te.tensor<[5, 6], f32>
}
sched.schedule @fuse_crossing {
  %i = sched.axis "A2" 0
  %j = sched.axis "A2" 1
  %f = sched.fuse %i, %j : !sched.iter<"A2">
  %o, %in = sched.split %f by 4 : !sched.iter<"A2">
  sched.compute_at "A1", %o : !sched.iter<"A2">
}
// CHECK-LABEL: te.func @fuse_crossing
// CHECK:       te.compute "A1" {{.*}}te.alloc_shape = ["2", "6"]

// -----

// test_bound_simplification_failure, A[i]: B (10 elements) reads A (shape 2) at i,
// past A's shape. The read is cut to the shape: A is realized [0, 2], not [0, 10].
te.func @past_the_shape() -> !te.tensor<[10], i64> {
  %A = te.compute "A" (%j) : !te.tensor<[2], i64> {
    %0 = arith.index_cast %j : index to i64
    te.yield %0 : i64
  }
  %B = te.compute "B" (%i) : !te.tensor<[10], i64> {
    %1 = te.read %A[%i] : !te.tensor<[2], i64>
    te.yield %1 : i64
  }
  te.return %B : !te.tensor<[10], i64>
}
// CHECK-LABEL: te.func @past_the_shape
// CHECK:       te.compute "A" {{.*}}te.realize = ["[0, 2]"], te.alloc_shape = ["2"]
// CHECK-SAME:  te.guards = []
// EXPLAIN:      stage "A": realized [0, 2]
// EXPLAIN-NEXT:   dim 0: min 0 from "B" reading A[B_i]; max 1 from "B" reading A[B_i]
// EXPLAIN-NEXT:   "B" reading A[B_i]: reaches past the shape in dim 0, cut to it
// NOCLIP-LABEL: te.func @past_the_shape
// NOCLIP:       te.compute "A" {{.*}}te.realize = ["[0, 10]"], te.alloc_shape = ["10"]
// NOCLIP-SAME:  te.guards = ["A_j < 2"]

// -----

// test_bound_group_schedule: the group {x, x1} computed at x2's rows: both are 1 x n
// per row of x2 (x1 by x2's read, x by x1's).
te.func @group_schedule() -> !te.tensor<["m", "n"], f32> {
  %x = te.compute "x" (%i, %j) : !te.tensor<["m", "n"], f32> {
    %0 = arith.constant 1.000000e+00 : f32
    te.yield %0 : f32
  }
  %x1 = te.compute "x1" (%i_1, %j_1) : !te.tensor<["m", "n"], f32> {
    %1 = te.read %x[%i_1, %j_1] : !te.tensor<["m", "n"], f32>
    %2 = arith.constant 1.000000e+00 : f32
    %3 = arith.addf %1, %2 : f32
    te.yield %3 : f32
  }
  %x2 = te.compute "x2" (%i_2, %j_2) : !te.tensor<["m", "n"], f32> {
    %4 = te.read %x1[%i_2, %j_2] : !te.tensor<["m", "n"], f32>
    %5 = arith.constant 2.000000e+00 : f32
    %6 = arith.addf %4, %5 : f32
    te.yield %6 : f32
  }
  te.return %x2 : !te.tensor<["m", "n"], f32>
}
sched.schedule @group_schedule {
  sched.create_group "g" outputs ["x1"] inputs ["x"] include_inputs
  %i = sched.axis "x2" 0
  sched.compute_at "g", %i : !sched.iter<"x2">
}
// CHECK-LABEL: te.func @group_schedule
// CHECK:       te.compute "x" {{.*}}te.realize = ["[x2_i, 1]", "[0, n]"], te.alloc_shape = ["1", "n"]
// CHECK-SAME:  te.attach = "x2_i"
// CHECK:       te.compute "x1" {{.*}}te.realize = ["[x2_i, 1]", "[0, n]"], te.alloc_shape = ["1", "n"]
// CHECK-SAME:  te.attach = "x2_i"

// -----

// test_bound_nest_group: g1 = {x} nested in g2 = {x, x1}; g2 at x2's rows, g1 at x1's
// columns: x1 is 1 x n, x 1 x 1.
te.func @nest_group() -> !te.tensor<["m", "n"], f32> {
  %x = te.compute "x" (%i, %j) : !te.tensor<["m", "n"], f32> {
    %0 = arith.constant 1.000000e+00 : f32
    te.yield %0 : f32
  }
  %x1 = te.compute "x1" (%i_1, %j_1) : !te.tensor<["m", "n"], f32> {
    %1 = te.read %x[%i_1, %j_1] : !te.tensor<["m", "n"], f32>
    %2 = arith.constant 1.000000e+00 : f32
    %3 = arith.addf %1, %2 : f32
    te.yield %3 : f32
  }
  %x2 = te.compute "x2" (%i_2, %j_2) : !te.tensor<["m", "n"], f32> {
    %4 = te.read %x1[%i_2, %j_2] : !te.tensor<["m", "n"], f32>
    %5 = arith.constant 2.000000e+00 : f32
    %6 = arith.addf %4, %5 : f32
    te.yield %6 : f32
  }
  te.return %x2 : !te.tensor<["m", "n"], f32>
}
sched.schedule @nest_group {
  sched.create_group "g1" outputs ["x"] inputs ["x"] include_inputs
  sched.create_group "g2" outputs ["x1"] inputs ["x"] include_inputs
  %i = sched.axis "x2" 0
  sched.compute_at "g2", %i : !sched.iter<"x2">
  %j = sched.axis "x1" 1
  sched.compute_at "g1", %j : !sched.iter<"x1">
}
// CHECK-LABEL: te.func @nest_group
// CHECK:       te.compute "x" {{.*}}te.realize = ["[x1_i, 1]", "[x1_j, 1]"], te.alloc_shape = ["1", "1"]
// CHECK-SAME:  te.attach = "x1_j"
// CHECK:       te.compute "x1" {{.*}}te.realize = ["[x2_i, 1]", "[0, n]"], te.alloc_shape = ["1", "n"]
// CHECK-SAME:  te.attach = "x2_i"
