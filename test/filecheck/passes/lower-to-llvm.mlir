// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p lower-to-llvm | filecheck %s

// Buffers become noalias pointers, symbolic variables trailing i64 arguments;
// accesses are inbounds GEPs; index arithmetic is i64 with nsw; the function
// returns 0. Constants are made once, at the entry; the loop bound 0 + n is n.
loop.func @copy(%a: !loop.buffer<["n"], f32>, %b: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n {
    %v = loop.load %a[%i] : !loop.buffer<["n"], f32>
    loop.store %v, %b[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: llvm.func @copy(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias}, %n: i64) -> i32
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]](%c0 : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    %[[CMP:.*]] = llvm.icmp "slt" %i, %n : i64
// CHECK-NEXT:    llvm.cond_br %[[CMP]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[PA:.*]] = llvm.getelementptr inbounds %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %v = llvm.load %[[PA]] {alias_scopes = ["copy/a"], noalias_scopes = ["copy/b"]} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[PB:.*]] = llvm.getelementptr inbounds %b[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %v, %[[PB]] {alias_scopes = ["copy/b"], noalias_scopes = ["copy/a"]} : f32, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %i, %[[ONE]] overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]] : i64)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return %[[OK]] : i32

// -----

// An intermediate buffer is a 64-byte aligned block of the allocation site's
// workspace slot (kept between calls), given back before the return; its size is
// computed from the symbolic extent: 4 * n bytes, rounded up.
loop.func @alloc(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %t = loop.alloc "T" [%c0] : !loop.buffer<["n"], f32>
}
// CHECK-LABEL: llvm.func @alloc(%a: !llvm.ptr {llvm.noalias}, %n: i64) -> i32
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[SLOT:.*]] = llvm.mlir.addressof @compiler.workspace.alloc.0 : !llvm.ptr
// CHECK-NEXT:    %[[P:.*]] = llvm.call @compiler_workspace_acquire(%[[SLOT]], %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK:         llvm.call @compiler_workspace_release(%[[SLOT]], %[[P]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32
// CHECK:       llvm.mlir.global internal @compiler.workspace.alloc.0(0 : i64)
// CHECK:       llvm.func @compiler_workspace_acquire(!llvm.ptr, i64) -> !llvm.ptr
// CHECK:       llvm.func @compiler_workspace_release(!llvm.ptr, !llvm.ptr)

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
// CHECK:         %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.cond_br %ok, ^[[REST:.*]], ^[[FAIL1:.*]]
// CHECK:         llvm.cond_br %ok2, ^[[REST2:.*]], ^[[FAIL2:.*]]
// CHECK:       ^[[FAIL2]]:
// CHECK-NEXT:    llvm.return %[[TWO]] : i32
// CHECK-NEXT:  ^[[FAIL1]]:
// CHECK-NEXT:    llvm.return %[[ONE]] : i32

// -----

// A multi-dimensional buffer must be flattened first.
loop.func @not_flat(%a: !loop.buffer<[4, 4], f32>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %a[%c0, %c0] : !loop.buffer<[4, 4], f32>
}
// CHECK: lower-to-llvm.mlir:78:3: error: lower-to-llvm: loop.load of a 2-D buffer; run storage-flatten first

// -----

// Packed-API ops: packed.arg loads args[k]; packed.dltensor_get reads a
// DLTensor field at its byte offset (ndim at 16, the shape pointer at 24, then
// element k). A failing assert branches to one shared block with its code and
// values, which stores the values as i64 into the argument marked
// {packed.error_values}, unless it is NULL, and returns the code. packed.call passes buffer
// addresses as pointers and the variables in the callee's order (m, n: sorted
// from "n * m"), and forwards a failure of the callee as its code + 1.
loop.func @packed(%args: !llvm.ptr, %num_args: i32, %err: !llvm.ptr {packed.error_values}) {
  %t = packed.arg %args[1]
  %nd = packed.dltensor_get %t, ndim : i32
  %s2 = packed.dltensor_get %t, shape[2] : index
  %c0 = arith.constant 0 : index
  %ok = arith.cmpi sge, %s2, %c0 : index
  loop.assert %ok, "t.shape[2] is {0}, ndim {1}" (%s2, %nd : index, i32)
  packed.call @callee(%t) ["n" = %c0, "m" = %s2]
}
loop.func @callee(%a: !loop.buffer<["n * m"], f32>) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %ok = arith.cmpi sge, %n, %c0 : index
  loop.assert %ok, "callee check"
}
// CHECK-LABEL: llvm.func @packed(%args: !llvm.ptr, %num_args: i32, %err: !llvm.ptr {packed.error_values}) -> i32 {
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[SLOT:.*]] = llvm.getelementptr %args[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[TP:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %t = llvm.ptrtoint %[[TP]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[P:.*]] = llvm.inttoptr %t : i64 to !llvm.ptr
// CHECK-NEXT:    %[[F:.*]] = llvm.getelementptr %[[P]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %nd = llvm.load %[[F]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[P:.*]] = llvm.inttoptr %t : i64 to !llvm.ptr
// CHECK-NEXT:    %[[F:.*]] = llvm.getelementptr %[[P]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[SHAPE:.*]] = llvm.load %[[F]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[E:.*]] = llvm.getelementptr %[[SHAPE]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %s2 = llvm.load %[[E]] : !llvm.ptr -> i64
// CHECK-NEXT:    %ok = llvm.icmp "sge" %s2, %c0 : i64
// CHECK-NEXT:    %[[ND:.*]] = llvm.sext %nd : i32 to i64
// CHECK-NEXT:    llvm.cond_br %ok, ^[[CALL:.*]], ^[[REPORT:.*]](%[[ONE]], %s2, %[[ND]], %c0, %c0, %c0, %c0 : i32, i64, i64, i64, i64, i64, i64)
// CHECK-NEXT:  ^[[CALL]]:
// CHECK-NEXT:    %[[A:.*]] = llvm.inttoptr %t : i64 to !llvm.ptr
// CHECK-NEXT:    %[[RC:.*]] = llvm.call @callee(%[[A]], %s2, %c0) : (!llvm.ptr, i64, i64) -> i32
// CHECK:         llvm.cond_br %{{.*}}, ^[[DONE:.*]], ^[[FORWARD:.*]]
// CHECK:       ^[[FORWARD]]:
// CHECK-NEXT:    %[[FWD:.*]] = llvm.add %[[RC]], %[[ONE]] : i32
// CHECK-NEXT:    llvm.return %[[FWD]] : i32
// CHECK-NEXT:  ^[[REPORT]](%[[C:.*]]: i32, %[[V0:.*]]: i64, %[[V1:.*]]: i64, %[[V2:.*]]: i64, %[[V3:.*]]: i64, %[[V4:.*]]: i64, %[[V5:.*]]: i64):
// CHECK-NEXT:    %[[ADDR:.*]] = llvm.ptrtoint %err : !llvm.ptr to i64
// CHECK-NEXT:    %[[NULL:.*]] = llvm.icmp "eq" %[[ADDR]], %c0 : i64
// CHECK-NEXT:    llvm.cond_br %[[NULL]], ^[[RET:.*]], ^[[STORE:.*]]
// CHECK-NEXT:  ^[[STORE]]:
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr %err[0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[V0]], %[[S0]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[S1:.*]] = llvm.getelementptr %err[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[V1]], %[[S1]] : i64, !llvm.ptr
// CHECK:         llvm.br ^[[RET]]
// CHECK-NEXT:  ^[[RET]]:
// CHECK-NEXT:    llvm.return %[[C]] : i32
// CHECK:       llvm.func @callee(%a: !llvm.ptr {llvm.noalias}, %m: i64, %n: i64) -> i32 {

// -----

// A parallel loop becomes a GOMP_parallel call on an outlined body that
// reloads the captured values (bounds, buffers) from a context array and runs
// its thread's chunk of the iterations. It forks the module's thread count, but
// no more threads than iterations and at least one (one iteration, a decode
// step's symbolic length, runs in the calling thread); a count of 0 (a library
// the loader did not bind) is OpenMP's default, but for one iteration.
loop.func @par(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 parallel {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %v, %b[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @par(
// CHECK:         %[[CTX:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         %[[AT:.*]] = llvm.mlir.addressof @compiler_num_threads : !llvm.ptr
// CHECK-NEXT:    %[[COUNT32:.*]] = llvm.load %[[AT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.sext %[[COUNT32]] : i32 to i64
// CHECK-NEXT:    %[[MIN:.*]] = llvm.call_intrinsic "llvm.smin.i64"(%[[COUNT]], %c64) : (i64, i64) -> i64
// CHECK-NEXT:    %[[CAPPED:.*]] = llvm.call_intrinsic "llvm.smax.i64"(%[[MIN]], %[[ONE:.*]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[UNBOUND:.*]] = llvm.icmp "eq" %[[COUNT]], %c0 : i64
// CHECK-NEXT:    %[[SINGLE:.*]] = llvm.icmp "sle" %c64, %[[ONE]] : i64
// CHECK-NEXT:    %[[DEFAULT:.*]] = llvm.select %[[SINGLE]], %[[ONE]], %c0 : i1, i64
// CHECK-NEXT:    %[[TEAM64:.*]] = llvm.select %[[UNBOUND]], %[[DEFAULT]], %[[CAPPED]] : i1, i64
// CHECK-NEXT:    %[[TEAM:.*]] = llvm.trunc %[[TEAM64]] : i64 to i32
// CHECK:         %[[FN:.*]] = llvm.mlir.addressof @par_parallel0 : !llvm.ptr
// CHECK:         llvm.call @GOMP_parallel(%[[FN]], %[[CTX]], %[[TEAM]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK:       llvm.func @par_parallel0(%ctx: !llvm.ptr) -> i32
// CHECK:         llvm.call @omp_get_thread_num() : () -> i32
// CHECK:         llvm.call @omp_get_num_threads() : () -> i32
// CHECK:       llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)

// -----

// A callee whose checks report values gets a trailing error-values pointer; a
// caller without {packed.error_values} of its own passes NULL to it.
loop.func @caller(%args: !llvm.ptr, %num_args: i32) {
  %t = packed.arg %args[0]
  %c4 = arith.constant 4 : index
  packed.call @reporter(%t) ["n" = %c4]
}
loop.func @reporter(%a: !loop.buffer<["n"], f32>) {
  %n = loop.var "n" : index
  %c8 = arith.constant 8 : index
  %ok = arith.cmpi slt, %n, %c8 : index
  loop.assert %ok, "n is {0}" (%n : index)
}
// CHECK-LABEL: llvm.func @caller(%args: !llvm.ptr, %num_args: i32) -> i32 {
// CHECK:         %[[A:.*]] = llvm.inttoptr %t : i64 to !llvm.ptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.call @reporter(%[[A]], %c4, %[[NULL]]) : (!llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK:       llvm.func @reporter(%a: !llvm.ptr {llvm.noalias}, %n: i64, %error_values: !llvm.ptr) -> i32 {
