"""The model zoo: one table of `transformers` architecture families (`FAMILIES`), each
built from its config with random weights (nothing is downloaded), at a small test
config or at the config class's defaults.

```
Family(name, config class, model class, inputs kind, small overrides, default overrides)
   | build(name, small=...)   torch.manual_seed(seed); config(**overrides); model(config)
   | perturb_constant_parameters   zero biases, unit norms, zero bias tables -> small noise
   | randomize_batch_norms         running statistics other than 0 and 1
   v
ZooModel(model, input names, output names, call options)   forward(*inputs) -> tuple of tensors
ZooCase(family, small, module in eval mode, example_args)   .params: the parameter count
```

* `small=True`: the tests' sizes (1-2 layers, hidden 32-64, a few heads, vocab 96,
  images 32-64 px, a fraction of a second of audio), `Family.small` over the defaults.
* `small=False`: the config class's defaults (the benchmarks' sizes: batch 1, 128 tokens
  (CLIP's and SigLIP's text towers: their 77 and 64 positions), 224x224 images, 1 s of
  waveform, 2 s of mel features). A default with more than 500M parameters keeps its
  shape with fewer layers (and, where one layer is still over, a smaller vocabulary or a
  narrower MLP): `Family.default` holds those overrides and `Family.note` says which.
* `Family.common` is applied at both sizes: the settings that make the family what
  its released checkpoints are where the config class's defaults leave them out
  (DeBERTa-v2's relative attention, BEiT's relative position bias).

Inputs (`InputKind`): token ids (int64 in [3, vocab), clear of the usual pad, bos and
eos ids), pixel values (1x3xSxS), a raw waveform (Wav2Vec2, HuBERT), encoder-decoder
token ids (T5, BART), mel features and decoder ids (Whisper), token ids and pixels
(CLIP, SigLIP). Every call passes `Family.options` (`use_cache=False` for decoders) and
the wrapper returns `Family.outputs` of the model's output as a tuple.

# WARNING: the weights are random: a numerical difference the trained weights would
# amplify (a softmax saturated by large logits) may not show at these scales.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from torch import nn

from compiler.errors import InternalError

InputKind = Literal["tokens", "pixels", "waveform", "seq2seq", "speech2seq", "text_image"]

SMALL_SEQ, DEFAULT_SEQ = 12, 128
SMALL_DECODER_SEQ, DEFAULT_SPEECH_DECODER_SEQ = 8, 32
DEFAULT_IMAGE = 224
SMALL_WAVEFORM, DEFAULT_WAVEFORM = 800, 16000  # samples at 16 kHz: 0.05 s and 1 s
MAX_DEFAULT_PARAMS = 500_000_000
FIRST_TOKEN_ID = 3  # token ids are drawn from [3, vocab): 0-2 are pad, bos or eos in most vocabularies


@dataclass(frozen=True)
class Family:
    """One architecture family: `transformers.<config>` and `transformers.<model>`, the
    kind of inputs its forward takes, and the config overrides of each size."""

    name: str
    config: str
    """The config class's name in `transformers` (`"LlamaConfig"`)."""
    model: str
    """The base model class's name (`"LlamaModel"`): no task head."""
    inputs: InputKind
    small: dict[str, Any]
    """Overrides of the config's defaults at the test size."""
    default: dict[str, Any] = field(default_factory=dict)
    """Overrides at the benchmark size: empty unless the defaults pass `MAX_DEFAULT_PARAMS`."""
    common: dict[str, Any] = field(default_factory=dict)
    """Overrides at both sizes (the released checkpoints' architecture)."""
    outputs: tuple[str, ...] = ("last_hidden_state",)
    """The fields of the model's output the wrapper returns."""
    options: dict[str, Any] = field(default_factory=dict)
    """Keyword options of every call (`use_cache=False`)."""
    small_image: int = 32
    """Pixels a side at the test size (the benchmarks use `DEFAULT_IMAGE`)."""
    note: str = ""
    """What the default size changes from the config class's defaults, and why."""


NO_CACHE: dict[str, Any] = {"use_cache": False}

# a decoder LM's small size: 2 layers, hidden 32, 4 heads of 8 (2 key/value heads)
_LM = {
    "vocab_size": 96, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64,
}
# an encoder's small size: BERT's names
_ENCODER = {
    "vocab_size": 96, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 64, "max_position_embeddings": 64,
}
_TEXT = _ENCODER | {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}  # CLIP's and SigLIP's text towers
_VIT = {
    "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64,
    "image_size": 32, "patch_size": 8,
}
_POOLED = ("last_hidden_state", "pooler_output")
_SEQ2SEQ = ("last_hidden_state", "encoder_last_hidden_state")
_ONE_LAYER = "1 of {n} layers (the defaults have {p})"


def _families() -> tuple[Family, ...]:
    return (
        # -- decoder language models ------------------------------------------------
        Family("llama", "LlamaConfig", "LlamaModel", "tokens", _LM, options=NO_CACHE,
               default={"num_hidden_layers": 1}, note=_ONE_LAYER.format(n=32, p="6.6B")),
        Family("mistral", "MistralConfig", "MistralModel", "tokens", _LM, options=NO_CACHE,
               default={"num_hidden_layers": 1}, note=_ONE_LAYER.format(n=32, p="7.1B")),
        Family("qwen2", "Qwen2Config", "Qwen2Model", "tokens", _LM, options=NO_CACHE,
               default={"num_hidden_layers": 1, "vocab_size": 32000},
               note="1 of 32 layers, vocab 32000 of 151936 (the embedding alone is 622M; 11.4B in all)"),
        Family("qwen3", "Qwen3Config", "Qwen3Model", "tokens", _LM | {"head_dim": 8}, options=NO_CACHE,
               default={"num_hidden_layers": 1, "vocab_size": 32000},
               note="1 of 32 layers, vocab 32000 of 151936 (the embedding alone is 622M; 11.4B in all)"),
        Family("phi3", "Phi3Config", "Phi3Model", "tokens",
               _LM | {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "original_max_position_embeddings": 64},
               options=NO_CACHE, default={"num_hidden_layers": 3}, note="3 of 32 layers (the defaults have 3.7B)"),
        Family("gemma", "GemmaConfig", "GemmaModel", "tokens", _LM | {"head_dim": 8, "num_key_value_heads": 1},
               options=NO_CACHE, default={"num_hidden_layers": 1, "vocab_size": 32000},
               note="1 of 28 layers, vocab 32000 of 256000 (the embedding alone is 786M; 8.5B in all)"),
        Family("gpt_neox", "GPTNeoXConfig", "GPTNeoXModel", "tokens",
               _ENCODER, options=NO_CACHE,
               default={"num_hidden_layers": 1, "hidden_size": 4096, "intermediate_size": 16384},
               note="1 of 44 layers, hidden 4096 of 6144 (one 6144-wide layer and the embedding are 763M; 20B in all)"),
        Family("opt", "OPTConfig", "OPTModel", "tokens",
               {"vocab_size": 96, "hidden_size": 32, "num_hidden_layers": 2, "ffn_dim": 64, "num_attention_heads": 4,
                "max_position_embeddings": 64, "word_embed_proj_dim": 32},
               options=NO_CACHE),
        Family("bloom", "BloomConfig", "BloomModel", "tokens",
               {"vocab_size": 96, "hidden_size": 32, "n_layer": 2, "n_head": 4}, options=NO_CACHE),
        Family("falcon", "FalconConfig", "FalconModel", "tokens",
               {"vocab_size": 96, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
                "max_position_embeddings": 64, "bos_token_id": 1, "eos_token_id": 2},
               options=NO_CACHE, default={"num_hidden_layers": 1, "vocab_size": 32000},
               note="1 of 32 layers, vocab 32000 of 65024 (one layer at the full vocabulary is 502M; 6.9B in all)"),
        Family("gptj", "GPTJConfig", "GPTJModel", "tokens",
               {"vocab_size": 96, "n_positions": 64, "n_embd": 32, "n_layer": 2, "n_head": 4, "rotary_dim": 4,
                "bos_token_id": 1, "eos_token_id": 2},
               options=NO_CACHE, default={"n_layer": 1}, note=_ONE_LAYER.format(n=28, p="5.8B")),
        Family("gpt2", "GPT2Config", "GPT2Model", "tokens",
               {"vocab_size": 96, "n_positions": 64, "n_embd": 32, "n_layer": 2, "n_head": 4, "bos_token_id": 1,
                "eos_token_id": 2},
               options=NO_CACHE),
        Family("mixtral", "MixtralConfig", "MixtralModel", "tokens",
               _LM | {"num_local_experts": 4, "num_experts_per_tok": 2}, options=NO_CACHE,
               default={"num_hidden_layers": 1, "intermediate_size": 2048},
               note="1 of 32 layers, experts' MLP 2048 of 14336 wide (8 experts, top 2; one full layer is 1.5B)"),
        # -- encoders ---------------------------------------------------------------
        Family("bert", "BertConfig", "BertModel", "tokens", _ENCODER, outputs=_POOLED),
        Family("distilbert", "DistilBertConfig", "DistilBertModel", "tokens",
               {"vocab_size": 96, "dim": 32, "n_layers": 2, "n_heads": 4, "hidden_dim": 64,
                "max_position_embeddings": 64}),
        Family("roberta", "RobertaConfig", "RobertaModel", "tokens", _ENCODER | {"max_position_embeddings": 66},
               outputs=_POOLED),
        Family("albert", "AlbertConfig", "AlbertModel", "tokens", _ENCODER | {"embedding_size": 16},
               outputs=_POOLED),
        Family("electra", "ElectraConfig", "ElectraModel", "tokens", _ENCODER | {"embedding_size": 16}),
        Family("deberta_v2", "DebertaV2Config", "DebertaV2Model", "tokens",
               _ENCODER | {"position_buckets": 16},
               common={"relative_attention": True, "pos_att_type": ["p2c", "c2p"], "position_biased_input": False,
                       "norm_rel_ebd": "layer_norm", "share_att_key": True, "position_buckets": 256},
               default={"num_hidden_layers": 8},
               note="8 of 24 layers (the defaults, DeBERTa-v2-xlarge, have 877M); relative attention "
                    "(c2p and p2c, 256 buckets) as DeBERTa-v3"),
        Family("mpnet", "MPNetConfig", "MPNetModel", "tokens", _ENCODER | {"max_position_embeddings": 66},
               outputs=_POOLED),
        Family("modernbert", "ModernBertConfig", "ModernBertModel", "tokens",
               _ENCODER | {"local_attention": 8, "global_attn_every_n_layers": 2, "pad_token_id": 0,
                           "bos_token_id": 1, "eos_token_id": 2, "cls_token_id": 1, "sep_token_id": 2}),
        # -- encoder-decoders -------------------------------------------------------
        Family("t5", "T5Config", "T5Model", "seq2seq",
               {"vocab_size": 96, "d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_heads": 4,
                "relative_attention_num_buckets": 8, "relative_attention_max_distance": 16},
               outputs=_SEQ2SEQ, options=NO_CACHE),
        Family("bart", "BartConfig", "BartModel", "seq2seq",
               {"vocab_size": 96, "d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 4,
                "decoder_attention_heads": 4, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
                "max_position_embeddings": 64},
               outputs=_SEQ2SEQ, options=NO_CACHE),
        Family("whisper", "WhisperConfig", "WhisperModel", "speech2seq",
               {"vocab_size": 96, "num_mel_bins": 16, "encoder_layers": 1, "decoder_layers": 1,
                "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
                "decoder_ffn_dim": 64, "d_model": 32, "max_source_positions": 16, "max_target_positions": 32,
                "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 1,
                "begin_suppress_tokens": None},
               default={"max_source_positions": 100},
               outputs=_SEQ2SEQ, options=NO_CACHE,
               note="2 s of mel frames (max_source_positions 100 of 1500: the encoder takes exactly 2x that many)"),
        # -- speech encoders --------------------------------------------------------
        Family("wav2vec2", "Wav2Vec2Config", "Wav2Vec2Model", "waveform",
               _ENCODER | {"vocab_size": 32, "conv_dim": (16, 16, 16), "conv_stride": (5, 2, 2), "conv_kernel": (10, 3, 3),
                           "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4}),
        Family("hubert", "HubertConfig", "HubertModel", "waveform",
               _ENCODER | {"vocab_size": 32, "conv_dim": (16, 16, 16), "conv_stride": (5, 2, 2), "conv_kernel": (10, 3, 3),
                           "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4}),
        # -- vision (and text) transformers -----------------------------------------
        Family("clip", "CLIPConfig", "CLIPModel", "text_image",
               {"text_config": _TEXT, "vision_config": _VIT, "projection_dim": 16},
               outputs=("logits_per_image", "text_embeds", "image_embeds")),
        Family("siglip", "SiglipConfig", "SiglipModel", "text_image",
               {"text_config": _TEXT, "vision_config": _VIT},
               outputs=("logits_per_image", "text_embeds", "image_embeds")),
        Family("swin", "SwinConfig", "SwinModel", "pixels",
               {"image_size": 32, "patch_size": 2, "embed_dim": 16, "depths": [1, 2], "num_heads": [2, 4],
                "window_size": 4},
               outputs=_POOLED),
        Family("beit", "BeitConfig", "BeitModel", "pixels", _VIT | {"vocab_size": 96},
               common={"use_relative_position_bias": True}, outputs=_POOLED,
               note="relative position bias in every layer, as the released BEiT checkpoints"),
        Family("dinov2", "Dinov2Config", "Dinov2Model", "pixels",
               {k: v for k, v in _VIT.items() if k != "intermediate_size"} | {"mlp_ratio": 2}, outputs=_POOLED),
        Family("segformer", "SegformerConfig", "SegformerModel", "pixels",
               {"depths": [1, 1, 1, 1], "hidden_sizes": [8, 16, 24, 32], "num_attention_heads": [1, 2, 2, 4],
                "decoder_hidden_size": 32},
               small_image=64),
        Family("mobilevit", "MobileViTConfig", "MobileViTModel", "pixels",
               {"image_size": 64, "hidden_sizes": [16, 24, 32], "neck_hidden_sizes": [8, 8, 16, 16, 24, 32, 64],
                "num_attention_heads": 2},
               outputs=_POOLED, small_image=64),
        Family("levit", "LevitConfig", "LevitModel", "pixels",
               {"image_size": 64, "hidden_sizes": [16, 32, 48], "num_attention_heads": [2, 4, 6], "depths": [1, 1, 1],
                "key_dim": [8, 8, 8], "down_ops": [["Subsample", 8, 2, 4, 2, 2], ["Subsample", 8, 4, 4, 2, 2]]},
               outputs=_POOLED, small_image=64),
        Family("cvt", "CvtConfig", "CvtModel", "pixels",
               # stage k needs k + 1 blocks or more: CvT indexes its blocks' drop path rates by stage
               {"embed_dim": [16, 32, 48], "num_heads": [1, 2, 3], "depth": [1, 2, 3]},
               outputs=("last_hidden_state", "cls_token_value"), small_image=64),
        Family("yolos", "YolosConfig", "YolosModel", "pixels",
               _VIT | {"image_size": [32, 32], "num_detection_tokens": 10}, outputs=_POOLED),
        # -- convolutional networks -------------------------------------------------
        Family("efficientnet", "EfficientNetConfig", "EfficientNetModel", "pixels",
               {"image_size": 64, "width_coefficient": 0.25, "depth_coefficient": 0.2, "hidden_dim": 320},
               outputs=_POOLED, small_image=64),
        Family("regnet", "RegNetConfig", "RegNetModel", "pixels",
               {"embedding_size": 8, "hidden_sizes": [8, 16, 24, 32], "depths": [1, 1, 1, 1], "groups_width": 8},
               outputs=_POOLED, small_image=64),
        Family("convnextv2", "ConvNextV2Config", "ConvNextV2Model", "pixels",
               {"hidden_sizes": [8, 16, 24, 32], "depths": [1, 1, 2, 1]}, outputs=_POOLED, small_image=64),
        Family("mobilenetv1", "MobileNetV1Config", "MobileNetV1Model", "pixels",
               {"depth_multiplier": 0.25, "image_size": 64}, outputs=_POOLED, small_image=64),
        Family("poolformer", "PoolFormerConfig", "PoolFormerModel", "pixels",
               {"hidden_sizes": [8, 16, 24, 32], "depths": [1, 1, 1, 1]}, small_image=64),
        # -- state space models -----------------------------------------------------
        Family("mamba", "MambaConfig", "MambaModel", "tokens",
               {"vocab_size": 96, "hidden_size": 32, "state_size": 8, "num_hidden_layers": 2, "time_step_rank": 4},
               options=NO_CACHE),
    )


FAMILIES: dict[str, Family] = {f.name: f for f in _families()}
"""Every family by name, in the table's order (decoders, encoders, encoder-decoders,
speech, vision transformers, convolutional networks, state space models)."""


class ZooModel(nn.Module):
    """A `transformers` model called with its inputs by keyword (`input_names`, in the
    order of the positional arguments) and `options`, returning the output fields
    `output_names` as a tuple of tensors."""

    def __init__(
        self, model: nn.Module, input_names: tuple[str, ...], output_names: tuple[str, ...], options: dict[str, Any]
    ) -> None:
        super().__init__()
        self.model = model
        self.input_names = input_names
        self.output_names = output_names
        self.options = options

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = self.model(**dict(zip(self.input_names, inputs, strict=True)), **self.options)
        return tuple(getattr(out, n) for n in self.output_names)


@dataclass
class ZooCase:
    """One family built at one size: the wrapped module (eval mode) and its example inputs."""

    family: Family
    small: bool
    module: ZooModel
    example_args: tuple[torch.Tensor, ...]

    @property
    def params(self) -> int:
        return sum(p.numel() for p in self.module.parameters())


def config_overrides(family: Family, *, small: bool) -> dict[str, Any]:
    """The keyword arguments of the family's config class at one size."""
    if small:
        return family.common | family.small
    return family.common | family.default


def make_config(family: Family, *, small: bool) -> Any:
    import transformers

    return getattr(transformers, family.config)(**config_overrides(family, small=small))


def count_params(family: Family, *, small: bool) -> int:
    """Parameters of the family's model at one size, counted on the meta device (no memory)."""
    import transformers

    config = make_config(family, small=small)
    with torch.device("meta"):
        model = getattr(transformers, family.model)(config)
    return sum(p.numel() for p in model.parameters())


def perturb_constant_parameters(model: nn.Module, seed: int = 1, scale: float = 0.05) -> None:
    """Add noise to every parameter whose entries are all equal (zero biases, unit norm
    weights, zero-initialized bias tables and gates): with them constant a wrong index or
    a dropped term would not change the output."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            if p.numel() == 0 or not p.is_floating_point():
                continue
            flat = p.detach().reshape(-1)
            if bool((flat == flat[0]).all()):
                magnitude = max(abs(float(flat[0])), 1.0) * scale
                p.add_((torch.rand(p.shape, generator=g, dtype=p.dtype) * 2 - 1) * magnitude)


def randomize_batch_norms(model: nn.Module, seed: int = 2) -> None:
    """Running statistics and affine parameters other than 0 and 1 for every batch norm
    (1d, 2d and 3d)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                assert m.running_var is not None
                n = m.num_features
                m.running_mean.copy_(torch.rand(n, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)


def _vocab(config: Any) -> int:
    return int(getattr(config, "text_config", config).vocab_size)


def _image_size(family: Family, *, small: bool) -> tuple[int, int]:
    size = family.small_image if small else DEFAULT_IMAGE
    return size, size


def example_inputs(family: Family, config: Any, *, small: bool) -> tuple[tuple[str, ...], tuple[torch.Tensor, ...]]:
    """(forward's keyword names, tensors) of one call at batch 1, drawn from torch's
    global generator."""
    seq = SMALL_SEQ if small else DEFAULT_SEQ

    def ids(n: int) -> torch.Tensor:
        return torch.randint(FIRST_TOKEN_ID, _vocab(config), (1, n))

    def pixels() -> torch.Tensor:
        h, w = _image_size(family, small=small)
        channels = int(getattr(getattr(config, "vision_config", config), "num_channels", 3))
        return torch.randn(1, channels, h, w)

    if family.inputs == "tokens":
        return ("input_ids",), (ids(seq),)
    if family.inputs == "pixels":
        return ("pixel_values",), (pixels(),)
    if family.inputs == "waveform":
        return ("input_values",), (torch.randn(1, SMALL_WAVEFORM if small else DEFAULT_WAVEFORM),)
    if family.inputs == "seq2seq":
        return ("input_ids", "decoder_input_ids"), (ids(seq), ids(SMALL_DECODER_SEQ if small else seq))
    if family.inputs == "speech2seq":
        frames = 2 * int(config.max_source_positions)  # the encoder's two convs: the second has stride 2
        features = torch.randn(1, int(config.num_mel_bins), frames)
        return ("input_features", "decoder_input_ids"), (
            features, ids(SMALL_DECODER_SEQ if small else DEFAULT_SPEECH_DECODER_SEQ))
    if family.inputs == "text_image":  # the text tower's positions: CLIP has 77, SigLIP 64
        return ("input_ids", "pixel_values"), (ids(min(seq, int(config.text_config.max_position_embeddings))), pixels())
    raise InternalError(f"zoo: unknown input kind {family.inputs!r}")


def build(name: str, *, small: bool = True, seed: int = 0) -> ZooCase:
    """The family `name` (a key of `FAMILIES`) with random weights drawn with `seed`, in
    eval mode, at its test size (`small`) or its default config, and example inputs."""
    try:
        family = FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown family {name!r}: one of {', '.join(FAMILIES)}") from None
    import transformers

    torch.manual_seed(seed)
    config = make_config(family, small=small)
    model = getattr(transformers, family.model)(config).eval()
    perturb_constant_parameters(model, seed + 1)
    randomize_batch_norms(model, seed + 2)
    names, args = example_inputs(family, config, small=small)
    module = ZooModel(model, names, family.outputs, family.options).eval()
    return ZooCase(family, small, module, args)


__all__ = [
    "FAMILIES",
    "MAX_DEFAULT_PARAMS",
    "Family",
    "InputKind",
    "ZooCase",
    "ZooModel",
    "build",
    "config_overrides",
    "count_params",
    "example_inputs",
    "make_config",
    "perturb_constant_parameters",
    "randomize_batch_norms",
]
