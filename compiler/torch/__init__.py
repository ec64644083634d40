"""The PyTorch frontend: `from_torch(module, example_args, dynamic_shapes=...)`.

`torch.export` records the module's ATen graph; `importer` lowers it to te
through `compiler.ops` (`aten` holds one converter per ATen operator) with
a fusion schedule; `net` compiles the whole graph with `compiler.build` into
one callable; `dynamo.dynamo_backend` is `torch.compile(..., backend="xdsl_tc")`;
`plot.plot_memory` draws a memory plan (matplotlib, optional); `state` holds the
buffers a program writes (a KV cache) as state of the network, and
`generate.CausalLM` compiles a decoder LM with its cache for prefill, decode and
`generate`.
"""

from compiler.torch import (  # noqa: F401  (register their converters)
    aten_backward,
    aten_index,
    aten_math,
    aten_moe,
    aten_norm,
    aten_quant,
    aten_spatial,
    aten_state,
    aten_transformer,
)
from compiler.torch.aten import supported_ops
from compiler.torch.dynamo import dynamo_backend
from compiler.torch.generate import CausalLM
from compiler.torch.graph import UnsupportedOperatorError
from compiler.torch.net import TorchFunction, from_torch
from compiler.torch.plot import plot_memory
from compiler.torch.state import ExportError

__all__ = [
    "CausalLM",
    "ExportError",
    "TorchFunction",
    "UnsupportedOperatorError",
    "dynamo_backend",
    "from_torch",
    "plot_memory",
    "supported_ops",
]
