// A 3 x 3 nest of -0.0 stores from a symbolic start (fuzz seed 72, a mutation of
// passes/unroll-loops.mlir's @nested): its versions' outer loops went to LLVM with their
// unroll metadata, LLVM left one rolled and printed "loop not unrolled" at the build.
// unroll-loops copies such loops itself. The run prints the result, nothing else.
// RUN: compiler-run %s --dim n=7 2>&1 | filecheck %s
// CHECK-NOT: warning
// CHECK: a = {{\[\[}} 0.,  0.,  0.,  0.],
// CHECK:  [-0., -0., -0.,  0.],
// CHECK:  [-0., -0., -0.,  0.],
// CHECK:  [-0., -0., -0.,  0.]]
// CHECK-NOT: warning
loop.func @nested(%a: !loop.buffer<["n", 4], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c4 = arith.constant 4 : index
  %q = arith.floordivsi %n, %c4 : index
  %base = arith.muli %q, %c4 : index
  %rest = arith.subi %n, %base : index
  %c0 = arith.constant 0 : index
  loop.for %i = %base extent %rest unrolled {
    loop.for %j = %c0 extent %rest unrolled {
      %z = arith.constant -0.0 : f32
      loop.store %z, %a[%i, %j] : !loop.buffer<["n", 4], f32>
    }
  }
}
