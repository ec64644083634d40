// RUN: compiler-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// A negative static dimension.
te.func @negative(%a: !te.tensor<[-4], f32>) -> !te.tensor<[-4], f32> {
  te.return %a : !te.tensor<[-4], f32>
}
// CHECK: invalid.mlir:4:34
// CHECK: !te.tensor: dimension 0 is negative (-4)

// -----

// A symbolic dimension that is not an index expression.
te.func @bad_dim(%a: !te.tensor<["n +"], f32>) -> !te.tensor<["n +"], f32> {
  te.return %a : !te.tensor<["n +"], f32>
}
// CHECK: invalid.mlir:13:33
// CHECK: dimension 0 'n +' is not a symbolic expression

// -----

// Too few indices for a rank-2 tensor.
te.func @rank(%a: !te.tensor<[4, 4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %v = te.read %a[%i] : !te.tensor<[4, 4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:24:5: error: te.read of a rank-2 tensor takes 2 indices, got 1

// -----

// A compute with the wrong number of index arguments.
te.func @axes(%a: !te.tensor<[4], f32>) -> !te.tensor<[4, 4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4, 4], f32> {
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4, 4], f32>
}
// CHECK: invalid.mlir:35:3: error: te.compute "C" has 1 index arguments for a rank-2 result

// -----

// The yielded element must have the tensor's element type.
te.func @elem(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f64> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f64> {
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f64>
}
// CHECK: invalid.mlir:47:3: error: te.compute "C" yields f32, expected the element type f64

// -----

// A reduction nested inside other arithmetic is not allowed (as in TVM).
te.func @nested(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %r = te.reduce sum (%k) in [4] : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    }
    %two = arith.addf %r, %r : f32
    te.yield %two : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:59:3: error: te.compute "C": a te.reduce must be the value the stage yields

// -----

// An unknown reduction kind.
te.func @kind(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %r = te.reduce mean (%k) in [4] : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:76:20
// CHECK: unknown reduction 'mean': expected one of sum, prod, max, min

// -----

// A symbolic variable that no argument shape binds.
te.func @unbound(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %m = te.var "m" : index
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:92:5: error: symbolic variable 'm' appears in no argument or result shape of @unbound and is no scalar argument, so nothing can bind it

// -----

// te.return must match the declared results.
te.func @ret(%a: !te.tensor<[4], f32>) -> !te.tensor<[5], f32> {
  te.return %a : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:103:1: error: te.return types ['!te.tensor<[4], f32>'] do not match the function results ['!te.tensor<[5], f32>']

// -----

// te.where is the predicate of a reduction: it belongs in a te.reduce body.
te.func @where_outside(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %t = arith.constant true
    te.where %t
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:114:5: error: 'te.where' expects parent op 'te.reduce'

// -----

// Its predicate is an i1.
te.func @where_type(%a: !te.tensor<[4], f32>) -> !te.tensor<[1], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[1], f32> {
    %s = te.reduce sum (%k) in [4] : f32 {
      te.where %k
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[1], f32>
}
// CHECK: invalid.mlir:128:16
// CHECK: operand is used with type i1, but has been previously used or defined with type index

// -----

// A reduction with several results needs a combiner.
te.func @two_sums(%a: !te.tensor<[4], f32>) -> (!te.tensor<[1], f32>, !te.tensor<[1], f32>) {
  %c, %d = te.compute "C" (%i) : !te.tensor<[1], f32>, !te.tensor<[1], f32> {
    %s, %t = te.reduce sum (%k) in [4] : f32, f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v, %v : f32, f32
    }
    te.yield %s, %t : f32, f32
  }
  te.return %c, %d : !te.tensor<[1], f32>, !te.tensor<[1], f32>
}
// CHECK: invalid.mlir:144:5: error: te.reduce sum has one result, got 2: several need a combiner

// -----

// A user reducer needs its start values.
te.func @no_init(%a: !te.tensor<[4], f32>) -> !te.tensor<[1], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[1], f32> {
    %s = te.reduce mul (%k) in [4] : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    } combiner (%x, %y) {
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[1], f32>
}
// CHECK: invalid.mlir:159:5: error: te.reduce mul: a reducer with a combiner needs its start values, init(...)

// -----

// The combiner yields the new accumulators, one per result.
te.func @bad_combiner(%a: !te.tensor<[4], f32>) -> !te.tensor<[1], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[1], f32> {
    %s = te.reduce mul (%k) in [4] init(1.0 : f32) : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    } combiner (%x, %y) {
      te.yield %x, %y : f32, f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[1], f32>
}
// CHECK: invalid.mlir:177:5: error: te.reduce mul: the combiner must yield the new accumulators (f32)

// -----

// The tensors of one stage have one shape.
te.func @shapes(%a: !te.tensor<[4], f32>) -> (!te.tensor<[4], f32>, !te.tensor<[5], f32>) {
  %c, %d = te.compute "C" (%i) : !te.tensor<[4], f32>, !te.tensor<[5], f32> {
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v, %v : f32, f32
  }
  te.return %c, %d : !te.tensor<[4], f32>, !te.tensor<[5], f32>
}
// CHECK: invalid.mlir:193:3: error: te.compute "C": every result has the shape of the first, [4], got [5]

// -----

// A multi-output reduction yields all of its results, in order.
te.func @order(%a: !te.tensor<[4], f32>) -> (!te.tensor<[1], f32>, !te.tensor<[1], f32>) {
  %c, %d = te.compute "C" (%i) : !te.tensor<[1], f32>, !te.tensor<[1], f32> {
    %s, %t = te.reduce both (%k) in [4] init(0.0 : f32, 1.0 : f32) : f32, f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v, %v : f32, f32
    } combiner (%x0, %x1, %y0, %y1) {
      %s0 = arith.addf %x0, %y0 : f32
      %s1 = arith.mulf %x1, %y1 : f32
      te.yield %s0, %s1 : f32, f32
    }
    te.yield %t, %s : f32, f32
  }
  te.return %c, %d : !te.tensor<[1], f32>, !te.tensor<[1], f32>
}
// CHECK: invalid.mlir:205:3: error: te.compute "C": a te.reduce must be the value the stage yields (all of its results, in order)

// -----

// A "?" extent needs its dynamic(...) operand.
te.func @dynamic_count(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %r = te.reduce sum (%k, %l) in ["?", "?"] dynamic(%i) : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    }
    te.yield %r : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: error: te.reduce has 2 dynamic ("?") extents but 1 dynamic(...) operands

// -----

// A scalar argument is a 0-d i64 tensor.
te.func @scalar_type(%x: !te.tensor<[2], i64> {te.scalar = "x"}, %a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: error: te.func scalar argument 0 ('x') must be a !te.tensor<[], i64>, got !te.tensor<[2], i64>

// -----

// A scan's init must have the state's extents past the time axis.
te.func @state_shape(%x: !te.tensor<[8, 4], f32>) -> !te.tensor<[8, 4], f32> {
  %init = te.compute "init" (%z, %i) : !te.tensor<[1, 3], f32> {
    %c0 = arith.constant 0 : index
    %v = te.read %x[%c0, %i] : !te.tensor<[8, 4], f32>
    te.yield %v : f32
  }
  %state = te.state "S"[0] init %init : !te.tensor<[1, 3], f32> -> !te.tensor<[8, 4], f32>
  te.return %x : !te.tensor<[8, 4], f32>
}
// CHECK: error: te.state of "S": init [1, 3] and state [8, 4] differ past the time axis

// -----

// A te.extern that never passes its result to the callee.
te.func @extern_unwritten(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %b = te.extern "B" @f(%a) : (!te.tensor<[4], f32>) -> !te.tensor<[4], f32>
  te.return %b : !te.tensor<[4], f32>
}
// CHECK: error: te.extern "B": the callee is not given result(s) 0 (out k) to write

// -----

// `out 1` of a te.extern with one result.
te.func @extern_out_of_range(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %b = te.extern "B" @f(%a, out 0, out 1) : (!te.tensor<[4], f32>) -> !te.tensor<[4], f32>
  te.return %b : !te.tensor<[4], f32>
}
// CHECK: error: te.extern "B": out 1 names no result (it has 1)

// -----

// A boolean scalar argument (the generic form: the custom one resolves types from the list).
te.func @extern_bool(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %t = arith.constant true
  %b = "te.extern"(%a, %t) <{stage = "B", callee = @f, call_args = [-1 : i64, 0 : i64, -1 : i64]}> : (!te.tensor<[4], f32>, i1) -> !te.tensor<[4], f32>
  te.return %b : !te.tensor<[4], f32>
}
// CHECK: error: te.extern "B": an argument is a tensor or an index, integer or float scalar, got i1

// -----

// A te.state must name a te.compute of its function (the scan).
te.func @state_of_nothing(%x: !te.tensor<[8, 4], f32>) -> !te.tensor<[8, 4], f32> {
  %init = te.compute "init" (%z, %i) : !te.tensor<[1, 4], f32> {
    %c0 = arith.constant 0 : index
    %v = te.read %x[%c0, %i] : !te.tensor<[8, 4], f32>
    te.yield %v : f32
  }
  %state = te.state "nope"[0] init %init : !te.tensor<[1, 4], f32> -> !te.tensor<[8, 4], f32>
  te.return %x : !te.tensor<[8, 4], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: te.state of "nope": no te.compute of @state_of_nothing is named "nope"

// -----

// A combiner may use the compute's axes from outside, nothing else (here a value of the compute's body).
te.func @combiner_outside(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %w = te.read %a[%i] : !te.tensor<[4], f32>
    %s = te.reduce mul (%k) in [4] init(1.0 : f32) : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    } combiner (%x, %y) {
      %p = arith.mulf %x, %y : f32
      %q = arith.addf %p, %w : f32
      te.yield %q : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: error: te.reduce mul: the combiner uses %w from outside it; only the compute's axes may be used there

// -----

// Nor may the identity region: a shape variable it uses is a te.var of its own.
te.func @identity_outside(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %c = te.compute "C" (%i) : !te.tensor<["n"], f32> {
    %n = te.var "n" : index
    %s = te.reduce mul (%k) in [4] : f32 {
      %v = te.read %a[%k] : !te.tensor<["n"], f32>
      te.yield %v : f32
    } identity {
      %n64 = arith.index_cast %n : index to i64
      %f = arith.sitofp %n64 : i64 to f32
      te.yield %f : f32
    } combiner (%x, %y) {
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<["n"], f32>
}
// CHECK: error: te.reduce mul: the identity region uses %n from outside it; only the compute's axes may be used there

// -----

// Start values come from init(...) or from an identity region, not both.
te.func @init_and_identity(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %s = te.reduce mul (%k) in [4] init(1.0 : f32) : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    } identity {
      %one = arith.constant 1.0 : f32
      te.yield %one : f32
    } combiner (%x, %y) {
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: error: te.reduce mul: init(...) and an identity region: give one of them

// -----

// The identity region yields one start value per result, of its type.
te.func @identity_type(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %s = te.reduce mul (%k) in [4] : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    } identity {
      te.yield %i : index
    } combiner (%x, %y) {
      %p = arith.mulf %x, %y : f32
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: error: te.reduce mul: the identity region must yield the start values (f32)

// -----

// A built-in reduction's start value is an init(...) constant.
te.func @identity_builtin(%a: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %c = te.compute "C" (%i) : !te.tensor<[4], f32> {
    %s = te.reduce sum (%k) in [4] : f32 {
      %v = te.read %a[%k] : !te.tensor<[4], f32>
      te.yield %v : f32
    } identity {
      %one = arith.constant 1.0 : f32
      te.yield %one : f32
    }
    te.yield %s : f32
  }
  te.return %c : !te.tensor<[4], f32>
}
// CHECK: error: te.reduce sum: an identity region needs a combiner; use init(...)

// -----

// A te.func inside another op.
loop.func @host(%a: !loop.buffer<[4], f32>) {
  te.func @nested(%x: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
    te.return %x : !te.tensor<[4], f32>
  }
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: te.func must be at the top level of the module, not inside loop.func

// -----

// A tensor of an element type the compiler cannot store.
te.func @f80(%x: !te.tensor<[4], f80>) -> !te.tensor<[4], f80> {
  te.return %x : !te.tensor<[4], f80>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1
// CHECK: !te.tensor: unsupported element type f80

// -----

// Two stages of one name (found by the fuzzer: a pass reported it unlocated).
te.func @twice(%x: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %a = te.compute "A" (%i) : !te.tensor<[4], f32> {
    %v = te.read %x[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  %b = te.compute "A" (%i) : !te.tensor<[4], f32> {
    %v = te.read %a[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %b : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 11]]:1: error: two stages of @twice are named "A"

// -----

// A stage name that cannot name its values (fuzz: xDSL's ValueError, unlocated).
te.func @bad_stage_name(%x: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %a = te.compute "0 P" (%i) : !te.tensor<[4], f32> {
    %v = te.read %x[%i] : !te.tensor<[4], f32>
    te.yield %v : f32
  }
  te.return %a : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 6]]:3: error: te.compute "0 P": a name is letters, digits, _ $ . or -, not starting with a digit

// -----

// An scf.if with a result but an empty (implicit) yield and no else region
// (fuzz bucket: xDSL verifies it, LLVM then fails on a phi without values).
te.func @if_without_else(%x: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %a = te.compute "A" (%i) : !te.tensor<[4], f32> {
    %c1 = arith.constant 1 : index
    %ok = arith.cmpi sge, %i, %c1 : index
    %v = scf.if %ok -> (f32) {
      %unused = arith.constant 1 : index
    }
    te.yield %v : f32
  }
  te.return %a : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 7]]:5: error: scf.if with results needs an else region

// -----

te.func @if_yields_nothing(%x: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
  %a = te.compute "A" (%i) : !te.tensor<[4], f32> {
    %c1 = arith.constant 1 : index
    %ok = arith.cmpi sge, %i, %c1 : index
    %v = scf.if %ok -> (f32) {
      %unused = arith.constant 1 : index
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    te.yield %v : f32
  }
  te.return %a : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 10]]:5: error: scf.if has results (f32), but a region yields ()

// -----

// te.dtype names an unsigned dtype of the tensor's integer width.
te.func @unsigned_float(%a: !te.tensor<[4], f32> {te.dtype = "uint8"}) -> !te.tensor<[4], f32> {
  te.return %a : !te.tensor<[4], f32>
}
// CHECK: te.func argument 0: te.dtype 'uint8' needs a tensor of i8 elements, got !te.tensor<[4], f32>

// -----

te.func @unsigned_wide(%a: !te.tensor<[4], i8>) -> (!te.tensor<[4], i8> {te.dtype = "uint16"}) {
  te.return %a : !te.tensor<[4], i8>
}
// CHECK: te.func result 0: te.dtype must be one of 'uint8', got 'uint16'

// -----

// A reduction's extent names a variable nothing binds (found by make fuzz: it was
// refused only once apply-rfactor had made it a te.var, with no location).
te.func @unbound_extent(%a: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n"], f32> {
  %b = te.compute "b" (%i) : !te.tensor<["n"], f32> {
    %s = te.reduce sum (%k) in ["q"] : f32 {
      %v = te.read %a[%i, %k] : !te.tensor<["n", "m"], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<["n"], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:5: error: te.reduce extent names symbolic variable 'q', which appears in no argument or result shape of its te.func and is no scalar argument, so nothing can bind it

// -----

// A shape_bounds range is a range of sizes (te.var's lower and upper).
te.func @ranged(%a: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> attributes {shape_bounds = {n = array<i64: -1>}} {
  te.return %a : !te.tensor<["n"], f32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: te.func @ranged: the range of 'n' is [-1]; a size range needs 0 <= lower <= upper
