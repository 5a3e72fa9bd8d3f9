"""compile_only on the references, for sm_90a and sm_100a: the manifest, the cubins and PTX, and the
SASS families the target checks look for (disassembled with Triton's bundled cuobjdump).

What Triton 3.6 gives here (seen, and asserted):
  sm_90a  gemm/plain    HGMMA, LDGSTS (cp.async pointer loads), no UTMALDG
          gemm/tuned    HGMMA, UTMALDG, UTMASTG
          mha_fwd/plain HGMMA, LDGSTS, no UTMALDG
          mha_fwd/tuned HGMMA, UTMALDG, UTMASTG
  sm_100a every reference: UTCHMMA (tcgen05.mma) with LDTM/STTM (tcgen05.ld/st), never HGMMA
          (wgmma does not exist on sm_100a); tuned ones UTMALDG and UTMASTG too.
The other problems' references (EveryReference, on every benchmark shape, as the judge compiles
them) follow the same pattern; gemm_fp8's products are the fp8 families (QGMMA, UTCQMMA).
"""
import concurrent.futures
import os
import json
import subprocess
import sys
import tempfile
import unittest

from ptxbench_triton import disassemble
from tests import support

# (problem, reference, arch) -> (families that must appear, families that must not; STL: a register spill).
EXPECTED = {
    ("gemm", "plain", "sm_90a"): ({"HGMMA", "LDGSTS"}, {"UTMALDG", "UTCHMMA", "STL"}),
    ("gemm", "tuned", "sm_90a"): ({"HGMMA", "UTMALDG", "UTMASTG"}, {"UTCHMMA", "STL"}),
    ("mha_fwd", "plain", "sm_90a"): ({"HGMMA", "LDGSTS"}, {"UTMALDG", "UTCHMMA", "STL"}),
    ("mha_fwd", "tuned", "sm_90a"): ({"HGMMA", "UTMALDG", "UTMASTG"}, {"UTCHMMA", "STL"}),
    ("gemm", "plain", "sm_100a"): ({"UTCHMMA", "LDTM", "STTM"}, {"HGMMA", "UTMALDG"}),
    ("gemm", "tuned", "sm_100a"): ({"UTCHMMA", "LDTM", "STTM", "UTMALDG", "UTMASTG"}, {"HGMMA"}),
    ("mha_fwd", "plain", "sm_100a"): ({"UTCHMMA", "LDTM", "STTM"}, {"HGMMA", "UTMALDG"}),
    ("mha_fwd", "tuned", "sm_100a"): ({"UTCHMMA", "LDTM", "STTM", "UTMALDG", "UTMASTG"}, {"HGMMA"}),
}
PTX_MARKS = {"sm_90a": "wgmma.mma_async", "sm_100a": "tcgen05.mma"}
SMS = {"sm_90a": 132, "sm_100a": 148}


class References(unittest.TestCase):
    maxDiff = None

    def compile(self, problem, reference, arch, shape=None):
        c = support.Compiled(support.reference(problem, reference), problem, arch,
                             shape=shape, extra=["--ptx"])
        self.addCleanup(c.close)
        self.assertEqual(c.code, 0, c.describe())
        return c

    def check_manifest(self, c, arch):
        m = c.manifest
        self.assertTrue(m["ok"])
        self.assertEqual((m["arch"], m["triton_version"], m["error"], m["diagnostics"]), (arch, "3.6.0", "", []))
        self.assertEqual(len(m["kernels"]), 1)
        k = m["kernels"][0]
        self.assertEqual(k["launches"], 1)
        self.assertEqual(m["launches"], 1)
        self.assertTrue(0 < k["shared_bytes"] <= 232448)
        self.assertEqual(os.path.dirname(k["cubin"]), "")  # relative to DIR
        with open(c.path(k["cubin"]), "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")
        with open(c.path(k["ptx"])) as f:
            ptx = f.read()
        self.assertIn(f".target {arch}", ptx)
        self.assertIn(PTX_MARKS[arch], ptx)
        return k

    def test_references_on_both_archs(self):
        seen = {}
        for (problem, reference, arch), (must, must_not) in EXPECTED.items():
            with self.subTest(problem=problem, reference=reference, arch=arch):
                c = self.compile(problem, reference, arch)
                k = self.check_manifest(c, arch)
                families = set(disassemble.families(disassemble.opcodes(c.path(k["cubin"]))))
                seen[(problem, reference, arch)] = families
                self.assertLessEqual(must, families, f"missing {must - families}")
                self.assertEqual(must_not & families, set())

    def test_grids_follow_the_shape_and_arch(self):
        c = self.compile("gemm", "plain", "sm_90a")
        self.assertEqual(c.manifest["kernels"][0]["grids"], [[32, 32, 1]])  # 4096/128 each way
        c = self.compile("gemm", "tuned", "sm_100a")
        self.assertEqual(c.manifest["kernels"][0]["grids"], [[132, 1, 1]])  # persistent: min(132, tiles)
        self.assertGreater(c.manifest["kernels"][0]["global_scratch_bytes"], 0)  # device-side descriptors
        # A (128x64), B (256x64) and C (128x256) tiles, bf16: the boxes the judge sizes TMA copies by
        self.assertEqual(c.manifest["kernels"][0]["descriptor_box_bytes"], [16384, 32768, 65536])
        c = self.compile("mha_fwd", "plain", "sm_90a")
        self.assertEqual(c.manifest["kernels"][0]["descriptor_box_bytes"], [])  # pointer loads only
        self.assertEqual(c.manifest["kernels"][0]["grids"], [[32, 64, 1]])  # S/128, B*H

    def test_head_dim_64(self):
        for reference in ("plain", "tuned"):
            with self.subTest(reference=reference):
                c = self.compile("mha_fwd", reference, "sm_90a", shape=support.fixture("mha_fwd.d64.shape.json"))
                k = self.check_manifest(c, "sm_90a")
                self.assertIn("HGMMA", disassemble.families(disassemble.opcodes(c.path(k["cubin"]))))

    def test_calls_compile_every_shape_once_per_specialization(self):
        """--calls (what the judge passes): one entry call per shape; D = 128 and D = 64 are two
        specializations of the one kernel, two shapes of one specialization compile once."""
        with open(support.fixture("mha_fwd.arguments.json")) as f:
            arguments = json.load(f)
        shapes = []
        for name in ("mha_fwd.shape.json", "mha_fwd.d64.shape.json", "mha_fwd.shape.json"):
            with open(support.fixture(name)) as f:
                shapes.append(json.load(f))
        with tempfile.TemporaryDirectory() as tmp:
            calls = os.path.join(tmp, "calls.json")
            with open(calls, "w") as f:
                json.dump([{"arguments": arguments, "scalars": s} for s in shapes], f)
            out = os.path.join(tmp, "out")
            code, _, err = support.run_module(
                "compile_only", ["--candidate", support.reference("mha_fwd", "plain"), "--entry", "ptxbench_mha_fwd",
                                 "--arch", "sm_90a", "--calls", calls, "--out", out],
                env_extra={"TRITON_CACHE_DIR": os.path.join(tmp, "cache")})
            self.assertEqual(code, 0, err)
            with open(os.path.join(out, "manifest.json")) as f:
                manifest = json.load(f)
            self.assertEqual(manifest["launches"], 3)
            self.assertEqual(len(manifest["kernels"]), 2, manifest["kernels"])
            # Neither or both: --calls, or --arguments with --shape.
            code, _, err = support.run_module(
                "compile_only", ["--candidate", support.reference("gemm", "plain"), "--entry", "ptxbench_gemm", "--arch",
                                 "sm_90a", "--calls", calls, "--arguments", calls, "--out", out],
                env_extra={"TRITON_CACHE_DIR": os.path.join(tmp, "cache")})
            self.assertEqual(code, 2, err)
            bad = os.path.join(tmp, "bad.json")
            with open(bad, "w") as f:
                json.dump({"arguments": arguments}, f)
            code, _, _ = support.run_module(
                "compile_only", ["--candidate", support.reference("gemm", "plain"), "--entry", "ptxbench_gemm", "--arch",
                                 "sm_90a", "--calls", bad, "--out", out], env_extra={"TRITON_CACHE_DIR": os.path.join(tmp, "cache")})
            self.assertEqual(code, 2)

    def test_legit_features_compile(self):
        c = support.Compiled(os.path.join(support.CANDIDATES, "legit_features.py"))
        self.addCleanup(c.close)
        self.assertEqual(c.code, 0, c.describe())
        self.assertEqual(c.manifest["kernels"][0]["name"], "elementwise_kernel")
        self.assertNotIn("ptx", c.manifest["kernels"][0])  # no --ptx, no PTX

    def test_gpu_attacks_pass_the_compile(self):
        # What the scan leaves to the GPU judge compiles as ordinary Triton (attacks/expected.json: "gpu").
        with open(os.path.join(support.ATTACKS, "expected.json")) as f:
            gpu = sorted(name for name, rule in json.load(f).items() if rule == "gpu")
        self.assertIn("writes_input.py", gpu)
        for name in gpu:
            with self.subTest(attack=name):
                c = support.Compiled(os.path.join(support.ATTACKS, name))
                self.addCleanup(c.close)
                self.assertEqual(c.code, 0, c.describe())


# The references of the problems beyond gemm and mha_fwd, compiled as the judge does: one entry
# call per benchmark shape (--calls), each problem's launch count per call (the backward: Delta,
# dK/dV, dQ). What each (reference, arch) must and must not show, the product family per problem.
MORE = {"gemm_bias_gelu": 1, "gemm_fp8": 1, "mha_fwd_causal": 1, "gqa_fwd": 1, "mha_bwd": 3, "mha_bwd_causal": 3,
        "gqa_bwd": 3}


def expected_families(problem, reference, arch):
    fp8 = problem == "gemm_fp8"
    mma = {"sm_90a": "QGMMA" if fp8 else "HGMMA", "sm_100a": "UTCQMMA" if fp8 else "UTCHMMA"}[arch]
    other = {"HGMMA", "QGMMA"} if arch == "sm_100a" else {"UTCHMMA", "UTCQMMA"}
    must = {mma} | ({"LDTM", "STTM"} if arch == "sm_100a" else set())
    if reference == "tuned":
        return must | {"UTMALDG", "UTMASTG"}, other, mma
    return must | {"LDGSTS"}, other | {"UTMALDG", "UTMASTG"}, mma


class EveryReference(unittest.TestCase):
    def test_every_benchmark_shape_on_both_archs(self):
        jobs = [(p, r, a) for p in MORE for r in ("plain", "tuned") for a in ("sm_90a", "sm_100a")]

        def compile_one(job):
            problem, reference, arch = job
            return support.Compiled(support.reference(problem, reference), problem, arch, benchmark=True)

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            compiled = list(pool.map(compile_one, jobs))
        for c in compiled:
            self.addCleanup(c.close)
        for (problem, reference, arch), c in zip(jobs, compiled):
            with self.subTest(problem=problem, reference=reference, arch=arch):
                self.assertEqual(c.code, 0, c.describe())
                m = c.manifest
                self.assertEqual((m["arch"], m["error"]), (arch, ""))
                shapes = len(support.PROBLEMS[problem]["benchmark"])
                self.assertEqual(m["launches"], shapes * MORE[problem])  # every shape was compiled and launched
                must, must_not, mma = expected_families(problem, reference, arch)
                seen = set()
                for k in m["kernels"]:
                    self.assertTrue(0 < k["shared_bytes"] <= 232448, k)
                    families = disassemble.families(disassemble.opcodes(c.path(k["cubin"])))
                    seen |= set(families)
                    if k["name"] != "delta_kernel":  # the backward's row sums: no product
                        self.assertIn(mma, families, k["name"])
                    if arch == "sm_90a":  # the tuning target: no register spills
                        self.assertNotIn("STL", families, k["name"])
                    if reference == "tuned" and k["name"] != "delta_kernel":
                        self.assertGreater(k["global_scratch_bytes"], 0, k)  # device-side descriptors
                        self.assertTrue(k["descriptor_box_bytes"] and min(k["descriptor_box_bytes"]) >= 1024, k)
                self.assertLessEqual(must, seen, f"missing {must - seen}")
                self.assertEqual(must_not & seen, set())


class Isolation(unittest.TestCase):
    def test_triton_compiles_into_the_given_cache(self):
        c = support.Compiled(support.reference("gemm", "plain"))
        self.addCleanup(c.close)
        self.assertEqual(c.code, 0, c.describe())
        cached = [f for _, _, files in os.walk(c.cache) for f in files]
        self.assertIn("gemm_kernel.cubin", cached)

    def test_the_candidate_sees_a_fresh_namespace(self):
        # The probe raises at import if its module holds any name of the tool's. The scan refuses it
        # (it lists its namespace with dir()), so it is loaded as compile_only and the worker load a
        # candidate (load_candidate), in a child process of its own.
        probe = os.path.join(support.CANDIDATES, "namespace_probe.py")
        self.assertTrue(support.scan(probe)[1]["findings"])
        code = f"from ptxbench_triton.compile_only import load_candidate; load_candidate({probe!r})"
        p = subprocess.run([sys.executable, "-B", "-c", code], cwd=support.TRITON_ROOT, capture_output=True, text=True,
                           env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])


class Launches(unittest.TestCase):
    def test_each_specialization_and_launch_is_recorded(self):
        c = support.Compiled(os.path.join(support.CANDIDATES, "two_launches.py"))
        self.addCleanup(c.close)
        self.assertEqual(c.code, 0, c.describe())
        m = c.manifest
        self.assertEqual(m["launches"], 3)
        by_cubin = {k["cubin"]: k for k in m["kernels"]}
        self.assertEqual(len(by_cubin), 2)  # two BLOCK values: two specializations, two cubins
        self.assertEqual(sorted(k["launches"] for k in m["kernels"]), [1, 2])
        self.assertEqual({k["name"] for k in m["kernels"]}, {"scale_kernel"})
        for k in m["kernels"]:
            self.assertTrue(os.path.isfile(c.path(k["cubin"])))


if __name__ == "__main__":
    unittest.main()
