// RUN: compiler-opt %s --split-input-file -p compute-inline,infer-bound,schedule-ops,loop-partition | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'compute-inline,infer-bound{split-mode=guard},schedule-ops,loop-partition' | filecheck %s --check-prefix=GUARD
// RUN: compiler-opt %s --split-input-file -p compute-inline,infer-bound,schedule-ops | filecheck %s --check-prefix=OFF

// loop-partition splits loops at their likely conditions: a main loop whose body has
// no condition and constant inner extents, and edge loops (one iteration: inlined).
// (a) A symbolic extent split by 8 (split-mode=tight): without the pass the inner loop
// runs min(n - o * 8, 8) times; with it, o in [0, n // 8) runs a vector loop of
// exactly 8 and the tail o in [n // 8, (n + 7) // 8) keeps n - o * 8. With
// split-mode=guard the main part has no guard; the tail (a cold edge, at most one
// iteration of n / 8) keeps it.
te.func @split_symbolic(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %B = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %0 = te.read %A[%i] : !te.tensor<["n"], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @split_symbolic {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i by 8 : !sched.iter<"B">
  sched.vectorize %i_inner : !sched.iter<"B">
}
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
// GUARD-LABEL: loop.func @split_symbolic
// GUARD:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// GUARD:           loop.for %B_i_i = %{{.*}} extent %{{.*}} vectorized {
// GUARD-NOT:         loop.if
// GUARD:             loop.store
// GUARD:         loop.for %B_i_o_1 = %{{.*}} extent %{{.*}} {
// GUARD-NEXT:      arith.constant 0 : index
// GUARD-NEXT:      %[[E8:.*]] = arith.constant 8 : index
// GUARD-NEXT:      loop.for %B_i_i_1 = %{{.*}} extent %[[E8]] vectorized {
// GUARD:             %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %n : index
// GUARD-NEXT:        loop.if %[[IN]] likely {
// OFF-LABEL: loop.func @split_symbolic
// OFF:         arith.minsi
// OFF-NOT:     loop.for %B_i_o_1

// -----

// (a) 20 split by 8: o in [0, 2) with a vector loop of 8, then the tail o = 2 in
// place with a vector loop of 4; split-mode=guard: the guard i < 20 is gone too.
te.func @split_static(%A: !te.tensor<[20], f32>) -> !te.tensor<[20], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[20], f32> {
    %0 = te.read %A[%i] : !te.tensor<[20], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<[20], f32>
}
sched.schedule @split_static {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i by 8 : !sched.iter<"B">
  sched.vectorize %i_inner : !sched.iter<"B">
}
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
// GUARD-LABEL: loop.func @split_static
// GUARD:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// GUARD-NOT:     loop.if
// GUARD:         %[[C4:.*]] = arith.constant 4 : index
// GUARD-NEXT:    loop.for %B_i_i_1 = %{{.*}} extent %[[C4]] vectorized {
// GUARD-NOT:     loop.if

// -----

// (c) 20 in 3 parts of 7: o in [0, 2) with an inner loop of 7, the last part (6) in
// place; split-mode=guard: the bound check is gone.
te.func @nparts_static(%A: !te.tensor<[20], f32>) -> !te.tensor<[20], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[20], f32> {
    %0 = te.read %A[%i] : !te.tensor<[20], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<[20], f32>
}
sched.schedule @nparts_static {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i nparts 3 : !sched.iter<"B">
}
// CHECK-LABEL: loop.func @nparts_static
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    loop.for %B_i_o = %{{.*}} extent %[[C2]] {
// CHECK-NEXT:      arith.constant 0 : index
// CHECK-NEXT:      %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[C7]] {
// CHECK:         %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:    loop.for %B_i_i_1 = %{{.*}} extent %[[C6]] {
// CHECK-NOT:     loop.if
// GUARD-LABEL: loop.func @nparts_static
// GUARD-NOT:     loop.if
// OFF-LABEL: loop.func @nparts_static
// OFF:         arith.minsi

// -----

// (c) n in 4 parts: the parts have f = max((n + 3) // 4, 1) elements, the last one
// fewer; o in [0, min(n // f, ...)) runs an inner loop of exactly f.
te.func @nparts_symbolic(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %B = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %0 = te.read %A[%i] : !te.tensor<["n"], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @nparts_symbolic {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i nparts 4 : !sched.iter<"B">
}
// CHECK-LABEL: loop.func @nparts_symbolic
// CHECK:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// CHECK:           %[[F:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[F]] {
// CHECK:         loop.for %B_i_o_1 = %{{.*}} extent %{{.*}} {
// CHECK:           %[[LAST:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      loop.for %B_i_i_1 = %{{.*}} extent %[[LAST]] {
// CHECK-NOT:     loop.for
// GUARD-LABEL: loop.func @nparts_symbolic
// GUARD:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// GUARD-NOT:       loop.if
// GUARD:             loop.store
// GUARD:         loop.for %B_i_o_1 = %{{.*}} extent %{{.*}} {
// GUARD:             loop.if %{{.*}} likely {

// -----

// (b) A 3-tap convolution of an inlined pad of 1: the lazy read's guard
// i + r >= 1 && i + r < 17 holds for every r when i is in [1, 15); the edges
// i = 0 and i = 15 are in place and keep the half of the guard that can fail.
te.func @pad_static(%x: !te.tensor<[16], f32>, %k: !te.tensor<[3], f32>) -> !te.tensor<[16], f32> {
  %p = te.compute "p" (%i) : !te.tensor<[18], f32> {
    %0 = arith.constant 1 : index
    %1 = arith.cmpi sge, %i, %0 : index
    %2 = arith.constant 17 : index
    %3 = arith.cmpi slt, %i, %2 : index
    %4 = arith.andi %1, %3 : i1
    %5 = scf.if %4 -> (f32) {
      %6 = arith.constant 1 : index
      %7 = arith.subi %i, %6 : index
      %8 = te.read %x[%7] : !te.tensor<[16], f32>
      scf.yield %8 : f32
    } else {
      %9 = arith.constant 0.000000e+00 : f32
      scf.yield %9 : f32
    } {te.likely}
    te.yield %5 : f32
  }
  %y = te.compute "y" (%i_1) : !te.tensor<[16], f32> {
    %10 = te.reduce sum (%r) in [3] : f32 {
      %11 = arith.addi %i_1, %r : index
      %12 = te.read %p[%11] : !te.tensor<[18], f32>
      %13 = te.read %k[%r] : !te.tensor<[3], f32>
      %14 = arith.mulf %12, %13 : f32
      te.yield %14 : f32
    }
    te.yield %10 : f32
  }
  te.return %y : !te.tensor<[16], f32>
}
sched.schedule @pad_static {
  sched.compute_inline "p"
}
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

// -----

// (b) The same over a symbolic n: the interior is [1, n - 1), the edges
// [0, min(n, 1)) and [max(n - 1, 1), n), so every i runs once for any n >= 0.
te.func @pad_symbolic(%x: !te.tensor<["n"], f32>, %k: !te.tensor<[3], f32>) -> !te.tensor<["n"], f32> {
  %p = te.compute "p" (%i) : !te.tensor<["n + 2"], f32> {
    %0 = arith.constant 1 : index
    %1 = arith.cmpi sge, %i, %0 : index
    %2 = te.var "n" : index
    %3 = arith.constant 1 : index
    %4 = arith.addi %2, %3 : index
    %5 = arith.cmpi slt, %i, %4 : index
    %6 = arith.andi %1, %5 : i1
    %7 = scf.if %6 -> (f32) {
      %8 = arith.constant 1 : index
      %9 = arith.subi %i, %8 : index
      %10 = te.read %x[%9] : !te.tensor<["n"], f32>
      scf.yield %10 : f32
    } else {
      %11 = arith.constant 0.000000e+00 : f32
      scf.yield %11 : f32
    } {te.likely}
    te.yield %7 : f32
  }
  %y = te.compute "y" (%i_1) : !te.tensor<["n"], f32> {
    %12 = te.reduce sum (%r) in [3] : f32 {
      %13 = arith.addi %i_1, %r : index
      %14 = te.read %p[%13] : !te.tensor<["n + 2"], f32>
      %15 = te.read %k[%r] : !te.tensor<[3], f32>
      %16 = arith.mulf %14, %15 : f32
      te.yield %16 : f32
    }
    te.yield %12 : f32
  }
  te.return %y : !te.tensor<["n"], f32>
}
sched.schedule @pad_symbolic {
  sched.compute_inline "p"
}
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

// -----

// The pragma loop_partition=0 keeps a loop and its nest as scheduled.
te.func @pragma_opt_out(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %B = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %0 = te.read %A[%i] : !te.tensor<["n"], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @pragma_opt_out {
  %i = sched.axis "B" 0
  %i_outer, %i_inner = sched.split %i by 8 : !sched.iter<"B">
  sched.pragma %i_outer "loop_partition=0" : !sched.iter<"B">
}
// CHECK-LABEL: loop.func @pragma_opt_out
// CHECK:         loop.for %B_i_o = %{{.*}} extent %{{.*}} attributes {loop.pragmas = ["loop_partition=0"]} {
// CHECK:           %[[EXT:.*]] = arith.minsi
// CHECK-NEXT:      loop.for %B_i_i = %{{.*}} extent %[[EXT]] {
// CHECK-NOT:     loop.for %B_i_o_1

// -----

// Negative case: B is computed at C's outer loop (its buffer is realized in the
// loop's body), so that loop is not split (its pieces would realize B three times).
te.func @attached(%A: !te.tensor<[20], f32>) -> !te.tensor<[20], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[20], f32> {
    %0 = te.read %A[%i] : !te.tensor<[20], f32>
    %1 = arith.constant 1.000000e+00 : f32
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  %C = te.compute "C" (%i_1) : !te.tensor<[20], f32> {
    %3 = te.read %B[%i_1] : !te.tensor<[20], f32>
    %4 = arith.constant 2.000000e+00 : f32
    %5 = arith.mulf %3, %4 : f32
    te.yield %5 : f32
  }
  te.return %C : !te.tensor<[20], f32>
}
sched.schedule @attached {
  %i = sched.axis "C" 0
  %i_outer, %i_inner = sched.split %i by 8 : !sched.iter<"C">
  sched.compute_at "B", %i_outer : !sched.iter<"C">
}
// CHECK-LABEL: loop.func @attached
// CHECK:         loop.for %C_i_o = %{{.*}} extent %{{.*}} {
// CHECK:           loop.alloc "B"
// CHECK:           arith.minsi
// CHECK:           loop.for %C_i_i = %{{.*}} extent %{{.*}} {
// CHECK-NOT:     loop.for %C_i_o_1

// -----

// A register tile of a symbolic 1x1 conv, as auto-schedule writes it (cache_write
// "local" computed at the channel tile): schedule-ops allocates the tile at its
// constant bounds (min(k, 4) x min(w, 16) -> 4 x 16) on the stack, and the tile loops'
// extents, `min(4 * f + 3, k - 1) - 4 * f + 1` as infer-bound writes them, are a `min`
// that loop-partition splits the channel loop at: in the main piece they are the
// constants 4 and 16 (unroll-loops and the vectorizer need them), the tail keeps them.
te.func @conv1x1(%x: !te.tensor<[1, "c", "h", "w"], f32>, %wt: !te.tensor<["k", "c"], f32>) -> !te.tensor<[1, "k", "h", "w"], f32> {
  %conv = te.compute "conv" (%nn, %ff, %yy, %xx) : !te.tensor<[1, "k", "h", "w"], f32> {
    %r = te.reduce sum (%rc) in ["c"] : f32 {
      %a = te.read %x[%nn, %rc, %yy, %xx] : !te.tensor<[1, "c", "h", "w"], f32>
      %b = te.read %wt[%ff, %rc] : !te.tensor<["k", "c"], f32>
      %p = arith.mulf %a, %b : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %conv : !te.tensor<[1, "k", "h", "w"], f32>
}
sched.schedule @conv1x1 {
  sched.cache_write "conv", "local"
  %conv_nn = sched.axis "conv" 0
  %conv_ff = sched.axis "conv" 1
  %conv_yy = sched.axis "conv" 2
  %conv_xx = sched.axis "conv" 3
  %conv_ff_o, %conv_ff_i = sched.split %conv_ff by 4 : !sched.iter<"conv">
  %conv_xx_o, %conv_xx_i = sched.split %conv_xx by 16 : !sched.iter<"conv">
  sched.reorder %conv_nn, %conv_yy, %conv_xx_o, %conv_ff_o, %conv_ff_i, %conv_xx_i : !sched.iter<"conv">
  sched.unroll %conv_ff_i : !sched.iter<"conv">
  sched.vectorize %conv_xx_i : !sched.iter<"conv">
  sched.parallel %conv_yy : !sched.iter<"conv">
  sched.compute_at "conv.local", %conv_ff_o : !sched.iter<"conv">
  %conv_nn_l = sched.axis "conv.local" 0
  %conv_ff_l = sched.axis "conv.local" 1
  %conv_yy_l = sched.axis "conv.local" 2
  %conv_xx_l = sched.axis "conv.local" 3
  %conv_rc_l = sched.axis "conv.local" reduce 0
  sched.reorder %conv_nn_l, %conv_yy_l, %conv_rc_l, %conv_ff_l, %conv_xx_l : !sched.iter<"conv.local">
  sched.unroll %conv_ff_l : !sched.iter<"conv.local">
  sched.vectorize %conv_xx_l : !sched.iter<"conv.local">
}
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
