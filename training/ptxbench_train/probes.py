"""Log-prob probes: a few short conversations (a problem statement and a fix from the data), whose
per-token log-probs are compared between the adapter in memory, the adapter saved and reloaded, and
the served model."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

from .errors import CheckFailed


def make_probes(examples, tokenizer, count: int, max_tokens: int) -> list[dict]:
    """The first `count` examples as [first user message, completion], rendered by the chat template and
    cut to `max_tokens` tokens at a point where the text re-tokenizes to the same ids (the server gets the
    text, not the ids)."""
    probes = []
    for ex in examples[:count]:
        user = next(m for m in ex["prompt"] if m["role"] == "user")
        text = tokenizer.apply_chat_template([user] + ex["completion"], tokenize=False)
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        for n in range(min(max_tokens, len(ids)), 1, -1):
            cut = tokenizer.decode(ids[:n], skip_special_tokens=False, clean_up_tokenization_spaces=False)
            if tokenizer(cut, add_special_tokens=False)["input_ids"] == ids[:n]:
                probes.append({"text": cut, "ids": ids[:n]})
                break
    return probes


def logprobs(model, probes, device: str) -> list[list[float]]:
    """For each probe, log p(ids[i] | ids[:i]) for i >= 1."""
    import torch

    was_training = model.training
    model.eval()
    out = []
    with torch.no_grad():
        for p in probes:
            ids = torch.tensor([p["ids"]], device=device)
            logits = model(input_ids=ids).logits[0].float()
            lp = torch.log_softmax(logits[:-1], dim=-1).gather(1, ids[0, 1:, None])[:, 0]
            out.append(lp.cpu().tolist())
    if was_training:
        model.train()
    return out


def _post(base_url: str, path: str, body: dict, timeout: float = 600) -> dict:
    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    req = urllib.request.Request(root + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        raise CheckFailed(f"POST {root + path}: HTTP {e.code}: {e.read()[:500]!r}") from None


def served_logprobs(base_url: str, model_name: str, probes, bos_id: int | None) -> list[list[float]]:
    """The same log-probs from an OpenAI-compatible /v1/completions with echo and logprobs (llama.cpp's
    server through llama-cpp-python), aligned to the probe's positions 1..n-1 (where the server reports
    them; see below), as a list per probe with None where the server gives no value."""
    out = []
    for p in probes:
        ids = p["ids"]
        served_ids = _post(base_url, "/extras/tokenize", {"input": p["text"], "model": model_name})["tokens"]
        if served_ids != ids:
            raise CheckFailed(f"the server tokenizes a probe differently from the training tokenizer "
                              f"(first difference at token {next((i for i, (a, b) in enumerate(zip(served_ids, ids)) if a != b), min(len(ids), len(served_ids)))}): "
                              "the served model would not see what it was trained on")
        r = _post(base_url, "/v1/completions", {"model": model_name, "prompt": p["text"], "max_tokens": 1,
                                                "echo": True, "logprobs": 1, "temperature": 0})
        lp = r["choices"][0].get("logprobs") or {}
        values = lp.get("token_logprobs")
        if not values:
            raise CheckFailed("the server returned no log-probs for an echoed prompt (llama-cpp-python needs "
                              "logits_all, its server's default)")
        # llama-cpp-python's echo drops a leading BOS and skips every later token equal to BOS; entry k is
        # then log p(all[k] | what precedes it), with all = ids[1:] + generated, and the first entry null.
        if bos_id is None or ids[0] != bos_id:
            raise CheckFailed("a probe must begin with the BOS token: llama-cpp-python's echoed log-probs are "
                              "shifted by one position otherwise")
        positions = [i for i in range(1, len(ids)) if ids[i] != bos_id]
        if len(values) < len(positions):
            raise CheckFailed(f"the server returned {len(values)} log-probs for a prompt of {len(positions)} "
                              "scored tokens")
        row = [None] * (len(ids) - 1)
        for k, i in enumerate(positions):
            row[i - 1] = values[k]
        out.append(row)
    return out


def flatten(served: list[list], *others: list[list[float]]) -> tuple[list[float], ...]:
    """The positions where the server gave a value, from each list of per-probe rows."""
    cols = [list() for _ in range(1 + len(others))]
    for k, row in enumerate(served):
        for i, v in enumerate(row):
            if v is None:
                continue
            cols[0].append(v)
            for j, o in enumerate(others):
                cols[j + 1].append(o[k][i])
    return tuple(cols)
