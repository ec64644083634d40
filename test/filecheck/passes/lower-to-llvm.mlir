// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p lower-to-llvm | filecheck %s

// Buffers become noalias pointers, symbolic variables trailing i64 arguments;
// accesses are inbounds GEPs; index arithmetic is i64 with nsw; the function
// returns 0.
loop.func @copy(%a: !loop.buffer<["n"], f32>, %b: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n {
    %v = loop.load %a[%i] : !loop.buffer<["n"], f32>
    loop.store %v, %b[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: llvm.func @copy(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias}, %n: i64) -> i32
// CHECK:         %[[UB:.*]] = llvm.add %c0, %n overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]](%c0 : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    %[[CMP:.*]] = llvm.icmp "slt" %i, %[[UB]] : i64
// CHECK-NEXT:    llvm.cond_br %[[CMP]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[PA:.*]] = llvm.getelementptr inbounds %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %v = llvm.load %[[PA]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[PB:.*]] = llvm.getelementptr inbounds %b[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %v, %[[PB]] : f32, !llvm.ptr
// CHECK:       ^[[EXIT]]:
// CHECK-NEXT:    %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.return %[[OK]] : i32

// -----

// An intermediate buffer is a 64-byte aligned allocation, freed before the
// return; its size is computed from the symbolic extent: 4 * n bytes, rounded up.
loop.func @alloc(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %t = loop.alloc "T" [%c0] : !loop.buffer<["n"], f32>
}
// CHECK-LABEL: llvm.func @alloc(%a: !llvm.ptr {llvm.noalias}, %n: i64) -> i32
// CHECK:         %[[P:.*]] = llvm.call @aligned_alloc(%{{.*}}, %{{.*}}) : (i64, i64) -> !llvm.ptr
// CHECK:         llvm.call @free(%[[P]]) : (!llvm.ptr) -> ()
// CHECK:       llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK:       llvm.func @free(!llvm.ptr)

// -----

// A failing assert returns its 1-based index; the second assert returns 2.
loop.func @asserts(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ok = arith.cmpi eq, %c0, %c0 : index
  loop.assert %ok, "first"
  %ok2 = arith.cmpi eq, %c0, %c1 : index
  loop.assert %ok2, "second"
}
// CHECK-LABEL: llvm.func @asserts(%a: !llvm.ptr {llvm.noalias}) -> i32
// CHECK:         llvm.cond_br %ok, ^[[REST:.*]], ^[[FAIL1:.*]]
// CHECK:         llvm.cond_br %ok2, ^[[REST2:.*]], ^[[FAIL2:.*]]
// CHECK:       ^[[FAIL2]]:
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.return %[[TWO]] : i32
// CHECK:       ^[[FAIL1]]:
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.return %[[ONE]] : i32

// -----

// A multi-dimensional buffer must be flattened first.
loop.func @not_flat(%a: !loop.buffer<[4, 4], f32>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %a[%c0, %c0] : !loop.buffer<[4, 4], f32>
}
// CHECK: lower-to-llvm: loop.load of a 2-D buffer; run storage-flatten first
