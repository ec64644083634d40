
loop.func @scalar(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n // x"], f32> {loop.output}, %x: !loop.buffer<[], i64> {loop.scalar = "x"}) {
  %xv = loop.var "x" : index
}
