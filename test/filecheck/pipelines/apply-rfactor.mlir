// RUN: compiler-opt %s --split-input-file -p 'default-pipeline{until=loop}' | filecheck %s

// rfactor end to end: the te program and its schedule through the pipeline up to the
// loop dialect (passes/apply-rfactor.mlir and passes/infer-bound-rfactor.mlir test the
// passes one at a time).

// Split by 4 of a symbolic extent: B.rf keeps k.inner (4) as its first axis and checks k < m.
// The split of B's data axis and of k are gone with the sched.rfactor; B.rf's primitives stay.
// CHECK-LABEL: loop.func @split_symbolic
// CHECK: loop.alloc "B.rf" [%{{.*}}, %{{.*}}] : !loop.buffer<[4, "n"], f32>
// CHECK: loop.for %[[LKO:.*]] = %{{.*}} extent %{{.*}} {
// CHECK: %[[LK:.*]] = arith.addi %B_rf_k_i, %{{.*}} : index
// CHECK-NEXT: %[[LOK:.*]] = arith.cmpi slt, %[[LK]], %m : index
// CHECK-NEXT: loop.if %[[LOK]] {
// CHECK-NEXT:   loop.load %a[%B_rf_i, %[[LK]]]
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

// -----

// A static extent the factor divides: no check; factor_axis 1 puts k.inner last.
// CHECK-LABEL: loop.func @split_static
// CHECK-NOT: loop.if
// CHECK: loop.alloc "B.rf" [%{{.*}}, %{{.*}}] : !loop.buffer<[3, 4], f32>
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

// -----

// TVM's test_bound_rfactor: split by nparts 4 and factor the outer axis; the
// predicate (i > 1) stays, with the check of the split, and B.rf is 4 x 1.
// An empty schedule is removed.
// CHECK-LABEL: loop.func @nparts_where
// CHECK: loop.alloc "B.rf" [%{{.*}}, %{{.*}}] : !loop.buffer<[4, 1], f32>
// CHECK: loop.if %{{.*}} {
// CHECK: loop.if %{{.*}} {
// CHECK-NEXT: loop.load %a[%k]
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
