// RUN: COMPILER_ROUNDTRIP

// Every packed op, printed, parsed and printed again (custom and generic forms).
loop.func @f_compute(%a: !loop.buffer<["n"], f32>) {
}
loop.func @f(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
  %x = packed.arg %args[0]
  %ndim = packed.dltensor_get %x, ndim : i32
  %n = packed.dltensor_get %x, shape[0] : index
  %s = packed.dltensor_get %x, strides[0] : index
  %data = packed.dltensor_get %x, data : index
  %v = packed.dltensor_get %x, data[0] : index
  packed.call @f_compute(%data) ["n" = %n]
}

// CHECK:      loop.func @f(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
// CHECK-NEXT:   %x = packed.arg %args[0]
// CHECK-NEXT:   %ndim = packed.dltensor_get %x, ndim : i32
// CHECK-NEXT:   %n = packed.dltensor_get %x, shape[0] : index
// CHECK-NEXT:   %s = packed.dltensor_get %x, strides[0] : index
// CHECK-NEXT:   %data = packed.dltensor_get %x, data : index
// CHECK-NEXT:   %v = packed.dltensor_get %x, data[0] : index
// CHECK-NEXT:   packed.call @f_compute(%data) ["n" = %n]
// CHECK-NEXT: }
