"""Run and import the host tools under tools/ (and make targets) from tests."""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOOLS = os.path.join(ROOT, "tools")
PY = sys.executable


def load(name):
    """tools/<name>.py as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("tools_" + name,
                                                  os.path.join(TOOLS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(tool, *args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([PY, os.path.join(TOOLS, tool)] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=ROOT, env=e, timeout=60)


def make(*args, dry=True, env=None, timeout=120):
    """make ARGS (dry: make -n) as a person runs it: not as a sub-make of
    `make test`, which would add "Entering directory" lines and pass its own
    variables down."""
    return subprocess.run(["make"] + (["-n"] if dry else []) + list(args), cwd=ROOT,
                          capture_output=True, text=True, env=make_env(env), timeout=timeout)


def make_env(extra=None):
    e = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    e.update(extra or {})
    return e
