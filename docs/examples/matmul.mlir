// C = A @ B over 256 x 256 float32 matrices, without a schedule: the auto-scheduling
// page runs auto-schedule on it for a pinned target.
te.func @matmul(%A: !te.tensor<[256, 256], f32>, %B: !te.tensor<[256, 256], f32>) -> !te.tensor<[256, 256], f32> {
  %C = te.compute "C" (%i, %j) : !te.tensor<[256, 256], f32> {
    %s = te.reduce sum (%k) in [256] : f32 {
      %a = te.read %A[%i, %k] : !te.tensor<[256, 256], f32>
      %b = te.read %B[%k, %j] : !te.tensor<[256, 256], f32>
      %p = arith.mulf %a, %b : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %C : !te.tensor<[256, 256], f32>
}
