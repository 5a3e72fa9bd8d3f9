"""The training config (TOML): the base model, the LoRA, the optimisation and the post-training checks.

Every key has a default (the tiny CPU values); a config file overrides them, and an unknown key is an
error naming the file and the key (a misspelt `learning_rat` must not silently train with the default).
"""
from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError

# Module names that must never carry LoRA: the converter to GGUF drops or refuses them and llama.cpp
# then serves the base (see checks.check_lora_targets).
FORBIDDEN_TARGETS = ("lm_head", "embed_tokens", "wte", "wpe", "embed_out", "output", "tok_embeddings",
                     "word_embeddings", "embeddings")


@dataclass
class ModelConfig:
    gguf: str = ""          # a GGUF file (dequantized by transformers); "@smollm2": the one scripts/setup.sh installs
    hf: str = ""            # or a transformers model: a local folder (or a hub id where a hub is reachable)
    dtype: str = "auto"     # auto (bfloat16 when train.bf16, else float32), float32, bfloat16
    serve_gguf: str = ""    # the GGUF llama.cpp serves the adapter on; "" = `gguf` (required for an `hf` base)
    alias: str = "ptxbench-fixit"  # the model name the server lists (ptxbench run --model llamacpp:ALIAS)


@dataclass
class LoraConfig:
    r: int = 16
    alpha: int = 32
    dropout: float = 0.0
    targets: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj",
                                                        "gate_proj", "up_proj", "down_proj"])
    modules_to_save: list[str] = field(default_factory=list)


@dataclass
class TrainConfig:
    learning_rate: float = 2e-3
    epochs: float = 1.0
    max_steps: int = -1               # > 0 overrides epochs
    batch_size: int = 2               # per device
    grad_accum: int = 1
    max_length: int = 1024            # tokens; an example whose completion does not fit is an error, not a drop
    scheduler: str = "constant"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    bf16: bool = False
    gradient_checkpointing: bool = False
    seed: int = 1234
    loss_examples: int = 16           # examples whose completion loss is measured before and after training
    require_loss_drop: bool = True    # fail when that loss did not fall


@dataclass
class CheckConfig:
    probe_examples: int = 2           # examples whose log-probs are compared: PEFT in memory, reloaded, served
    probe_tokens: int = 160           # tokens per probe (the server's echo is slow: ~0.1 s a token on 2 cores)
    roundtrip_tolerance: float = 1e-3  # max |log p| difference, adapter in memory vs saved and reloaded
    served_mean_tolerance: float = 0.15  # mean |log p| difference, served vs PEFT (quantized base: ~0.05)
    served_max_tolerance: float = 1.5   # max over tokens
    adapter_margin: float = 0.5       # served must be at most this fraction as far from the tuned model as from the base
    n_ctx: int = 4096                 # the server's context


@dataclass
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    lora: LoraConfig = field(default_factory=LoraConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    check: CheckConfig = field(default_factory=CheckConfig)
    source: str = ""

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d.pop("source")
        return d


def _fill(section_cls, values: dict, where: str):
    known = {f.name: f for f in dataclasses.fields(section_cls)}
    out = section_cls()
    for key, value in values.items():
        if key not in known:
            raise InputError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(known))})")
        default = getattr(out, key)
        if isinstance(default, bool) and not isinstance(value, bool):
            raise InputError(f"{where}.{key}: expected true or false, got {value!r}")
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(default, list) and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise InputError(f"{where}.{key}: expected a list of strings, got {value!r}")
        if not isinstance(default, list) and type(value) is not type(default):
            raise InputError(f"{where}.{key}: expected {type(default).__name__}, got {value!r}")
        setattr(out, key, value)
    return out


def from_dict(data: dict, source: str = "<config>") -> Config:
    sections = {"model": ModelConfig, "lora": LoraConfig, "train": TrainConfig, "check": CheckConfig}
    cfg = Config(source=source)
    for name, value in data.items():
        if name not in sections:
            raise InputError(f"{source}: unknown section [{name}] (known: {', '.join(sections)})")
        if not isinstance(value, dict):
            raise InputError(f"{source}: [{name}] must be a table")
        setattr(cfg, name, _fill(sections[name], value, f"{source} [{name}]"))
    if bool(cfg.model.gguf) == bool(cfg.model.hf):
        raise InputError(f"{source} [model]: give exactly one of gguf and hf")
    if cfg.model.dtype not in ("auto", "float32", "bfloat16"):
        raise InputError(f"{source} [model] dtype: expected auto, float32 or bfloat16, got {cfg.model.dtype!r}")
    if cfg.lora.r < 1 or cfg.lora.alpha < 1:
        raise InputError(f"{source} [lora]: r and alpha must be positive")
    if not 0 <= cfg.train.warmup_ratio < 1:
        raise InputError(f"{source} [train] warmup_ratio: expected a fraction in [0, 1)")
    if cfg.train.max_length < 16:
        raise InputError(f"{source} [train] max_length: at least 16 tokens")
    return cfg


def load(path: str | Path) -> Config:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except FileNotFoundError:
        raise InputError(f"no config file {p}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{p}: {e}") from None
    return from_dict(data, str(p))
