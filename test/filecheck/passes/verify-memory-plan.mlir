// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p verify-memory-plan | filecheck %s

// Two buffers live at the same time (both read by the last statement) placed
// on overlapping bytes: the plan is rejected.
loop.func @overlap(%out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[96], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<[96], i8> -> !loop.buffer<[16], f32>
  %b = loop.view "b" %arena at "32" : !loop.buffer<[96], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %one = arith.constant 1.0 : f32
    loop.store %one, %a[%i] : !loop.buffer<[16], f32>
    loop.store %one, %b[%i] : !loop.buffer<[16], f32>
  }
  loop.for %i = %c0 extent %c16 {
    %x = loop.load %a[%i] : !loop.buffer<[16], f32>
    %y = loop.load %b[%i] : !loop.buffer<[16], f32>
    %s = arith.addf %x, %y : f32
    loop.store %s, %out[%i] : !loop.buffer<[16], f32>
  }
}
// CHECK: verify-memory-plan.mlir:5:1: error: verify-memory-plan: @overlap: a (statements 5-6, bytes 0..+64) and b (statements 5-6, bytes 32..+64) are live at once and may share bytes

// -----

// The same buffers on disjoint bytes pass, and so does a view that ends exactly at the arena's end.
loop.func @disjoint(%out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[128], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %b = loop.view "b" %arena at "64" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %one = arith.constant 1.0 : f32
    loop.store %one, %a[%i] : !loop.buffer<[16], f32>
    loop.store %one, %b[%i] : !loop.buffer<[16], f32>
  }
}
// CHECK-LABEL: loop.func @disjoint
// CHECK: %b = loop.view "b" %arena at "64"

// -----

// A view past the end of the arena is rejected.
loop.func @past_end(%out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[64], i8>
  %a = loop.view "a" %arena at "32" : !loop.buffer<[64], i8> -> !loop.buffer<[16], f32>
  %z = arith.constant 0.0 : f32
  loop.store %z, %a[%c0] : !loop.buffer<[16], f32>
}
// CHECK: verify-memory-plan.mlir:46:1: error: verify-memory-plan: @past_end: a ends at byte 96, past the arena

// -----

// Symbolic sizes: b starts at a's end rounded up to 64 bytes, and the arena ends
// exactly at b's end (the proofs are polynomial: (h * w * 4 + 63) // 64 * 64 >= h * w * 4).
loop.func @symbolic_disjoint(%x: !loop.buffer<["h * w"], f32>, %out: !loop.buffer<["h * w"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["(h * w * 4 + 63) // 64 * 64 + h * w * 4"], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<["(h * w * 4 + 63) // 64 * 64 + h * w * 4"], i8> -> !loop.buffer<["h * w"], f32>
  %b = loop.view "b" %arena at "(h * w * 4 + 63) // 64 * 64" : !loop.buffer<["(h * w * 4 + 63) // 64 * 64 + h * w * 4"], i8> -> !loop.buffer<["h * w"], f32>
  %one = arith.constant 1.0 : f32
  loop.store %one, %a[%c0] : !loop.buffer<["h * w"], f32>
  loop.store %one, %b[%c0] : !loop.buffer<["h * w"], f32>
  %y = loop.load %a[%c0] : !loop.buffer<["h * w"], f32>
  %z = loop.load %b[%c0] : !loop.buffer<["h * w"], f32>
}
// CHECK-LABEL: loop.func @symbolic_disjoint
// CHECK: %b = loop.view "b" %arena at "(h * w * 4 + 63) // 64 * 64"

// -----

// b at 2 * (h // 2) * 2 * (w // 2) * 4 bytes: a's size when h and w are even, less
// when either is odd (h = 3: 8 * w // 2 * 2 < 12 * w), so b may overlap a: rejected.
loop.func @symbolic_overlap_when_odd(%x: !loop.buffer<["h * w"], f32>, %out: !loop.buffer<["h * w"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["h * w * 8"], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<["h * w * 8"], i8> -> !loop.buffer<["h * w"], f32>
  %b = loop.view "b" %arena at "h // 2 * (w // 2) * 16" : !loop.buffer<["h * w * 8"], i8> -> !loop.buffer<["h // 2 * (w // 2)"], f32>
  %one = arith.constant 1.0 : f32
  loop.store %one, %a[%c0] : !loop.buffer<["h * w"], f32>
  loop.store %one, %b[%c0] : !loop.buffer<["h // 2 * (w // 2)"], f32>
  %y = loop.load %a[%c0] : !loop.buffer<["h * w"], f32>
  %z = loop.load %b[%c0] : !loop.buffer<["h // 2 * (w // 2)"], f32>
}
// CHECK: verify-memory-plan.mlir:77:1: error: verify-memory-plan: @symbolic_overlap_when_odd: a (statements 5-7, bytes 0..+h * w * 4) and b (statements 6-8, bytes h // 2 * (w // 2) * 16..+h // 2 * (w // 2) * 4) are live at once and may share bytes

// -----

// A symbolic arena one element short of b's end is rejected.
loop.func @symbolic_past_end(%x: !loop.buffer<["h * w"], f32>, %out: !loop.buffer<["h * w"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["h * w * 8 - 4"], i8>
  %b = loop.view "b" %arena at "h * w * 4" : !loop.buffer<["h * w * 8 - 4"], i8> -> !loop.buffer<["h * w"], f32>
  %one = arith.constant 1.0 : f32
  loop.store %one, %b[%c0] : !loop.buffer<["h * w"], f32>
}
// CHECK: verify-memory-plan.mlir:93:1: error: verify-memory-plan: @symbolic_past_end: b ends at byte h * w * 8, past the arena

// -----

// Two views of m - 2 floats after one of m * n, each in a slot of (m * 4 + 55) // 64 * 64
// bytes, fit: for m >= 2 a slot is its view's bytes rounded up, and for m < 2 a view
// holds nothing (its end, before its start, is past no byte of the arena). Bounds of the
// rounding prove it from m >= 2 only, and the case n = 0 leaves m >= 0: a random
// schedule's symbolic plan (two stages attached in a row loop, this layout) was rejected
// as unsound.
loop.func @empty_below(%x: !loop.buffer<["m * n"], f32>, %out: !loop.buffer<["m * n - n * 2"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = loop.var "m" : index
  %n = loop.var "n" : index
  %mn = arith.muli %m, %n : index
  %k = arith.subi %m, %c2 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["(m * 4 + 55) // 64 * 128 + (m * n * 4 + 63) // 64 * 64"], i8>
  %b = loop.view "b" %arena at "0" : !loop.buffer<["(m * 4 + 55) // 64 * 128 + (m * n * 4 + 63) // 64 * 64"], i8> -> !loop.buffer<["m * n"], f32>
  loop.for %i = %c0 extent %mn {
    %v = loop.load %x[%i] : !loop.buffer<["m * n"], f32>
    loop.store %v, %b[%i] : !loop.buffer<["m * n"], f32>
  }
  loop.for %r = %c0 extent %n {
    %c = loop.view "c" %arena at "(m * n * 4 + 63) // 64 * 64" : !loop.buffer<["(m * 4 + 55) // 64 * 128 + (m * n * 4 + 63) // 64 * 64"], i8> -> !loop.buffer<["m - 2"], f32>
    %d = loop.view "d" %arena at "(m * 4 + 55) // 64 * 64 + (m * n * 4 + 63) // 64 * 64" : !loop.buffer<["(m * 4 + 55) // 64 * 128 + (m * n * 4 + 63) // 64 * 64"], i8> -> !loop.buffer<["m - 2"], f32>
    loop.for %i = %c0 extent %k {
      %v = loop.load %b[%i] : !loop.buffer<["m * n"], f32>
      loop.store %v, %c[%i] : !loop.buffer<["m - 2"], f32>
      loop.store %v, %d[%i] : !loop.buffer<["m - 2"], f32>
    }
    loop.for %i = %c0 extent %k {
      %v = loop.load %c[%i] : !loop.buffer<["m - 2"], f32>
      %w = loop.load %d[%i] : !loop.buffer<["m - 2"], f32>
      %s = arith.addf %v, %w : f32
      loop.store %s, %out[%i] : !loop.buffer<["m * n - n * 2"], f32>
    }
  }
}
// CHECK-LABEL: loop.func @empty_below

// -----

// A buffer with bytes is still checked: m - 2 floats at byte 4 of a slot of
// (m * 4 + 55) // 64 * 64 bytes do not fit (m = 18: they end at byte 68 of 64).
loop.func @rounded_past_end(%x: !loop.buffer<["m"], f32>, %out: !loop.buffer<["m"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = loop.var "m" : index
  %k = arith.subi %m, %c2 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["(m * 4 + 55) // 64 * 64"], i8>
  %c = loop.view "c" %arena at "4" : !loop.buffer<["(m * 4 + 55) // 64 * 64"], i8> -> !loop.buffer<["m - 2"], f32>
  loop.for %i = %c0 extent %k {
    %v = loop.load %x[%i] : !loop.buffer<["m"], f32>
    loop.store %v, %c[%i] : !loop.buffer<["m - 2"], f32>
  }
  loop.for %i = %c0 extent %k {
    %v = loop.load %c[%i] : !loop.buffer<["m - 2"], f32>
    loop.store %v, %out[%i] : !loop.buffer<["m"], f32>
  }
}
// CHECK: error: verify-memory-plan: @rounded_past_end: c ends at byte m * 4 - 4, past the arena
