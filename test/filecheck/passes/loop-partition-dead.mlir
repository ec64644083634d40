// RUN: compiler-opt %s -p loop-partition | filecheck %s

// A reduction whose `where` is likely (a causal product: out[i] sums the terms
// k <= i) runs, per row block i_o, a main loop k in [0, 4 * i_o + 1) where every
// row's guard holds, an edge k in [4 * i_o + 1, 4 * i_o + 4) that keeps the guard,
// and nothing for k >= 4 * i_o + 4, where the guard fails for every row: that piece
// is cut off, since the guard holds all its loop does. (Input: the loop IR of
// O[i, e] = sum(P[i, k] * V[k, e], where=likely(k <= i)), i split by 4, the order
// i_o, k, i_i, e; made by `compiler.lower(..., until="loop")`.)
builtin.module {
  loop.func @main(%P: !loop.buffer<[16, 16], f32>, %V: !loop.buffer<[16, 4], f32>, %O: !loop.buffer<[16, 4], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 4 : index
    loop.for %O_i_o = %0 extent %1 {
      %2 = arith.constant 0 : index
      %3 = arith.constant 4 : index
      loop.for %O_i_i_init = %2 extent %3 {
        %4 = arith.constant 0 : index
        %5 = arith.constant 4 : index
        loop.for %O_e_init = %4 extent %5 {
          %6 = arith.constant 4 : index
          %7 = arith.muli %O_i_o, %6 : index
          %8 = arith.addi %O_i_i_init, %7 : index
          %9 = arith.constant 0.000000e+00 : f32
          loop.store %9, %O[%8, %O_e_init] : !loop.buffer<[16, 4], f32>
        }
      }
      %10 = arith.constant 0 : index
      %11 = arith.constant 16 : index
      loop.for %O_k = %10 extent %11 {
        %12 = arith.constant 0 : index
        %13 = arith.constant 4 : index
        loop.for %O_i_i = %12 extent %13 {
          %14 = arith.constant 0 : index
          %15 = arith.constant 4 : index
          loop.for %O_e = %14 extent %15 {
            %16 = arith.constant 4 : index
            %17 = arith.muli %O_i_o, %16 : index
            %18 = arith.addi %O_i_i, %17 : index
            %19 = arith.cmpi sle, %O_k, %18 : index
            loop.if %19 likely {
              %20 = loop.load %P[%18, %O_k] : !loop.buffer<[16, 16], f32>
              %21 = loop.load %V[%O_k, %O_e] : !loop.buffer<[16, 4], f32>
              %22 = arith.mulf %20, %21 : f32
              %23 = loop.load %O[%18, %O_e] : !loop.buffer<[16, 4], f32>
              %24 = arith.addf %23, %22 : f32
              loop.store %24, %O[%18, %O_e] : !loop.buffer<[16, 4], f32>
            }
          }
        }
      }
    }
  }
}
// CHECK-LABEL: loop.func @main
// CHECK:         loop.for %O_i_o =
// CHECK:         loop.for %O_e_init =
// CHECK:           loop.store
// CHECK:         %[[ROWS:.*]] = arith.muli %O_i_o, %{{.*}} : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[MAIN:.*]] = arith.addi %[[ROWS]], %[[ONE]] : index
// CHECK-NEXT:    loop.for %O_k = %{{.*}} extent %[[MAIN]] {
// CHECK-NOT:       loop.if
// CHECK:           loop.store
// CHECK:         %[[EDGE:.*]] = arith.constant 3 : index
// CHECK-NEXT:    loop.for %O_k_1 = %{{.*}} extent %[[EDGE]] {
// CHECK:             loop.if %{{.*}} likely {
// CHECK:               loop.store
// CHECK-NOT:     loop.for %O_k_2
