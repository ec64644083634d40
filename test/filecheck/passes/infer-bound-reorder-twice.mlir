// A reorder that names one axis through two values (`sched.axis "C.local" 0` taken
// twice) is a located schedule error, as naming one value twice is (fuzz, seed 104:
// an internal KeyError in bound inference).
// RUN: not compiler-opt %s -p infer-bound 2>&1 | filecheck %s
// CHECK: infer-bound-reorder-twice.mlir:24:3: error: sched.reorder names the axis C_local_i twice
// CHECK-NOT: internal error
te.func @micro_kernel(%a: !te.tensor<[10, 6], f32>, %b: !te.tensor<[6, 12], f32>) -> !te.tensor<[10, 12], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[10, 12], f32> {
    %s = te.reduce sum (%k) in [6] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[10, 6], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[6, 12], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[10, 12], f32>
}
sched.schedule @micro_kernel {
  sched.cache_write "C", "local"
  %ci = sched.axis "C.local" 0
  %cj = sched.axis "C.local" 0
  %ck = sched.axis "C.local" reduce 0
  sched.reorder %ck, %ci, %cj : !sched.iter<"C.local">
}
