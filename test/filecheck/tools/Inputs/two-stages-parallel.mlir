te.func @two_stages(%A: !te.tensor<[8, 8], f32>) -> !te.tensor<[8, 8], f32> {
  %b = te.compute "B" (%i, %j) : !te.tensor<[8, 8], f32> {
    %x = te.read %A[%i, %j] : !te.tensor<[8, 8], f32>
    te.yield %x : f32
  }
  te.return %b : !te.tensor<[8, 8], f32>
}
sched.schedule @two_stages {
  %i = sched.axis "B" 0
  sched.parallel %i : !sched.iter<"B">
}
