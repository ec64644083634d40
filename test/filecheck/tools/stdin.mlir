// `-` as the input file reads standard input, as mlir-opt does (compiler-run too).
// RUN: cat %s | compiler-opt - | filecheck %s
// RUN: compiler-opt - -p 'default-pipeline{until=loop}' < %s | filecheck %s --check-prefix=LOOP
// RUN: cat %s | compiler-opt - --split-input-file | filecheck %s --check-prefix=SPLIT
// RUN: not compiler-opt - < %S/Inputs/bad_verify.mlir 2>&1 | filecheck %s --check-prefix=ERROR
// RUN: cat %S/compiler-run.mlir | compiler-run - --dim n=6 | filecheck %S/compiler-run.mlir

te.func @add(%a: !te.tensor<["n"], f32>, %b: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %c = te.compute "C" (%i) : !te.tensor<["n"], f32> {
    %x = te.read %a[%i] : !te.tensor<["n"], f32>
    %y = te.read %b[%i] : !te.tensor<["n"], f32>
    %s = arith.addf %x, %y : f32
    te.yield %s : f32
  }
  te.return %c : !te.tensor<["n"], f32>
}

// -----

te.func @copy(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %x = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %x : f32
  }
  te.return %c : !te.tensor<[4], f32>
}

// CHECK:      builtin.module {
// CHECK-NEXT:   te.func @add
// CHECK:          te.compute "C"
// CHECK:        te.func @copy

// LOOP: loop.func @add(
// LOOP: loop.func @copy(

// SPLIT:      te.func @add
// SPLIT:      {{^// -+$}}
// SPLIT:      te.func @copy

// ERROR: stdin:3:5: error: te.read of a rank-2 tensor takes 2 indices, got 1
// ERROR-NOT: Traceback
