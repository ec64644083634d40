// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s
// RUN: compiler-opt %s --split-input-file -p schedule-ops | filecheck %s --check-prefix=LOOPS

// A te.extern stage between two computes. C reads only the first half of P, but
// the extern reads P whole: P is realized over its whole shape. The extern has
// no loops: schedule-ops emits one loop.call_extern over the whole buffers (its
// own result allocated from 0), the symbolic byte count computed before it.
te.func @ext(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n // 2"], f32> {
  %p = te.compute "P" (%i) : !te.tensor<["n"], f32> {
    %v = te.read %a[%i] : !te.tensor<["n"], f32>
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    te.yield %m : f32
  }
  %n = te.var "n" : index
  %four = arith.constant 4 : index
  %bytes = arith.muli %n, %four : index
  %e = te.extern "E" @copy(%p, out 0, %bytes) : (!te.tensor<["n"], f32>, index) -> !te.tensor<["n"], f32>
  %c = te.compute "C" (%i) : !te.tensor<["n // 2"], f32> {
    %x = te.read %e[%i] : !te.tensor<["n"], f32>
    %y = te.read %p[%i] : !te.tensor<["n"], f32>
    %s = arith.addf %x, %y : f32
    te.yield %s : f32
  }
  te.return %c : !te.tensor<["n // 2"], f32>
}
// CHECK-LABEL: te.func @ext
// CHECK:         te.compute "P" (%i) : !te.tensor<["n"], f32> attributes {te.realize = ["[0, n]"], te.alloc_shape = ["n"], te.loops = ["P_i = [0, n] serial"]
// CHECK:         %e = te.extern "E" @copy(%p, out 0, %bytes) : (!te.tensor<["n"], f32>, index) -> !te.tensor<["n"], f32>
// CHECK:         te.compute "C" (%i_1) : !te.tensor<["n // 2"], f32> attributes {te.realize = ["[0, n // 2]"]

// LOOPS-LABEL: loop.func @ext(%a: !loop.buffer<["n"], f32>, %C: !loop.buffer<["n // 2"], f32> {loop.output}) {
// LOOPS:         %P = loop.alloc "P" [%{{.*}}] : !loop.buffer<["n"], f32>
// LOOPS:         loop.for %P_i = %{{.*}} extent %n {
// LOOPS:         %[[FOUR:.*]] = arith.constant 4 : index
// LOOPS-NEXT:    %[[BYTES:.*]] = arith.muli %n, %[[FOUR]] : index
// LOOPS-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// LOOPS-NEXT:    %E = loop.alloc "E" [%[[Z]]] : !loop.buffer<["n"], f32>
// LOOPS-NEXT:    loop.call_extern @copy(%P, %E, %[[BYTES]]) : !loop.buffer<["n"], f32>, !loop.buffer<["n"], f32>, index
// LOOPS-NEXT:    %{{.*}} = arith.constant 0 : index
// LOOPS:         loop.for %C_i = %{{.*}} extent %{{.*}} {
// LOOPS:           loop.load %E[%C_i]



// -----

// Two results, a float scalar and an output passed before the input.
te.func @two(%a: !te.tensor<[4, 3], f32>) -> (!te.tensor<[4], f32>, !te.tensor<[4], f32>) {
  %half = arith.constant 0.5 : f32
  %s, %d = te.extern "S" @sum_diff(out 1, %a, out 0, %half) : (!te.tensor<[4, 3], f32>, f32) -> (!te.tensor<[4], f32>, !te.tensor<[4], f32>)
  te.return %s, %d : !te.tensor<[4], f32>, !te.tensor<[4], f32>
}
// CHECK-LABEL: te.func @two
// CHECK:         %s, %d = te.extern "S" @sum_diff(out 1, %a, out 0, %half) : (!te.tensor<[4, 3], f32>, f32) -> (!te.tensor<[4], f32>, !te.tensor<[4], f32>)

// LOOPS-LABEL: loop.func @two(%a: !loop.buffer<[4, 3], f32>, %S.v0: !loop.buffer<[4], f32> {loop.output}, %S.v1: !loop.buffer<[4], f32> {loop.output}) {
// LOOPS-NEXT:    %half = arith.constant 5.000000e-01 : f32
// LOOPS-NEXT:    loop.call_extern @sum_diff(%S.v1, %a, %S.v0, %half) : !loop.buffer<[4], f32>, !loop.buffer<[4, 3], f32>, !loop.buffer<[4], f32>, f32
// LOOPS-NEXT:  }


// -----

// P dies at the call that writes E, of P's size: storage-rewrite still gives E bytes
// of its own, as the callee's accesses are unknown.
te.func @dies(%a: !te.tensor<[16], f32>) -> !te.tensor<[16], f32> {
  %p = te.compute "P" (%i) : !te.tensor<[16], f32> {
    %v = te.read %a[%i] : !te.tensor<[16], f32>
    te.yield %v : f32
  }
  %e = te.extern "E" @reverse(%p, out 0) : (!te.tensor<[16], f32>) -> !te.tensor<[16], f32>
  %c = te.compute "C" (%i) : !te.tensor<[16], f32> {
    %x = te.read %e[%i] : !te.tensor<[16], f32>
    te.yield %x : f32
  }
  te.return %c : !te.tensor<[16], f32>
}
