"""python -m ptxbench_train {train,to-gguf,serve,serve-hf,verify} ... (see training/README.md)."""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

from .errors import CheckFailed, InputError


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ptxbench_train", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    t = sub.add_parser("train", help="LoRA SFT on fixit export output; writes the adapter and a training log")
    t.add_argument("--data", required=True, help="JSONL from `ptxbench fixit export --format trl`")
    t.add_argument("--config", required=True, help="a TOML config (training/configs/*.toml)")
    t.add_argument("--out", required=True, help="the run folder to write")
    t.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    t.add_argument("--max-steps", type=int, default=None, help="override [train] max_steps")
    t.add_argument("--model-gguf", default=None, help="override [model]: a GGUF base")
    t.add_argument("--model-hf", default=None, help="override [model]: a transformers model folder")
    t.add_argument("--bf16", action="store_true",
                   help="bf16 weights and autocast (for a GPU; the round-trip tolerance becomes 0.05 at least)")
    t.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: torch's)")
    t.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")

    g = sub.add_parser("to-gguf", help="convert RUN/adapter to RUN/adapter.gguf (llama.cpp's converter)")
    g.add_argument("--run", required=True)
    g.add_argument("--outtype", default="f32", choices=["f32", "f16", "bf16", "q8_0"])

    s = sub.add_parser("serve", help="serve RUN's base GGUF with RUN/adapter.gguf (llama.cpp, OpenAI-compatible)")
    s.add_argument("--run", required=True)
    s.add_argument("--port", type=int, default=8080)
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--no-adapter", action="store_true", help="serve the base alone (the comparison run)")
    s.add_argument("--threads", type=int, default=0)

    h = sub.add_parser("serve-hf", help="serve RUN's base with RUN/adapter through transformers + PEFT (a GPU host "
                                        "without llama.cpp or vLLM), OpenAI-compatible")
    h.add_argument("--run", required=True)
    h.add_argument("--port", type=int, default=8080)
    h.add_argument("--host", default="127.0.0.1")
    h.add_argument("--device", default="auto")
    h.add_argument("--no-adapter", action="store_true", help="serve the base alone (the comparison run)")
    h.add_argument("--unmerged", action="store_true", help="keep the adapter beside the base (PEFT's wrapper) "
                                                           "instead of merging it in")
    h.add_argument("--max-batch", type=int, default=8, help="requests generated together at most (1: one at a time)")

    v = sub.add_parser("verify", help="adapter round trip; with --base-url, the served log-probs against PEFT's")
    v.add_argument("--run", required=True)
    v.add_argument("--base-url", default=None, help="the server's OpenAI base URL, e.g. http://127.0.0.1:8080/v1")
    v.add_argument("--served-model", default=None, help="the served model name (default: [model] alias)")
    v.add_argument("--no-reload", action="store_true",
                   help="compare the server with the log-probs train recorded (no model load, no round trip)")
    v.add_argument("--device", default="cpu")
    v.add_argument("--threads", type=int, default=0)

    args = ap.parse_args(argv)
    try:
        if args.cmd == "train":
            from . import train
            train.run(args)
        elif args.cmd == "to-gguf":
            from . import serving
            serving.to_gguf(Path(args.run), args.outtype)
        elif args.cmd == "serve":
            return serve(args)
        elif args.cmd == "serve-hf":
            from . import serve_hf
            return serve_hf.run(args)
        elif args.cmd == "verify":
            from . import verify
            verify.run(args)
    except (InputError, CheckFailed) as e:
        kind = "error" if isinstance(e, InputError) else "check failed"
        print(f"ptxbench_train {args.cmd}: {kind}: {e}", file=sys.stderr)
        return e.exit_code
    return 0


def serve(args) -> int:
    from . import serving

    run_dir = Path(args.run)
    manifest = json.loads((run_dir / "run.json").read_text())
    lora = None if args.no_adapter else str(run_dir / "adapter.gguf")
    if lora and not Path(lora).is_file():
        raise InputError(f"no {lora}: run `to-gguf --run {run_dir}` first")
    alias = manifest["config"]["model"]["alias"] + ("-base" if args.no_adapter else "")
    server = serving.LlamaServer(manifest["serve_gguf"], lora, alias, manifest["config"]["check"]["n_ctx"],
                                 port=args.port, host=args.host, threads=args.threads, start_timeout=300)
    server.start()
    print(f"serving {alias} at {server.base_url} (log: {server.log_path}); stop with Ctrl-C\n"
          f"  build/release/bin/ptxbench run --model llamacpp:{alias} --model-arg base_url={server.base_url} ...",
          flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    try:
        while not stop and server.proc and server.proc.poll() is None:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    code = server.proc.poll() if server.proc else 0
    server.stop()
    return 0 if code in (None, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
