// compiler-run checks bounds by default: a hand-written loop that stores far
// outside its buffer is a BoundsError naming the buffer and the index, not a
// segmentation fault (index arithmetic that wraps: n - (2^31 - 1) at n = 1).
// RUN: not compiler-run %s --dim n=1 2>&1 | filecheck %s
// CHECK: compiler-run: error: BoundsError: f: store to a[i] out of bounds: index -2147483646 of dimension 0 is outside [0, 1)
// CHECK-NOT: Traceback

// Sizes the host's memory cannot hold are refused before anything is allocated.
// RUN: not compiler-run %s --dim n=100000000000000 2>&1 | filecheck %s --check-prefix=HUGE
// HUGE: compiler-run: error: the arguments and intermediates need 400000000000000 bytes (a: 400000000000000), more than the {{[0-9]+}} bytes of memory available: choose smaller --dim values
// RUN: not compiler-run %s --dim n=-3 2>&1 | filecheck %s --check-prefix=NEGATIVE
// NEGATIVE: compiler-run: error: a would have the negative shape (-3,)
loop.func @f(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %z = arith.constant 1.0 : f32
  %c2 = arith.constant 2147483647 : index
  %s = arith.subi %n, %c2 : index
  loop.for %i = %s extent %c2 unrolled {
    loop.store %z, %a[%i] : !loop.buffer<["n"], f32>
  }
}

// The intermediates count: an n x n outer product in the arena of a function
// whose arguments are n floats.
// RUN: not compiler-run %S/Inputs/outer.mlir --dim n=10000000 2>&1 | filecheck %s --check-prefix=ARENA
// RUN: compiler-run %S/Inputs/outer.mlir --dim n=3 | filecheck %s --check-prefix=SMALL
// ARENA: compiler-run: error: the arguments and intermediates need 400000080000000 bytes (the intermediates: 400000000000000)
// SMALL: R = [0., 3., 6.]

// A --dim that makes a dimension divide by zero (fuzz bucket: ZeroDivisionError).
// RUN: not compiler-run %S/Inputs/zero-division.mlir --dim n=4 --dim x=0 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: compiler-run: error: B has the dimension 'n // x', a division by zero at these --dim values

// An empty array whose other extent is 2^62 (fuzz bucket: NumPy's ValueError,
// an internal error): refused with the argument's name.
// RUN: not compiler-run %S/Inputs/rfactor-nm.mlir --dim n=0 --dim m=4611686018427387904 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY: compiler-run: error: a of shape (0, 4611686018427387904) cannot be allocated

// A constant index that folds past 2^63 (4 * 2^62 + 2^62) wraps as it would at
// run time, and the bounds check names it (fuzz bucket: IntegerAttr out of range).
// RUN: not compiler-run %S/Inputs/big-index.mlir 2>&1 | filecheck %s --check-prefix=WRAP
// WRAP: compiler-run: error: BoundsError: not_flat: load from a[4611686018427387904, 4611686018427387904] out of bounds

// A padded conv whose row index divides by a reduction axis that starts at 0
// (y * 2 // ry): the division is checked like an access (fuzz case: a segmentation
// fault, the machine's division by zero).
// RUN: not compiler-run %S/Inputs/conv-divide-by-axis.mlir 2>&1 | filecheck %s --check-prefix=DIVIDE
// DIVIDE: compiler-run: error: BoundsError: strided: division by zero: z_yy * 2 (arith.divsi) z_ry * 1, with a divisor of 0
