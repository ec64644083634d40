// RUN: compiler-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// compute_at into a stage that does not read the tensor (E reads R, not C) while another reader (D) runs outside it.
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
// CHECK: invalid.mlir:31:3: error: sched.compute_at: stage "C" is computed inside loop E_ei of "E", which does not read it, but "D" reads it outside that loop

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

// -----

// rfactor factors a reduce axis, not a data-parallel one.
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
  %ri = sched.axis "R" 0
  sched.rfactor %ri as "R.rf" : !sched.iter<"R">
}
// CHECK: invalid.mlir:423:3: error: sched.rfactor: R_ri is a data-parallel axis of "R"; only a reduce axis can be factored

// -----

// rfactor replaces the loops of R: a stage computed at one of them must be attached after it.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %c[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
sched.schedule @f {
  %ri = sched.axis "R" 0
  %rk = sched.axis "R" reduce 0
  sched.compute_at "C", %ri : !sched.iter<"R">
  sched.rfactor %rk as "R.rf" : !sched.iter<"R">
}
// CHECK: invalid.mlir:448:3: error: sched.rfactor: stage(s) C are computed at loops of "R", which rfactor replaces; attach them after the rfactor

// -----

// After rfactor, R has fresh axes: its axes from before are retired.
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
  %ri = sched.axis "R" 0
  %rk = sched.axis "R" reduce 0
  %ko, %ki = sched.split %rk by 2 : !sched.iter<"R">
  sched.rfactor %ki as "R.rf" : !sched.iter<"R">
  sched.parallel %ri : !sched.iter<"R">
}
// CHECK: invalid.mlir:470:3: error: sched.parallel: axis R_ri of stage "R" was retired by the sched.rfactor of R_rk_i; use sched.axis "R" for the axes of the new stage

// -----

// factor_axis can be at most the number of data axes (R has one).
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
  sched.rfactor %rk as "R.rf" factor_axis 2 : !sched.iter<"R">
}
// CHECK: invalid.mlir:489:3: error: sched.rfactor: factor_axis 2 is past the 1 data axes of "R"

// -----

// The new stage's name must be free.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %c[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
sched.schedule @f {
  %rk = sched.axis "R" reduce 0
  sched.rfactor %rk as "C" : !sched.iter<"R">
}
// CHECK: invalid.mlir:512:3: error: sched.rfactor: @f already has a stage "C"

// -----

// The new stage needs a name of its own.
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
  sched.rfactor %rk as "R" : !sched.iter<"R">
}
// CHECK: invalid.mlir:531:3: error: sched.rfactor: the new stage needs a name other than "R"

// -----

// cache_write of an attached stage: cache_write rebuilds the stage, so it comes before compute_at.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %b[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %ci = sched.axis "C" 0
  sched.compute_at "B", %ci : !sched.iter<"C">
  sched.cache_write "B", "local"
}
// CHECK: invalid.mlir:552:3: error: sched.cache_write: stage "B" is attached (compute_at); apply cache_write first, then attach it

// -----

// cache_write of an inlined stage.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %b[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  sched.compute_inline "B"
  sched.cache_write "B", "local"
}
// CHECK: invalid.mlir:572:3: error: sched.cache_write: stage "B" is inlined; cache its writes before compute_inline, or not at all

// -----

// cache_write of a stage whose loop is already vectorized: annotations come after it.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %cj = sched.axis "C" 1
  %jo, %ji = sched.split %cj by 4 : !sched.iter<"C">
  sched.vectorize %ji : !sched.iter<"C">
  sched.cache_write "C", "local"
}
// CHECK: invalid.mlir:590:3: error: sched.cache_write: stage "C" has its loop C_cj_i annotated (vectorized); cache_write replaces the stage's loops: annotate after it

// -----

// cache_write after splitting the stage's reduce axis: the cache takes the reduce axes as declared.
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
  sched.cache_write "R", "local"
}
// CHECK: invalid.mlir:610:3: error: sched.cache_write: stage "R" has its reduce axis split or fused (R_rk_o); the cache takes the reduce axes as declared: split them on the cache stage after the cache_write

// -----

// After cache_write, the stage's reduce axes belong to the cache stage.
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
  sched.cache_write "R", "local"
  sched.unroll %rk : !sched.iter<"R">
}
// CHECK: invalid.mlir:630:3: error: sched.unroll: axis R_rk: the sched.cache_write of "R" moved its reduce axes to "R.local"; use sched.axis "R.local" reduce

// -----

// After cache_write, the loops a split made before it are gone (they became the cache's layout).
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %cj = sched.axis "C" 1
  %jo, %ji = sched.split %cj by 4 : !sched.iter<"C">
  sched.cache_write "C", "global"
  sched.vectorize %ji : !sched.iter<"C">
}
// CHECK: invalid.mlir:648:3: error: sched.vectorize: axis C_cj_i: the sched.cache_write of "C" undid its splits and fuses (they are the layout of "C.global"); split "C" again after it

// -----

// cache_write of a stage with another stage computed at its loops.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %b[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %ci = sched.axis "C" 0
  sched.compute_at "B", %ci : !sched.iter<"C">
  sched.cache_write "C", "local"
}
// CHECK: invalid.mlir:669:3: error: sched.cache_write: stage "C" has stage(s) B computed at its loops, which cache_write replaces; attach them after the cache_write

// -----

// cache_read with a reader that does not read the tensor: C reads B, not a.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %b[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  sched.cache_read "a", "local" readers ["B", "C"]
}
// CHECK: invalid.mlir:688:3: error: sched.cache_read: stage "C" does not read "a", so it can't read its cache

// -----

// cache_read of a tensor the function does not have.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %b : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  sched.cache_read "x", "local" readers ["B"]
}
// CHECK: invalid.mlir:703:3: error: sched.cache_read: @f has no stage or argument "x"

// -----

// A storage scope this compiler does not know.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %b : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  sched.cache_write "B", "warp"
}
// CHECK: invalid.mlir:718:3: error: sched.cache_write: unknown storage scope "warp" (expected one of global, local, shared)

// -----

// storage_align of a split axis: it names a dimension of the buffer, a root axis.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %b[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %bi = sched.axis "B" 0
  %o, %i = sched.split %bi by 2 : !sched.iter<"B">
  sched.storage_align %o factor 16 offset 1 : !sched.iter<"B">
}
// CHECK: invalid.mlir:739:3: error: sched.storage_align: B_bi_o is not a data-parallel root axis of "B" (it names a dimension of the stage's buffer: use a root axis, its sched.axis or .op.axis)

// -----

// storage_align of an output: its buffer is the caller's.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %b : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %bi = sched.axis "B" 0
  sched.storage_align %bi factor 16 offset 1 : !sched.iter<"B">
}
// CHECK: invalid.mlir:755:3: error: sched.storage_align: stage "B" is a result of the function; its buffer's layout is the caller's

// -----

// storage_align needs 0 <= offset < factor.
te.func @f(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4, 8], f32> {
  %b = te.compute "B" (%bi, %bj) : !te.tensor<[4, 8], f32> {
    %v = te.read %a[%bi, %bj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%ci, %cj) : !te.tensor<[4, 8], f32> {
    %v = te.read %b[%ci, %cj] : !te.tensor<[4, 8], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 8], f32>
}
sched.schedule @f {
  %bi = sched.axis "B" 0
  sched.storage_align %bi factor 4 offset 4 : !sched.iter<"B">
}
// CHECK: invalid.mlir:775:3: error: sched.storage_align needs 0 <= offset < factor, got offset 4 for factor 4

// -----

// A symbolic split factor must be an index expression.
te.func @f(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %b = te.compute "B" (%bi) : !te.tensor<["n"], f32> {
    %v = te.read %a[%bi] : !te.tensor<["n"], f32>
    te.yield %v : f32
  }
  te.return %b : !te.tensor<["n"], f32>
}
sched.schedule @f {
  %bi = sched.axis "B" 0
  %o, %i = sched.split %bi by "n +" : !sched.iter<"B">
}
// CHECK: invalid.mlir:791:3: error: sched.split factor: dimension 0 'n +' is not a symbolic expression: cannot parse 'n +': invalid syntax

// -----

// A scan's time axis can't be split: its steps run in order, each after the last.
te.func @f(%x: !te.tensor<[8, 4], f32>) -> !te.tensor<[8, 4], f32> {
  %init = te.compute "init" (%z, %i) : !te.tensor<[1, 4], f32> {
    %c0 = arith.constant 0 : index
    %v = te.read %x[%c0, %i] : !te.tensor<[8, 4], f32>
    te.yield %v : f32
  }
  %state = te.state "S"[0] init %init : !te.tensor<[1, 4], f32> -> !te.tensor<[8, 4], f32>
  %s = te.compute "S" (%t, %j) : !te.tensor<[8, 4], f32> {
    %c1 = arith.constant 1 : index
    %p = arith.subi %t, %c1 : index
    %v = te.read %state[%p, %j] : !te.tensor<[8, 4], f32>
    te.yield %v : f32
  }
  te.return %s : !te.tensor<[8, 4], f32>
}
sched.schedule @f {
  %t = sched.axis "S" 0
  %o, %i = sched.split %t by 2 : !sched.iter<"S">
}
// CHECK: invalid.mlir:{{[0-9]+}}:1: error: scan "S": its time axis S_t must stay its outermost loop, unsplit and unfused (the steps run in order)

// -----

// A te.extern stage has no loops: no axis of it can be named, so nothing can be computed at it.
te.func @ext(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %e = te.extern "E" @f(%a, out 0) : (!te.tensor<[4], f32>) -> !te.tensor<[4], f32>
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %v = te.read %e[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
sched.schedule @ext {
  %x = sched.axis "E" 0
}
// CHECK: sched.axis: stage "E" is a te.extern stage: an external function computes it over whole buffers, so it has no loops to split or reorder and can't be attached (compute_at) or inlined

// -----

// A stage a te.extern reads is realized whole: it can't be inlined.
te.func @ext_inline(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %p = te.compute "P" (%i) : !te.tensor<[4], f32> {
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  %e = te.extern "E" @f(%p, out 0) : (!te.tensor<[4], f32>) -> !te.tensor<[4], f32>
  te.return %e : !te.tensor<[4], f32>
}
sched.schedule @ext_inline {
  sched.compute_inline "P"
}
// CHECK: sched.compute_inline: stage "P" is read whole by the te.extern stage "E", so it can't be inlined; it is computed at the root

// -----

// rfactor of a reducer whose identity or combiner names a data axis: each part
// would start from the identity at the factor stage's axes; rejected.
te.func @rfactor_axis_reducer(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce plus_row (%rk) in [8] : f32 {
      %v = te.read %a[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    } identity {
      %i64 = arith.index_cast %ri : index to i64
      %f = arith.sitofp %i64 : i64 to f32
      te.yield %f : f32
    } combiner (%x, %y) {
      %p = arith.addf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
sched.schedule @rfactor_axis_reducer {
  %rk = sched.axis "R" reduce 0
  %ko, %ki = sched.split %rk by 2 : !sched.iter<"R">
  sched.rfactor %ki as "R.rf" : !sched.iter<"R">
}
// CHECK: error: sched.rfactor: the reducer plus_row of R names its axis %ri (in its identity or combiner); rfactor of such a reduction is not supported

// -----

// A primitive using an axis defined outside its schedule (fuzz bucket: KeyError
// in the schedule replay).
te.func @outside(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %a[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
%k = sched.axis "R" reduce 0
%i = sched.axis "R" 0
sched.schedule @outside {
  %f = sched.fuse %i, %k : !sched.iter<"R">
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:1: error: 'sched.axis' expects parent op 'sched.schedule'

// -----

// An rfactor stage whose name cannot name its values (fuzz bucket: xDSL's
// ValueError from the schedule replay, unlocated).
te.func @rf_name(%a: !te.tensor<[4, 8], f32>) -> !te.tensor<[4], f32> {
  %r = te.compute "R" (%ri) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%rk) in [8] : f32 {
      %v = te.read %a[%ri, %rk] : !te.tensor<[4, 8], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<[4], f32>
}
sched.schedule @rf_name {
  %rk = sched.axis "R" reduce 0
  %ko, %ki = sched.split %rk by 2 : !sched.iter<"R">
  sched.rfactor %ki as "0 P" : !sched.iter<"R">
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: sched.rfactor "0 P": a name is letters, digits, _ $ . or -, not starting with a digit
