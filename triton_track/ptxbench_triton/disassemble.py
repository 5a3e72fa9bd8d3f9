"""Counts a cubin's SASS opcodes with the cuobjdump that Triton ships (for tests and a quick look;
the judge's own SASS checks are the C++ side's).

    python -m ptxbench_triton.disassemble CUBIN [--full]

Prints {"families": {"HGMMA": 16, ...}} (opcode up to its first dot); --full adds "opcodes" with
the whole mnemonics. Exit 2 when cuobjdump is missing or fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter

# "        /*0120*/   @!P0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ ;"
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)")


def cuobjdump_path():
    """Triton's bundled cuobjdump (the version that matches its ptxas), else one on PATH."""
    try:
        import triton
        bundled = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
        if os.access(bundled, os.X_OK):
            return bundled
    except ImportError:
        pass
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, "cuobjdump")
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def opcodes(cubin_path):
    """Counter of full mnemonics (e.g. "HGMMA.64x256x16.F32.BF16") in the cubin's SASS."""
    tool = cuobjdump_path()
    if tool is None:
        raise RuntimeError("no cuobjdump (neither Triton's nor one on PATH)")
    listing = subprocess.run([tool, "-sass", cubin_path], capture_output=True, text=True, check=True).stdout
    return Counter(m.group(1) for m in map(_INSTRUCTION.match, listing.splitlines()) if m)


def families(counts):
    """Mnemonics folded to their family: the part before the first dot."""
    out = Counter()
    for op, n in counts.items():
        out[op.split(".")[0]] += n
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ptxbench_triton.disassemble")
    ap.add_argument("cubin")
    ap.add_argument("--full", action="store_true", help="list whole mnemonics too")
    a = ap.parse_args(argv)
    try:
        counts = opcodes(a.cubin)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        print(f"disassemble: {e}", file=sys.stderr)
        return 2
    out = {"families": dict(families(counts).most_common())}
    if a.full:
        out["opcodes"] = dict(counts.most_common())
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
