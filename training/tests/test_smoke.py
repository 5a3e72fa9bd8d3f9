"""The loop closed on a real model on the CPU: SmolLM2-135M-Instruct (the GGUF scripts/setup.sh installs)
is LoRA-tuned for a few steps on the Fixit fixture (the loss must fall), the adapter is saved, reloaded
(its log-probs must be those it had in memory), converted to a GGUF LoRA adapter, served by llama.cpp's
OpenAI-compatible server beside the unchanged base GGUF (the served log-probs must match PEFT's), and
`ptxbench run` drives the served model through a problem like any other model. Each check's failure path
runs for real too: an example left without a trained token, LoRA on lm_head, a loss that does not fall,
and a server that does not apply the adapter.

Skipped, saying why, only where llama-cpp-python[server] is not installed (scripts/setup.sh installs it)
or, for the `ptxbench run` step, where PTXBENCH_BIN does not name the built binary (CTest passes it).
"""
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from conftest import FIXTURE, REPO, TINY, cli
from ptxbench_train import serving

pytestmark = pytest.mark.smoke
TIMES = {}


def llama_missing() -> str:
    py = serving.base_python()
    probe = ("import importlib.util as u; print(' '.join(m for m in ('llama_cpp', 'uvicorn', 'fastapi', "
             "'sse_starlette', 'starlette_context', 'pydantic_settings') if u.find_spec(m) is None))")
    try:
        r = subprocess.run([py, "-c", probe], capture_output=True, text=True, timeout=120)
    except OSError as e:
        return f"no interpreter for llama.cpp's server ({py}): {e}"
    if r.returncode != 0:
        return f"no interpreter for llama.cpp's server ({py}): {r.stderr.strip()[-300:]}"
    gone = r.stdout.strip()
    return f"llama-cpp-python[server] is not installed for {py} (missing {gone}); scripts/setup.sh installs it" \
        if gone else ""


def timed(name, fn, *a, **k):
    t = time.monotonic()
    try:
        return fn(*a, **k)
    finally:
        TIMES[name] = round(time.monotonic() - t, 1)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("lora") / "run"
    r = timed("train", cli, "train", "--data", FIXTURE, "--config", TINY, "--out", out, "--device", "cpu", check=0)
    print(r.stdout)
    return out


@pytest.fixture(scope="module")
def manifest(run_dir):
    return json.loads((run_dir / "run.json").read_text())


def test_training_lowers_the_completion_loss(run_dir, manifest):
    before, after = manifest["completion_loss_before"], manifest["completion_loss_after"]
    print(f"[smoke] completion loss {before:.4f} -> {after:.4f} in {manifest['steps']} steps, "
          f"{manifest['train_seconds']} s, {manifest['tokens_per_second']} tokens/s, peak {manifest['peak_memory']}")
    assert after < before
    assert manifest["steps"] == 3 and manifest["lora_modules"] == 30 * 7
    assert manifest["trained_tokens_per_epoch"] > 1000
    log = [json.loads(line) for line in (run_dir / "train_log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log if "loss" in e] == [1, 2, 3]
    assert "summary" in log[-1]
    for f in ("adapter_config.json", "adapter_model.safetensors", "chat_template.jinja"):
        assert (run_dir / "adapter" / f).is_file(), f
    cfg = json.loads((run_dir / "adapter" / "adapter_config.json").read_text())
    assert sorted(cfg["target_modules"]) == sorted(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                                    "down_proj"])
    assert not cfg.get("modules_to_save")


def test_adapter_round_trips(run_dir, manifest):
    r = timed("verify_roundtrip", cli, "verify", "--run", run_dir, check=0)
    print(r.stdout)
    v = json.loads((run_dir / "verify.json").read_text())["roundtrip"]
    assert v["max_abs"] <= v["tolerance"] and v["tokens"] > 100


def test_serve_hf_batches_concurrent_requests_as_it_answers_single_ones(run_dir):
    """serve-hf's batching (the GPU runs' server): concurrent requests are generated as one left-padded
    batch, and each greedy reply is the one the request gets alone, cut at its own max_tokens."""
    import threading

    from ptxbench_train import serve_hf

    model, tok, _ = serve_hf.load(run_dir, "cpu", no_adapter=False)
    prompts = [tok.apply_chat_template([{"role": "user", "content": c}], add_generation_prompt=True, tokenize=True,
                                       return_dict=True)["input_ids"]
               for c in ("Write a CUDA kernel that adds two vectors.", "What does TMA do on Hopper?", "hi")]
    limits = [12, 5, 12]
    single = serve_hf.BatchedGenerator(model, tok, "cpu", max_batch=1)
    alone = [single.generate(p, n, 0.0) for p, n in zip(prompts, limits)]
    assert single.batch_sizes == [1, 1, 1]
    assert len({len(p) for p in prompts}) == 3  # the batch needs padding

    batched = serve_hf.BatchedGenerator(model, tok, "cpu", max_batch=8, window_s=2.0)
    together = [None] * 3
    threads = [threading.Thread(target=lambda i=i: together.__setitem__(i, batched.generate(prompts[i], limits[i], 0.0)))
               for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert batched.batch_sizes == [3]
    assert together == alone
    assert all(len(tokens) <= n for (tokens, _), n in zip(together, limits))
    assert together[1][1] == "length" or tok.eos_token_id not in together[1][0]


def test_example_without_trained_tokens_fails(tmp_path):
    cfg = tmp_path / "short.toml"
    cfg.write_text(TINY.read_text().replace("max_length = 1024", "max_length = 400"))
    r = cli("train", "--data", FIXTURE, "--config", cfg, "--out", tmp_path / "run", check=3)
    assert "have no trained token" in r.stderr and "prompt fills max_length" in r.stderr, r.stderr
    assert "example 5 (fixit:" in r.stderr  # the 830-token-prompt GEMM fix, named


def test_lora_on_lm_head_fails(tmp_path):
    cfg = tmp_path / "head.toml"
    cfg.write_text(TINY.read_text().replace('"down_proj"]', '"down_proj", "lm_head"]'))
    r = cli("train", "--data", FIXTURE, "--config", cfg, "--out", tmp_path / "run", check=3)
    assert "lm_head" in r.stderr and "GGUF" in r.stderr, r.stderr


def test_loss_that_does_not_fall_fails(tmp_path):
    data = tmp_path / "two.jsonl"
    data.write_text("\n".join(FIXTURE.read_text().splitlines()[-2:]) + "\n")  # two short KernelGen examples
    cfg = tmp_path / "still.toml"
    cfg.write_text(TINY.read_text().replace("learning_rate = 3e-3", "learning_rate = 0.0")
                   .replace("batch_size = 2", "batch_size = 1").replace("loss_examples = 6", "loss_examples = 1"))
    r = timed("train_lr0", cli, "train", "--data", data, "--config", cfg, "--out", tmp_path / "run", "--max-steps", 1,
              check=3)
    assert "did not fall" in r.stderr, r.stderr


@pytest.fixture(scope="module")
def adapter_gguf(run_dir):
    why = llama_missing()
    if why:
        pytest.skip(why)
    timed("to_gguf", cli, "to-gguf", "--run", run_dir, check=0)
    return run_dir / "adapter.gguf"


def test_adapter_converts_to_gguf(adapter_gguf, run_dir):
    info = serving.gguf_lora_tensors(adapter_gguf)
    assert info["type"] == "adapter"
    assert len(info["lora_a"]) == len(info["lora_b"]) == 210
    assert not any("token_embd" in n or n.startswith("output.") for n in info["lora_a"])


@pytest.fixture(scope="module")
def server(adapter_gguf, manifest, run_dir):
    s = serving.LlamaServer(manifest["serve_gguf"], str(adapter_gguf), manifest["config"]["model"]["alias"],
                            n_ctx=4096, log_path=str(run_dir / "server.log"))
    timed("server_start", s.start)
    yield s
    s.stop()


def test_served_logprobs_match_peft(server, run_dir):
    r = timed("verify_served", cli, "verify", "--run", run_dir, "--base-url", server.base_url, check=0)
    print(r.stdout)
    v = json.loads((run_dir / "verify.json").read_text())
    s = v["served"]
    print(f"[smoke] served vs PEFT: mean {s['served_vs_peft']['mean_abs']:.4f} max {s['served_vs_peft']['max_abs']:.4f}"
          f" over {s['served_vs_peft']['tokens']} tokens; served vs base mean {s['served_vs_base']['mean_abs']:.4f}")
    assert s["served_vs_peft"]["mean_abs"] <= s["mean_tolerance"]
    assert s["served_vs_base"]["mean_abs"] > 2 * s["served_vs_peft"]["mean_abs"]
    assert v["roundtrip"]["max_abs"] <= v["roundtrip"]["tolerance"]


def test_server_without_the_adapter_fails(adapter_gguf, manifest, run_dir):
    """The silent failure itself: a server that serves the base (the adapter not applied)."""
    with serving.LlamaServer(manifest["serve_gguf"], None, manifest["config"]["model"]["alias"], n_ctx=2048,
                             log_path=str(run_dir / "server-base.log")) as base:
        r = timed("verify_base_server", cli, "verify", "--run", run_dir, "--base-url", base.base_url, "--no-reload",
                  check=3)
    assert "differ from PEFT's" in r.stderr, r.stderr


def test_ptxbench_run_drives_the_tuned_model(server, manifest, tmp_path):
    """`ptxbench run` against the served adapter, like any other model (no GPU here: built and statically
    checked turns)."""
    binary = os.environ.get("PTXBENCH_BIN", "")
    if not binary or not pathlib.Path(binary).is_file():
        pytest.skip("PTXBENCH_BIN does not name the built ptxbench (CTest passes build/<preset>/bin/ptxbench)")
    ws = tmp_path / "ws"
    alias = manifest["config"]["model"]["alias"]
    cmd = [binary, "--workspace", str(ws), "run", "--model", f"llamacpp:{alias}", "--model-arg",
           f"base_url={server.base_url}", "--model-arg", "max_tokens=160", "--model-arg", "temperature=0",
           "--knowledge", "none", "--problems", "gemm", "--trajectories", "1", "--turns", "2", "--no-gpu",
           "--run-name", "tuned", "--json"]
    r = timed("ptxbench_run", subprocess.run, cmd, capture_output=True, text=True, timeout=900, cwd=REPO)
    assert r.returncode == 0, r.stderr[-4000:]
    export = tmp_path / "tuned.jsonl"
    e = subprocess.run([binary, "--workspace", str(ws), "runs", "export", "tuned", "--jsonl", "-o", str(export)],
                       capture_output=True, text=True, timeout=120, cwd=REPO)
    assert e.returncode == 0, e.stderr
    turns = [json.loads(line) for line in export.read_text().splitlines() if line.strip()]
    assert [(t["trajectory"], t["turn"]) for t in turns] == [(0, 0), (0, 1)]
    for t in turns:
        print(f"[smoke] ptxbench turn {t['turn']}: {t['state']}, model {t['run']['model']}")
        assert t["state"] != "infra_error"
        assert t["tokens"]["output"] is not None
    assert turns[0]["run"]["model"] == f"llamacpp:{alias}"


def _ptxbench(binary, ws, *args, timeout=900):
    r = subprocess.run([binary, "--workspace", str(ws), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                       cwd=REPO)
    assert r.returncode == 0, f"ptxbench {' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr[-4000:]}"
    return r


def test_notes_and_base_vs_tuned_in_one_report(server, adapter_gguf, manifest, run_dir, tmp_path):
    """Issue 29's comparison from real runs with CPU verdicts: the base model (served without the adapter),
    the base with repair notes (the H200 Fixit build's records, tests/fixtures/fixit/h200_records.jsonl), and
    the tuned model, each through the 4ops suite (GEMM held out) in one workspace; one report then holds
    the notes condition as a knowledge row, base and tuned as model rows, and the train / held-out split."""
    binary = os.environ.get("PTXBENCH_BIN", "")
    if not binary or not pathlib.Path(binary).is_file():
        pytest.skip("PTXBENCH_BIN does not name the built ptxbench (CTest passes build/<preset>/bin/ptxbench)")
    ws = tmp_path / "ws"
    alias = manifest["config"]["model"]["alias"]
    notes = REPO / "tests" / "fixtures" / "fixit" / "h200_records.jsonl"
    common = ["--suite", "4ops", "--trajectories", "1", "--turns", "2", "--knowledge", "none", "--no-gpu",
              "--model-arg", "max_tokens=160", "--model-arg", "temperature=0"]
    with serving.LlamaServer(manifest["serve_gguf"], None, alias + "-base", n_ctx=4096,
                             log_path=str(run_dir / "server-base-runs.log")) as base:
        base_model = ["--model", f"llamacpp:{alias}-base", "--model-arg", f"base_url={base.base_url}"]
        timed("run_base", _ptxbench, binary, ws, "run", *base_model, *common, "--run-name", "base")
        timed("run_base_notes", _ptxbench, binary, ws, "run", *base_model, *common, "--repair-notes", notes,
              "--notes-k", "2", "--run-name", "base-notes")
    timed("run_tuned", _ptxbench, binary, ws, "run", "--model", f"llamacpp:{alias}", "--model-arg",
          f"base_url={server.base_url}", *common, "--run-name", "tuned")
    report = json.loads(_ptxbench(binary, ws, "report", "--group-by", "model,knowledge,split,problem", "--format",
                                  "json").stdout)
    groups = {(r["model"], r["knowledge"], r["split"]) for t in report["tables"] if t["name"] == "correctness"
              for r in t["rows"]}
    print(f"[smoke] report groups: {sorted(groups)}")
    for split in ("train", "held-out"):
        assert (f"llamacpp:{alias}-base", "none", split) in groups
        assert (f"llamacpp:{alias}-base", "none+notes", split) in groups
        assert (f"llamacpp:{alias}", "none", split) in groups
    # The notes followed the failing turns: each compile error's turn recorded what it was shown.
    export = tmp_path / "notes.jsonl"
    _ptxbench(binary, ws, "runs", "export", "base-notes", "--jsonl", "-o", export)
    turns = [json.loads(line) for line in export.read_text().splitlines() if line.strip()]
    failing = [t for t in turns if t["state"] in ("compile_error", "forbidden")]
    for t in failing:
        shown = t["context"]["repair_notes"]["shown"]
        assert shown and all(s["problem"] != t["problem"] for s in shown), t["context"]["repair_notes"]
        assert "## Repair notes from similar failures" in t["feedback"]
    print(f"[smoke] base-notes: {len(failing)} failing turns, each shown notes of other problems")


def test_zz_times():
    print("[smoke] seconds per step: " + json.dumps(TIMES))
