"""Scans a Triton candidate's source without running any of it (the ast module only).

    python -m ptxbench_triton.static_scan CANDIDATE.py --entry NAME [--parameters A,B,...,stream]

Prints one JSON object on stdout:
  read as Python: {"ok": true, "findings": [{"rule", "line", "column", "message"}], "jit_kernels": [names],
                   "entry_found": bool, "entry_parameters": [names]}; exit 0 (findings or not);
  not Python (a syntax error, not UTF-8, too deeply nested): {"ok": false, "diagnostics": [{"file", "line", "column",
                   "severity": "error", "message"}]}; exit 1.
Exit 2: a usage error (no such file, bad options). Lines and columns count from 1. The rules and
their allowlists are in rules.py; source_rules.py applies them.
"""
import argparse
import ast
import io
import json
import os
import sys
import tokenize

from . import source_rules


def scan(text, filename, entry="", parameters=()):
    """(exit code, result object) for a candidate's source text."""
    base = os.path.basename(filename)

    def not_python(line, column, message):
        return 1, {"ok": False, "diagnostics": [{"file": base, "line": line, "column": column, "severity": "error",
                                                  "message": message}]}
    try:
        tree = ast.parse(text, filename=base)
        scanned, jit_kernels = source_rules.scan_module(tree)
        scanned += encoding_findings(text)
    except SyntaxError as e:
        return not_python(e.lineno or 0, e.offset or 0, f"SyntaxError: {e.msg}")
    except ValueError as e:  # NUL bytes in the source
        return not_python(0, 0, f"not Python source: {e}")
    except (RecursionError, MemoryError):  # Python's parser (or the scan) gives up on deep nesting
        return not_python(0, 0, "the source nests too deeply to be read (expressions or blocks thousands deep)")
    found, entry_parameters, entry_problems = (
        source_rules.entry_findings(tree, entry, list(parameters)) if entry else (False, [], []))
    findings = sorted(scanned + entry_problems, key=lambda f: (f["line"], f["column"], f["rule"]))
    return 0, {"ok": True, "findings": findings, "jit_kernels": jit_kernels, "entry_found": found,
               "entry_parameters": entry_parameters}


def encoding_findings(text):
    """A coding declaration other than UTF-8's: Python's importer decodes the file by it, so it would
    read other code than the scan (`# coding: utf-7` turns `+AAo-` inside a comment into a newline)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(text.encode("utf-8")).readline)
    except SyntaxError as e:
        encoding = str(e)
    if encoding in ("utf-8", "utf-8-sig"):
        return []
    line = next((i for i, l in enumerate(text.splitlines()[:2], 1) if "coding" in l), 1)
    return [{"rule": "dynamic_code", "line": line, "column": 1,
             "message": f"the source declares another encoding than UTF-8 ({encoding}): Python would read other code "
                        "than the scan does; a candidate is UTF-8, with no coding declaration or utf-8's"}]


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
