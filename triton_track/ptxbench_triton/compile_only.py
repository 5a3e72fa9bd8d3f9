"""Compiles a Triton candidate's kernels for sm_90a / sm_100a without a GPU: the entry is called once
with stand-in buffers on a driver that compiles every launch and records it (compile_driver.py).

    python -m ptxbench_triton.compile_only --candidate C.py --entry NAME --arch sm_90a|sm_100a
        (--arguments ARGS.json --shape SHAPE.json | --calls CALLS.json) --out DIR [--ptx]

ARGS.json: the entry's arguments in order, the stream left out (a stand-in handle is appended):
  [{"name": "A", "dtype": "bfloat16", "shape": ["M", "K"]}, ..., {"name": "M"}, ...]; a buffer's
  dimensions are names in the shape or integers; a scalar takes the shape's value of its name.
SHAPE.json: {"M": 4096, "N": 4096, "K": 4096}.

Writes DIR/manifest.json: {"ok", "triton_version", "arch", "kernels": [{"name", "cubin", "ptx" (with
--ptx), "num_warps", "num_stages", "num_ctas", "shared_bytes", "global_scratch_bytes", "launches",
"grids", "descriptor_box_bytes"}], "launches", "diagnostics": [{"file", "line", "column", "severity", "message"}], "error"},
and per compiled specialization that was launched one DIR/<kernel>_<i>.cubin (and .ptx).
The candidate is scanned first (static_scan, the same rules), whoever calls this tool: one the rules
refuse is never imported (exit 1, the findings as diagnostics).
Exit 0: compiled and launched at least one kernel. 1: the candidate's error (diagnostics say where;
"error" is one line). 2: a usage or tool error (bad arguments, no Triton, TRITON_CACHE_DIR unset).

TRITON_CACHE_DIR must be set: the judge gives every evaluation a fresh one, so Triton's compile
cache can never carry one candidate's kernels into another's verdict; this tool refuses to fall back
on Triton's shared default (~/.triton/cache).
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import re
import sys

from . import candidate_errors, compile_driver, descriptors, fake_buffers, launchers, static_scan

MODULE_NAME = "candidate"


class Manifest:
    def __init__(self, out_dir, arch, candidate):
        self.out_dir = out_dir
        self.file = os.path.basename(candidate)
        self.data = {"ok": False, "triton_version": "", "arch": arch, "kernels": [], "launches": 0,
                     "diagnostics": [], "error": ""}
        self.entry_line = 0  # where the entry is defined, for "launched no kernel"

    def write(self, code):
        with open(os.path.join(self.out_dir, "manifest.json"), "w") as f:
            json.dump(self.data, f, indent=1)
        return code

    def tool_error(self, message):
        self.data["error"] = message
        return self.write(2)

    def candidate_error(self, message, line=0, column=0):
        self.data["error"] = message.splitlines()[0] if message else "error"
        self.data["diagnostics"].append({"file": self.file, "line": line, "column": column, "severity": "error",
                                         "message": message})
        return self.write(1)


def load_candidate(path):
    """The candidate as a fresh module named `candidate`, not registered in sys.modules: its namespace
    holds only what it defines and imports, nothing of this tool."""
    loader = importlib.machinery.SourceFileLoader(MODULE_NAME, path)  # any file name (the judge's are hashes)
    spec = importlib.util.spec_from_loader(MODULE_NAME, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def write_kernels(recorder, out_dir, with_ptx):
    kernels = []
    for i, k in enumerate(recorder.kernels.values()):
        stem = f"{re.sub(r'[^A-Za-z0-9_]', '_', k.name)[:80]}_{i}"
        with open(os.path.join(out_dir, stem + ".cubin"), "wb") as f:
            f.write(k.cubin)
        md = k.metadata
        entry = {"name": k.name, "cubin": stem + ".cubin", "num_warps": md.num_warps, "num_stages": md.num_stages,
                 "num_ctas": getattr(md, "num_ctas", 1), "shared_bytes": md.shared,
                 "global_scratch_bytes": getattr(md, "global_scratch_size", 0) or 0,
                 "launches": k.launches, "grids": k.grids,
                 "descriptor_box_bytes": descriptors.box_bytes(k.ttgir)}
        if with_ptx and k.ptx:
            with open(os.path.join(out_dir, stem + ".ptx"), "w") as f:
                f.write(k.ptx)
            entry["ptx"] = stem + ".ptx"
        kernels.append(entry)
    return kernels


class ToolError(Exception):
    """A failure that is not the candidate's: exit 2."""


def prepare(a):
    """The tool's own preconditions: (triton's CompilationError class, the entry's arguments, the
    launch recorder, the candidate's source). Raises ToolError; nothing of the candidate runs."""
    if not os.environ.get("TRITON_CACHE_DIR"):
        raise ToolError("TRITON_CACHE_DIR is not set: every evaluation needs a fresh cache of its own")
    try:
        with open(a.candidate, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ToolError(f"cannot read the candidate {a.candidate}: {e.strerror}") from None
    try:
        import triton
        from triton.compiler.errors import CompilationError
        launchers.pin_cache_keys()  # the keys the worker's lookup computes (launchers.py)
    except Exception as e:  # noqa: BLE001: any import failure means the environment is broken
        raise ToolError(f"triton is not importable: {type(e).__name__}: {e}") from None
    try:
        if a.calls:  # one call of the entry per shape (the judge gives every benchmark shape)
            with open(a.calls) as f:
                calls = json.load(f)
            if not isinstance(calls, list) or not calls or not all(isinstance(c, dict) for c in calls):
                raise ValueError("--calls must hold a non-empty list of {\"arguments\", \"scalars\"}")
            values = [fake_buffers.build_arguments(c.get("arguments"), c.get("scalars")) for c in calls]
        else:
            with open(a.arguments) as f:
                arguments = json.load(f)
            with open(a.shape) as f:
                scalars = json.load(f)
            values = [fake_buffers.build_arguments(arguments, scalars)]
    except (OSError, ValueError, TypeError, AttributeError) as e:
        raise ToolError(f"bad --calls or --arguments/--shape: {e}") from None
    try:
        recorder = compile_driver.install(a.arch)
    except Exception as e:  # noqa: BLE001
        raise ToolError(f"the compile-only driver could not be installed: {type(e).__name__}: {e}") from None
    return triton.__version__, CompilationError, values, recorder, raw


def refused_by_scan(manifest, raw, a):
    """The scan again, whoever calls this tool: a candidate the rules refuse (or that is not Python)
    never runs here. Fills the manifest's diagnostics; True when refused."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        manifest.candidate_error(f"the source is not UTF-8: {e.reason} at byte {e.start}")
        return True
    _, scanned = static_scan.scan(text, a.candidate, a.entry)
    refused = scanned.get("diagnostics") or [
        {"file": manifest.file, "line": f["line"], "column": f["column"], "severity": "error",
         "message": f"{f['message']} [{f['rule']}]"}
        for f in scanned["findings"] if f["rule"] != "entry"]  # the entry is checked by calling it
    if refused:
        manifest.data["diagnostics"] = refused
        manifest.data["error"] = refused[0]["message"].splitlines()[0]
    return bool(refused)


def call_entry(manifest, a, compilation_error_class, values, text):
    """Imports the candidate and calls its entry once; the candidate's error -> exit code 1 (written),
    else None. Everything the candidate's code raises is its own, SystemExit included."""
    try:
        entry = vars(load_candidate(a.candidate)).get(a.entry)
        if not callable(entry):
            return manifest.candidate_error(f"the candidate defines no function {a.entry}", 1, 1)
        for call in values:
            entry(*call)
    except compilation_error_class as e:
        message, line, col = candidate_errors.compilation_error(e, text)
        if not line:
            line, col = candidate_errors.deepest_candidate_frame(e.__traceback__, a.candidate)
        return manifest.candidate_error(message, line, col)
    except BaseException as e:  # noqa: BLE001
        if candidate_errors.raised_by_tool(e.__traceback__, os.path.dirname(os.path.abspath(__file__))):
            raise ToolError(f"the compile-only tool failed: {type(e).__name__}: {e}") from e
        line, col = candidate_errors.deepest_candidate_frame(e.__traceback__, a.candidate)
        detail = candidate_errors.short(e)
        return manifest.candidate_error(f"{type(e).__name__}{': ' + detail if detail else ''}", line, col)
    manifest.entry_line = getattr(getattr(entry, "__code__", None), "co_firstlineno", 0)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ptxbench_triton.compile_only", description="Compile a Triton candidate without a GPU.")
    ap.add_argument("--candidate", required=True)
    ap.add_argument("--entry", required=True)
    ap.add_argument("--arch", required=True, choices=sorted(compile_driver.ARCHS))
    ap.add_argument("--arguments", help="ARGS.json (one call; or --calls)")
    ap.add_argument("--shape", help="SHAPE.json (with --arguments)")
    ap.add_argument("--calls", help='CALLS.json: [{"arguments": ARGS, "scalars": SHAPE}, ...], one entry call each')
    ap.add_argument("--out", required=True, help="the folder for manifest.json and the cubins")
    ap.add_argument("--ptx", action="store_true", help="write each kernel's PTX too")
    ap.add_argument("--launchers", metavar="LIBCUDA_DIR",
                    help="also build the launchers the GPU needs into the cache (launchers.py), linking against "
                         "LIBCUDA_DIR/libcuda.so.1; the manifest gets ptxas_version and capability")
    a = ap.parse_args(argv)
    if bool(a.calls) == bool(a.arguments or a.shape) or (a.arguments and not a.shape) or (a.shape and not a.arguments):
        ap.error("give --calls, or --arguments with --shape")
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        print(f"compile_only: cannot create {a.out}: {e.strerror}", file=sys.stderr)
        return 2
    manifest = Manifest(a.out, a.arch, a.candidate)
    try:
        manifest.data["triton_version"], compilation_error_class, values, recorder, raw = prepare(a)
        if refused_by_scan(manifest, raw, a):
            return manifest.write(1)
        text = raw.decode("utf-8")
        failed = call_entry(manifest, a, compilation_error_class, values, text)
    except ToolError as e:
        return manifest.tool_error(str(e))
    if failed is not None:
        return failed
    manifest.data["launches"] = recorder.launches
    if not recorder.launches:
        return manifest.candidate_error(f"the entry launched no kernel: {a.entry} must launch its @triton.jit kernels "
                                        "with kernel[grid](...)", manifest.entry_line, 1 if manifest.entry_line else 0)
    manifest.data["kernels"] = write_kernels(recorder, a.out, a.ptx)
    if a.launchers:
        try:
            capability = compile_driver.ARCHS[a.arch]["capability"]
            manifest.data["ptxas_version"] = launchers.ptxas_version(capability)
            manifest.data["capability"] = [capability // 10, capability % 10]
            built, error = launchers.build_all([(k.src, k.metadata) for k in recorder.kernels.values()], a.launchers)
        except Exception as e:  # noqa: BLE001: Triton's or the C compiler's failure, not the candidate's
            built, error = 0, f"{type(e).__name__}: {e}"
        if error:
            return manifest.tool_error(f"building the launchers failed: {error}")
        manifest.data["launchers"] = built
    manifest.data["ok"] = True
    return manifest.write(0)


if __name__ == "__main__":
    sys.exit(main())
