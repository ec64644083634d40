// RUN: compiler-opt %s --split-input-file -p lower-to-llvm | filecheck %s

// Two parallel loops with the same body over different buffers are one
// outlined function: both forks name @same_parallel0 and no @same_parallel1 is
// emitted. The dead product %dead is gone before outlining (it would have
// captured %n: each context holds 2 values, a and b or c, not 3; the bounds are
// constants, copied into the body).
loop.func @same(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}, %c: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = loop.var "n" : index
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
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2) : i64
// CHECK:         %[[CTX1:.*]] = llvm.alloca %[[TWO]] x i64
// CHECK-NEXT:    %[[CTX0:.*]] = llvm.alloca %[[TWO]] x i64
// CHECK:         %[[FN0:.*]] = llvm.mlir.addressof @same_parallel0 : !llvm.ptr
// CHECK:         llvm.call @GOMP_parallel(%[[FN0]], %[[CTX0]],
// CHECK:         llvm.store %c,
// CHECK:         %[[FN1:.*]] = llvm.mlir.addressof @same_parallel0 : !llvm.ptr
// CHECK:         llvm.call @GOMP_parallel(%[[FN1]], %[[CTX1]],
// CHECK-LABEL: llvm.func @same_parallel0(%ctx: !llvm.ptr) -> i32
// CHECK:         %c64{{.*}} = llvm.mlir.constant(64) : i64
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

// -----

// The same body writing an intermediate (an arena view: 64-byte aligned) and the
// output (an argument: any alignment) is one function that claims no alignment for
// the buffers it reloads.
loop.func @weakest(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[256], i8>
  %t = loop.view "t" %arena at "0" : !loop.buffer<[256], i8> -> !loop.buffer<[64], f32>
  loop.for %i = %c0 extent %c64 parallel {
    %x = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %x, %t[%i] : !loop.buffer<[64], f32>
  }
  loop.for %i = %c0 extent %c64 parallel {
    %x = loop.load %t[%i] : !loop.buffer<[64], f32>
    loop.store %x, %b[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @weakest(
// CHECK:         llvm.mlir.addressof @weakest_parallel0
// CHECK:         llvm.mlir.addressof @weakest_parallel0
// CHECK-LABEL: llvm.func @weakest_parallel0(%{{.*}}: !llvm.ptr) -> i32
// CHECK:         %a{{.*}} = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    %t{{.*}} = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-NOT:   llvm.func @weakest_parallel1(

// -----

// Copies between intermediates (arena views at multiples of 64 bytes) keep their
// claims when merged.
loop.func @kept(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[768], i8>
  %t = loop.view "t" %arena at "0" : !loop.buffer<[768], i8> -> !loop.buffer<[64], f32>
  %u = loop.view "u" %arena at "256" : !loop.buffer<[768], i8> -> !loop.buffer<[64], f32>
  %v = loop.view "v" %arena at "512" : !loop.buffer<[768], i8> -> !loop.buffer<[64], f32>
  loop.for %i = %c0 extent %c64 parallel {
    %x = loop.load %t[%i] : !loop.buffer<[64], f32>
    loop.store %x, %u[%i] : !loop.buffer<[64], f32>
  }
  loop.for %i = %c0 extent %c64 parallel {
    %x = loop.load %u[%i] : !loop.buffer<[64], f32>
    loop.store %x, %v[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @kept(
// CHECK:         llvm.mlir.addressof @kept_parallel0
// CHECK:         llvm.mlir.addressof @kept_parallel0
// CHECK-LABEL: llvm.func @kept_parallel0(%{{.*}}: !llvm.ptr) -> i32
// CHECK:         %t{{.*}} = llvm.load %{{.*}} {pointer_align = 64 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    %u{{.*}} = llvm.load %{{.*}} {pointer_align = 64 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NOT:   llvm.func @kept_parallel1(
