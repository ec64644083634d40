loop.func @not_flat(%a: !loop.buffer<[4, 4], f32>) {
  %c0 = arith.constant 4611686018427387904 : index
  %v = loop.load %a[%c0, %c0] : !loop.buffer<[4, 4], f32>
}
