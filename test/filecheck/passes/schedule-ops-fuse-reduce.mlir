// RUN: compiler-opt %s -p infer-bound | filecheck %s --check-prefix=BOUNDS
// RUN: compiler-opt %s -p 'default-pipeline{until=loop}' | filecheck %s

// test_reduction_and_dummy_fuse_split: Y[i] = sum(X[k]) with the data axis i fused with
// the reduce axis k (TVM allows it: the fused loop is a reduce loop that also runs over
// i). The reduction is initialised in a nest of its own over the fused loop (Y[f // 10]
// = 0 at each of its 100 iterations), then updated in place: no register accumulator,
// which would span several elements of Y.
te.func @fuse_reduce(%X: !te.tensor<[10], i32>) -> !te.tensor<[10], i32> {
  %Y = te.compute "Y" (%i) : !te.tensor<[10], i32> {
    %0 = te.reduce sum (%rv) in [10] : i32 {
      %1 = te.read %X[%rv] : !te.tensor<[10], i32>
      te.yield %1 : i32
    }
    te.yield %0 : i32
  }
  te.return %Y : !te.tensor<[10], i32>
}
sched.schedule @fuse_reduce {
  %i = sched.axis "Y" 0
  %rv = sched.axis "Y" reduce 0
  %f = sched.fuse %i, %rv : !sched.iter<"Y">
}
// BOUNDS:      te.compute "Y" {{.*}}te.loops = ["Y_i_f = [0, 100] serial reduce mixed"], te.axis_values = ["Y_i_f // 10", "Y_i_f % 10"]
// CHECK:       loop.for %[[INIT:.*]] = %{{.*}} extent %[[C100:.*]] {
// CHECK-NEXT:    %[[C10:.*]] = arith.constant 10 : index
// CHECK-NEXT:    %[[I:.*]] = arith.floordivsi %[[INIT]], %[[C10]] : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    loop.store %[[ZERO]], %Y[%[[I]]] : !loop.buffer<[10], i32>
// CHECK-NEXT:  }
// CHECK:       loop.for %[[F:.*]] = %{{.*}} extent %{{.*}} {
// CHECK-NOT:     loop.alloc
// CHECK:         %[[OLD:.*]] = loop.load %Y[%[[J:.*]]] : !loop.buffer<[10], i32>
// CHECK-NEXT:    %[[NEW:.*]] = arith.addi %[[OLD]], %{{.*}} : i32
// CHECK-NEXT:    loop.store %[[NEW]], %Y[%[[J]]] : !loop.buffer<[10], i32>
