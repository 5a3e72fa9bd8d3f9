"""serve-hf: an OpenAI-compatible chat server over transformers + PEFT, for a GPU host that has neither
llama.cpp's server nor vLLM (the lent H200 has torch, transformers and peft only): RUN's base model with
RUN/adapter merged into it (--unmerged keeps PEFT's wrapper; the base alone with --no-adapter), one generation at a time, the model's own chat
template. POST /v1/chat/completions ({messages, max_tokens, temperature}), GET /v1/models.
`ptxbench run --model llamacpp:ALIAS --model-arg base_url=http://HOST:PORT/v1` drives it like any server.
Where llama.cpp is installed, `serve` is the path that serves what users of open models run; this one
exists so a GPU host judges the tuned model's kernels for real."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from . import config as config_mod
from . import model as model_mod
from .errors import InputError


def load(run_dir: Path, device: str, no_adapter: bool, unmerged: bool = False):
    manifest = json.loads((run_dir / "run.json").read_text())
    cfg = config_mod.from_dict(manifest["config"], str(run_dir / "run.json"))
    gguf = manifest.get("base_gguf") or manifest.get("serve_gguf")
    tok = model_mod.load_tokenizer(cfg, gguf)
    base = model_mod.load_model(cfg, gguf, device)
    if no_adapter:
        return base.eval(), tok, manifest["config"]["model"]["alias"] + "-base"
    from peft import PeftModel

    adapter = run_dir / "adapter"
    if not adapter.is_dir():
        raise InputError(f"no {adapter}: train first")
    tuned = PeftModel.from_pretrained(base, str(adapter))
    # Merged, as users serve a LoRA with llama.cpp or vLLM: each token then runs the base's layers alone
    # (the adapter's extra matmuls per layer made replies several times slower on the H100).
    if not unmerged:
        tuned = tuned.merge_and_unload()
    return tuned.eval(), tok, manifest["config"]["model"]["alias"]


def make_handler(model, tok, alias: str, device: str, lock: threading.Lock):
    import torch

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *a):  # one line per request on stderr, as servers do
            print("[serve-hf] " + fmt % a, flush=True)

        def reply(self, code: int, body: dict):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.rstrip("/").endswith("/models"):
                return self.reply(200, {"object": "list", "data": [{"id": alias, "object": "model"}]})
            self.reply(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            if not self.path.rstrip("/").endswith("/chat/completions"):
                return self.reply(404, {"error": {"message": f"no route {self.path}"}})
            try:
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                messages = req["messages"]
            except (ValueError, KeyError) as e:
                return self.reply(400, {"error": {"message": f"bad request: {e}"}})
            max_tokens = int(req.get("max_tokens") or req.get("max_completion_tokens") or 512)
            temperature = float(req.get("temperature", 0) or 0)
            ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
            ids = {k: v.to(device) for k, v in ids.items()}
            with lock, torch.inference_mode():
                started = time.monotonic()
                out = model.generate(**ids, max_new_tokens=max_tokens, do_sample=temperature > 0,
                                     temperature=temperature if temperature > 0 else None, pad_token_id=tok.pad_token_id)
                seconds = time.monotonic() - started
            new = out[0, ids["input_ids"].shape[1]:]
            # One line per reply, so a slow server shows where its time goes.
            print(f"[serve-hf] prompt {ids['input_ids'].shape[1]} tokens, reply {len(new)} tokens in {seconds:.2f} s "
                  f"({len(new) / max(seconds, 1e-9):.1f} tokens/s) on {device}", flush=True)
            text = tok.decode(new, skip_special_tokens=True)
            finish = "length" if len(new) >= max_tokens and (tok.eos_token_id not in new.tolist()) else "stop"
            self.reply(200, {"id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion", "model": alias,
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": finish}],
                             "usage": {"prompt_tokens": int(ids["input_ids"].shape[1]), "completion_tokens": int(len(new)),
                                       "total_tokens": int(ids["input_ids"].shape[1] + len(new))}})

    return Handler


def run(args) -> int:
    device = model_mod.pick_device(args.device)
    model, tok, alias = load(Path(args.run), device, args.no_adapter, getattr(args, "unmerged", False))
    server = ThreadingHTTPServer((args.host, args.port), make_handler(model, tok, alias, device, threading.Lock()))
    print(f"serving {alias} (transformers + PEFT on {device}) at http://{args.host}:{server.server_address[1]}/v1",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
