// RUN: compiler-opt %s --split-input-file -p schedule-ops | filecheck %s

// An elementwise stage over a symbolic shape: one loop per axis, from 0 to the
// extent, the input and output tensors become buffer arguments.
te.func @elementwise(%a: !te.tensor<["n", 4], f32>) -> !te.tensor<["n", 4], f32> {
  %b = te.compute "B" (%i, %j) : !te.tensor<["n", 4], f32> {
    %v = te.read %a[%i, %j] : !te.tensor<["n", 4], f32>
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    te.yield %m : f32
  }
  te.return %b : !te.tensor<["n", 4], f32>
}
// CHECK-LABEL: loop.func @elementwise(%a: !loop.buffer<["n", 4], f32>, %B: !loop.buffer<["n", 4], f32> {loop.output}) {
// CHECK-NEXT:    %n = loop.var "n" : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    loop.for %B_i = %[[Z]] extent %n {
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      loop.for %B_j = %[[Z2]] extent %[[FOUR]] {
// CHECK-NEXT:        %v = loop.load %a[%B_i, %B_j] : !loop.buffer<["n", 4], f32>
// CHECK-NEXT:        %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:        %m = arith.mulf %v, %two : f32
// CHECK-NEXT:        loop.store %m, %B[%B_i, %B_j] : !loop.buffer<["n", 4], f32>

// -----

// An intermediate stage is realized with loop.alloc over its full shape; a
// reduction accumulates in a local (register) accumulator over the reduce
// axes and stores the element once.
te.func @intermediate(%a: !te.tensor<[8, 3], f32>) -> !te.tensor<[8], f32> {
  %s = te.compute "S" (%i) : !te.tensor<[8], f32> {
    %r = te.reduce sum (%k) in [3] : f32 {
      %v = te.read %a[%i, %k] : !te.tensor<[8, 3], f32>
      te.yield %v : f32
    }
    te.yield %r : f32
  }
  %t = te.compute "T" (%i) : !te.tensor<[8], f32> {
    %v = te.read %s[%i] : !te.tensor<[8], f32>
    %e = math.exp %v : f32
    te.yield %e : f32
  }
  te.return %t : !te.tensor<[8], f32>
}
// CHECK-LABEL: loop.func @intermediate(%a: !loop.buffer<[8, 3], f32>, %T: !loop.buffer<[8], f32> {loop.output}) {
// CHECK:         %S = loop.alloc "S" [%{{.*}}] : !loop.buffer<[8], f32>
// CHECK:         loop.for %S_i = %{{.*}} extent %{{.*}} {
// CHECK:           %S_acc = loop.alloc local "S.acc" [%{{.*}}] : !loop.buffer<[1], f32>
// CHECK-NEXT:      %[[INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      loop.store %[[INIT]], %S_acc[%{{.*}}] : !loop.buffer<[1], f32>
// CHECK:           loop.for %S_k = %{{.*}} extent %{{.*}} {
// CHECK-NEXT:        %v = loop.load %a[%S_i, %S_k] : !loop.buffer<[8, 3], f32>
// CHECK:             %[[ACC:.*]] = loop.load %S_acc[%{{.*}}] : !loop.buffer<[1], f32>
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[ACC]], %v : f32
// CHECK-NEXT:        loop.store %[[SUM]], %S_acc[%{{.*}}] : !loop.buffer<[1], f32>
// CHECK-NEXT:      }
// CHECK:           %[[RESULT:.*]] = loop.load %S_acc[%{{.*}}] : !loop.buffer<[1], f32>
// CHECK-NEXT:      loop.store %[[RESULT]], %S[%S_i] : !loop.buffer<[8], f32>
// CHECK:         loop.for %T_i = %{{.*}} extent %{{.*}} {
// CHECK-NEXT:      %v_1 = loop.load %S[%T_i] : !loop.buffer<[8], f32>
// CHECK-NEXT:      %e = math.exp %v_1 : f32
// CHECK-NEXT:      loop.store %e, %T[%T_i] : !loop.buffer<[8], f32>

// -----

// A lazy if_then_else (scf.if) keeps its read inside the taken branch; a
// symbolic output extent "n + 2" becomes index arithmetic on loop.var.
te.func @pad(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n + 2"], f32> {
  %p = te.compute "P" (%i) : !te.tensor<["n + 2"], f32> {
    %n = te.var "n" : index
    %c1 = arith.constant 1 : index
    %lo = arith.cmpi sge, %i, %c1 : index
    %np1 = arith.addi %n, %c1 : index
    %hi = arith.cmpi slt, %i, %np1 : index
    %ok = arith.andi %lo, %hi : i1
    %v = scf.if %ok -> (f32) {
      %im1 = arith.subi %i, %c1 : index
      %x = te.read %a[%im1] : !te.tensor<["n"], f32>
      scf.yield %x : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    te.yield %v : f32
  }
  te.return %p : !te.tensor<["n + 2"], f32>
}
// CHECK-LABEL: loop.func @pad(%a: !loop.buffer<["n"], f32>, %P: !loop.buffer<["n + 2"], f32> {loop.output}) {
// CHECK-NEXT:    %n = loop.var "n" : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[EXT:.*]] = arith.addi %n, %[[TWO]] : index
// CHECK-NEXT:    loop.for %P_i = %[[Z]] extent %[[EXT]] {
// CHECK:           %v = scf.if %ok -> (f32) {
// CHECK-NEXT:        %im1 = arith.subi %P_i, %c1 : index
// CHECK-NEXT:        %x = loop.load %a[%im1] : !loop.buffer<["n"], f32>
// CHECK-NEXT:        scf.yield %x : f32
// CHECK:           loop.store %v, %P[%P_i] : !loop.buffer<["n + 2"], f32>

// -----

// Unsigned tensors (te.dtype) keep their dtype on the loop.func arguments, for
// make-packed-api's type check; the elements are signless i8.
te.func @unsigned(%x: !te.tensor<[8], i8> {te.dtype = "uint8"}) -> (!te.tensor<[8], i8> {te.dtype = "uint8"}) {
  %y = te.compute "y" (%i) : !te.tensor<[8], i8> {
    %0 = te.read %x[%i] : !te.tensor<[8], i8>
    te.yield %0 : i8
  }
  te.return %y : !te.tensor<[8], i8>
}
// CHECK-LABEL: loop.func @unsigned
// CHECK-SAME: %x: !loop.buffer<[8], i8> {loop.dtype = "uint8"}
// CHECK-SAME: %y: !loop.buffer<[8], i8> {loop.output, loop.dtype = "uint8"}
