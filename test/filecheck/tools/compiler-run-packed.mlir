// compiler-run of a loop.func that is not over buffers (here a packed wrapper
// whose callee lost its body): a located error, not an AssertionError (fuzz bucket).
// RUN: not compiler-run %s --dim m=7 --dim n=3 2>&1 | filecheck %s
// CHECK: compiler-run-packed.mlir:[[# @LINE + 2]]:1: error: @packed takes a !llvm.ptr as argument 0, not a buffer: only a loop.func over buffers can be compiled and called
// CHECK-NOT: internal error
loop.func @packed(%args: !llvm.ptr, %num_args: i32, %err: !llvm.ptr {packed.error_values}) {
}
loop.func @callee(%a: !loop.buffer<["n * m"], f32>) {
}
