// RUN: compiler-opt %s -p auto-schedule,schedule-ops | filecheck %s

// A function whose stages carry infer-bound's results, scheduled afterwards
// (auto-schedule on infer-bound's output): schedule-ops infers again and follows
// the schedule, which goes with its te.func (it outlived it and named the
// loop.func, an unlocated verifier error; make fuzz seed 32).
te.func @singleton(%A: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[4], f32> attributes {te.realize = ["[0, 4]"], te.alloc_shape = ["4"], te.loops = ["B_i = [0, 4] serial"], te.axis_values = ["B_i"], te.guards = []} {
    %0 = te.read %A[%i] : !te.tensor<[4], f32>
    te.yield %0 : f32
  }
  te.return %B : !te.tensor<[4], f32>
}
// CHECK-LABEL: loop.func @singleton(
// CHECK:         loop.for %B_i = %{{.*}} extent %{{.*}} vectorized {
// CHECK-NOT:   sched.schedule
