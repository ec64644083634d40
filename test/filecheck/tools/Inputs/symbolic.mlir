te.func @f(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %c = te.compute "C" (%i) : !te.tensor<["n"], f32> {
    %v = te.read %a[%i] : !te.tensor<["n"], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<["n"], f32>
}
