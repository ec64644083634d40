// RUN: compiler-opt %s --verify-diagnostics --parsing-diagnostics | filecheck %s
// rfactor of a loop that fuses a data axis with a reduce axis: only loops of reduce axes
// alone can be factored (the fuse itself is TVM's: the fused loop is a reduce loop).
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %a[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
sched.schedule @f {
  %i = sched.axis "R" 0
  %k = sched.axis "R" reduce 0
  %f = sched.fuse %i, %k : !sched.iter<"R">
  sched.rfactor %f as "R.rf" : !sched.iter<"R">
}
// CHECK: invalid-fuse-reduce.mlir:18:3: error: sched.rfactor: R_ri_f of "R" fuses data-parallel and reduce axes; only a loop of reduce axes alone can be factored
