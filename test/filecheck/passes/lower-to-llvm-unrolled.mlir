// RUN: compiler-opt %s --split-input-file -p lower-to-llvm -t llvm | filecheck %s

// lower-to-llvm after unroll-loops: the unrolled bodies in LLVM IR. The input is
// unroll-loops' output, checked in (`compiler-opt unroll-loops.mlir -p unroll-loops`),
// so a change to unroll-loops does not change this test.

// A loop marked unrolled with a constant trip count (3: 2, 4, 6) is left for LLVM to
// unroll: it keeps its body once and gets {unroll_full}, which becomes the loop's
// `llvm.loop.unroll.full` metadata on its back edge. With copy=true the pass makes
// the copies itself; with max-trip-count below 3 it leaves the loop as it is.
// The back edge of the loop (the branch from its body to its header) carries a distinct
// loop ID naming itself and the unroll request; the entry branch carries none.
// CHECK-LABEL: define i32 @"unroll"(
// CHECK:         br label %"[[HEAD:[^"]*]]"{{$}}
// CHECK:       [[HEAD]]:
// CHECK:         store float
// CHECK-NEXT:    %{{.*}} = add nsw i64 %{{.*}}, 2
// CHECK-NEXT:    br label %"[[HEAD]]", !llvm.loop ![[ID:[0-9]+]]
// CHECK:       ![[FULL:[0-9]+]] = !{ !"llvm.loop.unroll.full" }
// CHECK-NEXT:  ![[ID]] = distinct !{ ![[ID]], ![[FULL]] }
builtin.module {
  loop.func @unroll(%a: !loop.buffer<[8], f32>, %b: !loop.buffer<[8], f32> {loop.output}) {
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    loop.for %i = %c2 extent %c5 step 2 unrolled attributes {unroll_full} {
      %v = loop.load %a[%i] : !loop.buffer<[8], f32>
      loop.store %v, %b[%i] : !loop.buffer<[8], f32>
    }
  }
}

// -----

// A symbolic trip count is left alone (LLVM may still unroll it).
// CHECK-LABEL:  define i32 @"symbolic"(
// CHECK-NOT:      !llvm.loop
builtin.module {
  loop.func @symbolic(%a: !loop.buffer<["n"], f32> {loop.output}) {
    %n = loop.var "n" : index
    %c0 = arith.constant 0 : index
    loop.for %i = %c0 extent %n unrolled {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
    }
  }
}

// -----

// Inside a vectorized loop the copies are made here, even without copy=true: the
// vector code generator of lower-to-llvm needs a straight-line body.
// The vector loop then holds both rows as vector loads and stores.
// CHECK-LABEL: define i32 @"in_vector"(
// CHECK-COUNT-2: load <{{[0-9]+}} x float>
// CHECK-NOT:     !llvm.loop
builtin.module {
  loop.func @in_vector(%a: !loop.buffer<[32], f32>, %b: !loop.buffer<[32], f32> {loop.output}) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    loop.for %j = %c0 extent %c16 vectorized {
      %0 = arith.constant 0 : index
      %row = arith.muli %0, %c16 : index
      %at = arith.addi %row, %j : index
      %v = loop.load %a[%at] : !loop.buffer<[32], f32>
      loop.store %v, %b[%at] : !loop.buffer<[32], f32>
      %1 = arith.constant 1 : index
      %row_1 = arith.muli %1, %c16 : index
      %at_1 = arith.addi %row_1, %j : index
      %v_1 = loop.load %a[%at_1] : !loop.buffer<[32], f32>
      loop.store %v_1, %b[%at_1] : !loop.buffer<[32], f32>
    }
  }
}

// -----

// A constant extent from a symbolic start (the main piece of a split tile that
// loop-partition cut): unrolled all the same; the copies count from the start.
// CHECK-LABEL:  define i32 @"from_symbolic"(
// CHECK:          !llvm.loop
builtin.module {
  loop.func @from_symbolic(%a: !loop.buffer<["n"], f32> {loop.output}) {
    %n = loop.var "n" : index
    %c2 = arith.constant 2 : index
    %s = arith.subi %n, %c2 : index
    loop.for %i = %s extent %c2 unrolled attributes {unroll_full} {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
    }
  }
}
