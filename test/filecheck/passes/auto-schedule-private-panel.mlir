// RUN: compiler-opt %s --split-input-file -p 'auto-schedule{vector_bits=512 registers=32 cores=2 parallel_min_work=0 l1_bytes=49152 l2_bytes=2097152}' | filecheck %s

// A packed panel is each thread's own copy inside the parallel column loop: it must fit
// a thread's scratch (256 KiB), not only a quarter of L2 (512 KiB here). GPT-2's
// 3072 -> 768 projection (an [in, out] weight, packed): 1536-deep blocks of 48 columns
// (288 KiB) lived in the arena and ran the loop serially; 1024-deep blocks (192 KiB)
// are per thread.
te.func @proj(%a: !te.tensor<[256, 3072], f32>, %b: !te.tensor<[3072, 768], f32>) -> !te.tensor<[256, 768], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[256, 768], f32> {
    %r = te.reduce sum (%k) in [3072] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[256, 3072], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[3072, 768], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[256, 768], f32>
}
// CHECK-LABEL: sched.schedule @proj {
// CHECK:         %C_j_o, %C_j_i = sched.split %C_j by 48 : !sched.iter<"C">
// CHECK:         %C_k_o, %C_k_i = sched.split %C_k by 1024 : !sched.iter<"C">
// CHECK:         sched.parallel %C_j_o : !sched.iter<"C">
// CHECK-NEXT:    sched.cache_read "b", "global" readers ["C"]
// CHECK-NEXT:    sched.compute_at "b.global", %C_k_o : !sched.iter<"C">

// -----

// No block of a prime depth fits: the panel is read where it is (not packed into the
// arena, where the column loop would run serially).
te.func @prime(%a: !te.tensor<[256, 1447], f32>, %b: !te.tensor<[1447, 768], f32>) -> !te.tensor<[256, 768], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[256, 768], f32> {
    %r = te.reduce sum (%k) in [1447] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[256, 1447], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[1447, 768], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[256, 768], f32>
}
// CHECK-LABEL: sched.schedule @prime {
// CHECK-NOT:     sched.cache_read
// CHECK:         sched.parallel
// CHECK-NOT:     sched.cache_read
// CHECK:       }
