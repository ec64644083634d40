te.func @f(%a: !te.tensor<[4, 4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %v = te.read %a[%i] : !te.tensor<[4, 4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
