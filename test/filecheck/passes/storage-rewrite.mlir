// RUN: compiler-opt %s --split-input-file -p 'compute-inline,tighten-pad-regions,infer-bound,schedule-ops,storage-flatten,storage-rewrite,verify-memory-plan' | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'compute-inline,tighten-pad-regions,infer-bound,schedule-ops,storage-flatten,storage-rewrite,memory-report' | filecheck %s --check-prefix=REPORT
// RUN: compiler-opt %s --split-input-file -p 'compute-inline,tighten-pad-regions,infer-bound,schedule-ops,storage-flatten,storage-rewrite{reuse=false inplace=false},verify-memory-plan' | filecheck %s --check-prefix=NOREUSE
// RUN: compiler-opt %s --split-input-file -p 'compute-inline,tighten-pad-regions,infer-bound,schedule-ops,storage-flatten,storage-rewrite{inplace=false},verify-memory-plan' | filecheck %s --check-prefix=NOINPLACE
// An elementwise chain: each stage writes over the buffer it reads, which dies there (in place), so three intermediates take one buffer's bytes.
te.func @elementwise(%A: !te.tensor<[64], f32>) -> !te.tensor<[64], f32> {
  %B = te.compute "B" (%i) : !te.tensor<[64], f32> {
    %0 = te.read %A[%i] : !te.tensor<[64], f32>
    %1 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %0, %1 : f32
    te.yield %2 : f32
  }
  %C = te.compute "C" (%i_1) : !te.tensor<[64], f32> {
    %3 = te.read %B[%i_1] : !te.tensor<[64], f32>
    %4 = arith.constant 1.000000e+00 : f32
    %5 = arith.addf %3, %4 : f32
    te.yield %5 : f32
  }
  %D = te.compute "D" (%i_2) : !te.tensor<[64], f32> {
    %6 = te.read %C[%i_2] : !te.tensor<[64], f32>
    %7 = math.exp %6 : f32
    te.yield %7 : f32
  }
  %E = te.compute "E" (%i_3) : !te.tensor<[64], f32> {
    %8 = te.read %D[%i_3] : !te.tensor<[64], f32>
    %9 = arith.constant 3.000000e+00 : f32
    %10 = arith.subf %8, %9 : f32
    te.yield %10 : f32
  }
  te.return %E : !te.tensor<[64], f32>
}
// CHECK-LABEL: loop.func @elementwise
// CHECK:       %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[256], i8>
// CHECK:       %B = loop.view "B" %arena at "0"
// CHECK:       %C = loop.view "C" %arena at "0" inplace "B"
// CHECK:       %D = loop.view "D" %arena at "0" inplace "C"
// REPORT:      // memory plan of @elementwise:
// REPORT:      //   arena 256 bytes; without reuse 768; liveness lower bound 512
// NOREUSE-LABEL: loop.func @elementwise
// NOREUSE:     %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[768], i8>
// NOREUSE:     %C = loop.view "C" %arena at "256" : 
// NOINPLACE-LABEL: loop.func @elementwise
// NOINPLACE:   %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[512], i8>
// NOINPLACE:   %C = loop.view "C" %arena at "256" {loop.fresh_because = "no buffer is dead yet"}
// NOINPLACE:   %D = loop.view "D" %arena at "0" :

// -----

// Seed 001 in small, static: a 3x3 conv never writes over its padded input (a later row still reads what it would overwrite), relu runs in place of the conv, and the 2x2 stride-2 pool writes into the dead activation (the seed's request). The arena meets the liveness lower bound.
te.func @conv_pool(%x: !te.tensor<[1, 8, 8, 4], f32>, %w: !te.tensor<[3, 3, 4, 4], f32>) -> !te.tensor<[1, 4, 4, 4], f32> {
  %conv_pad = te.compute "conv_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 10, 10, 4], f32> {
    %0 = arith.constant 1 : index
    %1 = arith.cmpi sge, %ax1, %0 : index
    %2 = arith.constant 9 : index
    %3 = arith.cmpi slt, %ax1, %2 : index
    %4 = arith.constant 1 : index
    %5 = arith.cmpi sge, %ax2, %4 : index
    %6 = arith.constant 9 : index
    %7 = arith.cmpi slt, %ax2, %6 : index
    %8 = arith.andi %1, %3 : i1
    %9 = arith.andi %8, %5 : i1
    %10 = arith.andi %9, %7 : i1
    %11 = scf.if %10 -> (f32) {
      %12 = arith.constant 0 : index
      %13 = arith.subi %ax0, %12 : index
      %14 = arith.constant 1 : index
      %15 = arith.subi %ax1, %14 : index
      %16 = arith.constant 1 : index
      %17 = arith.subi %ax2, %16 : index
      %18 = arith.constant 0 : index
      %19 = arith.subi %ax3, %18 : index
      %20 = te.read %x[%13, %15, %17, %19] : !te.tensor<[1, 8, 8, 4], f32>
      scf.yield %20 : f32
    } else {
      %21 = arith.constant 0.000000e+00 : f32
      scf.yield %21 : f32
    }{te.likely}
    te.yield %11 : f32
  }
  %conv = te.compute "conv" (%nn, %yy, %xx, %ff) : !te.tensor<[1, 8, 8, 4], f32> {
    %22 = te.reduce sum (%ry, %rx, %rc) in [3, 3, 4] : f32 {
      %23 = arith.constant 1 : index
      %24 = arith.muli %yy, %23 : index
      %25 = arith.addi %24, %ry : index
      %26 = arith.constant 1 : index
      %27 = arith.muli %xx, %26 : index
      %28 = arith.addi %27, %rx : index
      %29 = te.read %conv_pad[%nn, %25, %28, %rc] : !te.tensor<[1, 10, 10, 4], f32>
      %30 = te.read %w[%ry, %rx, %rc, %ff] : !te.tensor<[3, 3, 4, 4], f32>
      %31 = arith.mulf %29, %30 : f32
      te.yield %31 : f32
    }
    te.yield %22 : f32
  }
  %act = te.compute "act" (%ax0_1, %ax1_1, %ax2_1, %ax3_1) : !te.tensor<[1, 8, 8, 4], f32> {
    %32 = te.read %conv[%ax0_1, %ax1_1, %ax2_1, %ax3_1] : !te.tensor<[1, 8, 8, 4], f32>
    %33 = arith.constant 0.000000e+00 : f32
    %34 = arith.maximumf %32, %33 : f32
    te.yield %34 : f32
  }
  %pool_sum = te.compute "pool_sum" (%ax0_2, %ax1_2, %ax2_2, %ax3_2) : !te.tensor<[1, 4, 4, 4], f32> {
    %35 = te.reduce sum (%ry_1, %rx_1) in [2, 2] : f32 {
      %36 = arith.constant 2 : index
      %37 = arith.muli %ax1_2, %36 : index
      %38 = arith.addi %37, %ry_1 : index
      %39 = arith.constant 2 : index
      %40 = arith.muli %ax2_2, %39 : index
      %41 = arith.addi %40, %rx_1 : index
      %42 = te.read %act[%ax0_2, %38, %41, %ax3_2] : !te.tensor<[1, 8, 8, 4], f32>
      te.yield %42 : f32
    }
    te.yield %35 : f32
  }
  %pool = te.compute "pool" (%ax0_3, %ax1_3, %ax2_3, %ax3_3) : !te.tensor<[1, 4, 4, 4], f32> {
    %43 = te.read %pool_sum[%ax0_3, %ax1_3, %ax2_3, %ax3_3] : !te.tensor<[1, 4, 4, 4], f32>
    %44 = arith.constant 2.500000e-01 : f32
    %45 = arith.mulf %43, %44 : f32
    te.yield %45 : f32
  }
  te.return %pool : !te.tensor<[1, 4, 4, 4], f32>
}
// CHECK-LABEL: loop.func @conv_pool
// CHECK:       %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[2624], i8>
// CHECK:       %conv = loop.view "conv" %arena at "1600" {loop.fresh_because = "in-place over conv_pad unsafe: a read of the input follows a write of the output to the same bytes"}
// CHECK:       %act = loop.view "act" %arena at "1600" inplace "conv"
// CHECK:       %pool_sum = loop.view "pool_sum" %arena at "1600" inplace "act"
// REPORT:      //   arena 2624 bytes; without reuse 3904; liveness lower bound 2624

// -----

// Seed 001 with symbolic h and w: conv2 (2 * (h // 2) x 2 * (w // 2)) reuses conv1's dead region because its size is proven to fit (h // 2 * (w // 2) * 1024 <= h * w * 256); conv2_pad, the largest, takes offset 0 over the dead conv1_pad (greedy by size, offsets proven disjoint); the pool writes in place of act2 (the in-place proof with symbolic strides); the arena is conv2_pad + conv1, an expression of h and w evaluated at call time, and equals the static plan's size.
te.func @seed001(%x: !te.tensor<[1, "h", "w", 3], f32>, %w1: !te.tensor<[3, 3, 3, 64], f32>, %b1: !te.tensor<[64], f32>, %w2: !te.tensor<[3, 3, 64, 64], f32>, %b2: !te.tensor<[64], f32>) -> !te.tensor<[1, "h // 2", "w // 2", 64], f32> {
  %conv1_pad = te.compute "conv1_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, "h + 2", "w + 2", 3], f32> {
    %0 = arith.constant 1 : index
    %1 = arith.cmpi sge, %ax1, %0 : index
    %2 = te.var "h" : index
    %3 = arith.constant 1 : index
    %4 = arith.addi %2, %3 : index
    %5 = arith.cmpi slt, %ax1, %4 : index
    %6 = arith.constant 1 : index
    %7 = arith.cmpi sge, %ax2, %6 : index
    %8 = te.var "w" : index
    %9 = arith.constant 1 : index
    %10 = arith.addi %8, %9 : index
    %11 = arith.cmpi slt, %ax2, %10 : index
    %12 = arith.andi %1, %5 : i1
    %13 = arith.andi %12, %7 : i1
    %14 = arith.andi %13, %11 : i1
    %15 = scf.if %14 -> (f32) {
      %16 = arith.constant 0 : index
      %17 = arith.subi %ax0, %16 : index
      %18 = arith.constant 1 : index
      %19 = arith.subi %ax1, %18 : index
      %20 = arith.constant 1 : index
      %21 = arith.subi %ax2, %20 : index
      %22 = arith.constant 0 : index
      %23 = arith.subi %ax3, %22 : index
      %24 = te.read %x[%17, %19, %21, %23] : !te.tensor<[1, "h", "w", 3], f32>
      scf.yield %24 : f32
    } else {
      %25 = arith.constant 0.000000e+00 : f32
      scf.yield %25 : f32
    }{te.likely}
    te.yield %15 : f32
  }
  %conv1 = te.compute "conv1" (%nn, %yy, %xx, %ff) : !te.tensor<[1, "h", "w", 64], f32> {
    %26 = te.reduce sum (%ry, %rx, %rc) in [3, 3, 3] : f32 {
      %27 = arith.constant 1 : index
      %28 = arith.muli %yy, %27 : index
      %29 = arith.addi %28, %ry : index
      %30 = arith.constant 1 : index
      %31 = arith.muli %xx, %30 : index
      %32 = arith.addi %31, %rx : index
      %33 = te.read %conv1_pad[%nn, %29, %32, %rc] : !te.tensor<[1, "h + 2", "w + 2", 3], f32>
      %34 = te.read %w1[%ry, %rx, %rc, %ff] : !te.tensor<[3, 3, 3, 64], f32>
      %35 = arith.mulf %33, %34 : f32
      te.yield %35 : f32
    }
    te.yield %26 : f32
  }
  %bias1 = te.compute "bias1" (%ax0_1, %ax1_1, %ax2_1, %ax3_1) : !te.tensor<[1, "h", "w", 64], f32> {
    %36 = te.read %conv1[%ax0_1, %ax1_1, %ax2_1, %ax3_1] : !te.tensor<[1, "h", "w", 64], f32>
    %37 = te.read %b1[%ax3_1] : !te.tensor<[64], f32>
    %38 = arith.addf %36, %37 : f32
    te.yield %38 : f32
  }
  %act1 = te.compute "act1" (%ax0_2, %ax1_2, %ax2_2, %ax3_2) : !te.tensor<[1, "h", "w", 64], f32> {
    %39 = te.read %bias1[%ax0_2, %ax1_2, %ax2_2, %ax3_2] : !te.tensor<[1, "h", "w", 64], f32>
    %40 = arith.constant 0.000000e+00 : f32
    %41 = arith.cmpf ogt, %39, %40 : f32
    %42 = scf.if %41 -> (f32) {
      scf.yield %39 : f32
    } else {
      %43 = arith.constant 1.000000e-01 : f32
      %44 = arith.mulf %39, %43 : f32
      scf.yield %44 : f32
    }
    te.yield %42 : f32
  }
  %conv2_pad = te.compute "conv2_pad" (%ax0_3, %ax1_3, %ax2_3, %ax3_3) : !te.tensor<[1, "h + 2", "w + 2", 64], f32> {
    %45 = arith.constant 1 : index
    %46 = arith.cmpi sge, %ax1_3, %45 : index
    %47 = te.var "h" : index
    %48 = arith.constant 2 : index
    %49 = arith.addi %47, %48 : index
    %50 = arith.constant 3 : index
    %51 = arith.subi %49, %50 : index
    %52 = arith.constant 1 : index
    %53 = arith.floordivsi %51, %52 : index
    %54 = arith.constant 1 : index
    %55 = arith.addi %53, %54 : index
    %56 = arith.constant 1 : index
    %57 = arith.addi %55, %56 : index
    %58 = arith.cmpi slt, %ax1_3, %57 : index
    %59 = arith.constant 1 : index
    %60 = arith.cmpi sge, %ax2_3, %59 : index
    %61 = te.var "w" : index
    %62 = arith.constant 2 : index
    %63 = arith.addi %61, %62 : index
    %64 = arith.constant 3 : index
    %65 = arith.subi %63, %64 : index
    %66 = arith.constant 1 : index
    %67 = arith.floordivsi %65, %66 : index
    %68 = arith.constant 1 : index
    %69 = arith.addi %67, %68 : index
    %70 = arith.constant 1 : index
    %71 = arith.addi %69, %70 : index
    %72 = arith.cmpi slt, %ax2_3, %71 : index
    %73 = arith.andi %46, %58 : i1
    %74 = arith.andi %73, %60 : i1
    %75 = arith.andi %74, %72 : i1
    %76 = scf.if %75 -> (f32) {
      %77 = arith.constant 0 : index
      %78 = arith.subi %ax0_3, %77 : index
      %79 = arith.constant 1 : index
      %80 = arith.subi %ax1_3, %79 : index
      %81 = arith.constant 1 : index
      %82 = arith.subi %ax2_3, %81 : index
      %83 = arith.constant 0 : index
      %84 = arith.subi %ax3_3, %83 : index
      %85 = te.read %act1[%78, %80, %82, %84] : !te.tensor<[1, "h", "w", 64], f32>
      scf.yield %85 : f32
    } else {
      %86 = arith.constant 0.000000e+00 : f32
      scf.yield %86 : f32
    }{te.likely}
    te.yield %76 : f32
  }
  %conv2 = te.compute "conv2" (%nn_1, %yy_1, %xx_1, %ff_1) : !te.tensor<[1, "h", "w", 64], f32> {
    %87 = te.reduce sum (%ry_1, %rx_1, %rc_1) in [3, 3, 64] : f32 {
      %88 = arith.constant 1 : index
      %89 = arith.muli %yy_1, %88 : index
      %90 = arith.addi %89, %ry_1 : index
      %91 = arith.constant 1 : index
      %92 = arith.muli %xx_1, %91 : index
      %93 = arith.addi %92, %rx_1 : index
      %94 = te.read %conv2_pad[%nn_1, %90, %93, %rc_1] : !te.tensor<[1, "h + 2", "w + 2", 64], f32>
      %95 = te.read %w2[%ry_1, %rx_1, %rc_1, %ff_1] : !te.tensor<[3, 3, 64, 64], f32>
      %96 = arith.mulf %94, %95 : f32
      te.yield %96 : f32
    }
    te.yield %87 : f32
  }
  %bias2 = te.compute "bias2" (%ax0_4, %ax1_4, %ax2_4, %ax3_4) : !te.tensor<[1, "h", "w", 64], f32> {
    %97 = te.read %conv2[%ax0_4, %ax1_4, %ax2_4, %ax3_4] : !te.tensor<[1, "h", "w", 64], f32>
    %98 = te.read %b2[%ax3_4] : !te.tensor<[64], f32>
    %99 = arith.addf %97, %98 : f32
    te.yield %99 : f32
  }
  %act2 = te.compute "act2" (%ax0_5, %ax1_5, %ax2_5, %ax3_5) : !te.tensor<[1, "h", "w", 64], f32> {
    %100 = te.read %bias2[%ax0_5, %ax1_5, %ax2_5, %ax3_5] : !te.tensor<[1, "h", "w", 64], f32>
    %101 = arith.constant 0.000000e+00 : f32
    %102 = arith.cmpf ogt, %100, %101 : f32
    %103 = scf.if %102 -> (f32) {
      scf.yield %100 : f32
    } else {
      %104 = arith.constant 1.000000e-01 : f32
      %105 = arith.mulf %100, %104 : f32
      scf.yield %105 : f32
    }
    te.yield %103 : f32
  }
  %pool_sum = te.compute "pool_sum" (%ax0_6, %ax1_6, %ax2_6, %ax3_6) : !te.tensor<[1, "h // 2", "w // 2", 64], f32> {
    %106 = te.reduce sum (%ry_2, %rx_2) in [2, 2] : f32 {
      %107 = arith.constant 2 : index
      %108 = arith.muli %ax1_6, %107 : index
      %109 = arith.addi %108, %ry_2 : index
      %110 = arith.constant 2 : index
      %111 = arith.muli %ax2_6, %110 : index
      %112 = arith.addi %111, %rx_2 : index
      %113 = te.read %act2[%ax0_6, %109, %112, %ax3_6] : !te.tensor<[1, "h", "w", 64], f32>
      te.yield %113 : f32
    }
    te.yield %106 : f32
  }
  %pool = te.compute "pool" (%ax0_7, %ax1_7, %ax2_7, %ax3_7) : !te.tensor<[1, "h // 2", "w // 2", 64], f32> {
    %114 = te.read %pool_sum[%ax0_7, %ax1_7, %ax2_7, %ax3_7] : !te.tensor<[1, "h // 2", "w // 2", 64], f32>
    %115 = arith.constant 2.500000e-01 : f32
    %116 = arith.mulf %114, %115 : f32
    te.yield %116 : f32
  }
  te.return %pool : !te.tensor<[1, "h // 2", "w // 2", 64], f32>
}
// CHECK-LABEL: loop.func @seed001
// CHECK:       %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8>
// CHECK:       %conv1_pad = loop.view "conv1_pad" %arena at "0" {
// CHECK:       %conv1 = loop.view "conv1" %arena at "[[R:.*]]" {
// CHECK:       %conv2_pad = loop.view "conv2_pad" %arena at "0" :
// CHECK:       %conv2 = loop.view "conv2" %arena at "[[R]]" :
// CHECK:       %pool_sum = loop.view "pool_sum" %arena at "[[R]]" inplace "act2"
// REPORT:      // memory plan of @seed001:
// REPORT:      //   conv1_pad {{.*}} fresh: no buffer is dead yet
// REPORT:      //   conv2_pad {{.*}} 0  reuses the bytes of a dead buffer
// REPORT:      //   pool_sum {{.*}} in place of act2
