// RUN: compiler-opt %s -p 'default-pipeline{until=loop}' | filecheck %s
// RUN: compiler-opt %s -p 'default-pipeline{until=loop tighten-pad-regions=false}' | filecheck %s --check-prefix=OFF

// Eight chained 3x3 convolutions with pad 1 on 1x2x12x12, only y8 an output.
// With guard-aware bounds every pad buffer is 14x14 and every intermediate
// conv 12x12. Without (OFF), the over-allocation of seed 000 compounds
// backwards by 2 per padded layer: y7 is 14x14, ..., y1 26x26, y1_pad 28x28.

te.func @chain8(%x: !te.tensor<[1, 2, 12, 12], f32>, %w1: !te.tensor<[2, 2, 3, 3], f32>, %w2: !te.tensor<[2, 2, 3, 3], f32>, %w3: !te.tensor<[2, 2, 3, 3], f32>, %w4: !te.tensor<[2, 2, 3, 3], f32>, %w5: !te.tensor<[2, 2, 3, 3], f32>, %w6: !te.tensor<[2, 2, 3, 3], f32>, %w7: !te.tensor<[2, 2, 3, 3], f32>, %w8: !te.tensor<[2, 2, 3, 3], f32>) -> !te.tensor<[1, 2, 12, 12], f32> {
  %y1_pad = te.compute "y1_pad" (%ax0, %ax1, %ax2, %ax3) : !te.tensor<[1, 2, 14, 14], f32> {
    %0 = arith.constant 1 : index
    %1 = arith.cmpi sge, %ax2, %0 : index
    %2 = arith.constant 13 : index
    %3 = arith.cmpi slt, %ax2, %2 : index
    %4 = arith.constant 1 : index
    %5 = arith.cmpi sge, %ax3, %4 : index
    %6 = arith.constant 13 : index
    %7 = arith.cmpi slt, %ax3, %6 : index
    %8 = arith.andi %1, %3 : i1
    %9 = arith.andi %8, %5 : i1
    %10 = arith.andi %9, %7 : i1
    %11 = scf.if %10 -> (f32) {
      %12 = arith.constant 0 : index
      %13 = arith.subi %ax0, %12 : index
      %14 = arith.constant 0 : index
      %15 = arith.subi %ax1, %14 : index
      %16 = arith.constant 1 : index
      %17 = arith.subi %ax2, %16 : index
      %18 = arith.constant 1 : index
      %19 = arith.subi %ax3, %18 : index
      %20 = te.read %x[%13, %15, %17, %19] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %20 : f32
    } else {
      %21 = arith.constant 0.000000e+00 : f32
      scf.yield %21 : f32
    }{te.likely}
    te.yield %11 : f32
  }
  %y1 = te.compute "y1" (%nn, %ff, %yy, %xx) : !te.tensor<[1, 2, 12, 12], f32> {
    %22 = te.reduce sum (%rc, %ry, %rx) in [2, 3, 3] : f32 {
      %23 = arith.constant 1 : index
      %24 = arith.muli %yy, %23 : index
      %25 = arith.constant 1 : index
      %26 = arith.muli %ry, %25 : index
      %27 = arith.addi %24, %26 : index
      %28 = arith.constant 1 : index
      %29 = arith.muli %xx, %28 : index
      %30 = arith.constant 1 : index
      %31 = arith.muli %rx, %30 : index
      %32 = arith.addi %29, %31 : index
      %33 = te.read %y1_pad[%nn, %rc, %27, %32] : !te.tensor<[1, 2, 14, 14], f32>
      %34 = te.read %w1[%ff, %rc, %ry, %rx] : !te.tensor<[2, 2, 3, 3], f32>
      %35 = arith.mulf %33, %34 : f32
      te.yield %35 : f32
    }
    te.yield %22 : f32
  }
  %y2_pad = te.compute "y2_pad" (%ax0_1, %ax1_1, %ax2_1, %ax3_1) : !te.tensor<[1, 2, 14, 14], f32> {
    %36 = arith.constant 1 : index
    %37 = arith.cmpi sge, %ax2_1, %36 : index
    %38 = arith.constant 13 : index
    %39 = arith.cmpi slt, %ax2_1, %38 : index
    %40 = arith.constant 1 : index
    %41 = arith.cmpi sge, %ax3_1, %40 : index
    %42 = arith.constant 13 : index
    %43 = arith.cmpi slt, %ax3_1, %42 : index
    %44 = arith.andi %37, %39 : i1
    %45 = arith.andi %44, %41 : i1
    %46 = arith.andi %45, %43 : i1
    %47 = scf.if %46 -> (f32) {
      %48 = arith.constant 0 : index
      %49 = arith.subi %ax0_1, %48 : index
      %50 = arith.constant 0 : index
      %51 = arith.subi %ax1_1, %50 : index
      %52 = arith.constant 1 : index
      %53 = arith.subi %ax2_1, %52 : index
      %54 = arith.constant 1 : index
      %55 = arith.subi %ax3_1, %54 : index
      %56 = te.read %y1[%49, %51, %53, %55] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %56 : f32
    } else {
      %57 = arith.constant 0.000000e+00 : f32
      scf.yield %57 : f32
    }{te.likely}
    te.yield %47 : f32
  }
  %y2 = te.compute "y2" (%nn_1, %ff_1, %yy_1, %xx_1) : !te.tensor<[1, 2, 12, 12], f32> {
    %58 = te.reduce sum (%rc_1, %ry_1, %rx_1) in [2, 3, 3] : f32 {
      %59 = arith.constant 1 : index
      %60 = arith.muli %yy_1, %59 : index
      %61 = arith.constant 1 : index
      %62 = arith.muli %ry_1, %61 : index
      %63 = arith.addi %60, %62 : index
      %64 = arith.constant 1 : index
      %65 = arith.muli %xx_1, %64 : index
      %66 = arith.constant 1 : index
      %67 = arith.muli %rx_1, %66 : index
      %68 = arith.addi %65, %67 : index
      %69 = te.read %y2_pad[%nn_1, %rc_1, %63, %68] : !te.tensor<[1, 2, 14, 14], f32>
      %70 = te.read %w2[%ff_1, %rc_1, %ry_1, %rx_1] : !te.tensor<[2, 2, 3, 3], f32>
      %71 = arith.mulf %69, %70 : f32
      te.yield %71 : f32
    }
    te.yield %58 : f32
  }
  %y3_pad = te.compute "y3_pad" (%ax0_2, %ax1_2, %ax2_2, %ax3_2) : !te.tensor<[1, 2, 14, 14], f32> {
    %72 = arith.constant 1 : index
    %73 = arith.cmpi sge, %ax2_2, %72 : index
    %74 = arith.constant 13 : index
    %75 = arith.cmpi slt, %ax2_2, %74 : index
    %76 = arith.constant 1 : index
    %77 = arith.cmpi sge, %ax3_2, %76 : index
    %78 = arith.constant 13 : index
    %79 = arith.cmpi slt, %ax3_2, %78 : index
    %80 = arith.andi %73, %75 : i1
    %81 = arith.andi %80, %77 : i1
    %82 = arith.andi %81, %79 : i1
    %83 = scf.if %82 -> (f32) {
      %84 = arith.constant 0 : index
      %85 = arith.subi %ax0_2, %84 : index
      %86 = arith.constant 0 : index
      %87 = arith.subi %ax1_2, %86 : index
      %88 = arith.constant 1 : index
      %89 = arith.subi %ax2_2, %88 : index
      %90 = arith.constant 1 : index
      %91 = arith.subi %ax3_2, %90 : index
      %92 = te.read %y2[%85, %87, %89, %91] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %92 : f32
    } else {
      %93 = arith.constant 0.000000e+00 : f32
      scf.yield %93 : f32
    }{te.likely}
    te.yield %83 : f32
  }
  %y3 = te.compute "y3" (%nn_2, %ff_2, %yy_2, %xx_2) : !te.tensor<[1, 2, 12, 12], f32> {
    %94 = te.reduce sum (%rc_2, %ry_2, %rx_2) in [2, 3, 3] : f32 {
      %95 = arith.constant 1 : index
      %96 = arith.muli %yy_2, %95 : index
      %97 = arith.constant 1 : index
      %98 = arith.muli %ry_2, %97 : index
      %99 = arith.addi %96, %98 : index
      %100 = arith.constant 1 : index
      %101 = arith.muli %xx_2, %100 : index
      %102 = arith.constant 1 : index
      %103 = arith.muli %rx_2, %102 : index
      %104 = arith.addi %101, %103 : index
      %105 = te.read %y3_pad[%nn_2, %rc_2, %99, %104] : !te.tensor<[1, 2, 14, 14], f32>
      %106 = te.read %w3[%ff_2, %rc_2, %ry_2, %rx_2] : !te.tensor<[2, 2, 3, 3], f32>
      %107 = arith.mulf %105, %106 : f32
      te.yield %107 : f32
    }
    te.yield %94 : f32
  }
  %y4_pad = te.compute "y4_pad" (%ax0_3, %ax1_3, %ax2_3, %ax3_3) : !te.tensor<[1, 2, 14, 14], f32> {
    %108 = arith.constant 1 : index
    %109 = arith.cmpi sge, %ax2_3, %108 : index
    %110 = arith.constant 13 : index
    %111 = arith.cmpi slt, %ax2_3, %110 : index
    %112 = arith.constant 1 : index
    %113 = arith.cmpi sge, %ax3_3, %112 : index
    %114 = arith.constant 13 : index
    %115 = arith.cmpi slt, %ax3_3, %114 : index
    %116 = arith.andi %109, %111 : i1
    %117 = arith.andi %116, %113 : i1
    %118 = arith.andi %117, %115 : i1
    %119 = scf.if %118 -> (f32) {
      %120 = arith.constant 0 : index
      %121 = arith.subi %ax0_3, %120 : index
      %122 = arith.constant 0 : index
      %123 = arith.subi %ax1_3, %122 : index
      %124 = arith.constant 1 : index
      %125 = arith.subi %ax2_3, %124 : index
      %126 = arith.constant 1 : index
      %127 = arith.subi %ax3_3, %126 : index
      %128 = te.read %y3[%121, %123, %125, %127] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %128 : f32
    } else {
      %129 = arith.constant 0.000000e+00 : f32
      scf.yield %129 : f32
    }{te.likely}
    te.yield %119 : f32
  }
  %y4 = te.compute "y4" (%nn_3, %ff_3, %yy_3, %xx_3) : !te.tensor<[1, 2, 12, 12], f32> {
    %130 = te.reduce sum (%rc_3, %ry_3, %rx_3) in [2, 3, 3] : f32 {
      %131 = arith.constant 1 : index
      %132 = arith.muli %yy_3, %131 : index
      %133 = arith.constant 1 : index
      %134 = arith.muli %ry_3, %133 : index
      %135 = arith.addi %132, %134 : index
      %136 = arith.constant 1 : index
      %137 = arith.muli %xx_3, %136 : index
      %138 = arith.constant 1 : index
      %139 = arith.muli %rx_3, %138 : index
      %140 = arith.addi %137, %139 : index
      %141 = te.read %y4_pad[%nn_3, %rc_3, %135, %140] : !te.tensor<[1, 2, 14, 14], f32>
      %142 = te.read %w4[%ff_3, %rc_3, %ry_3, %rx_3] : !te.tensor<[2, 2, 3, 3], f32>
      %143 = arith.mulf %141, %142 : f32
      te.yield %143 : f32
    }
    te.yield %130 : f32
  }
  %y5_pad = te.compute "y5_pad" (%ax0_4, %ax1_4, %ax2_4, %ax3_4) : !te.tensor<[1, 2, 14, 14], f32> {
    %144 = arith.constant 1 : index
    %145 = arith.cmpi sge, %ax2_4, %144 : index
    %146 = arith.constant 13 : index
    %147 = arith.cmpi slt, %ax2_4, %146 : index
    %148 = arith.constant 1 : index
    %149 = arith.cmpi sge, %ax3_4, %148 : index
    %150 = arith.constant 13 : index
    %151 = arith.cmpi slt, %ax3_4, %150 : index
    %152 = arith.andi %145, %147 : i1
    %153 = arith.andi %152, %149 : i1
    %154 = arith.andi %153, %151 : i1
    %155 = scf.if %154 -> (f32) {
      %156 = arith.constant 0 : index
      %157 = arith.subi %ax0_4, %156 : index
      %158 = arith.constant 0 : index
      %159 = arith.subi %ax1_4, %158 : index
      %160 = arith.constant 1 : index
      %161 = arith.subi %ax2_4, %160 : index
      %162 = arith.constant 1 : index
      %163 = arith.subi %ax3_4, %162 : index
      %164 = te.read %y4[%157, %159, %161, %163] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %164 : f32
    } else {
      %165 = arith.constant 0.000000e+00 : f32
      scf.yield %165 : f32
    }{te.likely}
    te.yield %155 : f32
  }
  %y5 = te.compute "y5" (%nn_4, %ff_4, %yy_4, %xx_4) : !te.tensor<[1, 2, 12, 12], f32> {
    %166 = te.reduce sum (%rc_4, %ry_4, %rx_4) in [2, 3, 3] : f32 {
      %167 = arith.constant 1 : index
      %168 = arith.muli %yy_4, %167 : index
      %169 = arith.constant 1 : index
      %170 = arith.muli %ry_4, %169 : index
      %171 = arith.addi %168, %170 : index
      %172 = arith.constant 1 : index
      %173 = arith.muli %xx_4, %172 : index
      %174 = arith.constant 1 : index
      %175 = arith.muli %rx_4, %174 : index
      %176 = arith.addi %173, %175 : index
      %177 = te.read %y5_pad[%nn_4, %rc_4, %171, %176] : !te.tensor<[1, 2, 14, 14], f32>
      %178 = te.read %w5[%ff_4, %rc_4, %ry_4, %rx_4] : !te.tensor<[2, 2, 3, 3], f32>
      %179 = arith.mulf %177, %178 : f32
      te.yield %179 : f32
    }
    te.yield %166 : f32
  }
  %y6_pad = te.compute "y6_pad" (%ax0_5, %ax1_5, %ax2_5, %ax3_5) : !te.tensor<[1, 2, 14, 14], f32> {
    %180 = arith.constant 1 : index
    %181 = arith.cmpi sge, %ax2_5, %180 : index
    %182 = arith.constant 13 : index
    %183 = arith.cmpi slt, %ax2_5, %182 : index
    %184 = arith.constant 1 : index
    %185 = arith.cmpi sge, %ax3_5, %184 : index
    %186 = arith.constant 13 : index
    %187 = arith.cmpi slt, %ax3_5, %186 : index
    %188 = arith.andi %181, %183 : i1
    %189 = arith.andi %188, %185 : i1
    %190 = arith.andi %189, %187 : i1
    %191 = scf.if %190 -> (f32) {
      %192 = arith.constant 0 : index
      %193 = arith.subi %ax0_5, %192 : index
      %194 = arith.constant 0 : index
      %195 = arith.subi %ax1_5, %194 : index
      %196 = arith.constant 1 : index
      %197 = arith.subi %ax2_5, %196 : index
      %198 = arith.constant 1 : index
      %199 = arith.subi %ax3_5, %198 : index
      %200 = te.read %y5[%193, %195, %197, %199] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %200 : f32
    } else {
      %201 = arith.constant 0.000000e+00 : f32
      scf.yield %201 : f32
    }{te.likely}
    te.yield %191 : f32
  }
  %y6 = te.compute "y6" (%nn_5, %ff_5, %yy_5, %xx_5) : !te.tensor<[1, 2, 12, 12], f32> {
    %202 = te.reduce sum (%rc_5, %ry_5, %rx_5) in [2, 3, 3] : f32 {
      %203 = arith.constant 1 : index
      %204 = arith.muli %yy_5, %203 : index
      %205 = arith.constant 1 : index
      %206 = arith.muli %ry_5, %205 : index
      %207 = arith.addi %204, %206 : index
      %208 = arith.constant 1 : index
      %209 = arith.muli %xx_5, %208 : index
      %210 = arith.constant 1 : index
      %211 = arith.muli %rx_5, %210 : index
      %212 = arith.addi %209, %211 : index
      %213 = te.read %y6_pad[%nn_5, %rc_5, %207, %212] : !te.tensor<[1, 2, 14, 14], f32>
      %214 = te.read %w6[%ff_5, %rc_5, %ry_5, %rx_5] : !te.tensor<[2, 2, 3, 3], f32>
      %215 = arith.mulf %213, %214 : f32
      te.yield %215 : f32
    }
    te.yield %202 : f32
  }
  %y7_pad = te.compute "y7_pad" (%ax0_6, %ax1_6, %ax2_6, %ax3_6) : !te.tensor<[1, 2, 14, 14], f32> {
    %216 = arith.constant 1 : index
    %217 = arith.cmpi sge, %ax2_6, %216 : index
    %218 = arith.constant 13 : index
    %219 = arith.cmpi slt, %ax2_6, %218 : index
    %220 = arith.constant 1 : index
    %221 = arith.cmpi sge, %ax3_6, %220 : index
    %222 = arith.constant 13 : index
    %223 = arith.cmpi slt, %ax3_6, %222 : index
    %224 = arith.andi %217, %219 : i1
    %225 = arith.andi %224, %221 : i1
    %226 = arith.andi %225, %223 : i1
    %227 = scf.if %226 -> (f32) {
      %228 = arith.constant 0 : index
      %229 = arith.subi %ax0_6, %228 : index
      %230 = arith.constant 0 : index
      %231 = arith.subi %ax1_6, %230 : index
      %232 = arith.constant 1 : index
      %233 = arith.subi %ax2_6, %232 : index
      %234 = arith.constant 1 : index
      %235 = arith.subi %ax3_6, %234 : index
      %236 = te.read %y6[%229, %231, %233, %235] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %236 : f32
    } else {
      %237 = arith.constant 0.000000e+00 : f32
      scf.yield %237 : f32
    }{te.likely}
    te.yield %227 : f32
  }
  %y7 = te.compute "y7" (%nn_6, %ff_6, %yy_6, %xx_6) : !te.tensor<[1, 2, 12, 12], f32> {
    %238 = te.reduce sum (%rc_6, %ry_6, %rx_6) in [2, 3, 3] : f32 {
      %239 = arith.constant 1 : index
      %240 = arith.muli %yy_6, %239 : index
      %241 = arith.constant 1 : index
      %242 = arith.muli %ry_6, %241 : index
      %243 = arith.addi %240, %242 : index
      %244 = arith.constant 1 : index
      %245 = arith.muli %xx_6, %244 : index
      %246 = arith.constant 1 : index
      %247 = arith.muli %rx_6, %246 : index
      %248 = arith.addi %245, %247 : index
      %249 = te.read %y7_pad[%nn_6, %rc_6, %243, %248] : !te.tensor<[1, 2, 14, 14], f32>
      %250 = te.read %w7[%ff_6, %rc_6, %ry_6, %rx_6] : !te.tensor<[2, 2, 3, 3], f32>
      %251 = arith.mulf %249, %250 : f32
      te.yield %251 : f32
    }
    te.yield %238 : f32
  }
  %y8_pad = te.compute "y8_pad" (%ax0_7, %ax1_7, %ax2_7, %ax3_7) : !te.tensor<[1, 2, 14, 14], f32> {
    %252 = arith.constant 1 : index
    %253 = arith.cmpi sge, %ax2_7, %252 : index
    %254 = arith.constant 13 : index
    %255 = arith.cmpi slt, %ax2_7, %254 : index
    %256 = arith.constant 1 : index
    %257 = arith.cmpi sge, %ax3_7, %256 : index
    %258 = arith.constant 13 : index
    %259 = arith.cmpi slt, %ax3_7, %258 : index
    %260 = arith.andi %253, %255 : i1
    %261 = arith.andi %260, %257 : i1
    %262 = arith.andi %261, %259 : i1
    %263 = scf.if %262 -> (f32) {
      %264 = arith.constant 0 : index
      %265 = arith.subi %ax0_7, %264 : index
      %266 = arith.constant 0 : index
      %267 = arith.subi %ax1_7, %266 : index
      %268 = arith.constant 1 : index
      %269 = arith.subi %ax2_7, %268 : index
      %270 = arith.constant 1 : index
      %271 = arith.subi %ax3_7, %270 : index
      %272 = te.read %y7[%265, %267, %269, %271] : !te.tensor<[1, 2, 12, 12], f32>
      scf.yield %272 : f32
    } else {
      %273 = arith.constant 0.000000e+00 : f32
      scf.yield %273 : f32
    }{te.likely}
    te.yield %263 : f32
  }
  %y8 = te.compute "y8" (%nn_7, %ff_7, %yy_7, %xx_7) : !te.tensor<[1, 2, 12, 12], f32> {
    %274 = te.reduce sum (%rc_7, %ry_7, %rx_7) in [2, 3, 3] : f32 {
      %275 = arith.constant 1 : index
      %276 = arith.muli %yy_7, %275 : index
      %277 = arith.constant 1 : index
      %278 = arith.muli %ry_7, %277 : index
      %279 = arith.addi %276, %278 : index
      %280 = arith.constant 1 : index
      %281 = arith.muli %xx_7, %280 : index
      %282 = arith.constant 1 : index
      %283 = arith.muli %rx_7, %282 : index
      %284 = arith.addi %281, %283 : index
      %285 = te.read %y8_pad[%nn_7, %rc_7, %279, %284] : !te.tensor<[1, 2, 14, 14], f32>
      %286 = te.read %w8[%ff_7, %rc_7, %ry_7, %rx_7] : !te.tensor<[2, 2, 3, 3], f32>
      %287 = arith.mulf %285, %286 : f32
      te.yield %287 : f32
    }
    te.yield %274 : f32
  }
  te.return %y8 : !te.tensor<[1, 2, 12, 12], f32>
}

// CHECK-LABEL: loop.func @chain8
// CHECK:      loop.alloc "y1_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y1" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y2_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y2" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y3_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y3" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y4_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y4" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y5_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y5" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y6_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y6" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y7_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK:      loop.alloc "y7" [{{.*}}] : !loop.buffer<[1, 2, 12, 12], f32>
// CHECK:      loop.alloc "y8_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// CHECK-NOT:  loop.alloc "

// OFF-LABEL:  loop.func @chain8
// OFF:        loop.alloc "y1_pad" [{{.*}}] : !loop.buffer<[1, 2, 28, 28], f32>
// OFF:        loop.alloc "y1" [{{.*}}] : !loop.buffer<[1, 2, 26, 26], f32>
// OFF:        loop.alloc "y2_pad" [{{.*}}] : !loop.buffer<[1, 2, 26, 26], f32>
// OFF:        loop.alloc "y2" [{{.*}}] : !loop.buffer<[1, 2, 24, 24], f32>
// OFF:        loop.alloc "y3_pad" [{{.*}}] : !loop.buffer<[1, 2, 24, 24], f32>
// OFF:        loop.alloc "y3" [{{.*}}] : !loop.buffer<[1, 2, 22, 22], f32>
// OFF:        loop.alloc "y4_pad" [{{.*}}] : !loop.buffer<[1, 2, 22, 22], f32>
// OFF:        loop.alloc "y4" [{{.*}}] : !loop.buffer<[1, 2, 20, 20], f32>
// OFF:        loop.alloc "y5_pad" [{{.*}}] : !loop.buffer<[1, 2, 20, 20], f32>
// OFF:        loop.alloc "y5" [{{.*}}] : !loop.buffer<[1, 2, 18, 18], f32>
// OFF:        loop.alloc "y6_pad" [{{.*}}] : !loop.buffer<[1, 2, 18, 18], f32>
// OFF:        loop.alloc "y6" [{{.*}}] : !loop.buffer<[1, 2, 16, 16], f32>
// OFF:        loop.alloc "y7_pad" [{{.*}}] : !loop.buffer<[1, 2, 16, 16], f32>
// OFF:        loop.alloc "y7" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
// OFF:        loop.alloc "y8_pad" [{{.*}}] : !loop.buffer<[1, 2, 14, 14], f32>
