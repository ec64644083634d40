// RUN: compiler-opt %s --split-input-file -p loop-partition | filecheck %s --check-prefix=GUARD

// loop-partition splits loops at their likely conditions: a main loop whose body has
// no condition and constant inner extents, and edge loops (one iteration: inlined).
// (a) A symbolic extent split by 8 (split-mode=tight): without the pass the inner loop
// runs min(n - o * 8, 8) times; with it, o in [0, n // 8) runs a vector loop of
// exactly 8 and the tail o in [n // 8, (n + 7) // 8) keeps n - o * 8. With
// split-mode=guard the main part has no guard; the tail (a cold edge, at most one
// iteration of n / 8) keeps it.
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
      loop.for %B_i_i = %5 extent %6 vectorized {
        %7 = arith.constant 8 : index
        %8 = arith.muli %B_i_o, %7 : index
        %9 = arith.addi %B_i_i, %8 : index
        %10 = arith.cmpi slt, %9, %n : index
        loop.if %10 likely {
          %11 = arith.constant 8 : index
          %12 = arith.muli %B_i_o, %11 : index
          %13 = arith.addi %B_i_i, %12 : index
          %14 = loop.load %A[%13] : !loop.buffer<["n"], f32>
          %15 = arith.constant 2.000000e+00 : f32
          %16 = arith.mulf %14, %15 : f32
          loop.store %16, %B[%13] : !loop.buffer<["n"], f32>
        }
      }
    }
  }
}

// -----

// (a) 20 split by 8: o in [0, 2) with a vector loop of 8, then the tail o = 2 in
// place with a vector loop of 4; split-mode=guard: the guard i < 20 is gone too.
// GUARD-LABEL: loop.func @split_static
// GUARD:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// GUARD-NOT:     loop.if
// GUARD:         %[[C4:.*]] = arith.constant 4 : index
// GUARD-NEXT:    loop.for %B_i_i_1 = %{{.*}} extent %[[C4]] vectorized {
// GUARD-NOT:     loop.if
builtin.module {
  loop.func @split_static(%A: !loop.buffer<[20], f32>, %B: !loop.buffer<[20], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 3 : index
    loop.for %B_i_o = %0 extent %1 {
      %2 = arith.constant 0 : index
      %3 = arith.constant 8 : index
      loop.for %B_i_i = %2 extent %3 vectorized {
        %4 = arith.constant 8 : index
        %5 = arith.muli %B_i_o, %4 : index
        %6 = arith.addi %B_i_i, %5 : index
        %7 = arith.constant 20 : index
        %8 = arith.cmpi slt, %6, %7 : index
        loop.if %8 likely {
          %9 = arith.constant 8 : index
          %10 = arith.muli %B_i_o, %9 : index
          %11 = arith.addi %B_i_i, %10 : index
          %12 = loop.load %A[%11] : !loop.buffer<[20], f32>
          %13 = arith.constant 2.000000e+00 : f32
          %14 = arith.mulf %12, %13 : f32
          loop.store %14, %B[%11] : !loop.buffer<[20], f32>
        }
      }
    }
  }
}

// -----

// (c) 20 in 3 parts of 7: o in [0, 2) with an inner loop of 7, the last part (6) in
// place; split-mode=guard: the bound check is gone.
// GUARD-LABEL: loop.func @nparts_static
// GUARD-NOT:     loop.if
builtin.module {
  loop.func @nparts_static(%A: !loop.buffer<[20], f32>, %B: !loop.buffer<[20], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 3 : index
    loop.for %B_i_o = %0 extent %1 {
      %2 = arith.constant 0 : index
      %3 = arith.constant 7 : index
      loop.for %B_i_i = %2 extent %3 {
        %4 = arith.constant 7 : index
        %5 = arith.muli %B_i_o, %4 : index
        %6 = arith.addi %B_i_i, %5 : index
        %7 = arith.constant 20 : index
        %8 = arith.cmpi slt, %6, %7 : index
        loop.if %8 likely {
          %9 = arith.constant 7 : index
          %10 = arith.muli %B_i_o, %9 : index
          %11 = arith.addi %B_i_i, %10 : index
          %12 = loop.load %A[%11] : !loop.buffer<[20], f32>
          %13 = arith.constant 2.000000e+00 : f32
          %14 = arith.mulf %12, %13 : f32
          loop.store %14, %B[%11] : !loop.buffer<[20], f32>
        }
      }
    }
  }
}

// -----

// (c) n in 4 parts: the parts have f = max((n + 3) // 4, 1) elements, the last one
// fewer; o in [0, min(n // f, ...)) runs an inner loop of exactly f.
// GUARD-LABEL: loop.func @nparts_symbolic
// GUARD:         loop.for %B_i_o = %{{.*}} extent %{{.*}} {
// GUARD-NOT:       loop.if
// GUARD:             loop.store
// GUARD:         loop.for %B_i_o_1 = %{{.*}} extent %{{.*}} {
// GUARD:             loop.if %{{.*}} likely {
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

// -----

// An nparts split whose inner extent is at least 2^31 - 1 (a fuzzed @nparts_symbolic):
// the cold tail keeps its guard, but its inner loop is cut to the iterations where the
// guard can hold (min(extent, n - o * c), at least 0), so it runs a few, not 2^31.
// GUARD-LABEL: loop.func @nparts_wide_inner
// GUARD:         loop.for %B_i_o_1 = %{{.*}} extent %{{.*}} {
// GUARD:           %[[LIVE:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// GUARD-NEXT:      %[[EXT:.*]] = arith.maxsi %[[LIVE]], %{{.*}} : index
// GUARD-NEXT:      loop.for %B_i_i_1 = %{{.*}} extent %[[EXT]] {
// GUARD:             loop.if %{{.*}} likely {
builtin.module {
  loop.func @nparts_wide_inner(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
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
