// RUN: compiler-opt %s --split-input-file -p infer-bound | filecheck %s

// infer-bound after apply-rfactor: the factor stage B.rf and the new B. The input is
// apply-rfactor's output, checked in (`compiler-opt apply-rfactor.mlir -p
// apply-rfactor`), so a change to apply-rfactor does not change this test.

// Split by 4 of a symbolic extent: B.rf keeps k.inner (4) as its first axis and checks k < m.
// The split of B's data axis and of k are gone with the sched.rfactor; B.rf's primitives stay.
// CHECK-LABEL: te.func @split_symbolic
// CHECK: te.compute "B.rf" {{.*}} te.alloc_shape = ["4", "n"], te.loops = ["B_rf_k_i = [0, 4] serial", "B_rf_i = [0, n] parallel", "B_rf_k_o = [0, (m + 3) // 4] serial reduce"]
// CHECK: te.compute "B" {{.*}} te.loops = ["B_i = [0, n] serial", "B_k_i_v = [0, 4] serial reduce"]
builtin.module {
  te.func @split_symbolic(%a: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n"], f32> {
    %B_rf = te.compute "B.rf" (%k_i, %i) : !te.tensor<[4, "n"], f32> {
      %s = te.reduce sum (%k_o) in ["(m + 3) // 4"] : f32 {
        %0 = arith.constant 4 : index
        %1 = arith.muli %k_o, %0 : index
        %k = arith.addi %k_i, %1 : index
        %2 = te.var "m" : index
        %3 = arith.cmpi slt, %k, %2 : index
        te.where %3
        %v = te.read %a[%i, %k] : !te.tensor<["n", "m"], f32>
        te.yield %v : f32
      }
      te.yield %s : f32
    }
    %b = te.compute "B" (%i_1) : !te.tensor<["n"], f32> {
      %4 = te.reduce sum (%k_i_v) in [4] : f32 {
        %5 = te.read %B_rf[%k_i_v, %i_1] : !te.tensor<[4, "n"], f32>
        te.yield %5 : f32
      }
      te.yield %4 : f32
    }
    te.return %b : !te.tensor<["n"], f32>
  }
  sched.schedule @split_symbolic {
    %x = sched.axis "B.rf" 1
    sched.parallel %x : !sched.iter<"B.rf">
  }
}

// -----

// A static extent the factor divides: no check; factor_axis 1 puts k.inner last.
// CHECK-LABEL: te.func @split_static
// CHECK: te.compute "B.rf" {{.*}} te.alloc_shape = ["3", "4"], te.loops = ["B_rf_i = [0, 3] serial", "B_rf_k_i = [0, 4] vectorized", "B_rf_k_o = [0, 4] serial reduce"]
builtin.module {
  te.func @split_static(%a: !te.tensor<[3, 16], f32>) -> !te.tensor<[3], f32> {
    %B_rf = te.compute "B.rf" (%i, %k_i) : !te.tensor<[3, 4], f32> {
      %s = te.reduce max (%k_o) in [4] : f32 {
        %0 = arith.constant 4 : index
        %1 = arith.muli %k_o, %0 : index
        %k = arith.addi %k_i, %1 : index
        %v = te.read %a[%i, %k] : !te.tensor<[3, 16], f32>
        te.yield %v : f32
      }
      te.yield %s : f32
    }
    %b = te.compute "B" (%i_1) : !te.tensor<[3], f32> {
      %2 = te.reduce max (%k_i_v) in [4] : f32 {
        %3 = te.read %B_rf[%i_1, %k_i_v] : !te.tensor<[3, 4], f32>
        te.yield %3 : f32
      }
      te.yield %2 : f32
    }
    te.return %b : !te.tensor<[3], f32>
  }
  sched.schedule @split_static {
    %v = sched.axis "B.rf" 1
    sched.vectorize %v : !sched.iter<"B.rf">
  }
}

// -----

// TVM's test_bound_rfactor: split by nparts 4 and factor the outer axis; the
// predicate (i > 1) stays, with the check of the split, and B.rf is 4 x 1.
// An empty schedule is removed.
// CHECK-LABEL: te.func @nparts_where
// CHECK: te.compute "B.rf" {{.*}} te.alloc_shape = ["4", "1"], te.loops = ["B_rf_k_o = [0, 4] serial", "B_rf_i = [0, 1] serial", "B_rf_k_i = [0, (n + 3) // 4] serial reduce"]
builtin.module {
  te.func @nparts_where(%a: !te.tensor<["n"], f32>) -> !te.tensor<[1], f32> {
    %B_rf = te.compute "B.rf" (%k_o, %i) : !te.tensor<[4, 1], f32> {
      %s = te.reduce sum (%k_i) in ["(n + 3) // 4"] : f32 {
        %0 = te.var "n" : index
        %1 = arith.constant 3 : index
        %2 = arith.addi %0, %1 : index
        %3 = arith.constant 4 : index
        %4 = arith.floordivsi %2, %3 : index
        %5 = arith.muli %k_o, %4 : index
        %k = arith.addi %k_i, %5 : index
        %6 = arith.cmpi slt, %k, %0 : index
        te.where %6
        %c1 = arith.constant 1 : index
        %ok = arith.cmpi sgt, %i, %c1 : index
        te.where %ok
        %v = te.read %a[%k] : !te.tensor<["n"], f32>
        te.yield %v : f32
      }
      te.yield %s : f32
    }
    %b = te.compute "B" (%i_1) : !te.tensor<[1], f32> {
      %7 = te.reduce sum (%k_o_v) in [4] : f32 {
        %8 = te.read %B_rf[%k_o_v, %i_1] : !te.tensor<[4, 1], f32>
        te.yield %8 : f32
      }
      te.yield %7 : f32
    }
    te.return %b : !te.tensor<[1], f32>
  }
}

// -----

// TVM's test_lower_rfactor: B.rf computed at B's new reduce axis (its innermost
// loop) is realized one element at a time (one, not min(n, 1): B's loops run only
// when n >= 1).
// CHECK-LABEL: te.func @attached
// CHECK: te.compute "B.rf" {{.*}} te.alloc_shape = ["1", "1"], te.loops = ["B_rf_k_i = [B_k_i_v, 1] serial", {{.*}} "B_rf_k_o = [0, (m + 15) // 16] serial reduce"]{{.*}} te.attach = "B_k_i_v"
// CHECK: te.compute "B" {{.*}} te.loops = ["B_i_o = [0, (n + 31) // 32] serial", "B_i_i = [0, min(n - B_i_o * 32, 32)] serial", "B_k_i_v = [0, 16] serial reduce"]
builtin.module {
  te.func @attached(%a: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n"], f32> {
    %B_rf = te.compute "B.rf" (%k_i, %i) : !te.tensor<[16, "n"], f32> {
      %s = te.reduce sum (%k_o) in ["(m + 15) // 16"] : f32 {
        %0 = arith.constant 16 : index
        %1 = arith.muli %k_o, %0 : index
        %k = arith.addi %k_i, %1 : index
        %2 = te.var "m" : index
        %3 = arith.cmpi slt, %k, %2 : index
        te.where %3
        %v = te.read %a[%i, %k] : !te.tensor<["n", "m"], f32>
        te.yield %v : f32
      }
      te.yield %s : f32
    }
    %b = te.compute "B" (%i_1) : !te.tensor<["n"], f32> {
      %4 = te.reduce sum (%k_i_v) in [16] : f32 {
        %5 = te.read %B_rf[%k_i_v, %i_1] : !te.tensor<[16, "n"], f32>
        te.yield %5 : f32
      }
      te.yield %4 : f32
    }
    te.return %b : !te.tensor<["n"], f32>
  }
  sched.schedule @attached {
    %i = sched.axis "B" 0
    %v = sched.axis "B" reduce 0
    %io, %ii = sched.split %i by 32 : !sched.iter<"B">
    sched.compute_at "B.rf", %v : !sched.iter<"B">
  }
}
