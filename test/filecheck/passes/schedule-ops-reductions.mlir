// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s --check-prefix=BOUNDS
// RUN: compiler-opt %s --split-input-file -p infer-bound,schedule-ops | filecheck %s

// argmax: one accumulator per result, both combined by the combiner's ops at every k.
te.func @argmax(%a: !te.tensor<[4, "n"], f32>) -> (!te.tensor<[4], i32>, !te.tensor<[4], f32>) {
  %i, %v = te.compute "T" (%r) : !te.tensor<[4], i32>, !te.tensor<[4], f32> {
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

// -----

// A stage computing two tensors, read at different offsets by a consumer whose
// loop it is computed in: its region is the union of the reads (6 = 4 + 2 per
// iteration of xo), and each tensor gets a buffer of that size.
te.func @union(%a: !te.tensor<[12], f32>) -> !te.tensor<[10], f32> {
  %p, %q = te.compute "PQ" (%i) : !te.tensor<[12], f32>, !te.tensor<[12], f32> {
    %x = te.read %a[%i] : !te.tensor<[12], f32>
    %one = arith.constant 1.0 : f32
    %p1 = arith.addf %x, %one : f32
    %q1 = arith.mulf %x, %x : f32
    te.yield %p1, %q1 : f32, f32
  }
  %c = te.compute "C" (%j) : !te.tensor<[10], f32> {
    %c2 = arith.constant 2 : index
    %j2 = arith.addi %j, %c2 : index
    %u = te.read %p[%j] : !te.tensor<[12], f32>
    %w = te.read %q[%j2] : !te.tensor<[12], f32>
    %s = arith.addf %u, %w : f32
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[10], f32>
}
sched.schedule @union {
  %j = sched.axis "C" 0
  %jo, %ji = sched.split %j by 4 : !sched.iter<"C">
  sched.compute_at "PQ", %jo : !sched.iter<"C">
}

// BOUNDS-LABEL: te.func @union
// BOUNDS: te.compute "PQ" {{.*}} te.alloc_shape = ["6"], te.loops = ["PQ_i = [C_j_o * 4, min(C_j_o * 4 + 3, 9) - C_j_o * 4 + 3] serial"]
// CHECK-LABEL: loop.func @union
// CHECK:         loop.for %C_j_o = %{{.*}} extent %{{.*}} {
// CHECK:           %[[P:.*]] = loop.alloc "PQ.v0" [%{{.*}}] : !loop.buffer<[6], f32>
// CHECK:           %[[Q:.*]] = loop.alloc "PQ.v1" [%{{.*}}] : !loop.buffer<[6], f32>
// CHECK:           loop.for %PQ_i = %{{.*}} extent %{{.*}} {
// CHECK:             loop.store %{{.*}}, %[[P]][%{{.*}}]
// CHECK-NEXT:        loop.store %{{.*}}, %[[Q]][%{{.*}}]
