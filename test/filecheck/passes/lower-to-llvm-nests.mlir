// RUN: compiler-opt %s --split-input-file -p lower-to-llvm | filecheck %s

// A function's top-level serial loop nests become functions of their own, each
// called once with its captured values (bounds, buffers) in a context array.
// The second nest is the first one's code over another buffer: both calls name
// @nests_nest0, and no loop is left in @nests.
loop.func @nests(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}, %c: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %v, %b[%i] : !loop.buffer<[64], f32>
  }
  loop.for %j = %c0 extent %c64 {
    %w = loop.load %a[%j] : !loop.buffer<[64], f32>
    loop.store %w, %c[%j] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @nests(
// CHECK:         %[[CTX1:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT:    %[[CTX0:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NOT:     llvm.br
// CHECK:         llvm.store %b,
// CHECK-NEXT:    %{{.*}} = llvm.call @nests_nest0(%[[CTX0]]) : (!llvm.ptr) -> i32
// CHECK-NOT:     llvm.br
// CHECK:         llvm.store %c,
// CHECK-NEXT:    %{{.*}} = llvm.call @nests_nest0(%[[CTX1]]) : (!llvm.ptr) -> i32
// CHECK-NOT:     llvm.br
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @nests_nest0(%ctx: !llvm.ptr) -> i32
// CHECK:         llvm.load %{{.*}} {alias_scopes = ["nests/a"]
// CHECK:         llvm.store %{{.*}} {alias_scopes = ["nests/b"]
// CHECK-NOT:   llvm.func @nests_nest1

// -----

// A nest with checks stays where it is (a failing check returns from the
// function); the two others are outlined. A function with one nest keeps it.
loop.func @checked(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %v, %b[%i] : !loop.buffer<[64], f32>
  }
  loop.for %j = %c0 extent %c64 {
    %ok = arith.cmpi slt, %j, %c64 : index
    loop.assert %ok, "j is {0}" (%j : index)
  }
  loop.for %k = %c0 extent %c64 {
    %w = loop.load %b[%k] : !loop.buffer<[64], f32>
    %x = arith.addf %w, %w : f32
    loop.store %x, %b[%k] : !loop.buffer<[64], f32>
  }
}
loop.func @single(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %v, %b[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @checked(
// CHECK:         llvm.call @checked_nest0(
// CHECK:         llvm.cond_br
// CHECK:         llvm.call @checked_nest1(
// CHECK-LABEL: llvm.func @single(
// CHECK-NOT:     llvm.call
// CHECK:         llvm.cond_br
// CHECK-LABEL: llvm.func @checked_nest0(%{{.*}}: !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @checked_nest1(%{{.*}}: !llvm.ptr) -> i32
// CHECK:         llvm.fadd
// CHECK-NOT:   llvm.func @single_nest

// -----

// Views that may share bytes with a view a nest does not access do not keep its
// nests apart: x overlaps z (z overwrites it in place), y overlaps nothing, and
// the nests copying into x, into y and out of z are one body. Each access's
// noalias list names only the groups the body accesses.
loop.func @views(%in: !loop.buffer<[16], f32>, %out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[128], i8>
  %x = loop.view "x" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %y = loop.view "y" %arena at "64" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %z = loop.view "z" %arena at "0" inplace "x" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %a = loop.load %in[%i] : !loop.buffer<[16], f32>
    loop.store %a, %x[%i] : !loop.buffer<[16], f32>
  }
  loop.for %j = %c0 extent %c16 {
    %b = loop.load %in[%j] : !loop.buffer<[16], f32>
    loop.store %b, %y[%j] : !loop.buffer<[16], f32>
  }
  loop.for %k = %c0 extent %c16 {
    %c = loop.load %z[%k] : !loop.buffer<[16], f32>
    loop.store %c, %out[%k] : !loop.buffer<[16], f32>
  }
}
// CHECK-LABEL: llvm.func @views(
// CHECK-COUNT-3: llvm.call @views_nest0(
// CHECK-LABEL: llvm.func @views_nest0(%ctx: !llvm.ptr) -> i32
// CHECK:         llvm.load %{{.*}} {alias_scopes = ["views/in"], noalias_scopes = ["views/arena.x"]}
// CHECK:         llvm.store %{{.*}} {alias_scopes = ["views/arena.x"], noalias_scopes = ["views/in"]}
// CHECK-NOT:   llvm.func @views_nest1
