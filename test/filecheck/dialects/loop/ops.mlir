// RUN: COMPILER_ROUNDTRIP

// Every loop op, printed, parsed and printed again (custom and generic forms).
loop.func @all_ops(%a: !loop.buffer<[5, "n"], f32>, %out: !loop.buffer<[5, "n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %t = loop.alloc "T" [%c1, %c0] : !loop.buffer<[4, "n"], f32>
  loop.for %i = %c1 extent %c5 step 2 parallel {
    loop.for %j = %c0 extent %n vectorized {
      %v = loop.load %a[%i, %j] : !loop.buffer<[5, "n"], f32>
      loop.store %v, %t[%i, %j] : !loop.buffer<[4, "n"], f32>
    }
  }
  loop.for %i = %c0 extent %c5 unrolled {
    loop.for %j = %c0 extent %n {
      %ok = arith.cmpi sge, %i, %c1 : index
      loop.if %ok likely {
        %v = loop.load %t[%i, %j] : !loop.buffer<[4, "n"], f32>
        loop.store %v, %out[%i, %j] : !loop.buffer<[5, "n"], f32>
      } else {
        %z = arith.constant 0.000000e+00 : f32
        loop.store %z, %out[%i, %j] : !loop.buffer<[5, "n"], f32>
      }
      loop.assert %ok, "i must be positive"
    }
  }
}

// CHECK-LABEL: loop.func @all_ops(%a: !loop.buffer<[5, "n"], f32>, %out: !loop.buffer<[5, "n"], f32> {loop.output}) {
// CHECK-NEXT:    %n = loop.var "n" : index
// CHECK:         %t = loop.alloc "T" [%c1, %c0] : !loop.buffer<[4, "n"], f32>
// CHECK-NEXT:    loop.for %i = %c1 extent %c5 step 2 parallel {
// CHECK-NEXT:      loop.for %j = %c0 extent %n vectorized {
// CHECK-NEXT:        %v = loop.load %a[%i, %j] : !loop.buffer<[5, "n"], f32>
// CHECK-NEXT:        loop.store %v, %t[%i, %j] : !loop.buffer<[4, "n"], f32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.for %i_1 = %c0 extent %c5 unrolled {
// CHECK-NEXT:      loop.for %j_1 = %c0 extent %n {
// CHECK-NEXT:        %ok = arith.cmpi sge, %i_1, %c1 : index
// CHECK-NEXT:        loop.if %ok likely {
// CHECK-NEXT:          %v_1 = loop.load %t[%i_1, %j_1] : !loop.buffer<[4, "n"], f32>
// CHECK-NEXT:          loop.store %v_1, %out[%i_1, %j_1] : !loop.buffer<[5, "n"], f32>
// CHECK-NEXT:        } else {
// CHECK:             loop.assert %ok, "i must be positive"

// -----

// Attributes on a serial loop (no kind word before them) and on a kind.
loop.func @loop_attributes(%out: !loop.buffer<[4], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  loop.for %i = %c0 extent %c4 attributes {loop.pragmas = ["loop_partition=0"]} {
    loop.for %j = %c0 extent %c4 vectorized attributes {loop.pragmas = ["x"]} {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %out[%j] : !loop.buffer<[4], f32>
    }
  }
}
// CHECK-LABEL: loop.func @loop_attributes
// CHECK:         loop.for %i = %c0 extent %c4 attributes {loop.pragmas = ["loop_partition=0"]} {
// CHECK-NEXT:      loop.for %j = %c0 extent %c4 vectorized attributes {loop.pragmas = ["x"]} {

// -----

// Planned buffers (storage-rewrite) and a local accumulator.
loop.func @views(%out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[128], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %b = loop.view "b" %arena at "0" inplace "a" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %acc = loop.alloc local "acc" [%c0] : !loop.buffer<[1], f32>
}
// CHECK-LABEL: loop.func @views
// CHECK:         %a = loop.view "a" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
// CHECK-NEXT:    %b = loop.view "b" %arena at "0" inplace "a" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
// CHECK-NEXT:    %acc = loop.alloc local "acc" [%c0] : !loop.buffer<[1], f32>

// -----

// The call of a te.extern stage: buffers pass their base pointers, scalars their values.
loop.func @call(%a: !loop.buffer<["n"], f32>, %b: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %x = arith.constant 2.5 : f32
  loop.call_extern @my_func(%a, %b, %n, %x) : !loop.buffer<["n"], f32>, !loop.buffer<["n"], f32>, index, f32
}
// CHECK-LABEL: loop.func @call
// CHECK:         loop.call_extern @my_func(%a, %b, %n, %x) : !loop.buffer<["n"], f32>, !loop.buffer<["n"], f32>, index, f32
