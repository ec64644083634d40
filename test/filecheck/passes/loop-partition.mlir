// RUN: compiler-opt %s --split-input-file -p loop-partition | filecheck %s
// RUN: compiler-opt %s --split-input-file | filecheck %s --check-prefix=OFF

// loop-partition splits loops at their likely conditions: a main loop whose body has
// no condition and constant inner extents, and edge loops (one iteration: inlined).
// (a) A symbolic extent split by 8 (split-mode=tight): without the pass the inner loop
// runs min(n - o * 8, 8) times; with it, o in [0, n // 8) runs a vector loop of
// exactly 8 and the tail o in [n // 8, (n + 7) // 8) keeps n - o * 8. With
// split-mode=guard the main part has no guard; the tail (a cold edge, at most one
// iteration of n / 8) keeps it.
// CHECK-LABEL: loop.func @split_symbolic
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[MAIN:.*]] = arith.floordivsi %n, %[[C8]] : index
// CHECK-NEXT:    loop.for %B_i_o = %{{.*}} extent %[[MAIN]] {
// CHECK-NEXT:      arith.constant 0 : index
// CHECK-NEXT:      %[[E8:.*]] = arith.constant 8 : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[E8]] vectorized {
// CHECK-NOT:         arith.minsi
// CHECK:             loop.store
// CHECK:         %[[START:.*]] = arith.floordivsi %n, %{{.*}} : index
// CHECK:         %[[END:.*]] = arith.floordivsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[TAIL:.*]] = arith.subi %[[END]], %[[START]] : index
// CHECK-NEXT:    loop.for %B_i_o_1 = %[[START]] extent %[[TAIL]] {
// CHECK:           %[[REST:.*]] = arith.subi %n, %{{.*}} : index
// CHECK-NEXT:      loop.for %B_i_i_1 = %{{.*}} extent %[[REST]] vectorized {
// CHECK-NOT:     loop.for
// CHECK-NOT:     loop.if
// OFF-LABEL: loop.func @split_symbolic
// OFF:         arith.minsi
// OFF-NOT:     loop.for %B_i_o_1
builtin.module {
  loop.func @split_symbolic(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
    %n = loop.var "n" : index
    %0 = arith.constant 0 : index
    %1 = arith.constant 7 : index
    %2 = arith.addi %n, %1 : index
    %3 = arith.constant 8 : index
    %4 = arith.floordivsi %2, %3 : index
    loop.for %B_i_o = %0 extent %4 {
      %5 = arith.constant 0 : index
      %6 = arith.constant 8 : index
      %7 = arith.muli %B_i_o, %6 : index
      %8 = arith.subi %n, %7 : index
      %9 = arith.minsi %8, %6 : index
      loop.for %B_i_i = %5 extent %9 vectorized {
        %10 = arith.constant 8 : index
        %11 = arith.muli %B_i_o, %10 : index
        %12 = arith.addi %B_i_i, %11 : index
        %13 = loop.load %A[%12] : !loop.buffer<["n"], f32>
        %14 = arith.constant 2.000000e+00 : f32
        %15 = arith.mulf %13, %14 : f32
        loop.store %15, %B[%12] : !loop.buffer<["n"], f32>
      }
    }
  }
}

// -----

// (a) 20 split by 8: o in [0, 2) with a vector loop of 8, then the tail o = 2 in
// place with a vector loop of 4; split-mode=guard: the guard i < 20 is gone too.
// CHECK-LABEL: loop.func @split_static
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    loop.for %B_i_o = %{{.*}} extent %[[C2]] {
// CHECK-NEXT:      arith.constant 0 : index
// CHECK-NEXT:      %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[C8]] vectorized {
// CHECK:         %[[O:.*]] = arith.constant 2 : index
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    loop.for %B_i_i_1 = %{{.*}} extent %[[C4]] vectorized {
// CHECK:           arith.muli %[[O]], %{{.*}} : index
// CHECK-NOT:     loop.if
builtin.module {
  loop.func @split_static(%A: !loop.buffer<[20], f32>, %B: !loop.buffer<[20], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 3 : index
    loop.for %B_i_o = %0 extent %1 {
      %2 = arith.constant 0 : index
      %3 = arith.constant 20 : index
      %4 = arith.constant 8 : index
      %5 = arith.muli %B_i_o, %4 : index
      %6 = arith.subi %3, %5 : index
      %7 = arith.minsi %6, %4 : index
      loop.for %B_i_i = %2 extent %7 vectorized {
        %8 = arith.constant 8 : index
        %9 = arith.muli %B_i_o, %8 : index
        %10 = arith.addi %B_i_i, %9 : index
        %11 = loop.load %A[%10] : !loop.buffer<[20], f32>
        %12 = arith.constant 2.000000e+00 : f32
        %13 = arith.mulf %11, %12 : f32
        loop.store %13, %B[%10] : !loop.buffer<[20], f32>
      }
    }
  }
}

// -----

// (c) 20 in 3 parts of 7: o in [0, 2) with an inner loop of 7, the last part (6) in
// place; split-mode=guard: the bound check is gone.
// CHECK-LABEL: loop.func @nparts_static
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    loop.for %B_i_o = %{{.*}} extent %[[C2]] {
// CHECK-NEXT:      arith.constant 0 : index
// CHECK-NEXT:      %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[C7]] {
// CHECK:         %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:    loop.for %B_i_i_1 = %{{.*}} extent %[[C6]] {
// CHECK-NOT:     loop.if
// OFF-LABEL: loop.func @nparts_static
// OFF:         arith.minsi
builtin.module {
  loop.func @nparts_static(%A: !loop.buffer<[20], f32>, %B: !loop.buffer<[20], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 3 : index
    loop.for %B_i_o = %0 extent %1 {
      %2 = arith.constant 0 : index
      %3 = arith.constant 20 : index
      %4 = arith.constant 7 : index
      %5 = arith.muli %B_i_o, %4 : index
      %6 = arith.subi %3, %5 : index
      %7 = arith.minsi %6, %4 : index
      loop.for %B_i_i = %2 extent %7 {
        %8 = arith.constant 7 : index
        %9 = arith.muli %B_i_o, %8 : index
        %10 = arith.addi %B_i_i, %9 : index
        %11 = loop.load %A[%10] : !loop.buffer<[20], f32>
        %12 = arith.constant 2.000000e+00 : f32
        %13 = arith.mulf %11, %12 : f32
        loop.store %13, %B[%10] : !loop.buffer<[20], f32>
      }
    }
  }
}

// -----

// (c) n in 4 parts: the parts have f = max((n + 3) // 4, 1) elements, the last one
// fewer; o in [0, min(n // f, ...)) runs an inner loop of exactly f.
// CHECK-LABEL: loop.func @nparts_symbolic
// CHECK:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// CHECK:           %[[F:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[F]] {
// CHECK:         loop.for %B_i_o_1 = %{{.*}} extent %{{.*}} {
// CHECK:           %[[LAST:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      loop.for %B_i_i_1 = %{{.*}} extent %[[LAST]] {
// CHECK-NOT:     loop.for
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
      %15 = arith.constant 1 : index
      %16 = arith.maxsi %14, %15 : index
      %17 = arith.muli %B_i_o, %16 : index
      %18 = arith.subi %n, %17 : index
      %19 = arith.minsi %16, %18 : index
      loop.for %B_i_i = %10 extent %19 {
        %20 = arith.constant 3 : index
        %21 = arith.addi %n, %20 : index
        %22 = arith.constant 4 : index
        %23 = arith.floordivsi %21, %22 : index
        %24 = arith.constant 1 : index
        %25 = arith.maxsi %23, %24 : index
        %26 = arith.muli %B_i_o, %25 : index
        %27 = arith.addi %B_i_i, %26 : index
        %28 = loop.load %A[%27] : !loop.buffer<["n"], f32>
        %29 = arith.constant 2.000000e+00 : f32
        %30 = arith.mulf %28, %29 : f32
        loop.store %30, %B[%27] : !loop.buffer<["n"], f32>
      }
    }
  }
}

// -----

// (b) A 3-tap convolution of an inlined pad of 1: the lazy read's guard
// i + r >= 1 && i + r < 17 holds for every r when i is in [1, 15); the edges
// i = 0 and i = 15 are in place and keep the half of the guard that can fail.
// CHECK-LABEL: loop.func @pad_static
// CHECK:         %y_i = arith.constant 0 : index
// CHECK:         loop.for %y_r = %{{.*}} extent %{{.*}} {
// CHECK:           %[[LO:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      scf.if %[[LO]] -> (f32) {
// CHECK:         loop.store %{{.*}}, %y[%y_i]
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C14:.*]] = arith.constant 14 : index
// CHECK-NEXT:    loop.for %y_i_1 = %[[C1]] extent %[[C14]] {
// CHECK:           loop.for %y_r_1 = %{{.*}} extent %{{.*}} {
// CHECK-NOT:         scf.if
// CHECK:             loop.load %x
// CHECK:         %y_i_2 = arith.constant 15 : index
// CHECK:           %[[HI:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      scf.if %[[HI]] -> (f32) {
// OFF-LABEL: loop.func @pad_static
// OFF:         scf.if
builtin.module {
  loop.func @pad_static(%x: !loop.buffer<[16], f32>, %k: !loop.buffer<[3], f32>, %y: !loop.buffer<[16], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 16 : index
    loop.for %y_i = %0 extent %1 {
      %2 = arith.constant 0 : index
      %y_acc = loop.alloc local "y.acc" [%2] : !loop.buffer<[1], f32>
      %3 = arith.constant 0.000000e+00 : f32
      loop.store %3, %y_acc[%2] : !loop.buffer<[1], f32>
      %4 = arith.constant 0 : index
      %5 = arith.constant 3 : index
      loop.for %y_r = %4 extent %5 {
        %6 = arith.addi %y_i, %y_r : index
        %7 = arith.constant 1 : index
        %8 = arith.cmpi sge, %6, %7 : index
        %9 = arith.constant 17 : index
        %10 = arith.cmpi slt, %6, %9 : index
        %11 = arith.andi %8, %10 : i1
        %12 = scf.if %11 -> (f32) {
          %13 = arith.constant 1 : index
          %14 = arith.subi %6, %13 : index
          %15 = loop.load %x[%14] : !loop.buffer<[16], f32>
          scf.yield %15 : f32
        } else {
          %16 = arith.constant 0.000000e+00 : f32
          scf.yield %16 : f32
        }{te.likely}
        %17 = loop.load %k[%y_r] : !loop.buffer<[3], f32>
        %18 = arith.mulf %12, %17 : f32
        %19 = arith.constant 0 : index
        %20 = loop.load %y_acc[%19] : !loop.buffer<[1], f32>
        %21 = arith.addf %20, %18 : f32
        loop.store %21, %y_acc[%19] : !loop.buffer<[1], f32>
      }
      %22 = arith.constant 0 : index
      %23 = loop.load %y_acc[%22] : !loop.buffer<[1], f32>
      loop.store %23, %y[%y_i] : !loop.buffer<[16], f32>
    }
  }
}

// -----

// (b) The same over a symbolic n: the interior is [1, n - 1), the edges
// [0, min(n, 1)) and [max(n - 1, 1), n), so every i runs once for any n >= 0.
// CHECK-LABEL: loop.func @pad_symbolic
// CHECK:         %[[FIRST:.*]] = arith.minsi %n, %{{.*}} : index
// CHECK-NEXT:    loop.for %y_i = %{{.*}} extent %[[FIRST]] {
// CHECK:             scf.if
// CHECK:         loop.store %{{.*}}, %y[%y_i]
// CHECK-NEXT:  }
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[INNER:.*]] = arith.subi %n, %[[TWO]] : index
// CHECK-NEXT:    loop.for %y_i_1 = %[[ONE]] extent %[[INNER]] {
// CHECK-NOT:       scf.if
// CHECK:           loop.store %{{.*}}, %y[%y_i_1]
// CHECK:         %[[LAST:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[REST:.*]] = arith.subi %n, %[[LAST]] : index
// CHECK-NEXT:    loop.for %y_i_2 = %[[LAST]] extent %[[REST]] {
// CHECK:             %[[HI:.*]] = arith.cmpi slt
// CHECK-NEXT:        scf.if %[[HI]] -> (f32) {
builtin.module {
  loop.func @pad_symbolic(%x: !loop.buffer<["n"], f32>, %k: !loop.buffer<[3], f32>, %y: !loop.buffer<["n"], f32> {loop.output}) {
    %n = loop.var "n" : index
    %0 = arith.constant 0 : index
    loop.for %y_i = %0 extent %n {
      %1 = arith.constant 0 : index
      %y_acc = loop.alloc local "y.acc" [%1] : !loop.buffer<[1], f32>
      %2 = arith.constant 0.000000e+00 : f32
      loop.store %2, %y_acc[%1] : !loop.buffer<[1], f32>
      %3 = arith.constant 0 : index
      %4 = arith.constant 3 : index
      loop.for %y_r = %3 extent %4 {
        %5 = arith.addi %y_i, %y_r : index
        %6 = arith.constant 1 : index
        %7 = arith.cmpi sge, %5, %6 : index
        %8 = arith.constant 1 : index
        %9 = arith.addi %n, %8 : index
        %10 = arith.cmpi slt, %5, %9 : index
        %11 = arith.andi %7, %10 : i1
        %12 = scf.if %11 -> (f32) {
          %13 = arith.constant 1 : index
          %14 = arith.subi %5, %13 : index
          %15 = loop.load %x[%14] : !loop.buffer<["n"], f32>
          scf.yield %15 : f32
        } else {
          %16 = arith.constant 0.000000e+00 : f32
          scf.yield %16 : f32
        }{te.likely}
        %17 = loop.load %k[%y_r] : !loop.buffer<[3], f32>
        %18 = arith.mulf %12, %17 : f32
        %19 = arith.constant 0 : index
        %20 = loop.load %y_acc[%19] : !loop.buffer<[1], f32>
        %21 = arith.addf %20, %18 : f32
        loop.store %21, %y_acc[%19] : !loop.buffer<[1], f32>
      }
      %22 = arith.constant 0 : index
      %23 = loop.load %y_acc[%22] : !loop.buffer<[1], f32>
      loop.store %23, %y[%y_i] : !loop.buffer<["n"], f32>
    }
  }
}

// -----

// The pragma loop_partition=0 keeps a loop and its nest as scheduled.
// CHECK-LABEL: loop.func @pragma_opt_out
// CHECK:         loop.for %B_i_o = %{{.*}} extent %{{.*}} attributes {loop.pragmas = ["loop_partition=0"]} {
// CHECK:           %[[EXT:.*]] = arith.minsi
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[EXT]] {
// CHECK-NOT:     loop.for %B_i_o_1
builtin.module {
  loop.func @pragma_opt_out(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
    %n = loop.var "n" : index
    %0 = arith.constant 0 : index
    %1 = arith.constant 7 : index
    %2 = arith.addi %n, %1 : index
    %3 = arith.constant 8 : index
    %4 = arith.floordivsi %2, %3 : index
    loop.for %B_i_o = %0 extent %4 attributes {loop.pragmas = ["loop_partition=0"]} {
      %5 = arith.constant 0 : index
      %6 = arith.constant 8 : index
      %7 = arith.muli %B_i_o, %6 : index
      %8 = arith.subi %n, %7 : index
      %9 = arith.minsi %8, %6 : index
      loop.for %B_i_i = %5 extent %9 {
        %10 = arith.constant 8 : index
        %11 = arith.muli %B_i_o, %10 : index
        %12 = arith.addi %B_i_i, %11 : index
        %13 = loop.load %A[%12] : !loop.buffer<["n"], f32>
        loop.store %13, %B[%12] : !loop.buffer<["n"], f32>
      }
    }
  }
}

// -----

// Negative case: B is computed at C's outer loop (its buffer is realized in the
// loop's body), so that loop is not split (its pieces would realize B three times).
// CHECK-LABEL: loop.func @attached
// CHECK:         loop.for %C_i_o = %{{.*}} extent %{{.*}} {
// CHECK:           loop.alloc "B"
// CHECK:           arith.minsi
// CHECK:           loop.for %C_i_i = %{{.*}} extent %{{.*}} {
// CHECK-NOT:     loop.for %C_i_o_1
builtin.module {
  loop.func @attached(%A: !loop.buffer<[20], f32>, %C: !loop.buffer<[20], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 3 : index
    loop.for %C_i_o = %0 extent %1 {
      %2 = arith.constant 8 : index
      %3 = arith.muli %C_i_o, %2 : index
      %B = loop.alloc "B" [%3] : !loop.buffer<[8], f32>
      %4 = arith.constant 8 : index
      %5 = arith.muli %C_i_o, %4 : index
      %6 = arith.constant 8 : index
      %7 = arith.muli %C_i_o, %6 : index
      %8 = arith.constant 7 : index
      %9 = arith.addi %7, %8 : index
      %10 = arith.constant 19 : index
      %11 = arith.minsi %9, %10 : index
      %12 = arith.subi %11, %7 : index
      %13 = arith.constant 1 : index
      %14 = arith.addi %12, %13 : index
      loop.for %B_i = %5 extent %14 {
        %15 = loop.load %A[%B_i] : !loop.buffer<[20], f32>
        %16 = arith.constant 1.000000e+00 : f32
        %17 = arith.addf %15, %16 : f32
        loop.store %17, %B[%B_i] : !loop.buffer<[8], f32>
      }
      %18 = arith.constant 0 : index
      %19 = arith.constant 20 : index
      %20 = arith.constant 8 : index
      %21 = arith.muli %C_i_o, %20 : index
      %22 = arith.subi %19, %21 : index
      %23 = arith.minsi %22, %20 : index
      loop.for %C_i_i = %18 extent %23 {
        %24 = arith.constant 8 : index
        %25 = arith.muli %C_i_o, %24 : index
        %26 = arith.addi %C_i_i, %25 : index
        %27 = loop.load %B[%26] : !loop.buffer<[8], f32>
        %28 = arith.constant 2.000000e+00 : f32
        %29 = arith.mulf %27, %28 : f32
        loop.store %29, %C[%26] : !loop.buffer<[20], f32>
      }
    }
  }
}

// -----

// A register tile of a symbolic 1x1 conv, as auto-schedule writes it (cache_write
// "local" computed at the channel tile): schedule-ops allocates the tile at its
// constant bounds (min(k, 4) x min(w, 16) -> 4 x 16) on the stack, and the tile loops'
// extents, `min(4 * f + 3, k - 1) - 4 * f + 1` as infer-bound writes them, are a `min`
// that loop-partition splits the channel loop at: in the main piece they are the
// constants 4 and 16 (unroll-loops and the vectorizer need them), the tail keeps them.
// CHECK-LABEL: loop.func @conv1x1(
// CHECK:         loop.for %conv_yy = %{{.*}} extent %h parallel {
// CHECK:           loop.for %conv_xx_o = %{{.*}} extent %{{.*}} {
// CHECK:             %[[NT:.*]] = arith.floordivsi %k, %{{.*}} : index
// CHECK-NEXT:        loop.for %conv_ff_o = %{{.*}} extent %[[NT]] {
// CHECK:               %conv.local = loop.alloc local "conv.local" [{{.*}}] : !loop.buffer<[1, 4, 1, 16], f32>
// CHECK:               loop.for %conv_local_rc = %{{.*}} extent %c {
// CHECK:                 arith.muli %conv_ff_o, %{{.*}} : index
// CHECK-NEXT:            %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:            loop.for %conv_local_ff = %{{.*}} extent %[[FOUR]] unrolled {
// CHECK:                   arith.muli %conv_xx_o, %{{.*}} : index
// CHECK-NEXT:              %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:              loop.for %conv_local_xx = %{{.*}} extent %[[SIXTEEN]] vectorized {
// CHECK:             loop.for %conv_ff_o_1 = %{{.*}} extent %{{.*}} {
// CHECK:               %conv.local_1 = loop.alloc local "conv.local" [{{.*}}] : !loop.buffer<[1, 4, 1, 16], f32>
// CHECK:               loop.for %conv_local_ff_1 = %{{.*}} extent %{{.*}} unrolled {
// OFF-LABEL:   loop.func @conv1x1(
// OFF:           %conv.local = loop.alloc local "conv.local" [{{.*}}] : !loop.buffer<[1, 4, 1, 16], f32>
// OFF:           loop.for %conv_local_ff = %{{.*}} extent %{{.*}} unrolled {
// OFF-NOT:       loop.for %conv_ff_o_1
builtin.module {
  loop.func @conv1x1(%x: !loop.buffer<[1, "c", "h", "w"], f32>, %wt: !loop.buffer<["k", "c"], f32>, %conv: !loop.buffer<[1, "k", "h", "w"], f32> {loop.output}) {
    %c = loop.var "c" : index
    %h = loop.var "h" : index
    %w = loop.var "w" : index
    %k = loop.var "k" : index
    %0 = arith.constant 0 : index
    %1 = arith.constant 1 : index
    loop.for %conv_nn = %0 extent %1 {
      %2 = arith.constant 0 : index
      loop.for %conv_yy = %2 extent %h parallel {
        %3 = arith.constant 0 : index
        %4 = arith.constant 15 : index
        %5 = arith.addi %w, %4 : index
        %6 = arith.constant 16 : index
        %7 = arith.floordivsi %5, %6 : index
        loop.for %conv_xx_o = %3 extent %7 {
          %8 = arith.constant 0 : index
          %9 = arith.constant 3 : index
          %10 = arith.addi %k, %9 : index
          %11 = arith.constant 4 : index
          %12 = arith.floordivsi %10, %11 : index
          loop.for %conv_ff_o = %8 extent %12 {
            %13 = arith.constant 0 : index
            %14 = arith.constant 4 : index
            %15 = arith.muli %conv_ff_o, %14 : index
            %16 = arith.constant 16 : index
            %17 = arith.muli %conv_xx_o, %16 : index
            %conv.local = loop.alloc local "conv.local" [%13, %15, %conv_yy, %17] : !loop.buffer<[1, 4, 1, 16], f32>
            %18 = arith.constant 0 : index
            %19 = arith.constant 1 : index
            loop.for %conv_local_nn = %18 extent %19 {
              %20 = arith.constant 1 : index
              loop.for %conv_local_yy = %conv_yy extent %20 {
                %21 = arith.constant 4 : index
                %22 = arith.muli %conv_ff_o, %21 : index
                %23 = arith.constant 4 : index
                %24 = arith.muli %conv_ff_o, %23 : index
                %25 = arith.constant 3 : index
                %26 = arith.addi %24, %25 : index
                %27 = arith.constant 1 : index
                %28 = arith.subi %k, %27 : index
                %29 = arith.minsi %26, %28 : index
                %30 = arith.subi %29, %24 : index
                %31 = arith.addi %30, %27 : index
                loop.for %conv_local_ff_init = %22 extent %31 unrolled {
                  %32 = arith.constant 16 : index
                  %33 = arith.muli %conv_xx_o, %32 : index
                  %34 = arith.constant 16 : index
                  %35 = arith.muli %conv_xx_o, %34 : index
                  %36 = arith.constant 15 : index
                  %37 = arith.addi %35, %36 : index
                  %38 = arith.constant 1 : index
                  %39 = arith.subi %w, %38 : index
                  %40 = arith.minsi %37, %39 : index
                  %41 = arith.subi %40, %35 : index
                  %42 = arith.addi %41, %38 : index
                  loop.for %conv_local_xx_init = %33 extent %42 vectorized {
                    %43 = arith.constant 0 : index
                    %44 = arith.constant 0.000000e+00 : f32
                    loop.store %44, %conv.local[%43, %conv_local_ff_init, %conv_local_yy, %conv_local_xx_init] : !loop.buffer<[1, 4, 1, 16], f32>
                  }
                }
                %45 = arith.constant 0 : index
                loop.for %conv_local_rc = %45 extent %c {
                  %46 = arith.constant 4 : index
                  %47 = arith.muli %conv_ff_o, %46 : index
                  %48 = arith.constant 4 : index
                  %49 = arith.muli %conv_ff_o, %48 : index
                  %50 = arith.constant 3 : index
                  %51 = arith.addi %49, %50 : index
                  %52 = arith.constant 1 : index
                  %53 = arith.subi %k, %52 : index
                  %54 = arith.minsi %51, %53 : index
                  %55 = arith.subi %54, %49 : index
                  %56 = arith.addi %55, %52 : index
                  loop.for %conv_local_ff = %47 extent %56 unrolled {
                    %57 = arith.constant 16 : index
                    %58 = arith.muli %conv_xx_o, %57 : index
                    %59 = arith.constant 16 : index
                    %60 = arith.muli %conv_xx_o, %59 : index
                    %61 = arith.constant 15 : index
                    %62 = arith.addi %60, %61 : index
                    %63 = arith.constant 1 : index
                    %64 = arith.subi %w, %63 : index
                    %65 = arith.minsi %62, %64 : index
                    %66 = arith.subi %65, %60 : index
                    %67 = arith.addi %66, %63 : index
                    loop.for %conv_local_xx = %58 extent %67 vectorized {
                      %68 = arith.constant 0 : index
                      %a = loop.load %x[%68, %conv_local_rc, %conv_local_yy, %conv_local_xx] : !loop.buffer<[1, "c", "h", "w"], f32>
                      %b = loop.load %wt[%conv_local_ff, %conv_local_rc] : !loop.buffer<["k", "c"], f32>
                      %p = arith.mulf %a, %b : f32
                      %69 = loop.load %conv.local[%68, %conv_local_ff, %conv_local_yy, %conv_local_xx] : !loop.buffer<[1, 4, 1, 16], f32>
                      %70 = arith.addf %69, %p : f32
                      loop.store %70, %conv.local[%68, %conv_local_ff, %conv_local_yy, %conv_local_xx] : !loop.buffer<[1, 4, 1, 16], f32>
                    }
                  }
                }
              }
            }
            %71 = arith.constant 0 : index
            %72 = arith.constant 4 : index
            %73 = arith.muli %conv_ff_o, %72 : index
            %74 = arith.subi %k, %73 : index
            %75 = arith.minsi %74, %72 : index
            loop.for %conv_ff_i = %71 extent %75 unrolled {
              %76 = arith.constant 0 : index
              %77 = arith.constant 16 : index
              %78 = arith.muli %conv_xx_o, %77 : index
              %79 = arith.subi %w, %78 : index
              %80 = arith.minsi %79, %77 : index
              loop.for %conv_xx_i = %76 extent %80 vectorized {
                %81 = arith.constant 0 : index
                %82 = arith.constant 4 : index
                %83 = arith.muli %conv_ff_o, %82 : index
                %84 = arith.addi %conv_ff_i, %83 : index
                %85 = arith.constant 16 : index
                %86 = arith.muli %conv_xx_o, %85 : index
                %87 = arith.addi %conv_xx_i, %86 : index
                %88 = loop.load %conv.local[%81, %84, %conv_yy, %87] : !loop.buffer<[1, 4, 1, 16], f32>
                loop.store %88, %conv[%81, %84, %conv_yy, %87] : !loop.buffer<[1, "k", "h", "w"], f32>
              }
            }
          }
        }
      }
    }
  }
}
