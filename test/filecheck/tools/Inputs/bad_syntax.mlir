te.func @f(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> [
  }
}
