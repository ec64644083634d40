// RUN: compiler-opt %s --split-input-file -p 'lower-to-llvm{vector-bits=256}' | filecheck %s

// A vectorized loop of 20 floats with 256-bit vectors: a vector loop over the first
// 16 (step 8: vector load, broadcast of the invariant factor, vector fmul, vector
// store) and a scalar tail for the last 4. `x` is an argument (DLPack data may have
// any alignment): its accesses claim only the element's 4 bytes.
loop.func @axpy(%x: !loop.buffer<[20], f32>, %y: !loop.buffer<[20], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c20 = arith.constant 20 : index
  %a = arith.constant 2.0 : f32
  loop.for %i = %c0 extent %c20 vectorized {
    %v = loop.load %x[%i] : !loop.buffer<[20], f32>
    %w = arith.mulf %v, %a : f32
    loop.store %w, %y[%i] : !loop.buffer<[20], f32>
  }
}
// CHECK-LABEL: llvm.func @axpy(
// CHECK:         %[[STEP:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %[[SPLIT:.*]] = llvm.mlir.constant(16) : i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %a = llvm.mlir.constant(2.000000e+00 : f32) : f32
// CHECK-NEXT:    llvm.br ^[[VHEAD:.*]](%c0 : i64)
// CHECK-NEXT:  ^[[VHEAD]](%i_vec: i64):
// CHECK-NEXT:    %[[C:.*]] = llvm.icmp "slt" %i_vec, %[[SPLIT]] : i64
// CHECK:         %[[PX:.*]] = llvm.getelementptr inbounds %x[%i_vec] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[PX]] {alias_scopes = ["axpy/x"], noalias_scopes = ["axpy/y"], alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : vector<8xf32>
// CHECK-NEXT:    %[[INS:.*]] = llvm.insertelement %a, %[[U]][%[[ZERO]] : i32] : vector<8xf32>
// CHECK-NEXT:    %[[BCAST:.*]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<8xf32>
// CHECK-NEXT:    %[[W:.*]] = llvm.fmul %[[V]], %[[BCAST]] {fastmathFlags = #llvm.fastmath<contract>} : vector<8xf32>
// CHECK-NEXT:    %[[PY:.*]] = llvm.getelementptr inbounds %y[%i_vec] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[W]], %[[PY]] {alias_scopes = ["axpy/y"], noalias_scopes = ["axpy/x"], alignment = 4 : i64} : vector<8xf32>, !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.add %i_vec, %[[STEP]] overflow<nsw> : i64
// CHECK:         llvm.br ^[[THEAD:.*]](%[[SPLIT]] : i64)
// CHECK-NEXT:  ^[[THEAD]](%i: i64):
// CHECK-NEXT:    llvm.icmp "slt" %i, %c20 : i64
// CHECK:         %v = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %w = llvm.fmul %v, %a {fastmathFlags = #llvm.fastmath<contract>} : f32

// -----

// The lanes come from what each lane loads: the i64 read at one address in every lane
// (a grouped matmul's expert id) is one scalar, so the floats take 8 lanes of 256 bits,
// not the 4 an i64 vector would hold.
loop.func @uniform_index(%g: !loop.buffer<[1], i64>, %w: !loop.buffer<[32], f32>, %y: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  loop.for %j = %c0 extent %c16 vectorized {
    %e = loop.load %g[%c0] : !loop.buffer<[1], i64>
    %row = arith.index_cast %e : i64 to index
    %base = arith.muli %row, %c16 : index
    %at = arith.addi %base, %j : index
    %v = loop.load %w[%at] : !loop.buffer<[32], f32>
    loop.store %v, %y[%j] : !loop.buffer<[16], f32>
  }
}
// CHECK-LABEL: llvm.func @uniform_index(
// CHECK:         %e = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK:         llvm.store %[[V]], %{{.*}} : vector<8xf32>, !llvm.ptr

// -----

// An arena view at byte 256 (the compiler's 64-byte aligned allocation) written at
// i, a multiple of 8 floats: 32-byte aligned. Read back at i + 2: 8 bytes.
loop.func @aligned(%x: !loop.buffer<[64], f32>, %y: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c2 = arith.constant 2 : index
  %c60 = arith.constant 60 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[512], i8>
  %t = loop.view "t" %arena at "256" : !loop.buffer<[512], i8> -> !loop.buffer<[64], f32>
  loop.for %i = %c0 extent %c64 vectorized {
    %v = loop.load %x[%i] : !loop.buffer<[64], f32>
    loop.store %v, %t[%i] : !loop.buffer<[64], f32>
  }
  loop.for %i = %c0 extent %c60 vectorized {
    %k = arith.addi %i, %c2 : index
    %v = loop.load %t[%k] : !loop.buffer<[64], f32>
    loop.store %v, %y[%i] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: llvm.func @aligned(
// CHECK:         llvm.load %{{.*}} {alias_scopes = ["aligned/x"], {{.*}}alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// CHECK:         llvm.store %{{.*}} {alias_scopes = ["aligned/arena.t"], {{.*}}alignment = 32 : i64} : vector<8xf32>, !llvm.ptr
// CHECK:         llvm.load %{{.*}} {alias_scopes = ["aligned/arena.t"], {{.*}}alignment = 8 : i64} : !llvm.ptr -> vector<8xf32>
// CHECK:         llvm.store %{{.*}} {alias_scopes = ["aligned/y"], {{.*}}alignment = 4 : i64} : vector<8xf32>, !llvm.ptr

// -----

// A store into one element (a reduction over the vectorized loop): vectorizing it
// would reassociate the sum, so the loop stays scalar.
loop.func @reduce(%x: !loop.buffer<[32], f32>, %s: !loop.buffer<[1], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  loop.for %i = %c0 extent %c32 vectorized {
    %v = loop.load %x[%i] : !loop.buffer<[32], f32>
    %a = loop.load %s[%c0] : !loop.buffer<[1], f32>
    %b = arith.addf %a, %v : f32
    loop.store %b, %s[%c0] : !loop.buffer<[1], f32>
  }
}
// CHECK-LABEL: llvm.func @reduce(
// CHECK-NOT:     vector
// CHECK:         %b = llvm.fadd %a, %v {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NOT:     vector
// CHECK:         llvm.return

// -----

// Stride 2 reads are gathered (one scalar load per lane, inserted into a vector); a
// static extent below the width (4 < 8) takes 4 lanes, with no tail.
loop.func @gather(%x: !loop.buffer<[8], f32>, %y: !loop.buffer<[4], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  loop.for %i = %c0 extent %c4 vectorized {
    %k = arith.muli %i, %c2 : index
    %v = loop.load %x[%k] : !loop.buffer<[8], f32>
    loop.store %v, %y[%i] : !loop.buffer<[4], f32>
  }
}
// CHECK-LABEL: llvm.func @gather(
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %k = llvm.mul %i_vec, %c2 overflow<nsw> : i64
// CHECK-NEXT:    %[[P0:.*]] = llvm.getelementptr inbounds %x[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[L0:.*]] = llvm.load %[[P0]] {{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %[[P0]][%c2] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-COUNT-4: llvm.insertelement
// CHECK-NEXT:    llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.add %i_vec, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^{{.*}}
// CHECK-NEXT:  ^{{.*}}:
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32

// -----

// A guard the same in every lane (a causal product's row guard: `k <= r`, r an outer
// loop's value) stays an `if` around the vector ops it holds; one that differs
// between lanes (`i <= r`) keeps the loop scalar.
loop.func @uniform_guard(%x: !loop.buffer<[16], f32>, %y: !loop.buffer<[16], f32> {loop.output}, %r: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  loop.for %i = %c0 extent %c16 vectorized {
    %c = arith.cmpi sle, %k, %r : index
    loop.if %c likely {
      %v = loop.load %x[%i] : !loop.buffer<[16], f32>
      %a = loop.load %y[%i] : !loop.buffer<[16], f32>
      %s = arith.addf %a, %v : f32
      loop.store %s, %y[%i] : !loop.buffer<[16], f32>
    }
  }
  loop.for %i = %c0 extent %c16 vectorized {
    %c = arith.cmpi sle, %i, %r : index
    loop.if %c likely {
      %v = loop.load %x[%i] : !loop.buffer<[16], f32>
      loop.store %v, %y[%i] : !loop.buffer<[16], f32>
    }
  }
}
// CHECK-LABEL: llvm.func @uniform_guard_nest0(
// CHECK:       ^{{.*}}(%i_vec: i64):
// CHECK:         %c = llvm.icmp "sle" %k_1, %r_1 : i64
// CHECK-NEXT:    llvm.cond_br %c, ^[[THEN:.*]], ^{{.*}}
// CHECK-NEXT:  ^[[THEN]]:
// CHECK:         llvm.load %{{.*}} -> vector<8xf32>
// CHECK:         llvm.load %{{.*}} -> vector<8xf32>
// CHECK-NEXT:    llvm.fadd %{{.*}} : vector<8xf32>
// CHECK:         llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK-LABEL: llvm.func @uniform_guard_nest1(
// CHECK-NOT:     vector
// CHECK:         llvm.return

// -----

// A symbolic extent: the vector loop covers (n / 4) * 4 doubles (256 bits), the
// scalar loop the rest; math ops become vector intrinsics. The bounds start at 0:
// the upper bound 0 + n is n, the vector loop's end 0 + (n / 4) * 4 its count.
loop.func @symbolic(%x: !loop.buffer<["n"], f64>, %y: !loop.buffer<["n"], f64> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n vectorized {
    %v = loop.load %x[%i] : !loop.buffer<["n"], f64>
    %e = math.sqrt %v : f64
    loop.store %e, %y[%i] : !loop.buffer<["n"], f64>
  }
}
// CHECK-LABEL: llvm.func @symbolic(
// CHECK:         %[[FOUR:.*]] = llvm.mlir.constant(4) : i64
// CHECK:         %[[POS:.*]] = llvm.call_intrinsic "llvm.smax.i64"(%n, %c0) : (i64, i64) -> i64
// CHECK-NEXT:    %[[Q:.*]] = llvm.udiv %[[POS]], %[[FOUR]] : i64
// CHECK-NEXT:    %[[SPLIT:.*]] = llvm.mul %[[Q]], %[[FOUR]] overflow<nsw> : i64
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> vector<4xf64>
// CHECK-NEXT:    llvm.call_intrinsic "llvm.sqrt.v4f64"(%{{.*}}) : (vector<4xf64>) -> vector<4xf64>
// CHECK:         llvm.store %{{.*}} : vector<4xf64>, !llvm.ptr
// CHECK:         llvm.br ^[[THEAD:.*]](%[[SPLIT]] : i64)
// CHECK-NEXT:  ^[[THEAD]](%i: i64):
// CHECK-NEXT:    llvm.icmp "slt" %i, %n : i64
// CHECK:         llvm.call_intrinsic "llvm.sqrt.f64"

// -----

// fp-contract (on by default) marks float multiplies and adds `contract` (LLVM may
// fuse a*b+c into one FMA, rounded once); fp-contract=false leaves them as written,
// fast-math adds reassociation.
// RUN: compiler-opt %s --split-input-file -p 'lower-to-llvm{vector-bits=256 fp-contract=false}' | filecheck %s --check-prefix=EXACT
// RUN: compiler-opt %s --split-input-file -p 'lower-to-llvm{vector-bits=256 fast-math=true}' | filecheck %s --check-prefix=FAST
loop.func @muladd(%x: !loop.buffer<[4], f32>, %y: !loop.buffer<[4], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  loop.for %i = %c0 extent %c4 {
    %v = loop.load %x[%i] : !loop.buffer<[4], f32>
    %p = arith.mulf %v, %v : f32
    %s = arith.addf %p, %v : f32
    loop.store %s, %y[%i] : !loop.buffer<[4], f32>
  }
}
// CHECK-LABEL: llvm.func @muladd(
// CHECK:         %p = llvm.fmul %v, %v {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK:         %s = llvm.fadd %p, %v {fastmathFlags = #llvm.fastmath<contract>} : f32
// EXACT-LABEL: llvm.func @muladd(
// EXACT:         %p = llvm.fmul %v, %v : f32
// EXACT:         %s = llvm.fadd %p, %v : f32
// FAST-LABEL: llvm.func @muladd(
// FAST:          %p = llvm.fmul %v, %v {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
// FAST:          %s = llvm.fadd %p, %v {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
