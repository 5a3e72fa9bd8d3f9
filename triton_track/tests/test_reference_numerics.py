"""The references compute the right thing: each run on Triton's CPU interpreter
(interpret_reference.py) on shapes that exercise their edges, against an fp64 reference, within the
problem's tolerance (problems/<name>/problem.toml): for every output it names, the relative L2 error
under max_rel_l2 and every element within atol * rms(ref) + rtol * |ref|. Skipped, saying why, where
numpy (below 2.3) is missing: it is not one of the track's requirements."""
import concurrent.futures
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

# problem, reference, dims (the problem's dims, in problem.toml's order). The shapes are the small
# end of each problem's constraints, with what the kernels must get right at the edges: tiles cut by
# the shape (a 256-wide TMA tile over N = 384), persistent programs that take several tiles, S an
# odd multiple of 128, both head sizes, group sizes that are not powers of two, one kv head for all.
CASES = [
    ("gemm", "plain", "256,384,192"),
    ("gemm", "tuned", "256,384,192"),  # N = 1.5 tiles of 256: the store is clipped
    ("gemm", "tuned", "4096,2304,64"),  # 288 tiles over 132 programs, grouped order
    ("gemm_bias_gelu", "plain", "256,384,192"),
    ("gemm_bias_gelu", "tuned", "256,384,192"),  # the bias load masked, the store clipped
    ("gemm_bias_gelu", "tuned", "4096,2304,64"),
    ("gemm_fp8", "plain", "256,384,256"),
    ("gemm_fp8", "tuned", "256,384,384"),
    ("gemm_fp8", "tuned", "2304,2048,128"),  # 288 tiles of 128x128 over 132 programs
    ("mha_fwd", "plain", "1,2,256,64"),
    ("mha_fwd", "plain", "2,1,384,128"),
    ("mha_fwd", "tuned", "1,2,256,64"),
    ("mha_fwd", "tuned", "2,1,384,128"),
    ("mha_fwd_causal", "plain", "1,2,384,64"),
    ("mha_fwd_causal", "plain", "2,1,256,128"),
    ("mha_fwd_causal", "tuned", "1,2,384,64"),
    ("mha_fwd_causal", "tuned", "2,1,256,128"),
    ("gqa_fwd", "plain", "1,2,3,384,64"),  # B, Hkv, G, S, D
    ("gqa_fwd", "plain", "2,1,2,256,128"),
    ("gqa_fwd", "tuned", "1,2,3,384,64"),
    ("gqa_fwd", "tuned", "2,1,2,256,128"),
    ("mha_bwd", "plain", "1,2,384,64"),
    ("mha_bwd", "plain", "2,1,256,128"),
    ("mha_bwd", "tuned", "1,2,384,64"),
    ("mha_bwd", "tuned", "2,1,256,128"),
    ("mha_bwd_causal", "plain", "1,2,384,64"),
    ("mha_bwd_causal", "plain", "2,1,256,128"),
    ("mha_bwd_causal", "tuned", "1,2,384,64"),
    ("mha_bwd_causal", "tuned", "2,1,256,128"),
    ("gqa_bwd", "plain", "1,2,3,384,64"),
    ("gqa_bwd", "plain", "2,1,2,256,128"),
    ("gqa_bwd", "tuned", "1,2,3,384,64"),
    ("gqa_bwd", "tuned", "2,1,2,256,128"),
]
# Controls: errors that must be OUT of the tolerance, so the inputs can tell (the exact erf GELU
# against the tanh form the problem states, on the workload's inputs).
MUST_FAIL = {"gemm_bias_gelu": ["C_erf_gelu"]}


def interpret(problem, reference, dims):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    env["OMP_NUM_THREADS"] = "1"  # the cases run side by side: one BLAS thread each
    p = subprocess.run([sys.executable, "-B", "-m", "tests.interpret_reference", problem, reference, dims],
                       cwd=support.TRITON_ROOT, env=env, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


@unittest.skipIf(WHY_NOT, WHY_NOT)
class ReferenceNumerics(unittest.TestCase):
    def test_every_reference_has_cases(self):
        covered = {(p, r) for p, r, _ in CASES}
        for path in support.all_references():
            problem = os.path.basename(os.path.dirname(os.path.dirname(path)))
            self.assertIn((problem, os.path.splitext(os.path.basename(path))[0]), covered)

    def test_references_within_tolerance(self):
        # One interpreter process per case, as many at a time as there are cores (~1-5 s each).
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            runs = list(pool.map(lambda case: interpret(*case), CASES))
        for (problem, reference, dims), (code, out, err) in zip(CASES, runs):
            with self.subTest(problem=problem, reference=reference, dims=dims):
                self.assertEqual(code, 0, err[-3000:])
                result = json.loads(out)
                errors, tolerance = result["errors"], support.PROBLEMS[problem]["tolerance"]
                self.assertEqual(sorted(result["outputs"]), sorted(tolerance))  # every output is checked
                for name, limits in tolerance.items():
                    self.assertLess(errors[f"{name}_rel_l2"], limits["max_rel_l2"], errors)
                    self.assertLessEqual(errors[f"{name}_worst"], 1.0, errors)
                for name in MUST_FAIL.get(problem, []):
                    self.assertGreater(errors[f"{name}_worst"], 1.0, errors)


if __name__ == "__main__":
    unittest.main()
