// seed 000: three convolutions of x (1x64x56x56): a 1x1 conv y1, then two padded 3x3 convs y2, y3.
// Printed by compiler.lower([x, w1, w2, w3, y3], until="te") (the conv-chain tutorial builds it in Python).
te.func @main(%x: !te.tensor<[1, 64, 56, 56], f32>, %w1: !te.tensor<[64, 64, 1, 1], f32>, %w2: !te.tensor<[64, 64, 3, 3], f32>, %w3: !te.tensor<[64, 64, 3, 3], f32>) -> !te.tensor<[1, 64, 56, 56], f32> {
  %y1 = te.compute "y1" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 64, 56, 56], f32> {
    %0 = te.reduce sum (%rc, %ry, %rx) in [64, 1, 1] : f32 {
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
      %11 = te.read %x[%nn, %rc, %5, %10] : !te.tensor<[1, 64, 56, 56], f32>
      %12 = te.read %w1[%ff, %rc, %ry, %rx] : !te.tensor<[64, 64, 1, 1], f32>
      %13 = arith.mulf %11, %12 : f32
      te.yield %13 : f32
    }
    te.yield %0 : f32
  }
  %y2_pad = te.compute "y2_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 64, 58, 58], f32> {
    %14 = arith.constant 1 : index
    %15 = arith.cmpi sge, %ax2, %14 : index
    %16 = arith.constant 57 : index
    %17 = arith.cmpi slt, %ax2, %16 : index
    %18 = arith.constant 1 : index
    %19 = arith.cmpi sge, %ax3, %18 : index
    %20 = arith.constant 57 : index
    %21 = arith.cmpi slt, %ax3, %20 : index
    %22 = arith.andi %15, %17 : i1
    %23 = arith.andi %22, %19 : i1
    %24 = arith.andi %23, %21 : i1
    %25 = scf.if %24 -> (f32) {
      %26 = arith.constant 0 : index
      %27 = arith.subi %ax0, %26 : index
      %28 = arith.constant 0 : index
      %29 = arith.subi %ax1, %28 : index
      %30 = arith.constant 1 : index
      %31 = arith.subi %ax2, %30 : index
      %32 = arith.constant 1 : index
      %33 = arith.subi %ax3, %32 : index
      %34 = te.read %y1[%27, %29, %31, %33] : !te.tensor<[1, 64, 56, 56], f32>
      scf.yield %34 : f32
    } else {
      %35 = arith.constant 0.000000e+00 : f32
      scf.yield %35 : f32
    }{te.likely}
    te.yield %25 : f32
  }
  %y2 = te.compute "y2" (%nn_1, %ff_1, %yy_1, %xx_1) : !te.tensor<[1, 64, 56, 56], f32> {
    %36 = te.reduce sum (%rc_1, %ry_1, %rx_1) in [64, 3, 3] : f32 {
      %37 = arith.constant 1 : index
      %38 = arith.muli %yy_1, %37 : index
      %39 = arith.constant 1 : index
      %40 = arith.muli %ry_1, %39 : index
      %41 = arith.addi %38, %40 : index
      %42 = arith.constant 1 : index
      %43 = arith.muli %xx_1, %42 : index
      %44 = arith.constant 1 : index
      %45 = arith.muli %rx_1, %44 : index
      %46 = arith.addi %43, %45 : index
      %47 = te.read %y2_pad[%nn_1, %rc_1, %41, %46] : !te.tensor<[1, 64, 58, 58], f32>
      %48 = te.read %w2[%ff_1, %rc_1, %ry_1, %rx_1] : !te.tensor<[64, 64, 3, 3], f32>
      %49 = arith.mulf %47, %48 : f32
      te.yield %49 : f32
    }
    te.yield %36 : f32
  }
  %y3_pad = te.compute "y3_pad" (%ax0_1, %ax1_1, %ax2_1, %ax3_1) : !te.tensor<[1, 64, 58, 58], f32> {
    %50 = arith.constant 1 : index
    %51 = arith.cmpi sge, %ax2_1, %50 : index
    %52 = arith.constant 57 : index
    %53 = arith.cmpi slt, %ax2_1, %52 : index
    %54 = arith.constant 1 : index
    %55 = arith.cmpi sge, %ax3_1, %54 : index
    %56 = arith.constant 57 : index
    %57 = arith.cmpi slt, %ax3_1, %56 : index
    %58 = arith.andi %51, %53 : i1
    %59 = arith.andi %58, %55 : i1
    %60 = arith.andi %59, %57 : i1
    %61 = scf.if %60 -> (f32) {
      %62 = arith.constant 0 : index
      %63 = arith.subi %ax0_1, %62 : index
      %64 = arith.constant 0 : index
      %65 = arith.subi %ax1_1, %64 : index
      %66 = arith.constant 1 : index
      %67 = arith.subi %ax2_1, %66 : index
      %68 = arith.constant 1 : index
      %69 = arith.subi %ax3_1, %68 : index
      %70 = te.read %y2[%63, %65, %67, %69] : !te.tensor<[1, 64, 56, 56], f32>
      scf.yield %70 : f32
    } else {
      %71 = arith.constant 0.000000e+00 : f32
      scf.yield %71 : f32
    }{te.likely}
    te.yield %61 : f32
  }
  %y3 = te.compute "y3" (%nn_2, %ff_2, %yy_2, %xx_2) : !te.tensor<[1, 64, 56, 56], f32> {
    %72 = te.reduce sum (%rc_2, %ry_2, %rx_2) in [64, 3, 3] : f32 {
      %73 = arith.constant 1 : index
      %74 = arith.muli %yy_2, %73 : index
      %75 = arith.constant 1 : index
      %76 = arith.muli %ry_2, %75 : index
      %77 = arith.addi %74, %76 : index
      %78 = arith.constant 1 : index
      %79 = arith.muli %xx_2, %78 : index
      %80 = arith.constant 1 : index
      %81 = arith.muli %rx_2, %80 : index
      %82 = arith.addi %79, %81 : index
      %83 = te.read %y3_pad[%nn_2, %rc_2, %77, %82] : !te.tensor<[1, 64, 58, 58], f32>
      %84 = te.read %w3[%ff_2, %rc_2, %ry_2, %rx_2] : !te.tensor<[64, 64, 3, 3], f32>
      %85 = arith.mulf %83, %84 : f32
      te.yield %85 : f32
    }
    te.yield %72 : f32
  }
  te.return %y3 : !te.tensor<[1, 64, 56, 56], f32>
}
