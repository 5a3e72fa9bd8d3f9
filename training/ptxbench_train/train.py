"""`train`: LoRA SFT over TRL's SFTTrainer and PEFT on `ptxbench fixit export --format trl` output.

Writes to OUT:
  adapter/            the PEFT adapter (adapter_config.json, adapter_model.safetensors) and the tokenizer
  base_config/        the base model's config.json and tokenizer (what the GGUF converter reads)
  train_log.jsonl     one line per logged step (loss, learning rate, grad norm, tokens, seconds), then a summary line
  probes.json         the log-prob probes with the adapter's and the base model's log-probs in memory
  run.json            the manifest: config, data file, base model, devices, losses, tokens/s, peak memory, checks
"""
from __future__ import annotations

import json
import resource
import shutil
import time
from pathlib import Path

from . import checks, config as config_mod, data, model as model_mod, probes as probes_mod
from .errors import InputError


OUTPUTS = ("adapter", "base_config", "trainer", "train_log.jsonl", "probes.json", "run.json", "adapter.gguf",
           "convert.log", "verify.json")


def completion_loss(model, rows, device: str) -> float:
    """Mean cross-entropy over the trained (completion) tokens of `rows` (input_ids, labels), in eval mode."""
    import torch

    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for row in rows:
            ids = torch.tensor([row["input_ids"]], device=device)
            labels = torch.tensor(row["labels"][1:], device=device)
            logits = model(input_ids=ids).logits[0, :-1].float()
            mask = labels != -100
            if mask.any():
                total += torch.nn.functional.cross_entropy(logits[mask], labels[mask], reduction="sum").item()
                count += int(mask.sum())
    if was_training:
        model.train()
    return total / max(count, 1)


def peak_memory(device: str) -> dict:
    import torch

    out = {"host_max_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    if device == "cuda":
        out["cuda_max_allocated_mib"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
        out["cuda_max_reserved_mib"] = round(torch.cuda.max_memory_reserved() / 2**20, 1)
        out["cuda_device"] = torch.cuda.get_device_name()
    return out


def make_log_callback(path: Path, started: list[float]):
    from transformers import TrainerCallback

    class JsonlLog(TrainerCallback):
        def on_train_begin(self, args, state, control, **kw):
            started[0] = time.monotonic()

        def on_log(self, args, state, control, logs=None, **kw):
            line = {"step": state.global_step, "epoch": state.epoch,
                    "seconds": round(time.monotonic() - started[0], 3), **(logs or {})}
            with open(path, "a") as f:
                f.write(json.dumps(line) + "\n")
            if "loss" in (logs or {}):
                print(f"[train] step {state.global_step}/{state.max_steps} loss {logs['loss']:.4f} "
                      f"lr {logs.get('learning_rate', 0):.2e} ({line['seconds']:.1f} s)", flush=True)

    return JsonlLog()


def run(args) -> dict:
    import torch
    from datasets import Dataset
    from peft import LoraConfig
    from trl import SFTConfig, SFTTrainer

    cfg = config_mod.load(args.config)
    if args.max_steps is not None:
        cfg.train.max_steps = args.max_steps
    if args.model_gguf:
        cfg.model.gguf, cfg.model.hf = args.model_gguf, ""
    if args.model_hf:
        cfg.model.hf, cfg.model.gguf = args.model_hf, ""
    if args.bf16:
        cfg.train.bf16, cfg.model.dtype = True, "bfloat16"
    if cfg.train.bf16:  # bf16 logits: the reloaded adapter's log-probs match to bf16's precision, not bit for bit
        cfg.check.roundtrip_tolerance = max(cfg.check.roundtrip_tolerance, 0.05)
    checks.check_lora_targets(cfg.lora.targets, cfg.lora.modules_to_save)
    examples = data.load_examples(args.data)
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        if not args.overwrite:
            raise InputError(f"{out} is not empty (--overwrite to replace it)")
        for name in OUTPUTS:  # only what a run writes: a stale adapter.gguf must not outlive its adapter
            p = out / name
            shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "train_log.jsonl"
    log_path.write_text("")

    device = model_mod.pick_device(args.device)
    if args.threads:
        torch.set_num_threads(args.threads)
    model_mod.seed_everything(cfg.train.seed)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    gguf = model_mod.resolve_gguf(cfg.model.gguf) if cfg.model.gguf else None
    t_load = time.monotonic()
    tok = model_mod.load_tokenizer(cfg, gguf)
    counts = checks.count_tokens(examples, tok, cfg.train.max_length, data.describe)
    checks.check_trained_tokens(counts, cfg.train.max_length)  # before the trainer drops any: names them
    base = model_mod.load_model(cfg, gguf, device, cfg.train.gradient_checkpointing)
    load_seconds = time.monotonic() - t_load
    print(f"[train] {len(examples)} examples; base {gguf or cfg.model.hf} loaded in {load_seconds:.1f} s on {device}",
          flush=True)

    sft = SFTConfig(
        output_dir=str(out / "trainer"),
        per_device_train_batch_size=cfg.train.batch_size,
        gradient_accumulation_steps=cfg.train.grad_accum,
        learning_rate=cfg.train.learning_rate,
        num_train_epochs=cfg.train.epochs,
        max_steps=cfg.train.max_steps,
        lr_scheduler_type=cfg.train.scheduler,
        warmup_steps=cfg.train.warmup_ratio,  # transformers 5: a float in [0, 1) is a ratio of the steps
        weight_decay=cfg.train.weight_decay,
        max_grad_norm=cfg.train.max_grad_norm,
        bf16=cfg.train.bf16,
        gradient_checkpointing=cfg.train.gradient_checkpointing,
        seed=cfg.train.seed,
        data_seed=cfg.train.seed,
        max_length=cfg.train.max_length,
        truncation_mode="keep_start",
        completion_only_loss=True,   # the loss only on the completion: the assistant's fix
        assistant_only_loss=False,
        packing=False,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=device == "cpu",
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    peft_cfg = LoraConfig(r=cfg.lora.r, lora_alpha=cfg.lora.alpha, lora_dropout=cfg.lora.dropout,
                          target_modules=cfg.lora.targets, modules_to_save=cfg.lora.modules_to_save or None,
                          bias="none", task_type="CAUSAL_LM")
    started = [time.monotonic()]
    trainer = SFTTrainer(model=base, args=sft, train_dataset=Dataset.from_list(examples), processing_class=tok,
                         peft_config=peft_cfg, callbacks=[make_log_callback(log_path, started)])
    wrapped = checks.check_peft_modules(trainer.model)
    rows = trainer.train_dataset
    trained_tokens = checks.check_trainer_rows(len(examples), rows["labels"])
    model = trainer.model
    n_loss = min(cfg.train.loss_examples, len(rows))
    loss_rows = [rows[i] for i in range(n_loss)]
    loss_before = completion_loss(model, loss_rows, device)
    print(f"[train] completion loss before: {loss_before:.4f} ({n_loss} examples, {trained_tokens} trained tokens "
          f"in all, LoRA on {len(wrapped)} modules)", flush=True)

    result = trainer.train()
    train_seconds = time.monotonic() - started[0]
    # Under bf16 accelerate leaves the model's forward wrapped in autocast; the losses and probes are
    # taken as a reloaded adapter is run (and as they were before training): without it.
    model = trainer.accelerator.unwrap_model(trainer.model, keep_fp32_wrapper=False)
    loss_after = completion_loss(model, loss_rows, device)
    print(f"[train] completion loss after: {loss_after:.4f} ({train_seconds:.1f} s of training)", flush=True)

    probes = probes_mod.make_probes(examples, tok, cfg.check.probe_examples, cfg.check.probe_tokens)
    tuned_lp = probes_mod.logprobs(model, probes, device)
    with model.disable_adapter():
        base_lp = probes_mod.logprobs(model, probes, device)
    (out / "probes.json").write_text(json.dumps({"bos_id": tok.bos_token_id, "probes": probes, "tuned": tuned_lp,
                                                 "base": base_lp}))

    model.save_pretrained(out / "adapter")
    tok.save_pretrained(out / "adapter")
    model_mod.save_base_config(model.get_base_model(), tok, out / "base_config")

    logs = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    num_tokens = next((entry["num_tokens"] for entry in reversed(logs) if "num_tokens" in entry), None)
    step_losses = [entry["loss"] for entry in logs if "loss" in entry]
    manifest = {
        "format": "ptxbench.lora_run/1",
        "data": str(Path(args.data).resolve()),
        "examples": len(examples),
        "config_file": str(Path(args.config).resolve()),
        "config": cfg.to_dict(),
        "base_gguf": gguf,
        "base_hf": cfg.model.hf or None,
        "serve_gguf": (model_mod.resolve_gguf(cfg.model.serve_gguf) if cfg.model.serve_gguf else gguf),
        "device": device,
        "torch_threads": torch.get_num_threads(),
        "versions": versions(),
        "lora_modules": len(wrapped),
        "trained_tokens_per_epoch": trained_tokens,
        "tokens_per_example": [{"prompt": c.prompt_tokens, "completion": c.completion_tokens,
                                "trained": c.trained_tokens} for c in counts],
        "steps": result.global_step,
        "load_seconds": round(load_seconds, 2),
        "train_seconds": round(train_seconds, 2),
        "train_tokens": num_tokens,
        "tokens_per_second": round(num_tokens / train_seconds, 1) if num_tokens and train_seconds > 0 else None,
        "first_step_loss": step_losses[0] if step_losses else None,
        "last_step_loss": step_losses[-1] if step_losses else None,
        "completion_loss_before": loss_before,
        "completion_loss_after": loss_after,
        "peak_memory": peak_memory(device),
    }
    with open(log_path, "a") as f:
        f.write(json.dumps({"summary": {k: manifest[k] for k in (
            "steps", "train_seconds", "train_tokens", "tokens_per_second", "completion_loss_before",
            "completion_loss_after", "peak_memory")}}) + "\n")
    (out / "run.json").write_text(json.dumps(manifest, indent=2))
    checks.check_loss_drop(loss_before, loss_after, cfg.train.require_loss_drop)
    print(f"[train] adapter in {out / 'adapter'}; {manifest['tokens_per_second']} tokens/s; peak memory "
          f"{manifest['peak_memory']}", flush=True)
    return manifest


def versions() -> dict:
    import importlib.metadata as md

    out = {}
    for name in ("torch", "transformers", "peft", "trl", "datasets", "accelerate"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out
