"""Real MCP test peers for pytest: start, wait, kill (CPython test machinery).

Peers run as separate processes on 127.0.0.1 (nobody here wrote them):
- the official Python SDK server, host_tests/peers/sdk_server.py, under
  .venv/bin/python -I (PyPI `mcp` pinned in tools/requirements-peers.txt;
  its import name `mcp` would collide with our lib/mcp, hence the process);
- the reference "everything" server (npm, pinned in tools/node/);
- the official conformance suite (npm, tools/node/), run per scenario on
  the Node 22 that the npm package `node@22` installs under node_modules
  (the suite needs Node >= 22; the everything server runs on the machine's
  Node >= 20).

Fixtures (registered by conftest.py through `pytest_plugins = ["peers"]`):
  sdk_server(json=False, stateless=False, token=None) -> "http://127.0.0.1:P/mcp"
      session-cached per combination; sdk_server.proc(...) gives the cached
      Peer itself (a test that kills it gets it restarted on the next call).
  sdk_process(json=False, stateless=False, token=None) -> Peer
      a private server for fault tests, killed at the end of the test.
  everything_server -> "http://127.0.0.1:P/mcp" (session)
  ts_server(kind) -> Peer (session, one per kind): the TypeScript SDK's own
      example servers ("elicitationFormExample", "simpleStreamableHttp",
      from its dist/esm/examples/server) or host_tests/peers/ts_server.mjs
      ("full", "notools", "legacy": its MODE), on the machine's Node >= 20
  conformance(scenario, command, timeout=120) -> (returncode, output)
  conformance_suite -> (node, the suite's command): for a test that runs
      the suite by hand (both put a test in the conformance tier)
ConformanceServer(scenario): the suite's server alone, for a client driven
  by hand (.url, .stop() -> the checks it printed).
Peer: .url .port .pid .startup_s .alive .kill() .stop() .restart() .log()
Everything fails fast with a clear message when a tool is missing.
"""
import atexit
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS_DIR = os.path.join(HERE, "peers")
NODE_DIR = os.path.join(ROOT, "tools", "node")
NODE_MODULES = os.path.join(NODE_DIR, "node_modules")
EVERYTHING_JS = os.path.join(NODE_MODULES, "@modelcontextprotocol", "server-everything",
                             "dist", "index.js")
CONFORMANCE_BIN = os.path.join(NODE_MODULES, ".bin", "conformance")
CONFORMANCE_NODE = os.path.join(NODE_MODULES, ".bin", "node")   # npm node@22
SDK_SCRIPT = os.path.join(PEERS_DIR, "sdk_server.py")
FASTMCP_SCRIPT = os.path.join(PEERS_DIR, "fastmcp_server.py")
FILESYSTEM_JS = os.path.join(NODE_MODULES, "@modelcontextprotocol", "server-filesystem",
                             "dist", "index.js")
STANDIN = os.path.join(PEERS_DIR, "standin_client.py")
VENV_PY = os.path.join(ROOT, ".venv", "bin", "python")
NODE_MIN = 20
CONFORMANCE_NODE_MIN = 22
START_TIMEOUT = 20.0
INSTALL_HINT = "run `make test` once (or `cd tools/node && npm ci`)"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LIVE = []  # every Peer ever started: killed at exit whatever happens
STARTUPS = []  # (name, seconds) of every successful start, for the summary


class PeerError(Exception):
    pass


def python_exe():
    """CPython with the SDK installed: the venv's, else the running one."""
    return VENV_PY if os.path.exists(VENV_PY) else sys.executable


def node_exe(node=None, least=NODE_MIN):
    """Path of a usable `node` (>= least): the one given, else PEERS_NODE,
    else the first on PATH."""
    node = node or os.environ.get("PEERS_NODE") or shutil.which("node")
    if not node:
        raise PeerError("node not found on PATH (need Node >= %d for the MCP test peers)"
                        % least)
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
        major = int(out.lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        raise PeerError("cannot run %s --version" % node)
    if major < least:
        raise PeerError("%s is %s; the MCP test peers need Node >= %d" % (node, out, least))
    return node


def conformance_node():
    """The Node 22 of the npm package node@22 (tools/node), for the suite."""
    require_file(CONFORMANCE_NODE, "node@22 (npm package)")
    return node_exe(CONFORMANCE_NODE, CONFORMANCE_NODE_MIN)


def node_env(node):
    """Environment with the chosen node first on PATH (for the suite's children)."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(node) + os.pathsep + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    return env


def require_file(path, what):
    if not os.path.exists(path):
        raise PeerError("%s missing: %s; %s" % (what, path, INSTALL_HINT))


def require_sdk():
    py = python_exe()
    r = subprocess.run([py, "-I", "-c", "import mcp.server.mcpserver"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise PeerError("Python MCP SDK not importable by %s (pip install -r "
                        "tools/requirements-peers.txt): %s" % (py, r.stderr.strip()[-300:]))
    return py


def free_port():
    """A port that was free a moment ago (bind 0, release); callers retry on clash."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def _accepts(port, host="127.0.0.1"):
    try:
        socket.create_connection((host, port), timeout=0.5).close()
        return True
    except OSError:
        return False


class Peer:
    """One server process on host:port (127.0.0.1 unless given); argv may
    contain "{port}"."""

    def __init__(self, name, argv, env=None, cwd=None, path="/mcp", port=None,
                 host="127.0.0.1"):
        self.name = name
        self.host = host
        self.argv_t = list(argv)
        self.env = env
        self.cwd = cwd
        self.path = path
        self.port = port
        self.proc = None
        self.startup_s = None
        self._logf = None

    @property
    def url(self):
        return "http://%s:%d%s" % (self.host, self.port, self.path)

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self, limit=4000):
        """Tail of the server's combined stdout/stderr."""
        if self._logf is None:
            return ""
        self._logf.flush()
        self._logf.seek(0, 2)
        size = self._logf.tell()
        self._logf.seek(max(0, size - limit))
        return self._logf.read().decode("utf-8", "replace")

    def start(self, timeout=START_TIMEOUT, tries=3):
        """Start and wait until the port accepts connections (bounded)."""
        keep_port = self.port is not None
        last = ""
        for _ in range(tries):
            if not keep_port:
                self.port = free_port()
            try:
                self._spawn_and_wait(timeout)
                return self
            except PeerError as e:
                last = str(e)
                clash = "in use" in last.lower() or "eaddrinuse" in last.lower()
                if not clash:
                    raise
                time.sleep(0.2)
        raise PeerError("%s: could not bind a port after %d tries: %s" % (self.name, tries, last))

    def _spawn_and_wait(self, timeout):
        if self.alive:
            raise PeerError("%s already running (pid %d)" % (self.name, self.pid))
        if self._logf:
            self._logf.close()
        self._logf = tempfile.TemporaryFile()
        argv = [a.replace("{port}", str(self.port)) for a in self.argv_t]
        env = dict(self.env if self.env is not None else os.environ)
        env["PORT"] = env["MCP_PORT"] = str(self.port)   # (SDK examples: either)
        t0 = time.monotonic()
        try:
            # own process group: kill() takes any children down too
            self.proc = subprocess.Popen(argv, cwd=self.cwd, env=env, stdin=subprocess.DEVNULL,
                                         stdout=self._logf, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        except OSError as e:
            raise PeerError("%s: cannot start %s: %s" % (self.name, argv[0], e))
        if self not in _LIVE:
            _LIVE.append(self)
        deadline = t0 + timeout
        while True:
            if self.proc.poll() is not None:
                rc = self.proc.returncode
                self.proc = None
                raise PeerError("%s exited with %s before accepting connections on port %d.\n"
                                "command: %s\noutput:\n%s" % (self.name, rc, self.port,
                                                              " ".join(argv), self.log()))
            if _accepts(self.port, self.host) and self.proc.poll() is None:
                self.startup_s = time.monotonic() - t0
                STARTUPS.append((self.name, self.startup_s))
                return
            if time.monotonic() > deadline:
                self.kill()
                raise PeerError("%s did not accept connections on port %d within %.0f s.\n"
                                "command: %s\noutput:\n%s" % (self.name, self.port, timeout,
                                                              " ".join(argv), self.log()))
            time.sleep(0.05)

    def kill(self):
        """SIGKILL the process group now (a crash, as far as clients can tell)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        self.proc = None

    def stop(self):
        """SIGTERM, then SIGKILL after 3 s."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(3)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def restart(self, timeout=START_TIMEOUT):
        """Kill and start again on the SAME port, so .url stays valid."""
        self.kill()
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._spawn_and_wait(timeout)
                return self
            except PeerError as e:
                msg = str(e).lower()
                if ("in use" not in msg and "eaddrinuse" not in msg) or \
                        time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def close(self):
        self.stop()
        if self._logf:
            self._logf.close()
            self._logf = None
        if self in _LIVE:
            _LIVE.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<Peer %s %s pid=%s>" % (self.name, self.url if self.port else "-", self.pid)


@atexit.register
def _kill_all():
    for p in list(_LIVE):
        p.kill()


def sdk_peer(json=False, stateless=False, token=None, host="127.0.0.1", big=False, ask=False):
    """A not-yet-started Peer for the Python SDK server with these options
    (host: the address it listens on)."""
    argv = [python_exe(), "-I", SDK_SCRIPT, "--port", "{port}", "--host", host]
    if json:
        argv.append("--json")
    if stateless:
        argv.append("--stateless")
    if token:
        argv += ["--token", token]
    if big:
        argv.append("--big")
    if ask:
        argv.append("--ask")
    # cwd without lib/: the SDK's `mcp` must not meet ours
    name = "sdk-server%s%s%s%s%s" % (" json" if json else "", " stateless" if stateless else "",
                                     " token" if token else "", " big" if big else "",
                                     " ask" if ask else "")
    return Peer(name, argv, cwd=PEERS_DIR, host=host)


def start_sdk(json=False, stateless=False, token=None, timeout=START_TIMEOUT):
    require_sdk()
    return sdk_peer(json, stateless, token).start(timeout)


def start_fastmcp(timeout=START_TIMEOUT):
    """PyPI fastmcp's server (peers/fastmcp_server.py text): text results
    with a structuredContent copy, and a resource template."""
    require_sdk()
    return Peer("fastmcp-server", [python_exe(), "-I", FASTMCP_SCRIPT, "--port", "{port}",
                                   "text"], cwd=PEERS_DIR).start(timeout)


def start_filesystem(root, timeout=START_TIMEOUT):
    """The reference filesystem server (npm, stdio) over `root`, served over
    HTTP by a fastmcp proxy (peers/fastmcp_server.py filesystem)."""
    node = node_exe()
    require_file(FILESYSTEM_JS, "@modelcontextprotocol/server-filesystem")
    return Peer("filesystem-server", [python_exe(), "-I", FASTMCP_SCRIPT, "--port", "{port}",
                                      "filesystem", root, node, FILESYSTEM_JS],
                cwd=PEERS_DIR, env=node_env(node)).start(timeout)


def start_everything(timeout=START_TIMEOUT):
    """Reference server: `PORT=p node .../dist/index.js streamableHttp`
    (node directly so the pid is the server; it binds all interfaces)."""
    node = node_exe()
    require_file(EVERYTHING_JS, "@modelcontextprotocol/server-everything")
    return Peer("everything-server", [node, EVERYTHING_JS, "streamableHttp"],
                env=node_env(node), cwd=NODE_DIR).start(timeout)


TS_SERVER = os.path.join(PEERS_DIR, "ts_server.mjs")
SDK_EXAMPLES = os.path.join(NODE_MODULES, "@modelcontextprotocol", "sdk", "dist", "esm",
                            "examples", "server")


def start_ts(kind, timeout=START_TIMEOUT):
    """A TypeScript SDK server: an example of the SDK's (kind: its file name
    without .js) or ts_server.mjs in MODE kind."""
    node = node_exe()
    env = node_env(node)
    env["NODE_MODULES"] = NODE_MODULES
    example = os.path.join(SDK_EXAMPLES, kind + ".js")
    argv = [node, example] if os.path.exists(example) else [node, TS_SERVER, kind]
    return Peer("ts-server " + kind, argv, env=env, cwd=NODE_DIR).start(timeout)


def run_conformance(scenario, command, timeout=120, suite=None, expected_failures=None,
                    extra=()):
    """Run the conformance suite against a client command -> (returncode, output).

    command: str or argv list; the suite appends the server URL as the last
    argument and sets MCP_CONFORMANCE_SCENARIO. (The suite splits the string
    on spaces and runs it through a shell: a list is shell-quoted here.)
    Output is stdout+stderr with ANSI colours removed.
    """
    node = conformance_node()
    require_file(CONFORMANCE_BIN, "@modelcontextprotocol/conformance")
    if not isinstance(command, str):
        command = " ".join(shlex.quote(a) for a in command)
    argv = [node, CONFORMANCE_BIN, "client", "--command", command]
    if suite:
        argv += ["--suite", suite]
    else:
        argv += ["--scenario", scenario]
    argv += ["--timeout", str(int(max(1, timeout - 5) * 1000))]
    if expected_failures:
        argv += ["--expected-failures", expected_failures]
    argv += list(extra)
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryFile() as out:
        p = subprocess.Popen(argv, cwd=cwd, env=node_env(node), stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            out.seek(0)
            raise PeerError("conformance %s timed out after %ss:\n%s"
                            % (suite or scenario, timeout, out.read()[-4000:].decode("utf-8", "replace")))
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # stray client processes
            except OSError:
                pass
        out.seek(0)
        text = _ANSI.sub("", out.read().decode("utf-8", "replace"))
    return rc, text


class ConformanceServer:
    """The suite's test server of one client scenario, started without a
    client (the suite's interactive mode) so that a test drives a client by
    hand: .url; .stop() -> the suite's output (the checks it printed, ANSI
    removed). Also a context manager."""

    def __init__(self, scenario, timeout=START_TIMEOUT):
        node = conformance_node()
        require_file(CONFORMANCE_BIN, "@modelcontextprotocol/conformance")
        self.cwd = tempfile.mkdtemp(prefix="conformance-")
        self._out = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([node, CONFORMANCE_BIN, "client", "--scenario", scenario],
                                     cwd=self.cwd, env=node_env(node), stdin=subprocess.DEVNULL,
                                     stdout=self._out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(r"Server URL: (\S+)", self._text())
            if m:
                self.url = m.group(1)
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                out = self.stop()
                raise PeerError("conformance %s: no server URL within %.0f s:\n%s"
                                % (scenario, timeout, out[-2000:]))
            time.sleep(0.05)

    def _text(self):
        self._out.seek(0)
        return _ANSI.sub("", self._out.read().decode("utf-8", "replace"))

    def stop(self):
        """SIGINT (the suite prints its checks and exits), SIGKILL after 10 s."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        out = self._text()
        shutil.rmtree(self.cwd, True)
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def standin_command(*flags):
    """Command line of the raw http.client stand-in client (for runner tests)."""
    return [python_exe(), "-I", STANDIN] + list(flags)


# ----------------------------------------------------------------- fixtures

def pytest_terminal_summary(terminalreporter):
    if STARTUPS:
        terminalreporter.write_line("MCP peer startup: " + ", ".join(
            "%s %.2fs" % (n, t) for n, t in STARTUPS))


def _fail(e):
    pytest.fail(str(e), pytrace=False)


class SdkServers:
    """Session cache of SDK servers, one per (json, stateless, token)."""

    def __init__(self):
        self.peers = {}
        self.checked = False

    def proc(self, json=False, stateless=False, token=None, big=False, ask=False):
        key = (bool(json), bool(stateless), token, bool(big), bool(ask))
        p = self.peers.get(key)
        try:
            if not self.checked:
                require_sdk()
                self.checked = True
            if p is None:
                p = sdk_peer(json, stateless, token, big=big, ask=ask)
                p.start()
                self.peers[key] = p
            elif not p.alive:  # a test killed it: bring it back
                p.restart()
        except PeerError as e:
            _fail(e)
        return p

    def __call__(self, json=False, stateless=False, token=None, big=False, ask=False):
        return self.proc(json, stateless, token, big, ask).url

    def close(self):
        for p in self.peers.values():
            p.close()
        self.peers.clear()


@pytest.fixture(scope="session")
def sdk_server():
    servers = SdkServers()
    yield servers
    servers.close()


@pytest.fixture
def sdk_process():
    """Factory of private SDK servers (for kill/restart tests), closed after the test."""
    made = []

    def make(json=False, stateless=False, token=None):
        try:
            p = start_sdk(json, stateless, token)
        except PeerError as e:
            _fail(e)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


@pytest.fixture(scope="session")
def everything_process():
    try:
        p = start_everything()
    except PeerError as e:
        _fail(e)
    yield p
    p.close()


@pytest.fixture(scope="session")
def everything_server(everything_process):
    if not everything_process.alive:  # a test killed it: bring it back
        try:
            everything_process.restart()
        except PeerError as e:
            _fail(e)
    return everything_process.url


@pytest.fixture(scope="session")
def ts_server():
    made = {}

    def get(kind="full"):
        p = made.get(kind)
        try:
            if p is None:
                p = made[kind] = start_ts(kind)
            elif not p.alive:
                p.restart()
        except PeerError as e:
            _fail(e)
        return p

    yield get
    for p in made.values():
        p.close()


@pytest.fixture(scope="session")
def conformance_suite():
    """(node, the suite's command): the conformance suite of tools/node and
    the Node 22 it runs on. A test that runs the suite takes this fixture
    (or `conformance`), which puts it in the conformance tier."""
    try:
        node = conformance_node()
        require_file(CONFORMANCE_BIN, "@modelcontextprotocol/conformance")
    except PeerError as e:
        _fail(e)
    return node, CONFORMANCE_BIN


@pytest.fixture(scope="session")
def conformance(conformance_suite):
    """conformance(scenario, command, timeout=120, **kw) -> (returncode, output)."""

    def run(scenario, command, timeout=120, **kw):
        try:
            return run_conformance(scenario, command, timeout, **kw)
        except PeerError as e:
            _fail(e)

    return run
