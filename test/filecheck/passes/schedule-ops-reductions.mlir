// RUN: compiler-opt %s --split-input-file -p schedule-ops | filecheck %s

// schedule-ops on reductions. The input is infer-bound's output, checked in
// (`compiler-opt infer-bound-reductions.mlir -p infer-bound`), so a change to
// infer-bound does not change this test.

// argmax: one accumulator per result, both combined by the combiner's ops at every k.
// CHECK-LABEL: loop.func @argmax(%a: !loop.buffer<[4, "n"], f32>, %T.v0: !loop.buffer<[4], i32> {loop.output}, %T.v1: !loop.buffer<[4], f32> {loop.output}) {
// CHECK:         loop.for %T_r = %{{.*}} extent %{{.*}} {
// CHECK:           %[[ACC0:.*]] = loop.alloc local "T.acc0" [%{{.*}}] : !loop.buffer<[1], i32>
// CHECK-NEXT:      %[[I0:.*]] = arith.constant -1 : i32
// CHECK-NEXT:      loop.store %[[I0]], %[[ACC0]][%{{.*}}] : !loop.buffer<[1], i32>
// CHECK:           %[[ACC1:.*]] = loop.alloc local "T.acc1" [%{{.*}}] : !loop.buffer<[1], f32>
// CHECK-NEXT:      %[[I1:.*]] = arith.constant -3.40282347e+38 : f32
// CHECK:           loop.for %T_k = %{{.*}} extent %n {
// CHECK-NEXT:        %[[KI:.*]] = arith.index_cast %T_k : index to i32
// CHECK-NEXT:        %[[X:.*]] = loop.load %a[%T_r, %T_k]
// CHECK:             %[[A0:.*]] = loop.load %[[ACC0]][%{{.*}}]
// CHECK-NEXT:        %[[A1:.*]] = loop.load %[[ACC1]][%{{.*}}]
// CHECK-NEXT:        %[[GE:.*]] = arith.cmpf oge, %[[A1]], %[[X]] : f32
// CHECK-NEXT:        %[[SI:.*]] = arith.select %[[GE]], %[[A0]], %[[KI]] : i32
// CHECK-NEXT:        %[[SV:.*]] = arith.select %[[GE]], %[[A1]], %[[X]] : f32
// CHECK-NEXT:        loop.store %[[SI]], %[[ACC0]][%{{.*}}]
// CHECK-NEXT:        loop.store %[[SV]], %[[ACC1]][%{{.*}}]
// CHECK-NEXT:      }
// CHECK:           loop.store %{{.*}}, %T.v0[%T_r] : !loop.buffer<[4], i32>
// CHECK:           loop.store %{{.*}}, %T.v1[%T_r] : !loop.buffer<[4], f32>
builtin.module {
  te.func @argmax(%a: !te.tensor<[4, "n"], f32>) -> (!te.tensor<[4], i32>, !te.tensor<[4], f32>) {
    %i, %v = te.compute "T" (%r) : !te.tensor<[4], i32>, !te.tensor<[4], f32> attributes {te.realize = ["[0, 4]"], te.alloc_shape = ["4"], te.loops = ["T_r = [0, 4] serial", "T_k = [0, n] serial reduce"], te.axis_values = ["T_r", "T_k"], te.guards = []} {
      %ri, %rv = te.reduce argmax (%k) in ["n"] init(-1 : i32, -3.40282347e+38 : f32) : i32, f32 {
        %ki = arith.index_cast %k : index to i32
        %x = te.read %a[%r, %k] : !te.tensor<[4, "n"], f32>
        te.yield %ki, %x : i32, f32
      } combiner (%ai, %av, %bi, %bv) {
        %ge = arith.cmpf oge, %av, %bv : f32
        %si = arith.select %ge, %ai, %bi : i32
        %sv = arith.select %ge, %av, %bv : f32
        te.yield %si, %sv : i32, f32
      }
      te.yield %ri, %rv : i32, f32
    }
    te.return %i, %v : !te.tensor<[4], i32>, !te.tensor<[4], f32>
  }
}

// -----

// A stage computing two tensors, read at different offsets by a consumer whose
// loop it is computed in: its region is the union of the reads (6 = 4 + 2 per
// iteration of xo), and each tensor gets a buffer of that size.
// CHECK-LABEL: loop.func @union
// CHECK:         loop.for %C_j_o = %{{.*}} extent %{{.*}} {
// CHECK:           %[[P:.*]] = loop.alloc "PQ.v0" [%{{.*}}] : !loop.buffer<[6], f32>
// CHECK:           %[[Q:.*]] = loop.alloc "PQ.v1" [%{{.*}}] : !loop.buffer<[6], f32>
// CHECK:           loop.for %PQ_i = %{{.*}} extent %{{.*}} {
// CHECK:             loop.store %{{.*}}, %[[P]][%{{.*}}]
// CHECK-NEXT:        loop.store %{{.*}}, %[[Q]][%{{.*}}]
builtin.module {
  te.func @union(%a: !te.tensor<[12], f32>) -> !te.tensor<[10], f32> {
    %p, %q = te.compute "PQ" (%i) : !te.tensor<[12], f32>, !te.tensor<[12], f32> attributes {te.realize = ["[C_j_o * 4, min(C_j_o * 4 + 3, 9) - C_j_o * 4 + 3]"], te.alloc_shape = ["6"], te.loops = ["PQ_i = [C_j_o * 4, min(C_j_o * 4 + 3, 9) - C_j_o * 4 + 3] serial"], te.axis_values = ["PQ_i"], te.guards = [], te.attach = "C_j_o"} {
      %x = te.read %a[%i] : !te.tensor<[12], f32>
      %one = arith.constant 1.000000e+00 : f32
      %p1 = arith.addf %x, %one : f32
      %q1 = arith.mulf %x, %x : f32
      te.yield %p1, %q1 : f32, f32
    }
    %c = te.compute "C" (%j) : !te.tensor<[10], f32> attributes {te.realize = ["[0, 10]"], te.alloc_shape = ["10"], te.loops = ["C_j_o = [0, 3] serial", "C_j_i = [0, min(10 - C_j_o * 4, 4)] serial"], te.axis_values = ["C_j_i + C_j_o * 4"], te.guards = []} {
      %c2 = arith.constant 2 : index
      %j2 = arith.addi %j, %c2 : index
      %u = te.read %p[%j] : !te.tensor<[12], f32>
      %w = te.read %q[%j2] : !te.tensor<[12], f32>
      %s = arith.addf %u, %w : f32
      te.yield %s : f32
    }
    te.return %c : !te.tensor<[10], f32>
  }
}

// -----

// A reducer whose start value and combiner name the data axis (TVM's
// test_loop_dep_reduce_cache_write): the identity region is evaluated before the
// reduce loop with the data loop's variable, the combiner at each k with it too.
// CHECK-LABEL: loop.func @axis_reducer
// CHECK:         loop.for %Y_i = %{{.*}} extent %{{.*}} {
// CHECK:           %[[ACC:.*]] = loop.alloc local "Y.acc" [%{{.*}}] : !loop.buffer<[1], f32>
// CHECK:           %[[BIG:.*]] = arith.cmpi sgt, %Y_i, %{{.*}} : index
// CHECK-NEXT:      %[[I64:.*]] = arith.index_cast %Y_i : index to i64
// CHECK-NEXT:      %[[FI:.*]] = arith.sitofp %[[I64]] : i64 to f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[START:.*]] = arith.select %[[BIG]], %[[ZERO]], %[[FI]] : f32
// CHECK-NEXT:      loop.store %[[START]], %[[ACC]][%{{.*}}] : !loop.buffer<[1], f32>
// CHECK:           loop.for %Y_k = %{{.*}} extent %Y_i {
// CHECK-NEXT:        %[[V:.*]] = loop.load %a[%Y_k]
// CHECK:             %[[A:.*]] = loop.load %[[ACC]][%{{.*}}]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[V]] : f32
// CHECK-NEXT:        %[[J64:.*]] = arith.index_cast %Y_i : index to i64
// CHECK-NEXT:        %[[FJ:.*]] = arith.sitofp %[[J64]] : i64 to f32
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[S]], %[[FJ]] : f32
// CHECK-NEXT:        loop.store %[[M]], %[[ACC]][%{{.*}}]
// CHECK-NEXT:      }
// CHECK:           loop.store %{{.*}}, %Y[%Y_i] : !loop.buffer<[10], f32>
builtin.module {
  te.func @axis_reducer(%a: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
    %y = te.compute "Y" (%i) : !te.tensor<[10], f32> attributes {te.realize = ["[0, 10]"], te.alloc_shape = ["10"], te.loops = ["Y_i = [0, 10] serial", "Y_k = [0, Y_i] serial reduce"], te.axis_values = ["Y_i", "Y_k"], te.guards = []} {
      %r = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 {
        %v = te.read %a[%k] : !te.tensor<[10], f32>
        te.yield %v : f32
      } identity {
        %one = arith.constant 1 : index
        %big = arith.cmpi sgt, %i, %one : index
        %i64 = arith.index_cast %i : index to i64
        %fi = arith.sitofp %i64 : i64 to f32
        %zero = arith.constant 0.000000e+00 : f32
        %start = arith.select %big, %zero, %fi : f32
        te.yield %start : f32
      } combiner (%x, %e) {
        %s = arith.addf %x, %e : f32
        %j64 = arith.index_cast %i : index to i64
        %fj = arith.sitofp %j64 : i64 to f32
        %m = arith.maximumf %s, %fj : f32
        te.yield %m : f32
      }
      te.yield %r : f32
    }
    te.return %y : !te.tensor<[10], f32>
  }
}

// -----

// Its cache_write laid out by a split of the data axis: the cache's axis i is
// i_o * 4 + i_i, computed in the identity and the combiner (they may use only the
// compute's axes); the lowered start is that value at each (i_o, i_i).
// CHECK-LABEL: loop.func @axis_reducer_cached
// CHECK:         loop.for %Y_local_i_o = %{{.*}} extent %{{.*}} {
// CHECK:           loop.for %Y_local_i_i = %{{.*}} extent %{{.*}} {
// CHECK:             %[[ACC:.*]] = loop.alloc local "Y.local.acc"
// CHECK:             %[[M:.*]] = arith.muli %Y_local_i_o, %{{.*}} : index
// CHECK-NEXT:        %[[I:.*]] = arith.addi %Y_local_i_i, %[[M]] : index
// CHECK-NEXT:        %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:        %[[FI:.*]] = arith.sitofp %[[I64]] : i64 to f32
// CHECK-NEXT:        loop.store %[[FI]], %[[ACC]][%{{.*}}] : !loop.buffer<[1], f32>
// CHECK:             loop.for %Y_local_k = %{{.*}} extent %{{.*}} {
// CHECK:               arith.maximumf
// CHECK:             loop.store %{{.*}}, %Y.local[%Y_local_i_o, %Y_local_i_i]
builtin.module {
  te.func @axis_reducer_cached(%a: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
    %Y.local = te.compute "Y.local" (%i_o, %i_i) : !te.tensor<[3, 4], f32> attributes {te.realize = ["[0, 3]", "[0, 4]"], te.alloc_shape = ["3", "4"], te.loops = ["Y_local_i_o = [0, 3] serial", "Y_local_i_i = [0, 4] serial", "Y_local_k = [0, Y_local_i_i + Y_local_i_o * 4] serial reduce"], te.axis_values = ["Y_local_i_o", "Y_local_i_i", "Y_local_k"], te.guards = []} {
      %0 = arith.constant 4 : index
      %1 = arith.muli %i_o, %0 : index
      %2 = arith.addi %i_i, %1 : index
      %3 = arith.constant 10 : index
      %4 = arith.cmpi slt, %2, %3 : index
      %r = te.reduce sum (%k) in ["?"] dynamic(%2) : f32 {
        %5 = scf.if %4 -> (f32) {
          %v = te.read %a[%k] : !te.tensor<[10], f32>
          scf.yield %v : f32
        } else {
          %6 = arith.constant 4 : index
          %7 = arith.muli %i_o, %6 : index
          %8 = arith.addi %i_i, %7 : index
          %i64 = arith.index_cast %8 : index to i64
          %fi = arith.sitofp %i64 : i64 to f32
          scf.yield %fi : f32
        }
        te.yield %5 : f32
      } identity {
        %9 = arith.constant 4 : index
        %10 = arith.muli %i_o, %9 : index
        %11 = arith.addi %i_i, %10 : index
        %i64_1 = arith.index_cast %11 : index to i64
        %fi_1 = arith.sitofp %i64_1 : i64 to f32
        te.yield %fi_1 : f32
      } combiner (%x, %e) {
        %12 = arith.constant 4 : index
        %13 = arith.muli %i_o, %12 : index
        %14 = arith.addi %i_i, %13 : index
        %s = arith.addf %x, %e : f32
        %j64 = arith.index_cast %14 : index to i64
        %fj = arith.sitofp %j64 : i64 to f32
        %m = arith.maximumf %s, %fj : f32
        te.yield %m : f32
      }
      te.yield %r : f32
    }
    %y = te.compute "Y" (%i) : !te.tensor<[10], f32> attributes {te.realize = ["[0, 10]"], te.alloc_shape = ["10"], te.loops = ["Y_i = [0, 10] serial"], te.axis_values = ["Y_i"], te.guards = []} {
      %15 = arith.constant 4 : index
      %16 = arith.floordivsi %i, %15 : index
      %17 = arith.muli %16, %15 : index
      %18 = arith.subi %i, %17 : index
      %19 = te.read %Y.local[%16, %18] : !te.tensor<[3, 4], f32>
      te.yield %19 : f32
    }
    te.return %y : !te.tensor<[10], f32>
  }
}
