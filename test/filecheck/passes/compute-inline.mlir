// RUN: compiler-opt %s --split-input-file -p compute-inline | filecheck %s

// One inlined stage: C reads A through a copy of B's body at C's indices; B and its
// sched.compute_inline are gone (the schedule stays, empty).
te.func @one(%A: !te.tensor<[8], f32>) -> !te.tensor<[8], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[8], f32> {
    %0 = te.read %A[%i] : !te.tensor<[8], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %C = te.compute "C" (%j) : !te.tensor<[8], f32> {
    %0 = te.read %B[%j] : !te.tensor<[8], f32>
    %1 = arith.constant 1.000000e+00 : f32
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %C : !te.tensor<[8], f32>
}
sched.schedule @one {
  sched.compute_inline "B"
}
// CHECK-LABEL: te.func @one
// CHECK-NEXT:    %C = te.compute "C" (%j) : !te.tensor<[8], f32> {
// CHECK-NEXT:      %[[A:.*]] = te.read %A[%j] : !te.tensor<[8], f32>
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[B:.*]] = arith.mulf %[[A]], %[[TWO]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.addf %[[B]], %[[ONE]] : f32
// CHECK-NEXT:      te.yield %[[C]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.return %C
// CHECK:       sched.schedule @one {
// CHECK-NOT:     sched.compute_inline
// CHECK:       }

// -----

// A chain of two inlined stages collapses into the first consumer that is not
// inlined (consumers first); a stage that is not inlined (E) stays, and so does the
// rest of the schedule.
te.func @chain(%A: !te.tensor<[8], f32>) -> !te.tensor<[8], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[8], f32> {
    %0 = te.read %A[%i] : !te.tensor<[8], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %C = te.compute "C" (%i) : !te.tensor<[8], f32> {
    %0 = te.read %B[%i] : !te.tensor<[8], f32>
    %1 = arith.constant 3.000000e+00 : f32
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  %D = te.compute "D" (%i) : !te.tensor<[8], f32> {
    %0 = te.read %C[%i] : !te.tensor<[8], f32>
    %1 = arith.negf %0 : f32
    te.yield %1 : f32
  }
  %E = te.compute "E" (%i) : !te.tensor<[8], f32> {
    %0 = te.read %D[%i] : !te.tensor<[8], f32>
    %1 = te.read %D[%i] : !te.tensor<[8], f32>
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  te.return %E : !te.tensor<[8], f32>
}
sched.schedule @chain {
  sched.compute_inline "B"
  sched.compute_inline "C"
  %i = sched.axis "E" 0
  sched.vectorize %i : !sched.iter<"E">
}
// CHECK-LABEL: te.func @chain
// CHECK-NOT:     te.compute "B"
// CHECK-NOT:     te.compute "C"
// CHECK:         %D = te.compute "D" (%i) : !te.tensor<[8], f32> {
// CHECK-NEXT:      %[[A:.*]] = te.read %A[%i] : !te.tensor<[8], f32>
// CHECK-NEXT:      arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[B:.*]] = arith.mulf %[[A]], %{{.*}} : f32
// CHECK-NEXT:      arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.addf %[[B]], %{{.*}} : f32
// CHECK-NEXT:      %[[D:.*]] = arith.negf %[[C]] : f32
// CHECK-NEXT:      te.yield %[[D]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %E = te.compute "E"
// CHECK-NEXT:      te.read %D
// CHECK-NEXT:      te.read %D
// CHECK:       sched.schedule @chain {
// CHECK-NEXT:    %i = sched.axis "E" 0
// CHECK-NEXT:    sched.vectorize %i : !sched.iter<"E">
// CHECK-NEXT:  }

// -----

// A pad stage inlined into a reduction: its guarded read of x stays under its
// scf.if (with its te.likely mark), at the consumer's index i + r.
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
// CHECK-LABEL: te.func @pad_static
// CHECK-NOT:     te.compute "p"
// CHECK:         %y = te.compute "y" (%i) : !te.tensor<[16], f32> {
// CHECK-NEXT:      te.reduce sum (%r) in [3] : f32 {
// CHECK-NEXT:        %[[AT:.*]] = arith.addi %i, %r : index
// CHECK:             %[[LO:.*]] = arith.cmpi sge, %[[AT]], %{{.*}} : index
// CHECK:             %[[HI:.*]] = arith.cmpi slt, %[[AT]], %{{.*}} : index
// CHECK-NEXT:        %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK-NEXT:        %[[P:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:               %[[SRC:.*]] = arith.subi %[[AT]], %{{.*}} : index
// CHECK-NEXT:          te.read %x[%[[SRC]]] : !te.tensor<[16], f32>
// CHECK:             } else {
// CHECK:             }{te.likely}
// CHECK-NEXT:        %[[K:.*]] = te.read %k[%r] : !te.tensor<[3], f32>
// CHECK-NEXT:        arith.mulf %[[P]], %[[K]] : f32

