// RUN: compiler-opt %s --split-input-file -p 'lower-to-llvm{vector-bits=256}' | filecheck %s

// te.shift_right: arith.shrsi (int8, int32: the sign shifted in) is llvm.ashr and
// arith.shrui (uint8: zeros shifted in) llvm.lshr, scalar and vectorized; the shift
// amount, invariant in the vector loop, is broadcast (int4 unpacking: a nibble is
// `(byte >> 4) & 15`).
loop.func @nibbles(%x: !loop.buffer<[32], i8>, %hi: !loop.buffer<[32], i8> {loop.output}, %lo: !loop.buffer<[32], i8> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %four = arith.constant 4 : i8
  %mask = arith.constant 15 : i8
  loop.for %i = %c0 extent %c32 vectorized {
    %v = loop.load %x[%i] : !loop.buffer<[32], i8>
    %s = arith.shrsi %v, %four : i8
    %h = arith.andi %s, %mask : i8
    loop.store %h, %hi[%i] : !loop.buffer<[32], i8>
    %u = arith.shrui %v, %four : i8
    loop.store %u, %lo[%i] : !loop.buffer<[32], i8>
  }
}
// CHECK-LABEL: llvm.func @nibbles(
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} -> vector<32xi8>
// CHECK:         %[[FOUR:.*]] = llvm.shufflevector %{{.*}} : vector<32xi8>
// CHECK-NEXT:    %[[S:.*]] = llvm.ashr %[[V]], %[[FOUR]] : vector<32xi8>
// CHECK:         llvm.and %[[S]], %{{.*}} : vector<32xi8>
// CHECK:         llvm.lshr %[[V]], %{{.*}} : vector<32xi8>

// -----

// Scalar: int32's arithmetic shift by a value that varies (a nibble's position, 4 * (i % 2)).
loop.func @varying(%x: !loop.buffer<[8], i32>, %y: !loop.buffer<[8], i32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  loop.for %i = %c0 extent %c8 {
    %v = loop.load %x[%i] : !loop.buffer<[8], i32>
    %n = arith.index_cast %i : index to i32
    %s = arith.shrsi %v, %n : i32
    loop.store %s, %y[%i] : !loop.buffer<[8], i32>
  }
}
// CHECK-LABEL: llvm.func @varying(
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} -> i32
// CHECK-NEXT:    %[[N:.*]] = llvm.trunc %i : i64 to i32
// CHECK-NEXT:    %{{.*}} = llvm.ashr %[[V]], %[[N]] : i32
