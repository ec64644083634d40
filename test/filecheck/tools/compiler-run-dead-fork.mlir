// A check that always fails before a parallel loop: LLVM drops the fork as dead code,
// leaving only the outlined body's omp_get_thread_num; libgomp must still be loaded, or
// that name resolves to nothing and takes the object's other calls (aligned_alloc) to
// address 0: a segmentation fault instead of the BoundsError (make fuzz seed 59).
// RUN: not compiler-run %s 2>&1 | filecheck %s
// CHECK: compiler-run: error: BoundsError: main: load from S0[S1_s - 100] out of bounds: index -99 of dimension 0 is outside [0, 0)
te.func @main(%A: !te.tensor<[8], f64>) -> !te.tensor<[10], f64> {
  %S0 = te.compute "S0" (%i) : !te.tensor<[8], f64> {
    %0 = te.read %A[%i] : !te.tensor<[8], f64>
    %1 = arith.constant 2.000000e+00 : f64
    %2 = arith.mulf %0, %1 : f64
    te.yield %2 : f64
  }
  %S1 = te.compute "S1" (%s) : !te.tensor<[10], f64> {
    %c1 = arith.constant 1 : index
    %ok = arith.cmpi sge, %s, %c1 : index
    %10 = scf.if %ok -> (f64) {
      %11 = arith.constant 100 : index
      %12 = arith.subi %s, %11 : index
      %13 = te.read %S0[%12] : !te.tensor<[8], f64>
      scf.yield %13 : f64
    } else {
      %14 = arith.constant 0.000000e+00 : f64
      scf.yield %14 : f64
    }
    te.yield %10 : f64
  }
  %S2 = te.compute "S2" (%t) : !te.tensor<[10], f64> {
    %15 = te.read %S1[%t] : !te.tensor<[10], f64>
    te.yield %15 : f64
  }
  te.return %S2 : !te.tensor<[10], f64>
}
sched.schedule @main {
  %t = sched.axis "S2" 0
  sched.parallel %t : !sched.iter<"S2">
}
