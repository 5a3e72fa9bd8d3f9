"""Reads `ptxbench fixit export --format trl` output: JSON Lines, one example a line, in TRL's
conversational prompt-completion form:

    {"prompt": [{"role": "system", ...}?, {"role": "user", ...}, ({"role": "assistant", ...}, {"role": "user", ...})*],
     "completion": [{"role": "assistant", "content": "<what was wrong>\\n\\n```cuda\\n...\\n```"}]}

Every line is checked against that contract and a violation names the file, the line and the field:
a record that TRL would accept but train on the wrong tokens (a completion that is not the assistant's,
a prompt ending on the assistant) is refused here rather than found later in a bad adapter.
"""
from __future__ import annotations

import json
from pathlib import Path

from .errors import InputError

ROLES = ("system", "user", "assistant")


def _check_message(m, where: str):
    if not isinstance(m, dict):
        raise InputError(f"{where}: a message must be an object, got {type(m).__name__}")
    extra = set(m) - {"role", "content"}
    if extra:
        raise InputError(f"{where}: unexpected keys {sorted(extra)} (a message has role and content)")
    if m.get("role") not in ROLES:
        raise InputError(f"{where}: role must be one of {', '.join(ROLES)}, got {m.get('role')!r}")
    if not isinstance(m.get("content"), str):
        raise InputError(f"{where}: content must be a string")


def check_example(ex, where: str) -> dict:
    if not isinstance(ex, dict):
        raise InputError(f"{where}: expected a JSON object")
    if set(ex) != {"prompt", "completion"}:
        raise InputError(f"{where}: expected exactly the keys prompt and completion, got {sorted(ex)} "
                         "(other fields belong in the export's sidecar file)")
    prompt, completion = ex["prompt"], ex["completion"]
    if not isinstance(prompt, list) or not prompt:
        raise InputError(f"{where}: prompt must be a non-empty list of messages")
    if not isinstance(completion, list) or len(completion) != 1:
        raise InputError(f"{where}: completion must be a list of exactly one assistant message")
    for i, m in enumerate(prompt):
        _check_message(m, f"{where}: prompt[{i}]")
        if m["role"] == "system" and i != 0:
            raise InputError(f"{where}: prompt[{i}]: a system message may only come first")
    body = prompt[1:] if prompt[0]["role"] == "system" else prompt
    if not body:
        raise InputError(f"{where}: prompt holds only a system message")
    for i, m in enumerate(body):
        want = "user" if i % 2 == 0 else "assistant"
        if m["role"] != want:
            raise InputError(f"{where}: prompt must alternate user/assistant after the system message and end "
                             f"on the user (message {i + len(prompt) - len(body)} is {m['role']}, expected {want})")
    if body[-1]["role"] != "user":
        raise InputError(f"{where}: the prompt must end on a user message (the problem or the harness's feedback)")
    _check_message(completion[0], f"{where}: completion[0]")
    if completion[0]["role"] != "assistant":
        raise InputError(f"{where}: the completion must be the assistant's message")
    if not completion[0]["content"].strip():
        raise InputError(f"{where}: the completion is empty")
    return ex


def load_examples(path: str | Path) -> list[dict]:
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"no data file {p}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{p}: not UTF-8 ({e})") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            ex = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{p}:{n}: not JSON: {e}") from None
        out.append(check_example(ex, f"{p}:{n}"))
    if not out:
        raise InputError(f"{p}: no examples")
    return out


def describe(ex: dict) -> str:
    """A short name for an example in messages: its kind and the start of its problem statement."""
    body = [m for m in ex["prompt"] if m["role"] != "system"]
    kind = "fixit" if len(body) > 1 else "kernelgen"
    first = " ".join(body[0]["content"].split())[:60]
    return f"{kind}: {first}"
