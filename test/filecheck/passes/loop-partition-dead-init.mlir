// RUN: compiler-opt %s -p loop-partition | filecheck %s

// A guarded reduction whose loop also holds the init of its tile (a causal scores
// product: S[i, j] sums over k where j // 4 <= i // 4, likely; i split by 3, j by 4,
// the order i_o, j_o, k, i_i, j_i). Along j_o: a main piece where every row's guard
// holds (no `if`), an edge that keeps it, and the iterations where it fails for every
// row: there only the init runs, the reduction's loop is dropped. The edge's guard is
// narrowed over the loops around it: `(j_o * 4 + j_i) // 4` with j_i in [0, 4) is j_o,
// the same in every lane of a vectorized j_i. (Input: `compiler.lower(s, [A, B, S],
// until="loop")` of that program.)
builtin.module {
  loop.func @main(%A: !loop.buffer<[8, 3], f32>, %B: !loop.buffer<[3, 8], f32>, %S: !loop.buffer<[8, 8], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 3 : index
    loop.for %S_i_o = %0 extent %1 {
      %2 = arith.constant 0 : index
      %3 = arith.constant 2 : index
      loop.for %S_j_o = %2 extent %3 {
        %4 = arith.constant 0 : index
        %5 = arith.constant 8 : index
        %6 = arith.constant 3 : index
        %7 = arith.muli %S_i_o, %6 : index
        %8 = arith.subi %5, %7 : index
        %9 = arith.minsi %8, %6 : index
        loop.for %S_i_i_init = %4 extent %9 {
          %10 = arith.constant 0 : index
          %11 = arith.constant 4 : index
          loop.for %S_j_i_init = %10 extent %11 {
            %12 = arith.constant 3 : index
            %13 = arith.muli %S_i_o, %12 : index
            %14 = arith.addi %S_i_i_init, %13 : index
            %15 = arith.constant 4 : index
            %16 = arith.muli %S_j_o, %15 : index
            %17 = arith.addi %S_j_i_init, %16 : index
            %18 = arith.constant 0.000000e+00 : f32
            loop.store %18, %S[%14, %17] : !loop.buffer<[8, 8], f32>
          }
        }
        %19 = arith.constant 0 : index
        %20 = arith.constant 3 : index
        loop.for %S_k = %19 extent %20 {
          %21 = arith.constant 0 : index
          %22 = arith.constant 8 : index
          %23 = arith.constant 3 : index
          %24 = arith.muli %S_i_o, %23 : index
          %25 = arith.subi %22, %24 : index
          %26 = arith.minsi %25, %23 : index
          loop.for %S_i_i = %21 extent %26 {
            %27 = arith.constant 0 : index
            %28 = arith.constant 4 : index
            loop.for %S_j_i = %27 extent %28 {
              %29 = arith.constant 3 : index
              %30 = arith.muli %S_i_o, %29 : index
              %31 = arith.addi %S_i_i, %30 : index
              %32 = arith.constant 4 : index
              %33 = arith.muli %S_j_o, %32 : index
              %34 = arith.addi %S_j_i, %33 : index
              %35 = arith.constant 4 : index
              %36 = arith.floordivsi %34, %35 : index
              %37 = arith.constant 4 : index
              %38 = arith.floordivsi %31, %37 : index
              %39 = arith.cmpi sle, %36, %38 : index
              loop.if %39 likely {
                %40 = loop.load %A[%31, %S_k] : !loop.buffer<[8, 3], f32>
                %41 = loop.load %B[%S_k, %34] : !loop.buffer<[3, 8], f32>
                %42 = arith.mulf %40, %41 : f32
                %43 = loop.load %S[%31, %34] : !loop.buffer<[8, 8], f32>
                %44 = arith.addf %43, %42 : f32
                loop.store %44, %S[%31, %34] : !loop.buffer<[8, 8], f32>
              }
            }
          }
        }
      }
    }
  }
}
// CHECK-LABEL: loop.func @main
// CHECK:         loop.for %S_i_o =
// CHECK:           loop.store
// CHECK:           loop.for %S_k =
// CHECK-NOT:         loop.if
// CHECK:             loop.store
// CHECK:         loop.for %S_j_o_1 =
// CHECK:           loop.store
// CHECK:           loop.for %S_k_1 =
// CHECK:             %[[ROW:.*]] = arith.floordivsi
// CHECK-NEXT:        %[[C:.*]] = arith.cmpi sle, %S_j_o_1, %[[ROW]] : index
// CHECK-NEXT:        loop.if %[[C]] likely {
// CHECK:         loop.for %S_j_o_2 =
// CHECK:           loop.store
// CHECK-NOT:       loop.for %S_k
// CHECK:         loop.for %S_j_o_3 =
