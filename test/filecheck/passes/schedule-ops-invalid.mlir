// infer-bound's plan attributes, written by hand and malformed, are errors located at
// their stage (make fuzz seed 41: an empty te.axis_values entry was an unlocated
// parse error).

// RUN: not compiler-opt %s -p schedule-ops 2>&1 | filecheck %s
// CHECK: schedule-ops-invalid.mlir:[[# @LINE + 15]]:3: error: stage 'C': infer-bound's attributes do not parse: cannot parse '': invalid syntax

// A loop whose range does not close.
// RUN: sed -e 's/\[""\]/["C_i"]/' -e 's/\[0, 4\] serial/[0, 4 serial/' %s | not compiler-opt -p schedule-ops 2>&1 | filecheck %s --check-prefix=LOOP
// LOOP: error: stage 'C': infer-bound's attributes do not parse: expected 'name = [min, extent] kind', got 'C_i = [0, 4 serial'
// LOOP-NOT: Traceback

// A stage attached at a loop no stage has (make fuzz seed 48: an internal KeyError), or
// at its own.
// RUN: sed -e 's/\[""\]/["C_i"]/' -e 's/te.guards = \[\]}/te.guards = [], te.attach = "Z"}/' %s | not compiler-opt -p schedule-ops 2>&1 | filecheck %s --check-prefix=ATTACH
// ATTACH: error: stage 'C': te.attach names loop 'Z', which no stage has (te.loops)
// RUN: sed -e 's/\[""\]/["C_i"]/' -e 's/te.guards = \[\]}/te.guards = [], te.attach = "C_i"}/' %s | not compiler-opt -p schedule-ops 2>&1 | filecheck %s --check-prefix=OWN
// OWN: error: stage 'C': te.attach names loop 'C_i', which is its own (te.loops)

te.func @malformed(%A: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %C = te.compute "C" (%i) : !te.tensor<[4], f32> attributes {te.realize = ["[0, 4]"], te.alloc_shape = ["4"], te.loops = ["C_i = [0, 4] serial"], te.axis_values = [""], te.guards = []} {
    %0 = te.read %A[%i] : !te.tensor<[4], f32>
    te.yield %0 : f32
  }
  te.return %C : !te.tensor<[4], f32>
}
