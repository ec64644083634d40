// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p make-packed-api | filecheck %s
// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p 'make-packed-api{strided=A}' | filecheck %s --check-prefix=OPTION

// Static shapes: every field is checked against a constant, in order (count,
// handle, ndim, dtype, device, shape, strides if not NULL, data, alignment),
// then the output must not overlap the input; no variable is bound.
loop.func @static(%A: !loop.buffer<[4, 3], f32>, %B: !loop.buffer<[4, 3], f32> {loop.output}) {
}
// CHECK-LABEL: loop.func @static(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
// CHECK:         loop.assert %{{.*}}, "static() takes 2 arrays (A, B), got {0}" (%num_args : i32) raises "TypeError"
// CHECK-NEXT:    %A_tensor = packed.arg %args[0]
// CHECK:         loop.assert %{{.*}}, "static: argument A is NULL, expected a DLTensor*" raises "TypeError"
// CHECK-NEXT:    %A_ndim = packed.dltensor_get %A_tensor, ndim : i32
// CHECK:         loop.assert %{{.*}}, "static: A.ndim is {0}, expected 2" (%A_ndim : i32)
// CHECK-NEXT:    %A_dtype = packed.dltensor_get %A_tensor, dtype : i32
// CHECK-NEXT:    %[[F32:.*]] = arith.constant 73730 : i32
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %A_dtype, %[[F32]] : i32
// CHECK-NEXT:    loop.assert %[[OK]], "static: A.dtype is {0:dtype}, expected float32" (%A_dtype : i32) raises "TypeError"
// CHECK-NEXT:    %A_device_type = packed.dltensor_get %A_tensor, device_type : i32
// CHECK:         loop.assert %{{.*}}, "static: A.device_type is {0:device}, expected cpu (device_type 1)" (%A_device_type : i32)
// CHECK-NEXT:    %A_shape = packed.dltensor_get %A_tensor, shape : index
// CHECK:         loop.assert %{{.*}}, "static: A.shape is NULL for a 2-D tensor"
// CHECK-NEXT:    %A_shape0 = packed.dltensor_get %A_tensor, shape[0] : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %A_shape0, %[[C4]] : index
// CHECK-NEXT:    loop.assert %[[OK]], "static: A.shape[0] is {0}, expected 4" (%A_shape0 : index)
// CHECK-NEXT:    %A_shape1 = packed.dltensor_get %A_tensor, shape[1] : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK:         loop.assert %{{.*}}, "static: A.shape[1] is {0}, expected 3" (%A_shape1 : index)
// Strides: NULL or compact (3, 1); static sizes are not 1, so no size-1 exemption.
// Inside the `loop.if`, the constants made outside are reused.
// CHECK-NEXT:    %A_strides = packed.dltensor_get %A_tensor, strides : index
// CHECK-NEXT:    %[[HAS:.*]] = arith.cmpi ne, %A_strides, %{{.*}} : index
// CHECK-NEXT:    loop.if %[[HAS]] {
// CHECK-NEXT:      %A_stride0 = packed.dltensor_get %A_tensor, strides[0] : index
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi eq, %A_stride0, %[[C3]] : index
// CHECK-NEXT:      loop.assert %[[OK]], "static: A.strides[0] is {0}, expected {1} (strides count elements): A is not C-contiguous, and static takes A compact (row-major)" (%A_stride0, %[[C3]] : index, index)
// CHECK-NEXT:      %A_stride1 = packed.dltensor_get %A_tensor, strides[1] : index
// CHECK:           loop.assert %{{.*}}, "static: A.strides[1] is {0}, expected {1} {{.*}}" (%A_stride1, %{{.*}} : index, index)
// CHECK-NEXT:    }
// CHECK-NEXT:    %A_data = packed.dltensor_get %A_tensor, data : index
// CHECK-NEXT:    %A_byte_offset = packed.dltensor_get %A_tensor, byte_offset : index
// CHECK-NEXT:    %A = arith.addi %A_data, %A_byte_offset : index
// CHECK:         loop.assert %{{.*}}, "static: A.data is NULL, but A has {0} elements" (%{{.*}} : index)
// CHECK-NEXT:    %[[REM:.*]] = arith.remui %A, %[[C4]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK-NEXT:    loop.assert %[[OK]], "static: A.data + A.byte_offset = {0:#x} is not a multiple of 4 bytes, the alignment of float32" (%A : index)
// CHECK-NEXT:    %B_tensor = packed.arg %args[1]
// CHECK:         loop.assert %{{.*}}, "static: B.shape[1] is {0}, expected 3" (%B_shape1 : index)
// Overlap: a stack table of each argument's byte span [lo, hi) and position, the
// outputs' rows first (B at position 1, then A at 0); a loop over the outputs'
// rows checks each against every later row (code linear in the arguments).
// CHECK:         %spans = loop.alloc local "arg_spans" [%[[C0:.*]], %[[C0]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:    %[[C48:.*]] = arith.constant 48 : index
// CHECK-NEXT:    %[[B_END:.*]] = arith.addi %B, %[[C48]] : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[B_LO:.*]] = arith.index_cast %B : index to i64
// CHECK-NEXT:    loop.store %[[B_LO]], %spans[%[[C0]], %[[C0]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:    %[[B_HI:.*]] = arith.index_cast %[[B_END]] : index to i64
// CHECK-NEXT:    loop.store %[[B_HI]], %spans[%[[C0]], %[[C1]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[B_POS:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    loop.store %[[B_POS]], %spans[%[[C0]], %[[C2]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:    %[[A_END:.*]] = arith.addi %A, %[[C48]] : index
// CHECK-NEXT:    %[[A_LO:.*]] = arith.index_cast %A : index to i64
// CHECK-NEXT:    loop.store %[[A_LO]], %spans[%[[C1]], %[[C0]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:    %[[A_HI:.*]] = arith.index_cast %[[A_END]] : index to i64
// CHECK-NEXT:    loop.store %[[A_HI]], %spans[%[[C1]], %[[C1]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:    %[[A_POS:.*]] = arith.index_cast %[[C0]] : index to i64
// CHECK-NEXT:    loop.store %[[A_POS]], %spans[%[[C1]], %[[C2]]] : !loop.buffer<[2, 3], i64>
// One output row: i in [0, 1); j in [i + 1, 2), an extent of 2 - 1 - i.
// CHECK-NEXT:    loop.for %[[I:.*]] = %[[C0]] extent %[[C1]] {
// CHECK-NEXT:      %[[O_LO:.*]] = loop.load %spans[%[[I]], %[[C0]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:      %[[O_HI:.*]] = loop.load %spans[%[[I]], %[[C1]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:      %[[O_POS:.*]] = loop.load %spans[%[[I]], %[[C2]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:      %[[AFTER:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[C1]], %[[I]] : index
// CHECK-NEXT:      loop.for %[[J:.*]] = %[[AFTER]] extent %[[REST]] {
// CHECK-NEXT:        %[[X_LO:.*]] = loop.load %spans[%[[J]], %[[C0]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:        %[[X_HI:.*]] = loop.load %spans[%[[J]], %[[C1]]] : !loop.buffer<[2, 3], i64>
// CHECK-NEXT:        %[[X_POS:.*]] = loop.load %spans[%[[J]], %[[C2]]] : !loop.buffer<[2, 3], i64>
// Disjoint: an empty span on either side, or one ends before the other starts.
// CHECK-NEXT:        %[[E0:.*]] = arith.cmpi sle, %[[O_HI]], %[[O_LO]] : i64
// CHECK-NEXT:        %[[E1:.*]] = arith.cmpi sle, %[[X_HI]], %[[X_LO]] : i64
// CHECK-NEXT:        %[[E2:.*]] = arith.cmpi sle, %[[O_HI]], %[[X_LO]] : i64
// CHECK-NEXT:        %[[E3:.*]] = arith.cmpi sle, %[[X_HI]], %[[O_LO]] : i64
// CHECK-NEXT:        %[[E01:.*]] = arith.ori %[[E0]], %[[E1]] : i1
// CHECK-NEXT:        %[[E23:.*]] = arith.ori %[[E2]], %[[E3]] : i1
// CHECK-NEXT:        %[[OK:.*]] = arith.ori %[[E01]], %[[E23]] : i1
// CHECK-NEXT:        loop.assert %[[OK]], "static: output {0:arg} overlaps {1:arg} in memory ([{2:#x}, {3:#x}) and [{4:#x}, {5:#x})), but static assumes its arguments do not alias" (%[[O_POS]], %[[X_POS]], %[[O_LO]], %[[O_HI]], %[[X_LO]], %[[X_HI]] : i64, i64, i64, i64, i64, i64)
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    packed.call @static_compute(%A, %B) []
// CHECK-NEXT:  }
// CHECK-NEXT:  loop.func @static_compute(%A: !loop.buffer<[4, 3], f32>, %B: !loop.buffer<[4, 3], f32> {loop.output}) {

// -----

// A symbolic shape: n is bound at its first occurrence, A.shape[0], checked
// non-negative, and every later occurrence is checked against it with a
// message that says where n was bound. The stride of a symbolic dimension is
// exempt when its size is 1.
loop.func @symbolic(%A: !loop.buffer<["n", 4], f32>, %B: !loop.buffer<["n", 4], f32> {loop.output}) {
  %n = loop.var "n" : index
}
// CHECK-LABEL: loop.func @symbolic(
// CHECK:         %n = packed.dltensor_get %A_tensor, shape[0] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi sle, %{{.*}}, %n : index
// CHECK-NEXT:    loop.assert %[[OK]], "symbolic: A.shape[0] is {0}, expected a size >= 0 (it binds n)" (%n : index)
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %A_stride0 = packed.dltensor_get %A_tensor, strides[0] : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[UNIT:.*]] = arith.cmpi eq, %n, %[[C1]] : index
// CHECK-NEXT:    %[[EQ:.*]] = arith.cmpi eq, %A_stride0, %[[C4]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.ori %[[UNIT]], %[[EQ]] : i1
// CHECK-NEXT:    loop.assert %[[OK]], "symbolic: A.strides[0] is {0}, expected {1} {{.*}}" (%A_stride0, %[[C4]] : index, index)
// CHECK:         %B_shape0 = packed.dltensor_get %B_tensor, shape[0] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %B_shape0, %n : index
// CHECK-NEXT:    loop.assert %[[OK]], "symbolic: B.shape[0] is {0}, expected n = {1} (n bound from A.shape[0])" (%B_shape0, %n : index, index)
// CHECK:         packed.call @symbolic_compute(%A, %B) ["n" = %n]
// CHECK:       loop.func @symbolic_compute(
// CHECK-NEXT:    %n = loop.var "n" : index

// -----

// A declared range (`shape_bounds`, what te.var(lower=, upper=) and from_torch's
// dimensions give): the binding checks it, not just >= 0, since passes prove with it.
// A variable the attribute does not list keeps the size check.
loop.func @ranged(%A: !loop.buffer<["n", "m"], f32>, %B: !loop.buffer<["n", "m"], f32> {loop.output}) attributes {shape_bounds = {n = array<i64: 1, 64>}} {
  %n = loop.var "n" : index
}
// CHECK-LABEL: loop.func @ranged(
// CHECK:         %n = packed.dltensor_get %A_tensor, shape[0] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LO:.*]] = arith.cmpi sle, %[[ONE]], %n : index
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.cmpi sle, %n, %[[C64]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK-NEXT:    loop.assert %[[OK]], "ranged: A.shape[0] is {0}, expected n in [1, 64] (the range the function was compiled for)" (%n : index)
// CHECK:         %m = packed.dltensor_get %A_tensor, shape[1] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi sle, %{{.*}}, %m : index
// CHECK-NEXT:    loop.assert %[[OK]], "ranged: A.shape[1] is {0}, expected a size >= 0 (it binds m)" (%m : index)
// CHECK:       loop.func @ranged_compute({{.*}}) attributes {shape_bounds = {n = array<i64: 1, 64>}}

// -----

// A variable shared by two arguments: m is bound from A.shape[1] and checked
// on b.shape[0]; each variable is bound exactly once.
loop.func @shared(%A: !loop.buffer<["n", "m"], f32>, %b: !loop.buffer<["m"], f32>, %C: !loop.buffer<["n", "m"], f32> {loop.output}) {
}
// CHECK-LABEL: loop.func @shared(
// CHECK:         %n = packed.dltensor_get %A_tensor, shape[0] : index
// CHECK:         %m = packed.dltensor_get %A_tensor, shape[1] : index
// CHECK:         %b_shape0 = packed.dltensor_get %b_tensor, shape[0] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %b_shape0, %m : index
// CHECK-NEXT:    loop.assert %[[OK]], "shared: b.shape[0] is {0}, expected m = {1} (m bound from A.shape[1])" (%b_shape0, %m : index, index)
// CHECK:         loop.assert %{{.*}}, "shared: C.shape[0] is {0}, expected n = {1} (n bound from A.shape[0])" (%C_shape0, %n : index, index)
// CHECK:         loop.assert %{{.*}}, "shared: C.shape[1] is {0}, expected m = {1} (m bound from A.shape[1])" (%C_shape1, %m : index, index)
// CHECK:         %spans = loop.alloc local "arg_spans" [%{{.*}}, %{{.*}}] : !loop.buffer<[3, 3], i64>
// CHECK:         loop.assert %{{.*}}, "shared: output {0:arg} overlaps {1:arg} {{.*}}"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    packed.call @shared_compute(%A, %b, %C) ["n" = %n, "m" = %m]
// CHECK-NOT:     packed.dltensor_get

// -----

// A strided buffer: its stride variable sn is bound from A.strides[0] (the
// row-major stride when the strides pointer is NULL), the constant stride 2 is
// checked, and storage-flatten indexes A with sn.
loop.func @strided(%A: !loop.buffer<["n", 8], f32, strides ["sn", 2]>, %B: !loop.buffer<["n", 8], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  loop.for %i = %c0 extent %n {
    loop.for %j = %c0 extent %c8 {
      %v = loop.load %A[%i, %j] : !loop.buffer<["n", 8], f32, strides ["sn", 2]>
      loop.store %v, %B[%i, %j] : !loop.buffer<["n", 8], f32>
    }
  }
}
// CHECK-LABEL: loop.func @strided(
// CHECK:         %A_shape1 = packed.dltensor_get %A_tensor, shape[1] : index
// CHECK:         %A_strides = packed.dltensor_get %A_tensor, strides : index
// CHECK-NEXT:    %[[HAS:.*]] = arith.cmpi ne, %A_strides, %{{.*}} : index
// CHECK-NEXT:    %sn = scf.if %[[HAS]] -> (index) {
// CHECK-NEXT:      %[[S0:.*]] = packed.dltensor_get %A_tensor, strides[0] : index
// CHECK-NEXT:      scf.yield %[[S0]] : index
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %A_shape1 : index
// CHECK-NEXT:    }
// CHECK-NEXT:    %A_stride1 = scf.if %[[HAS]] -> (index) {
// CHECK:         loop.assert %{{.*}}, "strided: A.strides[1] is {0}, expected 2" (%A_stride1 : index)
// CHECK:         packed.call @strided_compute(%A, %B) ["n" = %n, "sn" = %sn]
// CHECK:       loop.func @strided_compute(%A: !loop.buffer<["n", 8], f32, strides ["sn", 2]>, %B: !loop.buffer<["n", 8], f32> {loop.output}) {


// OPTION-LABEL: loop.func @strided(
// OPTION-LABEL: loop.func @strided_compute(

// -----

// The option `strided=A` declares A strided: its strides become the
// variables A_stride0 and A_stride1, bound from the caller's DLTensor.
loop.func @option(%A: !loop.buffer<["n", "m"], f32>, %B: !loop.buffer<["n", "m"], f32> {loop.output}) {
}
// OPTION-LABEL: loop.func @option(
// OPTION:         %A_stride0 = scf.if
// OPTION:         %A_stride1 = scf.if
// OPTION:         packed.call @option_compute(%A, %B) ["n" = %n, "m" = %m, "A_stride0" = %A_stride0, "A_stride1" = %A_stride1]
// OPTION-NEXT:  }
// OPTION-NEXT:  loop.func @option_compute(%A: !loop.buffer<["n", "m"], f32, strides ["A_stride0", "A_stride1"]>, %B: !loop.buffer<["n", "m"], f32> {loop.output}) {

// -----

// A check that needs a variable bound by a later argument is deferred until
// every argument is bound: P.shape[0] = n + 2 is checked after A binds n.
loop.func @deferred(%P: !loop.buffer<["n + 2"], f32> {loop.output}, %A: !loop.buffer<["n"], f32>) {
}
// CHECK-LABEL: loop.func @deferred(
// CHECK:         %P_shape0 = packed.dltensor_get %P_tensor, shape[0] : index
// CHECK-NEXT:    %P_strides = packed.dltensor_get %P_tensor, strides : index
// CHECK:         %n = packed.dltensor_get %A_tensor, shape[0] : index
// CHECK:         %[[N2:.*]] = arith.addi %n, %{{.*}} : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %P_shape0, %[[N2]] : index
// CHECK-NEXT:    loop.assert %[[OK]], "deferred: P.shape[0] is {0}, expected n + 2 = {1} (n bound from A.shape[0])" (%P_shape0, %[[N2]] : index, index)
// CHECK:         packed.call @deferred_compute(%P, %A) ["n" = %n]

// -----

// The seed's question (003): where do the variables of a symbolic conv come
// from? Each one is loaded, by name, from the field that binds it, and passed
// to the compute function by name; later occurrences are checked.
loop.func @conv(%x: !loop.buffer<[1, "c", "h", "w"], f32>, %wt: !loop.buffer<["k", "c", 1, 1], f32>,
                %y: !loop.buffer<[1, "k", "h", "w"], f32> {loop.output}) {
  %c = loop.var "c" : index
  %h = loop.var "h" : index
  %w = loop.var "w" : index
  %k = loop.var "k" : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  loop.for %f = %c0 extent %k {
    loop.for %i = %c0 extent %h {
      loop.for %j = %c0 extent %w {
        loop.store %zero, %y[%c0, %f, %i, %j] : !loop.buffer<[1, "k", "h", "w"], f32>
        loop.for %rc = %c0 extent %c {
          %a = loop.load %x[%c0, %rc, %i, %j] : !loop.buffer<[1, "c", "h", "w"], f32>
          %b = loop.load %wt[%f, %rc, %c0, %c0] : !loop.buffer<["k", "c", 1, 1], f32>
          %acc = loop.load %y[%c0, %f, %i, %j] : !loop.buffer<[1, "k", "h", "w"], f32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          loop.store %s, %y[%c0, %f, %i, %j] : !loop.buffer<[1, "k", "h", "w"], f32>
        }
      }
    }
  }
}
// CHECK-LABEL: loop.func @conv(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
// CHECK:         "conv() takes 3 arrays (x, wt, y), got {0}"
// CHECK:         loop.assert %{{.*}}, "conv: x.shape[0] is {0}, expected 1" (%x_shape0 : index)
// CHECK-NEXT:    %c = packed.dltensor_get %x_tensor, shape[1] : index
// CHECK:         %h = packed.dltensor_get %x_tensor, shape[2] : index
// CHECK:         %w = packed.dltensor_get %x_tensor, shape[3] : index
// The size-1 leading dimension of x has no stride check; the others do.
// CHECK-NOT:     strides[0]
// CHECK:         %x_stride1 = packed.dltensor_get %x_tensor, strides[1] : index
// CHECK:         %x_stride2 = packed.dltensor_get %x_tensor, strides[2] : index
// CHECK:         loop.assert %{{.*}}, "conv: x.strides[2] is {0}, expected {1} {{.*}}" (%x_stride2, %w : index, index)
// CHECK:         %k = packed.dltensor_get %wt_tensor, shape[0] : index
// CHECK:         loop.assert %{{.*}}, "conv: wt.shape[1] is {0}, expected c = {1} (c bound from x.shape[1])" (%wt_shape1, %c : index, index)
// CHECK:         loop.assert %{{.*}}, "conv: wt.shape[2] is {0}, expected 1" (%wt_shape2 : index)
// CHECK:         loop.assert %{{.*}}, "conv: y.shape[1] is {0}, expected k = {1} (k bound from wt.shape[0])" (%y_shape1, %k : index, index)
// CHECK:         loop.assert %{{.*}}, "conv: y.shape[2] is {0}, expected h = {1} (h bound from x.shape[2])" (%y_shape2, %h : index, index)
// CHECK:         loop.assert %{{.*}}, "conv: y.shape[3] is {0}, expected w = {1} (w bound from x.shape[3])" (%y_shape3, %w : index, index)
// CHECK:         loop.assert %{{.*}}, "conv: output {0:arg} overlaps {1:arg} {{.*}}"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    packed.call @conv_compute(%x, %wt, %y) ["c" = %c, "h" = %h, "w" = %w, "k" = %k]
// CHECK-NEXT:  }
// CHECK-NEXT:  loop.func @conv_compute(%x: !loop.buffer<[1, "c", "h", "w"], f32>, %wt: !loop.buffer<["k", "c", 1, 1], f32>, %y: !loop.buffer<[1, "k", "h", "w"], f32> {loop.output}) {


// -----

// Running the pass twice changes nothing: the packed function takes no
// buffers, and a packed.call target is not wrapped again.
loop.func @twice(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
  %a = packed.arg %args[0]
  packed.call @twice_compute(%a) []
}
loop.func @twice_compute(%a: !loop.buffer<[4], f32>) {
}
// CHECK-LABEL: loop.func @twice(
// CHECK-NEXT:    %a = packed.arg %args[0]
// CHECK-NEXT:    packed.call @twice_compute(%a) []
// CHECK-NEXT:  }
// CHECK-NEXT:  loop.func @twice_compute(%a: !loop.buffer<[4], f32>) {

// -----

// A variable that appears only inside an expression cannot be bound.
loop.func @unbound(%P: !loop.buffer<["n + 2"], f32> {loop.output}) {
}
// CHECK: make-packed-api.mlir:[[# @LINE - 2]]:1: error: make-packed-api: @unbound: symbolic variable 'n' (in P.shape[0]) appears in no argument shape or stride by itself, so no call can bind it

// -----

// Neither can a loop.var that no argument shape or stride mentions.
loop.func @free_var(%A: !loop.buffer<[4], f32> {loop.output}) {
  %q = loop.var "q" : index
}
// CHECK: make-packed-api.mlir:[[# @LINE - 3]]:1: error: make-packed-api: symbolic variable 'q' of @free_var appears in no argument shape or stride by itself, so no call can bind it

// -----

// A scalar argument (a te.var passed as an int: a 0-d int64 buffer marked
// {loop.scalar = "x"}) binds x from its element, after the usual checks and
// byte_offset 0; the deferred check of B.shape[0] = n // x first asserts x != 0.
loop.func @scalar(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n // x"], f32> {loop.output}, %x: !loop.buffer<[], i64> {loop.scalar = "x"}) {
  %xv = loop.var "x" : index
}
// CHECK-LABEL: loop.func @scalar(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
// CHECK:         %x_tensor = packed.arg %args[2]
// CHECK:         loop.assert %{{.*}}, "scalar: x.ndim is {0}, expected 0" (%x_ndim : i32)
// CHECK:         loop.assert %{{.*}}, "scalar: x.dtype is {0:dtype}, expected int64" (%x_dtype : i32) raises "TypeError"
// CHECK:         loop.assert %{{.*}}, "scalar: x.data is NULL, but x has {0} elements"
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %x_byte_offset, %{{.*}} : index
// CHECK-NEXT:    loop.assert %[[OK]], "scalar: scalar argument x has byte_offset {0}, expected 0 (pass a Python int)" (%x_byte_offset : index)
// CHECK-NEXT:    %[[X:.*]] = packed.dltensor_get %x_tensor, data[0] : index
// CHECK-NEXT:    %[[NZ:.*]] = arith.cmpi ne, %[[X]], %{{.*}} : index
// CHECK-NEXT:    loop.assert %[[NZ]], "scalar: B.shape[0] is declared n // x, whose divisor x is 0"
// CHECK-NEXT:    %[[Q:.*]] = arith.floordivsi %n, %[[X]] : index
// CHECK:         loop.assert %{{.*}}, "scalar: B.shape[0] is {0}, expected n // x = {1} (n bound from A.shape[0], x bound from x.value)" (%B_shape0, %[[Q]] : index, index)
// CHECK:         packed.call @scalar_compute(%A, %B, %x) ["n" = %n, "x" = %[[X]]]

// -----

// A loop.dtype names an unsigned dtype of the elements' width (a hand-written one may
// name anything: it was an int() ValueError's text, then an unlocated error of
// compiler-run; loop.func's verifier refuses it where it stands).
loop.func @bad_dtype(%a: !loop.buffer<[4], i8> {loop.dtype = "uint8x"}, %b: !loop.buffer<[4], i8> {loop.output}) {
  %c0 = arith.constant 0 : index
  %v = loop.load %a[%c0] : !loop.buffer<[4], i8>
  loop.store %v, %b[%c0] : !loop.buffer<[4], i8>
}
// CHECK: make-packed-api.mlir:[[# @LINE - 5]]:1: error: loop.func argument 0: loop.dtype must be one of 'uint8', got 'uint8x'
