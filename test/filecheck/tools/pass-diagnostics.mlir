// Every pass error of compiler-opt is located (fuzz cases: they were bare messages).
// A bad pass option, or a condition of the whole module, is located at the module's
// first op; an error about an op that a pass built (an outlined loop nest, the
// lowered function) at its nearest ancestor with a location: lower-to-llvm renames
// the function and outlines nests into functions of their own, which keep it.

// RUN: not compiler-opt %s -p 'infer-bound{split-mode=bogus}' 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: pass-diagnostics.mlir:26:1: error: infer-bound: split-mode must be tight or guard, got 'bogus'

// RUN: not compiler-opt %s -p 'make-packed-api{strided=A}' 2>&1 | filecheck %s --check-prefix=STRIDED
// STRIDED: pass-diagnostics.mlir:26:1: error: make-packed-api: no function has a buffer argument 'A'

// RUN: not compiler-opt %S/Inputs/two-stages.mlir -p schedule-ops,lower-to-llvm 2>&1 | filecheck %s --check-prefix=FLAT
// FLAT: two-stages.mlir:1:1: error: lower-to-llvm: loop.store of a 2-D buffer; run storage-flatten first

// The same, inside a parallel loop that lower-to-llvm outlines into a function of
// its own, which carries the location of its loop (here the te.func's).
// RUN: not compiler-opt %S/Inputs/two-stages-parallel.mlir -p schedule-ops,lower-to-llvm 2>&1 | filecheck %s --check-prefix=OUTLINED
// OUTLINED: two-stages-parallel.mlir:1:1: error: lower-to-llvm: loop.store of a 2-D buffer; run storage-flatten first
// OUTLINED-NOT: Traceback

// A hand-written op has a location of its own.
// RUN: not compiler-opt %s -p lower-to-llvm 2>&1 | filecheck %s --check-prefix=OWN
// OWN: pass-diagnostics.mlir:32:7: error: lower-to-llvm: loop.store of a 2-D buffer; run storage-flatten first

loop.func @par(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[8, 8], f32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  loop.for %i = %c0 extent %c8 parallel {
    loop.for %j = %c0 extent %c8 {
      %v = loop.load %a[%i] : !loop.buffer<[64], f32>
      loop.store %v, %b[%i, %j] : !loop.buffer<[8, 8], f32>
    }
  }
}
