"""The test tiers as host_tests/README.md describes them: `make check`, the
quick tier before a commit, needs only what it installs itself (.venv),
not the Node install (tools/node) that only `make test` makes."""
import os
import re
import shutil
import subprocess
import sys

from toolrun import ROOT

HERE = os.path.join(ROOT, "host_tests")


def test_make_check_runs_on_a_fresh_clone(tmp_path):
    """make check's selection of the modules that use the MCP peers (the
    tests that could reach for Node outside the fixtures that mark them)
    passes in a copy of the tree without tools/node/node_modules."""
    with open(os.path.join(ROOT, "Makefile")) as f:
        marks = re.search(r'^check:.*\n\t.* -m "([^"]+)"', f.read(), re.M).group(1)
    clone = str(tmp_path / "clone")
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(
        ".venv", "build", "node_modules", ".git", "__pycache__", ".*cache"))
    os.symlink(os.path.join(ROOT, ".venv"), os.path.join(clone, ".venv"))    # make check's own
    modules = []
    for name in sorted(os.listdir(HERE)):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join(HERE, name)) as f:
                if re.search(r"^import peers$", f.read(), re.M):
                    modules.append("host_tests/" + name)
    assert "host_tests/test_mcp.py" in modules, modules
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-m", marks] + modules, cwd=clone, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert re.search(r"\d+ passed", r.stdout), r.stdout[-500:]
