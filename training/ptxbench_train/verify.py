"""`verify`: the adapter saved by `train`, reloaded by PEFT onto a freshly loaded base, must give the
log-probs it gave in memory (the round trip); with --base-url, the served model's log-probs must match
PEFT's and be clearly the tuned model's, not the base's (an adapter the server did not apply)."""
from __future__ import annotations

import json
import time
from pathlib import Path

from . import checks, config as config_mod, model as model_mod, probes as probes_mod


def run(args) -> dict:
    import torch
    from peft import PeftModel

    from .errors import InputError

    run_dir = Path(args.run)
    manifest = json.loads((run_dir / "run.json").read_text())
    cfg = config_mod.from_dict(manifest["config"], str(run_dir / "run.json"))
    saved = json.loads((run_dir / "probes.json").read_text())
    probes, bos_id = saved["probes"], saved["bos_id"]
    device = model_mod.pick_device(args.device)
    if args.no_reload and not args.base_url:
        raise InputError("--no-reload compares a server's log-probs: give --base-url")
    if args.threads:
        torch.set_num_threads(args.threads)
    result: dict = {}

    if args.no_reload:
        # The log-probs `train` recorded with the adapter in memory: no model is loaded (a quick check of a
        # running server); the round trip is not checked.
        reloaded, base_lp = saved["tuned"], saved["base"]
    else:
        t0 = time.monotonic()
        base = model_mod.load_model(cfg, manifest["base_gguf"], device)
        model = PeftModel.from_pretrained(base, str(run_dir / "adapter"))
        reloaded = probes_mod.logprobs(model, probes, device)
        with model.disable_adapter():
            base_lp = probes_mod.logprobs(model, probes, device)
        flat = [v for row in reloaded for v in row]
        rt = checks.compare(flat, [v for row in saved["tuned"] for v in row])
        result["roundtrip"] = {**rt.to_dict(), "tolerance": cfg.check.roundtrip_tolerance,
                               "seconds": round(time.monotonic() - t0, 2)}
        print(f"[verify] round trip: max |diff| {rt.max_abs:.2e} over {rt.tokens} tokens (adapter in memory vs "
              f"saved and reloaded)", flush=True)
        if rt.max_abs > cfg.check.roundtrip_tolerance:
            raise checks.CheckFailed(f"the reloaded adapter's log-probs differ from the trained one's: max |diff| "
                                     f"{rt.max_abs:.4g} > {cfg.check.roundtrip_tolerance} (the adapter did not "
                                     "round-trip)")

    if args.base_url:
        t1 = time.monotonic()
        served = probes_mod.served_logprobs(args.base_url, args.served_model or cfg.model.alias, probes, bos_id)
        s, tuned, b = probes_mod.flatten(served, reloaded, base_lp)
        result["served"] = checks.compare_served(
            s, tuned, b, cfg.check.served_mean_tolerance, cfg.check.served_max_tolerance, cfg.check.adapter_margin)
        result["served"]["seconds"] = round(time.monotonic() - t1, 2)
        sv = result["served"]
        print(f"[verify] served vs PEFT: mean |diff| {sv['served_vs_peft']['mean_abs']:.4f}, max "
              f"{sv['served_vs_peft']['max_abs']:.4f} over {sv['served_vs_peft']['tokens']} tokens; served vs base "
              f"mean {sv['served_vs_base']['mean_abs']:.4f}; the adapter moves PEFT's log-probs by "
              f"{sv['adapter_effect']['mean_abs']:.4f} on average", flush=True)
    (run_dir / "verify.json").write_text(json.dumps(result, indent=2))
    return result
