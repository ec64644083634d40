// RUN: compiler-opt %s --split-input-file -p lower-to-llvm | filecheck %s

// bf16 is a storage type: its arithmetic runs in f32 and each result is rounded back
// (as torch's CPU kernels do); the conversions are integer ops on i16 values, so no
// bf16 type reaches LLVM. Extension: zext, shl 16, bitcast. Rounding to nearest even on
// the magnitude m: (m + 0x7FFF + ((m >> 16) & 1)), capped below the sign (umin with
// 0x7FFFFFFF: a NaN's carry); m + 0x7FFFFF has bit 31 set for a NaN, which clears the
// sign and sets the quiet bit (>> 25 & 0x40). No compare, no select.
// CHECK-LABEL: llvm.func @scale(
// CHECK-NOT:     bf16
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK-NEXT:    %[[W:.*]] = llvm.zext %[[X]] : i16 to i32
// CHECK-NEXT:    %[[S:.*]] = llvm.shl %[[W]], %[[C16:.*]] : i32
// CHECK-NEXT:    %[[F:.*]] = llvm.bitcast %[[S]] : i32 to f32
// CHECK:         %[[P:.*]] = llvm.fmul %[[F]], %{{.*}} {{.*}}: f32
// CHECK-NEXT:    %[[B:.*]] = llvm.bitcast %[[P]] : f32 to i32
// CHECK-NEXT:    %[[M:.*]] = llvm.and %[[B]], %[[ABS:.*]] : i32
// CHECK-NEXT:    %[[H:.*]] = llvm.lshr %[[M]], %[[C16]] : i32
// CHECK-NEXT:    %[[L:.*]] = llvm.and %[[H]], %{{.*}} : i32
// CHECK-NEXT:    %[[R0:.*]] = llvm.add %[[M]], %{{.*}} : i32
// CHECK-NEXT:    %[[R:.*]] = llvm.add %[[R0]], %[[L]] : i32
// CHECK-NEXT:    %[[CAP:.*]] = llvm.call_intrinsic "llvm.umin.i32"(%[[R]], %[[ABS]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[N:.*]] = llvm.add %[[M]], %{{.*}} : i32
// CHECK-NEXT:    %[[NOTN:.*]] = llvm.xor %[[N]], %{{.*}} : i32
// CHECK-NEXT:    %[[SG0:.*]] = llvm.and %[[B]], %[[NOTN]] : i32
// CHECK-NEXT:    %[[SG:.*]] = llvm.and %[[SG0]], %{{.*}} : i32
// CHECK-NEXT:    %[[SR:.*]] = llvm.or %[[SG]], %[[CAP]] : i32
// CHECK-NEXT:    %[[Q0:.*]] = llvm.lshr %[[N]], %{{.*}} : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.and %[[Q0]], %{{.*}} : i32
// CHECK-NEXT:    %[[HI:.*]] = llvm.lshr %[[SR]], %[[C16]] : i32
// CHECK-NEXT:    %[[O32:.*]] = llvm.or %[[HI]], %[[Q]] : i32
// CHECK-NEXT:    %[[O:.*]] = llvm.trunc %[[O32]] : i32 to i16
// CHECK-NOT:     llvm.select
// CHECK-NOT:     llvm.icmp
// CHECK:         llvm.store %[[O]], %{{.*}} : i16, !llvm.ptr
loop.func @scale(%x: !loop.buffer<[64], bf16>, %y: !loop.buffer<[64], bf16> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  loop.for %i = %c0 extent %c64 {
    %a = loop.load %x[%i] : !loop.buffer<[64], bf16>
    %two = arith.constant 2.0 : bf16
    %b = arith.mulf %a, %two : bf16
    loop.store %b, %y[%i] : !loop.buffer<[64], bf16>
  }
}

// -----

// A bf16 constant is its bits (1.5 is 0x3FC0 = 16320); a comparison extends both sides;
// a select of bf16 values moves i16 bits.
// CHECK-LABEL: llvm.func @clamp(
// CHECK-NOT:     bf16
// CHECK:         llvm.mlir.constant(16320 : i16) : i16
// CHECK:         llvm.fcmp "ogt" %{{.*}}, %{{.*}} {{.*}}: f32
// CHECK:         llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i16
loop.func @clamp(%x: !loop.buffer<[8], bf16>, %y: !loop.buffer<[8], bf16> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  loop.for %i = %c0 extent %c8 {
    %a = loop.load %x[%i] : !loop.buffer<[8], bf16>
    %top = arith.constant 1.5 : bf16
    %big = arith.cmpf ogt, %a, %top : bf16
    %b = arith.select %big, %top, %a : bf16
    loop.store %b, %y[%i] : !loop.buffer<[8], bf16>
  }
}
