// RUN: compiler-opt %s --split-input-file -p schedule-ops | filecheck %s

// schedule-ops on the examples of infer-bound.mlir (the InferBound document's, in
// order). The input is infer-bound's output on them, checked in (`compiler-opt
// infer-bound.mlir -p infer-bound`), so a change to infer-bound does not change this test.

// The examples of the InferBound document (shared/seeds/002), in order.
// Stage C is `C[i, j] = 5`, stage D is `D[i, j] = C[i, j] * 2` over 5x16.
// Ex. 1: no compute_at: D needs all 5x16 elements of C.
// CHECK-LABEL: loop.func @ex1
// CHECK:       %C = loop.alloc "C" [{{.*}}] : !loop.buffer<[5, 16], f32>
builtin.module {
  te.func @ex1() -> !te.tensor<[5, 16], f32> {
    %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[0, 5]", "[0, 16]"], te.alloc_shape = ["5", "16"], te.loops = ["C_ci = [0, 5] serial", "C_cj = [0, 16] serial"], te.axis_values = ["C_ci", "C_cj"], te.guards = []} {
      %five = arith.constant 5.000000e+00 : f32
      te.yield %five : f32
    }
    %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[0, 5]", "[0, 16]"], te.alloc_shape = ["5", "16"], te.loops = ["D_di = [0, 5] serial", "D_dj = [0, 16] serial"], te.axis_values = ["D_di", "D_dj"], te.guards = []} {
      %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
      %dk = arith.constant 2.000000e+00 : f32
      %dr = arith.mulf %dv, %dk : f32
      te.yield %dr : f32
    }
    te.return %D : !te.tensor<[5, 16], f32>
  }
}

// -----

// Ex. 2: C computed at D's j: one element of C at a time, realize C([di, 1], [dj, 1]).
// One element of an attached stage is a register: `loop.alloc local`.
// CHECK-LABEL: loop.func @ex2
// CHECK:         loop.for %D_di = %{{.*}} extent %{{.*}} {
// CHECK:           loop.for %D_dj = %{{.*}} extent %{{.*}} {
// CHECK:             %C = loop.alloc local "C" [%D_di, %D_dj] : !loop.buffer<[1, 1], f32>
builtin.module {
  te.func @ex2() -> !te.tensor<[5, 16], f32> {
    %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[D_di, 1]", "[D_dj, 1]"], te.alloc_shape = ["1", "1"], te.loops = ["C_ci = [D_di, 1] serial", "C_cj = [D_dj, 1] serial"], te.axis_values = ["C_ci", "C_cj"], te.guards = [], te.attach = "D_dj"} {
      %five = arith.constant 5.000000e+00 : f32
      te.yield %five : f32
    }
    %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[0, 5]", "[0, 16]"], te.alloc_shape = ["5", "16"], te.loops = ["D_di = [0, 5] serial", "D_dj = [0, 16] serial"], te.axis_values = ["D_di", "D_dj"], te.guards = []} {
      %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
      %dk = arith.constant 2.000000e+00 : f32
      %dr = arith.mulf %dv, %dk : f32
      te.yield %dr : f32
    }
    te.return %D : !te.tensor<[5, 16], f32>
  }
}

// -----

// Ex. 3: C computed at D's i: a row of 16 elements, realize C([di, 1], [0, 16]).
// CHECK-LABEL: loop.func @ex3
// CHECK:         loop.for %D_di = %{{.*}} extent %{{.*}} {
// CHECK:           %C = loop.alloc "C" [%D_di, %{{.*}}] : !loop.buffer<[1, 16], f32>
builtin.module {
  te.func @ex3() -> !te.tensor<[5, 16], f32> {
    %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[D_di, 1]", "[0, 16]"], te.alloc_shape = ["1", "16"], te.loops = ["C_ci = [D_di, 1] serial", "C_cj = [0, 16] serial"], te.axis_values = ["C_ci", "C_cj"], te.guards = [], te.attach = "D_di"} {
      %five = arith.constant 5.000000e+00 : f32
      te.yield %five : f32
    }
    %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[0, 5]", "[0, 16]"], te.alloc_shape = ["5", "16"], te.loops = ["D_di = [0, 5] serial", "D_dj = [0, 16] serial"], te.axis_values = ["D_di", "D_dj"], te.guards = []} {
      %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
      %dk = arith.constant 2.000000e+00 : f32
      %dr = arith.mulf %dv, %dk : f32
      te.yield %dr : f32
    }
    te.return %D : !te.tensor<[5, 16], f32>
  }
}

// -----

// Ex. 4: 3-D D reading C[dj, dk], C at D's dk: realize C([dj, 1], [dk, 1]); attach path {dk, dj, di}.
// CHECK-LABEL: loop.func @ex4
// CHECK:         loop.for %D_di = %{{.*}} extent %{{.*}} {
// CHECK:           loop.for %D_dj = %{{.*}} extent %{{.*}} {
// CHECK:             loop.for %D_dk = %{{.*}} extent %{{.*}} {
// CHECK-NEXT:          %C = loop.alloc local "C" [%D_dj, %D_dk] : !loop.buffer<[1, 1], f32>
builtin.module {
  te.func @ex4() -> !te.tensor<[4, 5, 16], f32> {
    %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[D_dj, 1]", "[D_dk, 1]"], te.alloc_shape = ["1", "1"], te.loops = ["C_ci = [D_dj, 1] serial", "C_cj = [D_dk, 1] serial"], te.axis_values = ["C_ci", "C_cj"], te.guards = [], te.attach = "D_dk"} {
      %five = arith.constant 5.000000e+00 : f32
      te.yield %five : f32
    }
    %D = te.compute "D" (%di, %dj, %dk) : !te.tensor<[4, 5, 16], f32> attributes {te.realize = ["[0, 4]", "[0, 5]", "[0, 16]"], te.alloc_shape = ["4", "5", "16"], te.loops = ["D_di = [0, 4] serial", "D_dj = [0, 5] serial", "D_dk = [0, 16] serial"], te.axis_values = ["D_di", "D_dj", "D_dk"], te.guards = []} {
      %v = te.read %C[%dj, %dk] : !te.tensor<[5, 16], f32>
      %k = arith.constant 2.000000e+00 : f32
      %r = arith.mulf %v, %k : f32
      te.yield %r : f32
    }
    te.return %D : !te.tensor<[4, 5, 16], f32>
  }
}

// -----

// The chain: C at D's dj, D at E's ej. Attach path of C {dj, di, ej, ei}, of D {ej, ei}; both realized 1x1 at (ei, ej).
// C sits inside D's loops, which run over the single point (E_ei, E_ej):
// CHECK-LABEL: loop.func @chain
// CHECK:         loop.for %E_ei
// CHECK:           loop.for %E_ej
// CHECK-NEXT:        %D = loop.alloc local "D" [%E_ei, %E_ej] : !loop.buffer<[1, 1], f32>
// CHECK:             loop.for %D_di = %E_ei extent
// CHECK:               loop.for %D_dj = %E_ej extent
// CHECK-NEXT:            %C = loop.alloc local "C" [%D_di, %D_dj] : !loop.buffer<[1, 1], f32>
builtin.module {
  te.func @chain() -> !te.tensor<[5, 16], f32> {
    %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[D_di, 1]", "[D_dj, 1]"], te.alloc_shape = ["1", "1"], te.loops = ["C_ci = [D_di, 1] serial", "C_cj = [D_dj, 1] serial"], te.axis_values = ["C_ci", "C_cj"], te.guards = [], te.attach = "D_dj"} {
      %five = arith.constant 5.000000e+00 : f32
      te.yield %five : f32
    }
    %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[E_ei, 1]", "[E_ej, 1]"], te.alloc_shape = ["1", "1"], te.loops = ["D_di = [E_ei, 1] serial", "D_dj = [E_ej, 1] serial"], te.axis_values = ["D_di", "D_dj"], te.guards = [], te.attach = "E_ej"} {
      %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
      %dk = arith.constant 2.000000e+00 : f32
      %dr = arith.mulf %dv, %dk : f32
      te.yield %dr : f32
    }
    %E = te.compute "E" (%ei, %ej) : !te.tensor<[5, 16], f32> attributes {te.realize = ["[0, 5]", "[0, 16]"], te.alloc_shape = ["5", "16"], te.loops = ["E_ei = [0, 5] serial", "E_ej = [0, 16] serial"], te.axis_values = ["E_ei", "E_ej"], te.guards = []} {
      %ev = te.read %D[%ei, %ej] : !te.tensor<[5, 16], f32>
      %ek = arith.constant 4.000000e+00 : f32
      %er = arith.mulf %ev, %ek : f32
      te.yield %er : f32
    }
    te.return %E : !te.tensor<[5, 16], f32>
  }
}
