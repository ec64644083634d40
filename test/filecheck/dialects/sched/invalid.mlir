// RUN: compiler-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// compute_at into a stage that does not read the tensor: E reads R, not C.
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
  %ei = sched.axis "E" 0
  sched.compute_at "C", %ei : !sched.iter<"E">
}
// CHECK: invalid.mlir:31:3: error: sched.compute_at: stage "E" does not read "C", so "C" can't be computed at its axis E_ei

// -----

// Splitting the same axis twice.
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
  %dj = sched.axis "D" 1
  %o, %i = sched.split %dj by 2 : !sched.iter<"D">
  %o2, %i2 = sched.split %dj by 4 : !sched.iter<"D">
}
// CHECK: invalid.mlir:67:3: error: sched.split: axis D_dj of stage "D" was already split or fused; use the axes that replaced it

// -----

// Reorder naming another stage's axis (generic form: the custom form already rejects the type).
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
  %ci = sched.axis "C" 0
  "sched.reorder"(%di, %ci) : (!sched.iter<"D">, !sched.iter<"C">) -> ()
}
// CHECK: invalid.mlir:103:3: error: sched.reorder mixes axes of stages C, D

// -----

// An attachment cycle: C at D, then D at C.
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
  %dj = sched.axis "D" 1
  %cj = sched.axis "C" 1
  sched.compute_at "C", %dj : !sched.iter<"D">
  sched.compute_at "D", %cj : !sched.iter<"C">
}
// CHECK: invalid.mlir:140:3: error: sched.compute_at: attachment cycle D -> C -> D

// -----

// Inlining a reduction.
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
  sched.compute_inline "R"
}
// CHECK: invalid.mlir:174:3: error: sched.compute_inline: stage "R" is a reduction and can't be inlined

// -----

// Attaching an output of the function.
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
  %ei = sched.axis "E" 0
  sched.compute_at "R", %ei : !sched.iter<"E">
  sched.compute_at "G", %ei : !sched.iter<"E">
}
// CHECK: invalid.mlir:210:3: error: sched.compute_at: stage "G" is a result of the function; only intermediate stages can be attached

// -----

// An unknown stage.
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
  sched.compute_inline "X"
}
// CHECK: invalid.mlir:244:3: error: sched.compute_inline: @f has no stage "X" (stages: C, D, R, E, G)

// -----

// An axis index out of range.
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
  %x = sched.axis "D" 2
}
// CHECK: invalid.mlir:278:3: error: sched.axis: stage "D" has 2 axes, no index 2

// -----

// Fusing axes that are not adjacent (C's i and D's... same stage, but j is not right inside the split's inner).
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
  sched.reorder %dj, %di : !sched.iter<"D">
  %f = sched.fuse %di, %dj : !sched.iter<"D">
}
// CHECK: invalid.mlir:315:3: error: sched.fuse: D_dj must be the loop right inside D_di in stage "D"

// -----

// A split by zero.
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
  %dj = sched.axis "D" 1
  %o, %i = sched.split %dj by 0 : !sched.iter<"D">
}
// CHECK: invalid.mlir:350:3: error: sched.split needs a positive factor or nparts, got 0

// -----

// A reduce axis cannot be parallel (every iteration updates the same elements).
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
  %rk = sched.axis "R" reduce 0
  sched.parallel %rk : !sched.iter<"R">
}
// CHECK: invalid.mlir:385:3: error: sched.parallel: R_rk is a reduce axis; its iterations update the same elements and can't run in parallel

// -----

// A reduce axis cannot be vectorized either (every lane would update the same element).
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
  sched.vectorize %rk : !sched.iter<"R">
}
// CHECK: invalid.mlir:404:3: error: sched.vectorize: R_rk is a reduce axis; its iterations update the same elements and can't run as vector lanes
