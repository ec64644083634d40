// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{until=loop}' | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{loop-partition=false}' | filecheck %s --check-prefix=LLVM

// A stage computed inside a parallel loop (a matmul's B panel, packed at the k-block
// loop) gets a copy per thread on the stack (`loop.alloc local`): one buffer of the
// arena would be shared by the threads, and the loop would have to run serially.
te.func @packed(%A: !te.tensor<[32, 32], f32>, %B: !te.tensor<[32, 32], f32>) -> !te.tensor<[32, 32], f32> {
  %C = te.compute "C" (%i, %j) : !te.tensor<[32, 32], f32> {
    %0 = te.reduce sum (%k) in [32] : f32 {
      %1 = te.read %A[%i, %k] : !te.tensor<[32, 32], f32>
      %2 = te.read %B[%k, %j] : !te.tensor<[32, 32], f32>
      %3 = arith.mulf %1, %2 : f32
      te.yield %3 : f32
    }
    te.yield %0 : f32
  }
  te.return %C : !te.tensor<[32, 32], f32>
}
sched.schedule @packed {
  sched.cache_read "B", "global" readers ["C"]
  %j = sched.axis "C" 1
  %j_outer, %j_inner = sched.split %j by 8 : !sched.iter<"C">
  %k = sched.axis "C" reduce 0
  %k_outer, %k_inner = sched.split %k by 16 : !sched.iter<"C">
  %i = sched.axis "C" 0
  sched.reorder %j_outer, %k_outer, %i, %k_inner, %j_inner : !sched.iter<"C">
  sched.vectorize %j_inner : !sched.iter<"C">
  sched.parallel %j_outer : !sched.iter<"C">
  sched.compute_at "B.global", %k_outer : !sched.iter<"C">
}
// C's column panel is set to 0 inside the parallel loop, right before the first reduce
// loop (TVM's init position), not in a nest of its own over the whole of C.
// CHECK-LABEL: loop.func @packed(
// CHECK-NOT:     _init
// CHECK:         loop.for %C_j_o = %{{.*}} extent %{{.*}} parallel {
// CHECK:           loop.for %C_i_init = %{{.*}} extent %{{.*}} {
// CHECK:             loop.for %C_j_i_init = %{{.*}} extent %{{.*}} vectorized {
// CHECK:               loop.store %{{.*}}, %C[%C_i_init, %{{.*}}] : !loop.buffer<[32, 32], f32>
// CHECK:           loop.for %C_k_o = %{{.*}} extent %{{.*}} {
// CHECK:             %B.global = loop.alloc local "B.global" [%{{.*}}, %{{.*}}] : !loop.buffer<[16, 8], f32>
// CHECK:             loop.for %B_global_ax0 = %{{.*}} extent %{{.*}} {
// LLVM-LABEL: llvm.func @packed_compute(
// LLVM:         llvm.call @GOMP_parallel(
// LLVM-NOT:     GOMP_parallel
// LLVM-LABEL: llvm.func @packed_compute_parallel0(
// LLVM:         llvm.alloca %{{.*}} x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// LLVM:         llvm.call @omp_get_thread_num()

// -----

// The same stage under a serial loop stays a buffer of the arena (the memory plan
// counts it), and so does one over the per-thread limit (256 KiB; this one is 512 KiB) inside a parallel
// loop: that loop then runs serially (C's initialisation is inside it: no fork at all).
te.func @large(%A: !te.tensor<[256, 512], f32>, %B: !te.tensor<[512, 512], f32>) -> !te.tensor<[256, 512], f32> {
  %C = te.compute "C" (%i, %j) : !te.tensor<[256, 512], f32> {
    %0 = te.reduce sum (%k) in [512] : f32 {
      %1 = te.read %A[%i, %k] : !te.tensor<[256, 512], f32>
      %2 = te.read %B[%k, %j] : !te.tensor<[512, 512], f32>
      %3 = arith.mulf %1, %2 : f32
      te.yield %3 : f32
    }
    te.yield %0 : f32
  }
  te.return %C : !te.tensor<[256, 512], f32>
}
sched.schedule @large {
  sched.cache_read "B", "global" readers ["C"]
  %j = sched.axis "C" 1
  %j_outer, %j_inner = sched.split %j by 256 : !sched.iter<"C">
  %k = sched.axis "C" reduce 0
  %i = sched.axis "C" 0
  sched.reorder %j_outer, %i, %k, %j_inner : !sched.iter<"C">
  sched.parallel %j_outer : !sched.iter<"C">
  sched.compute_at "B.global", %j_outer : !sched.iter<"C">
}
// CHECK-LABEL: loop.func @large(
// CHECK:         loop.for %C_j_o = %{{.*}} extent %{{.*}} parallel {
// CHECK:           %B.global = loop.alloc "B.global" [%{{.*}}, %{{.*}}] : !loop.buffer<[512, 256], f32>
// LLVM-LABEL: llvm.func @large_compute(
// LLVM-NOT:     GOMP_parallel
// LLVM:         llvm.return
