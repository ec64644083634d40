// RUN: compiler-opt %s --split-input-file -p unroll-loops | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'unroll-loops{copy=true}' | filecheck %s --check-prefix=COPY
// RUN: compiler-opt %s --split-input-file -p 'unroll-loops{max-trip-count=2}' | filecheck %s --check-prefix=SHORT
// RUN: compiler-opt %s --split-input-file -p 'unroll-loops{max-versions=0}' | filecheck %s --check-prefix=NOVERSIONS
// RUN: not compiler-opt %s --split-input-file -p 'unroll-loops{max-trip-count=5000}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not compiler-opt %s --split-input-file -p 'unroll-loops{max-versions=-1}' 2>&1 | filecheck %s --check-prefix=VERSIONS
// VERSIONS: error: unroll-loops: max-versions must be in [0, 1024], got -1
// OPTION: unroll-loops.mlir:[[# @LINE + 6]]:1: error: unroll-loops: max-trip-count must be in [0, 1024], got 5000

// A loop marked unrolled with a constant trip count (3: 2, 4, 6) is left for LLVM to
// unroll: it keeps its body once and gets {unroll_full}, which becomes the loop's
// `llvm.loop.unroll.full` metadata on its back edge. With copy=true the pass makes
// the copies itself; with max-trip-count below 3 it leaves the loop as it is.
loop.func @unroll(%a: !loop.buffer<[8], f32>, %b: !loop.buffer<[8], f32> {loop.output}) {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  loop.for %i = %c2 extent %c5 step 2 unrolled {
    %v = loop.load %a[%i] : !loop.buffer<[8], f32>
    loop.store %v, %b[%i] : !loop.buffer<[8], f32>
  }
}
// CHECK-LABEL: loop.func @unroll
// CHECK:         loop.for %i = %c2 extent %c5 step 2 unrolled attributes {unroll_full} {
// CHECK-NEXT:      %v = loop.load %a[%i]
// CHECK-NEXT:      loop.store %v, %b[%i]
// CHECK-NEXT:    }

// COPY-LABEL: loop.func @unroll
// COPY-NOT:     loop.for
// COPY:         %c5 = arith.constant 5 : index
// COPY-NEXT:    %[[I0:.*]] = arith.constant 2 : index
// COPY-NEXT:    %[[V0:.*]] = loop.load %a[%[[I0]]]
// COPY-NEXT:    loop.store %[[V0]], %b[%[[I0]]]
// COPY-NEXT:    %[[I1:.*]] = arith.constant 4 : index
// COPY-NEXT:    %[[V1:.*]] = loop.load %a[%[[I1]]]
// COPY-NEXT:    loop.store %[[V1]], %b[%[[I1]]]
// COPY-NEXT:    %[[I2:.*]] = arith.constant 6 : index
// COPY-NEXT:    %[[V2:.*]] = loop.load %a[%[[I2]]]
// COPY-NEXT:    loop.store %[[V2]], %b[%[[I2]]]
// COPY-NOT:     loop.load

// SHORT-LABEL: loop.func @unroll
// SHORT:         loop.for %i = %c2 extent %c5 step 2 unrolled {

// The back edge of the loop (the branch from its body to its header) carries a distinct
// loop ID naming itself and the unroll request; the entry branch carries none.

// -----

// A symbolic trip count is left alone (LLVM may still unroll it).
loop.func @symbolic(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n unrolled {
    %z = arith.constant 0.0 : f32
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: loop.func @symbolic
// CHECK:         loop.for %i = %c0 extent %n unrolled {
// COPY-LABEL:  loop.func @symbolic
// COPY:          loop.for %i = %c0 extent %n unrolled {

// -----

// Inside a vectorized loop the copies are made here, even without copy=true: the
// vector code generator of lower-to-llvm needs a straight-line body.
loop.func @in_vector(%a: !loop.buffer<[32], f32>, %b: !loop.buffer<[32], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  loop.for %j = %c0 extent %c16 vectorized {
    loop.for %k = %c0 extent %c2 unrolled {
      %row = arith.muli %k, %c16 : index
      %at = arith.addi %row, %j : index
      %v = loop.load %a[%at] : !loop.buffer<[32], f32>
      loop.store %v, %b[%at] : !loop.buffer<[32], f32>
    }
  }
}
// CHECK-LABEL: loop.func @in_vector
// CHECK:         loop.for %j = %c0 extent %c16 vectorized {
// CHECK-NEXT:      %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[R0:.*]] = arith.muli %[[K0]], %c16 : index
// CHECK-NEXT:      %[[A0:.*]] = arith.addi %[[R0]], %j : index
// CHECK-NEXT:      %[[V0:.*]] = loop.load %a[%[[A0]]]
// CHECK-NEXT:      loop.store %[[V0]], %b[%[[A0]]]
// CHECK-NEXT:      %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[R1:.*]] = arith.muli %[[K1]], %c16 : index
// CHECK-NEXT:      %[[A1:.*]] = arith.addi %[[R1]], %j : index
// CHECK-NEXT:      %[[V1:.*]] = loop.load %a[%[[A1]]]
// CHECK-NEXT:      loop.store %[[V1]], %b[%[[A1]]]
// CHECK-NEXT:    }
// The vector loop then holds both rows as vector loads and stores.

// -----

// A constant extent from a symbolic start (the main piece of a split tile that
// loop-partition cut): unrolled all the same; the copies count from the start. An
// innermost one the pass copies itself even without copy=true (see @tail below).
loop.func @from_symbolic(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c2 = arith.constant 2 : index
  %s = arith.subi %n, %c2 : index
  loop.for %i = %s extent %c2 unrolled {
    %z = arith.constant 0.0 : f32
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: loop.func @from_symbolic
// CHECK-NOT:     loop.for
// CHECK:         arith.addi %s
// CHECK-COUNT-2: loop.store
// CHECK-NOT:     loop.for
// COPY-LABEL:  loop.func @from_symbolic
// COPY-NOT:      loop.for
// COPY:          %[[K0:.*]] = arith.constant 0 : index
// COPY-NEXT:     %[[I0:.*]] = arith.addi %s, %[[K0]] : index
// COPY-NEXT:     %[[Z0:.*]] = arith.constant 0.000000e+00 : f32
// COPY-NEXT:     loop.store %[[Z0]], %a[%[[I0]]]
// COPY-NEXT:     %[[K1:.*]] = arith.constant 1 : index
// COPY-NEXT:     %[[I1:.*]] = arith.addi %s, %[[K1]] : index
// COPY-NEXT:     %[[Z1:.*]] = arith.constant 0.000000e+00 : f32
// COPY-NEXT:     loop.store %[[Z1]], %a[%[[I1]]]
// COPY-NOT:      loop.store

// -----

// The last tile of a split by 4 of a symbolic n (loop-partition's tail piece) runs
// n - n // 4 * 4 rows: at most 3, so the loop is versioned, one copy per trip count,
// each unrolled; none for 0 (no iteration). With max-versions=0 (or max-trip-count=2,
// below its bound) it stays symbolic. Each version is an innermost loop from a symbolic
// start, which the pass copies itself: LLVM left such a loop of three NaN stores rolled
// despite its unroll metadata and printed a warning at the build (fuzz seed 68).
loop.func @tail(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c4 = arith.constant 4 : index
  %q = arith.floordivsi %n, %c4 : index
  %base = arith.muli %q, %c4 : index
  %rest = arith.subi %n, %base : index
  loop.for %i = %base extent %rest unrolled {
    %z = arith.constant 0.0 : f32
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: loop.func @tail
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[IS1:.*]] = arith.cmpi eq, %rest, %[[C1]] : index
// CHECK-NEXT:    loop.if %[[IS1]] {
// CHECK-COUNT-1:   loop.store
// CHECK-NOT:       loop.store
// CHECK:         } else {
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[IS2:.*]] = arith.cmpi eq, %rest, %[[C2]] : index
// CHECK-NEXT:      loop.if %[[IS2]] {
// CHECK-COUNT-2:     loop.store
// CHECK-NOT:         loop.store
// CHECK:           } else {
// CHECK-NEXT:        %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[IS3:.*]] = arith.cmpi eq, %rest, %[[C3]] : index
// CHECK-NEXT:        loop.if %[[IS3]] {
// CHECK-COUNT-3:       loop.store
// CHECK-NOT:     loop.store
// CHECK-NOT:     else
// CHECK-NOT:     loop.for

// COPY-LABEL:  loop.func @tail
// COPY-NOT:      loop.for
// COPY-COUNT-6:  loop.store
// COPY-NOT:      loop.store

// SHORT-LABEL:       loop.func @tail
// SHORT:               loop.for %i = %base extent %rest unrolled {

// NOVERSIONS-LABEL: loop.func @tail
// NOVERSIONS:         loop.for %i = %base extent %rest unrolled {
// NOVERSIONS-NOT:     loop.if

// -----

// Only the outermost of two bounded symbolic loops is versioned, so the copies never
// multiply; in the version for c the inner loop's extent is c too. The outer loop,
// from a symbolic start with no vector loop inside, is copied here (LLVM left such a
// nest of -0.0 stores rolled and warned, fuzz seed 72): the 1 + 2 + 3 copies of its
// body are inner loops of constant extent, marked for LLVM.
loop.func @nested(%a: !loop.buffer<["n", 4], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c4 = arith.constant 4 : index
  %q = arith.floordivsi %n, %c4 : index
  %base = arith.muli %q, %c4 : index
  %rest = arith.subi %n, %base : index
  %c0 = arith.constant 0 : index
  loop.for %i = %base extent %rest unrolled {
    loop.for %j = %c0 extent %rest unrolled {
      %z = arith.constant 0.0 : f32
      loop.store %z, %a[%i, %j] : !loop.buffer<["n", 4], f32>
    }
  }
}
// CHECK-LABEL: loop.func @nested
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         loop.for %{{.*}} = %c0 extent %[[ONE]] unrolled attributes {unroll_full} {
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK-COUNT-2: loop.for %{{.*}} = %c0 extent %[[TWO]] unrolled attributes {unroll_full} {
// CHECK:         %[[THREE:.*]] = arith.constant 3 : index
// CHECK-COUNT-3: loop.for %{{.*}} = %c0 extent %[[THREE]] unrolled attributes {unroll_full} {
// CHECK-NOT:     loop.for
// CHECK-NOT:     extent %rest
// COPY-LABEL:    loop.func @nested
// COPY-NOT:      loop.for
