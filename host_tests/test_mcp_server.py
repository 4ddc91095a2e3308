"""The board as an MCP server (lib/mcpserver/), driven by real clients.

The console runs under the MicroPython unix port at 64K (scenarios/
mcp_serve.py: pipe mode, lines typed through stdin, the heap measured while
it serves) and `mcp serve PORT` is typed at its prompt; then
- the official Python SDK client (peers/sdk_client.py, its own process)
  lists and calls every exposed command, JSON and SSE replies (log lines
  and progress), resources, sampling and elicitation from /bin scripts;
- the TypeScript SDK client (peers/ts_client.mjs, node);
- the conformance suite's server scenarios, with the suite's fixture tools
  as /bin scripts (host_tests/mcp_flash); the suite sends no token, so it
  talks through TokenProxy, which adds one as a client's config would;
- 20 SDK sessions in a row at the cap, and ten whose working set is
  measured after each (what a session loaded is gone before the next);
- raw HTTP for every refusal (host_tests/boardserve.py runs the console
  and speaks plain HTTP to it) (no token, a wrong one, Host, Origin, 1 MB,
  malformed JSON-RPC, sessions) and 200 requests in a row;
- on CPython, in this process, replies cut short by a failure after their
  head (injected), which the client must see as cut short;
- a pseudo-terminal (tools/sim.py, as a person types) for the approval of
  a destructive command.
"""
import contextlib
import json
import os
import socket
import subprocess
import threading
import time

import pytest

import compat
import peers
from boardserve import HEAP, TOKEN, Board, init, make_flash, raw, rpc
from mpyrun import GOAL, parse_size

HERE = os.path.dirname(os.path.abspath(__file__))
SDK_CLIENT = os.path.join(HERE, "peers", "sdk_client.py")
TS_CLIENT = os.path.join(HERE, "peers", "ts_client.mjs")
# heap budgets (bytes, unix port, 64-bit objects; tools/bench/MEASUREMENTS.md)
IDLE_BUDGET = 12 * 1024     # what `mcp serve` keeps while the prompt waits (4 KB: calls' output)
CALL_BUDGET = 36 * 1024     # peak above that while one request is served


@pytest.fixture
def board(mpy, tmp_path):
    made = []

    def start(settings=None, fixtures=False, heap=HEAP, serve=True, live=False):
        b = Board(mpy, make_flash(tmp_path, settings, fixtures), heap, serve, live)
        made.append(b)
        return b
    yield start
    for b in made:
        b.kill()


def sdk(url, steps, token=TOKEN, timeout=120, sessions=1):
    """Run the Python SDK client -> (the init line, one result per step);
    sessions > 1: that many sessions in a row, each running the steps ->
    a list of those pairs."""
    env = dict(os.environ)
    env["MCP_TOKEN"] = token
    env["MCP_STEPS"] = json.dumps(steps)
    env["MCP_SESSIONS"] = str(sessions)
    r = subprocess.run([peers.python_exe(), "-I", SDK_CLIENT, url], capture_output=True,
                       text=True, timeout=timeout, env=env, cwd=os.path.join(HERE, "peers"))
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    k = len(steps) + 1
    assert r.returncode == 0 and len(lines) == k * sessions, (r.stdout, r.stderr[-3000:])
    runs = [(lines[i], lines[i + 1:i + k]) for i in range(0, len(lines), k)]
    return runs[0] if sessions == 1 else runs


def text_of(result):
    return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")


# ---------------------------------------------------------------- Python SDK

READ_ONLY = ["help", "ls", "pwd", "cat", "free", "df", "ps", "date", "get", "wifi", "pin", "adc", "i2c",
             "temp"]


def test_python_sdk_lists_and_calls_every_exposed_command(board):
    b = board()
    b_flash = b.flash
    with open(os.path.join(b_flash, "bin", "probe.py"), "w") as f:
        f.write(PROBE)
    init, r = sdk(b.url, [
        {"op": "tools"},
        {"op": "call", "name": "help", "args": {}},
        {"op": "call", "name": "help", "args": {"cmd": "mv"}},
        {"op": "call", "name": "ls", "args": {}},
        {"op": "call", "name": "ls", "args": {"path": "bin"}},
        {"op": "call", "name": "pwd", "args": {}},
        {"op": "call", "name": "cat", "args": {"file": "/boot.py"}},
        {"op": "call", "name": "free", "args": {}},
        {"op": "call", "name": "df", "args": {}},
        {"op": "call", "name": "ps", "args": {}},
        {"op": "call", "name": "date", "args": {}},
        {"op": "call", "name": "get", "args": {}},
        {"op": "call", "name": "cat", "args": {"file": "settings.json"}},
        {"op": "call", "name": "cat", "args": {"file": "nosuch.txt"}},
        {"op": "call", "name": "probe", "args": {"words": ["a b", "it's"], "count": 3}},
        {"op": "call", "name": "probe", "args": {"count": "x"}},
        {"op": "call", "name": "rm", "args": {"path": ["boot.py"]}},
        {"op": "level", "level": "info"},
        {"op": "call", "name": "probe", "args": {"count": 2}, "progress": True},
        {"op": "ping"},
    ])
    assert init == {"server": "antos", "version": "2025-11-25"}
    tools = {t["name"]: t for t in r[0]["tools"]}
    assert sorted(tools) == sorted(READ_ONLY + ["probe"])
    cat, ls = tools["cat"], tools["ls"]
    assert cat["inputSchema"]["required"] == ["file"]
    assert cat["inputSchema"]["properties"]["file"]["type"] == "string"
    assert "required" not in ls["inputSchema"]
    assert cat["annotations"] == {"readOnlyHint": True, "destructiveHint": False}
    assert cat["title"] == "Show a file" and "usage: cat FILE" in cat["description"]
    p = tools["probe"]["inputSchema"]
    assert p["properties"]["count"] == {"type": "integer", "description": "how many"}
    assert p["properties"]["words"]["type"] == "array" and p["required"] == ["count"]
    # JSON replies: the command's output is the text result
    assert "Commands (help CMD" in text_of(r[1]) and "mcp" in text_of(r[1])
    assert "usage: mv SRC DST" in text_of(r[2])
    assert "boot.py" in text_of(r[3]) and "settings.json" in text_of(r[3])
    assert "probe.py" in text_of(r[4])
    assert text_of(r[5]) == "/"
    assert text_of(r[6]) == "# boot.py of the test flash\nprint('booted')"
    assert text_of(r[7]).startswith("heap:")
    assert text_of(r[8]).startswith("flash:")
    assert "probe" not in text_of(r[9]) and "ps" in text_of(r[9])
    assert text_of(r[10])[:2] in ("19", "20")
    got = text_of(r[11])
    assert "ai.general.key = sk-...89" in got and "sk-board-secret" not in got
    assert "mcp.serve.token = ant..." in got and TOKEN not in got
    assert r[12]["isError"] and "settings.json is private" in text_of(r[12])
    assert r[13]["isError"] and "no such file" in text_of(r[13])
    assert not r[1]["isError"] and not r[6]["isError"]
    assert text_of(r[14]) == "count=3 words=['a b', \"it's\"]"
    assert "error" in r[15] and "count must be a number" in r[15]["error"]
    assert "error" in r[16] and "Unknown tool: rm" in r[16]["error"]
    assert "set mcp.serve.allow rm" in r[16]["error"]
    assert os.path.exists(os.path.join(b_flash, "boot.py"))
    # after logging/setLevel: SSE, console lines as log messages, progress
    assert r[17] == {"ok": True}
    assert r[18]["logs"] == ["step 1 of 2", "step 2 of 2", "count=2 words=[]"]
    assert r[18]["progress"] == [[1.0, 2.0], [2.0, 2.0]]
    assert text_of(r[18]) == "step 1 of 2\nstep 2 of 2\ncount=2 words=[]"
    out = b.expect("mcp: mcp ran probe 2 (ok)")
    assert "mcp: mcp ran cat /boot.py (ok)" in out and "ran cat settings.json" not in out
    assert r[19] == {"ok": True}
    m = b.close()
    assert m["n"] >= 20
    print("serve: idle %d, peak %d, first %d, last %d bytes" % (
        m["idle"], m["peak"], m["first"], m["last"]))
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET


# probe imports the server by its old name (mcp.server), as /bin scripts
# written before lib/mcpserver/ do: mcp's __getattr__ must keep it working.
PROBE = '''"""probe: a read-only /bin command for the tests (typed arguments,
progress, console lines)."""
SPEC = {"desc": "count and show words", "usage": "probe COUNT [WORDS...]",
        "readonly": True,
        "args": (("count", "int", "1", "how many"), ("words", "str", "*"))}


def main(args):
    import shell
    from mcp import server
    n = int(args[0])
    if len(args) == 1:
        for i in range(1, n + 1):
            shell.out("step %d of %d" % (i, n))
            server.progress(i, n)
    shell.out("count=%d words=%r" % (n, args[1:]))
'''


# One client session as an AI on a PC holds it: the list, then calls that
# load modules the listening server does not hold (get: store.admin; the
# hardware: shell.hw; probe: mcp, by the old name of the server), the list
# again.
SESSION = [{"op": "tools"},
           {"op": "call", "name": "get", "args": {}},
           {"op": "call", "name": "pin", "args": {"pin": 2}},
           {"op": "call", "name": "help", "args": {"cmd": "mv"}},
           {"op": "call", "name": "probe", "args": {"count": 1}},
           {"op": "call", "name": "cat", "args": {"file": "/boot.py"}},
           {"op": "tools"}]


def _session_ok(r):
    assert len(r) == len(SESSION) and not [x for x in r if "error" in x], r
    assert sorted(t["name"] for t in r[0]["tools"]) == sorted(READ_ONLY + ["probe"])
    assert r[6] == r[0]
    assert "ai.general.key = sk-...89" in text_of(r[1]) and text_of(r[2]) == "pin 2 = 0"
    assert text_of(r[4]) == "step 1 of 1\ncount=1 words=[]" and not r[5]["isError"]


def _served(b):
    """The console's `mcp serve status` (a command that loads the server's
    modules while it listens) -> the connections served so far."""
    import re
    out = b.line("mcp serve status", "allowed beyond")
    return int(re.search(r"requests: (\d+)", out).group(1))


# 20 Python SDK sessions in a row (the product's scenario, issue 40: an AI
# on a PC connecting again and again), within the goal
SESSIONS_CAP = "41K"


def _twenty_sessions(mpy, tmp_path, heap):
    """20 SDK sessions in a row against a board serving at heap -> (board,
    the sessions' results, the board's measurements); AssertionError at the
    first thing that goes wrong."""
    folder = tmp_path / ("twenty-%s-%d" % (heap, len(os.listdir(str(tmp_path)))))
    folder.mkdir()
    b = Board(mpy, make_flash(folder), heap)
    try:
        with open(os.path.join(b.flash, "bin", "probe.py"), "w") as f:
            f.write(PROBE)
        runs = sdk(b.url, SESSION, sessions=20, timeout=300)
        served = _served(b)
        return b, runs, served, b.close()
    finally:
        b.kill()


def test_twenty_sdk_sessions_in_a_row_at_the_servers_cap(mpy, measure, tmp_path):
    """An AI on a PC connects again and again: 20 Python SDK sessions in a
    row (one client process), each listing the tools and calling them, at
    SESSIONS_CAP with the firmware's GC. What a session loaded is gone
    before the next one, so the last is served as the first was."""
    assert parse_size(SESSIONS_CAP) <= parse_size(GOAL)
    b, runs, served, m = _twenty_sessions(mpy, tmp_path, SESSIONS_CAP)
    for first, r in runs:
        assert first == {"server": "antos", "version": "2025-11-25"}
        _session_ok(r)
    assert served >= 20 * (len(SESSION) + 3)
    assert "out of memory" not in b.text
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET

    def passes(heap):
        try:
            x, xruns, _, _ = _twenty_sessions(mpy, tmp_path, heap)
            for _, r in xruns:
                _session_ok(r)
        except AssertionError:
            return False
        return "out of memory" not in x.text
    measure.smallest("heap", "the board's MCP server, 20 SDK sessions in a row", passes,
                     SESSIONS_CAP, goal=GOAL)


def test_sessions_in_a_row_leave_the_heap_as_they_found_it(board):
    """The working set over 10 SDK sessions in a row (the calls of each
    load modules, and the console runs a command between them): after each
    session the heap in use is what it was before the first connection (but
    for names interned once), the tenth leaves what the first left, and the
    last sessions' largest request (the tools list) takes what the first
    ones' did."""
    b = board(live=True)
    with open(os.path.join(b.flash, "bin", "probe.py"), "w") as f:
        f.write(PROBE)
    ends = [0]      # connections served when each session had ended
    for _ in range(10):
        _, r = sdk(b.url, SESSION)
        _session_ok(r)
        ends.append(_served(b))
    m = b.close()
    assert len(m["afters"]) == ends[-1] == m["n"]
    after = [m["afters"][e - 1] for e in ends[1:]]
    peak = [max(m["peaks"][a:e]) for a, e in zip(ends, ends[1:])]
    print("\nheap in use after each session, above what it was before the first: %s B; "
          "largest request of each: %s B" % (after, peak))
    # what stays: the names interned on first use (the /bin scripts' own,
    # compiled when they run; about 130 bytes), never a module (store.admin
    # alone is more)
    assert max(abs(a) for a in after) < 512, after
    assert abs(after[-1] - after[0]) < 128, after
    # (a peak may read low, when the sampler thread wakes too late: the
    # highest of five sessions is their real one; the first sessions may
    # need more, for what is made once: 608 B more once on a fresh clone)
    assert max(peak[5:]) - max(peak[:5]) < 512, peak
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET


# ---------------------------------------------------------------- TypeScript SDK

def ts_client(url, token=TOKEN):
    node = peers.node_exe()
    peers.require_file(os.path.join(peers.NODE_MODULES, "@modelcontextprotocol", "sdk"),
                       "@modelcontextprotocol/sdk")
    env = peers.node_env(node)
    env["MCP_TOKEN"] = token
    env["NODE_MODULES"] = peers.NODE_MODULES
    r = subprocess.run([node, TS_CLIENT, url], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_typescript_sdk_client(board):
    b = board()
    with open(os.path.join(b.flash, "bin", "probe.py"), "w") as f:
        f.write(PROBE)
    r = ts_client(b.url)
    assert r["server"]["name"] == "antos" and r["protocol"] == "2025-11-25"
    assert sorted(r["tools"]) == sorted(READ_ONLY + ["probe"])
    assert "boot.py" in text_of(r["ls"]) and not r["ls"]["isError"]
    assert text_of(r["cat"]) == "# boot.py of the test flash\nprint('booted')"
    assert text_of(r["probe"]) == "step 1 of 2\nstep 2 of 2\ncount=2 words=[]"
    assert r["logs"] == ["step 1 of 2", "step 2 of 2", "count=2 words=[]"]
    # no progressToken asked for by this call (onprogress adds one): 2 steps
    assert r["progress"] == [[1, 2], [2, 2]]
    assert r["resources"] == ["board://state", "file:///boot.py", "file:///bin/probe.py"]
    assert r["read"] == [{"uri": "file:///boot.py", "mimeType": "text/x-python",
                          "text": "# boot.py of the test flash\nprint('booted')\n"}]
    b.expect("mcp: ts-test ran probe 2 (ok)")
    # the client ended its session (DELETE)
    assert "sessions: 0\n" in b.line("mcp serve status", "allowed beyond")
    m = b.close()
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET


# ---------------------------------------------------------------- two clients at once

# The product's scenario (issue 40): the board serving two AIs on PCs at
# once, the Python SDK client and the TypeScript one, each in a session of
# its own, while the console waits at its prompt; at the goal heap.
TWO_CLIENTS_CAP = "41K"
SDK_STEPS = [{"op": "tools"},
             {"op": "call", "name": "ls", "args": {}},
             {"op": "call", "name": "cat", "args": {"file": "/boot.py"}},
             {"op": "level", "level": "info"},
             {"op": "call", "name": "probe", "args": {"count": 2}, "progress": True},
             {"op": "call", "name": "free", "args": {}},
             {"op": "tools"}]


def _two_clients(mpy, tmp_path, heap):
    """The Python SDK client and the TypeScript one at once against a board
    serving at heap -> (board, {"sdk": steps' results or the failure, "ts":
    ...}, the board's measurements or the failure)."""
    folder = tmp_path / ("two-%s-%d" % (heap, len(os.listdir(str(tmp_path)))))
    folder.mkdir()
    b = Board(mpy, make_flash(folder), heap)
    try:
        with open(os.path.join(b.flash, "bin", "probe.py"), "w") as f:
            f.write(PROBE)
        got = {}

        def client(name, run):
            try:
                got[name] = run()
            except AssertionError as e:
                got[name] = e
        threads = [threading.Thread(target=client, args=("sdk", lambda: sdk(b.url, SDK_STEPS)[1])),
                   threading.Thread(target=client, args=("ts", lambda: ts_client(b.url)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        try:
            m = b.close()
        except AssertionError as e:
            m = e
        return b, got, m
    finally:
        b.kill()


def _two_clients_ok(b, got, m):
    r, ts = got.get("sdk"), got.get("ts")
    return (isinstance(r, list) and isinstance(ts, dict) and isinstance(m, dict)
            and "out of memory" not in b.text
            and not [x for x in r if "error" in x] and r[0] == r[6]
            and text_of(r[2]) == "# boot.py of the test flash\nprint('booted')"
            and text_of(r[4]) == "step 1 of 2\nstep 2 of 2\ncount=2 words=[]"
            and text_of(r[5]).startswith("heap:")
            and text_of(ts["probe"]) == "step 1 of 2\nstep 2 of 2\ncount=2 words=[]"
            and ts["read"][0]["text"] == "# boot.py of the test flash\nprint('booted')\n")


def test_two_clients_at_once_at_the_goal_heap(mpy, measure, tmp_path):
    """The Python SDK client and the TypeScript SDK client, each listing
    and calling (an event stream with progress too), at once: both get
    every answer, at TWO_CLIENTS_CAP (within the goal)."""
    assert parse_size(TWO_CLIENTS_CAP) <= parse_size(GOAL)
    b, got, m = _two_clients(mpy, tmp_path, TWO_CLIENTS_CAP)
    assert isinstance(got.get("sdk"), list), got.get("sdk")
    assert isinstance(got.get("ts"), dict), got.get("ts")
    assert isinstance(m, dict), m
    assert _two_clients_ok(b, got, m), (got, b.text[-3000:])
    assert m["n"] >= len(SDK_STEPS) + 8        # both sessions' requests
    def passes(heap):
        try:
            return _two_clients_ok(*_two_clients(mpy, tmp_path, heap))
        except AssertionError:      # (the board out of memory at its start)
            return False
    measure.smallest("heap", "the board's MCP server, two clients at once (SDK and TypeScript)",
                     passes, TWO_CLIENTS_CAP, goal=GOAL)


# ---------------------------------------------------------------- conformance suite

CONFORMANCE = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection",
               "resources-list", "resources-read-text", "logging-set-level",
               "tools-call-simple-text", "tools-call-image", "tools-call-audio",
               "tools-call-embedded-resource", "tools-call-mixed-content",
               "tools-call-with-logging", "tools-call-error", "tools-call-with-progress",
               "tools-call-sampling", "tools-call-elicitation"]


class TokenProxy:
    """localhost:port -> the board, adding "Authorization: Bearer TOKEN" after
    each request line (what a client's configuration does; the conformance
    suite sends no token). Everything else passes unchanged, Host and Origin
    included, so the board's own checks see the suite's requests."""

    def __init__(self, port, token=TOKEN):
        self.target = port
        self.token = token.encode()
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(16)
        self.port = self.s.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            threading.Thread(target=self._conn, args=(c,), daemon=True).start()

    def _conn(self, c):
        try:
            head = b""
            while b"\r\n" not in head:
                d = c.recv(4096)
                if not d:
                    return
                head += d
            line, rest = head.split(b"\r\n", 1)
            up = socket.create_connection(("127.0.0.1", self.target))
            up.sendall(line + b"\r\nAuthorization: Bearer " + self.token + b"\r\n" + rest)
            threading.Thread(target=self._pipe, args=(c, up), daemon=True).start()
            self._pipe(up, c)
        except OSError:
            pass
        finally:
            c.close()

    @staticmethod
    def _pipe(a, b):
        try:
            while True:
                d = a.recv(65536)
                if not d:
                    break
                b.sendall(d)
        except OSError:
            pass
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.s.close()


@pytest.fixture(scope="module")
def conformance_board(mpy, tmp_path_factory):
    b = Board(mpy, make_flash(tmp_path_factory.mktemp("conf"), fixtures=True))
    proxy = TokenProxy(b.port)
    yield b, "http://localhost:%d/mcp" % proxy.port
    proxy.close()
    m = b.close()
    print("conformance board: idle %d, peak %d bytes, %d connections" % (
        m["idle"], m["peak"], m["n"]))
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET


@pytest.mark.parametrize("scenario", CONFORMANCE)
def test_conformance_server_scenarios(conformance_board, conformance_suite, scenario):
    b, url = conformance_board
    node, suite = conformance_suite
    r = subprocess.run([node, suite, "server", "--url", url,
                        "--scenario", scenario], capture_output=True, text=True,
                       timeout=120, env=peers.node_env(node), cwd=b.flash)
    out = peers._ANSI.sub("", r.stdout + r.stderr)
    assert r.returncode == 0 and ", 0 failed" in out, out[-4000:]


# ---------------------------------------------------------------- raw HTTP

@pytest.mark.parametrize("live", [False, True], ids=["firmware-gc", "working-set"])
def test_refusals_get_the_right_answer_with_a_flat_heap(board, live):
    """Every refusal and 200 requests in a row: all answered with the
    firmware's GC; with the working set measured, nothing accumulates."""
    b = board(live=live)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    # no token: 401 at once, with the scheme to use
    st, h, body = raw(b, ping, token=None)
    assert st == 401 and h["www-authenticate"].startswith("Bearer")
    assert json.loads(body)["error"] == "invalid_token"
    # DNS rebinding: a foreign Host or Origin is refused, localhost on any port is fine
    assert raw(b, ping, headers={"Host": "evil.example.com"})[0] == 403
    assert raw(b, ping, headers={"Origin": "http://evil.example.com"})[0] == 403
    assert raw(b, ping, headers={"Origin": "null"})[0] == 403
    sid = init(b)
    assert raw(b, ping, sid=sid, headers={"Host": "localhost:1234",
                                          "Origin": "http://localhost:1234"})[0] == 200
    # the endpoint and its methods
    assert raw(b, ping, sid=sid, path="/other")[0] == 404
    st, h, _ = raw(b, None, method="GET", sid=sid)
    assert st == 405 and h["allow"] == "POST, DELETE"
    assert raw(b, ping, sid=sid, headers={"Accept": "application/json"})[0] == 406
    assert raw(b, ping, sid=sid, headers={"Content-Type": "text/plain"})[0] == 415
    # a 1 MB body: 413, read and dropped so the client sees the answer
    st, _, body = raw(b, b"[" + b"1," * 524287 + b"1]", sid=sid)
    assert st == 413 and json.loads(body)["error"]["code"] == -32000
    # malformed JSON-RPC
    st, _, body = raw(b, b'{"jsonrpc": "2.0", "id": 1, "method": ', sid=sid)
    assert st == 400 and json.loads(body)["error"]["code"] == -32700
    st, _, body = raw(b, [ping, ping], sid=sid)
    assert st == 400 and json.loads(body)["error"]["code"] == -32600
    st, _, body = raw(b, {"jsonrpc": "1.0", "id": 1, "method": "ping"}, sid=sid)
    assert st == 400 and json.loads(body)["error"]["code"] == -32600
    st, _, body = raw(b, b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', sid=sid)
    assert st == 400 and json.loads(body)["error"]["code"] == -32600
    st, r = rpc(b, sid, "nosuch/method")
    assert st == 200 and r["error"]["code"] == -32601
    st, r = rpc(b, sid, "tools/call", {"name": "cat", "arguments": {"fil": "x"}})
    assert r["error"]["code"] == -32602 and "unknown argument fil" in r["error"]["message"]
    st, r = rpc(b, sid, "tools/call", {"name": "nosuch"})
    assert r["error"]["code"] == -32602
    st, r = rpc(b, sid, "logging/setLevel", {"level": "loud"})
    assert r["error"]["code"] == -32602
    # sessions: none, unknown, a bad protocol header, a notification, the end
    assert raw(b, ping)[0] == 400
    assert raw(b, ping, sid="nosuch")[0] == 404
    assert raw(b, ping, sid=sid, headers={"MCP-Protocol-Version": "1999-01-01"})[0] == 400
    st, h, body = raw(b, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid=sid)
    assert st == 202 and body == b""
    # clients that leave (reset) before their answer or halfway through a request
    import struct
    for data in (b"POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\n\r\n",
                 b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Le"):
        x = socket.create_connection(("127.0.0.1", b.port))
        x.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        x.sendall(data)
        x.close()
    assert rpc(b, sid, "ping")[0] == 200
    # 200 requests in a row, each a new connection
    for i in range(200):
        st, r = rpc(b, sid, "ping", rid=i)
        assert st == 200 and r == {"jsonrpc": "2.0", "id": i, "result": {}}
    assert raw(b, None, method="DELETE", sid=sid)[0] == 200
    assert raw(b, ping, sid=sid)[0] == 404
    m = b.close()
    assert m["n"] >= 222
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET
    if live:
        pings = m["peaks"][-152:-2]      # the last 150 pings
        usual = sorted(pings)[len(pings) // 2]
        print("200 pings: peak %d..%d bytes (usually %d); heap in use after the first "
              "connection %d, after the last %d" % (min(pings), max(pings), usual, m["first"],
                                                    m["last"]))
        assert m["last"] - m["first"] < 512      # nothing accumulates
        # the sampler, a thread, can wake too late for a request's peak
        # (under load): a peak may read low, never high
        assert max(pings) - usual < 2048         # no ping costs much more than most
        assert max(pings[-50:]) - max(pings[:50]) < 512     # nor more as they go


def test_a_wrong_token_waits_while_others_are_served(board):
    """A wrong token is answered 401 after a delay (1 s, 2 s, 4 s... with
    each failure), and the console and other clients are served meanwhile
    (the working set measured: a caller kept waiting holds only its
    socket)."""
    b = board(live=True)
    sid = init(b)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for delay in (1.0, 2.0):
        t0 = time.monotonic()
        st, h, _ = raw(b, ping, token="antos_guess")
        assert st == 401 and "invalid_token" in h["www-authenticate"]
        assert time.monotonic() - t0 >= delay
    done = {}

    def guess():
        done["status"] = raw(b, ping, token="antos_guess3")[0]
        done["t"] = time.monotonic()
    t0 = time.monotonic()
    th = threading.Thread(target=guess)
    th.start()
    st, r = rpc(b, sid, "tools/call", {"name": "pwd"})      # the third guess waits 4 s
    assert st == 200 and text_of(r["result"]) == "/"
    assert b.line("mcp serve status", "allowed beyond")      # the console answers too
    assert "status" not in done
    th.join(60)
    assert done["status"] == 401 and done["t"] - t0 >= 4.0
    m = b.close()
    assert m["last"] - m["first"] < 1024    # a caller kept waiting holds only its socket
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET


def test_wrong_tokens_never_lock_the_right_one_out(board):
    """Four callers with wrong tokens waiting out their delays (1, 2, 4,
    8 s) fill the waiting room: a fifth wrong one gets 429 at once, but
    the right token is answered at once, while they all still wait."""
    b = board()
    sid = init(b)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    got = []

    def guess(i):
        got.append(raw(b, ping, token="antos_guess%d" % i)[0])
    t0 = time.monotonic()
    ths = [threading.Thread(target=guess, args=(i,)) for i in range(4)]
    for th in ths:
        th.start()
        time.sleep(0.1)     # one after another: the server takes each in turn
    assert raw(b, ping, token="antos_guess9")[0] == 429
    st, r = rpc(b, sid, "tools/call", {"name": "pwd"})
    assert st == 200 and text_of(r["result"]) == "/"
    assert time.monotonic() - t0 < 1.0 and got == []     # none answered yet
    for th in ths:
        th.join(60)
    assert got == [401] * 4
    b.close()


def test_token_made_on_first_serve_shown_once_and_rotated(board):
    b = board({"mcp.serve.token": None})
    shown = b.text.split("token (shown once")[1].split("\n")[1].strip()
    assert shown.startswith("antos_") and len(shown) == 38
    assert raw(b, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, token=None)[0] == 401
    st, h, body = raw(b, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}},
        token=shown)
    assert st == 200
    # the firmware's one version number
    assert json.loads(body)["result"]["serverInfo"]["version"] == compat.VERSION
    out = b.line("mcp serve token", "makes another")
    assert shown not in out and shown[:3] + "..." + shown[-2:] in out
    out = b.line("mcp serve token new", "antos_")
    new = b.expect("\n").strip()
    new = "antos_" + new if not new.startswith("antos_") else new
    assert new != shown and len(new) == 38
    sid = h["mcp-session-id"]
    assert raw(b, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, sid=sid, token=new)[0] == 200
    assert raw(b, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, sid=sid, token=shown)[0] == 401
    out = b.line("get", "mcp.serve.token")
    out += b.expect("\n")
    assert new not in out and shown not in out
    with open(os.path.join(b.flash, "settings.json")) as f:
        assert json.load(f)["mcp.serve.token"] == new
    b.close()


def test_sessions_are_bounded_and_expire(board):
    b = board({"mcp.serve.idle": 2})
    sids = [init(b, "c%d" % i) for i in range(5)]
    t0 = time.monotonic()       # sids[1] was last used before this
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    # four sessions at most: the fifth replaced the least recently used
    assert raw(b, ping, sid=sids[0])[0] == 404
    # unused for mcp.serve.idle seconds: forgotten; sids[4] stays in use
    while time.monotonic() - t0 < 2.5:
        assert raw(b, ping, sid=sids[4])[0] == 200
        time.sleep(0.2)
    assert raw(b, ping, sid=sids[1])[0] == 404
    assert raw(b, ping, sid=sids[4])[0] == 200
    assert raw(b, ping, sid=init(b))[0] == 200
    b.close()


def test_a_request_during_a_command_is_answered_after_it(board):
    b = board()
    with open(os.path.join(b.flash, "bin", "hold.py"), "w") as f:
        f.write(HOLD)
    sid = init(b)
    b.type("hold")
    b.expect("holding")
    got = {}
    th = threading.Thread(target=lambda: got.update(r=rpc(b, sid, "ping")))
    th.start()
    th.join(1.0)
    assert th.is_alive() and not got      # the command runs: nobody serves
    open(os.path.join(b.flash, "go"), "w").close()
    b.expect("released")
    th.join(60)
    assert got["r"] == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    b.close()


HOLD = '''SPEC = {"desc": "wait until the file /go exists"}


def main(args):
    import os
    import shell
    from compat import sleep_ms
    shell.out("holding")
    while True:
        try:
            os.stat(shell.resolve("/go"))
            break
        except OSError:
            sleep_ms(20)
    shell.out("released")
'''


# ---------------------------------------------------------------- resources

@pytest.mark.parametrize("live", [False, True], ids=["firmware-gc", "working-set"])
def test_resources_paged_private_files_hidden_reads_bounded(board, live):
    b = board(live=live)
    f = b.flash
    os.makedirs(os.path.join(f, "data"))
    for i in range(60):
        with open(os.path.join(f, "data", "f%02d.txt" % i), "w") as x:
            x.write("file %d\n" % i)
    os.makedirs(os.path.join(f, "history"))
    with open(os.path.join(f, "history", "chat.jsonl"), "w") as x:
        x.write('{"role": "user", "content": "private"}\n')
    small = ("0123456789abcdef" * 63 + "line\u00e9\n")[:1024]
    big = (small * 64)[:65536]
    with open(os.path.join(f, "small.txt"), "w") as x:
        x.write(small)
    with open(os.path.join(f, "big.txt"), "w") as x:
        x.write(big)
    blob = bytes(range(256)) * 4
    with open(os.path.join(f, "blob.bin"), "wb") as x:
        x.write(blob)
    with open(os.path.join(f, "huge.txt"), "w") as x:
        x.write("x" * 70000)
    with open(os.path.join(f, "leak.txt"), "w") as x:
        x.write("a" * 700 + "sk-board-secret-0123456789 in the middle\n")
    sid = init(b)
    st, r1 = rpc(b, sid, "resources/list")
    page1 = [x["uri"] for x in r1["result"]["resources"]]
    assert len(page1) == 50 and r1["result"]["nextCursor"] == "50"
    st, r2 = rpc(b, sid, "resources/list", {"cursor": "50"})
    page2 = [x["uri"] for x in r2["result"]["resources"]]
    assert "nextCursor" not in r2["result"]
    uris = page1 + page2
    assert len(uris) == len(set(uris)) == 1 + 6 + 60
    assert uris[0] == "board://state"
    assert uris[1:7] == ["file:///big.txt", "file:///blob.bin", "file:///boot.py",
                        "file:///huge.txt", "file:///leak.txt", "file:///small.txt"]
    assert not [u for u in uris if "settings" in u or "history" in u]
    x = r1["result"]["resources"][1]
    assert x == {"uri": "file:///big.txt", "name": "/big.txt", "mimeType": "text/plain",
                 "size": len(big.encode())}

    def read(uri):
        st, r = rpc(b, sid, "resources/read", {"uri": uri})
        assert st == 200
        return r
    assert read("file:///small.txt")["result"]["contents"][0]["text"] == small
    assert read("file:///big.txt")["result"]["contents"][0]["text"] == big
    c = read("file:///blob.bin")["result"]["contents"][0]
    import base64
    assert c["mimeType"] == "application/octet-stream" and base64.b64decode(c["blob"]) == blob
    assert "70000 bytes" in read("file:///huge.txt")["error"]["message"]
    assert "secret" in read("file:///leak.txt")["error"]["message"]
    for uri in ("file:///settings.json", "file:///history/chat.jsonl", "file:///nosuch",
                "file:///data", "test://nosuch"):
        assert read(uri)["error"]["code"] == -32002
    # cat gives the first 4 KB as its result, whatever the size; secrets masked
    st, r = rpc(b, sid, "tools/call", {"name": "cat", "arguments": {"file": "big.txt"}})
    t = text_of(r["result"])
    assert t.startswith(small[:1000]) and t.endswith("more bytes)") and len(t) < 4200
    st, r = rpc(b, sid, "tools/call", {"name": "cat", "arguments": {"file": "leak.txt"}})
    assert "sk-board-secret" not in text_of(r["result"]) and "sk-...89" in text_of(r["result"])
    # the board's state: one JSON resource
    c = read("board://state")["result"]["contents"][0]
    state = json.loads(c["text"])
    assert c["mimeType"] == "application/json" and state["board"] == "ANTOS_ESP32"
    assert 0 < state["heap"]["used"] and 0 < state["heap"]["free"] < 80 * 1024
    assert 0 < state["flash"]["free"] <= state["flash"]["total"]
    assert state["uptime_s"] >= 0 and state["wifi"] == {"connected": False, "ssid": None,
                                                         "address": None}
    m = b.close()
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET
    if live:
        # the same working heap for a 1 KB and a 64 KB file (read, then cat)
        p = m["peaks"]
        small_read, big_read = p[4], p[5]
        print("resources/read peak: 1 KB %d, 64 KB %d bytes" % (small_read, big_read))
        assert abs(big_read - small_read) < 3072


# ---------------------------------------------------------------- the approval, on a pty

def test_destructive_command_refused_until_allowed_then_confirmed(mpy, tmp_path):
    from test_shell_ai import Console
    flash = make_flash(tmp_path)
    for n in ("x", "y", "z", "w"):
        (flash / (n + ".txt")).write_text(n)
    c = Console(mpy, flash)
    try:
        port = peers.free_port()
        url = "http://127.0.0.1:%d/mcp" % port
        c.line("mcp serve %d" % port)
        assert "serving MCP at" in c.text()
        _, r = sdk(url, [{"op": "tools"}, {"op": "call", "name": "rm",
                                            "args": {"path": ["x.txt"]}}])
        assert "rm" not in [t["name"] for t in r[0]["tools"]]
        assert "Unknown tool: rm" in r[1]["error"]
        c.line("set mcp.serve.allow rm")
        results = {}
        steps = [{"op": "tools"}] + [{"op": "call", "name": "rm", "args": {"path": [n + ".txt"]}}
                                     for n in ("x", "y", "z", "w")]
        th = threading.Thread(target=lambda: results.update(r=sdk(url, steps)[1]))
        th.start()
        c.type("ls")      # half a line typed when the question comes
        for answer in "nya":
            c.expect_exact("allow? [y]es [n]o [a]lways: ", timeout=60)
            c.type(answer + "\r")      # a typed line, as every question asks
        th.join(120)
        c.expect_exact("mcp: mcp ran rm w.txt (ok)")
        r = results["r"]
        rm = [t for t in r[0]["tools"] if t["name"] == "rm"][0]
        assert rm["annotations"] == {"readOnlyHint": False, "destructiveHint": True}
        assert rm["inputSchema"]["properties"]["path"]["minItems"] == 1
        assert r[1]["isError"] and "did not allow" in text_of(r[1])
        assert not r[2]["isError"] and not r[3]["isError"] and not r[4]["isError"]
        assert (flash / "x.txt").exists()
        assert not (flash / "y.txt").exists() and not (flash / "z.txt").exists()
        assert not (flash / "w.txt").exists()      # "always": no question for w
        screen = c.text()
        assert screen.count("mcp: mcp asks to run: rm") == 3
        assert "rm x.txt (refused)" in screen and "rm w.txt (ok)" in screen
        assert c.attrs("mcp: mcp asks to run: rm x.txt").bold
        with open(flash / "settings.json") as f:
            assert json.load(f)["mcp.serve.always"] == "rm"
        # the half-typed line came back after each request
        c.type("\r")
        c.expect_exact("boot.py")
        c.expect_prompt()
        assert "mcp: mcp ran rm w.txt (ok)\n/> ls\n" in c.text()
    finally:
        c.close()


# ---------------------------------------------------------------- the mapping (CPython)

def test_spec_to_schema_and_back_to_a_console_line():
    """shell/tools.py: the one mapping from a command's SPEC to a tool schema
    and from a call's arguments back to the line the console parses."""
    import shell
    from shell import tools
    spec = {"name": "probe", "usage": "probe COUNT [WORDS...]", "path": "/x", "subs": None,
            "readonly": True, "args": (("count", "int", "1", "how many"),
                                       ("mode", ("a", "b"), "?"), ("words", "str", "*"))}
    assert tools.schema(spec) == {
        "type": "object", "additionalProperties": False, "required": ["count"],
        "properties": {"count": {"type": "integer", "description": "how many"},
                       "mode": {"type": "string", "enum": ["a", "b"]},
                       "words": {"type": "array", "items": {"type": "string"}}}}
    line = tools.line(spec, {"count": 2, "mode": "b", "words": ["x y", "it's", '"q"', ""]})
    assert line == 'probe 2 b "x y" "it\'s" \'"q"\' ""'
    assert shell.parse(spec, line[5:]) == ["2", "b", "x y", "it's", '"q"', ""]
    for bad, why in (({}, "missing argument count"), ({"count": 1, "words": ["a"]},
                                                      "words needs mode before it"),
                     ({"count": True}, "count must be a string or a number"),
                     ({"count": 1, "x": 1}, "unknown argument x"),
                     ({"count": "1\nls"}, "count must be one line"),
                     ({"count": 1, "mode": "a", "words": ["'\""]}, "both kinds of quotes"),
                     ({"count": 1, "mode": "a", "words": "a"}, "words must be an array")):
        with pytest.raises(ValueError) as e:
            tools.line(spec, bad)
        assert why in str(e.value)
    # free text is passed raw as the rest of the line; sub-commands take "args"
    text = {"name": "say", "usage": "say TEXT", "path": None, "subs": None,
            "args": (("text", "text", "1"),)}
    assert tools.schema(text)["properties"]["text"]["description"].startswith("free text")
    assert tools.line(text, {"text": "a 'b' \"c\""}) == "say a 'b' \"c\""
    wifi = shell.find("wifi")
    assert tools.schema(wifi) == {"type": "object", "properties": {"args": {
        "type": "string", "description": "the words after 'wifi', as typed at the console: "
        "wifi [status|scan|connect SSID PASS]"}}}
    assert tools.line(wifi, {"args": "connect home"}) == "wifi connect home"
    assert tools.read_only(shell.find("cat")) and not tools.read_only(shell.find("rm"))


@contextlib.contextmanager
def served_here(flash):
    """The board's server on CPython, in this process (lib/ runs there too:
    its socket code's other half, timeouts, recv_into, sendall), served
    from a thread that plays the prompt's wait -> an object with .port,
    for raw() and rpc()."""
    import select
    import store
    import mcpserver as server
    from shell import term
    store.set("mcp.serve.token", TOKEN)
    port = peers.free_port()
    url, err = server.start(port, "127.0.0.1")
    assert err is None and url == "http://localhost:%d/mcp" % port
    assert term.WATCH is server.SERVER
    stop = []

    def wait():
        while not stop:
            r, _, _ = select.select([server.SERVER.sock], [], [], 0.1)
            server.SERVER.serve(bool(r))
    th = threading.Thread(target=wait)
    th.start()
    try:
        yield type("B", (), {"port": port})
    finally:
        stop.append(1)
        th.join(10)
        assert server.stop() and term.WATCH is None and not server.stop()


def test_the_same_server_code_runs_on_cpython(flash):
    from mcp import server as old_name
    import mcpserver
    assert old_name is mcpserver       # for /bin scripts written before mcpserver
    (flash / "boot.py").write_text("# cpython\n")
    with served_here(flash) as b:
        sid = init(b)
        st, r = rpc(b, sid, "tools/call", {"name": "cat", "arguments": {"file": "boot.py"}})
        assert st == 200 and text_of(r["result"]) == "# cpython"
        st, r = rpc(b, sid, "resources/read", {"uri": "file:///boot.py"})
        assert r["result"]["contents"][0]["text"] == "# cpython\n"
        assert raw(b, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, token=None)[0] == 401


def _body(b, sid, msg):
    """POST msg -> (headers, body, whole): whole is False when the body ended
    before its end (http.client's IncompleteRead)."""
    import http.client
    c = http.client.HTTPConnection("127.0.0.1", b.port, timeout=60)
    try:
        c.request("POST", "/mcp", json.dumps(msg), {
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer " + TOKEN, "Mcp-Session-Id": sid})
        r = c.getresponse()
        h = {k.lower(): v for k, v in r.getheaders()}
        try:
            return h, r.read(), True
        except http.client.IncompleteRead as e:
            return h, e.partial, False
    finally:
        c.close()


def test_an_answer_cut_short_never_looks_whole(flash, monkeypatch):
    """Once the head of a reply is out, a failure can no longer be answered
    with an error; the client must then see the body cut short, never a
    whole one (it would take the bytes it got for the answer: "Invalid JSON:
    EOF while parsing"). Bodies go out chunked, and a reply that fails
    never gets its last chunk: out of memory while the tools are listed
    (JSON), or while a call's result is written after its log lines went
    out (an event stream). A script's value that is no JSON fails before
    its event is begun, and the stream goes on whole."""
    import shell
    import store
    (flash / "f.txt").write_text("hello\n")
    (flash / "bin").mkdir()
    (flash / "bin" / "bad.py").write_text(BAD_PROGRESS)
    with served_here(flash) as b:
        sid = init(b)
        h, body, whole = _body(b, sid, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert whole and h["transfer-encoding"] == "chunked" and "content-length" not in h
        assert len(json.loads(body)["result"]["tools"]) == len(READ_ONLY) + 1
        # out of memory making the ninth tool's spec (get's), as seen at the
        # edge of the heap: the first eight are out already
        spec = shell._spec

        def failing(row):
            if row.startswith("get~"):
                raise MemoryError("memory allocation failed, allocating 64 bytes")
            return spec(row)
        monkeypatch.setattr(shell, "_spec", failing)
        h, body, whole = _body(b, sid, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert not whole and len(body) > 1024 and body.startswith(b'{"jsonrpc":"2.0"')
        monkeypatch.undo()
        # an event stream: the log line went out as an event, then out of
        # memory writing the result (the settings' secrets are masked in it)
        assert rpc(b, sid, "logging/setLevel", {"level": "info"})[0] == 200
        keys = store.keys
        calls = []

        def failing_keys():
            calls.append(1)
            if len(calls) > 1:      # the log event's mask went by; now the result's
                raise MemoryError("memory allocation failed, allocating 32 bytes")
            return keys()
        monkeypatch.setattr(store, "keys", failing_keys)
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "cat", "arguments": {"file": "f.txt"}}}
        h, body, whole = _body(b, sid, call)
        assert h["content-type"] == "text/event-stream" and not whole
        assert b'"data":"hello"' in body
        monkeypatch.undo()
        h, body, whole = _body(b, sid, call)
        assert whole and b'"id":3' in body
        # a script's progress that is no JSON: refused before its event
        h, body, whole = _body(b, sid, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                        "params": {"name": "bad", "arguments": {},
                                                   "_meta": {"progressToken": "p"}}})
        assert whole
        events = [json.loads(e[len("data: "):]) for e in body.decode().split("\r\n")
                  if e.startswith("data: ")]
        assert [e.get("method") for e in events] == [
            "notifications/progress", "notifications/message", "notifications/message", None]
        assert events[0]["params"] == {"progressToken": "p", "progress": 1}
        assert text_of(events[-1]["result"]) == "refused: TypeError\nstill here"


BAD_PROGRESS = '''SPEC = {"desc": "reports progress, then a progress that is no JSON", "readonly": True}


def main(args):
    import mcpserver
    import shell
    mcpserver.progress(1)
    try:
        mcpserver.progress(2, message=b"bytes")
    except TypeError as e:
        shell.out("refused: " + type(e).__name__)
    shell.out("still here")
'''
