// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s --check-prefix=BOUNDS

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

// -----

// A reducer whose start value and combiner name the data axis (TVM's
// test_loop_dep_reduce_cache_write): the identity region is evaluated before the
// reduce loop with the data loop's variable, the combiner at each k with it too.
te.func @axis_reducer(%a: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
  %y = te.compute "Y" (%i) : !te.tensor<[10], f32> {
    %r = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 {
      %v = te.read %a[%k] : !te.tensor<[10], f32>
      te.yield %v : f32
    } identity {
      %one = arith.constant 1 : index
      %big = arith.cmpi sgt, %i, %one : index
      %i64 = arith.index_cast %i : index to i64
      %fi = arith.sitofp %i64 : i64 to f32
      %zero = arith.constant 0.0 : f32
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


// -----

// Its cache_write laid out by a split of the data axis: the cache's axis i is
// i_o * 4 + i_i, computed in the identity and the combiner (they may use only the
// compute's axes); the lowered start is that value at each (i_o, i_i).
te.func @axis_reducer_cached(%a: !te.tensor<[10], f32>) -> !te.tensor<[10], f32> {
  %y = te.compute "Y" (%i) : !te.tensor<[10], f32> {
    %r = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 {
      %v = te.read %a[%k] : !te.tensor<[10], f32>
      te.yield %v : f32
    } identity {
      %i64 = arith.index_cast %i : index to i64
      %fi = arith.sitofp %i64 : i64 to f32
      te.yield %fi : f32
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
sched.schedule @axis_reducer_cached {
  %i = sched.axis "Y" 0
  %io, %ii = sched.split %i by 4 : !sched.iter<"Y">
  sched.cache_write "Y", "local"
}

// BOUNDS-LABEL: te.func @axis_reducer_cached
// BOUNDS:         te.compute "Y.local" (%i_o, %i_i) : !te.tensor<[3, 4], f32>
// BOUNDS:         } identity {
// BOUNDS-NEXT:      %[[C4:.*]] = arith.constant 4 : index
// BOUNDS-NEXT:      %[[MUL:.*]] = arith.muli %i_o, %[[C4]] : index
// BOUNDS-NEXT:      %[[I:.*]] = arith.addi %i_i, %[[MUL]] : index
// BOUNDS-NEXT:      %{{.*}} = arith.index_cast %[[I]] : index to i64
// BOUNDS:         } combiner (%x, %e) {
// BOUNDS-NEXT:      %[[C4B:.*]] = arith.constant 4 : index
// BOUNDS-NEXT:      %[[MULB:.*]] = arith.muli %i_o, %[[C4B]] : index
// BOUNDS-NEXT:      %[[IB:.*]] = arith.addi %i_i, %[[MULB]] : index
// BOUNDS-NEXT:      %{{.*}} = arith.addf %x, %e : f32
// BOUNDS-NEXT:      %{{.*}} = arith.index_cast %[[IB]] : index to i64

