// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s

// The examples of the InferBound document (shared/seeds/002), in order.
// Stage C is `C[i, j] = 5`, stage D is `D[i, j] = C[i, j] * 2` over 5x16.
// Ex. 1: no compute_at: D needs all 5x16 elements of C.
te.func @ex1() -> !te.tensor<[5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> {
    %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
    %dk = arith.constant 2.0 : f32
    %dr = arith.mulf %dv, %dk : f32
    te.yield %dr : f32
  }
  te.return %D : !te.tensor<[5, 16], f32>
}
// CHECK-LABEL: te.func @ex1
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[0, 5]", "[0, 16]"]
// CHECK-SAME: te.loops = ["C_ci = [0, 5] serial", "C_cj = [0, 16] serial"]

// -----

// Ex. 2: C computed at D's j: one element of C at a time, realize C([di, 1], [dj, 1]).
// One element of an attached stage is a register: `loop.alloc local`.
te.func @ex2() -> !te.tensor<[5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> {
    %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
    %dk = arith.constant 2.0 : f32
    %dr = arith.mulf %dv, %dk : f32
    te.yield %dr : f32
  }
  te.return %D : !te.tensor<[5, 16], f32>
}
sched.schedule @ex2 {
  %dj = sched.axis "D" 1
  sched.compute_at "C", %dj : !sched.iter<"D">
}
// CHECK-LABEL: te.func @ex2
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[D_di, 1]", "[D_dj, 1]"]
// CHECK-SAME: te.attach = "D_dj"
// CHECK-NOT:  sched.schedule

// -----

// Ex. 3: C computed at D's i: a row of 16 elements, realize C([di, 1], [0, 16]).
te.func @ex3() -> !te.tensor<[5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> {
    %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
    %dk = arith.constant 2.0 : f32
    %dr = arith.mulf %dv, %dk : f32
    te.yield %dr : f32
  }
  te.return %D : !te.tensor<[5, 16], f32>
}
sched.schedule @ex3 {
  %di = sched.axis "D" 0
  sched.compute_at "C", %di : !sched.iter<"D">
}
// CHECK-LABEL: te.func @ex3
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[D_di, 1]", "[0, 16]"]
// CHECK-SAME: te.loops = ["C_ci = [D_di, 1] serial", "C_cj = [0, 16] serial"]

// -----

// Ex. 4: 3-D D reading C[dj, dk], C at D's dk: realize C([dj, 1], [dk, 1]); attach path {dk, dj, di}.
te.func @ex4() -> !te.tensor<[4, 5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj, %dk) : !te.tensor<[4, 5, 16], f32> {
    %v = te.read %C[%dj, %dk] : !te.tensor<[5, 16], f32>
    %k = arith.constant 2.0 : f32
    %r = arith.mulf %v, %k : f32
    te.yield %r : f32
  }
  te.return %D : !te.tensor<[4, 5, 16], f32>
}
sched.schedule @ex4 {
  %dk = sched.axis "D" 2
  sched.compute_at "C", %dk : !sched.iter<"D">
}
// CHECK-LABEL: te.func @ex4
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[D_dj, 1]", "[D_dk, 1]"]

// -----

// Ex. 5: D's j split by 8, C at j_inner: attach path {j_inner, j_outer, i}; C's column is j_outer * 8 + j_inner.
te.func @ex5() -> !te.tensor<[5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> {
    %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
    %dk = arith.constant 2.0 : f32
    %dr = arith.mulf %dv, %dk : f32
    te.yield %dr : f32
  }
  te.return %D : !te.tensor<[5, 16], f32>
}
sched.schedule @ex5 {
  %dj = sched.axis "D" 1
  %jo, %ji = sched.split %dj by 8 : !sched.iter<"D">
  sched.compute_at "C", %ji : !sched.iter<"D">
}
// CHECK-LABEL: te.func @ex5
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[D_di, 1]", "[D_dj_i + D_dj_o * 8, 1]"]
// CHECK:      %D = te.compute "D" {{.*}}te.loops = ["D_di = [0, 5] serial", "D_dj_o = [0, 2] serial", "D_dj_i = [0, 8] serial"]
// CHECK-SAME: te.axis_values = ["D_di", "D_dj_i + D_dj_o * 8"]

// -----

// The chain: C at D's dj, D at E's ej. Attach path of C {dj, di, ej, ei}, of D {ej, ei}; both realized 1x1 at (ei, ej).
te.func @chain() -> !te.tensor<[5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> {
    %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
    %dk = arith.constant 2.0 : f32
    %dr = arith.mulf %dv, %dk : f32
    te.yield %dr : f32
  }
  %E = te.compute "E" (%ei, %ej) : !te.tensor<[5, 16], f32> {
    %ev = te.read %D[%ei, %ej] : !te.tensor<[5, 16], f32>
    %ek = arith.constant 4.0 : f32
    %er = arith.mulf %ev, %ek : f32
    te.yield %er : f32
  }
  te.return %E : !te.tensor<[5, 16], f32>
}
sched.schedule @chain {
  %dj = sched.axis "D" 1
  %ej = sched.axis "E" 1
  sched.compute_at "C", %dj : !sched.iter<"D">
  sched.compute_at "D", %ej : !sched.iter<"E">
}
// CHECK-LABEL: te.func @chain
// C sits inside D's loops, which run over the single point (E_ei, E_ej):
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[D_di, 1]", "[D_dj, 1]"]
// CHECK-SAME: te.attach = "D_dj"
// CHECK:      %D = te.compute "D" {{.*}}te.realize = ["[E_ei, 1]", "[E_ej, 1]"]
// CHECK-SAME: te.loops = ["D_di = [E_ei, 1] serial", "D_dj = [E_ej, 1] serial"]
// CHECK-SAME: te.attach = "E_ej"

// -----

// C not attached, its consumer D attached at E's ej: D's attach path {ej, ei} is relaxed, so C is computed over all 5x16.
te.func @relax() -> !te.tensor<[5, 16], f32> {
  %C = te.compute "C" (%ci, %cj) : !te.tensor<[5, 16], f32> {
    %five = arith.constant 5.0 : f32
    te.yield %five : f32
  }
  %D = te.compute "D" (%di, %dj) : !te.tensor<[5, 16], f32> {
    %dv = te.read %C[%di, %dj] : !te.tensor<[5, 16], f32>
    %dk = arith.constant 2.0 : f32
    %dr = arith.mulf %dv, %dk : f32
    te.yield %dr : f32
  }
  %E = te.compute "E" (%ei, %ej) : !te.tensor<[5, 16], f32> {
    %ev = te.read %D[%ei, %ej] : !te.tensor<[5, 16], f32>
    %ek = arith.constant 4.0 : f32
    %er = arith.mulf %ev, %ek : f32
    te.yield %er : f32
  }
  te.return %E : !te.tensor<[5, 16], f32>
}
sched.schedule @relax {
  %ej = sched.axis "E" 1
  sched.compute_at "D", %ej : !sched.iter<"E">
}
// CHECK-LABEL: te.func @relax
// CHECK:      %C = te.compute "C" {{.*}}te.realize = ["[0, 5]", "[0, 16]"]
// CHECK-NOT:  te.attach
// CHECK:      %D = te.compute "D" {{.*}}te.realize = ["[E_ei, 1]", "[E_ej, 1]"]
