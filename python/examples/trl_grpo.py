#!/usr/bin/env python3
"""GRPO with TRL whose reward is PTXBench's judge: TRL's GRPOTrainer samples kernels for the
problems' prompts, and its reward function (PtxbenchReward) sends every completion to a running
`ptxbench serve --http` through python/ptxbench_client and turns each record into a reward with
reward.py's recipes (docs/rl.md).

  # against a real judge (a GPU host), SmolLM2-135M from its GGUF, on the GPU:
  python python/examples/trl_grpo.py --url http://127.0.0.1:8080 --model gguf:@smollm2 --device cuda --steps 3
  # the CPU test (python/examples/tests/test_trl_grpo.py): a tiny random model, the simulated GPU stage
  python python/examples/trl_grpo.py --url URL --model tiny --steps 1 --simulated

Models (--model): `tiny` (a 2-layer Llama with random weights, SmolLM2's tokenizer: runs anywhere in
seconds), `gguf:PATH` or `gguf:@smollm2` (transformers dequantizes the GGUF), `hf:DIR` (a local
save_pretrained folder), `config:DIR` (DIR's config.json and tokenizer with random weights: a model
of real size without carrying its weights). No model hub is contacted.

Every completion is a candidate keyed `RUN-sSTEP-I-HASH` (the run, the trainer's step, the sample,
a hash of the text): a trainer restarted at the same step with the same samples re-sends the same
keys and gets the same results back, never a second judgment. A candidate without a verdict
(infra_error, not_run) is rewarded None, which TRL drops from the group's statistics.

Writes OUT/rewards.jsonl (one line per completion: step, key, problem, verdict, reward) and
OUT/summary.json (steps, evaluations, seconds in the reward function and in the whole run).

--simulated is for the tests only: the server is service_http_harness (tests/service), whose GPU
stage is simulated and reads what a candidate does from a `// simulated: {...}` line; the reward
function appends one, picked from a hash of the completion, so that the rewards of a group differ.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python/ptxbench_client/src"))  # the client without a pip install

from ptxbench_client import (DEFAULT, TARGET_REQUIRED, AsyncPtxbenchClient, Candidate,  # noqa: E402
                             RetryPolicy, tiered_reward)

FENCE = re.compile(r"```[ \t]*(?:cuda|cu|cpp|c\+\+|c)?[ \t]*\n(.*?)```", re.S | re.I)

# The outcomes --simulated picks from (tests/service/simulated_record_executor.h reads them).
SIMULATED_OUTCOMES = [
    {"build": "compile_error"},
    {"wrong": True},
    {"speedup": 0.7},
    {"speedup": 1.2},
    {"speedup": 1.6},
    {"speedup": 2.4},
]


def completion_text(completion: Any) -> str:
    """A completion as TRL passes it: a string, or a conversation's last assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        return str(completion[-1].get("content", ""))
    return str(completion)


def extract_kernel(text: str) -> str:
    """The candidate a completion holds: its last fenced code block, else the whole text."""
    blocks = FENCE.findall(text)
    return blocks[-1] if blocks else text


def simulated_source(text: str) -> str:
    spec = dict(SIMULATED_OUTCOMES[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(SIMULATED_OUTCOMES)])
    spec["ms"] = 1
    return text.replace("simulated:", "simulated ") + "\n// simulated: " + json.dumps(spec) + "\n"


class PtxbenchReward:
    """TRL reward function (async: TRL awaits it on its own event loop). Called with the prompts, the
    completions and the dataset's other columns (here `problem`) for one generation batch."""

    def __init__(self, url: str, run_id: str, log_path: Path, recipe: str = "default", simulated: bool = False,
                 timeout: float = 1800.0, concurrency: int = 32) -> None:
        self.url, self.run_id, self.log_path = url, run_id, log_path
        self.config = TARGET_REQUIRED if recipe == "target" else DEFAULT
        self.simulated = simulated
        self.timeout = timeout
        self.concurrency = concurrency
        self.evaluations = 0
        self.seconds = 0.0
        self.calls = 0
        self.__name__ = "ptxbench"

    def candidate_source(self, text: str) -> str:
        source = extract_kernel(text)
        return simulated_source(source) if self.simulated else source

    async def __call__(self, prompts: List[Any], completions: List[Any], problem: Optional[List[str]] = None,
                       trainer_state: Any = None, log_metric: Any = None, **_: Any) -> List[Optional[float]]:
        t0 = time.monotonic()
        step = int(getattr(trainer_state, "global_step", 0) or 0)
        texts = [completion_text(c) for c in completions]
        problems = problem or ["gemm"] * len(texts)
        cands = []
        for i, (text, prob) in enumerate(zip(texts, problems)):
            digest = hashlib.sha256(f"{prob}\0{text}".encode()).hexdigest()[:12]
            cands.append(Candidate(key=f"{self.run_id}-s{step}-{i}-{digest}", problem=prob,
                                   source=self.candidate_source(text), metadata={"step": step, "sample": i}))
        # A client per call: TRL runs async reward functions on its own loop, and the client's
        # bound on requests in flight belongs to the loop that made it.
        client = AsyncPtxbenchClient(self.url, poll_seconds=20, concurrency=self.concurrency,
                                     retry=RetryPolicy(max_attempts=200, max_delay=5.0))
        results = await client.evaluate(cands, timeout=self.timeout)
        rewards = [tiered_reward(r.reward, self.config) for r in results]
        with open(self.log_path, "a") as log:
            for c, r, reward in zip(cands, results, rewards):
                log.write(json.dumps({"step": step, "key": c.key, "problem": c.problem, "state": r.state,
                                      "verdict": r.reward.get("verdict"), "speedup": r.reward.get("speedup_geomean"),
                                      "reward": reward}) + "\n")
        self.evaluations += len(cands)
        self.calls += 1
        self.seconds += time.monotonic() - t0
        if log_metric is not None:
            log_metric("ptxbench/correct_fraction", sum(1 for r in results if r.reward.get("correct")) / len(results))
            log_metric("ptxbench/judge_seconds", time.monotonic() - t0)
        return rewards


def load_tokenizer(spec: str):
    from transformers import AutoTokenizer

    if spec.startswith("gguf:") or spec == "@smollm2" or spec.endswith(".gguf"):
        path = resolve_gguf(spec.removeprefix("gguf:"))
        # Reading a tokenizer out of a GGUF takes seconds: the converted one is kept in the cache.
        cache = (Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ptxbench" / "tokenizers" /
                 f"{os.path.basename(path)}-{os.path.getsize(path)}")
        if (cache / "tokenizer_config.json").is_file():
            tok = AutoTokenizer.from_pretrained(cache)
        else:
            tok = AutoTokenizer.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
            partial = cache.with_name(cache.name + f".partial{os.getpid()}")
            tok.save_pretrained(partial)
            try:
                partial.rename(cache)
            except OSError:  # another process kept it first
                pass
    else:
        tok = AutoTokenizer.from_pretrained(spec.removeprefix("hf:").removeprefix("config:"))
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def resolve_gguf(spec: str) -> str:
    """A GGUF path; @smollm2: the SmolLM2-135M-Instruct GGUF that scripts/setup.sh installs."""
    if spec != "@smollm2":
        return spec
    import subprocess

    base = os.environ.get("PTXBENCH_PYTHON") or "python3"
    r = subprocess.run([base, str(ROOT / "scripts/smollm2_gguf.py")], capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit(f"no SmolLM2 GGUF: {r.stderr.strip()}")
    return r.stdout.strip().splitlines()[0]


def load_model(spec: str, tokenizer, seed: int):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, LlamaConfig

    torch.manual_seed(seed)
    if spec == "tiny":
        cfg = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                          tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                          eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
        return AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    if spec.startswith("config:"):
        cfg = AutoConfig.from_pretrained(spec.removeprefix("config:"))
        return AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    if spec.startswith("gguf:"):
        path = resolve_gguf(spec.removeprefix("gguf:"))
        model = AutoModelForCausalLM.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path),
                                                     dtype=torch.float32)
        # transformers dequantized every tensor but keeps a GGUF quantizer mark that Trainer refuses
        # (training/ptxbench_train/model.py does the same).
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        return model
    if spec.startswith("hf:"):
        return AutoModelForCausalLM.from_pretrained(spec.removeprefix("hf:"), dtype=torch.float32)
    raise SystemExit(f"--model: expected tiny, gguf:PATH, hf:DIR or config:DIR, got {spec!r}")


def prompts_dataset(problems: List[str], repeat: int):
    from datasets import Dataset

    rows = []
    for p in problems:
        text = (ROOT / "problems" / p / "prompt.md").read_text()
        rows.append({"prompt": [{"role": "user", "content": text}], "problem": p})
    return Dataset.from_list(rows * repeat)


def main(argv: Optional[List[str]] = None) -> Dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True, help="the reward API (ptxbench serve --http)")
    ap.add_argument("--model", default="tiny", help="tiny | gguf:PATH | gguf:@smollm2 | hf:DIR | config:DIR")
    ap.add_argument("--tokenizer", help="default: the model's; for tiny, gguf:@smollm2 (a dir or gguf:PATH)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--problems", default="gemm", help="comma-separated (their prompt.md are the prompts)")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--batch", type=int, default=4, help="completions per step (a multiple of --generations)")
    ap.add_argument("--generations", type=int, default=4, help="completions per prompt (GRPO's group)")
    ap.add_argument("--max-completion-length", type=int, default=32)
    ap.add_argument("--learning-rate", type=float, default=1e-4)
    ap.add_argument("--recipe", default="default", choices=["default", "target"],
                    help="tiered_reward's DEFAULT, or TARGET_REQUIRED (correct counts only when the target ISA did the work)")
    ap.add_argument("--simulated", action="store_true", help="tests only: the server's GPU stage is simulated")
    ap.add_argument("--run-id", default="grpo", help="the first part of every candidate's key")
    ap.add_argument("--out", type=Path, default=Path("grpo-out"))
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args(argv)

    t_start = time.monotonic()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from trl import GRPOConfig, GRPOTrainer

    args.out.mkdir(parents=True, exist_ok=True)
    tok_spec = args.tokenizer or ("gguf:@smollm2" if args.model == "tiny" else args.model)
    tokenizer = load_tokenizer(tok_spec)
    model = load_model(args.model, tokenizer, args.seed)
    problems = [p for p in args.problems.split(",") if p]
    # Enough prompts for every step: each step takes batch / generations of them.
    prompts_per_step = max(1, args.batch // args.generations)
    dataset = prompts_dataset(problems, repeat=max(1, args.steps * prompts_per_step // len(problems) + 1))
    log_path = args.out / "rewards.jsonl"
    log_path.unlink(missing_ok=True)
    reward = PtxbenchReward(args.url, args.run_id, log_path, recipe=args.recipe, simulated=args.simulated)
    config = GRPOConfig(output_dir=str(args.out / "trainer"), max_steps=args.steps,
                        per_device_train_batch_size=args.batch, num_generations=args.generations,
                        max_completion_length=args.max_completion_length, learning_rate=args.learning_rate,
                        beta=0.0, logging_steps=1, save_strategy="no", report_to="none", seed=args.seed,
                        use_cpu=args.device == "cpu", bf16=False, temperature=1.0, disable_tqdm=True,
                        dataloader_num_workers=0)
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=config, train_dataset=dataset,
                          processing_class=tokenizer)
    t_train = time.monotonic()
    trainer.train()
    train_seconds = time.monotonic() - t_train
    rewards_logged = [h for h in trainer.state.log_history if "reward" in h]
    summary = {"steps": trainer.state.global_step, "evaluations": reward.evaluations, "reward_calls": reward.calls,
               "judge_seconds": round(reward.seconds, 2), "train_seconds": round(train_seconds, 2),
               "total_seconds": round(time.monotonic() - t_start, 2),
               "evaluations_per_minute": round(60 * reward.evaluations / reward.seconds, 1) if reward.seconds else None,
               "model": args.model, "device": args.device, "problems": problems,
               "reward_mean_per_step": [h["reward"] for h in rewards_logged],
               "log_history": trainer.state.log_history}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    print(json.dumps({k: v for k, v in summary.items() if k != "log_history"}))
    return summary


if __name__ == "__main__":
    main()
