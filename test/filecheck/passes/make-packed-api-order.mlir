// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p 'make-packed-api{order=C,A,B strided=B}' | filecheck %s

// order=C,A,B: the packed function takes C first (as build([C, A, B]) does), the
// compute function's arguments follow (attributes with them), B declared strided.
loop.func @sub(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32>, %C: !loop.buffer<["n"], f32> {loop.output}) {
}
// CHECK-LABEL: loop.func @sub(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
// CHECK:         loop.assert %{{.*}}, "sub() takes 3 arrays (C, A, B), got {0}" (%num_args : i32) raises "TypeError"
// CHECK-NEXT:    %C_tensor = packed.arg %args[0]
// CHECK:         %A_tensor = packed.arg %args[1]
// CHECK:         %B_tensor = packed.arg %args[2]
// CHECK:         packed.call @sub_compute(%C, %A, %B) ["n" = %n, "B_stride0" = %B_stride0]
// CHECK:       loop.func @sub_compute(%C: !loop.buffer<["n"], f32> {loop.output}, %A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32, strides ["B_stride0"]>) {

// -----

// A function whose arguments are not exactly C, A, B: the order names no function.
loop.func @other(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
}
// CHECK: make-packed-api-order.mlir:[[# @LINE - 2]]:1: error: make-packed-api: no function has exactly the arguments C, A, B
