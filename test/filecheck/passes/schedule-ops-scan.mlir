// RUN: compiler-opt %s --split-input-file -p schedule-ops | filecheck %s

// schedule-ops on a scan. The input is infer-bound's output, checked in
// (`compiler-opt infer-bound-scan.mlir -p infer-bound`), so a change to infer-bound
// does not change this test.

// te.scan: out[0] = X[0]; out[t] = 0.5 * out[t - 1] + X[t]. The scan's time loop
// runs from the init's one row to m; "prev", which reads the state, is computed
// inside it (one row per step, no schedule needed); init, state and scan are the
// output buffer.
// CHECK-LABEL: loop.func @decay(%X: !loop.buffer<["m", "n"], f32>, %decay: !loop.buffer<["m", "n"], f32> {loop.output})
// CHECK-NOT:     loop.alloc "decay"
// CHECK:         loop.for %init_i
// CHECK:           loop.store %{{.*}}, %decay[%{{.*}}, %init_i]
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[STEPS:.*]] = arith.subi %m, %{{.*}} : index
// CHECK:         loop.for %decay_t = %[[ONE]] extent %[[STEPS]] {
// CHECK:           %prev = loop.alloc "prev" [%decay_t, %{{.*}}] : !loop.buffer<[1, "n"], f32>
// CHECK:           loop.for %prev_i
// CHECK:             %[[BEFORE:.*]] = arith.subi %prev_t, %{{.*}} : index
// CHECK:             loop.load %decay[%[[BEFORE]], %prev_i]
// CHECK:           loop.for %decay_i
// CHECK:             loop.store %{{.*}}, %decay[%decay_t, %decay_i]
builtin.module {
  te.func @decay(%X: !te.tensor<["m", "n"], f32>) -> !te.tensor<["m", "n"], f32> {
    %init = te.compute "init" (%z, %i) : !te.tensor<[1, "n"], f32> attributes {te.realize = ["[0, 1]", "[0, n]"], te.alloc_shape = ["1", "n"], te.loops = ["init_z = [0, 1] serial", "init_i = [0, n] serial"], te.axis_values = ["0", "init_i"], te.guards = []} {
      %0 = arith.constant 0 : index
      %1 = te.read %X[%0, %i] : !te.tensor<["m", "n"], f32>
      te.yield %1 : f32
    }
    %state = te.state "decay"[0] init %init : !te.tensor<[1, "n"], f32> -> !te.tensor<["m", "n"], f32>
    %prev = te.compute "prev" (%t, %i_1) : !te.tensor<["m", "n"], f32> attributes {te.realize = ["[decay_t, 1]", "[0, n]"], te.alloc_shape = ["1", "n"], te.loops = ["prev_t = [decay_t, 1] serial", "prev_i = [0, n] serial"], te.axis_values = ["prev_t", "prev_i"], te.guards = [], te.attach = "decay_t"} {
      %2 = arith.constant 1 : index
      %3 = arith.subi %t, %2 : index
      %4 = te.read %state[%3, %i_1] : !te.tensor<["m", "n"], f32>
      %5 = arith.constant 5.000000e-01 : f32
      %6 = arith.mulf %4, %5 : f32
      te.yield %6 : f32
    }
    %decay = te.compute "decay" (%t_1, %i_2) : !te.tensor<["m", "n"], f32> attributes {te.realize = ["[1, m - 1]", "[0, n]"], te.alloc_shape = ["m - 1", "n"], te.loops = ["decay_t = [1, m - 1] serial", "decay_i = [0, n] serial"], te.axis_values = ["decay_t", "decay_i"], te.guards = []} {
      %7 = te.read %prev[%t_1, %i_2] : !te.tensor<["m", "n"], f32>
      %8 = te.read %X[%t_1, %i_2] : !te.tensor<["m", "n"], f32>
      %9 = arith.addf %7, %8 : f32
      te.yield %9 : f32
    }
    te.return %decay : !te.tensor<["m", "n"], f32>
  }
}

// -----

// An intermediate scan (only its last row is read): its whole buffer is allocated
// before its init writes the first row, and the time loop still runs every step.
// CHECK-LABEL: loop.func @last_row
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %sum = loop.alloc "sum" [%[[Z0]], %[[Z1]]] : !loop.buffer<[8, 4], f32>
// CHECK:         loop.for %init_i
// CHECK:           loop.store %{{.*}}, %sum[
// CHECK:         loop.for %sum_t = %{{.*}} extent %{{.*}} {
// CHECK:         loop.for %out_k
// CHECK:           loop.load %sum[
builtin.module {
  te.func @last_row(%X: !te.tensor<[8, 4], f32>) -> !te.tensor<[4], f32> {
    %init = te.compute "init" (%z, %i) : !te.tensor<[1, 4], f32> attributes {te.realize = ["[0, 1]", "[0, 4]"], te.alloc_shape = ["1", "4"], te.loops = ["init_z = [0, 1] serial", "init_i = [0, 4] serial"], te.axis_values = ["0", "init_i"], te.guards = []} {
      %0 = arith.constant 0 : index
      %1 = te.read %X[%0, %i] : !te.tensor<[8, 4], f32>
      te.yield %1 : f32
    }
    %state = te.state "sum"[0] init %init : !te.tensor<[1, 4], f32> -> !te.tensor<[8, 4], f32>
    %sum = te.compute "sum" (%t, %j) : !te.tensor<[8, 4], f32> attributes {te.realize = ["[1, 7]", "[0, 4]"], te.alloc_shape = ["7", "4"], te.loops = ["sum_t = [1, 7] serial", "sum_j = [0, 4] serial"], te.axis_values = ["sum_t", "sum_j"], te.guards = []} {
      %2 = arith.constant 1 : index
      %3 = arith.subi %t, %2 : index
      %4 = te.read %state[%3, %j] : !te.tensor<[8, 4], f32>
      %5 = te.read %X[%t, %j] : !te.tensor<[8, 4], f32>
      %6 = arith.addf %4, %5 : f32
      te.yield %6 : f32
    }
    %out = te.compute "out" (%k) : !te.tensor<[4], f32> attributes {te.realize = ["[0, 4]"], te.alloc_shape = ["4"], te.loops = ["out_k = [0, 4] serial"], te.axis_values = ["out_k"], te.guards = []} {
      %7 = arith.constant 7 : index
      %8 = te.read %sum[%7, %k] : !te.tensor<[8, 4], f32>
      te.yield %8 : f32
    }
    te.return %out : !te.tensor<[4], f32>
  }
}
