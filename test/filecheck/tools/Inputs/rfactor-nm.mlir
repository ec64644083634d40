te.func @split_symbolic(%a: !te.tensor<["n", "m"], f32>) -> !te.tensor<["n"], f32> {
  %b = te.compute "B" (%i) : !te.tensor<["n"], f32> {
    %s = te.reduce sum (%k) in ["m"] : f32 {
      %v = te.read %a[%i, %k] : !te.tensor<["n", "m"], f32>
      te.yield %v : f32
    }
    te.yield %s : f32
  }
  te.return %b : !te.tensor<["n"], f32>
}
sched.schedule @split_symbolic {
  %k = sched.axis "B" reduce 0
  %i = sched.axis "B" 0
  %ko, %ki = sched.split %k by 4 : !sched.iter<"B">
  sched.rfactor %ki as "B.rf" : !sched.iter<"B">
  %x = sched.axis "B.rf" 1
  sched.parallel %x : !sched.iter<"B.rf">
}
