// RUN: compiler-opt %s --split-input-file -p apply-cache-stages | filecheck %s
// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s --check-prefix=BOUNDS

// The micro-kernel pattern: C's computation moves to C.local, computed at C's
// 4 x 8 tile loop jo (10 x 12 is not a multiple of the tile), so C.local is a
// 4 x 8 buffer realized at the tile's corner; C copies it. (infer-bound applies
// the cache stages itself when apply-cache-stages did not run.)
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
// CHECK-LABEL: te.func @micro_kernel
// CHECK:         %C.local = te.compute "C.local" (%i, %j) : !te.tensor<[10, 12], f32> {
// CHECK-NEXT:      %s = te.reduce sum (%k) in [6] : f32 {
// CHECK:           te.yield %s : f32
// CHECK:         %c = te.compute "C" (%[[I:.*]], %[[J:.*]]) : !te.tensor<[10, 12], f32> {
// CHECK-NEXT:      %[[V:.*]] = te.read %C.local[%[[I]], %[[J]]] : !te.tensor<[10, 12], f32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK:       sched.schedule @micro_kernel {
// CHECK-NEXT:    %i = sched.axis "C" 0
// CHECK-NOT:     sched.cache_write
// CHECK:         sched.compute_at "C.local", %jo : !sched.iter<"C">
// BOUNDS-LABEL: te.func @micro_kernel
// BOUNDS:       te.compute "C.local" {{.*}}te.realize = ["[C_i_o * 4, min(C_i_o * 4 + 3, 9) - C_i_o * 4 + 1]", "[C_j_o * 8, min(C_j_o * 8 + 7, 11) - C_j_o * 8 + 1]"], te.alloc_shape = ["4", "8"]
// BOUNDS-SAME:  te.loops = ["C_local_k = [0, 6] serial reduce", "C_local_i = [C_i_o * 4, min(C_i_o * 4 + 3, 9) - C_i_o * 4 + 1] unrolled", "C_local_j = [C_j_o * 8, min(C_j_o * 8 + 7, 11) - C_j_o * 8 + 1] vectorized"]
// BOUNDS-SAME:  te.attach = "C_j_o"
// BOUNDS:       te.compute "C" {{.*}}te.loops = ["C_i_o = [0, 3] serial", "C_j_o = [0, 2] serial", "C_i_i = [0, min(10 - C_i_o * 4, 4)] serial", "C_j_i = [0, min(12 - C_j_o * 8, 8)] vectorized"]

// -----

// TVM's relayout: a cache_write after a split and a reorder of C lays the cache
// out by C's loops (io, j, ii): 3 x n x 4, guarded where io * 4 + ii passes 10
// (the split by 4 does not divide 10); C reads it at [i // 4, j, i % 4], and its
// loops start afresh (the split and the reorder are gone from the schedule).
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
// CHECK-LABEL: te.func @relayout
// CHECK:         %C.global = te.compute "C.global" (%i_o, %j, %i_i) : !te.tensor<[3, "n", 4], f32> {
// CHECK:           %[[ROW:.*]] = arith.addi %i_i, %{{.*}} : index
// CHECK:           %[[OK:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
// CHECK-NEXT:      %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:        %x = te.read %a[%[[ROW]], %j] : !te.tensor<[10, "n"], f32>
// CHECK-NEXT:        scf.yield %x : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK:           te.yield %[[V]] : f32
// CHECK:         %c = te.compute "C" (%[[CI:.*]], %{{.*}}) : !te.tensor<[10, "n"], f32> {
// CHECK:           %[[Q:.*]] = arith.floordivsi %[[CI]], %{{.*}} : index
// CHECK:           %[[R:.*]] = arith.subi %[[CI]], %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = te.read %C.global[%[[Q]], %{{.*}}, %[[R]]] : !te.tensor<[3, "n", 4], f32>
// CHECK:       sched.schedule @relayout {
// CHECK-NEXT:    %i = sched.axis "C" 0
// CHECK-NEXT:    %j = sched.axis "C" 1
// CHECK-NEXT:    sched.parallel %i : !sched.iter<"C">
// CHECK-NEXT:  }
// BOUNDS-LABEL: te.func @relayout
// BOUNDS:       te.compute "C.global" {{.*}}te.realize = ["[0, 3]", "[0, n]", "[0, 4]"]
// BOUNDS-SAME:  te.loops = ["C_global_i_o = [0, 3] serial", "C_global_j = [0, n] serial", "C_global_i_i = [0, 4] serial"]
// BOUNDS:       te.compute "C" {{.*}}te.loops = ["C_i = [0, 10] parallel", "C_j = [0, n] serial"]

// -----

// cache_read of an argument for one of its two readers, computed at the
// reader's row: A.local holds one row (1 x 8), which B reads; D still reads A.
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
// CHECK-LABEL: te.func @cache_read
// CHECK:         %A.local = te.compute "A.local" (%ax0, %ax1) : !te.tensor<[6, 8], f32> {
// CHECK-NEXT:      %{{.*}} = te.read %A[%ax0, %ax1] : !te.tensor<[6, 8], f32>
// CHECK:         %b = te.compute "B"
// CHECK-NEXT:      %x = te.read %A.local[%i, %j] : !te.tensor<[6, 8], f32>
// CHECK:         %d = te.compute "D"
// CHECK-NEXT:      %{{.*}} = te.read %A[%{{.*}}, %{{.*}}] : !te.tensor<[6, 8], f32>
// CHECK:       sched.schedule @cache_read {
// CHECK-NEXT:    %i = sched.axis "B" 0
// CHECK-NEXT:    sched.compute_at "A.local", %i : !sched.iter<"B">
// CHECK-NEXT:  }
// BOUNDS-LABEL: te.func @cache_read
// BOUNDS:       te.compute "A.local" {{.*}}te.realize = ["[B_i, 1]", "[0, 8]"], te.alloc_shape = ["1", "8"]

// -----

// storage_align: B's rows (stride 8) are padded to a stride of 16 * k + 1 = 17;
// the flat buffer spans 7 * 17 + 8 = 127 elements instead of 64.
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
// CHECK-LABEL: te.func @storage_align
// CHECK:         %b = te.compute "B" (%i, %j) : !te.tensor<[8, 8], f32> attributes {te.storage_align = ["dim 0 factor 16 offset 1"]} {
// CHECK:       sched.schedule @storage_align {
// CHECK-NEXT:    %i = sched.axis "B" 0
// CHECK-NEXT:  }
