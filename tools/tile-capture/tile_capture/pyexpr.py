"""pyexpr.py - Python expressions of a launch read as tilec expressions.

Design: a grid (`lambda META: (triton.cdiv(n, META["BLOCK"]),)`, or the
tuple written at the call site `kernel[(M, 4)](...)`) and a heuristic's
lambda are Python, read from their source with ast. translate() turns a
grid into tilec's -g syntax (+ - * // %, cdiv, min, max,
next_power_of_2, integer literals, parameter and constexpr names): a name
becomes a parameter where the call site passes that very expression for
the parameter, or where it has the parameter's name and value; an integer
module global (NUM_SMS, cfg.NUM_SMS) is written as its value (noted);
anything else raises Untranslatable with the reason. The caller evaluates
the result against the grid Triton launched (check_grid) before trusting
it.
heuristic_mode() says whether tilec evaluates a heuristic at launch, folds
it at compile time, or needs its value fixed with -D (docs/LANGUAGE.md's
rules for heuristics).
"""
import ast
import linecache
import os
import types

BINOPS = {ast.Add: ("+", 1), ast.Sub: ("-", 1), ast.Mult: ("*", 2), ast.FloorDiv: ("//", 2), ast.Mod: ("%", 2)}
CALLS = {"cdiv": 2, "min": 0, "max": 0, "next_power_of_2": 1}


class Untranslatable(Exception):
    pass


_trees = {}
_nodes = {}  # (file, code object) -> its ast node, or the Untranslatable it gave
_sites = {}  # (file, line, kernel) -> call_site()
_dumps = {}  # id(node) -> (node, ast.dump(node)): holding the node keeps its id its own


def dump(node):
    """ast.dump of a node, computed once per node (grids are read at every launch)."""
    d = _dumps.get(id(node))
    if d is None:
        d = _dumps[id(node)] = (node, ast.dump(node))
    return d[1]


def parse_file(path):
    """The module ast of a source file (cached by path and size), or None."""
    lines = linecache.getlines(path)
    if not lines:
        return None
    key = (path, sum(len(x) for x in lines))
    if key not in _trees:
        try:
            _trees[key] = ast.parse("".join(lines))
        except SyntaxError:
            _trees[key] = None
    return _trees[key]


def function_node(fn):
    """The ast.Lambda or ast.FunctionDef of a Python function, found in its
    file at its first line (once per code object: a grid lambda is made
    anew at every launch, its code is not)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise Untranslatable("it is not a Python function")
    key = (code.co_filename, code)  # equal code objects of two files are not the same lambda
    if key not in _nodes:
        try:
            _nodes[key] = _function_node(code)
        except Untranslatable as e:
            _nodes[key] = e
    if isinstance(_nodes[key], Untranslatable):
        raise _nodes[key]
    return _nodes[key]


def _function_node(code):
    tree = parse_file(code.co_filename)
    if tree is None:
        raise Untranslatable("its source (%s) cannot be read" % os.path.basename(code.co_filename))
    argnames = list(code.co_varnames[:code.co_argcount])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            found.append(node)
        elif isinstance(node, ast.FunctionDef) and node.name == code.co_name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if code.co_firstlineno in (first, node.lineno):
                found.append(node)
    found = [n for n in found if [a.arg for a in n.args.args] == argnames]
    if len({dump(n) for n in found}) != 1:
        raise Untranslatable("%s function with its arguments starts on line %d"
                             % ("no" if not found else "more than one", code.co_firstlineno))
    return found[0]


def returned_expr(node):
    """The expression a lambda, or a def that is one return statement, returns."""
    if isinstance(node, ast.Lambda):
        return node.body
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    raise Untranslatable("`def %s` is more than one return statement" % node.name)


def call_site(frame, kernel_name):
    """(grid expression, {parameter index or name: argument expression},
    the def around it) of the `kernel[grid](args)` call on the frame's
    current line, or None."""
    key = (frame.f_code.co_filename, frame.f_lineno, kernel_name)
    if key not in _sites:
        _sites[key] = _call_site(frame.f_code.co_filename, frame.f_lineno, kernel_name)
    return _sites[key]


def _call_site(path, line, kernel_name):
    tree = parse_file(path)
    if tree is None:
        return None
    calls = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
                and node.lineno <= line <= getattr(node, "end_lineno", node.lineno)):
            calls.append(node)
    if len(calls) > 1:  # several launches on the line: the one naming the kernel
        calls = [c for c in calls if kernel_name in ast.unparse(c.func.value)]
    if len(calls) != 1:
        return None
    call = calls[0]
    args = {}
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        args[i] = a
    for kw in call.keywords:
        if kw.arg:
            args[kw.arg] = kw.value
    return call.func.slice, args, enclosing_function(tree, call)


def enclosing_function(tree, target):
    """The innermost def holding node target (the module when none)."""
    best = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.lineno <= target.lineno <= getattr(node, "end_lineno", node.lineno):
            if best is tree or node.lineno >= best.lineno:
                best = node
    return best


def single_assignment(scope, name, before_line):
    """The value of `name = value` when it is the one assignment to name in
    scope before the line (a grid tuple built on the line above)."""
    found = []
    for node in ast.walk(scope):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for t in targets:
                if t is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(t)):
                    found.append(node)
    if len(found) == 1 and isinstance(found[0], ast.Assign) and len(found[0].targets) == 1 \
            and isinstance(found[0].targets[0], ast.Name) and found[0].lineno < before_line:
        return found[0].value
    return None


class GridEnv:
    """What the names of a grid expression may stand for.

    ints: integer parameters and constexprs of the kernel, with this
    launch's values; meta: the grid lambda's argument (Triton passes the
    launch's arguments as a dict); args: the call site's argument
    expressions, ast.dump -> parameter name; lookup(name) -> (found, value,
    is_module_global)."""

    def __init__(self, ints, meta=None, args=None, lookup=None):
        self.ints = ints
        self.meta = meta
        self.args = args or {}
        self.lookup = lookup or (lambda name: (False, None, False))
        self.notes = []


def _paren(text, prec, need):
    return "(%s)" % text if prec < need else text


def translate(node, env):
    """The tilec grid text of a grid expression: dimensions joined by ", "."""
    if isinstance(node, (ast.Tuple, ast.List)):
        if not 1 <= len(node.elts) <= 3:
            raise Untranslatable("a grid of %d dimensions" % len(node.elts))
        return ", ".join(_expr(e, env)[0] for e in node.elts)
    return _expr(node, env)[0]


def _meta_key(node, env):
    """"BLOCK" of META["BLOCK"] or META.get("BLOCK"), else None."""
    if env.meta is None:
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == env.meta \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == env.meta \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
        return node.args[0].value
    return None


def _callee(func):
    """cdiv, min, max, next_power_of_2 or int for triton.cdiv(...), min(...), ..."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _expr(node, env):
    """(text, precedence): 3 atoms and calls, 2 * // %, 1 + -."""
    dumped = dump(node)
    if dumped in env.args and env.args[dumped] in env.ints:
        return env.args[dumped], 3
    key = _meta_key(node, env)
    if key is not None:
        if key not in env.ints:
            raise Untranslatable("%s[%r] is not an integer parameter or constexpr" % (env.meta, key))
        return key, 3
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value), 3
    if isinstance(node, ast.Name):
        found, value, is_global = env.lookup(node.id)
        if node.id in env.ints and (not found or value == env.ints[node.id]):
            return node.id, 3
        if found and is_global and type(value) is int:
            env.notes.append("module global %s written as its value %d" % (node.id, value))
            return str(value), 3
        raise Untranslatable("`%s` is not passed to the kernel as an integer argument" % node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):  # NUM_SMS of a config module
        found, mod, _ = env.lookup(node.value.id)
        value = getattr(mod, node.attr, None) if isinstance(mod, types.ModuleType) else None
        if found and type(value) is int:
            env.notes.append("module global %s written as its value %d" % (ast.unparse(node), value))
            return str(value), 3
    if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
        op, prec = BINOPS[type(node.op)]
        left, lp = _expr(node.left, env)
        right, rp = _expr(node.right, env)
        # left-associative: a right operand of equal precedence keeps its parentheses
        return "%s %s %s" % (_paren(left, lp, prec), op, _paren(right, rp, prec + 1)), prec
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner, p = _expr(node.operand, env)
        return ("-" if isinstance(node.op, ast.USub) else "") + _paren(inner, p, 3), 3
    if isinstance(node, ast.Call) and not node.keywords:
        name = _callee(node.func)
        if name == "int" and len(node.args) == 1:
            return _expr(node.args[0], env)
        if name in CALLS and (CALLS[name] == 0 and len(node.args) >= 2 or CALLS[name] == len(node.args)):
            return "%s(%s)" % (name, ", ".join(_expr(a, env)[0] for a in node.args)), 3
    raise Untranslatable("`%s` is outside what a tilec grid expression holds (integer parameters and "
                         "constexprs, + - * // %%, cdiv, min, max)" % ast.unparse(node))


def _cdiv(a, b):
    return -(-a // b)


def _npow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


_compiled = {}


def evaluate(text, values):
    """The grid a tilec grid expression gives for these values, as 3 ints."""
    code = _compiled.get(text)
    if code is None:
        code = _compiled[text] = compile(text, "<grid>", "eval")
    g = eval(code, {"__builtins__": {}, "cdiv": _cdiv, "min": min, "max": max, "next_power_of_2": _npow2},
             dict(values))
    g = tuple(g) if isinstance(g, tuple) else (g,)
    return tuple(int(x) for x in g) + (1,) * (3 - len(g))


def check_grid(text, values, grid):
    """None when text gives grid for these values, else why not."""
    try:
        got = evaluate(text, values)
    except Exception as e:  # a name without a value, a division by zero
        return "%s does not evaluate here (%s)" % (text, e)
    if got != tuple(grid):
        return "%s gives %s where Triton launched %s" % (text, list(got), list(grid))
    return None


def heuristic_mode(node, kinds):
    """How tilec takes a heuristic lambda over args: ("fold", ""),
    ("launch-bool", ""), ("launch-value", "") or ("fixed", reason).

    kinds: parameter name -> "int", "float", "bool", "pointer", "constexpr"
    (an integer or boolean constexpr) or "other"."""
    if not isinstance(node, ast.Lambda) or len(node.args.args) != 1:
        return "fixed", "not a one-argument lambda"
    arg = node.args.args[0].arg
    reads = set()

    def walk(n, in_compare):
        """The kind of n: "int", "float" or "bool"."""
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == arg \
                and isinstance(n.slice, ast.Constant):
            name = n.slice.value
            kind = kinds.get(name)
            if kind in ("int", "float", "bool"):
                reads.add(name)
            if kind in ("int", "constexpr", "bool"):
                return "int"
            if kind == "float" and in_compare:
                return "float"
            raise Untranslatable("%s[%r] is %s" % (arg, name, {"float": "a float outside a comparison",
                                                              "pointer": "a tensor"}.get(kind, "not an integer")))
        if isinstance(n, ast.Constant) and type(n.value) in (int, bool):
            return "int"
        if isinstance(n, ast.Constant) and type(n.value) is float and in_compare:
            return "float"
        if isinstance(n, ast.Compare):
            for x in [n.left] + n.comparators:
                walk(x, True)
            return "bool"
        if isinstance(n, ast.BoolOp):
            for x in n.values:
                walk(x, False)
            return "bool"
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            walk(n.operand, False)
            return "bool"
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            return walk(n.operand, in_compare)
        if isinstance(n, ast.BinOp) and type(n.op) in BINOPS:
            walk(n.left, False)
            walk(n.right, False)
            return "int"
        if isinstance(n, ast.Call) and not n.keywords and _callee(n.func) in CALLS:
            for x in n.args:
                walk(x, False)
            return "int"
        raise Untranslatable("`%s` is host code" % ast.unparse(n))

    try:
        kind = walk(node.body, False)
    except Untranslatable as e:
        return "fixed", str(e)
    if not reads:
        return "fold", ""
    return ("launch-bool" if kind == "bool" else "launch-value"), ""
