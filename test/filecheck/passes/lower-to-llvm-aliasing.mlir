// RUN: compiler-opt %s --split-input-file -p lower-to-llvm | filecheck %s

// Each view of one arena is an alias group, told apart from another view only when
// their bytes are proven disjoint: x [0, 64) and y [64, 128) are; z overwrites x in
// place ([0, 64)), so x and z are not told apart (neither names the other), while
// both are apart from y. Every load and store names its group and those it can't touch.
loop.func @arena(%in: !loop.buffer<[16], f32>, %out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[128], i8>
  %x = loop.view "x" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %y = loop.view "y" %arena at "64" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %z = loop.view "z" %arena at "0" inplace "x" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %a = loop.load %in[%i] : !loop.buffer<[16], f32>
    loop.store %a, %x[%i] : !loop.buffer<[16], f32>
    %b = loop.load %x[%i] : !loop.buffer<[16], f32>
    loop.store %b, %y[%i] : !loop.buffer<[16], f32>
    %c = loop.load %y[%i] : !loop.buffer<[16], f32>
    loop.store %c, %z[%i] : !loop.buffer<[16], f32>
    %d = loop.load %z[%i] : !loop.buffer<[16], f32>
    loop.store %d, %out[%i] : !loop.buffer<[16], f32>
  }
}
// CHECK-LABEL: llvm.func @arena(
// CHECK:         %a = llvm.load %{{.*}} {alias_scopes = ["arena/in"], noalias_scopes = ["arena/arena.x", "arena/arena.y", "arena/arena.z", "arena/out"]}
// CHECK:         llvm.store %a, %{{.*}} {alias_scopes = ["arena/arena.x"], noalias_scopes = ["arena/arena.y", "arena/in", "arena/out"]}
// CHECK:         %b = llvm.load %{{.*}} {alias_scopes = ["arena/arena.x"], noalias_scopes = ["arena/arena.y", "arena/in", "arena/out"]}
// CHECK:         llvm.store %b, %{{.*}} {alias_scopes = ["arena/arena.y"], noalias_scopes = ["arena/arena.x", "arena/arena.z", "arena/in", "arena/out"]}
// CHECK:         %c = llvm.load %{{.*}} {alias_scopes = ["arena/arena.y"], noalias_scopes = ["arena/arena.x", "arena/arena.z", "arena/in", "arena/out"]}
// CHECK:         llvm.store %c, %{{.*}} {alias_scopes = ["arena/arena.z"], noalias_scopes = ["arena/arena.y", "arena/in", "arena/out"]}
// CHECK:         %d = llvm.load %{{.*}} {alias_scopes = ["arena/arena.z"], noalias_scopes = ["arena/arena.y", "arena/in", "arena/out"]}
// CHECK:         llvm.store %d, %{{.*}} {alias_scopes = ["arena/out"], noalias_scopes = ["arena/arena.x", "arena/arena.y", "arena/arena.z", "arena/in"]}

// -----

// The facts are pairwise, not a partition: p [0, 64) overlaps q [32, 96), which
// overlaps r [64, 128), yet p and r are disjoint and told apart (grouped by overlap,
// the three were one group: a network's reused arena made every view one group).
loop.func @chain(%out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[128], i8>
  %p = loop.view "p" %arena at "0" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %q = loop.view "q" %arena at "32" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  %r = loop.view "r" %arena at "64" : !loop.buffer<[128], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %a = loop.load %p[%i] : !loop.buffer<[16], f32>
    loop.store %a, %r[%i] : !loop.buffer<[16], f32>
    %b = loop.load %q[%i] : !loop.buffer<[16], f32>
    loop.store %b, %out[%i] : !loop.buffer<[16], f32>
  }
}
// CHECK-LABEL: llvm.func @chain(
// CHECK:         %a = llvm.load %{{.*}} {alias_scopes = ["chain/arena.p"], noalias_scopes = ["chain/arena.r", "chain/out"]}
// CHECK:         llvm.store %a, %{{.*}} {alias_scopes = ["chain/arena.r"], noalias_scopes = ["chain/arena.p", "chain/out"]}
// CHECK:         %b = llvm.load %{{.*}} {alias_scopes = ["chain/arena.q"], noalias_scopes = ["chain/out"]}

// -----

// Symbolic sizes: u [0, 4n) and v [4n, 8n) are disjoint for every n >= 0; w at
// [2n, 6n) may overlap u (next case): neither names the other.
loop.func @symbolic(%out: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["n * 8"], i8>
  %u = loop.view "u" %arena at "0" : !loop.buffer<["n * 8"], i8> -> !loop.buffer<["n"], f32>
  %v = loop.view "v" %arena at "n * 4" : !loop.buffer<["n * 8"], i8> -> !loop.buffer<["n"], f32>
  loop.for %i = %c0 extent %n {
    %a = loop.load %u[%i] : !loop.buffer<["n"], f32>
    loop.store %a, %v[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: llvm.func @symbolic(
// CHECK:         %a = llvm.load %{{.*}} {alias_scopes = ["symbolic/arena.u"], noalias_scopes = ["symbolic/arena.v"]}
// CHECK:         llvm.store %a, %{{.*}} {alias_scopes = ["symbolic/arena.v"], noalias_scopes = ["symbolic/arena.u"]}

// -----

loop.func @symbolic_overlap(%out: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<["n * 8"], i8>
  %u = loop.view "u" %arena at "0" : !loop.buffer<["n * 8"], i8> -> !loop.buffer<["n"], f32>
  %w = loop.view "w" %arena at "n * 2" : !loop.buffer<["n * 8"], i8> -> !loop.buffer<["n"], f32>
  loop.for %i = %c0 extent %n {
    %a = loop.load %u[%i] : !loop.buffer<["n"], f32>
    loop.store %a, %w[%i] : !loop.buffer<["n"], f32>
    loop.store %a, %out[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK-LABEL: llvm.func @symbolic_overlap(
// CHECK:         %a = llvm.load %{{.*}} {alias_scopes = ["symbolic_overlap/arena.u"], noalias_scopes = ["symbolic_overlap/out"]}
// CHECK:         llvm.store %a, %{{.*}} {alias_scopes = ["symbolic_overlap/arena.w"], noalias_scopes = ["symbolic_overlap/out"]}

// -----

// A parallel loop's outlined body reloads its pointers from the context array:
// its accesses keep the groups of the function they came from.
loop.func @par(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 parallel {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %v, %b[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @par(
// CHECK:         llvm.call @GOMP_parallel
// CHECK-LABEL: llvm.func @par_parallel0(%ctx: !llvm.ptr)
// CHECK:         %v = llvm.load %{{.*}} {alias_scopes = ["par/a"], noalias_scopes = ["par/b"]}
// CHECK:         llvm.store %v, %{{.*}} {alias_scopes = ["par/b"], noalias_scopes = ["par/a"]}

// -----

// After outlining, each body's noalias lists name only the groups it accesses: the
// first loop never touches c or d, the second (other code: not merged) never a or b
// (a network's bodies named all of its hundreds of groups, each list a metadata node
// in every body's module).
loop.func @two(%a: !loop.buffer<[64], f32>, %b: !loop.buffer<[64], f32> {loop.output}, %c: !loop.buffer<[64], f32>, %d: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 parallel {
    %v = loop.load %a[%i] : !loop.buffer<[64], f32>
    loop.store %v, %b[%i] : !loop.buffer<[64], f32>
  }
  loop.for %j = %c0 extent %c64 parallel {
    %w = loop.load %c[%j] : !loop.buffer<[64], f32>
    %x = arith.addf %w, %w : f32
    loop.store %x, %d[%j] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @two_parallel0(%ctx: !llvm.ptr)
// CHECK:         %v = llvm.load %{{.*}} {alias_scopes = ["two/a"], noalias_scopes = ["two/b"]}
// CHECK:         llvm.store %v, %{{.*}} {alias_scopes = ["two/b"], noalias_scopes = ["two/a"]}
// CHECK-LABEL: llvm.func @two_parallel1(
// CHECK:         %w = llvm.load %{{.*}} {alias_scopes = ["two/c"], noalias_scopes = ["two/d"]}
// CHECK:         llvm.store %x, %{{.*}} {alias_scopes = ["two/d"], noalias_scopes = ["two/c"]}
