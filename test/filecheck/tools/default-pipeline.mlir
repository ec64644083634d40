// compiler-opt runs `default-pipeline{...}` as the passes it stands for, so
// --print-between-passes shows the IR after each of them and --time-passes
// times each of them.
// RUN: compiler-opt %s -p 'default-pipeline{until=loop}' --print-between-passes | filecheck %s --check-prefix=BETWEEN
// RUN: compiler-opt %s -p 'default-pipeline{until=loop tighten-pad-regions=false}' --print-between-passes | filecheck %s --check-prefix=OFF
// RUN: compiler-opt %s -p 'default-pipeline{until=flat}' --time-passes | filecheck %s --check-prefix=TIME
// RUN: compiler-opt %s -p 'default-pipeline{until=te},default-pipeline{until=loop}' | filecheck %s --check-prefix=LOOP
// RUN: compiler-opt %s -p 'default-pipeline{until=loop}' | filecheck %s --check-prefix=LOOP

te.func @add(%a: !te.tensor<["n"], f32>, %b: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %c = te.compute "C" (%i) : !te.tensor<["n"], f32> {
    %x = te.read %a[%i] : !te.tensor<["n"], f32>
    %y = te.read %b[%i] : !te.tensor<["n"], f32>
    %s = arith.addf %x, %y : f32
    te.yield %s : f32
  }
  te.return %c : !te.tensor<["n"], f32>
}

// BETWEEN:      IR after compute-inline:
// BETWEEN-NEXT: builtin.module {
// BETWEEN-NEXT:   te.func @add
// BETWEEN:      IR after tighten-pad-regions:
// BETWEEN-NEXT: builtin.module {
// BETWEEN-NEXT:   te.func @add
// BETWEEN:      IR after infer-bound:
// BETWEEN-NEXT: builtin.module {
// BETWEEN-NEXT:   te.func @add
// BETWEEN-NEXT:     te.compute "C" {{.*}}te.realize = ["[0, n]"]
// The IR after the last pass, schedule-ops, is the output.
// BETWEEN-NOT:  IR after
// BETWEEN:      loop.func @add
// BETWEEN:        loop.for %C_i

// OFF:      IR after compute-inline:
// OFF-NOT:  IR after tighten-pad-regions:
// OFF:      IR after infer-bound:
// OFF-NOT:  IR after
// OFF:      loop.func @add

// TIME:      Pass compute-inline took {{.*}} seconds
// TIME-NEXT: Pass tighten-pad-regions took {{.*}} seconds
// TIME-NEXT: Pass infer-bound took {{.*}} seconds
// TIME-NEXT: Pass schedule-ops took {{.*}} seconds
// TIME-NEXT: Pass loop-partition took {{.*}} seconds
// TIME-NEXT: Pass make-packed-api took {{.*}} seconds
// TIME-NEXT: Pass storage-flatten took {{.*}} seconds
// TIME-NEXT: Pass storage-rewrite took {{.*}} seconds
// TIME-NEXT: Pass unroll-loops took {{.*}} seconds
// TIME-NOT:  Pass
// TIME:      loop.func @add_compute

// LOOP-NOT: te.func
// LOOP:     loop.func @add(
// LOOP:       loop.for %C_i
