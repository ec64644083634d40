// RUN: compiler-opt %s -p apply-cache-stages | filecheck %s
// RUN: compiler-opt %s -p 'default-pipeline{until=loop}' | filecheck %s --check-prefix=LOOPS

// cache_write of a two-output stage (test_schedule_cache_relayout4's shape), after a
// split of its rows by 4 (10 rows: a tail): one cache stage C.local with both outputs,
// laid out 3 x 4 x 5 (TVM's relayout); the tail rows of the cache are guarded (0 in
// both outputs there, never read) and C reads each output back.
te.func @multi(%A: !te.tensor<[10, 5], f32>, %B: !te.tensor<[10, 5], f32>) -> (!te.tensor<[10, 5], f32>, !te.tensor<[10, 5], f32>) {
  %C, %0 = te.compute "C" (%i, %j) : !te.tensor<[10, 5], f32>, !te.tensor<[10, 5], f32> {
    %1 = te.read %A[%i, %j] : !te.tensor<[10, 5], f32>
    %2 = arith.constant 1.000000e+00 : f32
    %3 = arith.addf %1, %2 : f32
    %4 = te.read %A[%i, %j] : !te.tensor<[10, 5], f32>
    %5 = te.read %B[%i, %j] : !te.tensor<[10, 5], f32>
    %6 = arith.mulf %4, %5 : f32
    te.yield %3, %6 : f32, f32
  }
  te.return %C, %0 : !te.tensor<[10, 5], f32>, !te.tensor<[10, 5], f32>
}
sched.schedule @multi {
  %i = sched.axis "C" 0
  %i_outer, %i_inner = sched.split %i by 4 : !sched.iter<"C">
  sched.cache_write "C", "local"
}
// CHECK:      %[[L0:[^ ,]+]], %[[L1:[^ ,]+]] = te.compute "C.local" (%i_o, %i_i, %j) : !te.tensor<[3, 4, 5], f32>, !te.tensor<[3, 4, 5], f32> {
// CHECK:        %[[IF0:[^ ,]+]], %[[IF1:[^ ,]+]] = scf.if %{{.*}} -> (f32, f32) {
// CHECK:          scf.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK:        } else {
// CHECK-NEXT:     %[[Z0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     %[[Z1:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     scf.yield %[[Z0]], %[[Z1]] : f32, f32
// CHECK:        te.yield %[[IF0]], %[[IF1]] : f32, f32
// CHECK:      te.compute "C" (%i, %[[J:[^ )]+]]) : !te.tensor<[10, 5], f32>, !te.tensor<[10, 5], f32> {
// CHECK:        %[[R0:[^ ]+]] = te.read %[[L0]][%{{.*}}, %{{.*}}, %[[J]]] : !te.tensor<[3, 4, 5], f32>
// CHECK-NEXT:   %[[R1:[^ ]+]] = te.read %[[L1]][%{{.*}}, %{{.*}}, %[[J]]] : !te.tensor<[3, 4, 5], f32>
// CHECK-NEXT:   te.yield %[[R0]], %[[R1]] : f32, f32
// CHECK:      sched.schedule @multi {
// CHECK-NOT:    sched.split
// CHECK-NOT:    sched.cache_write
// CHECK:      }
// LOOPS:      loop.alloc "C.local.v0" [{{.*}}] : !loop.buffer<[3, 4, 5], f32>
// LOOPS:      loop.alloc "C.local.v1" [{{.*}}] : !loop.buffer<[3, 4, 5], f32>
