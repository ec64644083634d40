te.func @storage_align(%A: !te.tensor<[8, 8], f32>) -> !te.tensor<[8, 8], f32> {
  %b = te.compute "B" (%i, %j) : !te.tensor<[8, 8], f32> {
    %x = te.read %A[%i, %j] : !te.tensor<[8, 8], f32>
    te.yield %x : f32
  }
  %c = te.compute "C" (%i, %j) : !te.tensor<[8, 8], f32> {
    %x = te.read %b[%j, %i] : !te.tensor<[8, 8], f32>
    te.yield %x : f32
  }
  te.return %c : !te.tensor<[8, 8], f32>
}
sched.schedule @storage_align {
  %i = sched.axis "B" 0
  sched.storage_align %i factor 16 offset 1 : !sched.iter<"B">
}
