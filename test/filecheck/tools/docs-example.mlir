// The FileCheck example of the docs (docs/guide/tools.md includes this file).
// RUN: compiler-opt %s -p infer-bound | filecheck %s
// RUN: compiler-opt %s -p 'default-pipeline{until=loop}' | filecheck %s --check-prefix=LOOPS

te.func @double(%a: !te.tensor<[8], f32>) -> !te.tensor<[8], f32> {
  %b = te.compute "B" (%i) : !te.tensor<[8], f32> {
    %x = te.read %a[%i] : !te.tensor<[8], f32>
    %y = arith.addf %x, %x : f32
    te.yield %y : f32
  }
  te.return %b : !te.tensor<[8], f32>
}
// CHECK:      te.compute "B" {{.*}}te.realize = ["[0, 8]"]
// LOOPS:      loop.for %B_i = %{{.*}} extent %{{.*}} {
// LOOPS-NEXT:   %{{.*}} = loop.load %a[%B_i]
