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
  %ko, %ki = sched.split %rk nparts 2 disable_predication : !sched.iter<"R">
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
// CHECK-NEXT:    %ko, %ki = sched.split %rk nparts 2 disable_predication : !sched.iter<"R">
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

// -----

// sched.rfactor, then primitives on the new stage and on the new axes of R.
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
  %rk = sched.axis "R" reduce 0
  %ko, %ki = sched.split %rk by 2 : !sched.iter<"R">
  sched.rfactor %ki as "R.rf" factor_axis 1 : !sched.iter<"R">
  %x = sched.axis "R.rf" 1
  sched.parallel %x : !sched.iter<"R.rf">
  %v = sched.axis "R" reduce 0
  sched.unroll %v : !sched.iter<"R">
}

// CHECK-LABEL: sched.schedule @f {
// CHECK-NEXT:    %rk = sched.axis "R" reduce 0
// CHECK-NEXT:    %ko, %ki = sched.split %rk by 2 : !sched.iter<"R">
// CHECK-NEXT:    sched.rfactor %ki as "R.rf" factor_axis 1 : !sched.iter<"R">
// CHECK-NEXT:    %x = sched.axis "R.rf" 1
// CHECK-NEXT:    sched.parallel %x : !sched.iter<"R.rf">
// CHECK-NEXT:    %v = sched.axis "R" reduce 0
// CHECK-NEXT:    sched.unroll %v : !sched.iter<"R">
// CHECK-NEXT:  }

// -----

// sched.cache_read, sched.cache_write and sched.storage_align, then primitives on the cache stages.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %b[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.cache_read "a", "shared" readers ["B"]
  sched.cache_write "R", "local"
  %bi = sched.axis "B" 0
  sched.storage_align %bi factor 16 offset 1 : !sched.iter<"B">
  %k = sched.axis "R.local" reduce 0
  sched.unroll %k : !sched.iter<"R.local">
  %x = sched.axis "a.shared" 1
  sched.vectorize %x : !sched.iter<"a.shared">
}

// CHECK-LABEL: sched.schedule @f {
// CHECK-NEXT:    sched.cache_read "a", "shared" readers ["B"]
// CHECK-NEXT:    sched.cache_write "R", "local"
// CHECK-NEXT:    %bi = sched.axis "B" 0
// CHECK-NEXT:    sched.storage_align %bi factor 16 offset 1 : !sched.iter<"B">
// CHECK-NEXT:    %k = sched.axis "R.local" reduce 0
// CHECK-NEXT:    sched.unroll %k : !sched.iter<"R.local">
// CHECK-NEXT:    %x = sched.axis "a.shared" 1
// CHECK-NEXT:    sched.vectorize %x : !sched.iter<"a.shared">
// CHECK-NEXT:  }

// -----

// sched.create_group, nested groups, and the compute_at/compute_root of a group.
te.func @g(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %x = te.compute "X" (%i, %j) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%i, %j] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %x1 = te.compute "X1" (%i1, %j1) : !te.tensor<[4, 8], f32> {
    %v = te.read %x[%i1, %j1] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %x2 = te.compute "X2" (%i2, %j2) : !te.tensor<[4, 8], f32> {
    %v = te.read %x1[%i2, %j2] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %x2 : !te.tensor<[4, 8], f32>
}
sched.schedule @g {
  sched.create_group "g1" outputs ["X"] inputs ["a"]
  sched.create_group "g2" outputs ["X1"] inputs ["X"] include_inputs
  %i = sched.axis "X2" 0
  sched.compute_at "g2", %i : !sched.iter<"X2">
  %j = sched.axis "X1" 1
  sched.compute_at "g1", %j : !sched.iter<"X1">
  sched.compute_root "g1"
}

// CHECK-LABEL: sched.schedule @g {
// CHECK-NEXT:    sched.create_group "g1" outputs ["X"] inputs ["a"]
// CHECK-NEXT:    sched.create_group "g2" outputs ["X1"] inputs ["X"] include_inputs
// CHECK-NEXT:    %i = sched.axis "X2" 0
// CHECK-NEXT:    sched.compute_at "g2", %i : !sched.iter<"X2">
// CHECK-NEXT:    %j = sched.axis "X1" 1
// CHECK-NEXT:    sched.compute_at "g1", %j : !sched.iter<"X1">
// CHECK-NEXT:    sched.compute_root "g1"
// CHECK-NEXT:  }
