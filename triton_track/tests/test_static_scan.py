"""The source scan: references clean, every attack caught by its expected rule, the reachable
escape hatches of the allowed modules all refused, and the CLI's contract."""
import glob
import json
import os
import textwrap
import types
import unittest

from ptxbench_triton import rules, static_scan
from tests import support


def findings(source, entry="", parameters=()):
    code, out = static_scan.scan(textwrap.dedent(source), "candidate.py", entry, parameters)
    assert code == 0, out
    return out["findings"]


def rules_of(source):
    return sorted({f["rule"] for f in findings(source)})


class References(unittest.TestCase):
    def test_references_scan_clean(self):
        paths = support.all_references()
        self.assertGreaterEqual(len(paths), 4)
        for path in paths:
            problem = os.path.basename(os.path.dirname(os.path.dirname(path)))  # problems/<problem>/triton/x.py
            with self.subTest(reference=os.path.relpath(path, support.TRITON_ROOT)):
                code, out, err = support.scan(path, problem)
                self.assertEqual(code, 0, err)
                self.assertEqual(out["findings"], [])
                self.assertTrue(out["entry_found"])
                self.assertEqual(out["entry_parameters"], support.PROBLEMS[problem]["parameters"])
                self.assertTrue(out["jit_kernels"])

    def test_legit_features_scan_clean(self):
        code, out, _ = support.scan(os.path.join(support.CANDIDATES, "legit_features.py"))
        self.assertEqual(out["findings"], [])
        self.assertEqual(out["jit_kernels"], ["gelu", "elementwise_kernel"])


class Attacks(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(support.ATTACKS, "expected.json")) as f:
            self.expected = {k: v for k, v in json.load(f).items() if not k.startswith("_")}

    def test_every_attack_file_has_an_expectation(self):
        files = {os.path.basename(p) for p in glob.glob(os.path.join(support.ATTACKS, "*.py"))}
        self.assertEqual(files, set(self.expected))
        for rule in self.expected.values():
            self.assertIn(rule, set(rules.RULES) | {"gpu", "compile_error"})

    def test_attacks_are_caught_by_their_rule(self):
        for name, rule in sorted(self.expected.items()):
            with self.subTest(attack=name):
                code, out, err = support.scan(os.path.join(support.ATTACKS, name))
                self.assertEqual(code, 0, err)
                got = {f["rule"] for f in out["findings"]}
                if rule in ("gpu", "compile_error"):  # not the scan's: the compile's, or the GPU judge's to catch
                    self.assertEqual(got, set(), out["findings"])
                else:
                    self.assertIn(rule, got, out["findings"])
                    self.assertNotIn("entry", got, out["findings"])  # caught for what it does, not its shape


class EscapeHatches(unittest.TestCase):
    """Walks the attributes reachable from every allowed module (Triton imported here, as data) to
    the values that leave the candidate's code: modules off the list (builtins, inspect, pkgutil,
    triton.knobs ...), triton.language's implementation modules, eval-like functions. Each path must
    be refused, written whole (`x = tl.a.b`) and split at every step (`x = tl.a; y = x.b`)."""

    def test_every_reachable_escape_is_refused(self):
        import builtins
        import math
        import typing

        import triton
        import triton.language as tl
        from triton.language.extra import libdevice

        risky = {id(getattr(builtins, n)) for n in ("exec", "eval", "open", "compile", "__import__", "getattr",
                                                    "setattr", "input", "globals", "vars", "locals")}
        risky_names = {"get_type_hints", "ForwardRef", "resolve_name", "import_module"}

        def dangerous(v):
            if isinstance(v, types.ModuleType):
                n = v.__name__
                inside = n.startswith("triton.language.") and n.split(".")[2] not in rules.TL_REFUSED
                return not (n in rules.ALLOWED_MODULES or inside)
            return id(v) in risky or getattr(v, "__name__", "") in risky_names

        roots = {"tl": ("import triton.language as tl", tl), "triton": ("import triton", triton),
                 "math": ("import math", math), "typing": ("import typing", typing),
                 "libdevice": ("from triton.language.extra import libdevice", libdevice)}
        missed, checked = [], []

        def walk(imp, path, obj, depth, seen):
            try:
                items = list(vars(obj).items())
            except TypeError:
                return
            for k, v in items:
                if k.startswith("__"):
                    continue
                p = path + [k]
                if dangerous(v):
                    checked.append(".".join(p))
                    sources = [f"{imp}\nx = {'.'.join(p)}\n"]
                    sources += [f"{imp}\nx = {'.'.join(p[:cut + 1])}\ny = x.{'.'.join(p[cut + 1:])}\n"
                                for cut in range(1, len(p) - 1)]
                    missed.extend(s for s in sources if not static_scan.scan(s, "w.py")[1]["findings"])
                elif depth < 5 and (isinstance(v, (types.ModuleType, type)) or callable(v)) and id(v) not in seen:
                    walk(imp, p, v, depth + 1, seen | {id(v)})

        for name, (imp, module) in roots.items():
            walk(imp, [name], module, 0, {id(module)})
        self.assertGreater(len(checked), 20, "the walk found too few escapes: is it still walking?")
        self.assertIn("tl.core", checked)
        self.assertEqual(missed, [], "\n".join(missed))


class Rules(unittest.TestCase):
    def test_allowed_uses(self):
        self.assertEqual(findings("""
            import math, typing
            import triton
            import triton.language as tl
            from triton import language as lang
            from triton.language.extra.cuda import libdevice
            from typing import Optional
            def f(x: typing.Optional[int], y: Optional[int] = None):
                if __name__ == "__main__":
                    print(f"{x}", "{} {:>4}".format(1, 2), math.sqrt(4), triton.cdiv(3, 2), tl.float32,
                          lang.bfloat16, libdevice.tanh, tl.extra.cuda.libdevice.erf, tl.math.exp)
        """), [])

    def test_import_forms(self):
        self.assertEqual(rules_of("import numpy as np"), ["import"])
        self.assertEqual(rules_of("from os import path"), ["import"])
        self.assertEqual(rules_of("import triton.runtime"), ["triton_internal"])
        self.assertEqual(rules_of("from triton.runtime import driver"), ["triton_internal"])
        self.assertEqual(rules_of("from triton import autotune"), ["triton_internal"])
        self.assertEqual(rules_of("from triton.language import core"), ["triton_internal"])
        self.assertEqual(rules_of("from triton.language import *"), ["import"])
        self.assertEqual(rules_of("from typing import get_type_hints"), ["dynamic_code"])

    def test_triton_attributes(self):
        for attr in ("runtime", "compiler", "backends", "knobs", "testing", "tools", "autotune", "Config",
                     "heuristics", "set_allocator", "_C", "anything_new"):
            with self.subTest(attr=attr):
                self.assertIn("triton_internal", rules_of(f"import triton\nx = triton.{attr}"))
        self.assertIn("triton_internal", rules_of("import triton.language as tl\nx = tl.random.tl"))
        self.assertIn("triton_internal", rules_of("import triton.language as tl\nx = tl.float32.to_ir"))

    def test_builtins_are_reserved_names(self):
        for name, (rule, _) in rules.FORBIDDEN_BUILTINS.items():
            with self.subTest(name=name):
                self.assertEqual(rules_of(f"x = {name}"), [rule])
                self.assertEqual(rules_of(f"def f({name}=1):\n    pass"), [rule])
        self.assertEqual(rules_of("def f(reader=open):\n    return reader('x')"), ["file_io"])

    def test_dunders(self):
        self.assertEqual(rules_of("x = (1).__class__"), ["dynamic_code"])
        self.assertEqual(rules_of("x = __builtins__"), ["dynamic_code"])
        self.assertEqual(rules_of("x = __loader__"), ["dynamic_code"])
        self.assertEqual(rules_of("x = __name__"), [])

    def test_escape_attributes_on_any_value(self):
        # A value the scan cannot trace (a parameter, a call's result) still may not be walked out of.
        for attr in ("gi_frame", "f_back", "f_globals", "tb_frame", "builtins", "get_type_hints", "environ",
                     "resolve_name", "format_map"):
            with self.subTest(attr=attr):
                self.assertEqual(rules_of(f"def f(x):\n    return x.{attr}"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x):\n    return x.shape, x.stride(0), x.data_ptr()"), [])

    def test_format_strings(self):
        self.assertEqual(rules_of("x = '{0.real}'.format(1)"), ["dynamic_code"])
        self.assertEqual(rules_of("x = '{0[a]}'.format({})"), ["dynamic_code"])
        self.assertEqual(rules_of("s = '{}'\nx = s.format(1)"), ["dynamic_code"])
        self.assertEqual(rules_of("x = '{}'.format(1)"), [])

    def test_modules_only_as_module_dot_name(self):
        self.assertEqual(rules_of("import triton\nt = triton"), ["dynamic_code"])
        self.assertEqual(rules_of("import math\nf = lambda m=math: m"), ["dynamic_code"])
        self.assertEqual(rules_of("import triton.language as tl\nm = tl.math"), ["dynamic_code"])
        self.assertEqual(rules_of("import triton.language as tl\ny = tl.math.exp"), [])

    def test_state(self):
        self.assertEqual(rules_of("def f():\n    global g\n    g = 1"), ["state"])
        self.assertEqual(rules_of("def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2"), ["state"])
        self.assertEqual(rules_of("import math\nmath.pi = 3"), ["state"])
        self.assertEqual(rules_of("import triton.language as tl\ndel tl.dot"), ["state"])
        self.assertEqual(rules_of("cache = {}\ndef f(M):\n    cache[M] = 1"), [])  # the GPU judge's

    def test_kernel_internals(self):
        src = "import triton\n@triton.jit\ndef k(x):\n    pass\ny = k.{}\n"
        for attr in ("warmup", "device_caches", "run", "fn", "cache_hook_anything"):
            with self.subTest(attr=attr):
                self.assertIn("triton_internal", rules_of(src.format(attr)))

    def test_every_finding_names_a_rule_of_the_table(self):
        for rule, why in rules.RULES.items():
            self.assertTrue(why)
        for path in glob.glob(os.path.join(support.ATTACKS, "*.py")):
            with open(path) as f:
                for finding in findings(f.read(), "ptxbench_gemm", support.PROBLEMS["gemm"]["parameters"]):
                    self.assertIn(finding["rule"], rules.RULES)
                    self.assertGreater(finding["line"], 0)
                    self.assertGreater(finding["column"], 0)


class Entry(unittest.TestCase):
    P = ["A", "B", "C", "M", "N", "K", "stream"]

    def entry_findings(self, source):
        return [f for f in findings(source, "ptxbench_gemm", self.P) if f["rule"] == "entry"]

    def test_matching_entry(self):
        self.assertEqual(self.entry_findings("def ptxbench_gemm(A, B, C, M, N, K, stream):\n    pass"), [])

    def test_missing_entry(self):
        self.assertEqual(len(self.entry_findings("def gemm(A, B, C, M, N, K, stream):\n    pass")), 1)
        self.assertEqual(len(self.entry_findings("ptxbench_gemm = print")), 1)
        self.assertEqual(len(self.entry_findings("class X:\n    def ptxbench_gemm(A, B, C, M, N, K, stream):\n"
                                                 "        pass")), 1)

    def test_wrong_parameters(self):
        found = self.entry_findings("\n\ndef ptxbench_gemm(A, B, C, M, K, N, stream):\n    pass")
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["line"], 3)
        self.assertIn("M, N, K", found[0]["message"])
        self.assertEqual(len(self.entry_findings("def ptxbench_gemm(*args):\n    pass")), 2)

    def test_decorated_or_duplicated_entry(self):
        self.assertEqual(len(self.entry_findings("import triton\n@triton.jit\ndef ptxbench_gemm(A, B, C, M, N, K, "
                                                 "stream):\n    pass")), 1)
        self.assertEqual(len(self.entry_findings("def ptxbench_gemm(A, B, C, M, N, K, stream):\n    pass\n"
                                                 "def ptxbench_gemm(A, B, C, M, N, K, stream):\n    pass")), 1)


class Cli(unittest.TestCase):
    def test_syntax_error_exit_1_with_its_line(self):
        path = os.path.join(support.CANDIDATES, "syntax_error.py")
        code, out, _ = support.scan(path)
        self.assertEqual(code, 1)
        self.assertFalse(out["ok"])
        d = out["diagnostics"][0]
        self.assertEqual((d["file"], d["line"], d["severity"]), ("syntax_error.py", support.marked_line(path), "error"))
        self.assertIn("SyntaxError", d["message"])

    def test_missing_file_is_a_usage_error(self):
        code, out, err = support.scan("/nonexistent/candidate.py")
        self.assertEqual(code, 2)
        self.assertIsNone(out)
        self.assertIn("cannot read", err)

    def test_one_json_object_on_stdout(self):
        code, out, err = support.run_module("static_scan", [os.path.join(support.ATTACKS, "exec_string.py"),
                                                            "--entry", "ptxbench_gemm"])
        self.assertEqual(code, 0)
        self.assertEqual(len(out.strip().splitlines()), 1)
        obj = json.loads(out)
        self.assertEqual(set(obj), {"ok", "findings", "jit_kernels", "entry_found", "entry_parameters"})
        self.assertEqual(set(obj["findings"][0]), {"rule", "line", "column", "message"})


if __name__ == "__main__":
    unittest.main()
