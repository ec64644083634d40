// RUN: compiler-opt %s --split-input-file -p apply-rfactor | filecheck %s

// Split by 4 of a symbolic extent: B.rf keeps k.inner (4) as its first axis and checks k < m.
te.func @split_symbolic(%a: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n"], f32> {
  %b = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %s = te.reduce sum (%k) in ["m"] : f32 {
      %v = te.read %a[%i, %k] : !te.tensor<["n", "m"], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<["n"], f32>
}
sched.schedule @split_symbolic {
  %k = sched.axis "B" reduce 0
  %i = sched.axis "B" 0
  %io, %ii = sched.split %i by 8 : !sched.iter<"B">
  %ko, %ki = sched.split %k by 4 : !sched.iter<"B">
  sched.rfactor %ki as "B.rf" : !sched.iter<"B">
  %x = sched.axis "B.rf" 1
  sched.parallel %x : !sched.iter<"B.rf">
}
// CHECK-LABEL: te.func @split_symbolic
// CHECK:         %[[RF:.*]] = te.compute "B.rf" (%[[KI:.*]], %[[I:.*]]) : !te.tensor<[4, "n"], f32> {
// CHECK-NEXT:      te.reduce sum (%[[KO:.*]]) in ["(m + 3) // 4"] : f32 {
// CHECK:             %[[K:.*]] = arith.addi %[[KI]], %{{.*}} : index
// CHECK:             %[[OK:.*]] = arith.cmpi slt, %[[K]], %{{.*}} : index
// CHECK-NEXT:        te.where %[[OK]]
// CHECK-NEXT:        te.read %a[%[[I]], %[[K]]]
// CHECK:         te.compute "B" (%[[BI:.*]]) : !te.tensor<["n"], f32> {
// CHECK-NEXT:      te.reduce sum (%[[V:.*]]) in [4] : f32 {
// CHECK-NEXT:        te.read %[[RF]][%[[V]], %[[BI]]] : !te.tensor<[4, "n"], f32>
// The split of B's data axis and of k are gone with the sched.rfactor; B.rf's primitives stay.
// CHECK:       sched.schedule @split_symbolic {
// CHECK-NEXT:    %[[X:.*]] = sched.axis "B.rf" 1
// CHECK-NEXT:    sched.parallel %[[X]] : !sched.iter<"B.rf">
// CHECK-NEXT:  }

// -----

// A static extent the factor divides: no check; factor_axis 1 puts k.inner last.
te.func @split_static(%a: !te.tensor<[3, 16], f32>) -> !te.tensor<[3], f32> {
  %b = te.compute "B" (%i) : !te.tensor<[3], f32> {
    %s = te.reduce max (%k) in [16] : f32 {
      %v = te.read %a[%i, %k] : !te.tensor<[3, 16], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<[3], f32>
}
sched.schedule @split_static {
  %k = sched.axis "B" reduce 0
  %ko, %ki = sched.split %k by 4 : !sched.iter<"B">
  sched.rfactor %ki as "B.rf" factor_axis 1 : !sched.iter<"B">
  %v = sched.axis "B.rf" 1
  sched.vectorize %v : !sched.iter<"B.rf">
}
// CHECK-LABEL: te.func @split_static
// CHECK:         te.compute "B.rf" (%[[I:.*]], %[[KI:.*]]) : !te.tensor<[3, 4], f32> {
// CHECK-NEXT:      te.reduce max (%[[KO:.*]]) in [4] : f32 {
// CHECK-NOT:         te.where
// CHECK:             te.read %a[%[[I]], %{{.*}}]
// CHECK:         te.reduce max (%[[V:.*]]) in [4] : f32 {
// CHECK-NEXT:      te.read %B_rf[%{{.*}}, %[[V]]] : !te.tensor<[3, 4], f32>

// -----

// TVM's test_bound_rfactor: split by nparts 4 and factor the outer axis; the
// predicate (i > 1) stays, with the check of the split, and B.rf is 4 x 1.
te.func @nparts_where(%a: !te.tensor<["n"], f32>) -> !te.tensor<[1], f32> {
  %b = te.compute "B" (%i) : !te.tensor<[1], f32> {
    %s = te.reduce sum (%k) in ["n"] : f32 {
      %c1 = arith.constant 1 : index
      %ok = arith.cmpi sgt, %i, %c1 : index
      te.where %ok
      %v = te.read %a[%k] : !te.tensor<["n"], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<[1], f32>
}
sched.schedule @nparts_where {
  %k = sched.axis "B" reduce 0
  %ko, %ki = sched.split %k nparts 4 : !sched.iter<"B">
  sched.rfactor %ko as "B.rf" : !sched.iter<"B">
}
// CHECK-LABEL: te.func @nparts_where
// CHECK:         te.compute "B.rf" (%[[KO:.*]], %[[I:.*]]) : !te.tensor<[4, 1], f32> {
// CHECK-NEXT:      te.reduce sum (%[[KI:.*]]) in ["(n + 3) // 4"] : f32 {
// CHECK:             %[[K:.*]] = arith.addi %[[KI]], %{{.*}} : index
// CHECK-NEXT:        %[[C:.*]] = arith.cmpi slt, %[[K]], %{{.*}} : index
// CHECK-NEXT:        te.where %[[C]]
// CHECK:             %[[OK:.*]] = arith.cmpi sgt, %[[I]], %{{.*}} : index
// CHECK-NEXT:        te.where %[[OK]]
// CHECK-NEXT:        te.read %a[%[[K]]]
// CHECK:         te.reduce sum (%[[V:.*]]) in [4] : f32 {
// An empty schedule is removed.
// CHECK-NOT:   sched.schedule

// -----

// rfactor of a root reduce axis: B.rf reduces over the other one (k2).
te.func @root_axis(%a: !te.tensor<[5, 6, 7], f32>) -> !te.tensor<[5], f32> {
  %b = te.compute "B" (%i) : !te.tensor<[5], f32> {
    %s = te.reduce sum (%k1, %k2) in [6, 7] : f32 {
      %v = te.read %a[%i, %k1, %k2] : !te.tensor<[5, 6, 7], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<[5], f32>
}
sched.schedule @root_axis {
  %k1 = sched.axis "B" reduce 0
  sched.rfactor %k1 as "B.rf" : !sched.iter<"B">
}
// CHECK-LABEL: te.func @root_axis
// CHECK:         te.compute "B.rf" (%[[K1:.*]], %[[I:.*]]) : !te.tensor<[6, 5], f32> {
// CHECK-NEXT:      te.reduce sum (%[[K2:.*]]) in [7] : f32 {
// CHECK-NEXT:        te.read %a[%[[I]], %[[K1]], %[[K2]]]
// CHECK:         te.reduce sum (%{{.*}}) in [6] : f32 {

// -----

// TVM's test_lower_rfactor: B.rf computed at B's new reduce axis (its innermost
// loop) is realized one element at a time.
te.func @attached(%a: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n"], f32> {
  %b = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %s = te.reduce sum (%k) in ["m"] : f32 {
      %v = te.read %a[%i, %k] : !te.tensor<["n", "m"], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<["n"], f32>
}
sched.schedule @attached {
  %k = sched.axis "B" reduce 0
  %ko, %ki = sched.split %k by 16 : !sched.iter<"B">
  sched.rfactor %ki as "B.rf" : !sched.iter<"B">
  %i = sched.axis "B" 0
  %v = sched.axis "B" reduce 0
  %io, %ii = sched.split %i by 32 : !sched.iter<"B">
  sched.compute_at "B.rf", %v : !sched.iter<"B">
}
// CHECK-LABEL: te.func @attached
// CHECK:       sched.schedule @attached {
// CHECK-NEXT:    %[[I:.*]] = sched.axis "B" 0
// CHECK-NEXT:    %[[V:.*]] = sched.axis "B" reduce 0
// CHECK-NEXT:    sched.split %[[I]] by 32 : !sched.iter<"B">
// CHECK-NEXT:    sched.compute_at "B.rf", %[[V]] : !sched.iter<"B">

