"""serve-hf: an OpenAI-compatible chat server over transformers + PEFT, for a GPU host that has neither
llama.cpp's server nor vLLM (the lent H200 has torch, transformers and peft only): RUN's base model with
RUN/adapter merged into it (--unmerged keeps PEFT's wrapper; the base alone with --no-adapter), concurrent
requests generated as one batch (--max-batch), the model's own chat template.
POST /v1/chat/completions ({messages, max_tokens, temperature}), GET /v1/models.
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


class BatchedGenerator:
    """One generation thread for the whole server. Requests that arrive while it is busy (the agent's lanes
    ask at once) are generated together, left-padded, up to `max_batch` at a time: a small model on a GPU
    is bound by its per-token launches, so a batch of four costs about what one reply does. Requests are
    batched only with others of the same temperature; each reply is cut at its own end-of-sequence token
    and its own max_tokens."""

    def __init__(self, model, tok, device: str, max_batch: int = 8, window_s: float = 0.05):
        import queue

        self.model, self.tok, self.device = model, tok, device
        self.max_batch, self.window_s = max(1, max_batch), window_s
        self.pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        self.eos = tok.eos_token_id
        self.pending: "queue.Queue" = queue.Queue()
        self.batch_sizes: list[int] = []
        threading.Thread(target=self._loop, name="serve-hf-generate", daemon=True).start()

    def generate(self, prompt: list[int], max_tokens: int, temperature: float) -> tuple[list[int], str]:
        """Blocks until the reply is ready: (new token ids, "stop" or "length")."""
        req = {"prompt": list(prompt), "max_tokens": max(1, int(max_tokens)), "temperature": float(temperature),
               "done": threading.Event()}
        self.pending.put(req)
        req["done"].wait()
        if "error" in req:
            raise req["error"]
        return req["tokens"], req["finish"]

    def _take_batch(self) -> list[dict]:
        import queue

        batch, held = [self.pending.get()], []
        deadline = time.monotonic() + self.window_s
        while len(batch) < self.max_batch:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                r = self.pending.get(timeout=left)
            except queue.Empty:
                break
            (batch if r["temperature"] == batch[0]["temperature"] else held).append(r)
        for r in held:  # another temperature: the next batch
            self.pending.put(r)
        return batch

    def _loop(self) -> None:
        while True:
            batch = self._take_batch()
            try:
                self._run(batch)
            except Exception as e:  # every waiting request gets the error, the server goes on
                for r in batch:
                    r["error"] = e
            for r in batch:
                r["done"].set()

    def _run(self, batch: list[dict]) -> None:
        import torch

        width = max(len(r["prompt"]) for r in batch)
        ids = torch.tensor([[self.pad] * (width - len(r["prompt"])) + r["prompt"] for r in batch], device=self.device)
        mask = torch.tensor([[0] * (width - len(r["prompt"])) + [1] * len(r["prompt"]) for r in batch],
                            device=self.device)
        temperature = batch[0]["temperature"]
        longest = max(r["max_tokens"] for r in batch)
        started = time.monotonic()
        with torch.inference_mode():
            out = self.model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=longest,
                                      do_sample=temperature > 0, temperature=temperature if temperature > 0 else None,
                                      pad_token_id=self.pad)
        seconds = time.monotonic() - started
        replies = 0
        for row, r in zip(out[:, width:].tolist(), batch):
            row = row[: r["max_tokens"]]
            if self.eos in row:
                r["tokens"], r["finish"] = row[: row.index(self.eos)], "stop"
            else:
                r["tokens"], r["finish"] = row, "length"
            replies += len(r["tokens"])
        self.batch_sizes.append(len(batch))
        # One line per batch, so a slow server shows where its time goes.
        print(f"[serve-hf] batch of {len(batch)}: prompts {[len(r['prompt']) for r in batch]} tokens, replies "
              f"{[len(r['tokens']) for r in batch]} tokens in {seconds:.2f} s ({replies / max(seconds, 1e-9):.1f} "
              f"reply tokens/s) on {self.device}", flush=True)


def make_handler(generator: BatchedGenerator, tok, alias: str):
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
                max_tokens = int(req.get("max_tokens") or req.get("max_completion_tokens") or 512)
                temperature = float(req.get("temperature", 0) or 0)
                prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                 return_dict=True)["input_ids"]
            except (ValueError, KeyError, TypeError) as e:
                return self.reply(400, {"error": {"message": f"bad request: {e}"}})
            try:
                new, finish = generator.generate(prompt, max_tokens, temperature)
            except Exception as e:
                return self.reply(500, {"error": {"message": f"generation failed: {type(e).__name__}: {e}"}})
            text = tok.decode(new, skip_special_tokens=True)
            self.reply(200, {"id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion", "model": alias,
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": finish}],
                             "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(new),
                                       "total_tokens": len(prompt) + len(new)}})

    return Handler


def run(args) -> int:
    device = model_mod.pick_device(args.device)
    model, tok, alias = load(Path(args.run), device, args.no_adapter, getattr(args, "unmerged", False))
    generator = BatchedGenerator(model, tok, device, max_batch=getattr(args, "max_batch", 8))
    server = ThreadingHTTPServer((args.host, args.port), make_handler(generator, tok, alias))
    print(f"serving {alias} (transformers + PEFT on {device}) at http://{args.host}:{server.server_address[1]}/v1",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
