// RUN: compiler-opt %s --split-input-file -p unroll-loops | filecheck %s

// A loop marked unrolled with a constant trip count becomes copies of its body.
loop.func @unroll(%a: !loop.buffer<[8], f32>, %b: !loop.buffer<[8], f32> {loop.output}) {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  loop.for %i = %c2 extent %c5 step 2 unrolled {
    %v = loop.load %a[%i] : !loop.buffer<[8], f32>
    loop.store %v, %b[%i] : !loop.buffer<[8], f32>
  }
}
// CHECK-LABEL: loop.func @unroll
// CHECK-NOT:     loop.for
// CHECK:         %c5 = arith.constant 5 : index
// CHECK-NEXT:    %[[I0:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[V0:.*]] = loop.load %a[%[[I0]]]
// CHECK-NEXT:    loop.store %[[V0]], %b[%[[I0]]]
// CHECK-NEXT:    %[[I1:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[V1:.*]] = loop.load %a[%[[I1]]]
// CHECK-NEXT:    loop.store %[[V1]], %b[%[[I1]]]
// CHECK-NEXT:    %[[I2:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[V2:.*]] = loop.load %a[%[[I2]]]
// CHECK-NEXT:    loop.store %[[V2]], %b[%[[I2]]]
// CHECK-NOT:     loop.load

// -----

// A symbolic trip count is left alone (LLVM may still unroll it).
loop.func @symbolic(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n unrolled {
    %z = arith.constant 0.0 : f32
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: loop.func @symbolic
// CHECK:         loop.for %i = %c0 extent %n unrolled {
