// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s

// te.scan: out[0] = X[0]; out[t] = 0.5 * out[t - 1] + X[t]. The scan's time loop
// runs from the init's one row to m; "prev", which reads the state, is computed
// inside it (one row per step, no schedule needed); init, state and scan are the
// output buffer.
te.func @decay(%X: !te.tensor<["m", "n"], f32>) -> !te.tensor<["m", "n"], f32> {
  %init = te.compute "init" (%z, %i) : !te.tensor<[1, "n"], f32> {
    %0 = arith.constant 0 : index
    %1 = te.read %X[%0, %i] : !te.tensor<["m", "n"], f32>
    te.yield %1 : f32
  }
  %state = te.state "decay"[0] init %init : !te.tensor<[1, "n"], f32> -> !te.tensor<["m", "n"], f32>
  %prev = te.compute "prev" (%t, %i_1) : !te.tensor<["m", "n"], f32> {
    %2 = arith.constant 1 : index
    %3 = arith.subi %t, %2 : index
    %4 = te.read %state[%3, %i_1] : !te.tensor<["m", "n"], f32>
    %5 = arith.constant 5.000000e-01 : f32
    %6 = arith.mulf %4, %5 : f32
    te.yield %6 : f32
  }
  %decay = te.compute "decay" (%t_1, %i_2) : !te.tensor<["m", "n"], f32> {
    %7 = te.read %prev[%t_1, %i_2] : !te.tensor<["m", "n"], f32>
    %8 = te.read %X[%t_1, %i_2] : !te.tensor<["m", "n"], f32>
    %9 = arith.addf %7, %8 : f32
    te.yield %9 : f32
  }
  te.return %decay : !te.tensor<["m", "n"], f32>
}
// CHECK-LABEL: te.func @decay
// CHECK:      %init = te.compute "init"
// CHECK-SAME: te.realize = ["[0, 1]", "[0, n]"]
// CHECK:      %prev = te.compute "prev"
// CHECK-SAME: te.realize = ["[decay_t, 1]", "[0, n]"], te.alloc_shape = ["1", "n"]
// CHECK-SAME: te.attach = "decay_t"
// CHECK:      %decay = te.compute "decay"
// CHECK-SAME: te.loops = ["decay_t = [1, m - 1] serial", "decay_i = [0, n] serial"]
// CHECK-SAME: te.guards = []

// -----

// An intermediate scan (only its last row is read): its whole buffer is allocated
// before its init writes the first row, and the time loop still runs every step.
te.func @last_row(%X: !te.tensor<[8, 4], f32>) -> !te.tensor<[4], f32> {
  %init = te.compute "init" (%z, %i) : !te.tensor<[1, 4], f32> {
    %0 = arith.constant 0 : index
    %1 = te.read %X[%0, %i] : !te.tensor<[8, 4], f32>
    te.yield %1 : f32
  }
  %state = te.state "sum"[0] init %init : !te.tensor<[1, 4], f32> -> !te.tensor<[8, 4], f32>
  %sum = te.compute "sum" (%t, %j) : !te.tensor<[8, 4], f32> {
    %2 = arith.constant 1 : index
    %3 = arith.subi %t, %2 : index
    %4 = te.read %state[%3, %j] : !te.tensor<[8, 4], f32>
    %5 = te.read %X[%t, %j] : !te.tensor<[8, 4], f32>
    %6 = arith.addf %4, %5 : f32
    te.yield %6 : f32
  }
  %out = te.compute "out" (%k) : !te.tensor<[4], f32> {
    %7 = arith.constant 7 : index
    %8 = te.read %sum[%7, %k] : !te.tensor<[8, 4], f32>
    te.yield %8 : f32
  }
  te.return %out : !te.tensor<[4], f32>
}
// CHECK-LABEL: te.func @last_row
// CHECK:      %sum = te.compute "sum"
// CHECK-SAME: te.loops = ["sum_t = [1, 7] serial", "sum_j = [0, 4] serial"]
