// A hand-written loop.assert that fails at run time says which assert failed and
// where, around its own text, which may be a single word (fuzz case: the run ended
// with the bare `ArgumentValueError: second`).
// RUN: not compiler-run %s 2>&1 | filecheck %s
// CHECK: compiler-run: error: ArgumentValueError: the loop.assert at {{.*}}compiler-run-asserts.mlir:22:3 failed: second
// CHECK-NOT: Traceback

// A --dim that names no symbolic dimension of the entry is refused (it would be
// ignored, and the run fail on something else): @asserts has none.
// RUN: not compiler-run %s --dim first=-1 --dim second=2 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: compiler-run: error: --dim first=-1: @asserts has no symbolic dimension 'first' (it has none)

// A misspelt dimension of a function that has some: the message lists them.
// RUN: not compiler-run %S/Inputs/symbolic.mlir --dim nn=3 2>&1 | filecheck %s --check-prefix=MISSPELT
// MISSPELT: compiler-run: error: --dim nn=3: @{{.*}} has no symbolic dimension 'nn' (its dimensions are n)
loop.func @asserts(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ok = arith.cmpi eq, %c0, %c0 : index
  loop.assert %ok, "first"
  %ok2 = arith.cmpi eq, %c0, %c1 : index
  loop.assert %ok2, "second"
}
