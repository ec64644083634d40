// RUN: compiler-opt %s --split-input-file --verify-diagnostics -p storage-rewrite | filecheck %s

// storage-rewrite plans a function once: an arena of views already planned
// (here by hand) is refused at its first planned op.
loop.func @planned(%in: !loop.buffer<[16], f32>, %out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[128], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %v = loop.load %in[%i] : !loop.buffer<[16], f32>
    loop.store %v, %a[%i] : !loop.buffer<[16], f32>
    %w = loop.load %a[%i] : !loop.buffer<[16], f32>
    loop.store %w, %out[%i] : !loop.buffer<[16], f32>
  }
}
// CHECK: storage-rewrite-invalid.mlir:[[# @LINE - 9]]:3: error: storage-rewrite: @planned already has a memory plan (loop.alloc "arena"); a function is planned once, from loop.alloc only

// -----

// A view of another buffer, without the arena.
loop.func @view(%in: !loop.buffer<[16], f32>, %out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %bytes = loop.alloc "bytes" [%c0] : !loop.buffer<[64], i8>
  %a = loop.view "a" %bytes at "0" : !loop.buffer<[64], i8> -> !loop.buffer<[16], f32>
  %v = loop.load %in[%c0] : !loop.buffer<[16], f32>
  loop.store %v, %a[%c0] : !loop.buffer<[16], f32>
}
// CHECK: storage-rewrite-invalid.mlir:[[# @LINE - 4]]:3: error: storage-rewrite: @view already has a memory plan (loop.view "a")

// -----

// The plan names each buffer: two allocations of one name are refused at the second
// (they would have shared the name's offset, and so their memory; found by make fuzz).
loop.func @same_name(%in: !loop.buffer<[16], f32>, %out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = loop.alloc "t" [%c0] : !loop.buffer<[16], f32>
  %b = loop.alloc "t" [%c0] : !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %v = loop.load %in[%i] : !loop.buffer<[16], f32>
    loop.store %v, %a[%i] : !loop.buffer<[16], f32>
    %w = loop.load %a[%i] : !loop.buffer<[16], f32>
    loop.store %w, %b[%i] : !loop.buffer<[16], f32>
    %x = loop.load %b[%i] : !loop.buffer<[16], f32>
    loop.store %x, %out[%i] : !loop.buffer<[16], f32>
  }
}
// CHECK: storage-rewrite-invalid.mlir:[[# @LINE - 10]]:3: error: storage-rewrite: two buffers are named "t"; give each loop.alloc its own name
