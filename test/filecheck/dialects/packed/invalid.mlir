// RUN: compiler-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

loop.func @f(%args: !llvm.ptr) {
  %x = packed.arg %args[0]
  %d = packed.dltensor_get %x, colour : i32
}
// CHECK: packed.dltensor_get: unknown field 'colour', expected one of data, device_type, device_id, ndim, dtype, shape, strides, byte_offset

// -----

loop.func @f(%args: !llvm.ptr) {
  %x = packed.arg %args[0]
  %d = packed.dltensor_get %x, ndim[1] : i32
}
// CHECK: packed.dltensor_get: field 'ndim' takes no index

// -----

loop.func @f(%args: !llvm.ptr) {
  %x = packed.arg %args[0]
  %d = packed.dltensor_get %x, ndim : index
}
// CHECK: packed.dltensor_get: field 'ndim' is read as i32, not index

// -----

// Constant indices become i32 GEP indices (fuzz bucket: 2^31 wrapped to the GEP's
// "dynamic index" marker, a StopIteration in the LLVM conversion).
loop.func @f(%args: !llvm.ptr) {
  %x = packed.arg %args[0]
  %s = packed.dltensor_get %x, strides[2147483648] : index
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: packed.dltensor_get: the index of strides is 2147483648, outside [0, 2147483647)

// -----

loop.func @f(%args: !llvm.ptr) {
  %x = packed.arg %args[4294967296]
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: packed.arg: the position is 4294967296, outside [0, 2147483647)
