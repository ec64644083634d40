// RUN: compiler-opt %s --split-input-file -p storage-flatten | filecheck %s

// storage-flatten after make-packed-api: the packed function's buffers flattened. The
// input is make-packed-api's output, checked in (`compiler-opt make-packed-api.mlir -p
// make-packed-api`), so a change to make-packed-api does not change this test.

// A strided buffer: its stride variable sn is bound from A.strides[0] (the
// row-major stride when the strides pointer is NULL), the constant stride 2 is
// checked, and storage-flatten indexes A with sn.
// CHECK-LABEL:  loop.func @strided_compute(%A: !loop.buffer<["n * sn - sn + 15"], f32>, %B: !loop.buffer<["n * 8"], f32> {loop.output}) {
// CHECK-NEXT:     %sn = loop.var "sn" : index
// CHECK:          %[[ROW:.*]] = arith.muli %sn, %i : index
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[COL:.*]] = arith.muli %j, %[[TWO]] : index
// CHECK-NEXT:     %[[IDX:.*]] = arith.addi %[[ROW]], %[[COL]] : index
// CHECK-NEXT:     %v = loop.load %A[%[[IDX]]] : !loop.buffer<["n * sn - sn + 15"], f32>
builtin.module {
  loop.func @strided(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
    %0 = arith.constant 2 : i32
    %1 = arith.cmpi eq, %num_args, %0 : i32
    loop.assert %1, "strided() takes 2 arrays (A, B), got {0}" (%num_args : i32) raises "TypeError"
    %A_tensor = packed.arg %args[0]
    %2 = arith.constant 0 : index
    %3 = arith.cmpi ne, %A_tensor, %2 : index
    loop.assert %3, "strided: argument A is NULL, expected a DLTensor*" raises "TypeError"
    %A_ndim = packed.dltensor_get %A_tensor, ndim : i32
    %4 = arith.constant 2 : i32
    %5 = arith.cmpi eq, %A_ndim, %4 : i32
    loop.assert %5, "strided: A.ndim is {0}, expected 2" (%A_ndim : i32)
    %A_dtype = packed.dltensor_get %A_tensor, dtype : i32
    %6 = arith.constant 73730 : i32
    %7 = arith.cmpi eq, %A_dtype, %6 : i32
    loop.assert %7, "strided: A.dtype is {0:dtype}, expected float32" (%A_dtype : i32) raises "TypeError"
    %A_device_type = packed.dltensor_get %A_tensor, device_type : i32
    %8 = arith.constant 1 : i32
    %9 = arith.cmpi eq, %A_device_type, %8 : i32
    loop.assert %9, "strided: A.device_type is {0:device}, expected cpu (device_type 1)" (%A_device_type : i32)
    %A_shape = packed.dltensor_get %A_tensor, shape : index
    %10 = arith.cmpi ne, %A_shape, %2 : index
    loop.assert %10, "strided: A.shape is NULL for a 2-D tensor"
    %n = packed.dltensor_get %A_tensor, shape[0] : index
    %11 = arith.cmpi sle, %2, %n : index
    loop.assert %11, "strided: A.shape[0] is {0}, expected a size >= 0 (it binds n)" (%n : index)
    %A_shape1 = packed.dltensor_get %A_tensor, shape[1] : index
    %12 = arith.constant 8 : index
    %13 = arith.cmpi eq, %A_shape1, %12 : index
    loop.assert %13, "strided: A.shape[1] is {0}, expected 8" (%A_shape1 : index)
    %14 = arith.constant 1 : index
    %A_strides = packed.dltensor_get %A_tensor, strides : index
    %15 = arith.cmpi ne, %A_strides, %2 : index
    %sn = scf.if %15 -> (index) {
      %16 = packed.dltensor_get %A_tensor, strides[0] : index
      scf.yield %16 : index
    } else {
      scf.yield %A_shape1 : index
    }
    %A_stride1 = scf.if %15 -> (index) {
      %17 = packed.dltensor_get %A_tensor, strides[1] : index
      scf.yield %17 : index
    } else {
      scf.yield %14 : index
    }
    %18 = arith.constant 2 : index
    %19 = arith.cmpi eq, %A_stride1, %18 : index
    loop.assert %19, "strided: A.strides[1] is {0}, expected 2" (%A_stride1 : index)
    %A_data = packed.dltensor_get %A_tensor, data : index
    %A_byte_offset = packed.dltensor_get %A_tensor, byte_offset : index
    %A = arith.addi %A_data, %A_byte_offset : index
    %20 = arith.muli %n, %12 : index
    %21 = arith.cmpi eq, %20, %2 : index
    %22 = arith.cmpi ne, %A_data, %2 : index
    %23 = arith.ori %21, %22 : i1
    loop.assert %23, "strided: A.data is NULL, but A has {0} elements" (%20 : index)
    %24 = arith.constant 4 : index
    %25 = arith.remui %A, %24 : index
    %26 = arith.cmpi eq, %25, %2 : index
    loop.assert %26, "strided: A.data + A.byte_offset = {0:#x} is not a multiple of 4 bytes, the alignment of float32" (%A : index)
    %B_tensor = packed.arg %args[1]
    %27 = arith.cmpi ne, %B_tensor, %2 : index
    loop.assert %27, "strided: argument B is NULL, expected a DLTensor*" raises "TypeError"
    %B_ndim = packed.dltensor_get %B_tensor, ndim : i32
    %28 = arith.constant 2 : i32
    %29 = arith.cmpi eq, %B_ndim, %28 : i32
    loop.assert %29, "strided: B.ndim is {0}, expected 2" (%B_ndim : i32)
    %B_dtype = packed.dltensor_get %B_tensor, dtype : i32
    %30 = arith.constant 73730 : i32
    %31 = arith.cmpi eq, %B_dtype, %30 : i32
    loop.assert %31, "strided: B.dtype is {0:dtype}, expected float32" (%B_dtype : i32) raises "TypeError"
    %B_device_type = packed.dltensor_get %B_tensor, device_type : i32
    %32 = arith.constant 1 : i32
    %33 = arith.cmpi eq, %B_device_type, %32 : i32
    loop.assert %33, "strided: B.device_type is {0:device}, expected cpu (device_type 1)" (%B_device_type : i32)
    %B_shape = packed.dltensor_get %B_tensor, shape : index
    %34 = arith.cmpi ne, %B_shape, %2 : index
    loop.assert %34, "strided: B.shape is NULL for a 2-D tensor"
    %B_shape0 = packed.dltensor_get %B_tensor, shape[0] : index
    %35 = arith.cmpi eq, %B_shape0, %n : index
    loop.assert %35, "strided: B.shape[0] is {0}, expected n = {1} (n bound from A.shape[0])" (%B_shape0, %n : index, index)
    %B_shape1 = packed.dltensor_get %B_tensor, shape[1] : index
    %36 = arith.cmpi eq, %B_shape1, %12 : index
    loop.assert %36, "strided: B.shape[1] is {0}, expected 8" (%B_shape1 : index)
    %B_strides = packed.dltensor_get %B_tensor, strides : index
    %37 = arith.cmpi ne, %B_strides, %2 : index
    %38 = arith.cmpi ne, %20, %2 : index
    %39 = arith.andi %37, %38 : i1
    loop.if %39 {
      %B_stride0 = packed.dltensor_get %B_tensor, strides[0] : index
      %40 = arith.constant 8 : index
      %41 = arith.constant 1 : index
      %42 = arith.cmpi eq, %B_shape0, %41 : index
      %43 = arith.cmpi eq, %B_stride0, %40 : index
      %44 = arith.ori %42, %43 : i1
      loop.assert %44, "strided: B.strides[0] is {0}, expected {1} (strides count elements): B is not C-contiguous, and strided takes B compact (row-major)" (%B_stride0, %40 : index, index)
      %B_stride1 = packed.dltensor_get %B_tensor, strides[1] : index
      %45 = arith.cmpi eq, %B_stride1, %41 : index
      loop.assert %45, "strided: B.strides[1] is {0}, expected {1} (strides count elements): B is not C-contiguous, and strided takes B compact (row-major)" (%B_stride1, %41 : index, index)
    }
    %B_data = packed.dltensor_get %B_tensor, data : index
    %B_byte_offset = packed.dltensor_get %B_tensor, byte_offset : index
    %B = arith.addi %B_data, %B_byte_offset : index
    %46 = arith.cmpi ne, %B_data, %2 : index
    %47 = arith.ori %21, %46 : i1
    loop.assert %47, "strided: B.data is NULL, but B has {0} elements" (%20 : index)
    %48 = arith.remui %B, %24 : index
    %49 = arith.cmpi eq, %48, %2 : index
    loop.assert %49, "strided: B.data + B.byte_offset = {0:#x} is not a multiple of 4 bytes, the alignment of float32" (%B : index)
    %50 = arith.constant 32 : index
    %51 = arith.muli %n, %50 : index
    %52 = arith.addi %B, %51 : index
    %53 = arith.muli %sn, %n : index
    %54 = arith.subi %53, %sn : index
    %55 = arith.minsi %54, %2 : index
    %56 = arith.muli %55, %24 : index
    %57 = arith.addi %A, %56 : index
    %58 = arith.constant 7 : index
    %59 = arith.muli %A_stride1, %58 : index
    %60 = arith.minsi %59, %2 : index
    %61 = arith.muli %60, %24 : index
    %62 = arith.addi %57, %61 : index
    %63 = arith.maxsi %54, %2 : index
    %64 = arith.muli %63, %24 : index
    %65 = arith.addi %A, %64 : index
    %66 = arith.maxsi %59, %2 : index
    %67 = arith.muli %66, %24 : index
    %68 = arith.addi %65, %67 : index
    %69 = arith.addi %68, %24 : index
    %70 = arith.cmpi sle, %52, %62 : index
    %71 = arith.cmpi sle, %69, %B : index
    %72 = arith.ori %70, %71 : i1
    %73 = arith.ori %21, %72 : i1
    loop.assert %73, "strided: output B overlaps A in memory ([{0:#x}, {1:#x}) and [{2:#x}, {3:#x})), but strided assumes its arguments do not alias" (%B, %52, %62, %69 : index, index, index, index)
    packed.call @strided_compute(%A, %B) ["n" = %n, "sn" = %sn]
  }
  loop.func @strided_compute(%A: !loop.buffer<["n", 8], f32, strides ["sn", 2]>, %B: !loop.buffer<["n", 8], f32> {loop.output}) {
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
}

// -----

// The seed's question (003): where do the variables of a symbolic conv come
// from? Each one is loaded, by name, from the field that binds it, and passed
// to the compute function by name; later occurrences are checked.
// The size-1 leading dimension of x has no stride check; the others do.
// CHECK-LABEL:  loop.func @conv_compute(%x: !loop.buffer<["c * h * w"], f32>, %wt: !loop.buffer<["c * k"], f32>, %y: !loop.buffer<["h * k * w"], f32> {loop.output}) {
builtin.module {
  loop.func @conv(%args: !llvm.ptr, %num_args: i32, %error_values: !llvm.ptr {packed.error_values}) {
    %0 = arith.constant 3 : i32
    %1 = arith.cmpi eq, %num_args, %0 : i32
    loop.assert %1, "conv() takes 3 arrays (x, wt, y), got {0}" (%num_args : i32) raises "TypeError"
    %x_tensor = packed.arg %args[0]
    %2 = arith.constant 0 : index
    %3 = arith.cmpi ne, %x_tensor, %2 : index
    loop.assert %3, "conv: argument x is NULL, expected a DLTensor*" raises "TypeError"
    %x_ndim = packed.dltensor_get %x_tensor, ndim : i32
    %4 = arith.constant 4 : i32
    %5 = arith.cmpi eq, %x_ndim, %4 : i32
    loop.assert %5, "conv: x.ndim is {0}, expected 4" (%x_ndim : i32)
    %x_dtype = packed.dltensor_get %x_tensor, dtype : i32
    %6 = arith.constant 73730 : i32
    %7 = arith.cmpi eq, %x_dtype, %6 : i32
    loop.assert %7, "conv: x.dtype is {0:dtype}, expected float32" (%x_dtype : i32) raises "TypeError"
    %x_device_type = packed.dltensor_get %x_tensor, device_type : i32
    %8 = arith.constant 1 : i32
    %9 = arith.cmpi eq, %x_device_type, %8 : i32
    loop.assert %9, "conv: x.device_type is {0:device}, expected cpu (device_type 1)" (%x_device_type : i32)
    %x_shape = packed.dltensor_get %x_tensor, shape : index
    %10 = arith.cmpi ne, %x_shape, %2 : index
    loop.assert %10, "conv: x.shape is NULL for a 4-D tensor"
    %x_shape0 = packed.dltensor_get %x_tensor, shape[0] : index
    %11 = arith.constant 1 : index
    %12 = arith.cmpi eq, %x_shape0, %11 : index
    loop.assert %12, "conv: x.shape[0] is {0}, expected 1" (%x_shape0 : index)
    %c = packed.dltensor_get %x_tensor, shape[1] : index
    %13 = arith.cmpi sle, %2, %c : index
    loop.assert %13, "conv: x.shape[1] is {0}, expected a size >= 0 (it binds c)" (%c : index)
    %h = packed.dltensor_get %x_tensor, shape[2] : index
    %14 = arith.cmpi sle, %2, %h : index
    loop.assert %14, "conv: x.shape[2] is {0}, expected a size >= 0 (it binds h)" (%h : index)
    %w = packed.dltensor_get %x_tensor, shape[3] : index
    %15 = arith.cmpi sle, %2, %w : index
    loop.assert %15, "conv: x.shape[3] is {0}, expected a size >= 0 (it binds w)" (%w : index)
    %x_strides = packed.dltensor_get %x_tensor, strides : index
    %16 = arith.cmpi ne, %x_strides, %2 : index
    %17 = arith.muli %c, %h : index
    %18 = arith.muli %17, %w : index
    %19 = arith.cmpi ne, %18, %2 : index
    %20 = arith.andi %16, %19 : i1
    loop.if %20 {
      %x_stride1 = packed.dltensor_get %x_tensor, strides[1] : index
      %21 = arith.muli %h, %w : index
      %22 = arith.constant 1 : index
      %23 = arith.cmpi eq, %c, %22 : index
      %24 = arith.cmpi eq, %x_stride1, %21 : index
      %25 = arith.ori %23, %24 : i1
      loop.assert %25, "conv: x.strides[1] is {0}, expected {1} (strides count elements): x is not C-contiguous, and conv takes x compact (row-major)" (%x_stride1, %21 : index, index)
      %x_stride2 = packed.dltensor_get %x_tensor, strides[2] : index
      %26 = arith.cmpi eq, %h, %22 : index
      %27 = arith.cmpi eq, %x_stride2, %w : index
      %28 = arith.ori %26, %27 : i1
      loop.assert %28, "conv: x.strides[2] is {0}, expected {1} (strides count elements): x is not C-contiguous, and conv takes x compact (row-major)" (%x_stride2, %w : index, index)
      %x_stride3 = packed.dltensor_get %x_tensor, strides[3] : index
      %29 = arith.cmpi eq, %w, %22 : index
      %30 = arith.cmpi eq, %x_stride3, %22 : index
      %31 = arith.ori %29, %30 : i1
      loop.assert %31, "conv: x.strides[3] is {0}, expected {1} (strides count elements): x is not C-contiguous, and conv takes x compact (row-major)" (%x_stride3, %22 : index, index)
    }
    %x_data = packed.dltensor_get %x_tensor, data : index
    %x_byte_offset = packed.dltensor_get %x_tensor, byte_offset : index
    %x = arith.addi %x_data, %x_byte_offset : index
    %32 = arith.cmpi eq, %18, %2 : index
    %33 = arith.cmpi ne, %x_data, %2 : index
    %34 = arith.ori %32, %33 : i1
    loop.assert %34, "conv: x.data is NULL, but x has {0} elements" (%18 : index)
    %35 = arith.constant 4 : index
    %36 = arith.remui %x, %35 : index
    %37 = arith.cmpi eq, %36, %2 : index
    loop.assert %37, "conv: x.data + x.byte_offset = {0:#x} is not a multiple of 4 bytes, the alignment of float32" (%x : index)
    %wt_tensor = packed.arg %args[1]
    %38 = arith.cmpi ne, %wt_tensor, %2 : index
    loop.assert %38, "conv: argument wt is NULL, expected a DLTensor*" raises "TypeError"
    %wt_ndim = packed.dltensor_get %wt_tensor, ndim : i32
    %39 = arith.constant 4 : i32
    %40 = arith.cmpi eq, %wt_ndim, %39 : i32
    loop.assert %40, "conv: wt.ndim is {0}, expected 4" (%wt_ndim : i32)
    %wt_dtype = packed.dltensor_get %wt_tensor, dtype : i32
    %41 = arith.constant 73730 : i32
    %42 = arith.cmpi eq, %wt_dtype, %41 : i32
    loop.assert %42, "conv: wt.dtype is {0:dtype}, expected float32" (%wt_dtype : i32) raises "TypeError"
    %wt_device_type = packed.dltensor_get %wt_tensor, device_type : i32
    %43 = arith.constant 1 : i32
    %44 = arith.cmpi eq, %wt_device_type, %43 : i32
    loop.assert %44, "conv: wt.device_type is {0:device}, expected cpu (device_type 1)" (%wt_device_type : i32)
    %wt_shape = packed.dltensor_get %wt_tensor, shape : index
    %45 = arith.cmpi ne, %wt_shape, %2 : index
    loop.assert %45, "conv: wt.shape is NULL for a 4-D tensor"
    %k = packed.dltensor_get %wt_tensor, shape[0] : index
    %46 = arith.cmpi sle, %2, %k : index
    loop.assert %46, "conv: wt.shape[0] is {0}, expected a size >= 0 (it binds k)" (%k : index)
    %wt_shape1 = packed.dltensor_get %wt_tensor, shape[1] : index
    %47 = arith.cmpi eq, %wt_shape1, %c : index
    loop.assert %47, "conv: wt.shape[1] is {0}, expected c = {1} (c bound from x.shape[1])" (%wt_shape1, %c : index, index)
    %wt_shape2 = packed.dltensor_get %wt_tensor, shape[2] : index
    %48 = arith.cmpi eq, %wt_shape2, %11 : index
    loop.assert %48, "conv: wt.shape[2] is {0}, expected 1" (%wt_shape2 : index)
    %wt_shape3 = packed.dltensor_get %wt_tensor, shape[3] : index
    %49 = arith.cmpi eq, %wt_shape3, %11 : index
    loop.assert %49, "conv: wt.shape[3] is {0}, expected 1" (%wt_shape3 : index)
    %wt_strides = packed.dltensor_get %wt_tensor, strides : index
    %50 = arith.cmpi ne, %wt_strides, %2 : index
    %51 = arith.muli %c, %k : index
    %52 = arith.cmpi ne, %51, %2 : index
    %53 = arith.andi %50, %52 : i1
    loop.if %53 {
      %wt_stride0 = packed.dltensor_get %wt_tensor, strides[0] : index
      %54 = arith.constant 1 : index
      %55 = arith.cmpi eq, %k, %54 : index
      %56 = arith.cmpi eq, %wt_stride0, %c : index
      %57 = arith.ori %55, %56 : i1
      loop.assert %57, "conv: wt.strides[0] is {0}, expected {1} (strides count elements): wt is not C-contiguous, and conv takes wt compact (row-major)" (%wt_stride0, %c : index, index)
      %wt_stride1 = packed.dltensor_get %wt_tensor, strides[1] : index
      %58 = arith.cmpi eq, %wt_shape1, %54 : index
      %59 = arith.cmpi eq, %wt_stride1, %54 : index
      %60 = arith.ori %58, %59 : i1
      loop.assert %60, "conv: wt.strides[1] is {0}, expected {1} (strides count elements): wt is not C-contiguous, and conv takes wt compact (row-major)" (%wt_stride1, %54 : index, index)
    }
    %wt_data = packed.dltensor_get %wt_tensor, data : index
    %wt_byte_offset = packed.dltensor_get %wt_tensor, byte_offset : index
    %wt = arith.addi %wt_data, %wt_byte_offset : index
    %61 = arith.cmpi eq, %51, %2 : index
    %62 = arith.cmpi ne, %wt_data, %2 : index
    %63 = arith.ori %61, %62 : i1
    loop.assert %63, "conv: wt.data is NULL, but wt has {0} elements" (%51 : index)
    %64 = arith.remui %wt, %35 : index
    %65 = arith.cmpi eq, %64, %2 : index
    loop.assert %65, "conv: wt.data + wt.byte_offset = {0:#x} is not a multiple of 4 bytes, the alignment of float32" (%wt : index)
    %y_tensor = packed.arg %args[2]
    %66 = arith.cmpi ne, %y_tensor, %2 : index
    loop.assert %66, "conv: argument y is NULL, expected a DLTensor*" raises "TypeError"
    %y_ndim = packed.dltensor_get %y_tensor, ndim : i32
    %67 = arith.constant 4 : i32
    %68 = arith.cmpi eq, %y_ndim, %67 : i32
    loop.assert %68, "conv: y.ndim is {0}, expected 4" (%y_ndim : i32)
    %y_dtype = packed.dltensor_get %y_tensor, dtype : i32
    %69 = arith.constant 73730 : i32
    %70 = arith.cmpi eq, %y_dtype, %69 : i32
    loop.assert %70, "conv: y.dtype is {0:dtype}, expected float32" (%y_dtype : i32) raises "TypeError"
    %y_device_type = packed.dltensor_get %y_tensor, device_type : i32
    %71 = arith.constant 1 : i32
    %72 = arith.cmpi eq, %y_device_type, %71 : i32
    loop.assert %72, "conv: y.device_type is {0:device}, expected cpu (device_type 1)" (%y_device_type : i32)
    %y_shape = packed.dltensor_get %y_tensor, shape : index
    %73 = arith.cmpi ne, %y_shape, %2 : index
    loop.assert %73, "conv: y.shape is NULL for a 4-D tensor"
    %y_shape0 = packed.dltensor_get %y_tensor, shape[0] : index
    %74 = arith.cmpi eq, %y_shape0, %11 : index
    loop.assert %74, "conv: y.shape[0] is {0}, expected 1" (%y_shape0 : index)
    %y_shape1 = packed.dltensor_get %y_tensor, shape[1] : index
    %75 = arith.cmpi eq, %y_shape1, %k : index
    loop.assert %75, "conv: y.shape[1] is {0}, expected k = {1} (k bound from wt.shape[0])" (%y_shape1, %k : index, index)
    %y_shape2 = packed.dltensor_get %y_tensor, shape[2] : index
    %76 = arith.cmpi eq, %y_shape2, %h : index
    loop.assert %76, "conv: y.shape[2] is {0}, expected h = {1} (h bound from x.shape[2])" (%y_shape2, %h : index, index)
    %y_shape3 = packed.dltensor_get %y_tensor, shape[3] : index
    %77 = arith.cmpi eq, %y_shape3, %w : index
    loop.assert %77, "conv: y.shape[3] is {0}, expected w = {1} (w bound from x.shape[3])" (%y_shape3, %w : index, index)
    %y_strides = packed.dltensor_get %y_tensor, strides : index
    %78 = arith.cmpi ne, %y_strides, %2 : index
    %79 = arith.muli %h, %k : index
    %80 = arith.muli %79, %w : index
    %81 = arith.cmpi ne, %80, %2 : index
    %82 = arith.andi %78, %81 : i1
    loop.if %82 {
      %y_stride1 = packed.dltensor_get %y_tensor, strides[1] : index
      %83 = arith.muli %h, %w : index
      %84 = arith.constant 1 : index
      %85 = arith.cmpi eq, %y_shape1, %84 : index
      %86 = arith.cmpi eq, %y_stride1, %83 : index
      %87 = arith.ori %85, %86 : i1
      loop.assert %87, "conv: y.strides[1] is {0}, expected {1} (strides count elements): y is not C-contiguous, and conv takes y compact (row-major)" (%y_stride1, %83 : index, index)
      %y_stride2 = packed.dltensor_get %y_tensor, strides[2] : index
      %88 = arith.cmpi eq, %y_shape2, %84 : index
      %89 = arith.cmpi eq, %y_stride2, %w : index
      %90 = arith.ori %88, %89 : i1
      loop.assert %90, "conv: y.strides[2] is {0}, expected {1} (strides count elements): y is not C-contiguous, and conv takes y compact (row-major)" (%y_stride2, %w : index, index)
      %y_stride3 = packed.dltensor_get %y_tensor, strides[3] : index
      %91 = arith.cmpi eq, %y_shape3, %84 : index
      %92 = arith.cmpi eq, %y_stride3, %84 : index
      %93 = arith.ori %91, %92 : i1
      loop.assert %93, "conv: y.strides[3] is {0}, expected {1} (strides count elements): y is not C-contiguous, and conv takes y compact (row-major)" (%y_stride3, %84 : index, index)
    }
    %y_data = packed.dltensor_get %y_tensor, data : index
    %y_byte_offset = packed.dltensor_get %y_tensor, byte_offset : index
    %y = arith.addi %y_data, %y_byte_offset : index
    %94 = arith.cmpi eq, %80, %2 : index
    %95 = arith.cmpi ne, %y_data, %2 : index
    %96 = arith.ori %94, %95 : i1
    loop.assert %96, "conv: y.data is NULL, but y has {0} elements" (%80 : index)
    %97 = arith.remui %y, %35 : index
    %98 = arith.cmpi eq, %97, %2 : index
    loop.assert %98, "conv: y.data + y.byte_offset = {0:#x} is not a multiple of 4 bytes, the alignment of float32" (%y : index)
    %99 = arith.muli %80, %35 : index
    %100 = arith.addi %y, %99 : index
    %101 = arith.muli %18, %35 : index
    %102 = arith.addi %x, %101 : index
    %103 = arith.ori %94, %32 : i1
    %104 = arith.cmpi sle, %100, %x : index
    %105 = arith.cmpi sle, %102, %y : index
    %106 = arith.ori %104, %105 : i1
    %107 = arith.ori %103, %106 : i1
    loop.assert %107, "conv: output y overlaps x in memory ([{0:#x}, {1:#x}) and [{2:#x}, {3:#x})), but conv assumes its arguments do not alias" (%y, %100, %x, %102 : index, index, index, index)
    %108 = arith.muli %51, %35 : index
    %109 = arith.addi %wt, %108 : index
    %110 = arith.ori %94, %61 : i1
    %111 = arith.cmpi sle, %100, %wt : index
    %112 = arith.cmpi sle, %109, %y : index
    %113 = arith.ori %111, %112 : i1
    %114 = arith.ori %110, %113 : i1
    loop.assert %114, "conv: output y overlaps wt in memory ([{0:#x}, {1:#x}) and [{2:#x}, {3:#x})), but conv assumes its arguments do not alias" (%y, %100, %wt, %109 : index, index, index, index)
    packed.call @conv_compute(%x, %wt, %y) ["c" = %c, "h" = %h, "w" = %w, "k" = %k]
  }
  loop.func @conv_compute(%x: !loop.buffer<[1, "c", "h", "w"], f32>, %wt: !loop.buffer<["k", "c", 1, 1], f32>, %y: !loop.buffer<[1, "k", "h", "w"], f32> {loop.output}) {
    %c = loop.var "c" : index
    %h = loop.var "h" : index
    %w = loop.var "w" : index
    %k = loop.var "k" : index
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
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
}
