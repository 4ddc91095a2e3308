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
