// lower-to-llvm's errors are located at the op they are about (fuzz buckets:
// these were diagnostics without a location).
// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p lower-to-llvm | filecheck %s

// A packed.call that does not bind a variable its callee needs.
loop.func @f_compute(%a: !loop.buffer<["n"], f32>) {
}
loop.func @f(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
  %x = packed.arg %args[0]
  %data = packed.dltensor_get %x, data : index
  packed.call @f_compute(%data) ["m" = %data]
}
// CHECK: lower-to-llvm-invalid.mlir:[[# @LINE - 2]]:3: error: lower-to-llvm: @f_compute needs the variable 'n', which the packed.call does not bind

// -----

// A store into a buffer storage-flatten has not flattened.
loop.func @nd(%a: !loop.buffer<[4, 4], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  loop.store %z, %a[%c0, %c0] : !loop.buffer<[4, 4], f32>
}
// CHECK: lower-to-llvm-invalid.mlir:[[# @LINE - 2]]:3: error: lower-to-llvm: loop.store of a 2-D buffer; run storage-flatten first
