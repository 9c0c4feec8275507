"""Ground truth for Python call sites of module-level functions, and for reads and writes of
module-level variables, from Python's own ast and symtable.

Why this is defensible: a module-level function can be called statically only
through a name bound to it: its own name in its module, a `from m import f [as g]`
binding, or an attribute of a name bound to its module (`m.f()`,
`pkg.m.f()`). Python's scoping rules (symtable says whether a name in a
function is global, local or free) and the import statements decide every such
call exactly. What this oracle cannot see (aliases `g = f`, `getattr`,
`importlib`, functions passed as values) no static tool sees either; those
calls are left out of the truth, so recall is measured on the calls a static
tool can be expected to find, and precision counts every answered site.

Module-level variables (a name bound once at module level by an assignment)
are decided the same way: a load of a name bound to it (its own name where
the scope sees the module's binding, a `from m import X` binding, `m.X`) reads
it; a store or `del` (`global X` in a function, `m.X = ...`, `X += 1`) writes
it. Attributes of classes and instances are not covered: which object a
`self.x` denotes is decided at run time.

Usage: python3 py_truth.py ROOT PACKAGE  ->  JSON on stdout
"""
import ast
import json
import os
import symtable
import sys

ROOT, PACKAGE = sys.argv[1], sys.argv[2]


def module_name(rel):
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


modules = {}  # name -> (rel, tree, source lines, symtable)
for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, PACKAGE)):
    dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
    for fn in sorted(filenames):
        if not fn.endswith(".py"):
            continue
        abs_path = os.path.join(dirpath, fn)
        rel = os.path.relpath(abs_path, ROOT).replace(os.sep, "/")
        with open(abs_path, encoding="utf-8") as f:
            src = f.read()
        try:
            tree = ast.parse(src)
            table = symtable.symtable(src, rel, "exec")
        except SyntaxError:
            continue
        modules[module_name(rel)] = (rel, tree, src.splitlines(), table)


def utf16_col(lines, lineno, byte_col):
    line = lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace")
    return sum(2 if ord(c) > 0xFFFF else 1 for c in line)


def is_package(mod):
    return modules[mod][0].endswith("__init__.py")


def resolve_relative(mod, level, name):
    base = mod.split(".")
    if not is_package(mod):
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([p for p in base + ([name] if name else []) if p])


# Module-level bindings: name -> ("def", module, name, node) | ("module", module) | ("from", module, name) | ("other",)
bindings = {}
stars = {}  # module -> modules it star-imports
defs = {}  # (module, name) -> key
targets = []
var_keys = {}  # (module, name) -> [key of each module-level assignment]
for mod, (rel, tree, lines, table) in modules.items():
    b = {}
    counts = {}

    def bind(name, value):
        counts[name] = counts.get(name, 0) + 1
        b[name] = value

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bind(node.name, ("def", mod, node.name))
            col = utf16_col(lines, node.lineno, node.col_offset) + (len("async def ") if isinstance(node, ast.AsyncFunctionDef) else len("def "))
            # decorators shift lineno to the def line in 3.8+: lineno is the `def` line
            key = "%s:%d:%d" % (rel, node.lineno, col)
            defs[(mod, node.name)] = key
            targets.append({"key": key, "module": mod, "name": node.name, "start": node.lineno, "end": node.end_lineno, "path": rel})
        elif isinstance(node, ast.ClassDef):
            bind(node.name, ("other",))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    bind(a.asname, ("module", a.name))
                else:
                    bind(a.name.split(".")[0], ("module", a.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom):
            src_mod = resolve_relative(mod, node.level, node.module or "") if node.level else (node.module or "")
            # Importing a submodule binds its name in the package: `from .queues import *` in
            # pkg/__init__.py makes `queues` the submodule there (the import system sets it).
            if node.level == 1 and node.module and "." not in node.module and is_package(mod) and src_mod in modules:
                b.setdefault(node.module, ("module", src_mod))
                counts.setdefault(node.module, 1)
            for a in node.names:
                if a.name == "*":
                    stars.setdefault(mod, []).append(src_mod)
                    continue
                local = a.asname or a.name
                sub = src_mod + "." + a.name
                bind(local, ("module", sub) if sub in modules else ("from", src_mod, a.name))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and all(isinstance(t, ast.Name) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])) and node.value is not None:
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                bind(t.id, ("var", mod, t.id))
                var_keys.setdefault((mod, t.id), []).append("%s:%d:%d" % (rel, t.lineno, utf16_col(lines, t.lineno, t.col_offset)))
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    bind(sub.id, ("other",))
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    bind(sub.id, ("other",))
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    bind(sub.name, ("other",))
    # A name bound more than once at module level is not decidable statically: its call sites are
    # left out of the truth and out of the precision count ("unjudged").
    bindings[mod] = {k: (v if counts[k] == 1 else ("multi",)) for k, v in b.items()}


def follow(mod, name, depth=0, kind="def"):
    """The (module, name) a module-level binding finally denotes, if it is a function (kind "def")
    or a variable (kind "var") in the corpus."""
    if depth > 8 or mod not in bindings:
        return None
    v = bindings[mod].get(name)
    if v is None:
        for star in stars.get(mod, []):
            hit = follow(star, name, depth + 1, kind)
            if hit:
                return hit
        return None
    if v[0] == kind:
        return (v[1], v[2])
    if v[0] == "from":
        return follow(v[1], v[2], depth + 1, kind)
    if v[0] == "multi":
        return "multi"
    return None


def local_imports(fn):
    """Names a function binds only by `from m import f` inside its own body (a common lazy import)."""
    out, counts = {}, {}
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                local = a.asname or a.name
                counts[local] = counts.get(local, 0) + 1
                out[local] = (node.level, node.module or "", a.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    return {k: v for k, v in out.items() if counts[k] == 1}


def module_of(mod, expr):
    """The module an expression (Name or dotted Attribute chain) denotes, if any."""
    if isinstance(expr, ast.Name):
        v = bindings[mod].get(expr.id)
        if v and v[0] == "module":
            return v[1]
        return None
    if isinstance(expr, ast.Attribute):
        base = module_of(mod, expr.value)
        if base and base + "." + expr.attr in modules:
            return base + "." + expr.attr
    return None


def scope_kinds(table):
    """Every scope's table, keyed by (lineno of its block, name)."""
    out = {}
    stack = [table]
    while stack:
        t = stack.pop()
        out[(t.get_lineno(), t.get_name())] = t
        stack.extend(t.get_children())
    return out


def is_global_in(scope, name):
    """Whether `name` used in this scope is the module's binding. Names used only inside a
    comprehension live in the comprehension's own table, a child of this one."""
    try:
        return scope.lookup(name).is_global()
    except KeyError:
        for child in scope.get_children():
            if child.get_type() == "function" and child.get_name() in ("listcomp", "setcomp", "dictcomp", "genexpr"):
                if is_global_in(child, name):
                    return True
        return False


call_sites = {}
unjudged = set()
var_reads = {}
var_writes = {}
variables = {k: v[0] for k, v in var_keys.items() if len(v) == 1 and bindings[k[0]].get(k[1], ("multi",))[0] == "var"}


def data_use(mod, rel, lines, node, scope, fn_imports):
    """A load, store or del of a module-level variable through a name or a module attribute."""
    target, site = None, None
    if isinstance(node, ast.Name):
        site = (node.lineno, utf16_col(lines, node.lineno, node.col_offset))
        if scope.get_type() == "module" or is_global_in(scope, node.id):
            target = follow(mod, node.id, kind="var")
        elif node.id in fn_imports and isinstance(node.ctx, ast.Load):
            level, m, name = fn_imports[node.id]
            src_mod = resolve_relative(mod, level, m) if level else m
            target = follow(src_mod, name, kind="var") if src_mod + "." + name not in modules else None
    elif isinstance(node, ast.Attribute):
        m = module_of(mod, node.value)
        if m:
            target = follow(m, node.attr, kind="var")
            end = utf16_col(lines, node.end_lineno, node.end_col_offset)
            site = (node.end_lineno, end - len(node.attr))
    if not target or target == "multi" or target not in variables:
        return
    key = variables[target]
    here = "%s:%d:%d" % (rel, site[0], site[1])
    if here == key:
        return
    # At module level a name read before (or on) the line that binds it is some other binding:
    # `TimeoutError = TimeoutError` reads the builtin.
    if scope.get_type() == "module" and target[0] == mod and site[0] <= int(key.split(":")[-2]):
        return
    (var_reads if isinstance(node.ctx, ast.Load) else var_writes).setdefault(key, set()).add(here)
for mod, (rel, tree, lines, table) in modules.items():
    scopes = scope_kinds(table)

    def walk(node, scope, fn_imports):
        for child in ast.iter_child_nodes(node):
            s = scope
            imports = fn_imports
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                # Decorators, defaults and bases are evaluated in the enclosing scope.
                outer = list(getattr(child, "decorator_list", [])) + list(getattr(child, "bases", []))
                args = getattr(child, "args", None)
                if args is not None:
                    outer += [d for d in args.defaults + args.kw_defaults if d is not None]
                for o in outer:
                    # `@decorator` (no parentheses) calls the decorator with the function.
                    if o in getattr(child, "decorator_list", []) and isinstance(o, (ast.Name, ast.Attribute)):
                        o = ast.copy_location(ast.Call(func=o, args=[], keywords=[]), o)
                    walk(ast.Module(body=[ast.Expr(value=o)], type_ignores=[]), scope, fn_imports)
                s = scopes.get((child.lineno, getattr(child, "name", "lambda")), scope)
                imports = local_imports(child) if not isinstance(child, ast.ClassDef) else {}
                for sub in ast.iter_child_nodes(child):
                    if sub in outer:
                        continue
                    walk(ast.Module(body=[ast.Expr(value=sub) if isinstance(sub, ast.expr) else sub], type_ignores=[]), s, imports)
                continue
            if isinstance(child, (ast.Name, ast.Attribute)):
                data_use(mod, rel, lines, child, scope, fn_imports)
            if isinstance(child, ast.Call):
                target, site = None, None
                f = child.func
                if isinstance(f, ast.Name):
                    is_module_level = scope.get_type() == "module"
                    if not is_module_level:
                        is_module_level = is_global_in(scope, f.id)
                    site = (f.lineno, utf16_col(lines, f.lineno, f.col_offset))
                    if is_module_level:
                        target = follow(mod, f.id)
                    elif f.id in fn_imports:
                        level, m, name = fn_imports[f.id]
                        src_mod = resolve_relative(mod, level, m) if level else m
                        target = follow(src_mod, name) if src_mod + "." + name not in modules else None
                elif isinstance(f, ast.Attribute):
                    m = module_of(mod, f.value)
                    if m:
                        target = follow(m, f.attr)
                        end = utf16_col(lines, f.end_lineno, f.end_col_offset)
                        site = (f.end_lineno, end - len(f.attr))
                if target == "multi":
                    unjudged.add("%s:%d:%d" % (rel, site[0], site[1]))
                elif target and target in defs:
                    key = defs[target]
                    t = next(x for x in targets if x["key"] == key)
                    recursive = t["path"] == rel and t["start"] <= child.lineno <= t["end"]
                    if not recursive:
                        call_sites.setdefault(key, set()).add("%s:%d:%d" % (rel, site[0], site[1]))
            walk(child, s, imports)

    walk(tree, table, {})

json.dump(
    {
        "targets": targets,
        "callSites": {k: sorted(v) for k, v in call_sites.items()},
        "unjudged": sorted(unjudged),
        "files": len(modules),
        "variables": [{"key": k} for k in sorted(variables.values())],
        "reads": {k: sorted(v) for k, v in var_reads.items()},
        "writes": {k: sorted(v) for k, v in var_writes.items()},
    },
    sys.stdout,
)
