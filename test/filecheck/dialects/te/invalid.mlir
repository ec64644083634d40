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
// CHECK: invalid.mlir:92:5: error: symbolic variable 'm' appears in no argument or result shape of @unbound, so nothing can bind it

// -----

// te.return must match the declared results.
te.func @ret(%a: !te.tensor<[4], f32>) -> !te.tensor<[5], f32> {
  te.return %a : !te.tensor<[4], f32>
}
// CHECK: invalid.mlir:103:1: error: te.return types ['!te.tensor<[4], f32>'] do not match the function results ['!te.tensor<[5], f32>']
