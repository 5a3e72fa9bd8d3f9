"""The scan's reading of a candidate's syntax tree: which names are modules and kernels, and every
use the rules (rules.py) refuse. Nothing of the candidate is run or imported.
"""
import ast
import string

from . import rules


def _is_dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def attribute_chain(node):
    """`a.b.c` -> (Name a, ["b", "c"]); (None, [...]) when the chain does not start at a name."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    attrs.reverse()
    return (node if isinstance(node, ast.Name) else None), attrs


def refused_path(parts):
    """Why a dotted path into an allowed module is refused, as (rule, message); None if it is fine."""
    dotted = ".".join(parts)
    if parts[0] == "triton" and len(parts) > 1:
        if parts[1] not in rules.TRITON_ALLOWED:
            why = rules.TRITON_REFUSED.get(parts[1], rules.RULES["triton_internal"])
            return "triton_internal", f"'{dotted}' is not allowed: {why}"
        if parts[1] == "language" and len(parts) > 2 and parts[2] in rules.TL_REFUSED:
            return "triton_internal", f"'{dotted}' is not allowed: {rules.TL_REFUSED[parts[2]]}"
        inner = [p for p in parts[1:-1] if p not in rules.TL_PATH_STEPS]
        if inner:
            return "triton_internal", (f"'{dotted}' is not allowed: a path into triton.language may pass only "
                                       f"through {', '.join(sorted(rules.TL_PATH_STEPS))} ('{inner[0]}' is Triton's "
                                       "implementation)")
    if parts[0] == "typing" and len(parts) > 1 and parts[1] not in rules.TYPING_ALLOWED:
        return "dynamic_code", (f"'{dotted}' is not allowed: of typing only {', '.join(sorted(rules.TYPING_ALLOWED))} "
                                "(its other functions evaluate strings as code or reach other modules)")
    return None


def module_imported(name):
    """(rule, message) for `import name` of a module off the list; None when allowed."""
    if name in rules.ALLOWED_MODULES:
        return None
    if name == "triton" or name.startswith("triton."):
        parts = name.split(".")
        found = refused_path(parts)
        if found:
            return found
        return "triton_internal", (f"import of '{name}' is not allowed: of triton only triton, triton.language "
                                   "and its libdevice may be imported")
    return "import", (f"import of '{name}' is not allowed: only triton, triton.language (with its libdevice), "
                      "math and typing may be imported (the work must be the candidate's own kernels)")


class Names(ast.NodeVisitor):
    """First pass: what each imported name stands for, and which functions are kernels."""

    def __init__(self):
        self.aliases = {}  # local name -> dotted path it was imported as ("tl" -> "triton.language")
        self.jit_kernels = []

    def visit_Import(self, node):
        for a in node.names:
            if a.name in rules.ALLOWED_MODULES:
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:  # `import triton.language` binds `triton`
                    self.aliases[a.name.split(".")[0]] = a.name.split(".")[0]

    def visit_ImportFrom(self, node):
        if node.level or node.module not in rules.ALLOWED_MODULES:
            return
        for a in node.names:
            if a.name != "*":
                self.aliases[a.asname or a.name] = node.module + "." + a.name

    def visit_FunctionDef(self, node):
        if any(self.is_jit(d) for d in node.decorator_list):
            self.jit_kernels.append(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def is_jit(self, decorator):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        root, attrs = attribute_chain(target)
        if root is None:
            return False
        path = self.aliases.get(root.id, root.id).split(".") + attrs
        return path == ["triton", "jit"] or path[-1] == "jit"


class Scanner(ast.NodeVisitor):
    """Second pass: the findings, each {"rule", "line", "column", "message"}."""

    def __init__(self, names):
        self.aliases = names.aliases
        self.kernels = set(names.jit_kernels)
        self.modules = {n for n, path in self.aliases.items() if path in rules.ALLOWED_MODULES}
        self.findings = []
        self._checked = set()  # ids of inner nodes of a chain already checked through its outermost node
        self._called = set()  # ids of the nodes that are called (f in f(...))

    def find(self, rule, node, message):
        self.findings.append({"rule": rule, "line": getattr(node, "lineno", 0),
                              "column": getattr(node, "col_offset", -1) + 1, "message": message})

    # Imports.
    def visit_Import(self, node):
        for a in node.names:
            found = module_imported(a.name)
            if found:
                self.find(found[0], node, found[1])

    def visit_ImportFrom(self, node):
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
            found = refused_path(module.split(".") + [a.name])
            if found:
                self.find(found[0], node, found[1])
            elif _is_dunder(a.name) or a.name in rules.ESCAPE_ATTRIBUTES:
                self.find("dynamic_code", node, f"'from {module} import {a.name}' is not allowed "
                                                f"({rules.RULES['dynamic_code']})")

    # Attributes: the path from a module, escapes from any value, kernels' internals.
    def visit_Attribute(self, node):
        if _is_dunder(node.attr):
            self.find("dynamic_code", node, f"the dunder attribute '.{node.attr}' is not allowed "
                                            f"({rules.RULES['dynamic_code']})")
        elif node.attr in rules.ESCAPE_ATTRIBUTES:
            self.find("dynamic_code", node, f"the attribute '.{node.attr}' is not allowed: it leads out of the "
                                            "candidate's code to the interpreter or another module")
        elif node.attr in rules.KERNEL_INTERNAL_ATTRIBUTES:
            self.find("triton_internal", node, f"the attribute '.{node.attr}' is not allowed: "
                                               f"{rules.KERNEL_INTERNAL_ATTRIBUTES[node.attr]}")
        if id(node) not in self._checked:
            root, attrs = attribute_chain(node)
            inner = node.value
            while isinstance(inner, ast.Attribute):
                self._checked.add(id(inner))
                inner = inner.value
            if root is not None:
                self._checked.add(id(root))  # a module or kernel used as `x.attr`, not as a value
                if root.id in self.aliases:
                    found = refused_path(self.aliases[root.id].split(".") + attrs)
                    if found:
                        self.find(found[0], node, found[1])
                    elif attrs[-1] in rules.MODULE_NAMES and id(node) not in self._called:
                        self.find("dynamic_code", node, f"using the module '{root.id}.{'.'.join(attrs)}' as a value is "
                                                        "not allowed: use its names as module.name")
                elif root.id in self.kernels:
                    self.find("triton_internal", node, f"'{root.id}.{attrs[0]}' is not allowed: launch a kernel as "
                                                       f"{root.id}[grid](...), its other attributes are Triton's")
        self.generic_visit(node)

    def visit_Call(self, node):
        self._called.add(id(node.func))
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "format":
            fmt = f.value
            if not (isinstance(fmt, ast.Constant) and isinstance(fmt.value, str)):
                self.find("dynamic_code", node, "str.format on a computed string is not allowed (a format string "
                                                "can look up attributes); use an f-string")
            elif _format_looks_up(fmt.value):
                self.find("dynamic_code", node, "a format string that looks up attributes or items "
                                                "('{0.x}', '{0[k]}') is not allowed; use an f-string")
        self.generic_visit(node)

    # Names: builtins that escape, dunders, modules as values.
    def visit_Name(self, node):
        name = node.id
        if _is_dunder(name) and name not in rules.ALLOWED_DUNDER_NAMES:
            self.find("dynamic_code", node, f"'{name}' is not allowed ({rules.RULES['dynamic_code']})")
        elif name in rules.FORBIDDEN_BUILTINS:
            rule, why = rules.FORBIDDEN_BUILTINS[name]
            self.find(rule, node, f"'{name}' is not allowed: {why} (the name is reserved, even for your own "
                                  "variables)")
        elif name in self.modules and id(node) not in self._checked:
            verb = "rebinding" if isinstance(node.ctx, (ast.Store, ast.Del)) else "using"
            self.find("dynamic_code", node, f"{verb} the module '{name}' as a value is not allowed: use it as "
                                            f"{name}.name")

    def visit_arg(self, node):
        if node.arg in rules.FORBIDDEN_BUILTINS:
            rule, why = rules.FORBIDDEN_BUILTINS[node.arg]
            self.find(rule, node, f"a parameter named '{node.arg}' is not allowed: the name is reserved ({why})")
        elif _is_dunder(node.arg):
            self.find("dynamic_code", node, f"a parameter named '{node.arg}' is not allowed (a dunder name)")
        self.generic_visit(node)

    # State kept between calls, or the harness's modules changed.
    def visit_Global(self, node):
        self.find("state", node, f"'global {', '.join(node.names)}' is not allowed ({rules.RULES['state']})")

    def visit_Nonlocal(self, node):
        self.find("state", node, f"'nonlocal {', '.join(node.names)}' is not allowed ({rules.RULES['state']})")

    def _check_targets(self, targets):
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute):
                    root, attrs = attribute_chain(sub)
                    if root is not None and (root.id in self.aliases or root.id in self.kernels):
                        self.find("state", sub, f"assigning to '{root.id}.{'.'.join(attrs)}' is not allowed: it "
                                                "changes a module or kernel the harness shares")
                        break

    def visit_Assign(self, node):
        self._check_targets(node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._check_targets([node.target])
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._check_targets([node.target])
        self.generic_visit(node)

    def visit_Delete(self, node):
        self._check_targets(node.targets)
        self.generic_visit(node)


def _format_looks_up(text):
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return True  # malformed: refuse rather than guess
    return any("." in f or "[" in f for f in fields)


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
