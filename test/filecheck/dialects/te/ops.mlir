// RUN: COMPILER_ROUNDTRIP

// Every te op, printed, parsed and printed again (custom and generic forms).
te.func @all_ops(%a: !te.tensor<[5, "n"], f32>, %w: !te.tensor<[3], f32>) -> (!te.tensor<[5, "n"], f32>, !te.tensor<[5, "n + 2"], f32>) {
  %n = te.var "n" : index
  %c = te.compute "C" (%i, %j) : !te.tensor<[5, "n"], f32> {
    %r = te.reduce sum (%k) in [3] : f32 {
      %v = te.read %a[%i, %j] : !te.tensor<[5, "n"], f32>
      %x = te.read %w[%k] : !te.tensor<[3], f32>
      %m = arith.mulf %v, %x : f32
      te.yield %m : f32
    }
    te.yield %r : f32
  }
  %m = te.compute "M" (%i, %j) : !te.tensor<[5, "n"], f32> {
    %r = te.reduce max (%k, %l) in [3, "n"] init(-1.000000e+00 : f32) : f32 {
      %x = te.read %w[%k] : !te.tensor<[3], f32>
      te.yield %x : f32
    }
    te.yield %r : f32
  }
  %p = te.compute "P" (%i, %j) : !te.tensor<[5, "n + 2"], f32> {
    %c1 = arith.constant 1 : index
    %lo = arith.cmpi sge, %j, %c1 : index
    %np1 = arith.addi %n, %c1 : index
    %hi = arith.cmpi slt, %j, %np1 : index
    %ok = arith.andi %lo, %hi : i1
    %v = scf.if %ok -> (f32) {
      %jm1 = arith.subi %j, %c1 : index
      %x = te.read %c[%i, %jm1] : !te.tensor<[5, "n"], f32>
      scf.yield %x : f32
    } else {
      %z = arith.constant 0.000000e+00 : f32
      scf.yield %z : f32
    } {te.likely}
    te.yield %v : f32
  }
  te.return %m, %p : !te.tensor<[5, "n"], f32>, !te.tensor<[5, "n + 2"], f32>
}

// CHECK-LABEL: te.func @all_ops(%a: !te.tensor<[5, "n"], f32>, %w: !te.tensor<[3], f32>) -> (!te.tensor<[5, "n"], f32>, !te.tensor<[5, "n + 2"], f32>) {
// CHECK-NEXT:    %n = te.var "n" : index
// CHECK-NEXT:    %c = te.compute "C" (%i, %j) : !te.tensor<[5, "n"], f32> {
// CHECK-NEXT:      %r = te.reduce sum (%k) in [3] : f32 {
// CHECK-NEXT:        %v = te.read %a[%i, %j] : !te.tensor<[5, "n"], f32>
// CHECK-NEXT:        %x = te.read %w[%k] : !te.tensor<[3], f32>
// CHECK-NEXT:        %m = arith.mulf %v, %x : f32
// CHECK-NEXT:        te.yield %m : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      te.yield %r : f32
// CHECK-NEXT:    }
// CHECK:         te.reduce max (%k_1, %l) in [3, "n"] init(-1.000000e+00 : f32) : f32 {
// CHECK:         %p = te.compute "P" (%i_2, %j_2) : !te.tensor<[5, "n + 2"], f32> {
// CHECK:           %v_1 = scf.if %ok -> (f32) {
// CHECK:             %x_2 = te.read %c[%i_2, %jm1] : !te.tensor<[5, "n"], f32>
// CHECK:           }{te.likely}
// CHECK:         te.return %m_1, %p : !te.tensor<[5, "n"], f32>, !te.tensor<[5, "n + 2"], f32>

// -----

// A reduction with a predicate (te.sum(..., where=)).
te.func @where(%a: !te.tensor<[8], f32>) -> !te.tensor<[4], f32> {
  %b = te.compute "B" (%i) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%k) in [8] : f32 {
      %ok = arith.cmpi sle, %k, %i : index
      te.where %ok
      %v = te.read %a[%k] : !te.tensor<[8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<[4], f32>
}

// CHECK-LABEL: te.func @where
// CHECK:         %s = te.reduce sum (%k) in [8] : f32 {
// CHECK-NEXT:      %ok = arith.cmpi sle, %k, %i : index
// CHECK-NEXT:      te.where %ok
// CHECK-NEXT:      %v = te.read %a[%k] : !te.tensor<[8], f32>

// -----

// A user reducer with two results (argmax) in a stage that computes two tensors.
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

// CHECK-LABEL: te.func @argmax
// CHECK-NEXT:    %i, %v = te.compute "T" (%r) : !te.tensor<[4], i32>, !te.tensor<[4], f32> {
// CHECK-NEXT:      %ri, %rv = te.reduce argmax (%k) in ["n"] init(-1 : i32, -3.40282347e+38 : f32) : i32, f32 {
// CHECK:           } combiner (%ai, %av, %bi, %bv) {
// CHECK-NEXT:        %ge = arith.cmpf oge, %av, %bv : f32
// CHECK:             te.yield %si, %sv : i32, f32
// CHECK-NEXT:      }
// CHECK-NEXT:      te.yield %ri, %rv : i32, f32

// -----

// A reduce extent over the compute's axis (a triangular sum): "?" and its operand.
te.func @triangular(%a: !te.tensor<[8], f32>) -> !te.tensor<[8], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[8], f32> {
    %c1 = arith.constant 1 : index
    %e = arith.addi %i, %c1 : index
    %r = te.reduce sum (%k) in ["?"] dynamic(%e) : f32 {
      %v = te.read %a[%k] : !te.tensor<[8], f32>
      te.yield %v : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[8], f32>
}

// CHECK-LABEL: te.func @triangular
// CHECK:           %r = te.reduce sum (%k) in ["?"] dynamic(%e) : f32 {

// -----

// A reducer whose start value and combiner name the compute's axis %i (TVM's
// test_loop_dep_reduce_cache_write): an identity region instead of init(...).
te.func @axis_reducer(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %c = te.compute "C" (%i) : !te.tensor<["n"], f32> {
    %r = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 {
      %v = te.read %a[%k] : !te.tensor<["n"], f32>
      te.yield %v : f32
    } identity {
      %one = arith.constant 1 : index
      %big = arith.cmpi sgt, %i, %one : index
      %i64 = arith.index_cast %i : index to i64
      %fi = arith.sitofp %i64 : i64 to f32
      %zero = arith.constant 0.0 : f32
      %start = arith.select %big, %zero, %fi : f32
      te.yield %start : f32
    } combiner (%x, %y) {
      %s = arith.addf %x, %y : f32
      %n = te.var "n" : index
      %j = arith.addi %i, %n : index
      %j64 = arith.index_cast %j : index to i64
      %fj = arith.sitofp %j64 : i64 to f32
      %m = arith.maximumf %s, %fj : f32
      te.yield %m : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<["n"], f32>
}

// CHECK-LABEL: te.func @axis_reducer
// CHECK:           %r = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 {
// CHECK:           } identity {
// CHECK-NEXT:        %one = arith.constant 1 : index
// CHECK-NEXT:        %big = arith.cmpi sgt, %i, %one : index
// CHECK:             te.yield %start : f32
// CHECK-NEXT:      } combiner (%x, %y) {
// CHECK-NEXT:        %s = arith.addf %x, %y : f32
// CHECK-NEXT:        %n = te.var "n" : index
// CHECK-NEXT:        %j = arith.addi %i, %n : index
// CHECK:             te.yield %m : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      te.yield %r : f32

// -----

// A scalar argument: the variable "k" is bound from its value, and read with te.var.
te.func @scalar(%k: !te.tensor<[], i64> {te.scalar = "k"}, %a: !te.tensor<[8], f32>) -> !te.tensor<[8], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[8], f32> {
    %kv = te.var "k" : index
    %v = te.read %a[%kv] : !te.tensor<[8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[8], f32>
}

// CHECK-LABEL: te.func @scalar(%k: !te.tensor<[], i64> {te.scalar = "k"}, %a: !te.tensor<[8], f32>)
// CHECK:           %kv = te.var "k" : index

// -----

// A scan's state: output 0 of stage "S" before each step, its first row from "init".
te.func @scan(%x: !te.tensor<["m", 4], f32>) -> !te.tensor<["m", 4], f32> {
  %init = te.compute "init" (%z, %i) : !te.tensor<[1, 4], f32> {
    %c0 = arith.constant 0 : index
    %v = te.read %x[%c0, %i] : !te.tensor<["m", 4], f32>
    te.yield %v : f32
  }
  %state = te.state "S"[0] init %init : !te.tensor<[1, 4], f32> -> !te.tensor<["m", 4], f32>
  %s = te.compute "S" (%t, %j) : !te.tensor<["m", 4], f32> {
    %c1 = arith.constant 1 : index
    %p = arith.subi %t, %c1 : index
    %v = te.read %state[%p, %j] : !te.tensor<["m", 4], f32>
    te.yield %v : f32
  }
  te.return %s : !te.tensor<["m", 4], f32>
}
// CHECK-LABEL: te.func @scan
// CHECK:           %state = te.state "S"[0] init %init : !te.tensor<[1, 4], f32> -> !te.tensor<["m", 4], f32>
// CHECK:             %v_1 = te.read %state[%p, %j] : !te.tensor<["m", 4], f32>

// -----

// A te.extern stage: tensors pass their buffers, `out k` the buffer of result k, scalars their values.
te.func @extern(%a: !te.tensor<["n"], f32>) -> (!te.tensor<["n"], f32>, !te.tensor<[2], i32>) {
  %n = te.var "n" : index
  %x = arith.constant 1.5 : f32
  %b, %c = te.extern "B" @my_func(%a, out 1, out 0, %n, %x) : (!te.tensor<["n"], f32>, index, f32) -> (!te.tensor<["n"], f32>, !te.tensor<[2], i32>)
  te.return %b, %c : !te.tensor<["n"], f32>, !te.tensor<[2], i32>
}

// CHECK-LABEL: te.func @extern
// CHECK:           %b, %c = te.extern "B" @my_func(%a, out 1, out 0, %n, %x) : (!te.tensor<["n"], f32>, index, f32) -> (!te.tensor<["n"], f32>, !te.tensor<[2], i32>)
