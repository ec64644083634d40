te.func @strided(%x: !te.tensor<[1, 2, 8, 8], f32>, %w: !te.tensor<[2, 2, 3, 3], f32>) -> !te.tensor<[1, 2, 4, 4], f32> {
  %y = te.compute "y" (%n, %c, %h, %w_1) : !te.tensor<[1, 2, 8, 8], f32> {
    %0 = te.read %x[%n, %c, %h, %w_1] : !te.tensor<[1, 2, 8, 8], f32>
    %1 = arith.constant 1.000000e+00 : f32
    %2 = arith.addf %0, %1 : f32
    te.yield %2 : f32
  }
  %z_pad = te.compute "z_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 10, 10], f32> {
    %3 = arith.constant 1 : index
    %4 = arith.cmpi sge, %ax2, %3 : index
    %5 = arith.constant 9 : index
    %6 = arith.cmpi slt, %ax2, %5 : index
    %7 = arith.constant 1 : index
    %8 = arith.cmpi sge, %ax3, %7 : index
    %9 = arith.constant 9 : index
    %10 = arith.cmpi slt, %ax3, %9 : index
    %11 = arith.andi %4, %6 : i1
    %12 = arith.andi %11, %8 : i1
    %13 = arith.andi %12, %10 : i1
    %14 = scf.if %13 -> (f32) {
      %15 = arith.constant 0 : index
      %16 = arith.subi %ax0, %15 : index
      %17 = arith.constant 0 : index
      %18 = arith.subi %ax1, %17 : index
      %19 = arith.constant 1 : index
      %20 = arith.subi %ax2, %19 : index
      %21 = arith.constant 1 : index
      %22 = arith.subi %ax3, %21 : index
      %23 = te.read %y[%16, %18, %20, %22] : !te.tensor<[1, 2, 8, 8], f32>
      scf.yield %23 : f32
    } else {
      %24 = arith.constant 0.000000e+00 : f32
      scf.yield %24 : f32
    }{te.likely}
    te.yield %14 : f32
  }
  %z = te.compute "z" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 2, 4, 4], f32> {
    %25 = te.reduce sum (%rc, %ry, %rx) in [2, 3, 3] : f32 {
      %26 = arith.constant 2 : index
      %27 = arith.muli %yy, %26 : index
      %28 = arith.constant 1 : index
      %29 = arith.muli %ry, %28 : index
      %30 = arith.divsi %27, %29 : index
      %31 = arith.constant 2 : index
      %32 = arith.muli %xx, %31 : index
      %33 = arith.constant 1 : index
      %34 = arith.muli %rx, %33 : index
      %35 = arith.addi %32, %34 : index
      %36 = te.read %z_pad[%nn, %rc, %30, %35] : !te.tensor<[1, 2, 10, 10], f32>
      %37 = te.read %w[%ff, %rc, %ry, %rx] : !te.tensor<[2, 2, 3, 3], f32>
      %38 = arith.mulf %36, %37 : f32
      te.yield %38 : f32
    }
    te.yield %25 : f32
  }
  te.return %z : !te.tensor<[1, 2, 4, 4], f32>
}
