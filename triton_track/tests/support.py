"""Shared by the tests: paths, the tools run as the judge runs them (a child process, a fresh
TRITON_CACHE_DIR each time), and the markers the candidates under tests/candidates carry."""
import json
import os
import subprocess
import sys
import tempfile

TRITON_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(TRITON_ROOT, "tests", "fixtures")
CANDIDATES = os.path.join(TRITON_ROOT, "tests", "candidates")
# The Triton references live with their problems: problems/<name>/triton/<reference>.py.
PROBLEMS_ROOT = os.path.join(os.path.dirname(TRITON_ROOT), "problems")


def reference(problem, name):
    return os.path.join(PROBLEMS_ROOT, problem, "triton", name + ".py")


def all_references():
    import glob
    return sorted(glob.glob(os.path.join(PROBLEMS_ROOT, "*", "triton", "*.py")))
ATTACKS = os.path.join(TRITON_ROOT, "attacks")



def _toml(path):
    import tomllib
    with open(path, "rb") as f:
        return tomllib.load(f)


def _problem(name):
    """A problem's entry (problem.toml), parameters (triton/abi.toml, then the stream), benchmark
    shapes and tolerances, read from its files as the judge reads them."""
    spec = _toml(os.path.join(PROBLEMS_ROOT, name, "problem.toml"))
    abi = _toml(os.path.join(PROBLEMS_ROOT, name, "triton", "abi.toml"))["arguments"]
    return {"entry": spec["entry"], "parameters": [a["name"] for a in abi] + ["stream"], "abi": abi,
            "benchmark": spec["shapes"]["benchmark"], "tolerance": spec.get("tolerance", {})}


# Each problem with a Triton interface (problems/<name>/triton/abi.toml): entry, parameters, abi,
# benchmark shapes, tolerance. gemm and mha_fwd have fixtures too (tests/fixtures/<problem>.*.json).
PROBLEMS = {os.path.basename(os.path.dirname(os.path.dirname(p))): _problem(os.path.basename(os.path.dirname(os.path.dirname(p))))
            for p in sorted(__import__("glob").glob(os.path.join(PROBLEMS_ROOT, "*", "triton", "abi.toml")))}


def evaluate(expr, shape):
    """An abi.toml dimension or value ("B", "Hkv*G", "4*B*H*S*(D+1)") for one shape: integers, names,
    + - * and parentheses, as src/problems/triton_abi.cpp evaluates them."""
    import ast

    def walk(n):
        if isinstance(n, ast.Expression):
            return walk(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return shape[n.id]
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = walk(n.left), walk(n.right)
            return a + b if isinstance(n.op, ast.Add) else a - b if isinstance(n.op, ast.Sub) else a * b
        raise ValueError(f"cannot evaluate {expr!r}")
    return walk(ast.parse(str(expr), mode="eval"))


def calls(problem, shapes=None):
    """compile_only's --calls for a problem: one entry call per shape (default: its benchmark
    shapes, what the judge passes), buffers' dimensions and scalars evaluated for each."""
    p = PROBLEMS[problem]
    out = []
    for shape in shapes or p["benchmark"]:
        arguments, scalars = [], {}
        for a in p["abi"]:
            if "dtype" in a:
                arguments.append({"name": a["name"], "dtype": a["dtype"], "shape": [evaluate(d, shape) for d in a["shape"]]})
            else:
                arguments.append({"name": a["name"]})
                scalars[a["name"]] = evaluate(a.get("value", a["name"]), shape)
        out.append({"arguments": arguments, "scalars": scalars})
    return out


def fixture(name):
    return os.path.join(FIXTURES, name)


def run_module(module, args, env_extra=None, drop_env=(), timeout=300):
    """Runs `python -m ptxbench_triton.<module> args` as the judge does; (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in drop_env and not k.startswith("TRITON_")}
    env.update(env_extra or {})
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    p = subprocess.run([sys.executable, "-B", "-m", f"ptxbench_triton.{module}"] + list(args), cwd=TRITON_ROOT,
                       env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def scan(path, problem="gemm", parameters=True):
    p = PROBLEMS[problem]
    args = [path, "--entry", p["entry"]]
    if parameters:
        args += ["--parameters", ",".join(p["parameters"])]
    code, out, err = run_module("static_scan", args)
    return code, json.loads(out) if out.strip() else None, err


class Compiled:
    """One compile_only run in its own temporary folder (the cache a fresh folder inside it)."""

    def __init__(self, candidate, problem="gemm", arch="sm_90a", shape=None, cache=True, extra=(), benchmark=False):
        """benchmark=True: --calls with every benchmark shape of the problem (what the judge passes)
        instead of the fixtures' one shape."""
        self._tmp = tempfile.TemporaryDirectory(prefix="ptxbench-triton-test-")
        self.out = os.path.join(self._tmp.name, "out")
        self.cache = os.path.join(self._tmp.name, "cache")
        env = {"TRITON_CACHE_DIR": self.cache} if cache else {}
        if benchmark:
            calls_file = os.path.join(self._tmp.name, "calls.json")
            with open(calls_file, "w") as f:
                json.dump(calls(problem), f)
            inputs = ["--calls", calls_file]
        else:
            inputs = ["--arguments", fixture(f"{problem}.arguments.json"), "--shape", shape or fixture(f"{problem}.shape.json")]
        args = ["--candidate", candidate, "--entry", PROBLEMS[problem]["entry"], "--arch", arch] + inputs + \
            ["--out", self.out] + list(extra)
        self.code, self.stdout, self.stderr = run_module("compile_only", args, env_extra=env,
                                                         drop_env=() if cache else ("TRITON_CACHE_DIR",))
        path = os.path.join(self.out, "manifest.json")
        self.manifest = None
        if os.path.exists(path):
            with open(path) as f:
                self.manifest = json.load(f)

    def path(self, name):
        return os.path.join(self.out, name)

    def close(self):
        self._tmp.cleanup()

    def describe(self):
        return f"exit {self.code}; manifest {json.dumps(self.manifest)[:2000]}; stderr {self.stderr[-2000:]}"


def marked_line(path, marker="ERROR-LINE"):
    """The line (from 1) of the candidate that carries `# ERROR-LINE`."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if marker in line:
                return number
    raise AssertionError(f"{path} has no {marker} marker")
