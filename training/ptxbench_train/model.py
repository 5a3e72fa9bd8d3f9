"""Finding and loading the base model and its tokenizer (with its own chat template)."""
from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

from .errors import InputError

REPO = Path(__file__).resolve().parents[2]


def resolve_gguf(spec: str) -> str:
    """A GGUF path; "@smollm2" is the SmolLM2-135M-Instruct GGUF that scripts/setup.sh installs
    (scripts/smollm2_gguf.py finds it)."""
    if spec == "@smollm2":
        script = REPO / "scripts" / "smollm2_gguf.py"
        from .serving import base_python

        r = subprocess.run([base_python(), str(script)], capture_output=True, text=True, timeout=600)
        path = r.stdout.strip().splitlines()[0] if r.stdout.strip() else ""
        if r.returncode != 0 or not path:
            raise InputError(f"cannot find the SmolLM2 GGUF: {r.stderr.strip()}")
        return path
    p = Path(spec).expanduser()
    if not p.is_file():
        raise InputError(f"no GGUF file {p}")
    return str(p.resolve())


def seed_everything(seed: int) -> None:
    import numpy as np
    import torch
    from transformers import set_seed

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    set_seed(seed)


def pick_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda, but torch sees no CUDA device")
    if device not in ("cpu", "cuda"):
        raise InputError(f"--device: expected cpu, cuda or auto, got {device!r}")
    return device


def torch_dtype(cfg, device: str):
    import torch

    name = cfg.model.dtype
    if name == "auto":
        name = "bfloat16" if cfg.train.bf16 else "float32"
    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[name]


def load_tokenizer(cfg, gguf_path: str | None):
    from transformers import AutoTokenizer

    if gguf_path:
        d, f = os.path.split(gguf_path)
        tok = AutoTokenizer.from_pretrained(d, gguf_file=f)
    else:
        tok = AutoTokenizer.from_pretrained(cfg.model.hf)
    if not tok.chat_template:
        raise InputError("the tokenizer has no chat template: the examples are conversations and must be rendered "
                         "with the model's own template")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def load_model(cfg, gguf_path: str | None, device: str, gradient_checkpointing: bool = False):
    from transformers import AutoModelForCausalLM

    dtype = torch_dtype(cfg, device)
    if gguf_path:
        d, f = os.path.split(gguf_path)
        model = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=dtype)
        _forget_gguf_quantization(model)
    else:
        model = AutoModelForCausalLM.from_pretrained(cfg.model.hf, dtype=dtype)
    if not getattr(model.config, "architectures", None):
        model.config.architectures = [type(model).__name__]  # the GGUF converter picks its model class by it
    model.to(device)
    if gradient_checkpointing:
        model.config.use_cache = False
    return model


def _forget_gguf_quantization(model) -> None:
    """transformers dequantizes every GGUF tensor into ordinary float weights while loading, yet keeps a
    GGUF "quantizer" on the model that makes Trainer refuse it ("GGUF ... do not support training") and
    save_pretrained refuse it. The weights are plain nn.Linear/nn.Embedding floats (checked here), so the
    marker goes."""
    import torch

    for name, p in model.named_parameters():
        if not p.is_floating_point() or p.dtype not in (torch.float32, torch.bfloat16, torch.float16):
            raise InputError(f"the GGUF base was not fully dequantized: {name} is {p.dtype}")
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


def save_base_config(model, tokenizer, out: Path) -> None:
    """What llama.cpp's convert_lora_to_gguf.py needs of the base (--base): config.json and the tokenizer."""
    out.mkdir(parents=True, exist_ok=True)
    cfg = model.config.to_dict()
    cfg.pop("quantization_config", None)  # the GGUF the weights came from, not a quantization of the adapter
    cfg["architectures"] = model.config.architectures
    import json

    (out / "config.json").write_text(json.dumps(cfg, indent=2, default=str))
    tokenizer.save_pretrained(out)
