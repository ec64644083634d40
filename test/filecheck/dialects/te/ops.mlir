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
