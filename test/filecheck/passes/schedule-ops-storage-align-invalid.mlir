// RUN: not compiler-opt %s -p 'default-pipeline{until=loop}' 2>&1 | filecheck %s
// A storage_align factor whose strides no 64-bit index can address is an error located
// at the stage (make fuzz seed 58: an unlocated !loop.buffer verifier error).
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
// CHECK: schedule-ops-storage-align-invalid.mlir:[[# @LINE - 10]]:3: error: schedule-ops: stage "B"'s sched.storage_align: !loop.buffer strides: shape [9223372036854775809, 1] is larger than a 64-bit index can address
sched.schedule @storage_align {
  %i = sched.axis "B" 0
  sched.storage_align %i factor 9223372036854775808 offset 1 : !sched.iter<"B">
}
