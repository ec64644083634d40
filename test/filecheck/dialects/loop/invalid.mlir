// RUN: compiler-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// An unknown loop kind is a parse error at the keyword.
loop.func @kind(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %c0 sideways {
  }
}
// CHECK: invalid.mlir:6:32
// CHECK: unknown loop kind 'sideways': expected one of serial, parallel, vectorized, unrolled

// -----

// A zero step.
loop.func @step(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  "loop.for"(%c0, %c0) <{step = 0 : index, kind = "serial"}> ({
  ^bb0(%i: index):
  }) : (index, index) -> ()
}
// CHECK: invalid.mlir:17:3: error: loop.for step must be in [1, 2^63 - 1], got 0

// -----

// A step of 2^63, which a 64-bit index wraps to a negative one (make fuzz seed 47: the
// loop never ended).
loop.func @huge_step(%a: !loop.buffer<[8], f32>) {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  loop.for %i = %c2 extent %c5 step 9223372036854775808 {
  }
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: loop.for step must be in [1, 2^63 - 1], got 9223372036854775808

// -----

// An alloc needs one min per dimension.
loop.func @mins(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  %t = loop.alloc "T" [%c0] : !loop.buffer<[4, 4], f32>
}
// CHECK: invalid.mlir:40:3: error: loop.alloc "T" needs one min per dimension: 2 expected, 1 given

// -----

// A load with too many indices.
loop.func @rank(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %a[%c0, %c0] : !loop.buffer<[4], f32>
}
// CHECK: invalid.mlir:49:3: error: loop.load of a rank-1 buffer takes 1 indices, got 2

// -----

// Storing an f64 into an f32 buffer.
loop.func @store(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f64
  "loop.store"(%x, %a, %c0) : (f64, !loop.buffer<[4], f32>, index) -> ()
}
// CHECK: invalid.mlir:59:3: error: loop.store of a f64 value into a buffer of f32

// -----

// An unknown kind in the generic form is caught by the verifier.
loop.func @kind_generic(%a: !loop.buffer<[4], f32>) {
  %c0 = arith.constant 0 : index
  "loop.for"(%c0, %c0) <{step = 1 : index, kind = "sideways"}> ({
  ^bb0(%i: index):
  }) : (index, index) -> ()
}
// CHECK: invalid.mlir:68:3: error: unknown loop kind 'sideways'

// -----

// A loop.call_extern argument that is neither a buffer nor a scalar.
loop.func @call_bool(%a: !loop.buffer<[4], f32>) {
  %t = arith.constant true
  loop.call_extern @f(%a, %t) : !loop.buffer<[4], f32>, i1
}
// CHECK: error: loop.call_extern @f: an argument is a buffer or an index, integer or float scalar, got i1

// -----

// A value used before it is defined (xDSL's parser resolves the forward
// reference; the dominance check refuses it, where the lowering would fail).
loop.func @used_before_defined(%a: !loop.buffer<[64], f32>, %c: !loop.buffer<[64], f32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %j = %c0 extent %c64 {
    loop.store %w, %c[%j] : !loop.buffer<[64], f32>
    %w = loop.load %a[%j] : !loop.buffer<[64], f32>
  }
}
// CHECK: invalid.mlir:91:5: error: loop.store uses %w before its definition

// -----

// A value defined in a loop body, used after the loop (out of its scope: a parse error).
loop.func @used_outside_its_block(%a: !loop.buffer<[64], f32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %j = %c0 extent %c64 {
    %w = loop.load %a[%j] : !loop.buffer<[64], f32>
  }
  loop.store %w, %a[%c0] : !loop.buffer<[64], f32>
}
// CHECK: values used but not defined: [%w]

// -----

// A loop bound defined inside the loop itself (the parser leaves the bound a
// forward reference: the loop header is parsed before its body).
loop.func @bound_inside_its_loop(%a: !loop.buffer<[64], f32>) {
  %c0 = arith.constant 0 : index
  loop.for %j = %c0 extent %n {
    %n = arith.constant 4 : index
  }
}
// CHECK: invalid.mlir:116:3: error: loop.for uses operand 1 before its definition

// -----

// A loop.var is an index (a type constraint checked while parsing: a located
// parse error, not an unlocated VerifyException).
loop.func @var_type(%a: !loop.buffer<["n"], f32>) {
  %n = loop.var "n" : f64
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3
// CHECK: f64 should be of base attribute index

// -----

// A loop.func inside another one.
loop.func @outer(%a: !loop.buffer<[4], f32>) {
  loop.func @inner(%b: !loop.buffer<[4], f32>) {
  }
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: loop.func must be at the top level of the module, not inside loop.func

// -----

// A buffer of an element type that has no size in memory.
loop.func @index_buffer(%a: !loop.buffer<[4], index>) {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:1
// CHECK: !loop.buffer: unsupported element type index: expected f16, bf16, f32, f64, i1, i8, i16, i32 or i64

// -----

// A static buffer larger than a 64-bit index can address.
loop.func @huge(%a: !loop.buffer<[4611686018427387904, 4], f32>) {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:34
// CHECK: !loop.buffer: shape [4611686018427387904, 4] is larger than a 64-bit index can address (9223372036854775807 bytes)

// -----

// The same in bytes: 2^61 elements of 4 bytes (checked once the element type is known).
loop.func @huge_in_bytes(%a: !loop.buffer<[2305843009213693952], f32>) {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:1
// CHECK: !loop.buffer: shape [2305843009213693952] is larger than a 64-bit index can address

// -----

// An integer constant out of its type's range, and an op given a type it does not
// take: xDSL checks both while parsing (fuzz buckets: unlocated before).
loop.func @int_range(%a: !loop.buffer<[4], i32>) {
  %c = arith.constant 4294967296 : i32
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3
// CHECK: Integer value 4294967296 is out of range for type i32

// -----

loop.func @op_type(%a: !loop.buffer<[4], i32>) {
  %c = arith.constant 1 : i32
  %d = arith.addi %c, %c : f64
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3

// -----

// A symbolic variable is an identifier.
loop.func @var_name(%a: !loop.buffer<["n"], f32>) {
  %q = loop.var "n + 1" : index
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: loop.var "n + 1": a symbolic variable's name is an identifier

// -----

// index is a signed 64-bit integer here (xDSL accepts up to 2^64 - 1; a pass
// folding it failed in an unlocated IntegerAttr error: fuzz bucket).
loop.func @index_range(%a: !loop.buffer<[4, 4], f32>) {
  %c = arith.constant 9223372036854775808 : index
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: index constant 9223372036854775808 does not fit a signed 64-bit index

// -----

// {unroll_full} (unroll-loops sets it) needs a constant extent of at most 1024
// iterations: LLVM would refuse a longer one with a warning naming no op (fuzz bucket).
loop.func @unroll_symbolic(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n unrolled attributes {unroll_full} {
    %z = arith.constant 0.0 : f32
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:3: error: loop.for {unroll_full} needs a constant extent

// -----

loop.func @unroll_long(%a: !loop.buffer<[4096], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  loop.for %i = %c0 extent %c4096 step 2 unrolled attributes {unroll_full} {
    %z = arith.constant 0.0 : f32
    loop.store %z, %a[%i] : !loop.buffer<[4096], f32>
  }
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:3: error: loop.for {unroll_full} has 2048 iterations, more than the 1024 it may unroll

// -----

// One loop.var per name in a function (passes map a name to one value: a second
// one left loop-partition using a value out of its scope, unlocated; make fuzz).
loop.func @twice(%a: !loop.buffer<["h"], f32> {loop.output}) {
  %h = loop.var "h" : index
  %w = loop.var "h" : index
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: loop.var "h" is defined twice in @twice

// -----

// A loop.dtype names an unsigned dtype of the buffer's integer width (make-packed-api
// reads it as the argument's DLPack type; compiler-run reached it unlocated, make fuzz).
loop.func @wide(%a: !loop.buffer<[4], i16> {loop.dtype = "uint8"}, %b: !loop.buffer<[4], i16> {loop.output}) {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:1: error: loop.func argument 0: loop.dtype 'uint8' needs a buffer of i8 elements, got !loop.buffer<[4], i16>

// -----

// A shape_bounds range is a range of sizes over the function's symbolic variables.
loop.func @ranged(%a: !loop.buffer<["n"], f32> {loop.output}) attributes {shape_bounds = {n = array<i64: 4, 2>}} {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:1: error: loop.func @ranged: the range of 'n' is [4, 2]; a size range needs 0 <= lower <= upper

// -----

loop.func @unknown(%a: !loop.buffer<["n"], f32> {loop.output}) attributes {shape_bounds = {m = array<i64: 1>}} {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:1: error: loop.func @unknown: 'shape_bounds' names 'm', which is no symbolic dimension of the function

// -----

loop.func @untyped(%a: !loop.buffer<["n"], f32> {loop.output}) attributes {shape_bounds = {n = [1, 2]}} {
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:1: error: loop.func @untyped: the range of 'n' must be array<i64: lower> or array<i64: lower, upper>, got [1 : i64, 2 : i64]
