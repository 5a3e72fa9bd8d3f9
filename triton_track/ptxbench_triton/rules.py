"""What a Triton candidate may contain: the rule table and the allowlists it rests on, each with why.

The scan is an allowlist. A candidate is a module docstring, a few imports, module-level constants,
its @triton.jit kernels and plain host functions (the entry among them); every construct, name,
attribute and subscript must be one these lists allow, and anything else is refused with the rule
that says what it would have reached (source_rules.py applies the lists). The work must be done by
the candidate's kernels, on the harness's stream, inside the call, from the inputs; the host code
only computes launch parameters from its arguments' shapes and launches. The scan is the first
wall, not the only one: the build runs in the sandbox, and the GPU judge gives every call fresh
inputs and checks them unchanged (attacks/expected.json says which attack is whose).
"""

# Each finding names one of these rules.
RULES = {
    "import": "only triton, triton.language (and its libdevice), math and typing may be imported, at the top of "
              "the file: no torch, numpy, ctypes, os, sys, subprocess, importlib, cupy or CUDA bindings (the work "
              "must be the candidate's own kernels); no relative imports (a candidate is one file)",
    "triton_internal": "of triton only jit (as a decorator), cdiv, next_power_of_2 and the documented names of "
                       "triton.language (called; only its types and dtypes are values): the runtime, driver, "
                       "compiler, knobs, autotuner and allocator are the harness's; a kernel is used only as "
                       "kernel[grid](...) (a statement) or, in a kernel, called by name: its attributes and the "
                       "launch's value are Triton's internals; in a kernel only the tensor attributes the language "
                       "documents, and no host code",
    "dynamic_code": "no code the scan cannot read and no way out of the candidate's own names: names must be "
                    "defined in the file or be one of the few allowed builtins (no exec, eval, getattr, type, "
                    "vars, dir, __import__ ...); no dunder names or attributes; host code reads attributes only of "
                    "triton, triton.language and math and its parameters' buffer metadata; no subscript with a "
                    "string key but a grid function's meta['NAME']; str.format only on a literal without lookups; "
                    "no generators, coroutines, string annotations or typing beyond annotations",
    "file_io": "no files and no console input: a candidate reads nothing but its arguments",
    "state": "nothing is kept between calls: module-level names hold constants only (no lists, dicts or sets), "
             "defaults are constants, and no class, global, nonlocal, del, attribute assignment (a function's, "
             "a class's, a module's, a buffer's) or item assignment",
    "construct": "a Python construct outside the allowed language: with, try, match, comprehensions, walrus, "
                 "star-arguments, dict and set displays, lambdas or nested defs in a kernel, decorators other "
                 "than @triton.jit, module-level code other than imports, constants, defs and an "
                 "`if __name__ == \"__main__\":` block",
    "entry": "the entry is a top-level def with exactly the problem's parameters, in order",
}

# Modules a candidate may import, and why each is needed.
ALLOWED_MODULES = {
    "triton": "@triton.jit, triton.cdiv, triton.next_power_of_2",
    "triton.language": "the kernel language (tl.*)",
    "triton.language.math": "the language's math functions (tl.math.exp ...)",
    "triton.language.extra": "its libdevice (from triton.language.extra import libdevice)",
    "triton.language.extra.libdevice": "device math functions (erf, tanh, ...)",
    "triton.language.extra.cuda": "its libdevice",
    "triton.language.extra.cuda.libdevice": "device math functions (erf, tanh, ...)",
    "math": "host-side arithmetic for launch parameters (math.sqrt for a softmax scale)",
    "typing": "annotations",
}

# Of `triton`: what a candidate may name, and why.
TRITON_ALLOWED = {
    "jit": "marks a kernel (only as a decorator)",
    "cdiv": "ceil division for grids",
    "next_power_of_2": "block sizes",
    "language": "the kernel language",
}

# The calls a module-level constant (or a default, or a jit option) may be made of: pure functions of
# numbers (and the builtins of ALLOWED_BUILTINS but print).
CONSTANT_FUNCTIONS = {"triton.language.constexpr", "triton.language.cdiv", "triton.cdiv", "triton.next_power_of_2"}

# Of `triton`, refused with a reason of their own (any other name is refused with the rule's).
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

# Of `triton.language`: its documented API (triton.language.__all__ in 3.6, less its implementation
# modules and types that only Triton's own code constructs), and the two submodules a path may pass
# through. Everything else (core, semantic, standard, random, target_info, str_to_ty ...) is Triton's
# implementation, whose modules import Python's machinery (tl.core.builtins is Python's builtins).
TL_ALLOWED = {
    "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "abs", "add", "advance", "arange", "argmax", "argmin",
    "associative_scan", "assume", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or",
    "atomic_xchg", "atomic_xor", "bfloat16", "bitonic_merge", "broadcast", "broadcast_to", "cast", "cat", "cdiv",
    "ceil", "clamp", "condition", "const", "constexpr", "cos", "cumprod", "cumsum", "debug_barrier", "device_assert",
    "device_print", "div_rn", "dot", "dot_scaled", "dtype", "erf", "exp", "exp2", "expand_dims", "fdiv", "flip",
    "float16", "float32", "float64", "float8e4b15", "float8e4b8", "float8e4nv", "float8e5", "float8e5b16", "floor",
    "fma", "full", "gather", "histogram", "inline_asm_elementwise", "int1", "int16", "int32", "int64", "int8",
    "interleave", "join", "load", "load_tensor_descriptor", "log", "log2", "make_block_ptr", "make_tensor_descriptor",
    "map_elementwise", "max", "max_constancy", "max_contiguous", "maximum", "min", "minimum", "mul", "multiple_of",
    "num_programs", "pair_uniform_to_normal", "permute", "philox", "pointer_type", "program_id", "rand", "rand4x",
    "randint", "randint4x", "randn", "randn4x", "range", "ravel", "reduce", "reduce_or", "reshape", "rsqrt",
    "sigmoid", "sin", "slice", "softmax", "sort", "split", "sqrt", "sqrt_rn", "static_assert", "static_print",
    "static_range", "store", "store_tensor_descriptor", "sub", "sum", "swizzle2d", "tensor", "tensor_descriptor",
    "topk", "trans", "tuple", "uint16", "uint32", "uint64", "uint8", "uint_to_uniform_float", "umulhi", "view",
    "void", "where", "xor_sum", "zeros", "zeros_like",
    "math", "extra",  # submodules: only as steps of a longer path (tl.math.exp, tl.extra.cuda.libdevice.erf)
}

# The names of triton.language that may be used as values (not called): its types and dtypes
# (dtype=tl.float32, x: tl.constexpr, DTYPE = tl.bfloat16). Its functions are only called: several
# are JIT functions (tl.sum, tl.softmax, tl.cdiv ...), which as values can be launched as kernels
# (f[grid](...)) or handed to code that reaches their internals.
TL_VALUE_NAMES = {
    "bfloat16", "float16", "float32", "float64", "float8e4b15", "float8e4b8", "float8e4nv", "float8e5", "float8e5b16",
    "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "void", "constexpr", "const",
    "dtype", "tensor", "tensor_descriptor", "pointer_type", "tuple", "PropagateNan", "TRITON_MAX_TENSOR_NUMEL",
}

# Of `triton.language`, refused with a reason of their own.
TL_REFUSED = {
    "core": "Triton's implementation of the language: use the tl.* names",
    "semantic": "Triton's implementation of the language: use the tl.* names",
    "standard": "Triton's implementation of the language: use the tl.* names",
    "target_info": "Triton's implementation of the language: use the tl.* names",
}

# Of triton.language.math: its functions (the module also re-exports core, typing's List and functools).
TL_MATH_ALLOWED = {
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2", "rsqrt", "sin",
    "sqrt", "sqrt_rn", "umulhi",
}

# Of libdevice (triton.language.extra.libdevice and extra.cuda.libdevice): its device functions, no
# module (each libdevice module imports triton.language.core as `core`).
LIBDEVICE_ALLOWED = set("""
abs acos acosh add_rd add_rn add_ru add_rz asin asinh atan atan2 atanh brev byte_perm cbrt ceil clz copysign
cos cosh cospi cyl_bessel_i0 cyl_bessel_i1 div_rd div_rn div_ru div_rz double2float_rd double2float_rn
double2float_ru double2float_rz double2hiint double2int_rd double2int_rn double2int_ru double2int_rz
double2ll_rd double2ll_rn double2ll_ru double2ll_rz double2loint double2uint_rd double2uint_rn double2uint_ru
double2uint_rz double2ull_rd double2ull_rn double2ull_ru double2ull_rz double_as_longlong erf erfc erfcinv
erfcx erfinv exp exp10 exp2 expm1 fast_cosf fast_dividef fast_exp10f fast_expf fast_log10f fast_log2f
fast_logf fast_powf fast_sinf fast_tanf fast_tanhf fdim ffs finitef float2int_rd float2int_rn float2int_ru
float2int_rz float2ll_rd float2ll_rn float2ll_ru float2ll_rz float2uint_rd float2uint_rn float2uint_ru
float2uint_rz float2ull_rd float2ull_rn float2ull_ru float2ull_rz float_as_int float_as_uint floor fma fma_rd
fma_rn fma_ru fma_rz fmod hadd hiloint2double hypot ilogb int2double_rn int2float_rd int2float_rn int2float_ru
int2float_rz int_as_float isfinited isinf isnan j0 j1 jn ldexp lgamma ll2double_rd ll2double_rn ll2double_ru
ll2double_rz ll2float_rd ll2float_rn ll2float_ru ll2float_rz llrint llround log log10 log1p log2 logb
longlong_as_double mul24 mul_rd mul_rn mul_ru mul_rz mulhi nearbyint nextafter norm3d norm4d normcdf normcdfinv
popc pow rcbrt rcp64h rcp_rd rcp_rn rcp_ru rcp_rz remainder rhadd rhypot rint rnorm3d rnorm4d round rsqrt
rsqrt_rn sad saturatef scalbn signbit sin sinh sinpi sqrt sqrt_rd sqrt_rn sqrt_ru sqrt_rz sub_rd sub_rn sub_ru
sub_rz tan tanh tgamma trunc uint2double_rn uint2float_rd uint2float_rn uint2float_ru uint2float_rz
uint_as_float ull2double_rd ull2double_rn ull2double_ru ull2double_rz ull2float_rd ull2float_rn ull2float_ru
ull2float_rz y0 y1 yn
""".split())

# Of Python's math: every public name (pure functions of numbers and constants), as in Python 3.11.
MATH_ALLOWED = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "comb", "copysign", "cos", "cosh",
    "degrees", "dist", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "factorial", "floor", "fmod", "frexp",
    "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf", "isnan", "isqrt", "lcm", "ldexp",
    "lgamma", "log", "log10", "log1p", "log2", "modf", "nan", "nextafter", "perm", "pi", "pow", "prod", "radians",
    "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "tau", "trunc", "ulp",
}

# typing's annotation names, allowed in annotations only: its other functions evaluate strings as
# code (get_type_hints, ForwardRef) or reach other modules (typing.sys).
TYPING_ALLOWED = {"Any", "Optional", "Union", "Tuple", "List", "Dict", "Sequence", "Callable", "Iterable"}

# Every module a path may walk, with the names it may take in each (the value: the module a name
# leads to, or None for a function, type or constant, where the path ends).
MODULE_MEMBERS = {
    "triton": {**{n: None for n in TRITON_ALLOWED}, "language": "triton.language"},
    "triton.language": {**{n: None for n in TL_ALLOWED}, "math": "triton.language.math",
                        "extra": "triton.language.extra"},
    "triton.language.math": {n: None for n in TL_MATH_ALLOWED},
    "triton.language.extra": {"libdevice": "triton.language.extra.libdevice", "cuda": "triton.language.extra.cuda"},
    "triton.language.extra.cuda": {"libdevice": "triton.language.extra.cuda.libdevice"},
    "triton.language.extra.libdevice": {n: None for n in LIBDEVICE_ALLOWED},
    "triton.language.extra.cuda.libdevice": {n: None for n in LIBDEVICE_ALLOWED},
    "math": {n: None for n in MATH_ALLOWED},
    "typing": {n: None for n in TYPING_ALLOWED},
}

# The builtins a candidate may call (never use as values), each pure on the values a candidate can
# hold (numbers, strings, tuples, its buffers): no builtin that reaches an object's type, its
# attributes or a namespace (type, getattr, vars, dir, id, super, object ...).
ALLOWED_BUILTINS = {
    "abs": "arithmetic",
    "bool": "truth of a launch parameter",
    "float": "float('-inf') for masks, scales",
    "int": "integer launch parameters",
    "len": "the rank of a shape",
    "max": "clamping block sizes and grids (and tl's max in a kernel)",
    "min": "clamping block sizes and grids (persistent grids: min(NUM_SMS, tiles))",
    "print": "stdout is the candidate's (debugging)",
    "range": "loops (host and kernel)",
    "str": "a dtype's name (str(A.dtype) == 'bfloat16')",
}

# Builtin types allowed as annotations (def f(n: int) -> int).
ANNOTATION_BUILTINS = {"int", "float", "bool", "str"}

# The exceptions a candidate may raise (`raise ValueError(...)` on a shape it does not support). Not
# SystemExit, KeyboardInterrupt, GeneratorExit or BaseException: they end or interrupt the process
# (the harness's), or pose as the tool's own exit.
ALLOWED_EXCEPTIONS = {"AssertionError", "NotImplementedError", "RuntimeError", "TypeError", "ValueError"}

# What host code may read of a buffer (docs/triton.md, "The candidate ABI"), on a parameter only:
# True for a method (it must be called at once), False for a property.
BUFFER_METADATA = {"data_ptr": True, "stride": True, "size": True, "element_size": True, "numel": True,
                   "dtype": False, "shape": False}

# What a kernel may read of a tensor, a tensor descriptor or a block pointer: the language's
# documented tensor members. Not .handle, .type (the IR value and type: Triton's internals).
TENSOR_ATTRIBUTES = {
    "T", "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_add", "atomic_and", "atomic_cas",
    "atomic_max", "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "block_shape", "broadcast_to", "cast",
    "cdiv", "ceil", "cos", "cumprod", "cumsum", "dtype", "erf", "exp", "exp2", "expand_dims", "flip", "floor",
    "gather", "histogram", "item", "load", "log", "log2", "logical_and", "logical_or", "max", "min", "numel",
    "permute", "ravel", "reduce", "reduce_or", "reshape", "rsqrt", "scatter", "shape", "sigmoid", "sin", "softmax",
    "sort", "split", "sqrt", "sqrt_rn", "store", "sum", "to", "trans", "view", "xor_sum",
}

# The language's functions that take a kernel of the file by name, inside a kernel (a combine
# function: tl.reduce(x, 0, combine), x.reduce(0, combine)); the code generator inlines it. A kernel
# passed anywhere else would reach code that can subscript it (a launch at compile time).
COMBINE_FUNCTIONS = {"reduce", "associative_scan", "map_elementwise"}

# @triton.jit(...) options a candidate may give, as constants. Not launch_metadata or repr: hooks
# Triton calls with the launch's internals.
JIT_OPTIONS = {"do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline"}

# Attribute names refused with dynamic_code's own message wherever they appear: each leads from a
# value to the interpreter (frames, code, builtins) or to another module. Named so a refusal says
# why; the allowlist refuses them (and every other name) anyway.
ESCAPE_ATTRIBUTES = {
    "builtins", "inspect", "knobs", "pkgutil", "ir", "os", "sys", "importlib", "subprocess", "ctypes", "runtime",
    "compiler", "backends", "exec", "eval", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code",
    "cr_await", "ag_frame", "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
    "tb_frame", "tb_next", "format_map", "get_type_hints", "ForwardRef", "import_module", "resolve_name",
    "find_spec", "load_module", "exec_module", "get_data", "system", "popen", "environ", "getenv", "modules",
    "get_capture_scope", "mro",
}

# Attribute names refused with triton_internal's message wherever they appear: a JIT function's and
# a compiled kernel's internals. The one launch the harness accounts for is kernel[grid](...).
KERNEL_INTERNAL_ATTRIBUTES = {
    name: "a JIT function's or compiled kernel's internals; launch with kernel[grid](...)"
    for name in ("device_caches", "warmup", "run", "fn", "src", "pre_run_hooks", "used_global_vals", "asm",
                 "packed_metadata", "function", "launcher", "launch_metadata", "cache_key", "preload",
                 "add_pre_run_hook", "create_binder", "params", "signature", "metadata", "kernel")
}

# Builtins refused with a reason of their own, wherever the name appears (called, passed on or bound:
# `def f(o=open)` would otherwise carry the builtin past a call check); any other builtin off
# ALLOWED_BUILTINS is refused as dynamic_code.
FORBIDDEN_BUILTINS = {
    "exec": ("dynamic_code", "runs code the scan cannot see"),
    "eval": ("dynamic_code", "runs code the scan cannot see"),
    "compile": ("dynamic_code", "builds code the scan cannot see"),
    "__import__": ("dynamic_code", "imports a module past the import rule"),
    "globals": ("dynamic_code", "reaches a namespace by name"),
    "locals": ("dynamic_code", "reaches a namespace by name"),
    "vars": ("dynamic_code", "reaches a namespace by name"),
    "dir": ("dynamic_code", "lists a namespace"),
    "getattr": ("dynamic_code", "reaches an attribute by a computed name"),
    "setattr": ("dynamic_code", "changes an attribute by a computed name"),
    "delattr": ("dynamic_code", "changes an attribute by a computed name"),
    "type": ("dynamic_code", "reaches an object's class (and from there its hierarchy)"),
    "breakpoint": ("dynamic_code", "starts a debugger"),
    "help": ("dynamic_code", "pydoc imports modules by name"),
    "exit": ("dynamic_code", "ends the process"),
    "quit": ("dynamic_code", "ends the process"),
    "SystemExit": ("dynamic_code", "ends the process (or poses as the tool's own exit)"),
    "KeyboardInterrupt": ("dynamic_code", "interrupts the process"),
    "license": ("file_io", "reads files"),
    "credits": ("file_io", "reads files"),
    "copyright": ("file_io", "reads files"),
    "open": ("file_io", "a candidate reads and writes no files"),
    "input": ("file_io", "a candidate reads no input"),
}

# The one dunder name a candidate may use, and only as `if __name__ == "__main__":` at module level
# (a block that never runs under the harness). Every other (__builtins__, __loader__ with its
# get_data, __spec__, __file__ ...) reaches the interpreter.
ALLOWED_DUNDER_NAMES = {"__name__"}
