// RUN: compiler-opt %s --split-input-file -p storage-flatten | filecheck %s

// Static 2-D buffers: row-major, i * 16 + j.
loop.func @static(%a: !loop.buffer<[4, 16], f32>, %b: !loop.buffer<[4, 16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for %i = %c0 extent %c4 {
    loop.for %j = %c0 extent %c16 {
      %v = loop.load %a[%i, %j] : !loop.buffer<[4, 16], f32>
      loop.store %v, %b[%i, %j] : !loop.buffer<[4, 16], f32>
    }
  }
}
// CHECK-LABEL: loop.func @static(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
// CHECK:         loop.for %j
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[MUL:.*]] = arith.muli %i, %[[C16]] : index
// CHECK-NEXT:    %[[IDX:.*]] = arith.addi %[[MUL]], %j : index
// CHECK-NEXT:    %v = loop.load %a[%[[IDX]]] : !loop.buffer<[64], f32>
// CHECK:         loop.store %v, %b[%{{.*}}] : !loop.buffer<[64], f32>

// -----

// Symbolic shapes: the size is the product "h * w", the stride of i is w.
loop.func @symbolic(%a: !loop.buffer<["h", "w"], f32>, %b: !loop.buffer<["h", "w"], f32> {loop.output}) {
  %h = loop.var "h" : index
  %w = loop.var "w" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %h {
    loop.for %j = %c0 extent %w {
      %v = loop.load %a[%i, %j] : !loop.buffer<["h", "w"], f32>
      loop.store %v, %b[%i, %j] : !loop.buffer<["h", "w"], f32>
    }
  }
}
// CHECK-LABEL: loop.func @symbolic(%a: !loop.buffer<["h * w"], f32>, %b: !loop.buffer<["h * w"], f32> {loop.output}) {
// CHECK:         %[[MUL:.*]] = arith.muli %i, %w : index
// CHECK-NEXT:    %[[IDX:.*]] = arith.addi %[[MUL]], %j : index
// CHECK-NEXT:    %v = loop.load %a[%[[IDX]]] : !loop.buffer<["h * w"], f32>

// -----

// A buffer realized over [1, 4) x [2, 18): the mins move into the index and
// the flat buffer starts at 0: (i - 1) * 16 + (j - 2) = i * 16 + j - 18.
loop.func @realized(%a: !loop.buffer<[4, 16], f32> {loop.output}) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %t = loop.alloc "T" [%c1, %c2] : !loop.buffer<[3, 16], f32>
  loop.for %i = %c1 extent %c3 {
    loop.for %j = %c2 extent %c16 {
      %z = arith.constant 0.0 : f32
      loop.store %z, %t[%i, %j] : !loop.buffer<[3, 16], f32>
    }
  }
}
// CHECK-LABEL: loop.func @realized(
// CHECK:         %t = loop.alloc "T" [%{{.*}}] : !loop.buffer<[48], f32>
// CHECK:         %z = arith.constant
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[MUL:.*]] = arith.muli %i, %[[C16]] : index
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[MUL]], %j : index
// CHECK-NEXT:    %[[C18:.*]] = arith.constant 18 : index
// CHECK-NEXT:    %[[IDX:.*]] = arith.subi %[[SUM]], %[[C18]] : index
// CHECK-NEXT:    loop.store %z, %t[%[[IDX]]] : !loop.buffer<[48], f32>
