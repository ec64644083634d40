// A padded 3-tap blur, B[i] = P[i] + P[i + 1] + P[i + 2] with P = A padded by one
// zero on each side; B's loop split by 4 and P computed at the outer loop.
// The guide's schedules page and the README run compiler-opt on this file.
te.func @blur(%A: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %P = te.compute "P" (%i) : !te.tensor<["n + 2"], f32> {
    %c1 = arith.constant 1 : index
    %lo = arith.cmpi sge, %i, %c1 : index
    %n = te.var "n" : index
    %n1 = arith.addi %n, %c1 : index
    %hi = arith.cmpi slt, %i, %n1 : index
    %inside = arith.andi %lo, %hi : i1
    %v = scf.if %inside -> (f32) {
      %j = arith.subi %i, %c1 : index
      %a = te.read %A[%j] : !te.tensor<["n"], f32>
      scf.yield %a : f32
    } else {
      %zero = arith.constant 0.0 : f32
      scf.yield %zero : f32
    }
    te.yield %v : f32
  }
  %B = te.compute "B" (%b) : !te.tensor<["n"], f32> {
    %s = te.reduce sum (%k) in [3] : f32 {
      %ik = arith.addi %b, %k : index
      %p = te.read %P[%ik] : !te.tensor<["n + 2"], f32>
      te.yield %p : f32
    }
    te.yield %s : f32
  }
  te.return %B : !te.tensor<["n"], f32>
}
sched.schedule @blur {
  %bi = sched.axis "B" 0
  %bo, %bin = sched.split %bi by 4 : !sched.iter<"B">
  sched.compute_at "P", %bo : !sched.iter<"B">
}
