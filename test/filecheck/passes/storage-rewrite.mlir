// RUN: compiler-opt %s --split-input-file -p storage-rewrite,verify-memory-plan | filecheck %s
// RUN: compiler-opt %s --split-input-file -p 'storage-rewrite{reuse=false inplace=false},verify-memory-plan' | filecheck %s --check-prefix=NOREUSE

// An elementwise chain: each stage writes over the buffer it reads, which dies there (in place), so three intermediates take one buffer's bytes.
// CHECK-LABEL: loop.func @elementwise
// CHECK:       %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[256], i8>
// CHECK:       %B = loop.view "B" %arena at "0"
// CHECK:       %C = loop.view "C" %arena at "0" inplace "B"
// CHECK:       %D = loop.view "D" %arena at "0" inplace "C"
// NOREUSE-LABEL: loop.func @elementwise
// NOREUSE:     %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[768], i8>
// NOREUSE:     %C = loop.view "C" %arena at "256" :
builtin.module {
  loop.func @elementwise(%A: !loop.buffer<[64], f32>, %E: !loop.buffer<[64], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %B = loop.alloc "B" [%0] : !loop.buffer<[64], f32>
    %1 = arith.constant 0 : index
    %2 = arith.constant 64 : index
    loop.for %B_i = %1 extent %2 {
      %3 = loop.load %A[%B_i] : !loop.buffer<[64], f32>
      %4 = arith.constant 2.000000e+00 : f32
      %5 = arith.mulf %3, %4 : f32
      loop.store %5, %B[%B_i] : !loop.buffer<[64], f32>
    }
    %6 = arith.constant 0 : index
    %C = loop.alloc "C" [%6] : !loop.buffer<[64], f32>
    %7 = arith.constant 0 : index
    %8 = arith.constant 64 : index
    loop.for %C_i = %7 extent %8 {
      %9 = loop.load %B[%C_i] : !loop.buffer<[64], f32>
      %10 = arith.constant 1.000000e+00 : f32
      %11 = arith.addf %9, %10 : f32
      loop.store %11, %C[%C_i] : !loop.buffer<[64], f32>
    }
    %12 = arith.constant 0 : index
    %D = loop.alloc "D" [%12] : !loop.buffer<[64], f32>
    %13 = arith.constant 0 : index
    %14 = arith.constant 64 : index
    loop.for %D_i = %13 extent %14 {
      %15 = loop.load %C[%D_i] : !loop.buffer<[64], f32>
      %16 = math.exp %15 : f32
      loop.store %16, %D[%D_i] : !loop.buffer<[64], f32>
    }
    %17 = arith.constant 0 : index
    %18 = arith.constant 64 : index
    loop.for %E_i = %17 extent %18 {
      %19 = loop.load %D[%E_i] : !loop.buffer<[64], f32>
      %20 = arith.constant 3.000000e+00 : f32
      %21 = arith.subf %19, %20 : f32
      loop.store %21, %E[%E_i] : !loop.buffer<[64], f32>
    }
  }
}

// -----

// Seed 001 in small, static: a 3x3 conv never writes over its padded input (a later row still reads what it would overwrite), relu runs in place of the conv, and the 2x2 stride-2 pool writes into the dead activation (the seed's request). The arena meets the liveness lower bound.
// CHECK-LABEL: loop.func @conv_pool
// CHECK:       %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<[2624], i8>
// CHECK:       %conv = loop.view "conv" %arena at "1600" {loop.fresh_because = "in-place over conv_pad unsafe: a read of the input follows a write of the output to the same bytes"}
// CHECK:       %act = loop.view "act" %arena at "1600" inplace "conv"
// CHECK:       %pool_sum = loop.view "pool_sum" %arena at "1600" inplace "act"
builtin.module {
  loop.func @conv_pool(%x: !loop.buffer<[256], f32>, %w: !loop.buffer<[144], f32>, %pool: !loop.buffer<[64], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 0 : index
    %3 = arith.constant 0 : index
    %4 = arith.constant 0 : index
    %conv_pad = loop.alloc "conv_pad" [%4] : !loop.buffer<[400], f32>
    %5 = arith.constant 0 : index
    %6 = arith.constant 1 : index
    loop.for %conv_pad_ax0 = %5 extent %6 {
      %7 = arith.constant 0 : index
      %8 = arith.constant 10 : index
      loop.for %conv_pad_ax1 = %7 extent %8 {
        %9 = arith.constant 0 : index
        %10 = arith.constant 10 : index
        loop.for %conv_pad_ax2 = %9 extent %10 {
          %11 = arith.constant 0 : index
          %12 = arith.constant 4 : index
          loop.for %conv_pad_ax3 = %11 extent %12 {
            %13 = arith.constant 0 : index
            %14 = arith.constant 1 : index
            %15 = arith.cmpi sge, %conv_pad_ax1, %14 : index
            %16 = arith.constant 9 : index
            %17 = arith.cmpi slt, %conv_pad_ax1, %16 : index
            %18 = arith.constant 1 : index
            %19 = arith.cmpi sge, %conv_pad_ax2, %18 : index
            %20 = arith.constant 9 : index
            %21 = arith.cmpi slt, %conv_pad_ax2, %20 : index
            %22 = arith.andi %15, %17 : i1
            %23 = arith.andi %22, %19 : i1
            %24 = arith.andi %23, %21 : i1
            %25 = scf.if %24 -> (f32) {
              %26 = arith.constant 0 : index
              %27 = arith.subi %13, %26 : index
              %28 = arith.constant 1 : index
              %29 = arith.subi %conv_pad_ax1, %28 : index
              %30 = arith.constant 1 : index
              %31 = arith.subi %conv_pad_ax2, %30 : index
              %32 = arith.constant 0 : index
              %33 = arith.subi %conv_pad_ax3, %32 : index
              %34 = arith.constant 32 : index
              %35 = arith.muli %conv_pad_ax1, %34 : index
              %36 = arith.constant 4 : index
              %37 = arith.muli %conv_pad_ax2, %36 : index
              %38 = arith.addi %35, %37 : index
              %39 = arith.addi %38, %conv_pad_ax3 : index
              %40 = arith.constant 36 : index
              %41 = arith.subi %39, %40 : index
              %42 = loop.load %x[%41] : !loop.buffer<[256], f32>
              scf.yield %42 : f32
            } else {
              %43 = arith.constant 0.000000e+00 : f32
              scf.yield %43 : f32
            }{te.likely}
            %44 = arith.constant 40 : index
            %45 = arith.muli %conv_pad_ax1, %44 : index
            %46 = arith.constant 4 : index
            %47 = arith.muli %conv_pad_ax2, %46 : index
            %48 = arith.addi %45, %47 : index
            %49 = arith.addi %48, %conv_pad_ax3 : index
            loop.store %25, %conv_pad[%49] : !loop.buffer<[400], f32>
          }
        }
      }
    }
    %50 = arith.constant 0 : index
    %51 = arith.constant 0 : index
    %52 = arith.constant 0 : index
    %53 = arith.constant 0 : index
    %54 = arith.constant 0 : index
    %conv = loop.alloc "conv" [%54] : !loop.buffer<[256], f32>
    %55 = arith.constant 0 : index
    %56 = arith.constant 1 : index
    loop.for %conv_nn = %55 extent %56 {
      %57 = arith.constant 0 : index
      %58 = arith.constant 8 : index
      loop.for %conv_yy = %57 extent %58 {
        %59 = arith.constant 0 : index
        %60 = arith.constant 8 : index
        loop.for %conv_xx = %59 extent %60 {
          %61 = arith.constant 0 : index
          %62 = arith.constant 4 : index
          loop.for %conv_ff = %61 extent %62 {
            %63 = arith.constant 0 : index
            %conv_acc = loop.alloc local "conv.acc" [%63] : !loop.buffer<[1], f32>
            %64 = arith.constant 0.000000e+00 : f32
            loop.store %64, %conv_acc[%63] : !loop.buffer<[1], f32>
            %65 = arith.constant 0 : index
            %66 = arith.constant 3 : index
            loop.for %conv_ry = %65 extent %66 {
              %67 = arith.constant 0 : index
              %68 = arith.constant 3 : index
              loop.for %conv_rx = %67 extent %68 {
                %69 = arith.constant 0 : index
                %70 = arith.constant 4 : index
                loop.for %conv_rc = %69 extent %70 {
                  %71 = arith.constant 0 : index
                  %72 = arith.constant 1 : index
                  %73 = arith.muli %conv_yy, %72 : index
                  %74 = arith.addi %73, %conv_ry : index
                  %75 = arith.constant 1 : index
                  %76 = arith.muli %conv_xx, %75 : index
                  %77 = arith.addi %76, %conv_rx : index
                  %78 = arith.constant 40 : index
                  %79 = arith.muli %conv_yy, %78 : index
                  %80 = arith.addi %conv_rc, %79 : index
                  %81 = arith.constant 4 : index
                  %82 = arith.muli %conv_xx, %81 : index
                  %83 = arith.addi %80, %82 : index
                  %84 = arith.muli %conv_ry, %78 : index
                  %85 = arith.addi %83, %84 : index
                  %86 = arith.muli %conv_rx, %81 : index
                  %87 = arith.addi %85, %86 : index
                  %88 = loop.load %conv_pad[%87] : !loop.buffer<[400], f32>
                  %89 = arith.constant 4 : index
                  %90 = arith.muli %conv_rc, %89 : index
                  %91 = arith.addi %90, %conv_ff : index
                  %92 = arith.constant 48 : index
                  %93 = arith.muli %conv_ry, %92 : index
                  %94 = arith.addi %91, %93 : index
                  %95 = arith.constant 16 : index
                  %96 = arith.muli %conv_rx, %95 : index
                  %97 = arith.addi %94, %96 : index
                  %98 = loop.load %w[%97] : !loop.buffer<[144], f32>
                  %99 = arith.mulf %88, %98 : f32
                  %100 = arith.constant 0 : index
                  %101 = loop.load %conv_acc[%100] : !loop.buffer<[1], f32>
                  %102 = arith.addf %101, %99 : f32
                  loop.store %102, %conv_acc[%100] : !loop.buffer<[1], f32>
                }
              }
            }
            %103 = arith.constant 0 : index
            %104 = arith.constant 0 : index
            %105 = loop.load %conv_acc[%104] : !loop.buffer<[1], f32>
            %106 = arith.constant 32 : index
            %107 = arith.muli %conv_yy, %106 : index
            %108 = arith.constant 4 : index
            %109 = arith.muli %conv_xx, %108 : index
            %110 = arith.addi %107, %109 : index
            %111 = arith.addi %110, %conv_ff : index
            loop.store %105, %conv[%111] : !loop.buffer<[256], f32>
          }
        }
      }
    }
    %112 = arith.constant 0 : index
    %113 = arith.constant 0 : index
    %114 = arith.constant 0 : index
    %115 = arith.constant 0 : index
    %116 = arith.constant 0 : index
    %act = loop.alloc "act" [%116] : !loop.buffer<[256], f32>
    %117 = arith.constant 0 : index
    %118 = arith.constant 1 : index
    loop.for %act_ax0 = %117 extent %118 {
      %119 = arith.constant 0 : index
      %120 = arith.constant 8 : index
      loop.for %act_ax1 = %119 extent %120 {
        %121 = arith.constant 0 : index
        %122 = arith.constant 8 : index
        loop.for %act_ax2 = %121 extent %122 {
          %123 = arith.constant 0 : index
          %124 = arith.constant 4 : index
          loop.for %act_ax3 = %123 extent %124 {
            %125 = arith.constant 0 : index
            %126 = arith.constant 32 : index
            %127 = arith.muli %act_ax1, %126 : index
            %128 = arith.constant 4 : index
            %129 = arith.muli %act_ax2, %128 : index
            %130 = arith.addi %127, %129 : index
            %131 = arith.addi %130, %act_ax3 : index
            %132 = loop.load %conv[%131] : !loop.buffer<[256], f32>
            %133 = arith.constant 0.000000e+00 : f32
            %134 = arith.maximumf %132, %133 : f32
            %135 = arith.constant 32 : index
            %136 = arith.muli %act_ax1, %135 : index
            %137 = arith.constant 4 : index
            %138 = arith.muli %act_ax2, %137 : index
            %139 = arith.addi %136, %138 : index
            %140 = arith.addi %139, %act_ax3 : index
            loop.store %134, %act[%140] : !loop.buffer<[256], f32>
          }
        }
      }
    }
    %141 = arith.constant 0 : index
    %142 = arith.constant 0 : index
    %143 = arith.constant 0 : index
    %144 = arith.constant 0 : index
    %145 = arith.constant 0 : index
    %pool_sum = loop.alloc "pool_sum" [%145] : !loop.buffer<[64], f32>
    %146 = arith.constant 0 : index
    %147 = arith.constant 1 : index
    loop.for %pool_sum_ax0 = %146 extent %147 {
      %148 = arith.constant 0 : index
      %149 = arith.constant 4 : index
      loop.for %pool_sum_ax1 = %148 extent %149 {
        %150 = arith.constant 0 : index
        %151 = arith.constant 4 : index
        loop.for %pool_sum_ax2 = %150 extent %151 {
          %152 = arith.constant 0 : index
          %153 = arith.constant 4 : index
          loop.for %pool_sum_ax3 = %152 extent %153 {
            %154 = arith.constant 0 : index
            %pool_sum_acc = loop.alloc local "pool_sum.acc" [%154] : !loop.buffer<[1], f32>
            %155 = arith.constant 0.000000e+00 : f32
            loop.store %155, %pool_sum_acc[%154] : !loop.buffer<[1], f32>
            %156 = arith.constant 0 : index
            %157 = arith.constant 2 : index
            loop.for %pool_sum_ry = %156 extent %157 {
              %158 = arith.constant 0 : index
              %159 = arith.constant 2 : index
              loop.for %pool_sum_rx = %158 extent %159 {
                %160 = arith.constant 0 : index
                %161 = arith.constant 2 : index
                %162 = arith.muli %pool_sum_ax1, %161 : index
                %163 = arith.addi %162, %pool_sum_ry : index
                %164 = arith.constant 2 : index
                %165 = arith.muli %pool_sum_ax2, %164 : index
                %166 = arith.addi %165, %pool_sum_rx : index
                %167 = arith.constant 64 : index
                %168 = arith.muli %pool_sum_ax1, %167 : index
                %169 = arith.constant 8 : index
                %170 = arith.muli %pool_sum_ax2, %169 : index
                %171 = arith.addi %168, %170 : index
                %172 = arith.addi %171, %pool_sum_ax3 : index
                %173 = arith.constant 32 : index
                %174 = arith.muli %pool_sum_ry, %173 : index
                %175 = arith.addi %172, %174 : index
                %176 = arith.constant 4 : index
                %177 = arith.muli %pool_sum_rx, %176 : index
                %178 = arith.addi %175, %177 : index
                %179 = loop.load %act[%178] : !loop.buffer<[256], f32>
                %180 = arith.constant 0 : index
                %181 = loop.load %pool_sum_acc[%180] : !loop.buffer<[1], f32>
                %182 = arith.addf %181, %179 : f32
                loop.store %182, %pool_sum_acc[%180] : !loop.buffer<[1], f32>
              }
            }
            %183 = arith.constant 0 : index
            %184 = arith.constant 0 : index
            %185 = loop.load %pool_sum_acc[%184] : !loop.buffer<[1], f32>
            %186 = arith.constant 16 : index
            %187 = arith.muli %pool_sum_ax1, %186 : index
            %188 = arith.constant 4 : index
            %189 = arith.muli %pool_sum_ax2, %188 : index
            %190 = arith.addi %187, %189 : index
            %191 = arith.addi %190, %pool_sum_ax3 : index
            loop.store %185, %pool_sum[%191] : !loop.buffer<[64], f32>
          }
        }
      }
    }
    %192 = arith.constant 0 : index
    %193 = arith.constant 1 : index
    loop.for %pool_ax0 = %192 extent %193 {
      %194 = arith.constant 0 : index
      %195 = arith.constant 4 : index
      loop.for %pool_ax1 = %194 extent %195 {
        %196 = arith.constant 0 : index
        %197 = arith.constant 4 : index
        loop.for %pool_ax2 = %196 extent %197 {
          %198 = arith.constant 0 : index
          %199 = arith.constant 4 : index
          loop.for %pool_ax3 = %198 extent %199 {
            %200 = arith.constant 0 : index
            %201 = arith.constant 16 : index
            %202 = arith.muli %pool_ax1, %201 : index
            %203 = arith.constant 4 : index
            %204 = arith.muli %pool_ax2, %203 : index
            %205 = arith.addi %202, %204 : index
            %206 = arith.addi %205, %pool_ax3 : index
            %207 = loop.load %pool_sum[%206] : !loop.buffer<[64], f32>
            %208 = arith.constant 2.500000e-01 : f32
            %209 = arith.mulf %207, %208 : f32
            %210 = arith.constant 16 : index
            %211 = arith.muli %pool_ax1, %210 : index
            %212 = arith.constant 4 : index
            %213 = arith.muli %pool_ax2, %212 : index
            %214 = arith.addi %211, %213 : index
            %215 = arith.addi %214, %pool_ax3 : index
            loop.store %209, %pool[%215] : !loop.buffer<[64], f32>
          }
        }
      }
    }
  }
}

// -----

// Seed 001 with symbolic h and w: conv2 (2 * (h // 2) x 2 * (w // 2)) reuses conv1's dead region because its size is proven to fit (h // 2 * (w // 2) * 1024 <= h * w * 256); conv2_pad, the largest, takes offset 0 over the dead conv1_pad (greedy by size, offsets proven disjoint); the pool writes in place of act2 (the in-place proof with symbolic strides); the arena is conv2_pad + conv1, an expression of h and w evaluated at call time, and equals the static plan's size.
// CHECK-LABEL: loop.func @seed001
// CHECK:       %arena = loop.alloc "arena" [%{{.*}}] : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8>
// CHECK:       %conv1_pad = loop.view "conv1_pad" %arena at "0" {
// CHECK:       %conv1 = loop.view "conv1" %arena at "[[R:.*]]" {
// CHECK:       %conv2_pad = loop.view "conv2_pad" %arena at "0" :
// CHECK:       %conv2 = loop.view "conv2" %arena at "[[R]]" :
// CHECK:       %pool_sum = loop.view "pool_sum" %arena at "[[R]]" inplace "act2"
builtin.module {
  loop.func @seed001(%x: !loop.buffer<["h * w * 3"], f32>, %w1: !loop.buffer<[1728], f32>, %b1: !loop.buffer<[64], f32>, %w2: !loop.buffer<[36864], f32>, %b2: !loop.buffer<[64], f32>, %pool: !loop.buffer<["h // 2 * (w // 2) * 64"], f32> {loop.output}) {
    %h = loop.var "h" : index
    %w = loop.var "w" : index
    %0 = arith.constant 0 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 0 : index
    %3 = arith.constant 0 : index
    %4 = arith.constant 0 : index
    %conv1_pad = loop.alloc "conv1_pad" [%4] : !loop.buffer<["h * 6 + h * w * 3 + w * 6 + 12"], f32>
    %5 = arith.constant 0 : index
    %6 = arith.constant 1 : index
    loop.for %conv1_pad_ax0 = %5 extent %6 {
      %7 = arith.constant 0 : index
      %8 = arith.constant 2 : index
      %9 = arith.addi %h, %8 : index
      loop.for %conv1_pad_ax1 = %7 extent %9 {
        %10 = arith.constant 0 : index
        %11 = arith.constant 2 : index
        %12 = arith.addi %w, %11 : index
        loop.for %conv1_pad_ax2 = %10 extent %12 {
          %13 = arith.constant 0 : index
          %14 = arith.constant 3 : index
          loop.for %conv1_pad_ax3 = %13 extent %14 {
            %15 = arith.constant 0 : index
            %16 = arith.constant 1 : index
            %17 = arith.cmpi sge, %conv1_pad_ax1, %16 : index
            %18 = arith.constant 1 : index
            %19 = arith.addi %h, %18 : index
            %20 = arith.cmpi slt, %conv1_pad_ax1, %19 : index
            %21 = arith.constant 1 : index
            %22 = arith.cmpi sge, %conv1_pad_ax2, %21 : index
            %23 = arith.constant 1 : index
            %24 = arith.addi %w, %23 : index
            %25 = arith.cmpi slt, %conv1_pad_ax2, %24 : index
            %26 = arith.andi %17, %20 : i1
            %27 = arith.andi %26, %22 : i1
            %28 = arith.andi %27, %25 : i1
            %29 = scf.if %28 -> (f32) {
              %30 = arith.constant 0 : index
              %31 = arith.subi %15, %30 : index
              %32 = arith.constant 1 : index
              %33 = arith.subi %conv1_pad_ax1, %32 : index
              %34 = arith.constant 1 : index
              %35 = arith.subi %conv1_pad_ax2, %34 : index
              %36 = arith.constant 0 : index
              %37 = arith.subi %conv1_pad_ax3, %36 : index
              %38 = arith.muli %conv1_pad_ax1, %w : index
              %39 = arith.constant 3 : index
              %40 = arith.muli %38, %39 : index
              %41 = arith.addi %conv1_pad_ax3, %40 : index
              %42 = arith.muli %conv1_pad_ax2, %39 : index
              %43 = arith.addi %41, %42 : index
              %44 = arith.muli %w, %39 : index
              %45 = arith.subi %43, %44 : index
              %46 = arith.subi %45, %39 : index
              %47 = loop.load %x[%46] : !loop.buffer<["h * w * 3"], f32>
              scf.yield %47 : f32
            } else {
              %48 = arith.constant 0.000000e+00 : f32
              scf.yield %48 : f32
            }{te.likely}
            %49 = arith.constant 6 : index
            %50 = arith.muli %conv1_pad_ax1, %49 : index
            %51 = arith.addi %conv1_pad_ax3, %50 : index
            %52 = arith.muli %conv1_pad_ax1, %w : index
            %53 = arith.constant 3 : index
            %54 = arith.muli %52, %53 : index
            %55 = arith.addi %51, %54 : index
            %56 = arith.muli %conv1_pad_ax2, %53 : index
            %57 = arith.addi %55, %56 : index
            loop.store %29, %conv1_pad[%57] : !loop.buffer<["h * 6 + h * w * 3 + w * 6 + 12"], f32>
          }
        }
      }
    }
    %58 = arith.constant 0 : index
    %59 = arith.constant 0 : index
    %60 = arith.constant 0 : index
    %61 = arith.constant 0 : index
    %62 = arith.constant 0 : index
    %conv1 = loop.alloc "conv1" [%62] : !loop.buffer<["h * w * 64"], f32>
    %63 = arith.constant 0 : index
    %64 = arith.constant 1 : index
    loop.for %conv1_nn = %63 extent %64 {
      %65 = arith.constant 0 : index
      loop.for %conv1_yy = %65 extent %h {
        %66 = arith.constant 0 : index
        loop.for %conv1_xx = %66 extent %w {
          %67 = arith.constant 0 : index
          %68 = arith.constant 64 : index
          loop.for %conv1_ff = %67 extent %68 {
            %69 = arith.constant 0 : index
            %conv1_acc = loop.alloc local "conv1.acc" [%69] : !loop.buffer<[1], f32>
            %70 = arith.constant 0.000000e+00 : f32
            loop.store %70, %conv1_acc[%69] : !loop.buffer<[1], f32>
            %71 = arith.constant 0 : index
            %72 = arith.constant 3 : index
            loop.for %conv1_ry = %71 extent %72 {
              %73 = arith.constant 0 : index
              %74 = arith.constant 3 : index
              loop.for %conv1_rx = %73 extent %74 {
                %75 = arith.constant 0 : index
                %76 = arith.constant 3 : index
                loop.for %conv1_rc = %75 extent %76 {
                  %77 = arith.constant 0 : index
                  %78 = arith.constant 1 : index
                  %79 = arith.muli %conv1_yy, %78 : index
                  %80 = arith.addi %79, %conv1_ry : index
                  %81 = arith.constant 1 : index
                  %82 = arith.muli %conv1_xx, %81 : index
                  %83 = arith.addi %82, %conv1_rx : index
                  %84 = arith.constant 6 : index
                  %85 = arith.muli %conv1_yy, %84 : index
                  %86 = arith.muli %conv1_yy, %w : index
                  %87 = arith.constant 3 : index
                  %88 = arith.muli %86, %87 : index
                  %89 = arith.addi %85, %88 : index
                  %90 = arith.muli %conv1_xx, %87 : index
                  %91 = arith.addi %89, %90 : index
                  %92 = arith.muli %conv1_ry, %84 : index
                  %93 = arith.addi %91, %92 : index
                  %94 = arith.muli %conv1_ry, %w : index
                  %95 = arith.muli %94, %87 : index
                  %96 = arith.addi %93, %95 : index
                  %97 = arith.muli %conv1_rx, %87 : index
                  %98 = arith.addi %96, %97 : index
                  %99 = arith.addi %98, %conv1_rc : index
                  %100 = loop.load %conv1_pad[%99] : !loop.buffer<["h * 6 + h * w * 3 + w * 6 + 12"], f32>
                  %101 = arith.constant 576 : index
                  %102 = arith.muli %conv1_ry, %101 : index
                  %103 = arith.addi %conv1_ff, %102 : index
                  %104 = arith.constant 192 : index
                  %105 = arith.muli %conv1_rx, %104 : index
                  %106 = arith.addi %103, %105 : index
                  %107 = arith.constant 64 : index
                  %108 = arith.muli %conv1_rc, %107 : index
                  %109 = arith.addi %106, %108 : index
                  %110 = loop.load %w1[%109] : !loop.buffer<[1728], f32>
                  %111 = arith.mulf %100, %110 : f32
                  %112 = arith.constant 0 : index
                  %113 = loop.load %conv1_acc[%112] : !loop.buffer<[1], f32>
                  %114 = arith.addf %113, %111 : f32
                  loop.store %114, %conv1_acc[%112] : !loop.buffer<[1], f32>
                }
              }
            }
            %115 = arith.constant 0 : index
            %116 = arith.constant 0 : index
            %117 = loop.load %conv1_acc[%116] : !loop.buffer<[1], f32>
            %118 = arith.muli %conv1_yy, %w : index
            %119 = arith.constant 64 : index
            %120 = arith.muli %118, %119 : index
            %121 = arith.muli %conv1_xx, %119 : index
            %122 = arith.addi %120, %121 : index
            %123 = arith.addi %122, %conv1_ff : index
            loop.store %117, %conv1[%123] : !loop.buffer<["h * w * 64"], f32>
          }
        }
      }
    }
    %124 = arith.constant 0 : index
    %125 = arith.constant 0 : index
    %126 = arith.constant 0 : index
    %127 = arith.constant 0 : index
    %128 = arith.constant 0 : index
    %bias1 = loop.alloc "bias1" [%128] : !loop.buffer<["h * w * 64"], f32>
    %129 = arith.constant 0 : index
    %130 = arith.constant 1 : index
    loop.for %bias1_ax0 = %129 extent %130 {
      %131 = arith.constant 0 : index
      loop.for %bias1_ax1 = %131 extent %h {
        %132 = arith.constant 0 : index
        loop.for %bias1_ax2 = %132 extent %w {
          %133 = arith.constant 0 : index
          %134 = arith.constant 64 : index
          loop.for %bias1_ax3 = %133 extent %134 {
            %135 = arith.constant 0 : index
            %136 = arith.muli %bias1_ax1, %w : index
            %137 = arith.constant 64 : index
            %138 = arith.muli %136, %137 : index
            %139 = arith.muli %bias1_ax2, %137 : index
            %140 = arith.addi %138, %139 : index
            %141 = arith.addi %140, %bias1_ax3 : index
            %142 = loop.load %conv1[%141] : !loop.buffer<["h * w * 64"], f32>
            %143 = loop.load %b1[%bias1_ax3] : !loop.buffer<[64], f32>
            %144 = arith.addf %142, %143 : f32
            %145 = arith.muli %bias1_ax1, %w : index
            %146 = arith.constant 64 : index
            %147 = arith.muli %145, %146 : index
            %148 = arith.muli %bias1_ax2, %146 : index
            %149 = arith.addi %147, %148 : index
            %150 = arith.addi %149, %bias1_ax3 : index
            loop.store %144, %bias1[%150] : !loop.buffer<["h * w * 64"], f32>
          }
        }
      }
    }
    %151 = arith.constant 0 : index
    %152 = arith.constant 0 : index
    %153 = arith.constant 0 : index
    %154 = arith.constant 0 : index
    %155 = arith.constant 0 : index
    %act1 = loop.alloc "act1" [%155] : !loop.buffer<["h * w * 64"], f32>
    %156 = arith.constant 0 : index
    %157 = arith.constant 1 : index
    loop.for %act1_ax0 = %156 extent %157 {
      %158 = arith.constant 0 : index
      loop.for %act1_ax1 = %158 extent %h {
        %159 = arith.constant 0 : index
        loop.for %act1_ax2 = %159 extent %w {
          %160 = arith.constant 0 : index
          %161 = arith.constant 64 : index
          loop.for %act1_ax3 = %160 extent %161 {
            %162 = arith.constant 0 : index
            %163 = arith.muli %act1_ax1, %w : index
            %164 = arith.constant 64 : index
            %165 = arith.muli %163, %164 : index
            %166 = arith.addi %act1_ax3, %165 : index
            %167 = arith.muli %act1_ax2, %164 : index
            %168 = arith.addi %166, %167 : index
            %169 = loop.load %bias1[%168] : !loop.buffer<["h * w * 64"], f32>
            %170 = arith.constant 0.000000e+00 : f32
            %171 = arith.cmpf ogt, %169, %170 : f32
            %172 = scf.if %171 -> (f32) {
              scf.yield %169 : f32
            } else {
              %173 = arith.constant 1.000000e-01 : f32
              %174 = arith.mulf %169, %173 : f32
              scf.yield %174 : f32
            }
            %175 = arith.muli %act1_ax1, %w : index
            %176 = arith.constant 64 : index
            %177 = arith.muli %175, %176 : index
            %178 = arith.addi %act1_ax3, %177 : index
            %179 = arith.muli %act1_ax2, %176 : index
            %180 = arith.addi %178, %179 : index
            loop.store %172, %act1[%180] : !loop.buffer<["h * w * 64"], f32>
          }
        }
      }
    }
    %181 = arith.constant 0 : index
    %182 = arith.constant 0 : index
    %183 = arith.constant 0 : index
    %184 = arith.constant 0 : index
    %185 = arith.constant 0 : index
    %conv2_pad = loop.alloc "conv2_pad" [%185] : !loop.buffer<["h // 2 * 256 + h // 2 * (w // 2) * 256 + w // 2 * 256 + 256"], f32>
    %186 = arith.constant 0 : index
    %187 = arith.constant 1 : index
    loop.for %conv2_pad_ax0 = %186 extent %187 {
      %188 = arith.constant 0 : index
      %189 = arith.constant 2 : index
      %190 = arith.floordivsi %h, %189 : index
      %191 = arith.muli %190, %189 : index
      %192 = arith.addi %191, %189 : index
      loop.for %conv2_pad_ax1 = %188 extent %192 {
        %193 = arith.constant 0 : index
        %194 = arith.constant 2 : index
        %195 = arith.floordivsi %w, %194 : index
        %196 = arith.muli %195, %194 : index
        %197 = arith.addi %196, %194 : index
        loop.for %conv2_pad_ax2 = %193 extent %197 {
          %198 = arith.constant 0 : index
          %199 = arith.constant 64 : index
          loop.for %conv2_pad_ax3 = %198 extent %199 {
            %200 = arith.constant 0 : index
            %201 = arith.constant 1 : index
            %202 = arith.cmpi sge, %conv2_pad_ax1, %201 : index
            %203 = arith.constant 2 : index
            %204 = arith.addi %h, %203 : index
            %205 = arith.constant 3 : index
            %206 = arith.subi %204, %205 : index
            %207 = arith.constant 1 : index
            %208 = arith.floordivsi %206, %207 : index
            %209 = arith.constant 1 : index
            %210 = arith.addi %208, %209 : index
            %211 = arith.constant 1 : index
            %212 = arith.addi %210, %211 : index
            %213 = arith.cmpi slt, %conv2_pad_ax1, %212 : index
            %214 = arith.constant 1 : index
            %215 = arith.cmpi sge, %conv2_pad_ax2, %214 : index
            %216 = arith.constant 2 : index
            %217 = arith.addi %w, %216 : index
            %218 = arith.constant 3 : index
            %219 = arith.subi %217, %218 : index
            %220 = arith.constant 1 : index
            %221 = arith.floordivsi %219, %220 : index
            %222 = arith.constant 1 : index
            %223 = arith.addi %221, %222 : index
            %224 = arith.constant 1 : index
            %225 = arith.addi %223, %224 : index
            %226 = arith.cmpi slt, %conv2_pad_ax2, %225 : index
            %227 = arith.andi %202, %213 : i1
            %228 = arith.andi %227, %215 : i1
            %229 = arith.andi %228, %226 : i1
            %230 = scf.if %229 -> (f32) {
              %231 = arith.constant 0 : index
              %232 = arith.subi %200, %231 : index
              %233 = arith.constant 1 : index
              %234 = arith.subi %conv2_pad_ax1, %233 : index
              %235 = arith.constant 1 : index
              %236 = arith.subi %conv2_pad_ax2, %235 : index
              %237 = arith.constant 0 : index
              %238 = arith.subi %conv2_pad_ax3, %237 : index
              %239 = arith.muli %conv2_pad_ax1, %w : index
              %240 = arith.constant 64 : index
              %241 = arith.muli %239, %240 : index
              %242 = arith.addi %conv2_pad_ax3, %241 : index
              %243 = arith.muli %conv2_pad_ax2, %240 : index
              %244 = arith.addi %242, %243 : index
              %245 = arith.muli %w, %240 : index
              %246 = arith.subi %244, %245 : index
              %247 = arith.subi %246, %240 : index
              %248 = loop.load %act1[%247] : !loop.buffer<["h * w * 64"], f32>
              scf.yield %248 : f32
            } else {
              %249 = arith.constant 0.000000e+00 : f32
              scf.yield %249 : f32
            }{te.likely}
            %250 = arith.constant 128 : index
            %251 = arith.muli %conv2_pad_ax1, %250 : index
            %252 = arith.addi %conv2_pad_ax3, %251 : index
            %253 = arith.constant 2 : index
            %254 = arith.floordivsi %w, %253 : index
            %255 = arith.muli %conv2_pad_ax1, %254 : index
            %256 = arith.muli %255, %250 : index
            %257 = arith.addi %252, %256 : index
            %258 = arith.constant 64 : index
            %259 = arith.muli %conv2_pad_ax2, %258 : index
            %260 = arith.addi %257, %259 : index
            loop.store %230, %conv2_pad[%260] : !loop.buffer<["h // 2 * 256 + h // 2 * (w // 2) * 256 + w // 2 * 256 + 256"], f32>
          }
        }
      }
    }
    %261 = arith.constant 0 : index
    %262 = arith.constant 0 : index
    %263 = arith.constant 0 : index
    %264 = arith.constant 0 : index
    %265 = arith.constant 0 : index
    %conv2 = loop.alloc "conv2" [%265] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
    %266 = arith.constant 0 : index
    %267 = arith.constant 1 : index
    loop.for %conv2_nn = %266 extent %267 {
      %268 = arith.constant 0 : index
      %269 = arith.constant 2 : index
      %270 = arith.floordivsi %h, %269 : index
      %271 = arith.muli %270, %269 : index
      loop.for %conv2_yy = %268 extent %271 {
        %272 = arith.constant 0 : index
        %273 = arith.constant 2 : index
        %274 = arith.floordivsi %w, %273 : index
        %275 = arith.muli %274, %273 : index
        loop.for %conv2_xx = %272 extent %275 {
          %276 = arith.constant 0 : index
          %277 = arith.constant 64 : index
          loop.for %conv2_ff = %276 extent %277 {
            %278 = arith.constant 0 : index
            %conv2_acc = loop.alloc local "conv2.acc" [%278] : !loop.buffer<[1], f32>
            %279 = arith.constant 0.000000e+00 : f32
            loop.store %279, %conv2_acc[%278] : !loop.buffer<[1], f32>
            %280 = arith.constant 0 : index
            %281 = arith.constant 3 : index
            loop.for %conv2_ry = %280 extent %281 {
              %282 = arith.constant 0 : index
              %283 = arith.constant 3 : index
              loop.for %conv2_rx = %282 extent %283 {
                %284 = arith.constant 0 : index
                %285 = arith.constant 64 : index
                loop.for %conv2_rc = %284 extent %285 {
                  %286 = arith.constant 0 : index
                  %287 = arith.constant 1 : index
                  %288 = arith.muli %conv2_yy, %287 : index
                  %289 = arith.addi %288, %conv2_ry : index
                  %290 = arith.constant 1 : index
                  %291 = arith.muli %conv2_xx, %290 : index
                  %292 = arith.addi %291, %conv2_rx : index
                  %293 = arith.constant 128 : index
                  %294 = arith.muli %conv2_ry, %293 : index
                  %295 = arith.constant 2 : index
                  %296 = arith.floordivsi %w, %295 : index
                  %297 = arith.muli %conv2_ry, %296 : index
                  %298 = arith.muli %297, %293 : index
                  %299 = arith.addi %294, %298 : index
                  %300 = arith.constant 64 : index
                  %301 = arith.muli %conv2_rx, %300 : index
                  %302 = arith.addi %299, %301 : index
                  %303 = arith.addi %302, %conv2_rc : index
                  %304 = arith.muli %conv2_yy, %293 : index
                  %305 = arith.addi %303, %304 : index
                  %306 = arith.muli %conv2_yy, %296 : index
                  %307 = arith.muli %306, %293 : index
                  %308 = arith.addi %305, %307 : index
                  %309 = arith.muli %conv2_xx, %300 : index
                  %310 = arith.addi %308, %309 : index
                  %311 = loop.load %conv2_pad[%310] : !loop.buffer<["h // 2 * 256 + h // 2 * (w // 2) * 256 + w // 2 * 256 + 256"], f32>
                  %312 = arith.constant 12288 : index
                  %313 = arith.muli %conv2_ry, %312 : index
                  %314 = arith.addi %conv2_ff, %313 : index
                  %315 = arith.constant 4096 : index
                  %316 = arith.muli %conv2_rx, %315 : index
                  %317 = arith.addi %314, %316 : index
                  %318 = arith.constant 64 : index
                  %319 = arith.muli %conv2_rc, %318 : index
                  %320 = arith.addi %317, %319 : index
                  %321 = loop.load %w2[%320] : !loop.buffer<[36864], f32>
                  %322 = arith.mulf %311, %321 : f32
                  %323 = arith.constant 0 : index
                  %324 = loop.load %conv2_acc[%323] : !loop.buffer<[1], f32>
                  %325 = arith.addf %324, %322 : f32
                  loop.store %325, %conv2_acc[%323] : !loop.buffer<[1], f32>
                }
              }
            }
            %326 = arith.constant 0 : index
            %327 = arith.constant 0 : index
            %328 = loop.load %conv2_acc[%327] : !loop.buffer<[1], f32>
            %329 = arith.constant 2 : index
            %330 = arith.floordivsi %w, %329 : index
            %331 = arith.muli %conv2_yy, %330 : index
            %332 = arith.constant 128 : index
            %333 = arith.muli %331, %332 : index
            %334 = arith.addi %conv2_ff, %333 : index
            %335 = arith.constant 64 : index
            %336 = arith.muli %conv2_xx, %335 : index
            %337 = arith.addi %334, %336 : index
            loop.store %328, %conv2[%337] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
          }
        }
      }
    }
    %338 = arith.constant 0 : index
    %339 = arith.constant 0 : index
    %340 = arith.constant 0 : index
    %341 = arith.constant 0 : index
    %342 = arith.constant 0 : index
    %bias2 = loop.alloc "bias2" [%342] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
    %343 = arith.constant 0 : index
    %344 = arith.constant 1 : index
    loop.for %bias2_ax0 = %343 extent %344 {
      %345 = arith.constant 0 : index
      %346 = arith.constant 2 : index
      %347 = arith.floordivsi %h, %346 : index
      %348 = arith.muli %347, %346 : index
      loop.for %bias2_ax1 = %345 extent %348 {
        %349 = arith.constant 0 : index
        %350 = arith.constant 2 : index
        %351 = arith.floordivsi %w, %350 : index
        %352 = arith.muli %351, %350 : index
        loop.for %bias2_ax2 = %349 extent %352 {
          %353 = arith.constant 0 : index
          %354 = arith.constant 64 : index
          loop.for %bias2_ax3 = %353 extent %354 {
            %355 = arith.constant 0 : index
            %356 = arith.constant 2 : index
            %357 = arith.floordivsi %w, %356 : index
            %358 = arith.muli %bias2_ax1, %357 : index
            %359 = arith.constant 128 : index
            %360 = arith.muli %358, %359 : index
            %361 = arith.addi %bias2_ax3, %360 : index
            %362 = arith.constant 64 : index
            %363 = arith.muli %bias2_ax2, %362 : index
            %364 = arith.addi %361, %363 : index
            %365 = loop.load %conv2[%364] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
            %366 = loop.load %b2[%bias2_ax3] : !loop.buffer<[64], f32>
            %367 = arith.addf %365, %366 : f32
            %368 = arith.constant 2 : index
            %369 = arith.floordivsi %w, %368 : index
            %370 = arith.muli %bias2_ax1, %369 : index
            %371 = arith.constant 128 : index
            %372 = arith.muli %370, %371 : index
            %373 = arith.addi %bias2_ax3, %372 : index
            %374 = arith.constant 64 : index
            %375 = arith.muli %bias2_ax2, %374 : index
            %376 = arith.addi %373, %375 : index
            loop.store %367, %bias2[%376] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
          }
        }
      }
    }
    %377 = arith.constant 0 : index
    %378 = arith.constant 0 : index
    %379 = arith.constant 0 : index
    %380 = arith.constant 0 : index
    %381 = arith.constant 0 : index
    %act2 = loop.alloc "act2" [%381] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
    %382 = arith.constant 0 : index
    %383 = arith.constant 1 : index
    loop.for %act2_ax0 = %382 extent %383 {
      %384 = arith.constant 0 : index
      %385 = arith.constant 2 : index
      %386 = arith.floordivsi %h, %385 : index
      %387 = arith.muli %386, %385 : index
      loop.for %act2_ax1 = %384 extent %387 {
        %388 = arith.constant 0 : index
        %389 = arith.constant 2 : index
        %390 = arith.floordivsi %w, %389 : index
        %391 = arith.muli %390, %389 : index
        loop.for %act2_ax2 = %388 extent %391 {
          %392 = arith.constant 0 : index
          %393 = arith.constant 64 : index
          loop.for %act2_ax3 = %392 extent %393 {
            %394 = arith.constant 0 : index
            %395 = arith.constant 2 : index
            %396 = arith.floordivsi %w, %395 : index
            %397 = arith.muli %act2_ax1, %396 : index
            %398 = arith.constant 128 : index
            %399 = arith.muli %397, %398 : index
            %400 = arith.addi %act2_ax3, %399 : index
            %401 = arith.constant 64 : index
            %402 = arith.muli %act2_ax2, %401 : index
            %403 = arith.addi %400, %402 : index
            %404 = loop.load %bias2[%403] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
            %405 = arith.constant 0.000000e+00 : f32
            %406 = arith.cmpf ogt, %404, %405 : f32
            %407 = scf.if %406 -> (f32) {
              scf.yield %404 : f32
            } else {
              %408 = arith.constant 1.000000e-01 : f32
              %409 = arith.mulf %404, %408 : f32
              scf.yield %409 : f32
            }
            %410 = arith.constant 2 : index
            %411 = arith.floordivsi %w, %410 : index
            %412 = arith.muli %act2_ax1, %411 : index
            %413 = arith.constant 128 : index
            %414 = arith.muli %412, %413 : index
            %415 = arith.addi %act2_ax3, %414 : index
            %416 = arith.constant 64 : index
            %417 = arith.muli %act2_ax2, %416 : index
            %418 = arith.addi %415, %417 : index
            loop.store %407, %act2[%418] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
          }
        }
      }
    }
    %419 = arith.constant 0 : index
    %420 = arith.constant 0 : index
    %421 = arith.constant 0 : index
    %422 = arith.constant 0 : index
    %423 = arith.constant 0 : index
    %pool_sum = loop.alloc "pool_sum" [%423] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
    %424 = arith.constant 0 : index
    %425 = arith.constant 1 : index
    loop.for %pool_sum_ax0 = %424 extent %425 {
      %426 = arith.constant 0 : index
      %427 = arith.constant 2 : index
      %428 = arith.floordivsi %h, %427 : index
      loop.for %pool_sum_ax1 = %426 extent %428 {
        %429 = arith.constant 0 : index
        %430 = arith.constant 2 : index
        %431 = arith.floordivsi %w, %430 : index
        loop.for %pool_sum_ax2 = %429 extent %431 {
          %432 = arith.constant 0 : index
          %433 = arith.constant 64 : index
          loop.for %pool_sum_ax3 = %432 extent %433 {
            %434 = arith.constant 0 : index
            %pool_sum_acc = loop.alloc local "pool_sum.acc" [%434] : !loop.buffer<[1], f32>
            %435 = arith.constant 0.000000e+00 : f32
            loop.store %435, %pool_sum_acc[%434] : !loop.buffer<[1], f32>
            %436 = arith.constant 0 : index
            %437 = arith.constant 2 : index
            loop.for %pool_sum_ry = %436 extent %437 {
              %438 = arith.constant 0 : index
              %439 = arith.constant 2 : index
              loop.for %pool_sum_rx = %438 extent %439 {
                %440 = arith.constant 0 : index
                %441 = arith.constant 2 : index
                %442 = arith.muli %pool_sum_ax1, %441 : index
                %443 = arith.addi %442, %pool_sum_ry : index
                %444 = arith.constant 2 : index
                %445 = arith.muli %pool_sum_ax2, %444 : index
                %446 = arith.addi %445, %pool_sum_rx : index
                %447 = arith.constant 2 : index
                %448 = arith.floordivsi %w, %447 : index
                %449 = arith.muli %pool_sum_ry, %448 : index
                %450 = arith.constant 128 : index
                %451 = arith.muli %449, %450 : index
                %452 = arith.addi %pool_sum_ax3, %451 : index
                %453 = arith.constant 64 : index
                %454 = arith.muli %pool_sum_rx, %453 : index
                %455 = arith.addi %452, %454 : index
                %456 = arith.muli %pool_sum_ax1, %448 : index
                %457 = arith.constant 256 : index
                %458 = arith.muli %456, %457 : index
                %459 = arith.addi %455, %458 : index
                %460 = arith.muli %pool_sum_ax2, %450 : index
                %461 = arith.addi %459, %460 : index
                %462 = loop.load %act2[%461] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
                %463 = arith.constant 0 : index
                %464 = loop.load %pool_sum_acc[%463] : !loop.buffer<[1], f32>
                %465 = arith.addf %464, %462 : f32
                loop.store %465, %pool_sum_acc[%463] : !loop.buffer<[1], f32>
              }
            }
            %466 = arith.constant 0 : index
            %467 = arith.constant 0 : index
            %468 = loop.load %pool_sum_acc[%467] : !loop.buffer<[1], f32>
            %469 = arith.constant 2 : index
            %470 = arith.floordivsi %w, %469 : index
            %471 = arith.muli %pool_sum_ax1, %470 : index
            %472 = arith.constant 64 : index
            %473 = arith.muli %471, %472 : index
            %474 = arith.addi %pool_sum_ax3, %473 : index
            %475 = arith.muli %pool_sum_ax2, %472 : index
            %476 = arith.addi %474, %475 : index
            loop.store %468, %pool_sum[%476] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
          }
        }
      }
    }
    %477 = arith.constant 0 : index
    %478 = arith.constant 1 : index
    loop.for %pool_ax0 = %477 extent %478 {
      %479 = arith.constant 0 : index
      %480 = arith.constant 2 : index
      %481 = arith.floordivsi %h, %480 : index
      loop.for %pool_ax1 = %479 extent %481 {
        %482 = arith.constant 0 : index
        %483 = arith.constant 2 : index
        %484 = arith.floordivsi %w, %483 : index
        loop.for %pool_ax2 = %482 extent %484 {
          %485 = arith.constant 0 : index
          %486 = arith.constant 64 : index
          loop.for %pool_ax3 = %485 extent %486 {
            %487 = arith.constant 0 : index
            %488 = arith.constant 2 : index
            %489 = arith.floordivsi %w, %488 : index
            %490 = arith.muli %pool_ax1, %489 : index
            %491 = arith.constant 64 : index
            %492 = arith.muli %490, %491 : index
            %493 = arith.addi %pool_ax3, %492 : index
            %494 = arith.muli %pool_ax2, %491 : index
            %495 = arith.addi %493, %494 : index
            %496 = loop.load %pool_sum[%495] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
            %497 = arith.constant 2.500000e-01 : f32
            %498 = arith.mulf %496, %497 : f32
            %499 = arith.constant 2 : index
            %500 = arith.floordivsi %w, %499 : index
            %501 = arith.muli %pool_ax1, %500 : index
            %502 = arith.constant 64 : index
            %503 = arith.muli %501, %502 : index
            %504 = arith.addi %pool_ax3, %503 : index
            %505 = arith.muli %pool_ax2, %502 : index
            %506 = arith.addi %504, %505 : index
            loop.store %498, %pool[%506] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
          }
        }
      }
    }
  }
}
