"""compile_only's failures: the candidate's (exit 1, a diagnostic on the right line) and the
tool's or the caller's (exit 2), each with the manifest still written."""
import json
import os
import tempfile
import unittest

from tests import support


def candidate(name):
    """tests/candidates/NAME, or a path relative to triton_track/ (attacks/x.py)."""
    return os.path.join(support.TRITON_ROOT, name) if "/" in name else os.path.join(support.CANDIDATES, name)


class CandidateErrors(unittest.TestCase):
    def expect_error(self, name, message_part, arch="sm_90a", line=None):
        c = support.Compiled(candidate(name), arch=arch)
        self.addCleanup(c.close)
        self.assertEqual(c.code, 1, c.describe())
        m = c.manifest
        self.assertFalse(m["ok"])
        self.assertEqual(m["kernels"], [])
        self.assertEqual(len(m["diagnostics"]), 1, m["diagnostics"])
        d = m["diagnostics"][0]
        self.assertEqual((d["file"], d["severity"]), (os.path.basename(name), "error"))
        self.assertEqual(d["line"], line if line is not None else support.marked_line(candidate(name)), d)
        self.assertGreater(d["column"], 0)
        self.assertIn(message_part, d["message"])
        self.assertEqual(m["error"], d["message"].splitlines()[0])
        self.assertNotIn("\n", m["error"])
        return d

    def test_triton_compile_error_points_at_the_dot(self):
        d = self.expect_error("compile_error.py", "equal reduction dimensions")
        self.assertTrue(d["message"].startswith("CompilationError: "))
        self.assertEqual(d["column"], 9)  # `tl.dot` in "    c = tl.dot(a, a)"

    def test_compile_error_in_a_helper_points_at_the_helper(self):
        self.expect_error("callee_error.py", "called at line 16")

    def test_compile_error_on_sm_100a_too(self):
        self.expect_error("compile_error.py", "equal reduction dimensions", arch="sm_100a")

    def test_python_exception_in_the_entry(self):
        self.expect_error("python_error.py", "ZeroDivisionError")

    def test_python_exception_at_import(self):
        self.expect_error("import_time_error.py", "ValueError")

    def test_out_of_shared_memory_at_the_launch(self):
        self.expect_error("too_much_shared.py", "Hardware limit: 232448")

    def test_entry_launching_nothing(self):
        self.expect_error("launches_nothing.py", "launched no kernel")

    def test_syntax_error(self):
        self.expect_error("syntax_error.py", "SyntaxError")

    def test_missing_entry(self):
        self.expect_error("no_entry.py", "defines no function", line=1)

    def test_scan_refusal_runs_nothing(self):
        # torch_matmul.py imports torch at module level (not installed here: an import would fail with
        # ModuleNotFoundError); the scan refuses it before anything of it runs. Every finding is a
        # diagnostic (here also `b.T`, an attribute host code may not read), the import's first.
        c = support.Compiled(candidate("attacks/torch_matmul.py"))
        self.addCleanup(c.close)
        self.assertEqual(c.code, 1, c.describe())
        m = c.manifest
        self.assertEqual((m["ok"], m["kernels"]), (False, []))
        first = m["diagnostics"][0]
        self.assertEqual((first["file"], first["line"], first["severity"]), ("torch_matmul.py", 3, "error"))
        self.assertIn("[import]", first["message"])
        self.assertEqual(m["error"], first["message"].splitlines()[0])
        self.assertFalse(any("ModuleNotFoundError" in d["message"] for d in m["diagnostics"]))


class NotUtf8(unittest.TestCase):
    def test_latin1_source_is_the_candidates_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "latin1.py")
            with open(path, "wb") as f:
                f.write(b"# caf\xe9\ndef ptxbench_gemm(A, B, C, M, N, K, stream):\n    pass\n")
            code, out, _ = support.scan(path)
            self.assertEqual((code, out["ok"]), (1, False))
            self.assertIn("not UTF-8", out["diagnostics"][0]["message"])
            c = support.Compiled(path)
            self.addCleanup(c.close)
            self.assertEqual(c.code, 1, c.describe())
            self.assertIn("not UTF-8", c.manifest["error"])


class ToolErrors(unittest.TestCase):
    def run_tool(self, **kw):
        c = support.Compiled(support.reference("gemm", "plain"), **kw)
        self.addCleanup(c.close)
        return c

    def test_cache_dir_unset_exit_2(self):
        c = self.run_tool(cache=False)
        self.assertEqual(c.code, 2, c.describe())
        self.assertFalse(c.manifest["ok"])
        self.assertIn("TRITON_CACHE_DIR", c.manifest["error"])
        self.assertEqual(c.manifest["kernels"], [])

    def test_bad_arguments_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            shape = os.path.join(tmp, "shape.json")
            with open(shape, "w") as f:
                json.dump({"M": 256, "N": 256}, f)  # no K
            c = self.run_tool(shape=shape)
            self.assertEqual(c.code, 2, c.describe())
            self.assertIn("'K' is not in the shape", c.manifest["error"])

    def test_usage_error_exit_2(self):
        code, _, err = support.run_module("compile_only", ["--candidate", "x.py"])
        self.assertEqual(code, 2)
        self.assertIn("required", err)

    def test_unknown_arch_exit_2(self):
        code, _, err = support.run_module("compile_only", ["--candidate", "x.py", "--entry", "e", "--arch", "sm_80",
                                                           "--arguments", "a", "--shape", "s", "--out", "o"])
        self.assertEqual(code, 2)
        self.assertIn("sm_80", err)


if __name__ == "__main__":
    unittest.main()
