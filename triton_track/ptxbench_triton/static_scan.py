"""Scans a Triton candidate's source without running any of it (the ast module only).

    python -m ptxbench_triton.static_scan CANDIDATE.py --entry NAME [--parameters A,B,...,stream]

Prints one JSON object on stdout:
  read as Python: {"ok": true, "findings": [{"rule", "line", "column", "message"}], "jit_kernels": [names],
                   "entry_found": bool, "entry_parameters": [names]}; exit 0 (findings or not);
  not Python (a syntax error, not UTF-8): {"ok": false, "diagnostics": [{"file", "line", "column",
                   "severity": "error", "message"}]}; exit 1.
Exit 2: a usage error (no such file, bad options). Lines and columns count from 1. The rules are in
rules.py; source_rules.py applies them.
"""
import argparse
import ast
import json
import os
import sys

from . import source_rules


def scan(text, filename, entry="", parameters=()):
    """(exit code, result object) for a candidate's source text."""
    base = os.path.basename(filename)
    try:
        tree = ast.parse(text, filename=base)
    except SyntaxError as e:
        return 1, {"ok": False, "diagnostics": [{"file": base, "line": e.lineno or 0, "column": e.offset or 0,
                                                  "severity": "error", "message": f"SyntaxError: {e.msg}"}]}
    except ValueError as e:  # NUL bytes in the source
        return 1, {"ok": False, "diagnostics": [{"file": base, "line": 0, "column": 0, "severity": "error",
                                                  "message": f"not Python source: {e}"}]}
    names = source_rules.Names()
    names.visit(tree)
    scanner = source_rules.Scanner(names)
    scanner.visit(tree)
    found, entry_parameters, entry_problems = (
        source_rules.entry_findings(tree, entry, list(parameters)) if entry else (False, [], []))
    findings = sorted(scanner.findings + entry_problems, key=lambda f: (f["line"], f["column"], f["rule"]))
    return 0, {"ok": True, "findings": findings, "jit_kernels": names.jit_kernels, "entry_found": found,
               "entry_parameters": entry_parameters}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ptxbench_triton.static_scan", description="Scan a Triton candidate (nothing runs).")
    ap.add_argument("candidate")
    ap.add_argument("--entry", default="", help="the entry function's name (e.g. ptxbench_gemm)")
    ap.add_argument("--parameters", default="", help="its parameter names in order, comma-separated, stream last")
    a = ap.parse_args(argv)
    base = os.path.basename(a.candidate)
    try:
        with open(a.candidate, "rb") as f:
            raw = f.read()
    except OSError as e:
        print(f"static_scan: cannot read {a.candidate}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print(json.dumps({"ok": False, "diagnostics": [{"file": base, "line": 0, "column": 0, "severity": "error",
                                                        "message": f"the source is not UTF-8: {e.reason} at byte {e.start}"}]}))
        return 1
    code, out = scan(text, a.candidate, a.entry, [p for p in a.parameters.split(",") if p])
    print(json.dumps(out))
    return code


if __name__ == "__main__":
    sys.exit(main())
