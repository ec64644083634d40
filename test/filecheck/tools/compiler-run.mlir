// RUN: compiler-run %s --dim n=6 | filecheck %s
// RUN: compiler-run %s --entry matvec | filecheck %s --check-prefix=MATVEC

// Inputs are filled with arange: a = [0, 1, ..., 5]; P pads a by one zero on
// each side and doubles it.
te.func @pad2x(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n + 2"], f32> {
  %p = te.compute "P" (%i) : !te.tensor<["n + 2"], f32> {
    %n = te.var "n" : index
    %c1 = arith.constant 1 : index
    %lo = arith.cmpi sge, %i, %c1 : index
    %np1 = arith.addi %n, %c1 : index
    %hi = arith.cmpi slt, %i, %np1 : index
    %ok = arith.andi %lo, %hi : i1
    %v = scf.if %ok -> (f32) {
      %im1 = arith.subi %i, %c1 : index
      %x = te.read %a[%im1] : !te.tensor<["n"], f32>
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      scf.yield %y : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    te.yield %v : f32
  }
  te.return %p : !te.tensor<["n + 2"], f32>
}
// CHECK: P = [ 0.,  0.,  2.,  4.,  6.,  8., 10.,  0.]

// m = [[0, 1, 2], [3, 4, 5]], v = [0, 1, 2]: m @ v = [5, 14]
te.func @matvec(%m: !te.tensor<[2, 3], f32>, %v: !te.tensor<[3], f32>) -> !te.tensor<[2], f32> {
  %r = te.compute "R" (%i) : !te.tensor<[2], f32> {
    %s = te.reduce sum (%k) in [3] : f32 {
      %a = te.read %m[%i, %k] : !te.tensor<[2, 3], f32>
      %b = te.read %v[%k] : !te.tensor<[3], f32>
      %p = arith.mulf %a, %b : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[2], f32>
}
// MATVEC: R = [ 5., 14.]
