// A loop.for of constant extent 3 from a symbolic start, its body three NaN stores
// (fuzz seed 68, a mutation of passes/unroll-loops.mlir's @tail): LLVM left it rolled
// despite its unroll metadata and printed "loop not unrolled" warnings at the build;
// unroll-loops copies such innermost loops itself. The run prints the result, nothing else.
// RUN: compiler-run %s --dim n=7 2>&1 | filecheck %s
// CHECK-NOT: warning
// CHECK: a = [ 0.,  0.,  0.,  0., nan, nan, nan]
// CHECK-NOT: warning
loop.func @tail(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c4 = arith.constant 4 : index
  %q = arith.floordivsi %n, %c4 : index
  %base = arith.muli %q, %c4 : index
  %rest = arith.subi %n, %base : index
  loop.for %i = %base extent %rest unrolled {
    %z = arith.constant 0x7FC00000 : f32
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}
