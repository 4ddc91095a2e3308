"""The library's layers point down: the console (shell/) uses ai/, mcp/,
httpc/, store/ and jsonstream, never the other way round. What only the
console has (a person to ask, its spinner, the board's commands as tools)
reaches the library through lib/hooks.py, which the console fills in.

Found by reading every module's imports (at the top and inside functions)
and its look-ups of sys.modules, so a lazy import cannot slip by. The
board's MCP server (mcpserver/) runs the console's commands and sits above
it: the lower layers may import neither. One exception, named in COMPAT:
mcp's __getattr__ gives /bin scripts written before mcpserver existed the
server under its old name (`from mcp import server`)."""
import ast
import os

import pytest

LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
LOWER = ("ai", "mcp", "httpc", "store", "jsonstream.py", "compat.py", "hooks.py")
ABOVE = {"shell", "mcpserver"}
# (module, name above it) allowed: the old name mcp.server, for /bin scripts
COMPAT = {("mcp/__init__.py", "mcpserver")}


def _lower_modules():
    for top in LOWER:
        p = os.path.join(LIB, top)
        if top.endswith(".py"):
            yield top
            continue
        for dirpath, _, files in os.walk(p):
            for f in sorted(files):
                if f.endswith(".py"):
                    yield os.path.relpath(os.path.join(dirpath, f), LIB).replace(os.sep, "/")


def upward(source):
    """(line, what) for each reach of source into a module above it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "__import__" and node.args \
                and isinstance(node.args[0], ast.Constant):
            names = [str(node.args[0].value)]
        for n in names:
            if n.split(".")[0] in ABOVE:
                found.append((node.lineno, n))
    # sys.modules look-ups: a constant key in sys.modules.get(...) or [...]
    for node in ast.walk(ast.parse(source)):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and node.args:
            target, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        if target is not None and isinstance(target, ast.Attribute) \
                and target.attr == "modules" and isinstance(key, ast.Constant) \
                and isinstance(key.value, str) and key.value.split(".")[0] in ABOVE:
            found.append((node.lineno, "sys.modules[%r]" % key.value))
    return found


def test_the_check_finds_each_way_up():
    """The check itself: each form of reaching the console is caught."""
    for src in ("import shell\n", "from shell import term\n", "import shell.elicit as e\n",
                "def f():\n    from shell import elicit\n",
                "import sys\nt = sys.modules.get('shell.term')\n",
                "import sys\nt = sys.modules['shell']\n",
                "m = __import__('shell')\n", "import mcpserver\n",
                "def f():\n    from mcpserver import http\n"):
        assert upward(src), src
    for src in ("import store\n", "from mcp import client\n", "import hooks\n",
                "x = {'shell': 1}.get('shell')\n", "s = 'shell'\n"):
        assert not upward(src), src


@pytest.mark.parametrize("rel", list(_lower_modules()))
def test_no_lower_module_reaches_up_to_the_console(rel):
    with open(os.path.join(LIB, rel), encoding="utf-8") as f:
        found = [(n, what) for n, what in upward(f.read()) if (rel, what) not in COMPAT]
    assert not found, "%s reaches the console: %s (hand it in through lib/hooks.py)" % (
        rel, found)


def test_each_compat_exception_is_still_needed():
    """An allowance in COMPAT that no module uses any more goes."""
    for rel, what in COMPAT:
        with open(os.path.join(LIB, rel), encoding="utf-8") as f:
            assert what in [w for _, w in upward(f.read())], (rel, what)


# ------------------------------------------------ circles over private names
# A package's parts depend downward on its core: no module uses a private
# name (`_x`, not a dunder) of a module that imports it back, by `from m
# import _x` or by `m._x` on the imported module. What two modules share
# is a public name of a lower one.

def _all_modules():
    """{dotted module name: path relative to lib/} for every module in lib/."""
    out = {}
    for dirpath, _, files in os.walk(LIB):
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, f), LIB).replace(os.sep, "/")
                name = rel[:-3].replace("/", ".")
                if name.endswith(".__init__"):
                    name = name[:-9]
                out[name] = rel
    return out


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def imports_and_private_uses(source, known):
    """(imports, uses) of one module's source: the modules of known it
    imports (at the top, in functions, through a lazy table of (name,
    module) pairs or __import__ of a constant), and (line, module, name)
    for each private name of another module it uses."""
    tree = ast.parse(source)
    imports = set()
    uses = []
    bound = {}      # local name -> module it was bound to by an import

    def add(mod):
        parts = mod.split(".")
        for i in range(1, len(parts) + 1):      # "import a.b" imports a too
            if ".".join(parts[:i]) in known:
                imports.add(".".join(parts[:i]))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
                if a.asname:
                    bound[a.asname] = a.name
                else:
                    bound[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            add(node.module)
            for a in node.names:
                sub = node.module + "." + a.name
                if sub in known:
                    add(sub)
                    bound[a.asname or a.name] = sub
                elif _private(a.name):
                    uses.append((node.lineno, node.module, a.name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in known and "." in node.value:
            add(node.value)     # a lazy table's module, __import__("x.y")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "__import__" and node.args \
                and isinstance(node.args[0], ast.Constant):
            add(str(node.args[0].value))

    def module_of(expr):
        if isinstance(expr, ast.Name):
            return bound.get(expr.id)
        if isinstance(expr, ast.Attribute):
            m = module_of(expr.value)
            if m is not None and m + "." + expr.attr in known:
                return m + "." + expr.attr
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            m = module_of(node.value)
            if m is not None and m in known:
                uses.append((node.lineno, m, node.attr))
    return imports, uses


def private_circles():
    """["user.py:line uses mod._x, and mod imports user"] over lib/."""
    mods = _all_modules()
    graph = {}
    found = {}
    for name, rel in mods.items():
        with open(os.path.join(LIB, rel), encoding="utf-8") as f:
            graph[name], found[name] = imports_and_private_uses(f.read(), mods)
    out = []
    for name, uses in sorted(found.items()):
        for line, mod, attr in uses:
            if mod != name and name in graph.get(mod, ()):
                out.append("%s:%d uses %s.%s, and %s imports %s" % (
                    mods[name], line, mod, attr, mod, name))
    return out


def test_the_circle_check_finds_each_form():
    known = {"p", "p.a", "p.b"}
    for src in ("from p.b import _x\n", "from p import b\nb._x()\n",
                "import p.b\np.b._x\n", "import p.b as q\nq._x\n",
                "def f():\n    from p import b\n    return b._y\n", "import p\np._z\n"):
        _, uses = imports_and_private_uses(src, known)
        assert uses, src
    for src in ("from p.b import x\n", "from p import b\nb.x()\n", "import p.b\np.b.__name__\n",
                "self._x\n", "x = {}\nx._y\n"):
        _, uses = imports_and_private_uses(src, known)
        assert not uses, src
    imports, _ = imports_and_private_uses(
        "def f():\n    from p import b\nlazy(((\"n\", \"p.a\"),), \"p\")\n", known)
    assert imports == {"p", "p.a", "p.b"}


def test_no_module_takes_a_private_name_from_one_that_imports_it_back():
    circles = private_circles()
    assert not circles, "\n".join(circles)


# what MicroPython's esp32 port freezes beside lib/ (its boards/manifest.py)
PORT_FROZEN = {"asyncio", "requests", "ntptime", "mip", "upysh", "webrepl", "dht", "ds18x20",
               "onewire", "neopixel", "espnow", "inisetup", "_boot", "flashbdev", "apa106",
               "urequests", "umqtt", "aioespnow"}


def _flash_roots():
    """(module, name) for each name store.path() is given first in lib/: a
    file or folder the library makes at the flash's root."""
    found = []
    for dirpath, _, files in os.walk(LIB):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                      for t in n.targets if isinstance(t, ast.Name)
                      and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "path" and isinstance(node.func.value, ast.Name)
                        and node.func.value.id == "store" and node.args):
                    a = node.args[0]
                    name = a.value if isinstance(a, ast.Constant) else consts.get(getattr(a, "id", None))
                    if isinstance(name, str):
                        found.append((os.path.relpath(path, LIB), name))
    return found


def test_no_file_on_flash_shadows_a_frozen_module():
    """On the board sys.path is ['', '.frozen', '/lib'] with '' the flash's
    root: a folder /mcp (or a file /mcp.py) there would be imported before
    the frozen mcp package, on every boot after. So nothing the library
    makes at the root is named like a module of lib/ or of the port's
    frozen set."""
    tops = {n[:-3] if n.endswith(".py") else n for n in os.listdir(LIB)
            if n.endswith(".py") or os.path.isdir(os.path.join(LIB, n))}
    roots = _flash_roots()
    assert {"mcp/items.py", "ai/history.py"} <= {m for m, _ in roots}, roots
    for module, name in roots:
        base = name.split("/")[0].split(".")[0]
        assert base not in tops | PORT_FROZEN, (module, name)
