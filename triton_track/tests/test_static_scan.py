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

    def test_each_class_of_attack_has_its_file(self):
        # The escapes issue 45 names, one file each (more in attacks/; expected.json has them all).
        for name in ("string_subscript_builtins.py", "kernel_alias_internals.py", "kernel_parameter_internals.py",
                     "class_attribute_state.py", "function_attribute_state.py", "mutable_default_state.py",
                     "module_container_state.py", "build_probe.py"):
            self.assertIn(name, self.expected)
        self.assertEqual(sorted(n for n, rule in self.expected.items() if rule == "gpu"),
                         ["build_probe.py", "writes_input.py"])

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
    be refused, written whole (`x = tl.a.b`) and split at every step (`x = tl.a; y = x.b`), in host
    code and in a kernel."""

    def test_every_reachable_escape_is_refused(self):
        import builtins
        import math
        import typing

        import triton
        import triton.language as tl
        from triton.language.extra import libdevice

        risky = {id(getattr(builtins, n)) for n in ("exec", "eval", "open", "compile", "__import__", "getattr",
                                                    "setattr", "input", "globals", "vars", "locals")}
        risky_names = {"get_type_hints", "ForwardRef", "resolve_name", "import_module", "get_capture_scope"}

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

        def bodies(lines):
            host = "def f(A):\n" + "".join(f"    {line}\n" for line in lines)
            kernel = "import triton\n@triton.jit\ndef k(a):\n" + "".join(f"    {line}\n" for line in lines)
            return [host, kernel]

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
                    variants = [[f"x = {'.'.join(p)}"]]
                    variants += [[f"x = {'.'.join(p[:cut + 1])}", f"y = x.{'.'.join(p[cut + 1:])}"]
                                 for cut in range(1, len(p) - 1)]
                    for lines in variants:
                        for body in bodies(lines):
                            source = f"{imp}\n{body}"
                            if not static_scan.scan(source, "w.py")[1]["findings"]:
                                missed.append(source)
                elif depth < 5 and (isinstance(v, (types.ModuleType, type)) or callable(v)) and id(v) not in seen:
                    walk(imp, p, v, depth + 1, seen | {id(v)})

        for name, (imp, module) in roots.items():
            walk(imp, [name], module, 0, {id(module)})
        self.assertGreater(len(checked), 20, "the walk found too few escapes: is it still walking?")
        self.assertIn("tl.core", checked)
        self.assertEqual(missed, [], "\n".join(missed))

    def test_the_allowlists_name_what_triton_has(self):
        # The frozen lists of rules.py against the installed Triton (3.6): every allowed name exists,
        # a step into a module is a module, and an end of a path is not one (it would hand a module to
        # a name no path check sees).
        import importlib
        for module, members in rules.MODULE_MEMBERS.items():
            loaded = importlib.import_module(module)
            for name, leads_to in members.items():
                with self.subTest(path=f"{module}.{name}"):
                    if module.endswith("libdevice") and not hasattr(loaded, name):
                        other = "triton.language.extra.libdevice" if "cuda" in module else \
                            "triton.language.extra.cuda.libdevice"
                        loaded_other = importlib.import_module(other)
                        self.assertTrue(hasattr(loaded_other, name))  # in one of the two libdevice modules
                        continue
                    value = getattr(loaded, name)
                    self.assertEqual(isinstance(value, types.ModuleType), leads_to is not None)
                    if leads_to is not None:
                        self.assertEqual(value.__name__, leads_to)


def allowed(testcase, source):
    testcase.assertEqual(findings(source), [], source)


class Rules(unittest.TestCase):
    def test_allowed_uses(self):
        allowed(self, """
            \"\"\"A module docstring.\"\"\"
            import math, typing
            import triton
            import triton.language as tl
            from triton import language as lang
            from triton.language.extra.cuda import libdevice
            from typing import Optional

            BLOCK = 128
            BLOCK_M, BLOCK_N = 128, 2 * BLOCK
            SCALE = tl.constexpr(0.5)
            LOG2_E = 1.0 / math.log(2)
            NEG_INF = float("-inf")
            NAMES: typing.Tuple[str, ...] = ("a", "b")


            def f(x: typing.Optional[int], y: Optional[int] = None, z: int | None = -1, w=BLOCK) -> int:
                \"\"\"A helper.\"\"\"
                print(f"{x!r:>4}", "{} {:>4}".format(1, 2), math.sqrt(4), math.pi, triton.cdiv(3, 2), tl.float32,
                      lang.bfloat16, tl.constexpr)
                if x is None:  # never run: tl's functions only work inside a kernel
                    return libdevice.tanh(x) + tl.extra.cuda.libdevice.erf(x) + tl.math.exp(x)
                total = 0
                for i in range(3):
                    if i % 2 == 0 and not y:
                        continue
                    total += abs(i) if i else max(i, 1)
                while total > 10:
                    total = total // 2
                pair = [total, min(total, 4)]
                a, b = pair[0], pair[-1]
                assert a >= 0, "negative"
                if a > 100:
                    raise ValueError(f"too big: {a}")
                return int(a + b) + len((1, 2))


            def ptxbench_gemm(A, B, C, M, N, K, stream):
                rows = A.shape[0]
                block = min(BLOCK, triton.next_power_of_2(rows))
                assert str(A.dtype) == "bfloat16" and A.stride(1) == 1 and A.size(0) == M
                assert A.element_size() * A.numel() > 0 and A.data_ptr() % 16 == 0
                grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))

                def grid2(meta):
                    return (triton.cdiv(M * N, meta["BLOCK"]),)
                return grid, grid2, block


            if __name__ == "__main__":
                print("not run by the harness")
        """)

    def test_import_forms(self):
        self.assertEqual(rules_of("import numpy as np"), ["import"])
        self.assertEqual(rules_of("from os import path"), ["import"])
        self.assertEqual(rules_of("import triton.runtime"), ["triton_internal"])
        self.assertEqual(rules_of("from triton.runtime import driver"), ["triton_internal"])
        self.assertEqual(rules_of("from triton import autotune"), ["triton_internal"])
        self.assertEqual(rules_of("from triton.language import core"), ["triton_internal"])
        self.assertEqual(rules_of("from triton.language import *"), ["import"])
        self.assertEqual(rules_of("from typing import get_type_hints"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    import math"), ["import"])  # at the top only

    def test_triton_attributes(self):
        for attr in ("runtime", "compiler", "backends", "knobs", "testing", "tools", "autotune", "Config",
                     "heuristics", "set_allocator", "_C", "anything_new"):
            with self.subTest(attr=attr):
                self.assertIn("triton_internal", rules_of(f"import triton\ndef f():\n    x = triton.{attr}"))
        for path in ("tl.random.tl", "tl.float32.to_ir", "tl.core", "tl.standard", "tl.str_to_ty", "tl.math.core",
                     "tl.extra.cuda.gdc", "tl.extra.cuda.libdevice.core", "tl.dot.fn"):
            with self.subTest(path=path):
                self.assertIn("triton_internal", rules_of(f"import triton.language as tl\ndef f():\n    x = {path}"))
        self.assertIn("triton_internal", rules_of("import triton\ndef f(g):\n    return triton.jit(g)"))

    def test_builtins_are_reserved_names(self):
        for name, (rule, _) in rules.FORBIDDEN_BUILTINS.items():
            with self.subTest(name=name):
                self.assertEqual(rules_of(f"def f():\n    x = {name}"), [rule])
                self.assertEqual(rules_of(f"def f({name}=1):\n    pass"), [rule])
        self.assertEqual(rules_of("def f(reader=open):\n    return reader('x')"), ["file_io", "state"])

    def test_builtins_by_allowlist(self):
        for name in rules.ALLOWED_BUILTINS:
            with self.subTest(name=name):
                self.assertEqual(rules_of(f"def f(x):\n    return {name}(x)"), [])
                self.assertEqual(rules_of(f"def f(x):\n    g = {name}"), ["dynamic_code"])  # called, never a value
        for name in ("object", "isinstance", "hasattr", "id", "iter", "next", "super", "memoryview", "bytearray",
                     "classmethod", "__build_class__", "sum", "zip", "format", "repr", "chr", "ord", "hash"):
            with self.subTest(name=name):
                self.assertEqual(rules_of(f"def f(x):\n    return {name}(x)"), ["dynamic_code"])

    def test_dunders(self):
        self.assertEqual(rules_of("def f():\n    return (1).__class__"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    return __builtins__"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    return __loader__"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    return __name__"), ["dynamic_code"])  # only in the __main__ test
        self.assertEqual(rules_of("if __name__ == '__main__':\n    print(1)"), [])
        self.assertIn("construct", rules_of("if __name__ == '__main__':\n    pass\nelse:\n    X = 1"))  # runs

    def test_escape_attributes_on_any_value(self):
        # A value the scan cannot trace (a parameter, a call's result) still may not be walked out of.
        for attr in ("gi_frame", "f_back", "f_globals", "tb_frame", "builtins", "get_type_hints", "environ",
                     "resolve_name", "format_map", "get_capture_scope", "mro"):
            with self.subTest(attr=attr):
                self.assertEqual(rules_of(f"def f(x):\n    return x.{attr}"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x):\n    return x.shape, x.stride(0), x.data_ptr()"), [])

    def test_host_attributes_by_allowlist(self):
        self.assertEqual(rules_of("def f(x):\n    return x.foo"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x):\n    return x._address"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x):\n    y = x\n    return y.shape"), ["dynamic_code"])  # a parameter's only
        self.assertEqual(rules_of("def f(x):\n    return x.stride"), ["dynamic_code"])  # a method: called
        self.assertEqual(rules_of("def f(x):\n    return x.dtype.name"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x):\n    return str(x).join('ab')"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x):\n    return (lambda m: x.shape[0] * m['B'])"), [])  # a closure's parameter

    def test_subscripts(self):
        self.assertEqual(rules_of("def f():\n    x = (1,)\n    return x['a']"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(a, b):\n    return a['k']"), ["dynamic_code"])  # not a grid function
        self.assertEqual(rules_of("g = lambda meta: meta['__builtins__']"), ["dynamic_code", "state"])
        self.assertEqual(rules_of("def f(x):\n    return x[f'{1}'], x[str(1)], x['{}'.format(1)]"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x, i):\n    return x[i], x[i + 1], x[1:2], x[-1], x.shape[0]"), [])
        self.assertEqual(rules_of("def f(x):\n    return (lambda meta: meta['BLOCK'])"), [])
        self.assertIn("triton_internal", rules_of("import triton.language as tl\ndef f(A):\n    tl.sum[(1,)](A)"))
        self.assertIn("triton_internal", rules_of("import triton.language as tl\ndef f(A):\n    s = tl.sum\n"
                                                  "    s[(1,)](A)"))  # any x[...](...) but the file's kernels'
        self.assertIn("triton_internal", rules_of("def f(t, A):\n    t[0](A)"))

    def test_format_strings(self):
        self.assertEqual(rules_of("def f():\n    return '{0.real}'.format(1)"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    return '{0[a]}'.format(1)"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    s = '{}'\n    return s.format(1)"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    return ('{' + '}').format(1)"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    return '{}'.format(1), f'{1:>4}'"), [])

    def test_modules_only_as_module_dot_name(self):
        self.assertEqual(rules_of("import triton\ndef f():\n    t = triton"), ["dynamic_code"])
        self.assertEqual(rules_of("import math\nf = lambda m=math: m"), ["dynamic_code", "state"])
        self.assertEqual(rules_of("import triton.language as tl\ndef f():\n    m = tl.math"), ["dynamic_code"])
        self.assertEqual(rules_of("import triton.language as tl\ndef f(x):\n    y = tl.math.exp(x)"), [])
        for value in ("tl.math.exp", "tl.sum", "tl.extra.cuda.libdevice.erf", "tl.dot"):  # functions: called only
            with self.subTest(value=value):
                self.assertEqual(rules_of(f"import triton.language as tl\ndef f():\n    y = {value}"),
                                 ["triton_internal"])
        self.assertEqual(rules_of("from triton.language import sum as total\ndef f():\n    y = total"),
                         ["triton_internal"])
        self.assertEqual(rules_of("import triton.language as tl\ndef f(tl):\n    pass"), ["dynamic_code"])

    def test_state(self):
        self.assertEqual(rules_of("def f():\n    global g\n    g = 1"), ["state"])
        self.assertEqual(rules_of("def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2"), ["state"])
        self.assertEqual(rules_of("import math\nmath.pi = 3"), ["state"])
        self.assertEqual(rules_of("import triton.language as tl\ndel tl.dot"), ["state"])
        self.assertEqual(rules_of("def f(x):\n    del x"), ["state"])
        self.assertIn("state", rules_of("cache = {}\ndef f(M):\n    cache[M] = 1"))  # was the GPU judge's
        for value in ("[]", "{}", "set()", "[1, 2]", "(1, [2])", "helper()", "lambda: 0", "print(1)",
                      "tl.zeros((1,), tl.float32)"):
            with self.subTest(module_level=value):
                self.assertIn("state", rules_of(f"import triton.language as tl\ndef helper():\n    pass\nX = {value}"))
        for value in ("[]", "{}", "(1, [2])", "helper", "tl.zeros((1,), tl.float32)"):
            with self.subTest(default=value):
                self.assertIn("state", rules_of(f"import triton.language as tl\ndef helper():\n    pass\n"
                                                f"def f(x={value}):\n    pass"))
        self.assertEqual(rules_of("import triton.language as tl\nB = 64\ndef f(x=(1, 2), y=None, z=-1.5, w=B, "
                                  "d=tl.float32):\n    pass"), [])
        self.assertEqual(rules_of("class C:\n    cache = ()"), ["state"])
        self.assertEqual(rules_of("def f():\n    f.calls = 1"), ["state"])
        self.assertEqual(rules_of("def f(A):\n    A.cache = 1"), ["state"])
        self.assertEqual(rules_of("def f(x):\n    x[0] = 1"), ["state"])
        self.assertEqual(rules_of("def f(x):\n    for x.i in range(2):\n        pass"), ["state"])

    def test_kernel_internals(self):
        kernel = "import triton\n@triton.jit\ndef k(x):\n    pass\n"
        for attr in ("warmup", "device_caches", "run", "fn", "cache_hook_anything", "add_pre_run_hook", "preload"):
            with self.subTest(attr=attr):
                self.assertIn("triton_internal", rules_of(kernel + f"def f():\n    y = k.{attr}"))
        for use in ("kk = k\n    kk.run()", "helper(k)", "return k", "return (k,)", "k(1)", "return k[(1,)]",
                    "c = k[(1,)](1)", "print(k[(1,)](1))", "return lambda: k"):
            with self.subTest(use=use):
                self.assertIn("triton_internal", rules_of(kernel + f"def helper(p):\n    return p.device_caches\n"
                                                                   f"def f():\n    {use}"))
        self.assertEqual(rules_of(kernel + "def f(x):\n    k[(1,)](x)\n    k[lambda meta: (1,)](x, num_warps=4)"), [])
        self.assertIn("triton_internal", rules_of(kernel + "k = 1"))  # rebinding the kernel
        self.assertIn("triton_internal", rules_of("import triton\ndef spy(*a):\n    pass\n"
                                                  "@triton.jit(launch_metadata=spy)\ndef k(x):\n    pass"))
        self.assertEqual(rules_of("import triton\n@triton.jit(do_not_specialize=['n'], debug=False)\n"
                                  "def k(x, n):\n    pass"), [])

    def test_kernel_bodies(self):
        self.assertEqual(findings("""
            import triton
            import triton.language as tl
            from triton.language.extra import libdevice

            @triton.jit
            def helper(x):
                return x * 2

            @triton.jit
            def k(a_ptr, c_ptr, n, BLOCK: tl.constexpr, D: tl.constexpr = 64):
                \"\"\"A kernel.\"\"\"
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                desc = tl.make_tensor_descriptor(a_ptr, shape=[n, D], strides=[D, 1], block_shape=[BLOCK, D])
                x = desc.load([0, 0]).to(tl.float32)
                y = helper(x).T.reshape((D, BLOCK)).trans()
                m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
                for i in tl.static_range(2):
                    m = tl.maximum(m, tl.max(y, 1)) + i
                if x.dtype == tl.float32 and x.shape[0] == BLOCK:
                    m = libdevice.tanh(m)
                tl.store(c_ptr + offs[:, None] * D + tl.arange(0, D)[None, :], x, mask=offs[:, None] < n)
                while n > 0:
                    n = n - min(n, 1)
                s = tl.reduce(x, 0, helper2) + tl.associative_scan(x, 0, combine_fn=helper2)

            @triton.jit
            def helper2(a, b):
                return a + b
        """), [])
        kernel = "import triton\nimport triton.language as tl\ndef host(x):\n    return x\n@triton.jit\ndef k(x):\n    "
        for body, rule in (("h = x.handle", "triton_internal"), ("t = x.type", "triton_internal"),
                           ("v = x.dtype.to_ir", "triton_internal"), ("f = lambda: 0", "construct"),
                           ("d = {}", "construct"), ("raise ValueError()", "construct"),
                           ("def g():\n        pass", "construct"), ("y = tl.core", "triton_internal"),
                           ("y = [i for i in range(2)]", "construct"), ("y = x['a']", "dynamic_code"),
                           ("k[(1,)](x)", "triton_internal"), ("x[0] = 1", "state"),
                           ("with x:\n        pass", "construct"), ("y = tl.where(x, k, x)", "triton_internal"),
                           ("y = k", "triton_internal"), ("y = host(x)", "triton_internal")):
            with self.subTest(body=body):
                self.assertIn(rule, rules_of(kernel + body))

    def test_constructs(self):
        for source in ("def f():\n    with f():\n        pass", "def f():\n    try:\n        pass\n    except:\n        pass",
                       "def f(x):\n    match x:\n        case 1:\n            pass",
                       "def f(x):\n    return [i for i in x]", "def f(x):\n    return (y := x)",
                       "def f(g, x):\n    return g(*x)", "def f(g, x):\n    return g(**x)", "def f(*a):\n    pass",
                       "def deco(g):\n    return g\n@deco\ndef f():\n    pass", "print(1)", "for i in range(2):\n    pass",
                       "def f():\n    return {1}", "def f():\n    a, *b = (1, 2)"):
            with self.subTest(source=source):
                self.assertIn("construct", rules_of(source))

    def test_generators_and_coroutines(self):
        for source in ("def f():\n    yield 1", "def f():\n    yield from ()", "async def f():\n    pass",
                       "def f():\n    return (x for x in ()).gi_frame"):
            with self.subTest(source=source):
                self.assertIn("dynamic_code", rules_of(source))

    def test_annotations(self):
        self.assertEqual(rules_of("def f(x: 'print(1) or int'):\n    pass"), ["dynamic_code"])
        self.assertEqual(rules_of("import typing\ndef f():\n    return typing.Optional"), ["dynamic_code"])
        self.assertEqual(rules_of("from typing import Optional\ndef f():\n    return Optional[int]"), ["dynamic_code"])
        self.assertEqual(rules_of("def f(x: len):\n    pass"), ["dynamic_code"])
        self.assertEqual(rules_of("import triton.language as tl\nfrom typing import Tuple, Callable\n"
                                  "def f(x: int, y: tl.constexpr, z: Tuple[int, ...], g: Callable[[int], int],"
                                  " w: float | None = None) -> bool:\n    pass"), [])

    def test_raise(self):
        for name in rules.ALLOWED_EXCEPTIONS:
            with self.subTest(name=name):
                self.assertEqual(rules_of(f"def f():\n    raise {name}('no')"), [])
        for name in ("SystemExit", "KeyboardInterrupt", "BaseException", "Exception", "GeneratorExit"):
            with self.subTest(name=name):
                self.assertEqual(rules_of(f"def f():\n    raise {name}(2)"), ["dynamic_code"])
        self.assertEqual(rules_of("def f():\n    e = ValueError"), ["dynamic_code"])

    def test_coding_declarations(self):
        # Python's importer decodes by the declaration; the scan reads UTF-8: only UTF-8's may be declared.
        self.assertEqual(rules_of("# -*- coding: utf-8 -*-\nX = 1"), [])
        self.assertEqual(rules_of("#!/usr/bin/env python\n# coding=latin-1\nX = 1"), ["dynamic_code"])
        self.assertEqual(rules_of("# vim: set fileencoding=utf-7 :\nX = 1"), ["dynamic_code"])

    def test_every_finding_names_a_rule_of_the_table(self):
        for rule, why in rules.RULES.items():
            self.assertTrue(why)
        for path in glob.glob(os.path.join(support.ATTACKS, "*.py")):
            with open(path) as f:
                for finding in findings(f.read(), "ptxbench_gemm", support.PROBLEMS["gemm"]["parameters"]):
                    self.assertIn(finding["rule"], rules.RULES)
                    self.assertGreater(finding["line"], 0)
                    self.assertGreater(finding["column"], 0)

    def test_the_readme_table_is_rules_py_table(self):
        with open(os.path.join(support.TRITON_ROOT, "README.md")) as f:
            rows = [line for line in f if line.startswith("| `")]
        self.assertEqual({row.split("`")[1] for row in rows}, set(rules.RULES))


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

    def test_deep_nesting_is_the_candidates_error(self):
        # Python's own parser raises RecursionError (not SyntaxError) on a sum of thousands of terms
        # (3.11), and the scan's walk recurses too: either way a JSON answer, never a crash.
        for terms in (20000, 5000, 900, 50):
            source = "def ptxbench_gemm(A, B, C, M, N, K, stream):\n    x = " + " + ".join(["1"] * terms) + "\n"
            code, out = static_scan.scan(source, "deep.py", "ptxbench_gemm")
            with self.subTest(terms=terms):
                if code == 1:
                    self.assertIn("nests too deeply", out["diagnostics"][0]["message"])
                else:
                    self.assertEqual((code, out["findings"]), (0, []))

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
