"""Releases and mip (tools/dist.py): the committed package descriptions
(package.json, lib/<part>.json) are the generated ones, the parts cover
lib/ and carry what they import, make dist builds the .mpy bundle, the
mip index and SHA256SUMS that check; and the pinned mpremote's
`mip install` from a loopback HTTP server of this tree (all of it, a
part, the index's .mpy) puts a working `ai` on a simulated board with
stock MicroPython: import ai, a chat against a loopback fake provider.
No address but 127.0.0.1 is used."""
import ast
import functools
import hashlib
import http.server
import json
import os
import shutil
import tempfile
import threading
import zipfile

import pytest

from fakes import FakeOpenAI, Text
from test_simboard import BUILD, Board
from toolrun import ROOT, load, make

import compat

SIM_ARCH = load("mpunix").MARCH     # the simulated board's .mpy architecture

dist = load("dist")


def lib_py():
    out = set()
    for d, _, names in os.walk(os.path.join(ROOT, "lib")):
        for n in names:
            if n.endswith(".py"):
                out.add(os.path.relpath(os.path.join(d, n), os.path.join(ROOT, "lib")))
    return out


# ---------------------------------------------------------------- descriptions

def test_the_committed_descriptions_are_the_generated_ones():
    made = dist.descriptions()
    assert set(made) == {"package.json"} | {"lib/%s.json" % p for p in dist.DESCRIBED}
    for path, obj in made.items():
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
        assert text == dist.as_text(obj), "%s is out of date: run python tools/dist.py " \
                                          "--descriptions" % path
        got = json.loads(text)
        assert got["version"] == compat.VERSION
        # micropython-lib's format: [target, URL relative to the description]
        for target, url in got["urls"]:
            assert not url.startswith(("http:", "https:", "github:", "gitlab:", "codeberg:"))
            assert ".." not in url.split("/")
            assert os.path.isfile(os.path.join(ROOT, os.path.dirname(path), url)), url
            assert url.endswith(target)
    root = json.loads(open(os.path.join(ROOT, "package.json")).read())
    assert {t for t, _ in root["urls"]} == lib_py()         # all of it


def _imports(rel):
    """The lib/ modules one file imports (any place in it), as paths."""
    tree = ast.parse(open(os.path.join(ROOT, "lib", rel)).read())
    here = rel[:-3].replace("/", ".").replace(".__init__", "")
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            names.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                base = ".".join(here.split(".")[:-n.level] + ([n.module] if n.module else []))
            names.add(base)
            names.update(base + "." + a.name for a in n.names)
    known = lib_py()
    out = set()
    for m in names:
        for cand in (m.replace(".", "/") + ".py", m.replace(".", "/") + "/__init__.py"):
            if cand in known:
                out.add(cand)
    for cand in list(out):          # a submodule's packages are imported too
        parts = cand.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]) + "/__init__.py")
    return out


# imports that need a part only when it is installed: mcp's __getattr__
# gives old /bin scripts the board's server (part shell) as mcp.server
OPTIONAL = {("mcp/__init__.py", "mcpserver/__init__.py")}


def test_each_part_holds_what_its_modules_import():
    owners = {}
    for p in dist.PARTS:
        for f in dist.own_files(p[0]):
            assert f not in owners, "%s in %s and %s" % (f, owners[f], p[0])
            owners[f] = p[0]
    assert set(owners) == lib_py(), lib_py() ^ set(owners)
    for p in dist.PARTS:
        have = set(dist.files(p[0]))
        for f in dist.own_files(p[0]):
            for dep in _imports(f):
                assert dep in have or (f, dep) in OPTIONAL, "%s (part %s) imports %s (part %s)" % (
                    f, p[0], dep, owners[dep])
    # the check can fail: ai alone, without mcp, would miss a module
    assert "mcp/__init__.py" not in set(dist.own_files("ai"))


# ---------------------------------------------------------------- make dist

@pytest.fixture(scope="module")
def built():
    """make dist ARCH=x86 (the simulated board's architecture: the tests'
    32-bit MicroPython, tools/mpunix.py) into a folder under build/ (served
    with the tree by `tree`)."""
    os.makedirs(BUILD, exist_ok=True)
    out = tempfile.mkdtemp(prefix="dist-", dir=BUILD)
    r = make("dist", "ARCH=" + SIM_ARCH, "DIST_OUT=" + out, dry=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    yield out, r.stdout
    shutil.rmtree(out, ignore_errors=True)


def test_make_dist_builds_the_bundle_the_index_and_their_sums(built):
    out, log = built
    v = compat.VERSION
    assert "mip-%s: the mip index (7 parts, version %s)" % (SIM_ARCH, v) in log, log
    # SHA256SUMS: every file, each sum right
    sums = {}
    for line in open(os.path.join(out, "SHA256SUMS")):
        h, rel = line.rstrip("\n").split("  ", 1)
        sums[rel] = h
        with open(os.path.join(out, rel), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == h, rel
    on_disk = {os.path.relpath(os.path.join(d, n), out) for d, _, ns in os.walk(out)
               for n in ns if n != "SHA256SUMS"}
    assert set(sums) == on_disk
    # the bundle: every module of lib/ as .mpy under lib/
    bundle = "antos-ai-%s-%s.zip" % (v, SIM_ARCH)
    with zipfile.ZipFile(os.path.join(out, bundle)) as z:
        names = set(z.namelist())
        assert names == {"lib/" + f[:-3] + ".mpy" for f in lib_py()}
        assert all(z.read(n)[:1] == b"M" for n in names)
    # the index: micropython-lib's layout; each hash names a file with it
    index = os.path.join(out, "mip-" + SIM_ARCH)
    ix = json.load(open(os.path.join(index, "index.json")))
    assert ix["v"] == 2 and [p["name"] for p in ix["packages"]] == [p[0] for p in dist.PARTS]
    for p in ix["packages"]:
        assert p["version"] == v and p["versions"] == {"6": [v], "py": [v]} and p["license"]
        for kind in ("6", "py"):
            pkg = json.load(open(os.path.join(index, "package", kind, p["name"], "latest.json")))
            assert pkg == json.load(open(os.path.join(index, "package", kind, p["name"],
                                                      v + ".json")))
            assert pkg["v"] == 1 and pkg["version"] == v
            assert pkg["deps"] == [[d, v] for d in dist.part(p["name"])[3]]
            for target, short in pkg["hashes"]:
                assert target.endswith(".mpy" if kind == "6" else ".py")
                with open(os.path.join(index, "file", short[:2], short), "rb") as f:
                    assert hashlib.sha256(f.read()).hexdigest().startswith(short)


# ---------------------------------------------------------------- mip on a board

@pytest.fixture(scope="module")
def tree():
    """This repository over loopback HTTP, as a web server of it would
    serve it: -> its base URL."""
    handler = functools.partial(_Quiet, directory=ROOT)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % srv.server_address[1]
    srv.shutdown()
    srv.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def provider():
    with FakeOpenAI(flavor="ollama") as srv:
        yield srv


@pytest.fixture
def board():
    """A simulated board with stock MicroPython and an empty flash."""
    b = Board()
    yield b
    b.stop()


CHAT = ("import ai\n"
        "print('version', ai.__version__)\n"
        "r, e = ai.ask_simple('hello board', {'provider': 'ollama', 'base_url': %r,"
        " 'model': 'llama3.2'})\n"
        "print('reply', repr(r), e)\n")


def chat_on(board, provider):
    provider.queue(Text("Hello from the fake."))
    r = board.mpremote("exec", CHAT % provider.base_url)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "version %s" % compat.VERSION in r.stdout, r.stdout + r.stderr
    assert "reply 'Hello from the fake.' None" in r.stdout, r.stdout + r.stderr
    assert provider.last.json["messages"][-1]["content"] == "hello board"


def installed(board):
    return {p[len("/lib/"):] for p in board.files() if p.startswith("/lib/")}


def test_mip_install_of_the_whole_repository_then_a_chat(board, tree, provider):
    r = board.mpremote("mip", "install", tree + "/")
    assert r.returncode == 0 and "Done" in r.stdout, r.stdout + r.stderr
    assert installed(board) == lib_py()
    for f in lib_py():
        with open(os.path.join(ROOT, "lib", f), "rb") as a, \
                open(os.path.join(board.flash, "lib", f), "rb") as b:
            assert a.read() == b.read(), f
    chat_on(board, provider)


def test_mip_install_of_a_part_brings_what_it_needs(board, tree, provider):
    r = board.mpremote("mip", "install", tree + "/lib/ai.json")
    assert r.returncode == 0 and "Done" in r.stdout, r.stdout + r.stderr
    assert installed(board) == set(dist.files("ai"))
    assert "shell/__init__.py" not in installed(board)
    chat_on(board, provider)


def test_mip_install_from_the_index_as_mpy_with_deps(board, built, tree, provider):
    out, _ = built
    index = tree + "/" + os.path.relpath(os.path.join(out, "mip-" + SIM_ARCH), ROOT)
    r = board.mpremote("mip", "install", "--index", index, "ai")
    assert r.returncode == 0 and "Done" in r.stdout, r.stdout + r.stderr
    got = installed(board)
    assert got == {f[:-3] + ".mpy" for f in dist.files("ai")}, got
    chat_on(board, provider)
