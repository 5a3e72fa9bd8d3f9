"""What a Triton candidate may use: the rule table and the lists it rests on, each with why.

A candidate is its @triton.jit kernels and the host code that launches them. The work must be done
by those kernels, on the harness's stream, inside the call, from the inputs. Everything else Python
could reach is a way around that, so the scan allows a short list and refuses the rest. The scan
is the first wall, not the only one: the build runs in the sandbox, and keeping results between
calls (a module-level dict) is the GPU judge's to catch (attacks/expected.json says which is whose).
"""

# Each finding names one of these rules.
RULES = {
    "import": "only triton, triton.language (and its libdevice), math and typing may be imported: no torch, "
              "numpy, ctypes, os, sys, subprocess, importlib, cupy or CUDA bindings (the work must be the "
              "candidate's own kernels, and the host code needs nothing else); no relative imports (a "
              "candidate is one file)",
    "triton_internal": "of triton only jit, cdiv, next_power_of_2, language and constexpr may be used: the "
                       "runtime, driver, compiler, knobs and allocator are the harness's, autotuning times "
                       "configurations inside the measured call, and testing/tools are torch-based helpers",
    "dynamic_code": "no code the scan cannot read: exec, eval, compile, __import__, getattr/setattr/delattr, "
                    "namespaces by name (globals, locals, vars), dunder names and attributes, frames and "
                    "tracebacks, str.format with attribute lookups, and modules used other than as module.name",
    "file_io": "no files and no console input: a candidate reads nothing but its arguments",
    "state": "no global or nonlocal statements and no assignment to a module's or a kernel's attributes: "
             "results are not kept between calls and the harness's modules are not changed",
    "entry": "the entry is a top-level def with exactly the problem's parameters, in order",
}

# Modules a candidate may import, and why each is needed.
ALLOWED_MODULES = {
    "triton": "@triton.jit, triton.cdiv, triton.next_power_of_2",
    "triton.language": "the kernel language (tl.*)",
    "triton.language.extra": "its libdevice (from triton.language.extra import libdevice)",
    "triton.language.extra.libdevice": "device math functions (erf, tanh, ...)",
    "triton.language.extra.cuda": "its libdevice",
    "triton.language.extra.cuda.libdevice": "device math functions (erf, tanh, ...)",
    "math": "host-side arithmetic for launch parameters (math.sqrt for a softmax scale)",
    "typing": "annotations",
}

# Attributes of the `triton` module a candidate may use.
TRITON_ALLOWED = {
    "jit": "marks a kernel",
    "cdiv": "ceil division for grids",
    "next_power_of_2": "block sizes",
    "language": "the kernel language",
    "constexpr": "compile-time parameters",
}

# Attributes of `triton` refused with a reason of their own (any other is refused with the rule's).
TRITON_REFUSED = {
    "autotune": "autotuning runs and times every configuration inside the measured call; pick one",
    "Config": "autotuning configurations (see autotune)",
    "heuristics": "launch-time hooks of the autotuner; compute the values in the entry instead",
    "runtime": "the driver, launchers and compile cache are the harness's",
    "compiler": "compiling and launching outside kernel[grid](...) goes around the harness's launch",
    "backends": "the CUDA driver bindings are the harness's",
    "knobs": "Triton's settings (cache, hooks, overrides) are the harness's",
    "testing": "torch-based benchmarking helpers (do_bench times inside the measured call)",
    "tools": "host-side helpers (host TensorDescriptor, ...): use tl.make_tensor_descriptor in the kernel",
    "set_allocator": "the harness provides the scratch memory device-side TMA descriptors need",
    "_C": "Triton's C++ extension",
}

# First attributes of triton.language refused: they are Triton's implementation, and reach the
# interpreter (tl.core.builtins is Python's builtins; tl.core.inspect, tl.core.knobs, tl.core.ir).
TL_REFUSED = {
    "core": "Triton's implementation of the language: use the tl.* names",
    "semantic": "Triton's implementation of the language: use the tl.* names",
    "target_info": "Triton's implementation of the language: use the tl.* names",
}

# The names a path into triton.language may pass through (tl.math.exp, tl.extra.cuda.libdevice.tanh).
# Any other step in the middle of a path (tl.random.tl, tl.math.core) walks Triton's implementation
# modules, which import Python's machinery (builtins, inspect, typing, pkgutil).
TL_PATH_STEPS = {"language", "math", "extra", "cuda", "libdevice"}

# Names of modules reachable from the allowed ones (found by the walk in tests/test_static_scan.py):
# a path from a module that ends in one of them, used as a value (`m = tl.random`), hands a module
# to a plain name whose attributes no path check sees.
MODULE_NAMES = {
    "core", "semantic", "standard", "random", "math", "extra", "cuda", "hip", "libdevice", "utils", "gdc", "module",
    "target_info", "tl", "typing", "builtins", "inspect", "knobs", "ir", "pkgutil", "language",
}

# typing's annotations only: its other functions evaluate strings as code (get_type_hints,
# ForwardRef) or reach other modules (typing.sys).
TYPING_ALLOWED = {"Any", "Optional", "Union", "Tuple", "List", "Dict", "Sequence", "Callable", "Iterable"}

# Attribute names refused on any object: each leads from a value the candidate holds to the
# interpreter (frames, code, builtins) or to another module. Found by walking the module
# attributes reachable from triton.language (tests/test_static_scan.py walks them again).
ESCAPE_ATTRIBUTES = {
    "builtins", "inspect", "knobs", "pkgutil", "ir", "os", "sys", "importlib", "subprocess", "ctypes", "runtime",
    "compiler", "backends", "exec", "eval", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code",
    "cr_await", "ag_frame", "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
    "tb_frame", "tb_next", "format_map", "get_type_hints", "ForwardRef", "import_module", "resolve_name",
    "find_spec", "load_module", "exec_module", "get_data", "system", "popen", "environ", "getenv", "modules",
}

# Attribute names refused on any object: a JIT function's and a compiled kernel's internals. The one
# launch the harness accounts for is kernel[grid](...); these compile, cache or launch around it.
KERNEL_INTERNAL_ATTRIBUTES = {
    name: "a JIT function's or compiled kernel's internals; launch with kernel[grid](...)"
    for name in ("device_caches", "warmup", "run", "fn", "src", "pre_run_hooks", "used_global_vals", "asm",
                 "packed_metadata", "function", "launcher", "launch_metadata", "cache_key")
}

# Builtins refused by name, wherever the name appears (called, passed on or bound: `def f(o=open)`
# would otherwise carry the builtin past a call check).
FORBIDDEN_BUILTINS = {
    "exec": ("dynamic_code", "runs code the scan cannot see"),
    "eval": ("dynamic_code", "runs code the scan cannot see"),
    "compile": ("dynamic_code", "builds code the scan cannot see"),
    "__import__": ("dynamic_code", "imports a module past the import rule"),
    "globals": ("dynamic_code", "reaches a namespace by name"),
    "locals": ("dynamic_code", "reaches a namespace by name"),
    "vars": ("dynamic_code", "reaches a namespace by name"),
    "getattr": ("dynamic_code", "reaches an attribute by a computed name"),
    "setattr": ("dynamic_code", "changes an attribute by a computed name"),
    "delattr": ("dynamic_code", "changes an attribute by a computed name"),
    "breakpoint": ("dynamic_code", "starts a debugger"),
    "help": ("dynamic_code", "pydoc imports modules by name"),
    "exit": ("dynamic_code", "ends the process"),
    "quit": ("dynamic_code", "ends the process"),
    "license": ("file_io", "reads files"),
    "credits": ("file_io", "reads files"),
    "copyright": ("file_io", "reads files"),
    "open": ("file_io", "a candidate reads and writes no files"),
    "input": ("file_io", "a candidate reads no input"),
}

# The one dunder name a candidate may use: `if __name__ == "__main__":` is harmless. Every other
# (__builtins__, __loader__ with its get_data, __spec__, __file__ ...) reaches the interpreter.
ALLOWED_DUNDER_NAMES = {"__name__"}
