// A module-level op that has no LLVM IR (a loop.var outside a function, fuzz seed 63):
// the LLVM IR printer's error is located at it (it was a bare message).

// RUN: not compiler-opt %s -p 'default-pipeline{until=llvm}' -t llvm 2>&1 | filecheck %s
// CHECK: llvm-top-level-op.mlir:[[# @LINE + 4]]:3: error: no LLVM IR for a top-level loop.var (only llvm.func and llvm.mlir.global)

loop.func @alloc(%a: !loop.buffer<["n"], f32> {loop.output}) {
}
  %n = loop.var "n" : index
