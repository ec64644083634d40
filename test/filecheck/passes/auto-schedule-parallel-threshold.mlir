// RUN: compiler-opt %s --split-input-file -p 'auto-schedule{vector_bits=256 registers=16 cores=2 l1_bytes=32768 l2_bytes=524288}' | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'auto-schedule{vector_bits=256 registers=16 cores=2 parallel_min_work=0 l1_bytes=32768 l2_bytes=524288}' | filecheck %s --check-prefix=ALL
// RUN: not compiler-opt %s --split-input-file -p 'auto-schedule{vector_bits=256 registers=16 cores=2 parallel_min_work=-2 l1_bytes=32768 l2_bytes=524288}' 2>&1 | filecheck %s --check-prefix=BAD

// A stage of 8 x 64 iterations (a graph-break-sized Linear's epilogue) is less work
// than a fork and join of the thread team: it stays on one core under the default
// threshold (2^18 iterations), and runs in parallel when the threshold is 0.
te.func @small(%a: !te.tensor<[8, 64], f32>) -> !te.tensor<[8, 64], f32> {
  %t = te.compute "T" (%i, %j) : !te.tensor<[8, 64], f32> {
    %x = te.read %a[%i, %j] : !te.tensor<[8, 64], f32>
    %y = math.tanh %x : f32
    te.yield %y : f32
  }
  te.return %t : !te.tensor<[8, 64], f32>
}
// CHECK-LABEL: sched.schedule @small {
// CHECK-NOT:     sched.parallel
// CHECK:       }
// ALL-LABEL:   sched.schedule @small {
// ALL:           sched.parallel
// BAD:         parallel-min-work must be >= -1, got -2

// -----

// A 1024 x 512 stage (2^19 iterations) is worth both cores under the default threshold.
te.func @large(%a: !te.tensor<[1024, 512], f32>) -> !te.tensor<[1024, 512], f32> {
  %t = te.compute "T" (%i, %j) : !te.tensor<[1024, 512], f32> {
    %x = te.read %a[%i, %j] : !te.tensor<[1024, 512], f32>
    %y = math.tanh %x : f32
    te.yield %y : f32
  }
  te.return %t : !te.tensor<[1024, 512], f32>
}
// CHECK-LABEL: sched.schedule @large {
// CHECK:         sched.parallel
// CHECK:       }
