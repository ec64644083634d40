// compiler-run with bf16 buffers: NumPy has no bf16, so the inputs are filled as floats
// rounded to bf16 bits, passed as bf16 DLTensors, and the outputs printed as their
// float values. 0.1 is 0.10009765625 in bf16; each product is rounded again.
// RUN: compiler-run %s --dim n=5 | filecheck %s
// RUN: compiler-run %s --dim n=0 | filecheck %s --check-prefix=EMPTY
// CHECK: y = [0.      , 0.100098, 0.200195, 0.300781, 0.400391]
// EMPTY: y = []
loop.func @scale(%x: !loop.buffer<["n"], bf16>, %y: !loop.buffer<["n"], bf16> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n {
    %a = loop.load %x[%i] : !loop.buffer<["n"], bf16>
    %s = arith.constant 0.1 : bf16
    %b = arith.mulf %a, %s : bf16
    loop.store %b, %y[%i] : !loop.buffer<["n"], bf16>
  }
}
