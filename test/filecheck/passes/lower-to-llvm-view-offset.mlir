// A loop.view whose offset names a variable: the variable is one of the function's
// symbolic variables (an i64 argument of the lowered function, as an allocation
// size's are), and make-packed-api reports it unbindable when no argument shape
// holds it. Fuzz case: lower-to-llvm died of `KeyError: 'C'` on such a view.
// RUN: compiler-opt %s -p lower-to-llvm | filecheck %s
// RUN: not compiler-opt %s -p make-packed-api,lower-to-llvm 2>&1 | filecheck %s --check-prefix=PACKED

// CHECK-LABEL: llvm.func @weakest(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias}, %C: i64) -> i32
// CHECK:         llvm.getelementptr inbounds %{{.*}}[%C] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// PACKED: lower-to-llvm-view-offset.mlir:[[# @LINE + 2]]:1: error: make-packed-api: symbolic variable 'C' of @weakest appears in no argument shape or stride by itself, so no call can bind it
// PACKED-NOT: Traceback
loop.func @weakest(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[256], i8>
  %t = loop.view "t" %arena at "C" : !loop.buffer<[256], i8> -> !loop.buffer<[64], f32>
  loop.for %i = %c0 extent %c64 {
    %x = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %x, %t[%i] : !loop.buffer<[64], f32>
  }
  loop.for %i = %c0 extent %c64 {
    %x = loop.load %t[%i] : !loop.buffer<[64], f32>
    loop.store %x, %b[%i] : !loop.buffer<[64], f32>
  }
}
