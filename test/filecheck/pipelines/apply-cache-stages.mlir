// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{until=loop}' | filecheck %s --check-prefix=LOOPS
// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{until=loop},storage-flatten' | filecheck %s --check-prefix=FLAT

// cache_read / cache_write end to end: the te program and its schedule through the
// pipeline up to the loop dialect, and flattened (passes/apply-cache-stages.mlir tests
// the pass alone).

// The micro-kernel pattern: C's computation moves to C.local, computed at C's
// 4 x 8 tile loop jo (10 x 12 is not a multiple of the tile), so C.local is a
// 4 x 8 buffer realized at the tile's corner; C copies it. (infer-bound applies
// the cache stages itself when apply-cache-stages did not run.)
// LOOPS-LABEL: loop.func @micro_kernel
// LOOPS:         loop.for %C_i_o = %{{.*}} extent %{{.*}} {
// LOOPS-NEXT:      %{{.*}} = arith.constant 0 : index
// LOOPS-NEXT:      %{{.*}} = arith.constant 2 : index
// LOOPS-NEXT:      loop.for %C_j_o = %{{.*}} extent %{{.*}} {
// LOOPS:             %C.local = loop.alloc "C.local" [%{{.*}}, %{{.*}}] : !loop.buffer<[4, 8], f32>
// LOOPS:             loop.for %C_local_i_init = %{{.*}} extent %{{.*}} unrolled {
// LOOPS:               loop.for %C_local_j_init = %{{.*}} extent %{{.*}} vectorized {
// LOOPS:             loop.for %C_local_k = %{{.*}} extent %{{.*}} {
// LOOPS:               loop.for %C_local_i = %{{.*}} extent %{{.*}} unrolled {
// LOOPS:                 loop.for %C_local_j = %{{.*}} extent %{{.*}} vectorized {
// LOOPS:                   loop.store %{{.*}}, %C.local[%C_local_i, %C_local_j] : !loop.buffer<[4, 8], f32>
// LOOPS:             loop.for %C_i_i = %{{.*}} extent %{{.*}} {
// LOOPS-NEXT:          %{{.*}} = arith.constant 0 : index
// LOOPS:               loop.for %C_j_i = %{{.*}} extent %{{.*}} vectorized {
// LOOPS:                 %[[L:.*]] = loop.load %C.local[%{{.*}}, %{{.*}}] : !loop.buffer<[4, 8], f32>
// LOOPS-NEXT:            loop.store %[[L]], %C[%{{.*}}, %{{.*}}] : !loop.buffer<[10, 12], f32>
// FLAT-LABEL: loop.func @micro_kernel
// FLAT:         %C.local = loop.alloc "C.local" [%{{.*}}] : !loop.buffer<[32], f32>
te.func @micro_kernel(%a: !te.tensor<[10, 6], f32>, %b: !te.tensor<[6, 12], f32>) -> !te.tensor<[10, 12], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[10, 12], f32> {
    %s = te.reduce sum (%k) in [6] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[10, 6], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[6, 12], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[10, 12], f32>
}
sched.schedule @micro_kernel {
  sched.cache_write "C", "local"
  %i = sched.axis "C" 0
  %j = sched.axis "C" 1
  %io, %ii = sched.split %i by 4 : !sched.iter<"C">
  %jo, %ji = sched.split %j by 8 : !sched.iter<"C">
  sched.reorder %io, %jo, %ii, %ji : !sched.iter<"C">
  sched.vectorize %ji : !sched.iter<"C">
  sched.compute_at "C.local", %jo : !sched.iter<"C">
  %ci = sched.axis "C.local" 0
  %cj = sched.axis "C.local" 1
  %ck = sched.axis "C.local" reduce 0
  sched.reorder %ck, %ci, %cj : !sched.iter<"C.local">
  sched.unroll %ci : !sched.iter<"C.local">
  sched.vectorize %cj : !sched.iter<"C.local">
}

// -----

// TVM's relayout: a cache_write after a split and a reorder of C lays the cache
// out by C's loops (io, j, ii): 3 x n x 4, guarded where io * 4 + ii passes 10
// (the split by 4 does not divide 10); C reads it at [i // 4, j, i % 4], and its
// loops start afresh (the split and the reorder are gone from the schedule).
// FLAT-LABEL: loop.func @relayout
// FLAT:         %C.global = loop.alloc "C.global" [%{{.*}}] : !loop.buffer<["n * 12"], f32>
te.func @relayout(%a: !te.tensor<[10, "n"], f32>) -> !te.tensor<[10, "n"], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[10, "n"], f32> {
    %x = te.read %a[%i, %j] : !te.tensor<[10, "n"], f32>
    te.yield %x : f32
  }
  te.return %c : !te.tensor<[10, "n"], f32>
}
sched.schedule @relayout {
  %i = sched.axis "C" 0
  %j = sched.axis "C" 1
  %io, %ii = sched.split %i by 4 : !sched.iter<"C">
  sched.reorder %io, %j, %ii : !sched.iter<"C">
  sched.cache_write "C", "global"
  sched.parallel %i : !sched.iter<"C">
}

// -----

// cache_read of an argument for one of its two readers, computed at the
// reader's row: A.local holds one row (1 x 8), which B reads; D still reads A.
// LOOPS-LABEL: loop.func @cache_read
// LOOPS:         loop.for %B_i = %{{.*}} extent %{{.*}} {
// LOOPS:           %A.local = loop.alloc "A.local" [%B_i, %{{.*}}] : !loop.buffer<[1, 8], f32>
te.func @cache_read(%A: !te.tensor<[6, 8], f32>) -> (!te.tensor<[6, 8], f32>, !te.tensor<[6, 8], f32>) {
  %b = te.compute "B" (%i, %j) : !te.tensor<[6, 8], f32> {
    %x = te.read %A[%i, %j] : !te.tensor<[6, 8], f32>
    %y = arith.addf %x, %x : f32
    te.yield %y : f32
  }
  %d = te.compute "D" (%i, %j) : !te.tensor<[6, 8], f32> {
    %x = te.read %A[%i, %j] : !te.tensor<[6, 8], f32>
    te.yield %x : f32
  }
  te.return %b, %d : !te.tensor<[6, 8], f32>, !te.tensor<[6, 8], f32>
}
sched.schedule @cache_read {
  sched.cache_read "A", "local" readers ["B"]
  %i = sched.axis "B" 0
  sched.compute_at "A.local", %i : !sched.iter<"B">
}

// -----

// storage_align: B's rows (stride 8) are padded to a stride of 16 * k + 1 = 17;
// the flat buffer spans 7 * 17 + 8 = 127 elements instead of 64.
// LOOPS-LABEL: loop.func @storage_align
// LOOPS:         %B = loop.alloc "B" [%{{.*}}, %{{.*}}] : !loop.buffer<[8, 8], f32, strides [17, 1]>
// FLAT-LABEL: loop.func @storage_align
// FLAT:         %B = loop.alloc "B" [%{{.*}}] : !loop.buffer<[127], f32>
// FLAT:         loop.store %{{.*}}, %B[%{{.*}}] : !loop.buffer<[127], f32>
te.func @storage_align(%A: !te.tensor<[8, 8], f32>) -> !te.tensor<[8, 8], f32> {
  %b = te.compute "B" (%i, %j) : !te.tensor<[8, 8], f32> {
    %x = te.read %A[%i, %j] : !te.tensor<[8, 8], f32>
    te.yield %x : f32
  }
  %c = te.compute "C" (%i, %j) : !te.tensor<[8, 8], f32> {
    %x = te.read %b[%j, %i] : !te.tensor<[8, 8], f32>
    te.yield %x : f32
  }
  te.return %c : !te.tensor<[8, 8], f32>
}
sched.schedule @storage_align {
  %i = sched.axis "B" 0
  sched.storage_align %i factor 16 offset 1 : !sched.iter<"B">
}
