// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{until=flat}' | filecheck %s --check-prefix=FLAT
// RUN: compiler-opt %s --split-input-file -p 'default-pipeline' | filecheck %s --check-prefix=LLVM

// te.extern end to end: flat buffers and the call in LLVM (passes/schedule-ops-extern.mlir
// tests infer-bound and schedule-ops on it).

// A te.extern stage between two computes. C reads only the first half of P, but
// the extern reads P whole: P is realized over its whole shape. The extern has
// no loops: schedule-ops emits one loop.call_extern over the whole buffers (its
// own result allocated from 0), the symbolic byte count computed before it.
// FLAT-LABEL: loop.func @ext_compute
// FLAT:         %P = loop.view "P" %arena at "0"
// FLAT:         %E = loop.view "E" %arena at "(n * 4 + 63) // 64 * 64"
// FLAT:         loop.call_extern @copy(%P, %E, %{{.*}}) : !loop.buffer<["n"], f32>, !loop.buffer<["n"], f32>, index
// LLVM:         llvm.call @copy(%P, %E, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// LLVM:       llvm.func @copy(!llvm.ptr, !llvm.ptr, i64)
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

// -----

// Two results, a float scalar and an output passed before the input.
// LLVM:         llvm.call @sum_diff(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, f32) -> ()
// LLVM:       llvm.func @sum_diff(!llvm.ptr, !llvm.ptr, !llvm.ptr, f32)
te.func @two(%a: !te.tensor<[4, 3], f32>) -> (!te.tensor<[4], f32>, !te.tensor<[4], f32>) {
  %half = arith.constant 0.5 : f32
  %s, %d = te.extern "S" @sum_diff(out 1, %a, out 0, %half) : (!te.tensor<[4, 3], f32>, f32) -> (!te.tensor<[4], f32>, !te.tensor<[4], f32>)
  te.return %s, %d : !te.tensor<[4], f32>, !te.tensor<[4], f32>
}

// -----

// P dies at the call that writes E, of P's size: storage-rewrite still gives E bytes
// of its own, as the callee's accesses are unknown.
// FLAT-LABEL: loop.func @dies_compute
// FLAT:         %E = loop.view "E" %arena at "64" {loop.fresh_because = "in-place over P unsafe: the external function @reverse accesses them"}
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
