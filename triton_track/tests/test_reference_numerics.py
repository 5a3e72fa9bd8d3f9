"""The references compute the right thing: each run on Triton's CPU interpreter
(interpret_reference.py) on shapes that exercise their edges, within the problem's tolerance
(problems/<name>/problem.toml). Skipped, saying why, where numpy (below 2.3) is missing: it is not
one of the track's requirements."""
import json
import os
import subprocess
import sys
import unittest

from tests import support


def numpy_usable():
    probe = subprocess.run([sys.executable, "-c", "import numpy; v = tuple(map(int, numpy.__version__.split('.')[:2]));"
                            "raise SystemExit(0 if v < (2, 3) else 3)"], capture_output=True)
    return {0: "", 3: "numpy >= 2.3 breaks Triton 3.6's interpreter"}.get(probe.returncode, "numpy is not installed")


WHY_NOT = numpy_usable()

# problem, reference, dims, {error: limit}: the limits are problem.toml's max_rel_l2 (LSE: its atol).
CASES = [
    ("gemm", "plain", "256,384,192", {"C_rel_l2": 0.008}),
    ("gemm", "tuned", "256,384,192", {"C_rel_l2": 0.008}),  # N = 1.5 tiles of 256: the store is clipped
    ("gemm", "tuned", "4096,2304,64", {"C_rel_l2": 0.008}),  # 288 tiles over 132 programs, grouped order
    ("mha_fwd", "plain", "1,2,256,64", {"O_rel_l2": 0.01, "LSE_max_abs": 0.001}),
    ("mha_fwd", "plain", "2,1,384,128", {"O_rel_l2": 0.01, "LSE_max_abs": 0.001}),
    ("mha_fwd", "tuned", "1,2,256,64", {"O_rel_l2": 0.01, "LSE_max_abs": 0.001}),
    ("mha_fwd", "tuned", "2,1,384,128", {"O_rel_l2": 0.01, "LSE_max_abs": 0.001}),
]


@unittest.skipIf(WHY_NOT, WHY_NOT)
class ReferenceNumerics(unittest.TestCase):
    def test_references_within_tolerance(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
        for problem, reference, dims, limits in CASES:
            with self.subTest(problem=problem, reference=reference, dims=dims):
                p = subprocess.run([sys.executable, "-B", "-m", "tests.interpret_reference", problem, reference, dims],
                                   cwd=support.TRITON_ROOT, env=env, capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr[-3000:])
                errors = json.loads(p.stdout)["errors"]
                for name, limit in limits.items():
                    self.assertLess(errors[name], limit, errors)


if __name__ == "__main__":
    unittest.main()
