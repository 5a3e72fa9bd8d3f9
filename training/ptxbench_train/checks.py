"""Checks for the failures that users of TRL, PEFT and llama.cpp meet without any error message.

1. Nothing trained on an example. An assistant-only mask from a chat template without generation
   markers masks every token; a prompt longer than max_length truncates the completion away. TRL
   (1.16) then drops such an example from the dataset without a word. check_trained_tokens fails when
   any example is missing from the trainer's dataset or has no trained token, naming it.
2. LoRA on lm_head or the embeddings. llama.cpp's convert_lora_to_gguf.py cannot carry those (it
   refuses lm_head and mis-handles tied embeddings), so the served model silently differs from the
   trained one. check_lora_targets refuses them by name, check_peft_modules by the modules PEFT wrapped.
3. An adapter the server does not apply: the server answers with the base model. compare_served fails
   when the served log-probs differ from PEFT's, or are not clearly closer to the tuned model's than to
   the base model's.
4. A loss that did not fall (check_loss_drop).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .config import FORBIDDEN_TARGETS
from .errors import CheckFailed, InputError


def _forbidden(name: str) -> bool:
    leaf = name.split(".")[-1]
    return leaf in FORBIDDEN_TARGETS or "embed" in leaf or leaf == "lm_head"


def check_lora_targets(targets: list[str], modules_to_save: list[str]) -> None:
    """Names in the config: no lm_head, no embeddings, no 'all' that would include them."""
    if not targets:
        raise InputError("[lora] targets is empty: list the projection modules (q_proj, ..., down_proj)")
    bad = [t for t in targets if _forbidden(t)]
    if bad:
        raise CheckFailed(f"[lora] targets include {bad}: LoRA on lm_head or the embeddings breaks the adapter's "
                          "conversion to GGUF (llama.cpp's convert_lora_to_gguf.py refuses or drops them, and the "
                          "server then serves the base); target the attention and MLP projections only")
    bad = [m for m in modules_to_save if _forbidden(m)]
    if bad:
        raise CheckFailed(f"[lora] modules_to_save include {bad}: a fully trained lm_head or embedding is not a "
                          "LoRA adapter and is lost in the GGUF adapter; leave modules_to_save empty")


def check_peft_modules(model) -> list[str]:
    """The modules PEFT actually wrapped (after 'all-linear' or a regex expanded): none may be the output
    layer or an embedding. Returns the wrapped module names."""
    import torch

    try:
        out_emb = model.get_output_embeddings()
    except Exception:  # noqa: BLE001 - a model without the accessor
        out_emb = None
    try:
        in_emb = model.get_input_embeddings()
    except Exception:  # noqa: BLE001
        in_emb = None
    wrapped, bad = [], []
    for name, module in model.named_modules():
        if hasattr(module, "lora_A") and hasattr(module, "base_layer"):
            wrapped.append(name)
            base = module.base_layer
            if (isinstance(base, torch.nn.Embedding) or base is out_emb or base is in_emb or module is out_emb
                    or _forbidden(name)):
                bad.append(name)
        elif type(module).__name__ == "ModulesToSaveWrapper" and _forbidden(name):
            bad.append(name)
    if bad:
        raise CheckFailed(f"LoRA was applied to the output layer or an embedding: {bad[:5]}; that breaks the "
                          "GGUF adapter conversion: target the attention and MLP projections only")
    if not wrapped:
        raise CheckFailed("PEFT wrapped no module: [lora] targets match nothing in this model")
    return wrapped


@dataclass
class TokenCount:
    index: int          # the example's position in the data file (0-based)
    name: str
    prompt_tokens: int
    completion_tokens: int
    trained_tokens: int  # completion tokens left after truncation to max_length


def count_tokens(examples, tokenizer, max_length: int, describe) -> list[TokenCount]:
    """Each example tokenized as TRL does for conversational prompt-completion data: the prompt with the
    generation prompt, then prompt+completion; the completion is what follows their common prefix."""
    out = []
    for i, ex in enumerate(examples):
        rendered = tokenizer.apply_chat_template(ex["prompt"] + ex["completion"], tokenize=False)
        tail = ex["completion"][0]["content"].strip()[-100:]
        if tail not in rendered:
            raise CheckFailed(f"example {i + 1} ({describe(ex)}): the chat template does not render the completion "
                              f"(its end {tail[-40:]!r} is not in the rendered text): the model would be trained on "
                              "something else than the fix (a template that drops or rewrites the last assistant "
                              "message)")
        p = _ids(tokenizer.apply_chat_template(ex["prompt"], tokenize=True, add_generation_prompt=True))
        pc = _ids(tokenizer.apply_chat_template(ex["prompt"] + ex["completion"], tokenize=True))
        common = 0
        for a, b in zip(p, pc):
            if a != b:
                break
            common += 1
        completion = len(pc) - common
        trained = max(0, min(len(pc), max_length) - common)
        out.append(TokenCount(i, describe(ex), common, completion, trained))
    return out


def _ids(x):
    if isinstance(x, dict) or hasattr(x, "keys"):
        x = x["input_ids"]
    return list(x)


def check_trained_tokens(counts: list[TokenCount], max_length: int) -> int:
    """Fails, naming them, when examples have no trained token once tokenized and truncated to max_length.
    Returns the trained token total."""
    empty = [c for c in counts if c.trained_tokens == 0]
    if empty:
        lines = [f"  example {c.index + 1} ({c.name}): prompt {c.prompt_tokens} tokens, completion "
                 f"{c.completion_tokens} tokens, trained 0" for c in empty[:10]]
        why = ("the prompt fills max_length, so truncation cuts the whole completion"
               if any(c.prompt_tokens >= max_length for c in empty) else "the loss mask covers every completion token")
        raise CheckFailed(f"{len(empty)} of {len(counts)} examples have no trained token ({why}; TRL would drop or "
                          f"skip them silently):\n" + "\n".join(lines) +
                          f"\nraise [train] max_length (now {max_length}), export a shorter system message "
                          "(fixit export --system none), or leave those examples out")
    return sum(c.trained_tokens for c in counts)


def check_trainer_rows(examples: int, dataset_labels: list[list[int]]) -> int:
    """The trainer's own tokenized dataset (its labels, -100 where no loss is taken): every example kept,
    each with a trained token. Returns the trained token total."""
    if len(dataset_labels) != examples:
        raise CheckFailed(f"the trainer kept {len(dataset_labels)} of {examples} examples: it dropped some "
                          "(fully masked after tokenization or truncation)")
    per_row = [sum(1 for t in labels if t != -100) for labels in dataset_labels]
    zero = [i for i, n in enumerate(per_row) if n == 0]
    if zero:
        raise CheckFailed(f"{len(zero)} rows of the trainer's dataset have every label masked (-100), e.g. example "
                          f"{zero[0] + 1}: the loss mask (a chat template without generation markers, or truncation) "
                          "leaves nothing to train on")
    return sum(per_row)


def check_loss_drop(before: float, after: float, require_drop: bool = True) -> None:
    if not (math.isfinite(before) and math.isfinite(after)):
        raise CheckFailed(f"the completion loss is not finite (before {before}, after {after})")
    if require_drop and not after < before:
        raise CheckFailed(f"the completion loss did not fall: {before:.4f} before training, {after:.4f} after")


@dataclass
class Comparison:
    tokens: int
    mean_abs: float
    max_abs: float

    def to_dict(self):
        return {"tokens": self.tokens, "mean_abs": self.mean_abs, "max_abs": self.max_abs}


def compare(a: list[float], b: list[float]) -> Comparison:
    if len(a) != len(b) or not a:
        raise CheckFailed(f"cannot compare log-probs: {len(a)} against {len(b)} tokens")
    d = [abs(x - y) for x, y in zip(a, b)]
    return Comparison(len(d), sum(d) / len(d), max(d))


def compare_served(served: list[float], tuned: list[float], base: list[float], mean_tol: float, max_tol: float,
                   margin: float) -> dict:
    """served: the server's log-probs of the probe tokens; tuned, base: PEFT's with the adapter on and off.
    Fails on a mismatch, or when the served model is not clearly the tuned one."""
    vs_tuned, vs_base, effect = compare(served, tuned), compare(served, base), compare(tuned, base)
    result = {"served_vs_peft": vs_tuned.to_dict(), "served_vs_base": vs_base.to_dict(),
              "adapter_effect": effect.to_dict(), "mean_tolerance": mean_tol, "max_tolerance": max_tol}
    if effect.mean_abs < 2 * mean_tol:
        raise CheckFailed(f"the adapter changes the probes' log-probs by only {effect.mean_abs:.4f} on average "
                          f"(below twice the serving tolerance {mean_tol}): whether the server applies it cannot be "
                          "told; probe other examples or train longer")
    if vs_tuned.mean_abs > mean_tol or vs_tuned.max_abs > max_tol:
        raise CheckFailed(f"the served log-probs differ from PEFT's: mean |diff| {vs_tuned.mean_abs:.4f} (tolerance "
                          f"{mean_tol}), max {vs_tuned.max_abs:.4f} (tolerance {max_tol}) over {vs_tuned.tokens} "
                          f"tokens; against the base model: mean {vs_base.mean_abs:.4f}")
    if vs_tuned.mean_abs > margin * vs_base.mean_abs:
        raise CheckFailed(f"the served model is not clearly the tuned one: mean |diff| {vs_tuned.mean_abs:.4f} from "
                          f"PEFT's tuned log-probs, {vs_base.mean_abs:.4f} from the base's")
    return result
