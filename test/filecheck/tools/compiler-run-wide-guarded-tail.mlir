// An nparts split whose inner extent is max((n + 3) // 4, 2^31 - 1) (fuzz seed 70, a
// mutation of passes/loop-partition-guard.mlir's @nparts_symbolic): loop-partition's
// cold tail kept the inner loop whole, 2^31 iterations of a guard that holds for a few
// (38 s at n = 4). The tail's inner loop now runs only where the guard can hold
// (passes/loop-partition-guard.mlir's @nparts_wide_inner checks the cut loop); here, the
// results at two sizes, each row written once.
// RUN: compiler-run %s --dim n=4 | filecheck %s
// RUN: compiler-run %s --dim n=13 | filecheck %s --check-prefix=N13
// CHECK: B = [0., 2., 4., 6.]
// N13: B = [ 0.,  2.,  4.,  6.,  8., 10., 12., 14., 16., 18., 20., 22., 24.]
builtin.module {
  loop.func @nparts_symbolic(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
    %n = loop.var "n" : index
    %0 = arith.constant 0 : index
    %1 = arith.constant 1 : index
    %2 = arith.subi %n, %1 : index
    %3 = arith.constant 3 : index
    %4 = arith.addi %n, %3 : index
    %5 = arith.constant 4 : index
    %6 = arith.floordivsi %4, %5 : index
    %7 = arith.maxsi %6, %1 : index
    %8 = arith.floordivsi %2, %7 : index
    %9 = arith.addi %8, %1 : index
    loop.for %B_i_o = %0 extent %9 {
      %10 = arith.constant 0 : index
      %11 = arith.constant 3 : index
      %12 = arith.addi %n, %11 : index
      %13 = arith.constant 4 : index
      %14 = arith.floordivsi %12, %13 : index
      %15 = arith.constant 2147483647 : index
      %16 = arith.maxsi %14, %15 : index
      loop.for %B_i_i = %10 extent %16 {
        %17 = arith.constant 3 : index
        %18 = arith.addi %n, %17 : index
        %19 = arith.constant 4 : index
        %20 = arith.floordivsi %18, %19 : index
        %21 = arith.constant 1 : index
        %22 = arith.maxsi %20, %21 : index
        %23 = arith.muli %B_i_o, %22 : index
        %24 = arith.addi %B_i_i, %23 : index
        %25 = arith.cmpi slt, %24, %n : index
        loop.if %25 likely {
          %26 = arith.constant 3 : index
          %27 = arith.addi %n, %26 : index
          %28 = arith.constant 4 : index
          %29 = arith.floordivsi %27, %28 : index
          %30 = arith.constant 1 : index
          %31 = arith.maxsi %29, %30 : index
          %32 = arith.muli %B_i_o, %31 : index
          %33 = arith.addi %B_i_i, %32 : index
          %34 = loop.load %A[%33] : !loop.buffer<["n"], f32>
          %35 = arith.constant 2.000000e+00 : f32
          %36 = arith.mulf %34, %35 : f32
          loop.store %36, %B[%33] : !loop.buffer<["n"], f32>
        }
      }
    }
  }
}
