// RUN: compiler-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// sched.create_group and the compute_at of a group: the misuses the verifier rejects.
// An input the outputs do not read: D reads C, not R.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["D"] inputs ["C", "R"]
}
// CHECK: invalid-group.mlir:33:3: error: sched.create_group "g": input(s) R are not read by the outputs (directly or through other stages): a group holds the stages between its inputs and outputs

// -----

// An output that reads none of the inputs: E reads R and a, not C.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["E"] inputs ["C"]
}
// CHECK: invalid-group.mlir:69:3: error: sched.create_group "g": output "E" reads none of the inputs (C), directly or through other stages

// -----

// An input that is neither a stage nor an argument.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["D"] inputs ["B"]
}
// CHECK: invalid-group.mlir:105:3: error: sched.create_group "g": @f has no stage or argument "B"

// -----

// A group named as a stage.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "C" outputs ["D"] inputs ["a"]
}
// CHECK: invalid-group.mlir:141:3: error: sched.create_group "C": @f already has a stage "C"

// -----

// A group that holds only part of another: g1 is {C, D}, g2 would be {D, G}.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g1" outputs ["D"] inputs ["C"] include_inputs
  sched.create_group "g2" outputs ["G"] inputs ["D"] include_inputs
}
// CHECK: invalid-group.mlir:178:3: error: sched.create_group "g2" cuts through group "g1": its stage(s) C are not between the new group's inputs and outputs (a group nests whole groups only)

// -----

// A group computed inside one of its own stages.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["D"] inputs ["C"] include_inputs
  %dj = sched.axis "D" 1
  sched.compute_at "g", %dj : !sched.iter<"D">
}
// CHECK: invalid-group.mlir:216:3: error: sched.compute_at: stage "D" is in group "g", which can't be computed inside one of its own stages

// -----

// A stage of a group computed at a stage outside it.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["D"] inputs ["a"]
  %gj = sched.axis "G" 1
  sched.compute_at "D", %gj : !sched.iter<"G">
}
// CHECK: invalid-group.mlir:254:3: error: sched.compute_at: stage "D" is in group "g"; it can only be computed at a stage of that group, and "G" is not in it

// -----

// A stage attached outside the group before create_group.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  %dj = sched.axis "D" 1
  sched.compute_at "C", %dj : !sched.iter<"D">
  sched.create_group "g" outputs ["C"] inputs ["a"]
}
// CHECK: invalid-group.mlir:292:3: error: sched.create_group "g": C is computed at "D", outside the group; attach it after create_group, or put that stage in the group

// -----

// A group computed at a stage that reads none of its stages: E reads R.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["D"] inputs ["C"] include_inputs
  %ei = sched.axis "E" 0
  sched.compute_at "g", %ei : !sched.iter<"E">
}
// CHECK: invalid-group.mlir:330:3: error: sched.compute_at: stage "E" reads no stage of group "g", so the group can't be computed at its axis E_ei

// -----

// A group computed inside a loop of D while G also reads its stage C outside it.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["C"] inputs ["a"]
  %dj = sched.axis "D" 1
  sched.compute_at "g", %dj : !sched.iter<"D">
}
// CHECK: invalid-group.mlir:368:3: error: sched.compute_at: stage "C" of group "g" is computed inside loop D_dj of "D", but "G" also reads it outside that loop

// -----

// A group can't be inlined.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs ["D"] inputs ["C"]
  sched.compute_inline "g"
}
// CHECK: invalid-group.mlir:405:3: error: sched.compute_inline: "g" is a group; inline its stages one by one

// -----

// A group needs an output.
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
    %w = te.read %c[%gi, %gj] : !te.tensor<[4, 8], f32>
    %x = arith.addf %v, %w : f32
    te.yield %x : f32
  }
  te.return %g, %e : !te.tensor<[4, 8], f32>, !te.tensor<[4], f32>
}
sched.schedule @f {
  sched.create_group "g" outputs [] inputs ["a"]
}
// CHECK: invalid-group.mlir:441:3: error: sched.create_group "g" needs at least one output stage
