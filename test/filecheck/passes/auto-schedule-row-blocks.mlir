// RUN: compiler-opt %s -p 'auto-schedule{vector_bits=256 registers=16 cores=2 parallel_min_work=0 l1_bytes=32768 l2_bytes=1024}' | filecheck %s
// RUN: compiler-opt %s -p 'auto-schedule{vector_bits=256 registers=16 cores=2 parallel_min_work=0 l1_bytes=32768 l2_bytes=524288}' | filecheck %s --check-prefix=WHOLE

// Attention's chain (ops.scaled_dot_product_attention, 2 heads of 16 rows by 8): the
// scores, row max, exponentials and row sum are read row for row by the output (and
// the product with V in its tile). When the largest of them (the scores, 2 KB) does not
// fit in L2, they are computed per block of the output's rows, at its parallel block
// loop: the score matrix is never whole. With room in L2 they stay whole stages.
// (Input: `build_module` of that program.)
builtin.module {
  te.func @main(%Q: !te.tensor<[1, 2, 16, 8], f32>, %K: !te.tensor<[1, 2, 16, 8], f32>, %V: !te.tensor<[1, 2, 16, 8], f32>) -> !te.tensor<[1, 2, 16, 8], f32> {
    %attention_kt = te.compute "attention_kt" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 8, 16], f32> {
      %0 = te.read %K[%ax0, %ax1, %ax3, %ax2] : !te.tensor<[1, 2, 16, 8], f32>
      %1 = arith.constant 0.353553385 : f32
      %2 = arith.mulf %0, %1 : f32
      te.yield %2 : f32
    }
    %attention_scores = te.compute "attention_scores" (%ax0_1, %ax1_1, %ax2_1, %ax3_1) : !te.tensor<[1, 2, 16, 16], f32> {
      %3 = te.reduce sum (%k) in [8] : f32 {
        %4 = te.read %Q[%ax0_1, %ax1_1, %ax2_1, %k] : !te.tensor<[1, 2, 16, 8], f32>
        %5 = te.read %attention_kt[%ax0_1, %ax1_1, %k, %ax3_1] : !te.tensor<[1, 2, 8, 16], f32>
        %6 = arith.mulf %4, %5 : f32
        te.yield %6 : f32
      }
      te.yield %3 : f32
    }
    %attention_max_lanes = te.compute "attention_max_lanes" (%ax0_2, %ax1_2, %ax2_2, %ax3_2) : !te.tensor<[1, 2, 16, 32], f32> {
      %7 = te.reduce max (%jo) in [0] : f32 {
        %8 = arith.constant 0 : index
        %9 = arith.constant 32 : index
        %10 = arith.muli %jo, %9 : index
        %11 = arith.addi %10, %ax3_2 : index
        %12 = te.read %attention_scores[%8, %ax1_2, %ax2_2, %11] : !te.tensor<[1, 2, 16, 16], f32>
        te.yield %12 : f32
      }
      te.yield %7 : f32
    }
    %attention_max_chunks = te.compute "attention_max_chunks" (%ax0_3, %ax1_3, %ax2_3) : !te.tensor<[1, 2, 16], f32> {
      %13 = te.reduce max (%r) in [32] : f32 {
        %14 = te.read %attention_max_lanes[%ax0_3, %ax1_3, %ax2_3, %r] : !te.tensor<[1, 2, 16, 32], f32>
        te.yield %14 : f32
      }
      te.yield %13 : f32
    }
    %attention_max_tail = te.compute "attention_max_tail" (%ax0_4, %ax1_4, %ax2_4) : !te.tensor<[1, 2, 16], f32> {
      %15 = te.reduce max (%t) in [16] : f32 {
        %16 = arith.constant 0 : index
        %17 = arith.constant 0 : index
        %18 = arith.addi %17, %t : index
        %19 = te.read %attention_scores[%16, %ax1_4, %ax2_4, %18] : !te.tensor<[1, 2, 16, 16], f32>
        te.yield %19 : f32
      }
      te.yield %15 : f32
    }
    %attention_max = te.compute "attention_max" (%ax0_5, %ax1_5, %ax2_5) : !te.tensor<[1, 2, 16], f32> {
      %20 = te.read %attention_max_chunks[%ax0_5, %ax1_5, %ax2_5] : !te.tensor<[1, 2, 16], f32>
      %21 = te.read %attention_max_tail[%ax0_5, %ax1_5, %ax2_5] : !te.tensor<[1, 2, 16], f32>
      %22 = arith.maximumf %20, %21 : f32
      te.yield %22 : f32
    }
    %attention_exp = te.compute "attention_exp" (%ax0_6, %ax1_6, %ax2_6, %ax3_3) : !te.tensor<[1, 2, 16, 16], f32> {
      %23 = arith.constant 0 : index
      %24 = te.read %attention_scores[%23, %ax1_6, %ax2_6, %ax3_3] : !te.tensor<[1, 2, 16, 16], f32>
      %25 = te.read %attention_max[%ax0_6, %ax1_6, %ax2_6] : !te.tensor<[1, 2, 16], f32>
      %26 = arith.subf %24, %25 : f32
      %27 = math.exp %26 : f32
      te.yield %27 : f32
    }
    %attention_pv = te.compute "attention_pv" (%ax0_7, %ax1_7, %ax2_7, %ax3_4) : !te.tensor<[1, 2, 16, 8], f32> {
      %28 = te.reduce sum (%k_1) in [16] : f32 {
        %29 = te.read %attention_exp[%ax0_7, %ax1_7, %ax2_7, %k_1] : !te.tensor<[1, 2, 16, 16], f32>
        %30 = te.read %V[%ax0_7, %ax1_7, %k_1, %ax3_4] : !te.tensor<[1, 2, 16, 8], f32>
        %31 = arith.mulf %29, %30 : f32
        te.yield %31 : f32
      }
      te.yield %28 : f32
    }
    %attention_sum_lanes = te.compute "attention_sum_lanes" (%ax0_8, %ax1_8, %ax2_8, %ax3_5) : !te.tensor<[1, 2, 16, 32], f32> {
      %32 = te.reduce sum (%jo_1) in [0] : f32 {
        %33 = arith.constant 32 : index
        %34 = arith.muli %jo_1, %33 : index
        %35 = arith.addi %34, %ax3_5 : index
        %36 = te.read %attention_exp[%ax0_8, %ax1_8, %ax2_8, %35] : !te.tensor<[1, 2, 16, 16], f32>
        te.yield %36 : f32
      }
      te.yield %32 : f32
    }
    %attention_sum_chunks = te.compute "attention_sum_chunks" (%ax0_9, %ax1_9, %ax2_9) : !te.tensor<[1, 2, 16], f32> {
      %37 = te.reduce sum (%r_1) in [32] : f32 {
        %38 = te.read %attention_sum_lanes[%ax0_9, %ax1_9, %ax2_9, %r_1] : !te.tensor<[1, 2, 16, 32], f32>
        te.yield %38 : f32
      }
      te.yield %37 : f32
    }
    %attention_sum_tail = te.compute "attention_sum_tail" (%ax0_10, %ax1_10, %ax2_10) : !te.tensor<[1, 2, 16], f32> {
      %39 = te.reduce sum (%t_1) in [16] : f32 {
        %40 = arith.constant 0 : index
        %41 = arith.addi %40, %t_1 : index
        %42 = te.read %attention_exp[%ax0_10, %ax1_10, %ax2_10, %41] : !te.tensor<[1, 2, 16, 16], f32>
        te.yield %42 : f32
      }
      te.yield %39 : f32
    }
    %attention_sum = te.compute "attention_sum" (%ax0_11, %ax1_11, %ax2_11) : !te.tensor<[1, 2, 16], f32> {
      %43 = te.read %attention_sum_chunks[%ax0_11, %ax1_11, %ax2_11] : !te.tensor<[1, 2, 16], f32>
      %44 = te.read %attention_sum_tail[%ax0_11, %ax1_11, %ax2_11] : !te.tensor<[1, 2, 16], f32>
      %45 = arith.addf %43, %44 : f32
      te.yield %45 : f32
    }
    %attention = te.compute "attention" (%ax0_12, %ax1_12, %ax2_12, %ax3_6) : !te.tensor<[1, 2, 16, 8], f32> {
      %46 = te.read %attention_pv[%ax0_12, %ax1_12, %ax2_12, %ax3_6] : !te.tensor<[1, 2, 16, 8], f32>
      %47 = te.read %attention_sum[%ax0_12, %ax1_12, %ax2_12] : !te.tensor<[1, 2, 16], f32>
      %48 = arith.divf %46, %47 : f32
      te.yield %48 : f32
    }
    te.return %attention : !te.tensor<[1, 2, 16, 8], f32>
  }
}
// CHECK-NOT:   sched.parallel %attention_{{(scores|max|exp|sum)}}
// CHECK:       %attention_ax2_o, %attention_ax2_i = sched.split %attention_ax2 by 8
// CHECK-NEXT:  %attention_ax2_i_o, %attention_ax2_i_i = sched.split %attention_ax2_i by 8
// CHECK:       %attention_par = sched.fuse %attention_ax1, %attention_ax2_o
// CHECK-NEXT:  sched.parallel %attention_par
// CHECK-NEXT:  sched.compute_at "attention_pv", %attention_ax2_i_o
// CHECK:       sched.compute_at "attention_scores", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_max_lanes", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_max_chunks", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_max_tail", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_exp", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_sum_lanes", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_sum_chunks", %attention_par
// CHECK-NEXT:  sched.compute_at "attention_sum_tail", %attention_par

// WHOLE-NOT:   sched.compute_at "attention_scores"
// WHOLE:       sched.parallel %attention_scores
