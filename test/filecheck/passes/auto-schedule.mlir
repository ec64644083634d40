// RUN: compiler-opt %s --split-input-file -p 'auto-schedule{vector_bits=256 registers=16 cores=2 parallel_min_work=0 l1_bytes=32768 l2_bytes=524288}' | filecheck %s

// A matmul: a register tile of 4 rows x 3 vectors of 8 (12 accumulators, 7 loads per
// 12 FMAs), k inside the row tiles, the column panel's loop outside them, the column
// tiles in parallel (22 of them, the last one 8 wide: enough for 2 cores without a
// fuse). The panel (k x 24 floats: 48 KiB) fits a quarter of L2, so k is not blocked:
// the accumulator tile is loaded and stored once. The panel is packed: B is read
// through a compact copy of the k x 24 panel (`cache_read`, computed at the column
// tile), whose rows a vector load apart instead of 2 KiB (B's rows, which fall into 2
// of L1's 64 sets).
te.func @matmul(%a: !te.tensor<[512, 512], f32>, %b: !te.tensor<[512, 512], f32>) -> !te.tensor<[512, 512], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[512, 512], f32> {
    %r = te.reduce sum (%k) in [512] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[512, 512], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[512, 512], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[512, 512], f32>
}
// CHECK-LABEL: sched.schedule @matmul {
// CHECK-NEXT:    %C_i = sched.axis "C" 0
// CHECK-NEXT:    %C_j = sched.axis "C" 1
// CHECK-NEXT:    %C_k = sched.axis "C" reduce 0
// CHECK-NEXT:    %C_i_o, %C_i_i = sched.split %C_i by 4 : !sched.iter<"C">
// CHECK-NEXT:    %C_j_o, %C_j_i = sched.split %C_j by 24 : !sched.iter<"C">
// CHECK-NEXT:    sched.reorder %C_j_o, %C_i_o, %C_k, %C_i_i, %C_j_i : !sched.iter<"C">
// CHECK-NEXT:    sched.unroll %C_i_i : !sched.iter<"C">
// CHECK-NEXT:    sched.vectorize %C_j_i : !sched.iter<"C">
// CHECK-NEXT:    sched.parallel %C_j_o : !sched.iter<"C">
// CHECK-NEXT:    sched.cache_read "b", "global" readers ["C"]
// CHECK-NEXT:    sched.compute_at "b.global", %C_j_o : !sched.iter<"C">
// CHECK-NEXT:    %b_p = sched.axis "b.global" 1
// CHECK-NEXT:    sched.vectorize %b_p : !sched.iter<"b.global">
// CHECK-NEXT:  }

// -----

// 1000 (no tile size divides it but 4 and 8): the same 4 x 24 tile, its column tail
// (16 of 1000) peeled by loop-partition; the panel (94 KiB) fits a quarter of L2.
te.func @matmul1000(%a: !te.tensor<[1000, 1000], f32>, %b: !te.tensor<[1000, 1000], f32>) -> !te.tensor<[1000, 1000], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[1000, 1000], f32> {
    %r = te.reduce sum (%k) in [1000] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[1000, 1000], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[1000, 1000], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[1000, 1000], f32>
}
// CHECK-LABEL: sched.schedule @matmul1000 {
// CHECK:         %C_i_o, %C_i_i = sched.split %C_i by 4 : !sched.iter<"C">
// CHECK-NEXT:    %C_j_o, %C_j_i = sched.split %C_j by 24 : !sched.iter<"C">
// CHECK-NEXT:    sched.reorder %C_j_o, %C_i_o, %C_k, %C_i_i, %C_j_i : !sched.iter<"C">
// CHECK:         sched.cache_read "b", "global" readers ["C"]
// CHECK-NEXT:    sched.compute_at "b.global", %C_j_o : !sched.iter<"C">

// -----

// A long reduction (k = 4096: a 384 KiB panel) is blocked by the longest divisor of k
// whose panel fits a quarter of L2 (1024 x 24 floats: 96 KiB); the panel is packed per
// k block, and the block loop runs outside the row tiles.
te.func @longk(%a: !te.tensor<[256, 4096], f32>, %b: !te.tensor<[4096, 256], f32>) -> !te.tensor<[256, 256], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[256, 256], f32> {
    %r = te.reduce sum (%k) in [4096] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[256, 4096], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[4096, 256], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[256, 256], f32>
}
// CHECK-LABEL: sched.schedule @longk {
// CHECK:         %C_k_o, %C_k_i = sched.split %C_k by 1024 : !sched.iter<"C">
// CHECK-NEXT:    sched.reorder %C_j_o, %C_k_o, %C_i_o, %C_k_i, %C_i_i, %C_j_i : !sched.iter<"C">
// CHECK:         sched.compute_at "b.global", %C_k_o : !sched.iter<"C">

// -----

// 8 rows read each panel: packing it would cost as much as the kernel reads of it, so B
// is read in place.
te.func @skinny(%a: !te.tensor<[8, 256], f32>, %b: !te.tensor<[256, 256], f32>) -> !te.tensor<[8, 256], f32> {
  %c = te.compute "C" (%i, %j) : !te.tensor<[8, 256], f32> {
    %r = te.reduce sum (%k) in [256] : f32 {
      %x = te.read %a[%i, %k] : !te.tensor<[8, 256], f32>
      %y = te.read %b[%k, %j] : !te.tensor<[256, 256], f32>
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[8, 256], f32>
}
// CHECK-LABEL: sched.schedule @skinny {
// CHECK:         sched.parallel %C_j_o : !sched.iter<"C">
// CHECK-NOT:     sched.cache_read
// CHECK-NEXT:  }

// -----

// An elementwise chain: B is inlined into C; C's 4096 elements as 64 loops of 64
// (8 vectors), the outer one parallel.
te.func @chain(%a: !te.tensor<[4096], f32>) -> !te.tensor<[4096], f32> {
  %b = te.compute "B" (%i) : !te.tensor<[4096], f32> {
    %v = te.read %a[%i] : !te.tensor<[4096], f32>
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    te.yield %m : f32
  }
  %c = te.compute "C" (%i) : !te.tensor<[4096], f32> {
    %v = te.read %b[%i] : !te.tensor<[4096], f32>
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %zero : f32
    te.yield %m : f32
  }
  te.return %c : !te.tensor<[4096], f32>
}
// CHECK-LABEL: sched.schedule @chain {
// CHECK-NEXT:    sched.compute_inline "B"
// CHECK-NEXT:    %C_i = sched.axis "C" 0
// CHECK-NEXT:    %C_i_o, %C_i_i = sched.split %C_i by 64 : !sched.iter<"C">
// CHECK-NEXT:    sched.vectorize %C_i_i : !sched.iter<"C">
// CHECK-NEXT:    sched.parallel %C_i_o : !sched.iter<"C">
// CHECK-NEXT:  }

// -----

// A user's schedule of B is kept (B is not inlined, its split stays); C is scheduled
// around it.
te.func @partial(%a: !te.tensor<[64, 48], f32>) -> !te.tensor<[64, 48], f32> {
  %b = te.compute "B" (%i, %j) : !te.tensor<[64, 48], f32> {
    %v = te.read %a[%i, %j] : !te.tensor<[64, 48], f32>
    te.yield %v : f32
  }
  %c = te.compute "C" (%i, %j) : !te.tensor<[64, 48], f32> {
    %v = te.read %b[%i, %j] : !te.tensor<[64, 48], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[64, 48], f32>
}
sched.schedule @partial {
  %bi = sched.axis "B" 0
  %bo, %bn = sched.split %bi by 5 : !sched.iter<"B">
}
// CHECK-LABEL: sched.schedule @partial {
// CHECK-NEXT:    %bi = sched.axis "B" 0
// CHECK-NEXT:    %bo, %bn = sched.split %bi by 5 : !sched.iter<"B">
// CHECK-NEXT:    %C_i = sched.axis "C" 0
// CHECK-NEXT:    %C_j = sched.axis "C" 1
// CHECK-NEXT:    sched.vectorize %C_j : !sched.iter<"C">
// CHECK-NEXT:    sched.parallel %C_i : !sched.iter<"C">
// CHECK-NEXT:  }

// -----

// A 1x1 conv over symbolic sizes: the output channels (not read by the row of x the
// vectors load) unrolled by 4 and the symbolic width split by 3 vectors (loop-partition
// gives both tails loops of their own). The tile's rows lie h * w apart in conv, a
// distance LLVM can't reason about, so the tile is a cache_write "local" stage of
// constant shape (4 x 24, on the stack) computed at the channel tile's loop, which is
// innermost of the outer loops (the tile's panel of x, c x 24 floats, stays in L1 for
// every channel tile); the batch loop of one iteration is not fused into the parallel
// loop (a fuse would turn the rows' loop into divisions that hide its tail's guard).
te.func @conv1x1(%x: !te.tensor<[1, "c", "h", "w"], f32>, %wt: !te.tensor<["k", "c"], f32>) -> !te.tensor<[1, "k", "h", "w"], f32> {
  %conv = te.compute "conv" (%nn, %ff, %yy, %xx) : !te.tensor<[1, "k", "h", "w"], f32> {
    %r = te.reduce sum (%rc) in ["c"] : f32 {
      %a = te.read %x[%nn, %rc, %yy, %xx] : !te.tensor<[1, "c", "h", "w"], f32>
      %b = te.read %wt[%ff, %rc] : !te.tensor<["k", "c"], f32>
      %p = arith.mulf %a, %b : f32
      te.yield %p : f32
    }
    te.yield %r : f32
  }
  te.return %conv : !te.tensor<[1, "k", "h", "w"], f32>
}
// CHECK-LABEL: sched.schedule @conv1x1 {
// CHECK-NEXT:    sched.cache_write "conv", "local"
// CHECK:         %conv_ff_o, %conv_ff_i = sched.split %conv_ff by 4 : !sched.iter<"conv">
// CHECK-NEXT:    %conv_xx_o, %conv_xx_i = sched.split %conv_xx by 24 : !sched.iter<"conv">
// CHECK-NEXT:    sched.reorder %conv_nn, %conv_yy, %conv_xx_o, %conv_ff_o, %conv_ff_i, %conv_xx_i : !sched.iter<"conv">
// CHECK-NEXT:    sched.unroll %conv_ff_i : !sched.iter<"conv">
// CHECK-NEXT:    sched.vectorize %conv_xx_i : !sched.iter<"conv">
// CHECK-NEXT:    sched.parallel %conv_yy : !sched.iter<"conv">
// CHECK-NEXT:    sched.compute_at "conv.local", %conv_ff_o : !sched.iter<"conv">
// CHECK:         %conv_rc_l = sched.axis "conv.local" reduce 0
// CHECK-NEXT:    sched.reorder %conv_nn_l, %conv_yy_l, %conv_rc_l, %conv_ff_l, %conv_xx_l : !sched.iter<"conv.local">
// CHECK-NEXT:    sched.unroll %conv_ff_l : !sched.iter<"conv.local">
// CHECK-NEXT:    sched.vectorize %conv_xx_l : !sched.iter<"conv.local">
// CHECK-NEXT:  }


// -----

// A conv whose bias and relu (inlined into one stage) read it element for element: the
// conv is computed in the relu's tile. The relu's loops take the conv's register tile
// (4 channels unrolled x 2 vectors of the row) and their order; the conv is computed at
// the innermost outer loop (the channel tiles), its reduction outside the tile's loops,
// so its buffer is one 4 x 16 tile (a stack buffer of the parallel loop, registers)
// instead of a tensor the epilogue would read back.
te.func @conv_bias_relu(%x: !te.tensor<[1, 8, 4, 32], f32>, %w: !te.tensor<[16, 8, 1, 1], f32>, %b: !te.tensor<[16], f32>) -> !te.tensor<[1, 16, 4, 32], f32> {
  %y = te.compute "y" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 16, 4, 32], f32> {
    %0 = te.reduce sum (%rc, %ry, %rx) in [8, 1, 1] : f32 {
      %1 = arith.constant 1 : index
      %2 = arith.muli %yy, %1 : index
      %3 = arith.constant 1 : index
      %4 = arith.muli %ry, %3 : index
      %5 = arith.addi %2, %4 : index
      %6 = arith.constant 1 : index
      %7 = arith.muli %xx, %6 : index
      %8 = arith.constant 1 : index
      %9 = arith.muli %rx, %8 : index
      %10 = arith.addi %7, %9 : index
      %11 = te.read %x[%nn, %rc, %5, %10] : !te.tensor<[1, 8, 4, 32], f32>
      %12 = te.read %w[%ff, %rc, %ry, %rx] : !te.tensor<[16, 8, 1, 1], f32>
      %13 = arith.mulf %11, %12 : f32
      te.yield %13 : f32
    }
    te.yield %0 : f32
  }
  %bias = te.compute "bias" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 16, 4, 32], f32> {
    %14 = te.read %y[%ax0, %ax1, %ax2, %ax3] : !te.tensor<[1, 16, 4, 32], f32>
    %15 = te.read %b[%ax1] : !te.tensor<[16], f32>
    %16 = arith.addf %14, %15 : f32
    te.yield %16 : f32
  }
  %r = te.compute "r" (%ax0_1, %ax1_1, %ax2_1, %ax3_1) : !te.tensor<[1, 16, 4, 32], f32> {
    %17 = te.read %bias[%ax0_1, %ax1_1, %ax2_1, %ax3_1] : !te.tensor<[1, 16, 4, 32], f32>
    %18 = arith.constant 0.000000e+00 : f32
    %19 = arith.maximumf %17, %18 : f32
    te.yield %19 : f32
  }
  te.return %r : !te.tensor<[1, 16, 4, 32], f32>
}
// CHECK-LABEL: sched.schedule @conv_bias_relu {
// CHECK-NEXT:    sched.compute_inline "bias"
// CHECK:         %r_ax1_o, %r_ax1_i = sched.split %r_ax1 by 4 : !sched.iter<"r">
// CHECK-NEXT:    %r_ax3_o, %r_ax3_i = sched.split %r_ax3 by 16 : !sched.iter<"r">
// CHECK-NEXT:    sched.reorder %r_ax0, %r_ax2, %r_ax3_o, %r_ax1_o, %r_ax1_i, %r_ax3_i : !sched.iter<"r">
// CHECK-NEXT:    sched.unroll %r_ax1_i : !sched.iter<"r">
// CHECK-NEXT:    sched.vectorize %r_ax3_i : !sched.iter<"r">
// CHECK-NEXT:    %r_par = sched.fuse %r_ax2, %r_ax3_o : !sched.iter<"r">
// CHECK-NEXT:    sched.parallel %r_par : !sched.iter<"r">
// CHECK-NEXT:    sched.compute_at "y", %r_ax1_o : !sched.iter<"r">
// CHECK:         sched.reorder %y_nn, %y_yy, %y_rc, %y_ry, %y_rx, %y_ff, %y_xx : !sched.iter<"y">
// CHECK-NEXT:    sched.unroll %y_ff : !sched.iter<"y">
// CHECK-NEXT:    sched.vectorize %y_xx : !sched.iter<"y">
// CHECK-NEXT:  }

// -----

// A transpose (NCHW of NHWC): no read is contiguous along its last axis (w), so it is
// tiled: 8 channel rows (unrolled) by a vector of w, each vector gathering one element
// of 8 source lines that the next rows read from L1; the channel tiles run inside the
// w tiles, so a block of source rows is read whole before the next.
te.func @nchw_of_nhwc(%a: !te.tensor<[1, 56, 56, 64], f32>) -> !te.tensor<[1, 64, 56, 56], f32> {
  %t = te.compute "T" (%n, %c, %h, %w) : !te.tensor<[1, 64, 56, 56], f32> {
    %x = te.read %a[%n, %h, %w, %c] : !te.tensor<[1, 56, 56, 64], f32>
    te.yield %x : f32
  }
  te.return %t : !te.tensor<[1, 64, 56, 56], f32>
}
// CHECK-LABEL: sched.schedule @nchw_of_nhwc {
// CHECK:         %T_c_o, %T_c_i = sched.split %T_c by 8
// CHECK-NEXT:    %T_w_o, %T_w_i = sched.split %T_w by 8
// CHECK-NEXT:    sched.reorder %T_n, %T_h, %T_w_o, %T_c_o, %T_c_i, %T_w_i
// CHECK-NEXT:    sched.unroll %T_c_i
// CHECK-NEXT:    sched.vectorize %T_w_i
