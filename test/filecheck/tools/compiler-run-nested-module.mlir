// RUN: not compiler-run %s --init random 2>&1 | filecheck %s

// A function inside a nested, unnamed builtin.module (make fuzz seed 89: an internal
// AttributeError on the module's absent sym_name) is a clean error, not a traceback.
// CHECK: compiler-run: error: {{.*}}compiler-run-nested-module.mlir defines no function at its top level
builtin.module {
builtin.module {
  loop.func @f(%A: !loop.buffer<[4], f32>, %B: !loop.buffer<[4], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 4 : index
    loop.for %i = %0 extent %1 {
      %a = loop.load %A[%i] : !loop.buffer<[4], f32>
      loop.store %a, %B[%i] : !loop.buffer<[4], f32>
    }
  }
}
}
