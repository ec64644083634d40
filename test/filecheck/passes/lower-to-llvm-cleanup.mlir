// RUN: compiler-opt %s --split-input-file -p lower-to-llvm | filecheck %s

// Two parallel loops with the same body over different buffers are one
// outlined function: both forks name @same_parallel0 and no @same_parallel1 is
// emitted. The dead product %dead is gone before outlining (it would have
// captured %n: each context holds 4 values, not 5).
loop.func @same(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}, %c: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 7 : index
  loop.for %i = %c0 extent %c64 parallel {
    %dead = arith.muli %i, %n : index
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    %two = arith.constant 2.000000e+00 : f32
    %w = arith.mulf %v, %two : f32
    %two2 = arith.constant 2.000000e+00 : f32
    %x = arith.addf %w, %two2 : f32
    loop.store %x, %b[%i] : !loop.buffer<[64], f32>
  }
  loop.for %j = %c0 extent %c64 parallel {
    %dead = arith.muli %j, %n : index
    %v = loop.load %a[%j] : !loop.buffer<[64], f32>
    %two = arith.constant 2.000000e+00 : f32
    %w = arith.mulf %v, %two : f32
    %two2 = arith.constant 2.000000e+00 : f32
    %x = arith.addf %w, %two2 : f32
    loop.store %x, %c[%j] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @same(
// CHECK-NEXT:    %[[FOUR:.*]] = llvm.mlir.constant(4) : i64
// CHECK:         %[[CTX1:.*]] = llvm.alloca %[[FOUR]] x i64
// CHECK-NEXT:    %[[CTX0:.*]] = llvm.alloca %[[FOUR]] x i64
// CHECK-NOT:     llvm.mlir.constant(7)
// CHECK:         %[[FN0:.*]] = llvm.mlir.addressof @same_parallel0 : !llvm.ptr
// CHECK:         llvm.call @GOMP_parallel(%[[FN0]], %[[CTX0]],
// CHECK:         llvm.store %c,
// CHECK:         %[[FN1:.*]] = llvm.mlir.addressof @same_parallel0 : !llvm.ptr
// CHECK:         llvm.call @GOMP_parallel(%[[FN1]], %[[CTX1]],
// CHECK-LABEL: llvm.func @same_parallel0(%ctx: !llvm.ptr) -> i32
// CHECK-NOT:     llvm.mlir.constant(7)
// CHECK:         llvm.fmul
// CHECK:         llvm.fadd
// CHECK-NOT:   llvm.func @same_parallel1
// CHECK:       llvm.func @GOMP_parallel(

// -----

// Bodies that differ in a constant, or in which accesses share an alias group
// (%b and %c are one group in the second loop: it reads what it writes), stay
// apart.
loop.func @apart(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 parallel {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    %k = arith.constant 2.000000e+00 : f32
    %w = arith.mulf %v, %k : f32
    loop.store %w, %b[%i] : !loop.buffer<[64], f32>
  }
  loop.for %i = %c0 extent %c64 parallel {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    %k = arith.constant 3.000000e+00 : f32
    %w = arith.mulf %v, %k : f32
    loop.store %w, %b[%i] : !loop.buffer<[64], f32>
  }
  loop.for %i = %c0 extent %c64 parallel {
    %v = loop.load %b[%i] : !loop.buffer<[64], f32>
    %k = arith.constant 2.000000e+00 : f32
    %w = arith.mulf %v, %k : f32
    loop.store %w, %b[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @apart(
// CHECK:         llvm.mlir.addressof @apart_parallel0
// CHECK:         llvm.mlir.addressof @apart_parallel1
// CHECK:         llvm.mlir.addressof @apart_parallel2
// CHECK:       llvm.func @apart_parallel0(
// CHECK:       llvm.func @apart_parallel1(
// CHECK:       llvm.func @apart_parallel2(
