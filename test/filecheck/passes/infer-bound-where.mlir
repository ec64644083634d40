// RUN: compiler-opt %s -p infer-bound | filecheck %s

// A reduction's `where` bounds the reads after it: Y[i] sums P[i, k] where k <= i
// (likely: a causal product), and P, computed at Y's block of 4 rows, is realized
// for the columns that block reads, k <= Y_i_o * 4 + 3, not all 16 (the `where`
// couples k and i: k is bounded by the largest i of the block). The reduce loop
// itself still runs over [0, 16), guarded; loop-partition cuts it.
// (Input: `build_module` of that program and schedule.)
builtin.module {
  te.func @main(%X: !te.tensor<[16, 16], f32>) -> !te.tensor<[16], f32> {
    %P = te.compute "P" (%i, %j) : !te.tensor<[16, 16], f32> {
      %0 = te.read %X[%i, %j] : !te.tensor<[16, 16], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %Y = te.compute "Y" (%i_1) : !te.tensor<[16], f32> {
      %3 = te.reduce sum (%k) in [16] : f32 {
        %4 = arith.cmpi sle, %k, %i_1 : index
        te.where %4 {te.likely}
        %5 = te.read %P[%i_1, %k] : !te.tensor<[16, 16], f32>
        te.yield %5 : f32
      }
      te.yield %3 : f32
    }
    te.return %Y : !te.tensor<[16], f32>
  }
  sched.schedule @main {
    %i = sched.axis "Y" 0
    %i_outer, %i_inner = sched.split %i by 4 : !sched.iter<"Y">
    sched.compute_at "P", %i_outer : !sched.iter<"Y">
  }
}
// CHECK:      te.compute "P"
// CHECK-SAME: te.realize = ["[Y_i_o * 4, 4]", "[0, Y_i_o * 4 + 4]"], te.alloc_shape = ["4", "16"]
// CHECK-SAME: te.loops = ["P_i = [Y_i_o * 4, 4] serial", "P_j = [0, Y_i_o * 4 + 4] serial"]
// CHECK:      te.compute "Y"
// CHECK-SAME: "Y_k = [0, 16] serial reduce"
