// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'infer-bound{explain=true}' | filecheck %s --check-prefix=EXPLAIN

// infer-bound on guarded reads: the regions the te.guard annotations tighten (seed 000).
// The input is tighten-pad-regions' output, checked in (`compiler-opt
// tighten-pad-regions.mlir -p tighten-pad-regions`), so a change to that pass does not
// change this test.

// Guard-aware bound inference (seed 000). The default prefix: with tighten-pad-regions;
// the OFF prefix: infer-bound alone without the cut of reads to the shape, which reproduces
// the over-allocation of older TVM (infer-bound's default cuts these whole-tensor regions too).
// The seed's 1-D example: a[i] = if_then_else(1 <= i < 57, b[i - 1], 0) for i in [0, 58). Interval inference asks for b over [-1, 57) (58 elements, one guarded bound check on each side); the guard gives exactly [0, 56).
// CHECK-LABEL: te.func @seed_1d
// CHECK:      te.compute "b" {{.*}}te.realize = ["[0, 56]"]
// CHECK-SAME: te.guards = []
// CHECK:        te.read %b[%{{.*}}] {te.guard = "1 <= a_i and a_i < 57"}
// EXPLAIN:      stage "b": realized [0, 56]
// EXPLAIN-NEXT:   dim 0: min 0 from "a" reading b[a_i - 1]; max 55 from "a" reading b[a_i - 1]
// EXPLAIN-NEXT:   "a" reading b[a_i - 1]: tightened by the guard 1 <= a_i and a_i < 57
builtin.module {
  te.func @seed_1d(%y: !te.tensor<[56], f32>) -> !te.tensor<[58], f32> {
    %b = te.compute "b" (%i) : !te.tensor<[56], f32> {
      %0 = te.read %y[%i] : !te.tensor<[56], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %a = te.compute "a" (%i_1) : !te.tensor<[58], f32> {
      %3 = arith.constant 1 : index
      %4 = arith.cmpi sge, %i_1, %3 : index
      %5 = arith.constant 57 : index
      %6 = arith.cmpi slt, %i_1, %5 : index
      %7 = arith.andi %4, %6 : i1
      %8 = scf.if %7 -> (f32) {
        %9 = arith.constant 1 : index
        %10 = arith.subi %i_1, %9 : index
        %11 = te.read %b[%10] {te.guard = "1 <= a_i and a_i < 57"} : !te.tensor<[56], f32>
        scf.yield %11 : f32
      } else {
        %12 = arith.constant 0.000000e+00 : f32
        scf.yield %12 : f32
      }
      te.yield %8 : f32
    }
    te.return %a : !te.tensor<[58], f32>
  }
}

// -----

// 2-D pad 1 before a 3x3 conv: y stays 8x8 (untightened: 10x10 from -1).
// CHECK-LABEL: te.func @pad_2d
// CHECK:      te.compute "y" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 8]", "[0, 8]"]
// CHECK:      te.compute "z_pad" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 10]", "[0, 10]"]
builtin.module {
  te.func @pad_2d(%x: !te.tensor<[1, 2, 8, 8], f32>, %w: !te.tensor<[2, 2, 3, 3], f32>) -> !te.tensor<[1, 2, 8, 8], f32> {
    %y = te.compute "y" (%n, %c, %h, %w_1) : !te.tensor<[1, 2, 8, 8], f32> {
      %0 = te.read %x[%n, %c, %h, %w_1] : !te.tensor<[1, 2, 8, 8], f32>
      %1 = arith.constant 1.000000e+00 : f32
      %2 = arith.addf %0, %1 : f32
      te.yield %2 : f32
    }
    %z_pad = te.compute "z_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 10, 10], f32> {
      %3 = arith.constant 1 : index
      %4 = arith.cmpi sge, %ax2, %3 : index
      %5 = arith.constant 9 : index
      %6 = arith.cmpi slt, %ax2, %5 : index
      %7 = arith.constant 1 : index
      %8 = arith.cmpi sge, %ax3, %7 : index
      %9 = arith.constant 9 : index
      %10 = arith.cmpi slt, %ax3, %9 : index
      %11 = arith.andi %4, %6 : i1
      %12 = arith.andi %11, %8 : i1
      %13 = arith.andi %12, %10 : i1
      %14 = scf.if %13 -> (f32) {
        %15 = arith.constant 0 : index
        %16 = arith.subi %ax0, %15 : index
        %17 = arith.constant 0 : index
        %18 = arith.subi %ax1, %17 : index
        %19 = arith.constant 1 : index
        %20 = arith.subi %ax2, %19 : index
        %21 = arith.constant 1 : index
        %22 = arith.subi %ax3, %21 : index
        %23 = te.read %y[%16, %18, %20, %22] {te.guard = "1 <= z_pad_ax2 and z_pad_ax2 < 9 and 1 <= z_pad_ax3 and z_pad_ax3 < 9"} : !te.tensor<[1, 2, 8, 8], f32>
        scf.yield %23 : f32
      } else {
        %24 = arith.constant 0.000000e+00 : f32
        scf.yield %24 : f32
      }{te.likely}
      te.yield %14 : f32
    }
    %z = te.compute "z" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 2, 8, 8], f32> {
      %25 = te.reduce sum (%rc, %ry, %rx) in [2, 3, 3] : f32 {
        %26 = arith.constant 1 : index
        %27 = arith.muli %yy, %26 : index
        %28 = arith.constant 1 : index
        %29 = arith.muli %ry, %28 : index
        %30 = arith.addi %27, %29 : index
        %31 = arith.constant 1 : index
        %32 = arith.muli %xx, %31 : index
        %33 = arith.constant 1 : index
        %34 = arith.muli %rx, %33 : index
        %35 = arith.addi %32, %34 : index
        %36 = te.read %z_pad[%nn, %rc, %30, %35] : !te.tensor<[1, 2, 10, 10], f32>
        %37 = te.read %w[%ff, %rc, %ry, %rx] : !te.tensor<[2, 2, 3, 3], f32>
        %38 = arith.mulf %36, %37 : f32
        te.yield %38 : f32
      }
      te.yield %25 : f32
    }
    te.return %z : !te.tensor<[1, 2, 8, 8], f32>
  }
}

// -----

// Asymmetric pads: 1 row before and 2 after, no column before and 3 after.
// CHECK-LABEL: te.func @asymmetric
// CHECK:      te.compute "y" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 8]", "[0, 8]"]
builtin.module {
  te.func @asymmetric(%x: !te.tensor<[1, 2, 8, 8], f32>) -> !te.tensor<[1, 2, 11, 11], f32> {
    %y = te.compute "y" (%n, %c, %h, %w) : !te.tensor<[1, 2, 8, 8], f32> {
      %0 = te.read %x[%n, %c, %h, %w] : !te.tensor<[1, 2, 8, 8], f32>
      %1 = arith.constant 1.000000e+00 : f32
      %2 = arith.addf %0, %1 : f32
      te.yield %2 : f32
    }
    %p = te.compute "p" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 11, 11], f32> {
      %3 = arith.constant 1 : index
      %4 = arith.cmpi sge, %ax2, %3 : index
      %5 = arith.constant 9 : index
      %6 = arith.cmpi slt, %ax2, %5 : index
      %7 = arith.constant 8 : index
      %8 = arith.cmpi slt, %ax3, %7 : index
      %9 = arith.andi %4, %6 : i1
      %10 = arith.andi %9, %8 : i1
      %11 = scf.if %10 -> (f32) {
        %12 = arith.constant 0 : index
        %13 = arith.subi %ax0, %12 : index
        %14 = arith.constant 0 : index
        %15 = arith.subi %ax1, %14 : index
        %16 = arith.constant 1 : index
        %17 = arith.subi %ax2, %16 : index
        %18 = arith.constant 0 : index
        %19 = arith.subi %ax3, %18 : index
        %20 = te.read %y[%13, %15, %17, %19] {te.guard = "1 <= p_ax2 and p_ax2 < 9 and p_ax3 < 8"} : !te.tensor<[1, 2, 8, 8], f32>
        scf.yield %20 : f32
      } else {
        %21 = arith.constant 0.000000e+00 : f32
        scf.yield %21 : f32
      }{te.likely}
      te.yield %11 : f32
    }
    %q = te.compute "q" (%n_1, %c_1, %h_1, %w_1) : !te.tensor<[1, 2, 11, 11], f32> {
      %22 = te.read %p[%n_1, %c_1, %h_1, %w_1] : !te.tensor<[1, 2, 11, 11], f32>
      %23 = arith.constant 2.000000e+00 : f32
      %24 = arith.mulf %22, %23 : f32
      te.yield %24 : f32
    }
    te.return %q : !te.tensor<[1, 2, 11, 11], f32>
  }
}

// -----

// Pad 2 with dilation 2 (the 3x3 kernel spans 5): y stays 8x8, untightened it grows by 2 on each side.
// CHECK-LABEL: te.func @dilated
// CHECK:      te.compute "y" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 8]", "[0, 8]"]
// CHECK:      te.compute "z_pad" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 12]", "[0, 12]"]
builtin.module {
  te.func @dilated(%x: !te.tensor<[1, 2, 8, 8], f32>, %w: !te.tensor<[2, 2, 3, 3], f32>) -> !te.tensor<[1, 2, 8, 8], f32> {
    %y = te.compute "y" (%n, %c, %h, %w_1) : !te.tensor<[1, 2, 8, 8], f32> {
      %0 = te.read %x[%n, %c, %h, %w_1] : !te.tensor<[1, 2, 8, 8], f32>
      %1 = arith.constant 1.000000e+00 : f32
      %2 = arith.addf %0, %1 : f32
      te.yield %2 : f32
    }
    %z_pad = te.compute "z_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 12, 12], f32> {
      %3 = arith.constant 2 : index
      %4 = arith.cmpi sge, %ax2, %3 : index
      %5 = arith.constant 10 : index
      %6 = arith.cmpi slt, %ax2, %5 : index
      %7 = arith.constant 2 : index
      %8 = arith.cmpi sge, %ax3, %7 : index
      %9 = arith.constant 10 : index
      %10 = arith.cmpi slt, %ax3, %9 : index
      %11 = arith.andi %4, %6 : i1
      %12 = arith.andi %11, %8 : i1
      %13 = arith.andi %12, %10 : i1
      %14 = scf.if %13 -> (f32) {
        %15 = arith.constant 0 : index
        %16 = arith.subi %ax0, %15 : index
        %17 = arith.constant 0 : index
        %18 = arith.subi %ax1, %17 : index
        %19 = arith.constant 2 : index
        %20 = arith.subi %ax2, %19 : index
        %21 = arith.constant 2 : index
        %22 = arith.subi %ax3, %21 : index
        %23 = te.read %y[%16, %18, %20, %22] {te.guard = "2 <= z_pad_ax2 and z_pad_ax2 < 10 and 2 <= z_pad_ax3 and z_pad_ax3 < 10"} : !te.tensor<[1, 2, 8, 8], f32>
        scf.yield %23 : f32
      } else {
        %24 = arith.constant 0.000000e+00 : f32
        scf.yield %24 : f32
      }{te.likely}
      te.yield %14 : f32
    }
    %z = te.compute "z" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 2, 8, 8], f32> {
      %25 = te.reduce sum (%rc, %ry, %rx) in [2, 3, 3] : f32 {
        %26 = arith.constant 1 : index
        %27 = arith.muli %yy, %26 : index
        %28 = arith.constant 2 : index
        %29 = arith.muli %ry, %28 : index
        %30 = arith.addi %27, %29 : index
        %31 = arith.constant 1 : index
        %32 = arith.muli %xx, %31 : index
        %33 = arith.constant 2 : index
        %34 = arith.muli %rx, %33 : index
        %35 = arith.addi %32, %34 : index
        %36 = te.read %z_pad[%nn, %rc, %30, %35] : !te.tensor<[1, 2, 12, 12], f32>
        %37 = te.read %w[%ff, %rc, %ry, %rx] : !te.tensor<[2, 2, 3, 3], f32>
        %38 = arith.mulf %36, %37 : f32
        te.yield %38 : f32
      }
      te.yield %25 : f32
    }
    te.return %z : !te.tensor<[1, 2, 8, 8], f32>
  }
}

// -----

// A stride-2 conv with pad 1 reads pad rows 0..8 only (row 9 is never read), and y rows 0..7.
// CHECK-LABEL: te.func @strided
// CHECK:      te.compute "y" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 8]", "[0, 8]"]
// CHECK:      te.compute "z_pad" {{.*}}te.realize = ["[0, 1]", "[0, 2]", "[0, 9]", "[0, 9]"]
builtin.module {
  te.func @strided(%x: !te.tensor<[1, 2, 8, 8], f32>, %w: !te.tensor<[2, 2, 3, 3], f32>) -> !te.tensor<[1, 2, 4, 4], f32> {
    %y = te.compute "y" (%n, %c, %h, %w_1) : !te.tensor<[1, 2, 8, 8], f32> {
      %0 = te.read %x[%n, %c, %h, %w_1] : !te.tensor<[1, 2, 8, 8], f32>
      %1 = arith.constant 1.000000e+00 : f32
      %2 = arith.addf %0, %1 : f32
      te.yield %2 : f32
    }
    %z_pad = te.compute "z_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 10, 10], f32> {
      %3 = arith.constant 1 : index
      %4 = arith.cmpi sge, %ax2, %3 : index
      %5 = arith.constant 9 : index
      %6 = arith.cmpi slt, %ax2, %5 : index
      %7 = arith.constant 1 : index
      %8 = arith.cmpi sge, %ax3, %7 : index
      %9 = arith.constant 9 : index
      %10 = arith.cmpi slt, %ax3, %9 : index
      %11 = arith.andi %4, %6 : i1
      %12 = arith.andi %11, %8 : i1
      %13 = arith.andi %12, %10 : i1
      %14 = scf.if %13 -> (f32) {
        %15 = arith.constant 0 : index
        %16 = arith.subi %ax0, %15 : index
        %17 = arith.constant 0 : index
        %18 = arith.subi %ax1, %17 : index
        %19 = arith.constant 1 : index
        %20 = arith.subi %ax2, %19 : index
        %21 = arith.constant 1 : index
        %22 = arith.subi %ax3, %21 : index
        %23 = te.read %y[%16, %18, %20, %22] {te.guard = "1 <= z_pad_ax2 and z_pad_ax2 < 9 and 1 <= z_pad_ax3 and z_pad_ax3 < 9"} : !te.tensor<[1, 2, 8, 8], f32>
        scf.yield %23 : f32
      } else {
        %24 = arith.constant 0.000000e+00 : f32
        scf.yield %24 : f32
      }{te.likely}
      te.yield %14 : f32
    }
    %z = te.compute "z" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 2, 4, 4], f32> {
      %25 = te.reduce sum (%rc, %ry, %rx) in [2, 3, 3] : f32 {
        %26 = arith.constant 2 : index
        %27 = arith.muli %yy, %26 : index
        %28 = arith.constant 1 : index
        %29 = arith.muli %ry, %28 : index
        %30 = arith.addi %27, %29 : index
        %31 = arith.constant 2 : index
        %32 = arith.muli %xx, %31 : index
        %33 = arith.constant 1 : index
        %34 = arith.muli %rx, %33 : index
        %35 = arith.addi %32, %34 : index
        %36 = te.read %z_pad[%nn, %rc, %30, %35] : !te.tensor<[1, 2, 10, 10], f32>
        %37 = te.read %w[%ff, %rc, %ry, %rx] : !te.tensor<[2, 2, 3, 3], f32>
        %38 = arith.mulf %36, %37 : f32
        te.yield %38 : f32
      }
      te.yield %25 : f32
    }
    te.return %z : !te.tensor<[1, 2, 4, 4], f32>
  }
}

// -----

// A guard on a symbolic bound, i < n + 1: b is realized over [0, n).
// CHECK-LABEL: te.func @symbolic
// CHECK:      te.compute "b" {{.*}}te.realize = ["[0, n]"]
// CHECK-SAME: te.guards = []
builtin.module {
  te.func @symbolic(%y: !te.tensor<["n"], f32>) -> !te.tensor<["n + 2"], f32> {
    %b = te.compute "b" (%i) : !te.tensor<["n"], f32> {
      %0 = te.read %y[%i] : !te.tensor<["n"], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %a = te.compute "a" (%i_1) : !te.tensor<["n + 2"], f32> {
      %3 = arith.constant 1 : index
      %4 = arith.cmpi sge, %i_1, %3 : index
      %5 = te.var "n" : index
      %6 = arith.constant 1 : index
      %7 = arith.addi %5, %6 : index
      %8 = arith.cmpi slt, %i_1, %7 : index
      %9 = arith.andi %4, %8 : i1
      %10 = scf.if %9 -> (f32) {
        %11 = arith.constant 1 : index
        %12 = arith.subi %i_1, %11 : index
        %13 = te.read %b[%12] {te.guard = "1 <= a_i and a_i < n + 1"} : !te.tensor<["n"], f32>
        scf.yield %13 : f32
      } else {
        %14 = arith.constant 0.000000e+00 : f32
        scf.yield %14 : f32
      }
      te.yield %10 : f32
    }
    te.return %a : !te.tensor<["n + 2"], f32>
  }
}

// -----

// A disjunction (i < 3 or i >= 50) cannot be used by intervals: the request stays the untightened [0, 58) (using one disjunct alone would wrongly give [0, 3)).
// CHECK-LABEL: te.func @disjunction
// CHECK:      te.compute "b" {{.*}}te.realize = ["[0, 58]"]
// CHECK:        te.read %b[%{{.*}}] {te.guard_unused = "'a_i < 3 or 50 <= a_i' is a disjunction, not a conjunction of inequalities"}
// EXPLAIN:    "a" reading b[a_i]: guard left unused: 'a_i < 3 or 50 <= a_i' is a disjunction, not a conjunction of inequalities
builtin.module {
  te.func @disjunction(%y: !te.tensor<[58], f32>) -> !te.tensor<[58], f32> {
    %b = te.compute "b" (%i) : !te.tensor<[58], f32> {
      %0 = te.read %y[%i] : !te.tensor<[58], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %a = te.compute "a" (%i_1) : !te.tensor<[58], f32> {
      %3 = arith.constant 3 : index
      %4 = arith.cmpi slt, %i_1, %3 : index
      %5 = arith.constant 50 : index
      %6 = arith.cmpi sge, %i_1, %5 : index
      %7 = arith.ori %4, %6 : i1
      %8 = scf.if %7 -> (f32) {
        %9 = te.read %b[%i_1] {te.guard_unused = "'a_i < 3 or 50 <= a_i' is a disjunction, not a conjunction of inequalities"} : !te.tensor<[58], f32>
        scf.yield %9 : f32
      } else {
        %10 = arith.constant 0.000000e+00 : f32
        scf.yield %10 : f32
      }
      te.yield %8 : f32
    }
    te.return %a : !te.tensor<[58], f32>
  }
}

// -----

// b has two consumers: a reads it under the pad guard, c reads b[0, 30) unguarded. The union is [0, 56) with the pass, [-1, 57) without.
// CHECK-LABEL: te.func @two_consumers
// CHECK:      te.compute "b" {{.*}}te.realize = ["[0, 56]"]
// EXPLAIN:      stage "b": realized [0, 56]
// EXPLAIN-NEXT:   dim 0: min 0 from "a" reading b[a_i - 1]; max 55 from "a" reading b[a_i - 1]
builtin.module {
  te.func @two_consumers(%y: !te.tensor<[56], f32>) -> (!te.tensor<[58], f32>, !te.tensor<[30], f32>) {
    %b = te.compute "b" (%i) : !te.tensor<[56], f32> {
      %0 = te.read %y[%i] : !te.tensor<[56], f32>
      %1 = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %a = te.compute "a" (%i_1) : !te.tensor<[58], f32> {
      %3 = arith.constant 1 : index
      %4 = arith.cmpi sge, %i_1, %3 : index
      %5 = arith.constant 57 : index
      %6 = arith.cmpi slt, %i_1, %5 : index
      %7 = arith.andi %4, %6 : i1
      %8 = scf.if %7 -> (f32) {
        %9 = arith.constant 1 : index
        %10 = arith.subi %i_1, %9 : index
        %11 = te.read %b[%10] {te.guard = "1 <= a_i and a_i < 57"} : !te.tensor<[56], f32>
        scf.yield %11 : f32
      } else {
        %12 = arith.constant 0.000000e+00 : f32
        scf.yield %12 : f32
      }
      te.yield %8 : f32
    }
    %c = te.compute "c" (%i_2) : !te.tensor<[30], f32> {
      %13 = te.read %b[%i_2] : !te.tensor<[56], f32>
      %14 = arith.constant 1.000000e+00 : f32
      %15 = arith.addf %13, %14 : f32
      te.yield %15 : f32
    }
    te.return %a, %c : !te.tensor<[58], f32>, !te.tensor<[30], f32>
  }
}
