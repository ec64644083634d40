// B = A * 2 over a symbolic n x 4: the calling-convention page runs make-packed-api on it.
te.func @scale(%A: !te.tensor<["n", 4], f32>) -> !te.tensor<["n", 4], f32> {
  %B = te.compute "B" (%i, %j) : !te.tensor<["n", 4], f32> {
    %a = te.read %A[%i, %j] : !te.tensor<["n", 4], f32>
    %two = arith.constant 2.0 : f32
    %b = arith.mulf %a, %two : f32
    te.yield %b : f32
  }
  te.return %B : !te.tensor<["n", 4], f32>
}
