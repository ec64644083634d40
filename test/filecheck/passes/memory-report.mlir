// RUN: compiler-opt %s --split-input-file -p memory-report | filecheck %s --check-prefix=REPORT

// memory-report prints, as comments, each planned buffer's size, lifetime and offset
// and the plan's totals; its input is storage-rewrite's output (the cases of
// storage-rewrite.mlir, planned).

// An elementwise chain: each stage writes over the buffer it reads, which dies there (in place), so three intermediates take one buffer's bytes.
// REPORT:      // memory plan of @elementwise:
// REPORT:      //   arena 256 bytes; without reuse 768; liveness lower bound 512
builtin.module {
  loop.func @elementwise(%A: !loop.buffer<[64], f32>, %E: !loop.buffer<[64], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %arena = loop.alloc "arena" [%0] : !loop.buffer<[256], i8>
    %1 = arith.constant 0 : index
    %B = loop.view "B" %arena at "0" {loop.fresh_because = "no buffer is dead yet"} : !loop.buffer<[256], i8> -> !loop.buffer<[64], f32>
    %2 = arith.constant 0 : index
    %3 = arith.constant 64 : index
    loop.for %B_i = %2 extent %3 {
      %4 = loop.load %A[%B_i] : !loop.buffer<[64], f32>
      %5 = arith.constant 2.000000e+00 : f32
      %6 = arith.mulf %4, %5 : f32
      loop.store %6, %B[%B_i] : !loop.buffer<[64], f32>
    }
    %7 = arith.constant 0 : index
    %C = loop.view "C" %arena at "0" inplace "B" : !loop.buffer<[256], i8> -> !loop.buffer<[64], f32>
    %8 = arith.constant 0 : index
    %9 = arith.constant 64 : index
    loop.for %C_i = %8 extent %9 {
      %10 = loop.load %B[%C_i] : !loop.buffer<[64], f32>
      %11 = arith.constant 1.000000e+00 : f32
      %12 = arith.addf %10, %11 : f32
      loop.store %12, %C[%C_i] : !loop.buffer<[64], f32>
    }
    %13 = arith.constant 0 : index
    %D = loop.view "D" %arena at "0" inplace "C" : !loop.buffer<[256], i8> -> !loop.buffer<[64], f32>
    %14 = arith.constant 0 : index
    %15 = arith.constant 64 : index
    loop.for %D_i = %14 extent %15 {
      %16 = loop.load %C[%D_i] : !loop.buffer<[64], f32>
      %17 = math.exp %16 : f32
      loop.store %17, %D[%D_i] : !loop.buffer<[64], f32>
    }
    %18 = arith.constant 0 : index
    %19 = arith.constant 64 : index
    loop.for %E_i = %18 extent %19 {
      %20 = loop.load %D[%E_i] : !loop.buffer<[64], f32>
      %21 = arith.constant 3.000000e+00 : f32
      %22 = arith.subf %20, %21 : f32
      loop.store %22, %E[%E_i] : !loop.buffer<[64], f32>
    }
  }
}

// -----

// Seed 001 in small, static: a 3x3 conv never writes over its padded input (a later row still reads what it would overwrite), relu runs in place of the conv, and the 2x2 stride-2 pool writes into the dead activation (the seed's request). The arena meets the liveness lower bound.
// REPORT:      //   arena 2624 bytes; without reuse 3904; liveness lower bound 2624
builtin.module {
  loop.func @conv_pool(%x: !loop.buffer<[256], f32>, %w: !loop.buffer<[144], f32>, %pool: !loop.buffer<[64], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %arena = loop.alloc "arena" [%0] : !loop.buffer<[2624], i8>
    %1 = arith.constant 0 : index
    %2 = arith.constant 0 : index
    %3 = arith.constant 0 : index
    %4 = arith.constant 0 : index
    %5 = arith.constant 0 : index
    %conv_pad = loop.view "conv_pad" %arena at "0" {loop.fresh_because = "no buffer is dead yet"} : !loop.buffer<[2624], i8> -> !loop.buffer<[400], f32>
    %6 = arith.constant 0 : index
    %7 = arith.constant 1 : index
    loop.for %conv_pad_ax0 = %6 extent %7 {
      %8 = arith.constant 0 : index
      %9 = arith.constant 10 : index
      loop.for %conv_pad_ax1 = %8 extent %9 {
        %10 = arith.constant 0 : index
        %11 = arith.constant 10 : index
        loop.for %conv_pad_ax2 = %10 extent %11 {
          %12 = arith.constant 0 : index
          %13 = arith.constant 4 : index
          loop.for %conv_pad_ax3 = %12 extent %13 {
            %14 = arith.constant 0 : index
            %15 = arith.constant 1 : index
            %16 = arith.cmpi sge, %conv_pad_ax1, %15 : index
            %17 = arith.constant 9 : index
            %18 = arith.cmpi slt, %conv_pad_ax1, %17 : index
            %19 = arith.constant 1 : index
            %20 = arith.cmpi sge, %conv_pad_ax2, %19 : index
            %21 = arith.constant 9 : index
            %22 = arith.cmpi slt, %conv_pad_ax2, %21 : index
            %23 = arith.andi %16, %18 : i1
            %24 = arith.andi %23, %20 : i1
            %25 = arith.andi %24, %22 : i1
            %26 = scf.if %25 -> (f32) {
              %27 = arith.constant 0 : index
              %28 = arith.subi %14, %27 : index
              %29 = arith.constant 1 : index
              %30 = arith.subi %conv_pad_ax1, %29 : index
              %31 = arith.constant 1 : index
              %32 = arith.subi %conv_pad_ax2, %31 : index
              %33 = arith.constant 0 : index
              %34 = arith.subi %conv_pad_ax3, %33 : index
              %35 = arith.constant 32 : index
              %36 = arith.muli %conv_pad_ax1, %35 : index
              %37 = arith.constant 4 : index
              %38 = arith.muli %conv_pad_ax2, %37 : index
              %39 = arith.addi %36, %38 : index
              %40 = arith.addi %39, %conv_pad_ax3 : index
              %41 = arith.constant 36 : index
              %42 = arith.subi %40, %41 : index
              %43 = loop.load %x[%42] : !loop.buffer<[256], f32>
              scf.yield %43 : f32
            } else {
              %44 = arith.constant 0.000000e+00 : f32
              scf.yield %44 : f32
            }{te.likely}
            %45 = arith.constant 40 : index
            %46 = arith.muli %conv_pad_ax1, %45 : index
            %47 = arith.constant 4 : index
            %48 = arith.muli %conv_pad_ax2, %47 : index
            %49 = arith.addi %46, %48 : index
            %50 = arith.addi %49, %conv_pad_ax3 : index
            loop.store %26, %conv_pad[%50] : !loop.buffer<[400], f32>
          }
        }
      }
    }
    %51 = arith.constant 0 : index
    %52 = arith.constant 0 : index
    %53 = arith.constant 0 : index
    %54 = arith.constant 0 : index
    %55 = arith.constant 0 : index
    %conv = loop.view "conv" %arena at "1600" {loop.fresh_because = "in-place over conv_pad unsafe: a read of the input follows a write of the output to the same bytes"} : !loop.buffer<[2624], i8> -> !loop.buffer<[256], f32>
    %56 = arith.constant 0 : index
    %57 = arith.constant 1 : index
    loop.for %conv_nn = %56 extent %57 {
      %58 = arith.constant 0 : index
      %59 = arith.constant 8 : index
      loop.for %conv_yy = %58 extent %59 {
        %60 = arith.constant 0 : index
        %61 = arith.constant 8 : index
        loop.for %conv_xx = %60 extent %61 {
          %62 = arith.constant 0 : index
          %63 = arith.constant 4 : index
          loop.for %conv_ff = %62 extent %63 {
            %64 = arith.constant 0 : index
            %conv_acc = loop.alloc local "conv.acc" [%64] : !loop.buffer<[1], f32>
            %65 = arith.constant 0.000000e+00 : f32
            loop.store %65, %conv_acc[%64] : !loop.buffer<[1], f32>
            %66 = arith.constant 0 : index
            %67 = arith.constant 3 : index
            loop.for %conv_ry = %66 extent %67 {
              %68 = arith.constant 0 : index
              %69 = arith.constant 3 : index
              loop.for %conv_rx = %68 extent %69 {
                %70 = arith.constant 0 : index
                %71 = arith.constant 4 : index
                loop.for %conv_rc = %70 extent %71 {
                  %72 = arith.constant 0 : index
                  %73 = arith.constant 1 : index
                  %74 = arith.muli %conv_yy, %73 : index
                  %75 = arith.addi %74, %conv_ry : index
                  %76 = arith.constant 1 : index
                  %77 = arith.muli %conv_xx, %76 : index
                  %78 = arith.addi %77, %conv_rx : index
                  %79 = arith.constant 40 : index
                  %80 = arith.muli %conv_yy, %79 : index
                  %81 = arith.addi %conv_rc, %80 : index
                  %82 = arith.constant 4 : index
                  %83 = arith.muli %conv_xx, %82 : index
                  %84 = arith.addi %81, %83 : index
                  %85 = arith.muli %conv_ry, %79 : index
                  %86 = arith.addi %84, %85 : index
                  %87 = arith.muli %conv_rx, %82 : index
                  %88 = arith.addi %86, %87 : index
                  %89 = loop.load %conv_pad[%88] : !loop.buffer<[400], f32>
                  %90 = arith.constant 4 : index
                  %91 = arith.muli %conv_rc, %90 : index
                  %92 = arith.addi %91, %conv_ff : index
                  %93 = arith.constant 48 : index
                  %94 = arith.muli %conv_ry, %93 : index
                  %95 = arith.addi %92, %94 : index
                  %96 = arith.constant 16 : index
                  %97 = arith.muli %conv_rx, %96 : index
                  %98 = arith.addi %95, %97 : index
                  %99 = loop.load %w[%98] : !loop.buffer<[144], f32>
                  %100 = arith.mulf %89, %99 : f32
                  %101 = arith.constant 0 : index
                  %102 = loop.load %conv_acc[%101] : !loop.buffer<[1], f32>
                  %103 = arith.addf %102, %100 : f32
                  loop.store %103, %conv_acc[%101] : !loop.buffer<[1], f32>
                }
              }
            }
            %104 = arith.constant 0 : index
            %105 = arith.constant 0 : index
            %106 = loop.load %conv_acc[%105] : !loop.buffer<[1], f32>
            %107 = arith.constant 32 : index
            %108 = arith.muli %conv_yy, %107 : index
            %109 = arith.constant 4 : index
            %110 = arith.muli %conv_xx, %109 : index
            %111 = arith.addi %108, %110 : index
            %112 = arith.addi %111, %conv_ff : index
            loop.store %106, %conv[%112] : !loop.buffer<[256], f32>
          }
        }
      }
    }
    %113 = arith.constant 0 : index
    %114 = arith.constant 0 : index
    %115 = arith.constant 0 : index
    %116 = arith.constant 0 : index
    %117 = arith.constant 0 : index
    %act = loop.view "act" %arena at "1600" inplace "conv" : !loop.buffer<[2624], i8> -> !loop.buffer<[256], f32>
    %118 = arith.constant 0 : index
    %119 = arith.constant 1 : index
    loop.for %act_ax0 = %118 extent %119 {
      %120 = arith.constant 0 : index
      %121 = arith.constant 8 : index
      loop.for %act_ax1 = %120 extent %121 {
        %122 = arith.constant 0 : index
        %123 = arith.constant 8 : index
        loop.for %act_ax2 = %122 extent %123 {
          %124 = arith.constant 0 : index
          %125 = arith.constant 4 : index
          loop.for %act_ax3 = %124 extent %125 {
            %126 = arith.constant 0 : index
            %127 = arith.constant 32 : index
            %128 = arith.muli %act_ax1, %127 : index
            %129 = arith.constant 4 : index
            %130 = arith.muli %act_ax2, %129 : index
            %131 = arith.addi %128, %130 : index
            %132 = arith.addi %131, %act_ax3 : index
            %133 = loop.load %conv[%132] : !loop.buffer<[256], f32>
            %134 = arith.constant 0.000000e+00 : f32
            %135 = arith.maximumf %133, %134 : f32
            %136 = arith.constant 32 : index
            %137 = arith.muli %act_ax1, %136 : index
            %138 = arith.constant 4 : index
            %139 = arith.muli %act_ax2, %138 : index
            %140 = arith.addi %137, %139 : index
            %141 = arith.addi %140, %act_ax3 : index
            loop.store %135, %act[%141] : !loop.buffer<[256], f32>
          }
        }
      }
    }
    %142 = arith.constant 0 : index
    %143 = arith.constant 0 : index
    %144 = arith.constant 0 : index
    %145 = arith.constant 0 : index
    %146 = arith.constant 0 : index
    %pool_sum = loop.view "pool_sum" %arena at "1600" inplace "act" : !loop.buffer<[2624], i8> -> !loop.buffer<[64], f32>
    %147 = arith.constant 0 : index
    %148 = arith.constant 1 : index
    loop.for %pool_sum_ax0 = %147 extent %148 {
      %149 = arith.constant 0 : index
      %150 = arith.constant 4 : index
      loop.for %pool_sum_ax1 = %149 extent %150 {
        %151 = arith.constant 0 : index
        %152 = arith.constant 4 : index
        loop.for %pool_sum_ax2 = %151 extent %152 {
          %153 = arith.constant 0 : index
          %154 = arith.constant 4 : index
          loop.for %pool_sum_ax3 = %153 extent %154 {
            %155 = arith.constant 0 : index
            %pool_sum_acc = loop.alloc local "pool_sum.acc" [%155] : !loop.buffer<[1], f32>
            %156 = arith.constant 0.000000e+00 : f32
            loop.store %156, %pool_sum_acc[%155] : !loop.buffer<[1], f32>
            %157 = arith.constant 0 : index
            %158 = arith.constant 2 : index
            loop.for %pool_sum_ry = %157 extent %158 {
              %159 = arith.constant 0 : index
              %160 = arith.constant 2 : index
              loop.for %pool_sum_rx = %159 extent %160 {
                %161 = arith.constant 0 : index
                %162 = arith.constant 2 : index
                %163 = arith.muli %pool_sum_ax1, %162 : index
                %164 = arith.addi %163, %pool_sum_ry : index
                %165 = arith.constant 2 : index
                %166 = arith.muli %pool_sum_ax2, %165 : index
                %167 = arith.addi %166, %pool_sum_rx : index
                %168 = arith.constant 64 : index
                %169 = arith.muli %pool_sum_ax1, %168 : index
                %170 = arith.constant 8 : index
                %171 = arith.muli %pool_sum_ax2, %170 : index
                %172 = arith.addi %169, %171 : index
                %173 = arith.addi %172, %pool_sum_ax3 : index
                %174 = arith.constant 32 : index
                %175 = arith.muli %pool_sum_ry, %174 : index
                %176 = arith.addi %173, %175 : index
                %177 = arith.constant 4 : index
                %178 = arith.muli %pool_sum_rx, %177 : index
                %179 = arith.addi %176, %178 : index
                %180 = loop.load %act[%179] : !loop.buffer<[256], f32>
                %181 = arith.constant 0 : index
                %182 = loop.load %pool_sum_acc[%181] : !loop.buffer<[1], f32>
                %183 = arith.addf %182, %180 : f32
                loop.store %183, %pool_sum_acc[%181] : !loop.buffer<[1], f32>
              }
            }
            %184 = arith.constant 0 : index
            %185 = arith.constant 0 : index
            %186 = loop.load %pool_sum_acc[%185] : !loop.buffer<[1], f32>
            %187 = arith.constant 16 : index
            %188 = arith.muli %pool_sum_ax1, %187 : index
            %189 = arith.constant 4 : index
            %190 = arith.muli %pool_sum_ax2, %189 : index
            %191 = arith.addi %188, %190 : index
            %192 = arith.addi %191, %pool_sum_ax3 : index
            loop.store %186, %pool_sum[%192] : !loop.buffer<[64], f32>
          }
        }
      }
    }
    %193 = arith.constant 0 : index
    %194 = arith.constant 1 : index
    loop.for %pool_ax0 = %193 extent %194 {
      %195 = arith.constant 0 : index
      %196 = arith.constant 4 : index
      loop.for %pool_ax1 = %195 extent %196 {
        %197 = arith.constant 0 : index
        %198 = arith.constant 4 : index
        loop.for %pool_ax2 = %197 extent %198 {
          %199 = arith.constant 0 : index
          %200 = arith.constant 4 : index
          loop.for %pool_ax3 = %199 extent %200 {
            %201 = arith.constant 0 : index
            %202 = arith.constant 16 : index
            %203 = arith.muli %pool_ax1, %202 : index
            %204 = arith.constant 4 : index
            %205 = arith.muli %pool_ax2, %204 : index
            %206 = arith.addi %203, %205 : index
            %207 = arith.addi %206, %pool_ax3 : index
            %208 = loop.load %pool_sum[%207] : !loop.buffer<[64], f32>
            %209 = arith.constant 2.500000e-01 : f32
            %210 = arith.mulf %208, %209 : f32
            %211 = arith.constant 16 : index
            %212 = arith.muli %pool_ax1, %211 : index
            %213 = arith.constant 4 : index
            %214 = arith.muli %pool_ax2, %213 : index
            %215 = arith.addi %212, %214 : index
            %216 = arith.addi %215, %pool_ax3 : index
            loop.store %210, %pool[%216] : !loop.buffer<[64], f32>
          }
        }
      }
    }
  }
}

// -----

// Seed 001 with symbolic h and w: conv2 (2 * (h // 2) x 2 * (w // 2)) reuses conv1's dead region because its size is proven to fit (h // 2 * (w // 2) * 1024 <= h * w * 256); conv2_pad, the largest, takes offset 0 over the dead conv1_pad (greedy by size, offsets proven disjoint); the pool writes in place of act2 (the in-place proof with symbolic strides); the arena is conv2_pad + conv1, an expression of h and w evaluated at call time, and equals the static plan's size.
// REPORT:      // memory plan of @seed001:
// REPORT:      //   conv1_pad {{.*}} fresh: no buffer is dead yet
// REPORT:      //   conv2_pad {{.*}} 0  reuses the bytes of a dead buffer
// REPORT:      //   pool_sum {{.*}} in place of act2
builtin.module {
  loop.func @seed001(%x: !loop.buffer<["h * w * 3"], f32>, %w1: !loop.buffer<[1728], f32>, %b1: !loop.buffer<[64], f32>, %w2: !loop.buffer<[36864], f32>, %b2: !loop.buffer<[64], f32>, %pool: !loop.buffer<["h // 2 * (w // 2) * 64"], f32> {loop.output}) {
    %0 = arith.constant 0 : index
    %arena = loop.alloc "arena" [%0] : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8>
    %h = loop.var "h" : index
    %w = loop.var "w" : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 0 : index
    %3 = arith.constant 0 : index
    %4 = arith.constant 0 : index
    %5 = arith.constant 0 : index
    %conv1_pad = loop.view "conv1_pad" %arena at "0" {loop.fresh_because = "no buffer is dead yet"} : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h * 6 + h * w * 3 + w * 6 + 12"], f32>
    %6 = arith.constant 0 : index
    %7 = arith.constant 1 : index
    loop.for %conv1_pad_ax0 = %6 extent %7 {
      %8 = arith.constant 0 : index
      %9 = arith.constant 2 : index
      %10 = arith.addi %h, %9 : index
      loop.for %conv1_pad_ax1 = %8 extent %10 {
        %11 = arith.constant 0 : index
        %12 = arith.constant 2 : index
        %13 = arith.addi %w, %12 : index
        loop.for %conv1_pad_ax2 = %11 extent %13 {
          %14 = arith.constant 0 : index
          %15 = arith.constant 3 : index
          loop.for %conv1_pad_ax3 = %14 extent %15 {
            %16 = arith.constant 0 : index
            %17 = arith.constant 1 : index
            %18 = arith.cmpi sge, %conv1_pad_ax1, %17 : index
            %19 = arith.constant 1 : index
            %20 = arith.addi %h, %19 : index
            %21 = arith.cmpi slt, %conv1_pad_ax1, %20 : index
            %22 = arith.constant 1 : index
            %23 = arith.cmpi sge, %conv1_pad_ax2, %22 : index
            %24 = arith.constant 1 : index
            %25 = arith.addi %w, %24 : index
            %26 = arith.cmpi slt, %conv1_pad_ax2, %25 : index
            %27 = arith.andi %18, %21 : i1
            %28 = arith.andi %27, %23 : i1
            %29 = arith.andi %28, %26 : i1
            %30 = scf.if %29 -> (f32) {
              %31 = arith.constant 0 : index
              %32 = arith.subi %16, %31 : index
              %33 = arith.constant 1 : index
              %34 = arith.subi %conv1_pad_ax1, %33 : index
              %35 = arith.constant 1 : index
              %36 = arith.subi %conv1_pad_ax2, %35 : index
              %37 = arith.constant 0 : index
              %38 = arith.subi %conv1_pad_ax3, %37 : index
              %39 = arith.muli %conv1_pad_ax1, %w : index
              %40 = arith.constant 3 : index
              %41 = arith.muli %39, %40 : index
              %42 = arith.addi %conv1_pad_ax3, %41 : index
              %43 = arith.muli %conv1_pad_ax2, %40 : index
              %44 = arith.addi %42, %43 : index
              %45 = arith.muli %w, %40 : index
              %46 = arith.subi %44, %45 : index
              %47 = arith.subi %46, %40 : index
              %48 = loop.load %x[%47] : !loop.buffer<["h * w * 3"], f32>
              scf.yield %48 : f32
            } else {
              %49 = arith.constant 0.000000e+00 : f32
              scf.yield %49 : f32
            }{te.likely}
            %50 = arith.constant 6 : index
            %51 = arith.muli %conv1_pad_ax1, %50 : index
            %52 = arith.addi %conv1_pad_ax3, %51 : index
            %53 = arith.muli %conv1_pad_ax1, %w : index
            %54 = arith.constant 3 : index
            %55 = arith.muli %53, %54 : index
            %56 = arith.addi %52, %55 : index
            %57 = arith.muli %conv1_pad_ax2, %54 : index
            %58 = arith.addi %56, %57 : index
            loop.store %30, %conv1_pad[%58] : !loop.buffer<["h * 6 + h * w * 3 + w * 6 + 12"], f32>
          }
        }
      }
    }
    %59 = arith.constant 0 : index
    %60 = arith.constant 0 : index
    %61 = arith.constant 0 : index
    %62 = arith.constant 0 : index
    %63 = arith.constant 0 : index
    %conv1 = loop.view "conv1" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" {loop.fresh_because = "no buffer is dead yet"} : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h * w * 64"], f32>
    %64 = arith.constant 0 : index
    %65 = arith.constant 1 : index
    loop.for %conv1_nn = %64 extent %65 {
      %66 = arith.constant 0 : index
      loop.for %conv1_yy = %66 extent %h {
        %67 = arith.constant 0 : index
        loop.for %conv1_xx = %67 extent %w {
          %68 = arith.constant 0 : index
          %69 = arith.constant 64 : index
          loop.for %conv1_ff = %68 extent %69 {
            %70 = arith.constant 0 : index
            %conv1_acc = loop.alloc local "conv1.acc" [%70] : !loop.buffer<[1], f32>
            %71 = arith.constant 0.000000e+00 : f32
            loop.store %71, %conv1_acc[%70] : !loop.buffer<[1], f32>
            %72 = arith.constant 0 : index
            %73 = arith.constant 3 : index
            loop.for %conv1_ry = %72 extent %73 {
              %74 = arith.constant 0 : index
              %75 = arith.constant 3 : index
              loop.for %conv1_rx = %74 extent %75 {
                %76 = arith.constant 0 : index
                %77 = arith.constant 3 : index
                loop.for %conv1_rc = %76 extent %77 {
                  %78 = arith.constant 0 : index
                  %79 = arith.constant 1 : index
                  %80 = arith.muli %conv1_yy, %79 : index
                  %81 = arith.addi %80, %conv1_ry : index
                  %82 = arith.constant 1 : index
                  %83 = arith.muli %conv1_xx, %82 : index
                  %84 = arith.addi %83, %conv1_rx : index
                  %85 = arith.constant 6 : index
                  %86 = arith.muli %conv1_yy, %85 : index
                  %87 = arith.muli %conv1_yy, %w : index
                  %88 = arith.constant 3 : index
                  %89 = arith.muli %87, %88 : index
                  %90 = arith.addi %86, %89 : index
                  %91 = arith.muli %conv1_xx, %88 : index
                  %92 = arith.addi %90, %91 : index
                  %93 = arith.muli %conv1_ry, %85 : index
                  %94 = arith.addi %92, %93 : index
                  %95 = arith.muli %conv1_ry, %w : index
                  %96 = arith.muli %95, %88 : index
                  %97 = arith.addi %94, %96 : index
                  %98 = arith.muli %conv1_rx, %88 : index
                  %99 = arith.addi %97, %98 : index
                  %100 = arith.addi %99, %conv1_rc : index
                  %101 = loop.load %conv1_pad[%100] : !loop.buffer<["h * 6 + h * w * 3 + w * 6 + 12"], f32>
                  %102 = arith.constant 576 : index
                  %103 = arith.muli %conv1_ry, %102 : index
                  %104 = arith.addi %conv1_ff, %103 : index
                  %105 = arith.constant 192 : index
                  %106 = arith.muli %conv1_rx, %105 : index
                  %107 = arith.addi %104, %106 : index
                  %108 = arith.constant 64 : index
                  %109 = arith.muli %conv1_rc, %108 : index
                  %110 = arith.addi %107, %109 : index
                  %111 = loop.load %w1[%110] : !loop.buffer<[1728], f32>
                  %112 = arith.mulf %101, %111 : f32
                  %113 = arith.constant 0 : index
                  %114 = loop.load %conv1_acc[%113] : !loop.buffer<[1], f32>
                  %115 = arith.addf %114, %112 : f32
                  loop.store %115, %conv1_acc[%113] : !loop.buffer<[1], f32>
                }
              }
            }
            %116 = arith.constant 0 : index
            %117 = arith.constant 0 : index
            %118 = loop.load %conv1_acc[%117] : !loop.buffer<[1], f32>
            %119 = arith.muli %conv1_yy, %w : index
            %120 = arith.constant 64 : index
            %121 = arith.muli %119, %120 : index
            %122 = arith.muli %conv1_xx, %120 : index
            %123 = arith.addi %121, %122 : index
            %124 = arith.addi %123, %conv1_ff : index
            loop.store %118, %conv1[%124] : !loop.buffer<["h * w * 64"], f32>
          }
        }
      }
    }
    %125 = arith.constant 0 : index
    %126 = arith.constant 0 : index
    %127 = arith.constant 0 : index
    %128 = arith.constant 0 : index
    %129 = arith.constant 0 : index
    %bias1 = loop.view "bias1" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" inplace "conv1" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h * w * 64"], f32>
    %130 = arith.constant 0 : index
    %131 = arith.constant 1 : index
    loop.for %bias1_ax0 = %130 extent %131 {
      %132 = arith.constant 0 : index
      loop.for %bias1_ax1 = %132 extent %h {
        %133 = arith.constant 0 : index
        loop.for %bias1_ax2 = %133 extent %w {
          %134 = arith.constant 0 : index
          %135 = arith.constant 64 : index
          loop.for %bias1_ax3 = %134 extent %135 {
            %136 = arith.constant 0 : index
            %137 = arith.muli %bias1_ax1, %w : index
            %138 = arith.constant 64 : index
            %139 = arith.muli %137, %138 : index
            %140 = arith.muli %bias1_ax2, %138 : index
            %141 = arith.addi %139, %140 : index
            %142 = arith.addi %141, %bias1_ax3 : index
            %143 = loop.load %conv1[%142] : !loop.buffer<["h * w * 64"], f32>
            %144 = loop.load %b1[%bias1_ax3] : !loop.buffer<[64], f32>
            %145 = arith.addf %143, %144 : f32
            %146 = arith.muli %bias1_ax1, %w : index
            %147 = arith.constant 64 : index
            %148 = arith.muli %146, %147 : index
            %149 = arith.muli %bias1_ax2, %147 : index
            %150 = arith.addi %148, %149 : index
            %151 = arith.addi %150, %bias1_ax3 : index
            loop.store %145, %bias1[%151] : !loop.buffer<["h * w * 64"], f32>
          }
        }
      }
    }
    %152 = arith.constant 0 : index
    %153 = arith.constant 0 : index
    %154 = arith.constant 0 : index
    %155 = arith.constant 0 : index
    %156 = arith.constant 0 : index
    %act1 = loop.view "act1" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" inplace "bias1" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h * w * 64"], f32>
    %157 = arith.constant 0 : index
    %158 = arith.constant 1 : index
    loop.for %act1_ax0 = %157 extent %158 {
      %159 = arith.constant 0 : index
      loop.for %act1_ax1 = %159 extent %h {
        %160 = arith.constant 0 : index
        loop.for %act1_ax2 = %160 extent %w {
          %161 = arith.constant 0 : index
          %162 = arith.constant 64 : index
          loop.for %act1_ax3 = %161 extent %162 {
            %163 = arith.constant 0 : index
            %164 = arith.muli %act1_ax1, %w : index
            %165 = arith.constant 64 : index
            %166 = arith.muli %164, %165 : index
            %167 = arith.addi %act1_ax3, %166 : index
            %168 = arith.muli %act1_ax2, %165 : index
            %169 = arith.addi %167, %168 : index
            %170 = loop.load %bias1[%169] : !loop.buffer<["h * w * 64"], f32>
            %171 = arith.constant 0.000000e+00 : f32
            %172 = arith.cmpf ogt, %170, %171 : f32
            %173 = scf.if %172 -> (f32) {
              scf.yield %170 : f32
            } else {
              %174 = arith.constant 1.000000e-01 : f32
              %175 = arith.mulf %170, %174 : f32
              scf.yield %175 : f32
            }
            %176 = arith.muli %act1_ax1, %w : index
            %177 = arith.constant 64 : index
            %178 = arith.muli %176, %177 : index
            %179 = arith.addi %act1_ax3, %178 : index
            %180 = arith.muli %act1_ax2, %177 : index
            %181 = arith.addi %179, %180 : index
            loop.store %173, %act1[%181] : !loop.buffer<["h * w * 64"], f32>
          }
        }
      }
    }
    %182 = arith.constant 0 : index
    %183 = arith.constant 0 : index
    %184 = arith.constant 0 : index
    %185 = arith.constant 0 : index
    %186 = arith.constant 0 : index
    %conv2_pad = loop.view "conv2_pad" %arena at "0" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h // 2 * 256 + h // 2 * (w // 2) * 256 + w // 2 * 256 + 256"], f32>
    %187 = arith.constant 0 : index
    %188 = arith.constant 1 : index
    loop.for %conv2_pad_ax0 = %187 extent %188 {
      %189 = arith.constant 0 : index
      %190 = arith.constant 2 : index
      %191 = arith.floordivsi %h, %190 : index
      %192 = arith.muli %191, %190 : index
      %193 = arith.addi %192, %190 : index
      loop.for %conv2_pad_ax1 = %189 extent %193 {
        %194 = arith.constant 0 : index
        %195 = arith.constant 2 : index
        %196 = arith.floordivsi %w, %195 : index
        %197 = arith.muli %196, %195 : index
        %198 = arith.addi %197, %195 : index
        loop.for %conv2_pad_ax2 = %194 extent %198 {
          %199 = arith.constant 0 : index
          %200 = arith.constant 64 : index
          loop.for %conv2_pad_ax3 = %199 extent %200 {
            %201 = arith.constant 0 : index
            %202 = arith.constant 1 : index
            %203 = arith.cmpi sge, %conv2_pad_ax1, %202 : index
            %204 = arith.constant 2 : index
            %205 = arith.addi %h, %204 : index
            %206 = arith.constant 3 : index
            %207 = arith.subi %205, %206 : index
            %208 = arith.constant 1 : index
            %209 = arith.floordivsi %207, %208 : index
            %210 = arith.constant 1 : index
            %211 = arith.addi %209, %210 : index
            %212 = arith.constant 1 : index
            %213 = arith.addi %211, %212 : index
            %214 = arith.cmpi slt, %conv2_pad_ax1, %213 : index
            %215 = arith.constant 1 : index
            %216 = arith.cmpi sge, %conv2_pad_ax2, %215 : index
            %217 = arith.constant 2 : index
            %218 = arith.addi %w, %217 : index
            %219 = arith.constant 3 : index
            %220 = arith.subi %218, %219 : index
            %221 = arith.constant 1 : index
            %222 = arith.floordivsi %220, %221 : index
            %223 = arith.constant 1 : index
            %224 = arith.addi %222, %223 : index
            %225 = arith.constant 1 : index
            %226 = arith.addi %224, %225 : index
            %227 = arith.cmpi slt, %conv2_pad_ax2, %226 : index
            %228 = arith.andi %203, %214 : i1
            %229 = arith.andi %228, %216 : i1
            %230 = arith.andi %229, %227 : i1
            %231 = scf.if %230 -> (f32) {
              %232 = arith.constant 0 : index
              %233 = arith.subi %201, %232 : index
              %234 = arith.constant 1 : index
              %235 = arith.subi %conv2_pad_ax1, %234 : index
              %236 = arith.constant 1 : index
              %237 = arith.subi %conv2_pad_ax2, %236 : index
              %238 = arith.constant 0 : index
              %239 = arith.subi %conv2_pad_ax3, %238 : index
              %240 = arith.muli %conv2_pad_ax1, %w : index
              %241 = arith.constant 64 : index
              %242 = arith.muli %240, %241 : index
              %243 = arith.addi %conv2_pad_ax3, %242 : index
              %244 = arith.muli %conv2_pad_ax2, %241 : index
              %245 = arith.addi %243, %244 : index
              %246 = arith.muli %w, %241 : index
              %247 = arith.subi %245, %246 : index
              %248 = arith.subi %247, %241 : index
              %249 = loop.load %act1[%248] : !loop.buffer<["h * w * 64"], f32>
              scf.yield %249 : f32
            } else {
              %250 = arith.constant 0.000000e+00 : f32
              scf.yield %250 : f32
            }{te.likely}
            %251 = arith.constant 128 : index
            %252 = arith.muli %conv2_pad_ax1, %251 : index
            %253 = arith.addi %conv2_pad_ax3, %252 : index
            %254 = arith.constant 2 : index
            %255 = arith.floordivsi %w, %254 : index
            %256 = arith.muli %conv2_pad_ax1, %255 : index
            %257 = arith.muli %256, %251 : index
            %258 = arith.addi %253, %257 : index
            %259 = arith.constant 64 : index
            %260 = arith.muli %conv2_pad_ax2, %259 : index
            %261 = arith.addi %258, %260 : index
            loop.store %231, %conv2_pad[%261] : !loop.buffer<["h // 2 * 256 + h // 2 * (w // 2) * 256 + w // 2 * 256 + 256"], f32>
          }
        }
      }
    }
    %262 = arith.constant 0 : index
    %263 = arith.constant 0 : index
    %264 = arith.constant 0 : index
    %265 = arith.constant 0 : index
    %266 = arith.constant 0 : index
    %conv2 = loop.view "conv2" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
    %267 = arith.constant 0 : index
    %268 = arith.constant 1 : index
    loop.for %conv2_nn = %267 extent %268 {
      %269 = arith.constant 0 : index
      %270 = arith.constant 2 : index
      %271 = arith.floordivsi %h, %270 : index
      %272 = arith.muli %271, %270 : index
      loop.for %conv2_yy = %269 extent %272 {
        %273 = arith.constant 0 : index
        %274 = arith.constant 2 : index
        %275 = arith.floordivsi %w, %274 : index
        %276 = arith.muli %275, %274 : index
        loop.for %conv2_xx = %273 extent %276 {
          %277 = arith.constant 0 : index
          %278 = arith.constant 64 : index
          loop.for %conv2_ff = %277 extent %278 {
            %279 = arith.constant 0 : index
            %conv2_acc = loop.alloc local "conv2.acc" [%279] : !loop.buffer<[1], f32>
            %280 = arith.constant 0.000000e+00 : f32
            loop.store %280, %conv2_acc[%279] : !loop.buffer<[1], f32>
            %281 = arith.constant 0 : index
            %282 = arith.constant 3 : index
            loop.for %conv2_ry = %281 extent %282 {
              %283 = arith.constant 0 : index
              %284 = arith.constant 3 : index
              loop.for %conv2_rx = %283 extent %284 {
                %285 = arith.constant 0 : index
                %286 = arith.constant 64 : index
                loop.for %conv2_rc = %285 extent %286 {
                  %287 = arith.constant 0 : index
                  %288 = arith.constant 1 : index
                  %289 = arith.muli %conv2_yy, %288 : index
                  %290 = arith.addi %289, %conv2_ry : index
                  %291 = arith.constant 1 : index
                  %292 = arith.muli %conv2_xx, %291 : index
                  %293 = arith.addi %292, %conv2_rx : index
                  %294 = arith.constant 128 : index
                  %295 = arith.muli %conv2_ry, %294 : index
                  %296 = arith.constant 2 : index
                  %297 = arith.floordivsi %w, %296 : index
                  %298 = arith.muli %conv2_ry, %297 : index
                  %299 = arith.muli %298, %294 : index
                  %300 = arith.addi %295, %299 : index
                  %301 = arith.constant 64 : index
                  %302 = arith.muli %conv2_rx, %301 : index
                  %303 = arith.addi %300, %302 : index
                  %304 = arith.addi %303, %conv2_rc : index
                  %305 = arith.muli %conv2_yy, %294 : index
                  %306 = arith.addi %304, %305 : index
                  %307 = arith.muli %conv2_yy, %297 : index
                  %308 = arith.muli %307, %294 : index
                  %309 = arith.addi %306, %308 : index
                  %310 = arith.muli %conv2_xx, %301 : index
                  %311 = arith.addi %309, %310 : index
                  %312 = loop.load %conv2_pad[%311] : !loop.buffer<["h // 2 * 256 + h // 2 * (w // 2) * 256 + w // 2 * 256 + 256"], f32>
                  %313 = arith.constant 12288 : index
                  %314 = arith.muli %conv2_ry, %313 : index
                  %315 = arith.addi %conv2_ff, %314 : index
                  %316 = arith.constant 4096 : index
                  %317 = arith.muli %conv2_rx, %316 : index
                  %318 = arith.addi %315, %317 : index
                  %319 = arith.constant 64 : index
                  %320 = arith.muli %conv2_rc, %319 : index
                  %321 = arith.addi %318, %320 : index
                  %322 = loop.load %w2[%321] : !loop.buffer<[36864], f32>
                  %323 = arith.mulf %312, %322 : f32
                  %324 = arith.constant 0 : index
                  %325 = loop.load %conv2_acc[%324] : !loop.buffer<[1], f32>
                  %326 = arith.addf %325, %323 : f32
                  loop.store %326, %conv2_acc[%324] : !loop.buffer<[1], f32>
                }
              }
            }
            %327 = arith.constant 0 : index
            %328 = arith.constant 0 : index
            %329 = loop.load %conv2_acc[%328] : !loop.buffer<[1], f32>
            %330 = arith.constant 2 : index
            %331 = arith.floordivsi %w, %330 : index
            %332 = arith.muli %conv2_yy, %331 : index
            %333 = arith.constant 128 : index
            %334 = arith.muli %332, %333 : index
            %335 = arith.addi %conv2_ff, %334 : index
            %336 = arith.constant 64 : index
            %337 = arith.muli %conv2_xx, %336 : index
            %338 = arith.addi %335, %337 : index
            loop.store %329, %conv2[%338] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
          }
        }
      }
    }
    %339 = arith.constant 0 : index
    %340 = arith.constant 0 : index
    %341 = arith.constant 0 : index
    %342 = arith.constant 0 : index
    %343 = arith.constant 0 : index
    %bias2 = loop.view "bias2" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" inplace "conv2" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
    %344 = arith.constant 0 : index
    %345 = arith.constant 1 : index
    loop.for %bias2_ax0 = %344 extent %345 {
      %346 = arith.constant 0 : index
      %347 = arith.constant 2 : index
      %348 = arith.floordivsi %h, %347 : index
      %349 = arith.muli %348, %347 : index
      loop.for %bias2_ax1 = %346 extent %349 {
        %350 = arith.constant 0 : index
        %351 = arith.constant 2 : index
        %352 = arith.floordivsi %w, %351 : index
        %353 = arith.muli %352, %351 : index
        loop.for %bias2_ax2 = %350 extent %353 {
          %354 = arith.constant 0 : index
          %355 = arith.constant 64 : index
          loop.for %bias2_ax3 = %354 extent %355 {
            %356 = arith.constant 0 : index
            %357 = arith.constant 2 : index
            %358 = arith.floordivsi %w, %357 : index
            %359 = arith.muli %bias2_ax1, %358 : index
            %360 = arith.constant 128 : index
            %361 = arith.muli %359, %360 : index
            %362 = arith.addi %bias2_ax3, %361 : index
            %363 = arith.constant 64 : index
            %364 = arith.muli %bias2_ax2, %363 : index
            %365 = arith.addi %362, %364 : index
            %366 = loop.load %conv2[%365] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
            %367 = loop.load %b2[%bias2_ax3] : !loop.buffer<[64], f32>
            %368 = arith.addf %366, %367 : f32
            %369 = arith.constant 2 : index
            %370 = arith.floordivsi %w, %369 : index
            %371 = arith.muli %bias2_ax1, %370 : index
            %372 = arith.constant 128 : index
            %373 = arith.muli %371, %372 : index
            %374 = arith.addi %bias2_ax3, %373 : index
            %375 = arith.constant 64 : index
            %376 = arith.muli %bias2_ax2, %375 : index
            %377 = arith.addi %374, %376 : index
            loop.store %368, %bias2[%377] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
          }
        }
      }
    }
    %378 = arith.constant 0 : index
    %379 = arith.constant 0 : index
    %380 = arith.constant 0 : index
    %381 = arith.constant 0 : index
    %382 = arith.constant 0 : index
    %act2 = loop.view "act2" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" inplace "bias2" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
    %383 = arith.constant 0 : index
    %384 = arith.constant 1 : index
    loop.for %act2_ax0 = %383 extent %384 {
      %385 = arith.constant 0 : index
      %386 = arith.constant 2 : index
      %387 = arith.floordivsi %h, %386 : index
      %388 = arith.muli %387, %386 : index
      loop.for %act2_ax1 = %385 extent %388 {
        %389 = arith.constant 0 : index
        %390 = arith.constant 2 : index
        %391 = arith.floordivsi %w, %390 : index
        %392 = arith.muli %391, %390 : index
        loop.for %act2_ax2 = %389 extent %392 {
          %393 = arith.constant 0 : index
          %394 = arith.constant 64 : index
          loop.for %act2_ax3 = %393 extent %394 {
            %395 = arith.constant 0 : index
            %396 = arith.constant 2 : index
            %397 = arith.floordivsi %w, %396 : index
            %398 = arith.muli %act2_ax1, %397 : index
            %399 = arith.constant 128 : index
            %400 = arith.muli %398, %399 : index
            %401 = arith.addi %act2_ax3, %400 : index
            %402 = arith.constant 64 : index
            %403 = arith.muli %act2_ax2, %402 : index
            %404 = arith.addi %401, %403 : index
            %405 = loop.load %bias2[%404] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
            %406 = arith.constant 0.000000e+00 : f32
            %407 = arith.cmpf ogt, %405, %406 : f32
            %408 = scf.if %407 -> (f32) {
              scf.yield %405 : f32
            } else {
              %409 = arith.constant 1.000000e-01 : f32
              %410 = arith.mulf %405, %409 : f32
              scf.yield %410 : f32
            }
            %411 = arith.constant 2 : index
            %412 = arith.floordivsi %w, %411 : index
            %413 = arith.muli %act2_ax1, %412 : index
            %414 = arith.constant 128 : index
            %415 = arith.muli %413, %414 : index
            %416 = arith.addi %act2_ax3, %415 : index
            %417 = arith.constant 64 : index
            %418 = arith.muli %act2_ax2, %417 : index
            %419 = arith.addi %416, %418 : index
            loop.store %408, %act2[%419] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
          }
        }
      }
    }
    %420 = arith.constant 0 : index
    %421 = arith.constant 0 : index
    %422 = arith.constant 0 : index
    %423 = arith.constant 0 : index
    %424 = arith.constant 0 : index
    %pool_sum = loop.view "pool_sum" %arena at "h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024" inplace "act2" : !loop.buffer<["h * w * 256 + h // 2 * 1024 + h // 2 * (w // 2) * 1024 + w // 2 * 1024 + 1024"], i8> -> !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
    %425 = arith.constant 0 : index
    %426 = arith.constant 1 : index
    loop.for %pool_sum_ax0 = %425 extent %426 {
      %427 = arith.constant 0 : index
      %428 = arith.constant 2 : index
      %429 = arith.floordivsi %h, %428 : index
      loop.for %pool_sum_ax1 = %427 extent %429 {
        %430 = arith.constant 0 : index
        %431 = arith.constant 2 : index
        %432 = arith.floordivsi %w, %431 : index
        loop.for %pool_sum_ax2 = %430 extent %432 {
          %433 = arith.constant 0 : index
          %434 = arith.constant 64 : index
          loop.for %pool_sum_ax3 = %433 extent %434 {
            %435 = arith.constant 0 : index
            %pool_sum_acc = loop.alloc local "pool_sum.acc" [%435] : !loop.buffer<[1], f32>
            %436 = arith.constant 0.000000e+00 : f32
            loop.store %436, %pool_sum_acc[%435] : !loop.buffer<[1], f32>
            %437 = arith.constant 0 : index
            %438 = arith.constant 2 : index
            loop.for %pool_sum_ry = %437 extent %438 {
              %439 = arith.constant 0 : index
              %440 = arith.constant 2 : index
              loop.for %pool_sum_rx = %439 extent %440 {
                %441 = arith.constant 0 : index
                %442 = arith.constant 2 : index
                %443 = arith.muli %pool_sum_ax1, %442 : index
                %444 = arith.addi %443, %pool_sum_ry : index
                %445 = arith.constant 2 : index
                %446 = arith.muli %pool_sum_ax2, %445 : index
                %447 = arith.addi %446, %pool_sum_rx : index
                %448 = arith.constant 2 : index
                %449 = arith.floordivsi %w, %448 : index
                %450 = arith.muli %pool_sum_ry, %449 : index
                %451 = arith.constant 128 : index
                %452 = arith.muli %450, %451 : index
                %453 = arith.addi %pool_sum_ax3, %452 : index
                %454 = arith.constant 64 : index
                %455 = arith.muli %pool_sum_rx, %454 : index
                %456 = arith.addi %453, %455 : index
                %457 = arith.muli %pool_sum_ax1, %449 : index
                %458 = arith.constant 256 : index
                %459 = arith.muli %457, %458 : index
                %460 = arith.addi %456, %459 : index
                %461 = arith.muli %pool_sum_ax2, %451 : index
                %462 = arith.addi %460, %461 : index
                %463 = loop.load %act2[%462] : !loop.buffer<["h // 2 * (w // 2) * 256"], f32>
                %464 = arith.constant 0 : index
                %465 = loop.load %pool_sum_acc[%464] : !loop.buffer<[1], f32>
                %466 = arith.addf %465, %463 : f32
                loop.store %466, %pool_sum_acc[%464] : !loop.buffer<[1], f32>
              }
            }
            %467 = arith.constant 0 : index
            %468 = arith.constant 0 : index
            %469 = loop.load %pool_sum_acc[%468] : !loop.buffer<[1], f32>
            %470 = arith.constant 2 : index
            %471 = arith.floordivsi %w, %470 : index
            %472 = arith.muli %pool_sum_ax1, %471 : index
            %473 = arith.constant 64 : index
            %474 = arith.muli %472, %473 : index
            %475 = arith.addi %pool_sum_ax3, %474 : index
            %476 = arith.muli %pool_sum_ax2, %473 : index
            %477 = arith.addi %475, %476 : index
            loop.store %469, %pool_sum[%477] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
          }
        }
      }
    }
    %478 = arith.constant 0 : index
    %479 = arith.constant 1 : index
    loop.for %pool_ax0 = %478 extent %479 {
      %480 = arith.constant 0 : index
      %481 = arith.constant 2 : index
      %482 = arith.floordivsi %h, %481 : index
      loop.for %pool_ax1 = %480 extent %482 {
        %483 = arith.constant 0 : index
        %484 = arith.constant 2 : index
        %485 = arith.floordivsi %w, %484 : index
        loop.for %pool_ax2 = %483 extent %485 {
          %486 = arith.constant 0 : index
          %487 = arith.constant 64 : index
          loop.for %pool_ax3 = %486 extent %487 {
            %488 = arith.constant 0 : index
            %489 = arith.constant 2 : index
            %490 = arith.floordivsi %w, %489 : index
            %491 = arith.muli %pool_ax1, %490 : index
            %492 = arith.constant 64 : index
            %493 = arith.muli %491, %492 : index
            %494 = arith.addi %pool_ax3, %493 : index
            %495 = arith.muli %pool_ax2, %492 : index
            %496 = arith.addi %494, %495 : index
            %497 = loop.load %pool_sum[%496] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
            %498 = arith.constant 2.500000e-01 : f32
            %499 = arith.mulf %497, %498 : f32
            %500 = arith.constant 2 : index
            %501 = arith.floordivsi %w, %500 : index
            %502 = arith.muli %pool_ax1, %501 : index
            %503 = arith.constant 64 : index
            %504 = arith.muli %502, %503 : index
            %505 = arith.addi %pool_ax3, %504 : index
            %506 = arith.muli %pool_ax2, %503 : index
            %507 = arith.addi %505, %506 : index
            loop.store %499, %pool[%507] : !loop.buffer<["h // 2 * (w // 2) * 64"], f32>
          }
        }
      }
    }
  }
}
