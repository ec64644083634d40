"""Example networks written with torch.nn (random weights, no downloads): the
models the frontend's tests check against torch eager and `bench/networks.py`
measures.

* `ResNet18`: torchvision's structure written out (`BasicBlock`s).
* `InvertedResidual`: a MobileNetV2 block (1x1 expand, 3x3 depthwise, 1x1
  project, ReLU6, residual when the shape allows).
* `MobileNetStem`: MobileNetV2's stem conv and three such blocks.
* `MLPBlock`: a transformer MLP block (layer_norm, linear, gelu, residual add).
* `Seed001`: seed 001's Relax function op for op (NHWC convs between permutes,
  bias + leaky_relu, a 2x2 avg_pool), float16 with `.half()`.
* `hf_network(name)`: Hugging Face `transformers`' ResNet-18, ResNet-50,
  MobileNetV2 and ConvNeXt-tiny (`HF_NETWORKS`), random weights from their
  configs, full size or `small=True` (the same classes at test sizes); needs
  `transformers` (the test and bench extras).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.nn import functional as F


def randomize_batch_norms(model: nn.Module, seed: int = 1) -> nn.Module:
    """Give every batch norm non-trivial statistics and affine parameters; returns the
    model in eval mode."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                n = m.num_features
                assert m.running_mean is not None
                assert m.running_var is not None
                m.running_mean.copy_(torch.rand(n, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                    m.bias.copy_(torch.rand(n, generator=g) * 0.2 - 0.1)
    return model.eval()


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample: nn.Module | None = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        result: torch.Tensor = self.relu(out)
        return result


class ResNet18(nn.Module):
    def __init__(self, widths: tuple[int, ...] = (64, 128, 256, 512), num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        stages, cin = [], widths[0]
        for k, w in enumerate(widths):
            stages.append(nn.Sequential(BasicBlock(cin, w, 1 if k == 0 else 2), BasicBlock(w, w, 1)))
            cin = w
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        logits: torch.Tensor = self.fc(torch.flatten(self.avgpool(x), 1))
        return logits


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int = 4):
        super().__init__()
        hidden = cin * expand
        self.use_residual = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.block(x)
        return x + y if self.use_residual else y


class MobileNetStem(nn.Module):
    """MobileNetV2's first layers on an RGB image: a 3x3 stride-2 conv (batch norm,
    ReLU6), then inverted residual blocks (the second with a residual, the third stride 2)."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU6(inplace=True))
        self.blocks = nn.Sequential(
            InvertedResidual(width, width // 2, 1, expand=1),
            InvertedResidual(width // 2, width // 2, 1, expand=6),
            InvertedResidual(width // 2, width, 2, expand=6),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.blocks(self.stem(x))
        return y


class MLPBlock(nn.Module):
    def __init__(self, dim: int = 32, hidden: int = 64):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.fc2(F.gelu(self.fc1(self.norm(x))))
        return x + y


class Seed001(nn.Module):
    """The seed's Relax function, op for op: NHWC convs are torch's NCHW conv between
    permutes (the importer fuses the permutes into the neighbouring stages)."""

    def __init__(self) -> None:
        super().__init__()
        self.w0 = nn.Parameter(torch.randn(64, 3, 3, 3) * 0.3)
        self.b0 = nn.Parameter(torch.randn(1, 1, 1, 64) * 0.1)
        self.w1 = nn.Parameter(torch.randn(64, 64, 3, 3) * 0.05)
        self.b1 = nn.Parameter(torch.randn(1, 1, 1, 64) * 0.1)

    @staticmethod
    def conv_nhwc(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x.permute(0, 3, 1, 2), w, padding=1).permute(0, 2, 3, 1)

    def forward(self, x1: torch.Tensor) -> torch.Tensor:
        lv = x1.permute(0, 2, 3, 1)
        lv_1 = F.leaky_relu(self.conv_nhwc(lv, self.w0) + self.b0, 0.1)
        lv1 = F.leaky_relu(self.conv_nhwc(lv_1, self.w1) + self.b1, 0.1)
        lv5 = F.avg_pool2d(lv1.permute(0, 3, 1, 2), 2, 2).permute(0, 2, 3, 1)
        return lv5.permute(0, 3, 1, 2)


HF_NETWORKS = ("resnet18", "resnet50", "mobilenetv2", "convnext_tiny")
"""The `transformers` networks of `hf_network`, at 1x3x224x224 in full size."""


def _hf_config(name: str, small: bool) -> Any:
    import transformers as tf

    if name == "resnet18":
        sizes = [8, 16, 24, 32] if small else [64, 128, 256, 512]
        return tf.ResNetModel(tf.ResNetConfig(
            embedding_size=sizes[0], hidden_sizes=sizes, depths=[1, 1, 1, 1] if small else [2, 2, 2, 2],
            layer_type="basic"))
    if name == "resnet50":
        small_sizes = {"embedding_size": 8, "hidden_sizes": [8, 16, 24, 32], "depths": [1, 2, 1, 1]}
        return tf.ResNetModel(tf.ResNetConfig(**(small_sizes if small else {})))
    if name == "mobilenetv2":
        small_sizes = {"depth_multiplier": 0.35, "image_size": 64}
        return tf.MobileNetV2Model(tf.MobileNetV2Config(tf_padding=False, **(small_sizes if small else {})))
    if name == "convnext_tiny":
        small_sizes = {"hidden_sizes": [8, 16, 24, 32], "depths": [1, 1, 2, 1]}
        return tf.ConvNextModel(tf.ConvNextConfig(**(small_sizes if small else {})))
    raise KeyError(f"unknown network {name!r}: one of {', '.join(HF_NETWORKS)}")


class LastHiddenState(nn.Module):
    """A `transformers` model called for its `last_hidden_state` (one tensor out), with
    `options` passed on each call (GPT-2's `use_cache=False`)."""

    def __init__(self, model: nn.Module, **options: object):
        super().__init__()
        self.model = model
        self.options = options

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.model(inputs, **self.options).last_hidden_state
        return out


def hf_network(name: str, *, small: bool = False, seed: int = 0) -> tuple[nn.Module, tuple[int, ...]]:
    """(module in eval mode, input shape) of one of `HF_NETWORKS`, weights drawn with `seed`:
    the model class of `transformers` built from its config (no download), at its default
    config and 1x3x224x224, or at test sizes (`small`: narrow, one or two blocks a stage,
    1x3x64x64)."""
    torch.manual_seed(seed)
    model = LastHiddenState(_hf_config(name, small)).eval()
    size = 64 if small else 224
    return model, (1, 3, size, size)


HF_TRANSFORMERS = ("bert", "gpt2", "llama", "vit", "mobilenetv2_tf")
"""The `transformers` models of `hf_transformer`: BERT-base, GPT-2 small (12 layers,
`use_cache=False`), a LLaMA-style decoder of GPT-2's size (12 layers, hidden 768, 12
heads sharing 4 key/value heads, SwiGLU 2048, vocabulary 32000, rotary positions,
`use_cache=False`), ViT-base at 224x224 and MobileNetV2 with TensorFlow padding."""


def _hf_transformer_config(
    name: str, small: bool, depth: int | None, positions: int | None
) -> tuple[Any, dict[str, object]]:
    """(model, call options) of one of `HF_TRANSFORMERS`, with `depth` layers and a
    position table of `positions` rows if given."""
    import transformers as tf

    key = "n_layer" if name == "gpt2" else "num_hidden_layers"
    overrides: dict[str, int] = {key: 2 if depth is None else depth} if small or depth is not None else {}
    if positions is not None:
        overrides |= {"n_positions" if name == "gpt2" else "max_position_embeddings": positions}
    if name == "bert":
        sizes = {"vocab_size": 96, "hidden_size": 48, "num_attention_heads": 3, "intermediate_size": 96}
        return tf.BertModel(tf.BertConfig(**(sizes if small else {}) | overrides)), {}
    if name == "gpt2":
        sizes = {"vocab_size": 96, "n_embd": 32, "n_layer": 2, "n_head": 4, "bos_token_id": 0, "eos_token_id": 0}
        return tf.GPT2Model(tf.GPT2Config(**(sizes if small else {}) | overrides)), {"use_cache": False}
    if name == "llama":
        sizes = {"vocab_size": 96, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "intermediate_size": 128} if small else {
                 "vocab_size": 32000, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                 "num_key_value_heads": 4, "intermediate_size": 2048}  # fmt: skip
        return tf.LlamaModel(tf.LlamaConfig(**{"max_position_embeddings": 1024} | sizes | overrides)), {"use_cache": False}
    if name == "vit":
        sizes = {"hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64, "image_size": 32, "patch_size": 8}
        return tf.ViTModel(tf.ViTConfig(**(sizes if small else {}) | overrides)), {}
    if name == "mobilenetv2_tf":
        return tf.MobileNetV2Model(tf.MobileNetV2Config(image_size=32 if small else 224, tf_padding=True)), {}
    raise KeyError(f"unknown model {name!r}: one of {', '.join(HF_TRANSFORMERS)}")


def hf_transformer(
    name: str,
    *,
    small: bool = False,
    seq: int | None = None,
    seed: int = 0,
    layers: int | None = None,
    positions: int | None = None,
) -> tuple[nn.Module, torch.Tensor]:
    """(module in eval mode, example input) of one of `HF_TRANSFORMERS`, weights drawn with
    `seed` from its default config (no download), or the same class at test sizes
    (`small`: 2 layers, narrow); `layers` sets the depth of either, `positions` the rows of
    a token model's position table (BERT's 512 and GPT-2's 1024 by default). Token models
    take `seq` int64 ids in [0, vocab) (default 128, 12 when small), batch 1; image models
    1x3x224x224 (32x32 when small)."""
    torch.manual_seed(seed)
    model, options = _hf_transformer_config(name, small, layers, positions)
    wrapped = LastHiddenState(model.eval(), **options).eval()
    if name in ("bert", "gpt2", "llama"):
        vocab = int(model.config.vocab_size)
        return wrapped, torch.randint(0, vocab, (1, seq or (12 if small else 128)))
    size = int(model.config.image_size)
    return wrapped, torch.randn(1, 3, size, size)


__all__ = [
    "HF_NETWORKS",
    "HF_TRANSFORMERS",
    "BasicBlock",
    "InvertedResidual",
    "LastHiddenState",
    "MLPBlock",
    "MobileNetStem",
    "ResNet18",
    "Seed001",
    "hf_network",
    "hf_transformer",
    "randomize_batch_norms",
]
