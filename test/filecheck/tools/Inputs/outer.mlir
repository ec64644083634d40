te.func @outer(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %p = te.compute "P" (%i, %j) : !te.tensor<["n", "n"], f32> {
    %x = te.read %a[%i] : !te.tensor<["n"], f32>
    %y = te.read %a[%j] : !te.tensor<["n"], f32>
    %m = arith.mulf %x, %y : f32
    te.yield %m : f32
  }
  %r = te.compute "R" (%i) : !te.tensor<["n"], f32> {
    %s = te.reduce sum (%k) in ["n"] : f32 {
      %v = te.read %p[%i, %k] : !te.tensor<["n", "n"], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %r : !te.tensor<["n"], f32>
}
