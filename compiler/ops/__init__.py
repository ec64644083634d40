"""An operator library on `compiler.te`, after TVM's TOPI."""

from compiler.ops.nn import (
    add,
    avg_pool2d,
    bias_add,
    conv2d_nchw,
    conv2d_nhwc,
    leaky_relu,
    matmul,
    pad,
    relu,
)

__all__ = [
    "add",
    "avg_pool2d",
    "bias_add",
    "conv2d_nchw",
    "conv2d_nhwc",
    "leaky_relu",
    "matmul",
    "pad",
    "relu",
]
