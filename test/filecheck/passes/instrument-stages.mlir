// RUN: compiler-opt %s --split-input-file -p instrument-stages | filecheck %s


// Two nests: each is bracketed by its marks (2k before, 2k + 1 after); the
// intermediate's alloc stays outside them. The records name each nest's root stage,
// its shape and its loops (the stage's name cut from the loop names, grouped by kind),
// and which stores are to arguments (the output B is argument 1).
// The parallel loop is tagged with its nest: in the function lower-to-llvm outlines
// for it, each thread's chunk is timed.
loop.func @two_nests(%A: !loop.buffer<[16, 8], f32>, %B: !loop.buffer<[16, 8], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %T = loop.alloc "T" [%c0, %c0] : !loop.buffer<[16, 8], f32>
  loop.for %T_i = %c0 extent %c16 parallel {
    loop.for %T_j = %c0 extent %c8 vectorized {
      %v = loop.load %A[%T_i, %T_j] : !loop.buffer<[16, 8], f32>
      loop.store %v, %T[%T_i, %T_j] : !loop.buffer<[16, 8], f32>
    }
  }
  loop.for %B_i = %c0 extent %c16 {
    loop.for %B_j = %c0 extent %c8 {
      %w = loop.load %T[%B_i, %B_j] : !loop.buffer<[16, 8], f32>
      loop.store %w, %B[%B_i, %B_j] : !loop.buffer<[16, 8], f32>
    }
  }
}
// CHECK-LABEL: loop.func @two_nests
// CHECK-SAME:    profile.stages = [{name = "T", stores = ["T"], args = array<i64: -1>, shape = ["16", "8"], schedule = "par i(16) | vec j(8)"}, {name = "B", stores = ["B"], args = array<i64: 1>, shape = ["16", "8"], schedule = "i(16) j(8)"}]
// CHECK:         %T = loop.alloc "T"
// CHECK-NEXT:    %[[E0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    loop.call_extern @compiler_profile_mark(%[[E0]]) : index
// CHECK-NEXT:    loop.for %T_i = %c0 extent %c16 parallel attributes {profile.nest = 0 : i64} {
// CHECK:         {{^    }$}}
// CHECK-NEXT:    %[[E1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    loop.call_extern @compiler_profile_mark(%[[E1]]) : index
// CHECK-NEXT:    %[[E2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    loop.call_extern @compiler_profile_mark(%[[E2]]) : index
// CHECK-NEXT:    loop.for %B_i = %c0 extent %c16 {
// CHECK:         {{^    }$}}
// CHECK-NEXT:    %[[E3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    loop.call_extern @compiler_profile_mark(%[[E3]]) : index
// CHECK-NEXT:  }


// -----

// A stage computed at the root's loop (its buffer allocated inside the nest) and a
// thread-local accumulator: the root is the buffer defined outside the nest, the
// others follow it in `stores`. The schedule is that of the deepest store (the
// accumulation): the extent-1 loop is left out, the tail's extent is its bound.
loop.func @attached(%A: !loop.buffer<[10, 4], f32>, %B: !loop.buffer<[10], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c2 = arith.constant 2 : index
  loop.for %B_n = %c0 extent %c1 {
    loop.for %B_o = %c0 extent %c2 {
      %base = arith.muli %B_o, %c8 : index
      %left = arith.subi %c10, %base : index
      %tail = arith.minsi %left, %c8 : index
      %S = loop.alloc "S" [%base, %c0] : !loop.buffer<[8, 4], f32>
      loop.for %S_i = %c0 extent %tail {
        loop.for %S_k = %c0 extent %c4 {
          %row = arith.addi %base, %S_i : index
          %a = loop.load %A[%row, %S_k] : !loop.buffer<[10, 4], f32>
          loop.store %a, %S[%row, %S_k] : !loop.buffer<[8, 4], f32>
        }
      }
      loop.for %B_i = %c0 extent %tail {
        %row = arith.addi %base, %B_i : index
        %acc = loop.alloc local "B.acc" [%c0] : !loop.buffer<[1], f32>
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %acc[%c0] : !loop.buffer<[1], f32>
        loop.for %B_k = %c0 extent %c4 unrolled {
          %s = loop.load %S[%row, %B_k] : !loop.buffer<[8, 4], f32>
          %p = loop.load %acc[%c0] : !loop.buffer<[1], f32>
          %q = arith.addf %p, %s : f32
          loop.store %q, %acc[%c0] : !loop.buffer<[1], f32>
        }
        %r = loop.load %acc[%c0] : !loop.buffer<[1], f32>
        loop.store %r, %B[%row] : !loop.buffer<[10], f32>
      }
    }
  }
}
// CHECK-LABEL: loop.func @attached
// CHECK-SAME:    profile.stages = [{name = "B", stores = ["B", "S", "B.acc"], args = array<i64: 1, -1, -1>, shape = ["10"], schedule = "o(2) i(<=8) | unroll k(4)"}]
// CHECK:         loop.call_extern @compiler_profile_mark(%{{.*}}) : index
// CHECK-NEXT:    loop.for %B_n
// CHECK-COUNT-1: loop.call_extern @compiler_profile_mark

// -----

// Three serial nests: lower-to-llvm outlines each into a function of its own (the
// three are one function once deduplicated), and the marks stay between the calls.
loop.func @serial(%A: !loop.buffer<[64], f32>, %B: !loop.buffer<[64], f32> {loop.output}, %C: !loop.buffer<[64], f32> {loop.output}, %D: !loop.buffer<[64], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 {
    %v = loop.load %A[%i] : !loop.buffer<[64], f32>
    loop.store %v, %B[%i] : !loop.buffer<[64], f32>
  }
  loop.for %j = %c0 extent %c64 {
    %v = loop.load %B[%j] : !loop.buffer<[64], f32>
    loop.store %v, %C[%j] : !loop.buffer<[64], f32>
  }
  loop.for %k = %c0 extent %c64 {
    %v = loop.load %C[%k] : !loop.buffer<[64], f32>
    loop.store %v, %D[%k] : !loop.buffer<[64], f32>
  }
}
// CHECK-LABEL: loop.func @serial
// CHECK-SAME:    profile.stages = [{name = "B", stores = ["B"], args = array<i64: 1>, shape = ["64"], schedule = "i(64)"}, {name = "C", stores = ["C"], args = array<i64: 2>, shape = ["64"], schedule = "j(64)"}, {name = "D", stores = ["D"], args = array<i64: 3>, shape = ["64"], schedule = "k(64)"}]


// -----

// No loops, nothing to time: no marks, no records.
loop.func @no_loops(%A: !loop.buffer<[1], f32>, %B: !loop.buffer<[1], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %v = loop.load %A[%c0] : !loop.buffer<[1], f32>
  loop.store %v, %B[%c0] : !loop.buffer<[1], f32>
}
// CHECK-LABEL: loop.func @no_loops
// CHECK-SAME:    profile.stages = []
// CHECK-NOT:     compiler_profile_mark
