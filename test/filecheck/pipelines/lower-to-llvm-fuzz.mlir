// RUN: compiler-run %s | filecheck %s --check-prefix=OUT

// Regressions the fuzzer found in lower-to-llvm (passes/lower-to-llvm-fuzz.mlir), run:
// the pipeline from this loop IR, then the call.

// Regressions the fuzzer found in lower-to-llvm on valid but odd input.
// A vectorized loop with a negative constant extent runs no iteration; choosing
// its vector width looped forever (halving 0 while 0 > -1).
// OUT: y = [0., 0., 0., 0.]
loop.func @negative_extent(%x: !loop.buffer<[8], f32>, %y: !loop.buffer<[4], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cm1 = arith.constant -1 : index
  loop.for %i = %c0 extent %cm1 vectorized {
    %k = arith.muli %i, %c2 : index
    %v = loop.load %x[%k] : !loop.buffer<[8], f32>
    loop.store %v, %y[%i] : !loop.buffer<[4], f32>
  }
}

// -----

// lower-to-llvm run twice (`-p default-pipeline,lower-to-llvm`): the second run
// finds the runtime functions declared already (fuzz bucket: "Redefinition of
// symbol GOMP_parallel", unlocated).
loop.func @par(%a: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  loop.for %i = %c0 extent %c64 parallel {
    loop.store %z, %a[%i] : !loop.buffer<[64], f32>
  }
}
