"""The scan's reading of a candidate's syntax tree, by allowlist: every statement, name, attribute
and subscript must be one rules.py allows, in the place it allows it (module level, a @triton.jit
kernel, host code); anything else is a finding. Nothing of the candidate is run or imported.

Two passes: ModuleFacts says what each module-level name is (an import of an allowed module, a
kernel, a host function, a constant); Checker walks the tree with the scope of each function, so
every name resolves to a parameter, a local, a module-level name of the file or an allowed builtin.
"""
import ast
import string

from . import rules

TRITON_JIT = "triton.jit"


def is_dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def attribute_chain(node):
    """`a.b.c` -> (Name a, ["b", "c"]); (None, [...]) when the chain does not start at a name."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    attrs.reverse()
    return (node if isinstance(node, ast.Name) else None), attrs


class PathVerdict:
    """Where a dotted path into the allowed modules leads: a module, a member (a function, type or
    constant: the path ends there), or a refusal (rule, why)."""

    def __init__(self, kind, refusal=None):
        self.kind = kind  # "module", "member" or "refused"
        self.refusal = refusal


def escape_refusal(attr):
    """(rule, message) for a dunder or escape attribute, wherever it is."""
    if is_dunder(attr):
        return "dynamic_code", f"the dunder attribute '.{attr}' is not allowed ({rules.RULES['dynamic_code']})"
    return "dynamic_code", (f"the attribute '.{attr}' is not allowed: it leads out of the candidate's code to the "
                            "interpreter or another module")


def _refusal_in(module, name, dotted):
    """(rule, message) for `name`, which `module` does not allow."""
    own = {"triton": rules.TRITON_REFUSED, "triton.language": rules.TL_REFUSED}.get(module, {})
    if is_dunder(name) or (name in rules.ESCAPE_ATTRIBUTES and name not in own):
        return escape_refusal(name)
    if module == "triton":
        why = rules.TRITON_REFUSED.get(name, rules.RULES["triton_internal"])
        return "triton_internal", f"'{dotted}' is not allowed: {why}"
    if module == "triton.language":
        why = rules.TL_REFUSED.get(name, "not a documented name of triton.language (its other names are Triton's "
                                         "implementation)")
        return "triton_internal", f"'{dotted}' is not allowed: {why}"
    if module.startswith("triton."):
        return "triton_internal", (f"'{dotted}' is not allowed: of {module} only its documented functions (its other "
                                   "names are Triton's implementation)")
    if module == "typing":
        return "dynamic_code", (f"'{dotted}' is not allowed: of typing only {', '.join(sorted(rules.TYPING_ALLOWED))} "
                                "(its other functions evaluate strings as code or reach other modules)")
    return "dynamic_code", f"'{dotted}' is not allowed: not a public name of {module}"


def walk_path(parts, dotted):
    """The verdict on the path parts (["triton", "language", "dot"]) written as `dotted`."""
    module = parts[0]
    if module not in rules.MODULE_MEMBERS:
        return PathVerdict("refused", ("import", f"'{dotted}' is not allowed: {module} is not an allowed module"))
    for i, name in enumerate(parts[1:], 1):
        members = rules.MODULE_MEMBERS[module]
        if name not in members:
            return PathVerdict("refused", _refusal_in(module, name, dotted))
        if members[name] is None:  # a member: the path must end here
            if i + 1 < len(parts) and (is_dunder(parts[i + 1]) or parts[i + 1] in rules.ESCAPE_ATTRIBUTES):
                return PathVerdict("refused", escape_refusal(parts[i + 1]))
            if i + 1 < len(parts):
                rule = "triton_internal" if module.startswith("triton") else "dynamic_code"
                owner = ".".join(parts[:i + 1])
                return PathVerdict("refused", (rule, f"'{dotted}' is not allowed: the attributes of '{owner}' are "
                                                     "its implementation's, not the language's"))
            return PathVerdict("member")
        module = members[name]
    return PathVerdict("module")


def module_imported(name):
    """(rule, message) for `import name` of a module off the list; None when allowed."""
    if name in rules.ALLOWED_MODULES:
        return None
    if name == "triton" or name.startswith("triton."):
        verdict = walk_path(name.split("."), name)
        if verdict.kind == "refused":
            return verdict.refusal
        return "triton_internal", (f"import of '{name}' is not allowed: of triton only triton, triton.language "
                                   "and its libdevice may be imported")
    return "import", (f"import of '{name}' is not allowed: only triton, triton.language (with its libdevice), "
                      "math and typing may be imported (the work must be the candidate's own kernels)")


def bound_names(nodes):
    """The names a block of statements binds in its own scope (assignments, loops, defs, imports,
    with/except/match targets), not descending into the bodies of the functions it defines."""
    names = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            stack.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                stack.extend(node.args.defaults + [d for d in node.args.kw_defaults if d is not None])
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(node.args.defaults + [d for d in node.args.kw_defaults if d is not None])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        stack.extend(ast.iter_child_nodes(node))
    return names


def parameters_of(args):
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs] + \
        [a.arg for a in (args.vararg, args.kwarg) if a is not None]


class ModuleFacts:
    """First pass: what each module-level name stands for."""

    def __init__(self, tree):
        self.aliases = {}  # name -> dotted path of an allowed import ("tl" -> "triton.language")
        self.refused = set()  # names bound by refused imports (their uses are not reported again)
        self.kernels = []  # module-level @triton.jit functions, in order
        self.functions = set()  # module-level plain functions
        self.bound = bound_names(tree.body)
        for node in tree.body:
            if isinstance(node, ast.Import):
                self._import(node)
            elif isinstance(node, ast.ImportFrom):
                self._import_from(node)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(self.is_jit(d) for d in node.decorator_list):
                    self.kernels.append(node.name)
                else:
                    self.functions.add(node.name)
        self.kernel_names = set(self.kernels)
        self.functions -= self.kernel_names

    def _import(self, node):
        for a in node.names:
            bound = a.asname or a.name.split(".")[0]
            if module_imported(a.name):
                self.refused.add(bound)
            else:
                self.aliases[bound] = a.name if a.asname else bound  # `import triton.language` binds `triton`

    def _import_from(self, node):
        module = node.module or ""
        if node.level or module_imported(module):
            self.refused.update(a.asname or a.name for a in node.names)
            return
        for a in node.names:
            if a.name == "*":
                continue
            path = f"{module}.{a.name}"
            if walk_path(path.split("."), path).kind == "refused":
                self.refused.add(a.asname or a.name)
            else:
                self.aliases[a.asname or a.name] = path

    def path_of(self, node):
        """The dotted path an expression names through the allowed imports (`tl.dot` ->
        "triton.language.dot"), or None."""
        root, attrs = attribute_chain(node)
        if root is None or root.id not in self.aliases:
            return None
        return ".".join(self.aliases[root.id].split(".") + attrs)

    def is_jit(self, decorator):
        return self.path_of(decorator.func if isinstance(decorator, ast.Call) else decorator) == TRITON_JIT

    def is_module(self, name):
        path = self.aliases.get(name)
        return path is not None and walk_path(path.split("."), path).kind == "module"


class Scope:
    """A function's, a lambda's or the module's names."""

    def __init__(self, kind, parent=None, parameters=(), bound=(), jit=False):
        self.kind = kind  # "module", "function", "lambda" or "main" (the __main__ block)
        self.parent = parent
        self.parameters = set(parameters)
        self.bound = set(bound) | self.parameters
        self.jit = jit
        # A grid function's one parameter (Triton's meta dict): meta["BLOCK"] is allowed on it.
        self.grid_parameter = next(iter(parameters)) if len(parameters) == 1 and kind in ("function", "lambda") else None


class Checker:
    """Second pass: the findings, each {"rule", "line", "column", "message"}."""

    def __init__(self, facts):
        self.facts = facts
        self.findings = []
        self._seen = set()

    def find(self, rule, node, message):
        key = (rule, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1, message)
        if key not in self._seen:
            self._seen.add(key)
            self.findings.append({"rule": key[0], "line": key[1], "column": key[2], "message": message})

    # Names.
    def resolve(self, name, scope):
        """(what the name is, the scope that binds it): "parameter", "local", "refused" (a refused
        import), "module" (an allowed module), "member" (an allowed module's name), "kernel",
        "function", "constant" (any other module-level name), "builtin", "exception" or "unknown"."""
        while scope is not None and scope.kind != "module":
            if name in scope.parameters:
                return "parameter", scope
            if name in scope.bound:
                return "local", scope
            scope = scope.parent
        f = self.facts
        if name in f.refused:
            return "refused", scope
        if name in f.aliases:
            return ("module" if f.is_module(name) else "member"), scope
        if name in f.kernel_names:
            return "kernel", scope
        if name in f.functions:
            return "function", scope
        if name in f.bound:
            return "constant", scope
        if name in rules.ALLOWED_BUILTINS:
            return "builtin", scope
        if name in rules.ALLOWED_EXCEPTIONS:
            return "exception", scope
        return "unknown", scope

    def name(self, node, scope, role="value"):
        """A name read; role: "value", "call" or "annotation"."""
        name = node.id
        if name in rules.FORBIDDEN_BUILTINS and self.resolve(name, scope)[0] == "unknown":
            rule, why = rules.FORBIDDEN_BUILTINS[name]
            self.find(rule, node, f"'{name}' is not allowed: {why} (the name is reserved, even for your own variables)")
            return
        if is_dunder(name):
            self.find("dynamic_code", node, f"'{name}' is not allowed (a dunder name: {rules.RULES['dynamic_code']})")
            return
        kind, _ = self.resolve(name, scope)
        if kind == "kernel" and not (role == "call" and scope_is_jit(scope)):
            self.find("triton_internal", node, f"the kernel '{name}' may only be launched, as {name}[grid](...) in a "
                                               "statement (or called by name inside a kernel): as a value it hands "
                                               "Triton's JIT object (its caches, launcher, globals) to other code")
        elif kind == "function" and scope_is_jit(scope):
            self.find("triton_internal", node, f"a kernel calls only the file's kernels and the language's functions: "
                                               f"'{name}' is host code (the code generator would run it while compiling)")
        elif kind == "module":
            self.find("dynamic_code", node, f"using the module '{name}' as a value is not allowed: use it as {name}.name")
        elif kind == "member":
            self.member_used(node, self.facts.aliases[name], name, role)
        elif kind == "builtin" and role not in ("call", "annotation"):
            self.find("dynamic_code", node, f"the builtin '{name}' may only be called ({name}(...)), not used as a value")
        elif kind == "exception":
            self.find("dynamic_code", node, f"'{name}' may only be raised (raise {name}(...))")
        elif kind == "unknown":
            self.find("dynamic_code", node, f"'{name}' is not defined in the candidate and is not one of the builtins a "
                                            f"candidate may call ({', '.join(sorted(rules.ALLOWED_BUILTINS))})")

    def member_used(self, node, path, written, role):
        if path == TRITON_JIT:
            self.find("triton_internal", node, f"'{written}' is allowed only as a kernel's decorator (@triton.jit): "
                                               "a JIT function made at run time is not one of the file's kernels")
        elif (path.startswith("triton.language.") and role == "value"
              and path.rsplit(".", 1)[1] not in rules.TL_VALUE_NAMES):
            self.find("triton_internal", node, f"'{written}' may only be called: of triton.language only its types "
                                               "and dtypes are values (several of its functions are JIT functions, "
                                               "which as values can be launched or taken apart)")
        elif path.startswith("typing.") and role != "annotation":
            self.find("dynamic_code", node, f"'{written}' is allowed only in annotations (typing beyond its "
                                            "annotations evaluates strings or reaches other modules)")

    def bind(self, name, node, scope):
        """A name bound (assigned, a parameter, a def): reserved names, modules and kernels may not be."""
        if name in rules.FORBIDDEN_BUILTINS:
            rule, why = rules.FORBIDDEN_BUILTINS[name]
            self.find(rule, node, f"the name '{name}' is reserved ({why}), even for your own variables")
        elif is_dunder(name):
            self.find("dynamic_code", node, f"binding the dunder name '{name}' is not allowed")
        elif self.facts.is_module(name):
            self.find("dynamic_code", node, f"rebinding the module '{name}' is not allowed: use it as {name}.name")
        elif name in self.facts.kernel_names:
            self.find("triton_internal", node, f"rebinding the kernel name '{name}' is not allowed")

    # The module.
    def check_module(self, tree):
        scope = Scope("module")
        for node in tree.body:
            self.module_statement(node, scope)

    def module_statement(self, node, scope):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        if isinstance(node, ast.Import):
            return self.import_statement(node)
        if isinstance(node, ast.ImportFrom):
            return self.import_from_statement(node)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.target(target, scope)
            return self.constant(node.value, scope, "a module-level name")
        if isinstance(node, ast.AnnAssign):
            self.target(node.target, scope)
            self.annotation(node.annotation, scope)
            if node.value is not None:
                self.constant(node.value, scope, "a module-level name")
            return
        if isinstance(node, ast.FunctionDef):
            return self.function(node, scope, top=True)
        if isinstance(node, ast.If) and is_main_guard(node):
            if node.orelse:  # the else branch is what runs under the harness: module-level code
                self.find("construct", node.orelse[0], "an `else:` of the `__main__` test runs at import: "
                                                       "module-level code is not allowed")
            main = Scope("main", scope, bound=bound_names(node.body + node.orelse))
            return self.block(node.body + node.orelse, main)
        if isinstance(node, (ast.ClassDef, ast.AsyncFunctionDef, ast.Global, ast.Nonlocal, ast.Delete)):
            return self.statement(node, scope)
        if isinstance(node, ast.Pass):
            return None
        self.find("construct", node, "module-level code other than imports, constants, defs and an `if __name__ == "
                                     "\"__main__\":` block is not allowed (it runs at import): put it in a function")
        self.statement(node, scope, reported=True)

    def import_statement(self, node, nested=False):
        for a in node.names:
            found = module_imported(a.name)
            if found:
                self.find(found[0], node, found[1])
            elif nested:
                self.find("import", node, "imports belong at the top of the file")

    def import_from_statement(self, node, nested=False):
        module = node.module or ""
        if node.level:
            self.find("import", node, "relative imports are not allowed (a candidate is one file)")
            return
        found = module_imported(module)
        if found:
            self.find(found[0], node, found[1])
            return
        for a in node.names:
            if a.name == "*":
                self.find("import", node, f"'from {module} import *' is not allowed: name what you use")
                continue
            if is_dunder(a.name) or a.name in rules.ESCAPE_ATTRIBUTES:
                self.find("dynamic_code", node, f"'from {module} import {a.name}' is not allowed "
                                                f"({rules.RULES['dynamic_code']})")
                continue
            path = f"{module}.{a.name}"
            verdict = walk_path(path.split("."), path)
            if verdict.kind == "refused":
                self.find(verdict.refusal[0], node, verdict.refusal[1])
        if nested:
            self.find("import", node, "imports belong at the top of the file")

    def constant(self, node, scope, what, lists=False):
        """A value kept for the module's life (a module-level name, a default, a jit option): numbers,
        strings, tuples of them, arithmetic on them, module constants, names of the allowed modules
        (tl.bfloat16, math.pi) and calls of rules.CONSTANT_FUNCTIONS, math's or the allowed builtins
        on constants (tl.constexpr(0.5), math.sqrt(2), float('-inf'))."""
        culprit = self._not_constant(node, scope, lists)
        if culprit is None:
            self.expression(node, scope)
            return
        self.find("state", culprit, f"{what} may hold only a constant (a number, a string, a tuple of them, "
                                    "tl.constexpr(...) of one): it is kept between calls, so a list, dict, set, "
                                    "function or object there could carry results from one call to the next")
        if isinstance(culprit, (ast.List, ast.Dict, ast.Set)):
            for child in ast.iter_child_nodes(culprit):
                if isinstance(child, ast.expr):
                    self.expression(child, scope)
        else:
            self.expression(node, scope)

    def _not_constant(self, node, scope, lists):
        """The first part of `node` that is not a constant, or None."""
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.Tuple) or (lists and isinstance(node, ast.List)):
            parts = node.elts
        elif isinstance(node, ast.UnaryOp):
            parts = [node.operand]
        elif isinstance(node, ast.BinOp):
            parts = [node.left, node.right]
        elif isinstance(node, ast.Name):
            return None if self.resolve(node.id, scope)[0] in ("constant", "member") else node
        elif isinstance(node, ast.Attribute):
            return None if self.facts.path_of(node) else node
        elif isinstance(node, ast.Call) and self._constant_function(node.func, scope):
            parts = list(node.args) + [k.value for k in node.keywords]
        else:
            return node
        return next((c for c in (self._not_constant(p, scope, lists) for p in parts) if c is not None), None)

    def _constant_function(self, func, scope):
        if isinstance(func, ast.Name) and self.resolve(func.id, scope)[0] == "builtin":
            return func.id != "print"
        path = self.facts.path_of(func)
        return path is not None and (path.startswith("math.") or path in rules.CONSTANT_FUNCTIONS)

    # Functions.
    def function(self, node, scope, top):
        jit = top and node.name in self.facts.kernel_names
        for decorator in node.decorator_list:
            self.decorator(decorator, scope, top)
        if not jit:
            self.bind(node.name, node, scope)
        if getattr(node, "type_params", None):  # Python 3.12's def f[T](...)
            self.find("construct", node, "type parameters (def f[T](...)) are not allowed")
        self.parameters(node.args, scope)
        self.annotation(node.returns, scope)
        inner = Scope("function", scope, parameters_of(node.args), bound_names(node.body), jit=jit)
        self.block(node.body, inner)

    def decorator(self, node, scope, top):
        if not self.facts.is_jit(node):
            self.find("construct", node, "decorators other than @triton.jit are not allowed (a decorator runs code at "
                                         "import and may wrap the function, keeping state)")
            self.expression(node, scope)
        elif not top:
            self.find("construct", node, "a kernel is defined at module level, not inside a function")
        elif isinstance(node, ast.Call):
            self.jit_options(node, scope)

    def jit_options(self, node, scope):
        for arg in node.args:
            self.find("construct", arg, "@triton.jit(...) takes its options by keyword")
        for k in node.keywords:
            if k.arg not in rules.JIT_OPTIONS:
                self.find("triton_internal", k.value if k.arg is None else k, f"the @triton.jit option "
                          f"'{k.arg or '**'}' is not allowed: only {', '.join(sorted(rules.JIT_OPTIONS))} (the others "
                          "are hooks Triton calls with its launch internals)")
            else:
                self.constant(k.value, scope, f"the @triton.jit option '{k.arg}'", lists=True)

    def parameters(self, args, scope):
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            self.bind(a.arg, a, scope)
            self.annotation(a.annotation, scope)
        for a in (args.vararg, args.kwarg):
            if a is not None:
                self.find("construct", a, f"star-parameters (*{a.arg}, **{a.arg}) are not allowed: name each parameter")
                self.bind(a.arg, a, scope)
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.constant(d, scope, "a default value")

    def annotation(self, node, scope):
        """A parameter's, return's or variable's annotation: evaluated at definition, so it is code
        too; only type names (int, tl.constexpr, typing's Optional[...])."""
        if node is None:
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                self.find("dynamic_code", node, "a string annotation is not allowed: it is code for whoever "
                                                "evaluates it (typing.get_type_hints, eval)")
            elif node.value is not None and node.value is not Ellipsis:
                self.find("dynamic_code", node, "an annotation names a type")
        elif isinstance(node, ast.Name):
            kind, _ = self.resolve(node.id, scope)
            if kind == "builtin" and node.id not in rules.ANNOTATION_BUILTINS:
                self.find("dynamic_code", node, f"an annotation names a type: '{node.id}' is not one")
            elif kind in ("member", "builtin", "refused", "module"):
                self.name(node, scope, role="annotation")
            else:
                self.find("dynamic_code", node, f"an annotation names a type: int, float, bool, str, a triton.language "
                                                f"type or typing's; '{node.id}' is not one")
        elif isinstance(node, ast.Attribute):
            self.attribute(node, scope, annotation=True)
        elif isinstance(node, ast.Subscript) and self._typing_name(node.value, scope):
            self.annotation(node.value, scope)
            for element in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
                self.annotation(element, scope)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.annotation(node.left, scope)
            self.annotation(node.right, scope)
        elif isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                self.annotation(element, scope)
        else:
            self.find("dynamic_code", node, "an annotation names a type: int, float, bool, str, a triton.language "
                                            "type or typing's")

    def _typing_name(self, node, scope):
        path = self.facts.path_of(node)
        return path is not None and path.startswith("typing.")

    # Statements.
    def block(self, statements, scope):
        for node in statements:
            self.statement(node, scope)

    def statement(self, node, scope, reported=False):
        """One statement of a function (host or kernel) or of the __main__ block. `reported`: the
        statement itself was already refused (module-level code); its parts are still checked."""
        jit = scope_is_jit(scope)
        if isinstance(node, ast.Expr):
            if not jit and self.is_launch(node.value, scope):
                return self.launch(node.value, scope)
            return self.expression(node.value, scope)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.target(target, scope)
            return self.expression(node.value, scope)
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            self.target(node.target, scope)
            if isinstance(node, ast.AnnAssign):
                self.annotation(node.annotation, scope)
            return self.expression(node.value, scope)
        if isinstance(node, (ast.For, ast.While, ast.If)):
            if isinstance(node, ast.For):
                self.target(node.target, scope)
            self.expression(node.iter if isinstance(node, ast.For) else node.test, scope)
            return self.block(node.body + node.orelse, scope)
        if isinstance(node, ast.Return):
            return self.expression(node.value, scope)
        if isinstance(node, (ast.Pass, ast.Break, ast.Continue)):
            return None
        if isinstance(node, ast.Assert):
            self.expression(node.test, scope)
            return self.expression(node.msg, scope)
        if isinstance(node, ast.Raise) and not jit:
            return self.raise_statement(node, scope)
        if isinstance(node, ast.FunctionDef) and not jit:
            return self.function(node, scope, top=False)
        return self.refused_statement(node, scope, reported)

    def refused_statement(self, node, scope, reported):
        """A statement off the list: the finding, then its parts checked all the same (so that an
        `open` inside a `with`, say, is named for what it is)."""
        if isinstance(node, (ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith)):
            self.find("dynamic_code", node, "async code is not allowed (coroutines carry frames that lead to the "
                                            "caller's namespace)")
        elif isinstance(node, ast.ClassDef):
            self.find("state", node, f"'class {node.name}' is not allowed: a class's attributes outlive the call "
                                     "(state kept between calls), and its methods run inside Triton's and Python's "
                                     "own calls")
            return
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            word = "global" if isinstance(node, ast.Global) else "nonlocal"
            self.find("state", node, f"'{word} {', '.join(node.names)}' is not allowed ({rules.RULES['state']})")
            return
        elif isinstance(node, ast.Delete):
            self.find("state", node, "'del' is not allowed (it changes a module, an object or a container)")
            return
        elif isinstance(node, ast.Import):
            return self.import_statement(node, nested=True)
        elif isinstance(node, ast.ImportFrom):
            return self.import_from_statement(node, nested=True)
        elif not reported:
            self.find("construct", node, f"'{statement_word(node)}' is not allowed "
                                         f"({rules.RULES['construct']})")
        self.statement_parts(node, scope)

    def statement_parts(self, node, scope):
        inner = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.parameters(node.args, scope)
            inner = Scope("function", scope, parameters_of(node.args), bound_names(node.body), jit=scope_is_jit(scope))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statement(child, inner)
            elif isinstance(child, ast.expr):
                self.expression(child, inner)
            elif isinstance(child, (ast.withitem, ast.ExceptHandler, ast.match_case, ast.comprehension)):
                self.statement_parts(child, inner)

    def raise_statement(self, node, scope):
        if node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and self.resolve(exc.id, scope)[0] == "exception":
                if isinstance(node.exc, ast.Call):
                    self.arguments(node.exc, scope)
            elif isinstance(exc, ast.Name) and exc.id in rules.FORBIDDEN_BUILTINS:
                self.name(exc, scope)
            else:
                self.find("dynamic_code", node.exc, "a candidate may raise only "
                                                    f"{', '.join(sorted(rules.ALLOWED_EXCEPTIONS))}")
                self.expression(node.exc, scope)
        self.expression(node.cause, scope)

    def target(self, node, scope):
        """An assignment's (or a loop's) target: names only."""
        if isinstance(node, ast.Name):
            self.bind(node.id, node, scope)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.target(element, scope)
        elif isinstance(node, ast.Starred):
            self.find("construct", node, "starred assignment targets are not allowed")
            self.target(node.value, scope)
        elif isinstance(node, ast.Attribute):
            root, attrs = attribute_chain(node)
            owner = f"'{root.id}.{'.'.join(attrs)}'" if root is not None else f"'.{node.attr}'"
            if root is not None and self.resolve(root.id, scope)[0] in ("module", "member"):
                verdict = walk_path(self.facts.aliases[root.id].split(".") + attrs, owner.strip("'"))
                if verdict.kind == "refused":
                    self.find(verdict.refusal[0], node, verdict.refusal[1])
            self.find("state", node, f"assigning to {owner} is not allowed: an attribute (a function's, a class's, a "
                                     "module's, a kernel's or a buffer's) outlives the call, and the modules are the "
                                     "harness's")
        elif isinstance(node, ast.Subscript):
            self.find("state", node, "assigning to an item (x[k] = ...) is not allowed: a container that outlives "
                                     "the call keeps state (use local names and tuples)")
        else:
            self.find("construct", node, "assign to names only")

    # Launches.
    def is_launch(self, node, scope):
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
                and isinstance(node.func.value, ast.Name)
                and self.resolve(node.func.value.id, scope)[0] == "kernel")

    def launch(self, node, scope):
        """kernel[grid](...) as a statement: the grid (a tuple, a name or a lambda) and the arguments."""
        self.expression(node.func.slice, scope)
        self.arguments(node, scope)

    # Expressions.
    def expression(self, node, scope):
        if node is None or isinstance(node, ast.Constant):
            return
        jit = scope_is_jit(scope)
        if isinstance(node, ast.Name):
            return self.name(node, scope)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, scope)
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, scope)
        if isinstance(node, ast.Lambda) and not jit:
            return self.lambda_(node, scope)
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            self.find("dynamic_code", node, "generators and coroutines are not allowed (their frames lead to the "
                                            "caller's namespace)")
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            self.find("construct", node, "comprehensions are not allowed (a generator's frame leads to the caller's "
                                         "namespace): write the loop")
            return self.statement_parts(node, Scope("function", scope, (), bound_names(node.generators), jit=jit))
        elif isinstance(node, (ast.Dict, ast.Set)):
            self.find("construct", node, "dict and set displays are not allowed: use tuples (a candidate keeps no "
                                         "mappings)")
        elif isinstance(node, ast.NamedExpr):
            self.find("construct", node, "the walrus operator (:=) is not allowed: assign in a statement")
        elif isinstance(node, ast.Starred):
            self.find("construct", node, "star-unpacking is not allowed: pass each argument")
        elif isinstance(node, ast.Lambda):
            self.find("construct", node, "a lambda inside a kernel is not allowed")
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Tuple, ast.List,
                                   ast.JoinedStr, ast.FormattedValue, ast.Slice)):
            self.find("construct", node, f"'{type(node).__name__}' expressions are not allowed")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expression(child, scope)

    def lambda_(self, node, scope):
        self.parameters(node.args, scope)
        inner = Scope("lambda", scope, parameters_of(node.args))
        self.expression(node.body, inner)

    def call(self, node, scope):
        func = node.func
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and \
                self.resolve(func.value.id, scope)[0] == "kernel":
            self.find("triton_internal", node, f"a launch is a statement of its own ({func.value.id}[grid](...)): its "
                                               "value is Triton's compiled kernel, whose attributes are internals")
            self.launch(node, scope)
            return
        if isinstance(func, ast.Subscript):
            self.find("triton_internal", node, "calling a subscript's value (x[...](...)) is allowed only as the "
                                               "launch of one of the file's kernels, kernel[grid](...), a statement")
        if isinstance(func, ast.Name):
            self.name(func, scope, role="call")
        elif isinstance(func, ast.Attribute):
            self.attribute(func, scope, called=True)
        else:
            self.expression(func, scope)
        self.arguments(node, scope)

    def arguments(self, node, scope):
        combine = self.takes_combine_function(node, scope)
        for value in list(node.args) + [k.value for k in node.keywords]:
            if not (combine and isinstance(value, ast.Name) and self.resolve(value.id, scope)[0] == "kernel"):
                self.expression(value, scope)
        for k in node.keywords:
            if k.arg is None:
                self.find("construct", k.value, "**-unpacking is not allowed: pass each keyword")

    def takes_combine_function(self, node, scope):
        """A call inside a kernel of tl.reduce, tl.associative_scan, tl.map_elementwise (or the tensor
        methods): it may take one of the file's kernels by name, which the code generator inlines."""
        if not scope_is_jit(scope) or not isinstance(node.func, ast.Attribute):
            return False
        if node.func.attr not in rules.COMBINE_FUNCTIONS:
            return False
        path = self.facts.path_of(node.func)
        return path is None or path == f"triton.language.{node.func.attr}"

    def attribute(self, node, scope, called=False, annotation=False):
        attr = node.attr
        root, attrs = attribute_chain(node)
        if root is not None:
            kind, _ = self.resolve(root.id, scope)
            if kind in ("module", "member"):
                return self.module_path(node, root, attrs, called, annotation)
            if kind == "refused":
                return None
            if kind == "kernel":
                self.find("triton_internal", node, f"'{root.id}.{attrs[0]}' is not allowed: a kernel's attributes are "
                                                   f"Triton's internals; launch it as {root.id}[grid](...)")
                return None
        if is_dunder(attr) or attr in rules.ESCAPE_ATTRIBUTES:
            rule, message = escape_refusal(attr)
            self.find(rule, node, message)
            return self.expression(node.value, scope)
        if attr in rules.KERNEL_INTERNAL_ATTRIBUTES:
            self.find("triton_internal", node, f"the attribute '.{attr}' is not allowed: "
                                               f"{rules.KERNEL_INTERNAL_ATTRIBUTES[attr]}")
        elif scope_is_jit(scope):
            if attr not in rules.TENSOR_ATTRIBUTES:
                self.find("triton_internal", node, f"'.{attr}' is not allowed in a kernel: only the documented members of "
                                                   "a tensor or tensor descriptor (.to, .T, .load, .store, .reshape, "
                                                   ".dtype, .shape ...); the others are Triton's internals")
        elif not self.host_attribute_allowed(node, scope, called):
            return None
        return self.expression(node.value, scope)

    def host_attribute_allowed(self, node, scope, called):
        """Host code reads a parameter's buffer metadata and calls a literal's str.format; True when
        the receiver is still to be checked."""
        attr, value = node.attr, node.value
        if attr == "format" and isinstance(value, ast.Constant) and isinstance(value.value, str):
            if not called:
                self.find("dynamic_code", node, "str.format may only be called on a literal")
            elif _format_looks_up(value.value):
                self.find("dynamic_code", node, "a format string that looks up attributes or items ('{0.x}', "
                                                "'{0[k]}') is not allowed; use an f-string")
            return False
        if attr == "format":
            self.find("dynamic_code", node, "str.format on a computed string is not allowed (a format string can look "
                                            "up attributes); use an f-string")
            return True
        if attr in rules.BUFFER_METADATA and isinstance(value, ast.Name) and \
                self.resolve(value.id, scope)[0] == "parameter":
            if rules.BUFFER_METADATA[attr] and not called:
                self.find("dynamic_code", node, f"'{value.id}.{attr}' is a method: call it ({value.id}.{attr}(...))")
            return False
        self.find("dynamic_code", node, f"the attribute '.{attr}' is not allowed here: host code reads only its "
                                        f"parameters' buffer metadata ({', '.join(sorted(rules.BUFFER_METADATA))}) "
                                        "and the names of triton, triton.language and math")
        return True

    def module_path(self, node, root, attrs, called, annotation):
        written = ".".join([root.id] + attrs)
        parts = self.facts.aliases[root.id].split(".") + attrs
        verdict = walk_path(parts, written)
        if verdict.kind == "refused":
            self.find(verdict.refusal[0], node, verdict.refusal[1])
        elif verdict.kind == "module":
            self.find("dynamic_code", node, f"using the module '{written}' as a value is not allowed: use its names "
                                            "as module.name")
        else:
            self.member_used(node, ".".join(parts), written, "annotation" if annotation else "call" if called else "value")

    def subscript(self, node, scope):
        value, index = node.value, node.slice
        if isinstance(value, ast.Name) and self.resolve(value.id, scope)[0] == "kernel":
            self.find("triton_internal", node, f"'{value.id}[...]' is allowed only as a launch statement, "
                                               f"{value.id}[grid](...)")
            return self.expression(index, scope)
        path = self.facts.path_of(value)
        if path is not None:
            if path.startswith("typing."):
                self.find("dynamic_code", node, f"'{ast.unparse(value)}[...]' is allowed only in annotations")
            else:
                self.find("triton_internal", node, f"subscripting '{ast.unparse(value)}' is not allowed (Triton's own "
                                                   "JIT functions are not the candidate's kernels)")
            return self.expression(index, scope)
        if _holds_string(index):
            if self.is_grid_meta(node, scope):
                return None
            self.find("dynamic_code", node, "a subscript with a string key (x['name']) is not allowed: it reaches into "
                                            "a mapping by name; only a grid function's meta['BLOCK'] may")
        self.expression(value, scope)
        self.expression(index, scope)

    def is_grid_meta(self, node, scope):
        """meta['BLOCK'] on the one parameter of a host lambda or function: Triton's dict of the launch's
        arguments handed to a grid function."""
        value, index = node.value, node.slice
        if scope_is_jit(scope) or not isinstance(value, ast.Name):
            return False
        kind, owner = self.resolve(value.id, scope)
        key = index.value if isinstance(index, ast.Constant) else None
        return (kind == "parameter" and owner.grid_parameter == value.id and isinstance(key, str)
                and key.isidentifier() and not is_dunder(key))


def scope_is_jit(scope):
    while scope is not None:
        if scope.jit:
            return True
        scope = scope.parent
    return False


def is_main_guard(node):
    """`if __name__ == "__main__":` (either way round)."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(mains) == 1


def statement_word(node):
    words = {ast.With: "with", ast.Try: "try", ast.Match: "match", ast.Raise: "raise in a kernel",
             ast.FunctionDef: "a def inside a kernel", ast.AugAssign: "augmented assignment at module level",
             ast.For: "for at module level", ast.While: "while at module level"}
    if hasattr(ast, "TryStar"):
        words[ast.TryStar] = "try"
    return words.get(type(node), type(node).__name__)


def _holds_string(node):
    """Whether a subscript's index is (or contains) a string: a literal, an f-string, str(...) or a
    .format(...) call."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, (str, bytes)):
            return True
        if isinstance(sub, ast.JoinedStr):
            return True
        if isinstance(sub, ast.Call) and ((isinstance(sub.func, ast.Name) and sub.func.id == "str")
                                          or (isinstance(sub.func, ast.Attribute) and sub.func.attr == "format")):
            return True
    return False


def _format_looks_up(text):
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return True  # malformed: refuse rather than guess
    return any("." in f or "[" in f for f in fields)


def scan_module(tree):
    """(findings, names of the @triton.jit kernels) for a parsed candidate."""
    facts = ModuleFacts(tree)
    checker = Checker(facts)
    checker.check_module(tree)
    return checker.findings, facts.kernels


def entry_findings(tree, entry, parameters):
    """(found, parameter names, findings) for the entry function."""
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry]
    if not defs:
        return False, [], [{"rule": "entry", "line": 1, "column": 1,
                            "message": f"no top-level function '{entry}' (def {entry}(...)) in the candidate"}]
    node = defs[-1]  # the one Python keeps
    a = node.args
    names = [p.arg for p in a.posonlyargs + a.args]
    out = []

    def problem(message):
        out.append({"rule": "entry", "line": node.lineno, "column": node.col_offset + 1, "message": message})

    if len(defs) > 1:
        problem(f"{entry} is defined {len(defs)} times; define it once")
    if isinstance(node, ast.AsyncFunctionDef):
        problem(f"{entry} must be a plain def, not async")
    if node.decorator_list:
        problem(f"{entry} is host code: no decorators (the kernels it launches are the @triton.jit functions)")
    if parameters and names != parameters:
        problem(f"{entry} takes ({', '.join(names)}); the problem passes ({', '.join(parameters)}) in this order")
    if a.vararg or a.kwarg or a.kwonlyargs:
        problem(f"{entry} must take exactly the problem's positional parameters (no *args, **kwargs or "
                "keyword-only parameters)")
    return True, names, out
