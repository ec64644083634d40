// RUN: compiler-opt %s --split-input-file -p insert-bound-checks | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{check-bounds=true}' | filecheck %s --check-prefix=LLVM

// A read one past the end: the index i + 1 reaches 8 when i = 7, so it is checked
// against [0, 8) before the load; the store to B[i] is provably inside and is not.
loop.func @shift(%A: !loop.buffer<[8], f32>, %B: !loop.buffer<[8], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for %i = %c0 extent %c8 {
    %j = arith.addi %i, %c1 : index
    %v = loop.load %A[%j] : !loop.buffer<[8], f32>
    loop.store %v, %B[%i] : !loop.buffer<[8], f32>
  }
}
// CHECK-LABEL: loop.func @shift
// CHECK:         loop.for %i = %c0 extent %c8 {
// CHECK-NEXT:      %j = arith.addi %i, %c1 : index
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %[[GE:.*]] = arith.cmpi sge, %j, %[[LO]] : index
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi slt, %j, %[[HI]] : index
// CHECK-NEXT:      %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:      loop.assert %[[OK]], "shift: load from A[i + 1] out of bounds: index {0} of dimension 0 is outside [{1}, {2})" (%j, %[[LO]], %[[HI]] : index, index, index) raises "IndexError"
// CHECK-NEXT:      %v = loop.load %A[%j] : !loop.buffer<[8], f32>
// CHECK-NEXT:      loop.store %v, %B[%i] : !loop.buffer<[8], f32>
// CHECK-NEXT:    }

// -----

// A symbolic extent: the load of A[i] for i in [0, n) is inside A's [0, n), the
// store to the realized region [1, 1 + n) of T at i + 1 too; nothing is checked.
loop.func @symbolic(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = loop.var "n" : index
  %T = loop.alloc "T" [%c1] : !loop.buffer<["n"], f32>
  loop.for %i = %c0 extent %n {
    %v = loop.load %A[%i] : !loop.buffer<["n"], f32>
    %j = arith.addi %i, %c1 : index
    loop.store %v, %T[%j] : !loop.buffer<["n"], f32>
  }
  loop.for %i = %c0 extent %n {
    %j = arith.addi %i, %c1 : index
    %v = loop.load %T[%j] : !loop.buffer<["n"], f32>
    loop.store %v, %B[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: loop.func @symbolic
// CHECK-NOT:     loop.assert
// CHECK:       }

// -----

// An intermediate written past its realized region [2, 6): index i + 2 for i in
// [0, 5) reaches 6; the check names T and its region's ends as values.
loop.func @intermediate(%B: !loop.buffer<[4], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %f = arith.constant 1.0 : f32
  %T = loop.alloc "T" [%c2] : !loop.buffer<[4], f32>
  loop.for %i = %c0 extent %c5 {
    %j = arith.addi %i, %c2 : index
    loop.store %f, %T[%j] : !loop.buffer<[4], f32>
  }
}
// CHECK-LABEL: loop.func @intermediate
// CHECK:         %j = arith.addi %i, %c2 : index
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 6 : index
// CHECK:         loop.assert %{{.*}}, "intermediate: store to T[i + 2] out of bounds: index {0} of dimension 0 is outside [{1}, {2})" (%j, %[[LO]], %[[HI]] : index, index, index) raises "IndexError"
// CHECK-NEXT:    loop.store %f, %T[%j] : !loop.buffer<[4], f32>

// LLVM-LABEL: llvm.func @shift_compute
// LLVM:         llvm.icmp "sge"

// -----

// An index divided by a loop counter that starts at 0: a check that the divisor is
// not 0 comes before the division (the machine's division would trap, or, optimized,
// do anything: fuzz case, a segmentation fault of compiler-run). A divisor that is
// provably nonzero (k + 1, k >= 0) and a constant one get none.
loop.func @divide(%A: !loop.buffer<[8], f32>, %B: !loop.buffer<[8], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  loop.for %i = %c0 extent %c4 {
    loop.for %k = %c0 extent %c3 {
      %i2 = arith.addi %i, %i : index
      %q = arith.divsi %i2, %k : index
      %k1 = arith.addi %k, %c1 : index
      %r = arith.remsi %i, %k1 : index
      %h = arith.divsi %i, %c3 : index
      %s = arith.addi %q, %r : index
      %t = arith.addi %s, %h : index
      %v = loop.load %A[%t] : !loop.buffer<[8], f32>
      loop.store %v, %B[%i] : !loop.buffer<[8], f32>
    }
  }
}
// CHECK-LABEL: loop.func @divide
// CHECK:         %i2 = arith.addi %i, %i : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[NE:.*]] = arith.cmpi ne, %k, %[[ZERO]] : index
// CHECK-NEXT:    loop.assert %[[NE]], "divide: division by zero: i + i (arith.divsi) k, with a divisor of 0" raises "IndexError"
// CHECK-NEXT:    %q = arith.divsi %i2, %k : index
// CHECK-NEXT:    %k1 = arith.addi %k, %c1 : index
// CHECK-NEXT:    %r = arith.remsi %i, %k1 : index
// CHECK-NEXT:    %h = arith.divsi %i, %c3 : index
