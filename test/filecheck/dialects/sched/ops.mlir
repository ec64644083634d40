// RUN: COMPILER_ROUNDTRIP

// Every schedule primitive, printed, parsed and printed again.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> (!te.tensor<[4, 8], f32>, !te.tensor<[4], f32>) {
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %d = te.compute "D" (%di, %dj) : !te.tensor<[4, 8], f32> {
    %v = te.read %c[%di, %dj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %a[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  %e = te.compute "E" (%ei) : !te.tensor<[4], f32> {
    %v = te.read %r[%ei] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  %g = te.compute "G" (%gi, %gj) : !te.tensor<[4, 8], f32> {
    %v = te.read %d[%gi, %gj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  %di = sched.axis "D" 0
  %dj = sched.axis "D" 1
  %rk = sched.axis "R" reduce 0
  %jo, %ji = sched.split %dj by 4 : !sched.iter<"D">
  %ko, %ki = sched.split %rk nparts 2 : !sched.iter<"R">
  sched.reorder %jo, %di, %ji : !sched.iter<"D">
  %f = sched.fuse %jo, %di : !sched.iter<"D">
  sched.parallel %f : !sched.iter<"D">
  sched.vectorize %ji : !sched.iter<"D">
  sched.unroll %ki : !sched.iter<"R">
  sched.compute_at "C", %ji : !sched.iter<"D">
  sched.compute_root "C"
  sched.compute_inline "C"
  %s = sched.singleton "D"
  sched.pragma %s "loop_partition" : !sched.iter<"D">
}
// CHECK-LABEL: sched.schedule @f {
// CHECK-NEXT:    %di = sched.axis "D" 0
// CHECK-NEXT:    %dj = sched.axis "D" 1
// CHECK-NEXT:    %rk = sched.axis "R" reduce 0
// CHECK-NEXT:    %jo, %ji = sched.split %dj by 4 : !sched.iter<"D">
// CHECK-NEXT:    %ko, %ki = sched.split %rk nparts 2 : !sched.iter<"R">
// CHECK-NEXT:    sched.reorder %jo, %di, %ji : !sched.iter<"D">
// CHECK-NEXT:    %f = sched.fuse %jo, %di : !sched.iter<"D">
// CHECK-NEXT:    sched.parallel %f : !sched.iter<"D">
// CHECK-NEXT:    sched.vectorize %ji : !sched.iter<"D">
// CHECK-NEXT:    sched.unroll %ki : !sched.iter<"R">
// CHECK-NEXT:    sched.compute_at "C", %ji : !sched.iter<"D">
// CHECK-NEXT:    sched.compute_root "C"
// CHECK-NEXT:    sched.compute_inline "C"
// CHECK-NEXT:    %s = sched.singleton "D"
// CHECK-NEXT:    sched.pragma %s "loop_partition" : !sched.iter<"D">
// CHECK-NEXT:  }
