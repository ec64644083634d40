// A float constant too large for its type is a located parse error, as in
// mlir-opt (xDSL's struct.pack would raise OverflowError).
// RUN: compiler-opt %s --split-input-file --parsing-diagnostics | filecheck %s

loop.func @f32_constant(%a: !loop.buffer<[4], f32>) {
  %z = arith.constant 1.0e+308 : f32
}
// CHECK: float-range.mlir:6:23
// CHECK: float constant out of range for its type

// -----

loop.func @f16_constant(%a: !loop.buffer<[4], f16>) {
  %z = arith.constant 65536.0 : f16
}
// CHECK: float-range.mlir:14:23
// CHECK: float constant out of range for its type

// -----

loop.func @dense_constant(%a: !loop.buffer<[4], f32>) {
  %z = arith.constant dense<1.0e+300> : vector<4xf32>
}
// CHECK: float-range.mlir:22:28
// CHECK: float constant out of range for its type

// -----

// The largest f32 and infinity (written as its bits) are fine.
loop.func @f32_max(%a: !loop.buffer<[4], f32>) {
  %z = arith.constant 3.4028234e+38 : f32
  %inf = arith.constant 0x7F800000 : f32
}
// CHECK-LABEL: loop.func @f32_max
// CHECK: arith.constant 3.4028234{{.*}}e+38 : f32
// CHECK: arith.constant 0x7f800000 : f32
