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
