"""Every distinct conv and linear layer of the benchmark networks, built alone: our time
against PyTorch eager's, in the same process.

    .venv/bin/python bench/layers.py                     # make bench runs this
    .venv/bin/python bench/layers.py --only resnet50 --rounds 9 --threads 1

The layers are those `transformers`' ResNet-18, ResNet-50, MobileNetV2 and
ConvNeXt-tiny (`compiler.torch.networks.hf_network`, 1x3x224x224) run: forward hooks
record each `nn.Conv2d` and `nn.Linear` with its input shape, and each distinct
(kind, input shape, channels, kernel, stride, padding, groups) is measured once, as
the module alone (its weights random) through `compiler.from_torch` (NCHW in and out,
as the layer's callers see it) against the same module in torch eager under
`no_grad`, R interleaved rounds after one warm-up call each; the table shows medians
and our throughput relative to PyTorch's (`speed` = torch ms / ours ms: above 1 is
faster). A conv is also measured as it runs inside a network compiled by
`from_torch` (`in net`: NHWC activations in and out, the layout `channels_last`
carries between layers, so no transpose at either end; torch still runs NCHW, as the
user's module does): alone, a layer pays for the transposes of its input and output
between NCHW and NHWC, which a network pays once. A conv is also written in te
(`te`: `ops.conv2d_nchw`, built with no schedule, its weight an argument), as a user
of the te API writes it. Written as JSON to
bench/results/layers-<date>-<host>.json (or --json PATH).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/suite.py: a loaded 2-core machine

import argparse
import datetime
import json
import socket
import statistics
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import interleaved_medians

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Layer:
    kind: str  # conv | linear
    input_shape: tuple[int, ...]
    args: dict[str, Any]
    networks: list[str] = field(default_factory=list)
    count: int = 0  # how many times the networks run it

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.kind, self.input_shape, tuple(sorted(self.args.items())))

    def describe(self) -> str:
        a = self.args
        if self.kind == "linear":
            return f"linear {a['in_features']}->{a['out_features']} on {'x'.join(map(str, self.input_shape))}"
        groups = f" g{a['groups']}" if a["groups"] > 1 else ""
        k, s = a["kernel_size"], a["stride"]
        return (f"conv {a['in_channels']}->{a['out_channels']} {k[0]}x{k[1]}/{s[0]}{groups} "
                f"@{self.input_shape[2]}x{self.input_shape[3]}")

    def flops(self) -> float:
        a = self.args
        if self.kind == "linear":
            rows = 1
            for d in self.input_shape[:-1]:
                rows *= d
            return 2.0 * rows * a["in_features"] * a["out_features"]
        n, _, h, w = self.input_shape
        (kh, kw), (sh, sw), (ph, pw) = a["kernel_size"], a["stride"], a["padding"]
        oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
        return 2.0 * n * a["out_channels"] * oh * ow * a["in_channels"] // a["groups"] * kh * kw


def collect_layers(networks: list[str]) -> list[Layer]:
    """The distinct conv and linear layers the networks run, in order of first use."""
    import torch

    from compiler.torch.networks import hf_network

    found: dict[tuple[Any, ...], Layer] = {}
    for name in networks:
        model, shape = hf_network(name)
        hooks = []

        def record(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...], _out: Any, net: str = name) -> None:
            if isinstance(module, torch.nn.Conv2d):
                args = {k: getattr(module, k) for k in
                        ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups")}
                layer = Layer("conv", tuple(inputs[0].shape), {**args, "bias": module.bias is not None})
            else:
                assert isinstance(module, torch.nn.Linear)
                layer = Layer("linear", tuple(inputs[0].shape), {
                    "in_features": module.in_features, "out_features": module.out_features,
                    "bias": module.bias is not None})
            entry = found.setdefault(layer.key, layer)
            entry.count += 1
            if net not in entry.networks:
                entry.networks.append(net)

        for m in model.modules():
            if isinstance(m, torch.nn.Conv2d | torch.nn.Linear):
                hooks.append(m.register_forward_hook(record))
        with torch.no_grad():
            model(torch.randn(*shape))
        for h in hooks:
            h.remove()
    return list(found.values())


def module_of(layer: Layer) -> Any:
    import torch

    a = dict(layer.args)
    if layer.kind == "linear":
        return torch.nn.Linear(a["in_features"], a["out_features"], bias=a["bias"]).eval()
    if isinstance(a["padding"], str):
        raise ValueError(f"padding {a['padding']!r}")
    return torch.nn.Conv2d(**a).eval()


@dataclass
class Row:
    layer: str
    networks: str
    count: int
    gflop: float
    ours_ms: float | None = None
    torch_ms: float | None = None
    speed: float | None = None  # torch ms / ours ms
    in_net_ms: float | None = None  # the conv in the network's layout (NHWC in and out)
    in_net_speed: float | None = None
    te_ms: float | None = None  # ops.conv2d_nchw built without a schedule, the weight an argument
    te_speed: float | None = None
    max_error: float | None = None
    error: str | None = None


class _InNetwork:
    """A conv as a network compiled by from_torch runs it: NHWC in, NHWC out (the
    permutes around it cancel against the layout of channels_last)."""

    def __new__(cls, conv: Any) -> Any:
        import torch

        class Module(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.conv = conv

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                y: torch.Tensor = self.conv(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
                return y

        return Module().eval()


def measure(layer: Layer, rounds: int) -> Row:
    import numpy as np
    import torch

    from compiler.torch import from_torch

    row = Row(layer.describe(), ",".join(layer.networks), layer.count, layer.flops() / 1e9)
    torch.manual_seed(0)
    module = module_of(layer)
    x = torch.randn(*layer.input_shape)
    net = from_torch(module, (x,))
    xn = x.numpy()
    with torch.no_grad():
        expected = module(x).numpy()
    got = net(xn)
    row.max_error = float(np.abs(got - expected).max() / max(1e-30, float(np.abs(expected).max())))
    with torch.no_grad():
        ours, theirs = interleaved_medians(lambda: net(xn), lambda: module(x), rounds)
    row.ours_ms, row.torch_ms = ours * 1e3, theirs * 1e3
    row.speed = row.torch_ms / row.ours_ms
    if layer.kind == "conv":
        x_nhwc = x.permute(0, 2, 3, 1).contiguous()
        in_net = from_torch(_InNetwork(module), (x_nhwc,))
        xs = x_nhwc.numpy()
        got = in_net(xs)
        error = float(np.abs(got - expected.transpose(0, 2, 3, 1)).max() / max(1e-30, float(np.abs(expected).max())))
        row.max_error = max(row.max_error, error)
        with torch.no_grad():
            ours, theirs = interleaved_medians(lambda: in_net(xs), lambda: module(x), rounds)
        row.in_net_ms = ours * 1e3
        row.in_net_speed = theirs / ours
        measure_te(layer, module, x, expected, row, rounds)
    return row


def measure_te(layer: Layer, module: Any, x: Any, expected: Any, row: Row, rounds: int) -> None:
    """The conv written in te (`ops.conv2d_nchw`, `ops.bias_add`), built with no schedule:
    NCHW in and out, its weight an argument (repacked on every call)."""
    import numpy as np
    import torch

    import compiler
    from compiler import ops, te

    a = layer.args
    xt = te.placeholder(tuple(x.shape), name="x")
    wt = te.placeholder(tuple(module.weight.shape), name="w")
    y = ops.conv2d_nchw(xt, wt, a["stride"], a["padding"], a["dilation"], a["groups"], name="conv")
    args = [xt, wt]
    inputs = [x.numpy(), module.weight.detach().numpy()]
    if module.bias is not None:
        bt = te.placeholder((a["out_channels"],), name="b")
        y = ops.bias_add(y, bt, axis=1, name="bias")
        args.append(bt)
        inputs.append(module.bias.detach().numpy())
    f = compiler.build([*args, y])
    out = np.empty(expected.shape, np.float32)
    f(*inputs, out)
    error = float(np.abs(out - expected).max() / max(1e-30, float(np.abs(expected).max())))
    row.max_error = max(row.max_error or 0.0, error)
    with torch.no_grad():
        ours, theirs = interleaved_medians(lambda: f(*inputs, out), lambda: module(x), rounds)
    row.te_ms = ours * 1e3
    row.te_speed = theirs / ours


def table(rows: list[Row]) -> str:
    head = (f"{'layer':<42} {'nets':<30} {'GFLOP':>6} {'ours ms':>8} {'torch ms':>8} {'speed':>6} "
            f"{'in net ms':>9} {'speed':>6} {'te ms':>8} {'speed':>6} {'ours GF/s':>9}")
    lines = [head, "-" * len(head)]
    for r in rows:
        if r.error is not None:
            lines.append(f"{r.layer:<42} {r.networks:<30} error: {r.error}")
            continue
        assert r.ours_ms is not None
        assert r.torch_ms is not None
        assert r.speed is not None
        best = min(r.ours_ms, r.in_net_ms or r.ours_ms)
        in_net = "-" if r.in_net_ms is None or r.in_net_speed is None else f"{r.in_net_ms:9.3f} {r.in_net_speed:6.2f}"
        te_nchw = "-" if r.te_ms is None or r.te_speed is None else f"{r.te_ms:8.3f} {r.te_speed:6.2f}"
        lines.append(
            f"{r.layer:<42} {r.networks:<30} {r.gflop:6.3f} {r.ours_ms:8.3f} {r.torch_ms:8.3f} "
            f"{r.speed:6.2f} {in_net:>16} {te_nchw:>15} {r.gflop / best * 1e3:9.1f}"
        )
    for what, key in (("alone (NCHW in and out)", "speed"), ("in the network's layout", "in_net_speed"),
                      ("in te (ops.conv2d_nchw, no schedule)", "te_speed")):
        speeds = [v for r in rows if (v := getattr(r, key)) is not None]
        if speeds:
            slow = sum(s < 0.9 for s in speeds)
            lines.append(f"{len(speeds)} layers {what}: median speed {statistics.median(speeds):.2f}x, "
                         f"slowest {min(speeds):.2f}x, {slow} below 0.9x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from compiler.torch.networks import HF_NETWORKS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds (default 7)")
    parser.add_argument("--threads", type=int, default=2, help="threads for both (default 2)")
    parser.add_argument("--only", default="", help="comma-separated networks (default: all four)")
    parser.add_argument("--json", default="", help="where to write the results (default bench/results/)")
    args = parser.parse_args(argv)
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as err:
        print(f"bench/layers.py needs torch and transformers (pip install -e '.[bench]'): {err}")
        return 0
    import compiler

    torch.set_num_threads(args.threads)
    compiler.set_num_threads(args.threads)
    networks = [n for n in args.only.split(",") if n] or list(HF_NETWORKS)
    layers = collect_layers(networks)
    print(f"{len(layers)} distinct layers in {', '.join(networks)}", flush=True)
    rows: list[Row] = []
    for layer in layers:
        try:
            rows.append(measure(layer, args.rounds))
        except Exception as err:  # one layer's failure is a row
            rows.append(Row(layer.describe(), ",".join(layer.networks), layer.count, layer.flops() / 1e9,
                            error=f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:160]))
        print(table(rows[-1:]).splitlines()[2], flush=True)
    text = table(rows)
    print(text)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    path = args.json or os.path.join(HERE, "results", f"layers-{stamp}-{socket.gethostname()}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"threads": args.threads, "networks": networks, "rows": [asdict(r) for r in rows]}, f, indent=1)
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
