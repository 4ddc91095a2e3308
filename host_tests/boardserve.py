"""The console serving MCP under the MicroPython unix port, for tests and
`make bench` (host_tests/test_mcp_server.py, tools/bench/bench_server.py):
Board runs scenarios/mcp_serve.py (pipe mode, lines typed through stdin,
the heap measured while it serves) with `mcp serve PORT` typed at its
prompt; raw() / init() / rpc() talk plain HTTP to it.
"""
import http.client
import json
import os
import shutil
import subprocess
import threading
import time

import peers

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "mcp_flash")
TOKEN = "antos_0123456789abcdef0123456789abcdef"
HEAP = "64K"


class Board:
    """The console in pipe mode under the unix port with the MCP server
    started at its prompt. type() sends a console line; expect() waits for
    console output."""

    def __init__(self, mpy, flash, heap=HEAP, serve=True, live=False, ca=None):
        """live=True: the working set (see scenarios/mcp_serve.py), not the
        firmware's GC; ca: httpc.CA_FILE (a test CA, tlsfront.py)."""
        self.flash = str(flash)
        self.port = peers.free_port()
        self.url = "http://127.0.0.1:%d/mcp" % self.port
        self.text = ""
        self.eof = False    # all the output is in text
        self.mark = 0
        self.cv = threading.Condition()
        self.p = subprocess.Popen(
            mpy.cmd("mcp_serve", heap), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=mpy.env(dict({"ANTOS_FLASH": self.flash, "ANTOS_TTY": "0"},
                             **({"ANTOS_HEAPMON": "live"} if live else {}),
                             **({"ANTOS_CA": str(ca)} if ca else {}))),
            cwd=self.flash, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        self.expect("/> ")
        if serve:
            self.type("mcp serve %d" % self.port)
            self.expect("serving MCP at")
            self.expect("/> ")

    def _read(self):
        while True:
            b = self.p.stdout.read1(4096)
            if not b:
                break
            with self.cv:
                self.text += b.decode("utf-8", "replace")
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def type(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def expect(self, s, timeout=60):
        """Wait for s in the output after the last match; -> the output up
        to and including it."""
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                i = self.text.find(s, self.mark)
                if i >= 0:
                    got = self.text[self.mark:i + len(s)]
                    self.mark = i + len(s)
                    return got
                left = end - time.monotonic()
                if left <= 0 or self.p.poll() is not None:
                    raise AssertionError("waited for %r; console:\n%s" % (s, self.text[-3000:]))
                self.cv.wait(min(left, 0.5))

    def line(self, line, until):
        """Type a console line and wait for `until` in its output (served
        requests redraw the prompt too, so a prompt does not say the
        command ended) -> the output up to it."""
        self.type(line)
        return self.expect(until)

    def net(self):
        """(TLS connections, sockets) most open at once (scenarios/netcount.py's
        NETPEAK line, once the board has exited)."""
        import re
        m = re.search(r"NETPEAK tls=(\d+) sockets=(\d+)", self.text)
        return m and (int(m.group(1)), int(m.group(2)))

    def close(self):
        """exit, then the measurements: {"idle", "peak", "first", "last", "n",
        "before", "peaks", "afters"} (scenarios/mcp_serve.py)."""
        killed = False
        if self.p.poll() is None:
            self.type("exit")
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, 9)
                self.p.wait()
                killed = True
        with self.cv:       # (the process may end before its last lines are read)
            self.cv.wait_for(lambda: self.eof, 10)
        assert "Traceback" not in self.text, self.text[-3000:]
        i = self.text.find("SERVE ")
        if i >= 0:
            line = self.text[i:].splitlines()[0]
            m = dict(w.split("=") for w in line.split()[1:])
            lists = ("peaks", "afters")
            for k in lists:
                m[k] = [int(x) for x in m[k].split(",") if x != "-"]
            return {k: (v if k in lists else int(v)) for k, v in m.items()}
        raise AssertionError("no SERVE line (%s):\n%s" % (
            "killed: no exit within 30 s" if killed else "exit status %s" % self.p.returncode,
            self.text[-3000:]))

    def kill(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, 9)
            self.p.wait()


def make_flash(tmp_path, settings=None, fixtures=False):
    flash = tmp_path / "flash"
    if fixtures:
        shutil.copytree(FIXTURES, flash)
    else:
        (flash / "bin").mkdir(parents=True)
    s = {"mcp.serve.token": TOKEN, "mcp.serve.bind": "127.0.0.1",
         "ai.general.key": "sk-board-secret-0123456789"}
    s.update(settings or {})
    s = {k: v for k, v in s.items() if v is not None}
    (flash / "settings.json").write_text(json.dumps(s))
    (flash / "boot.py").write_text("# boot.py of the test flash\nprint('booted')\n")
    return flash



def raw(b, body=None, method="POST", token=TOKEN, sid=None, headers=None, path="/mcp"):
    """One request -> (status, headers (lower-case names), body bytes)."""
    c = http.client.HTTPConnection("127.0.0.1", b.port, timeout=60)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        h["Authorization"] = "Bearer " + token
    if sid:
        h["Mcp-Session-Id"] = sid
    h.update(headers or {})
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    try:
        c.request(method, path, body, h)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def init(b, name="raw"):
    st, h, body = raw(b, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": name}}})
    assert st == 200, body
    assert json.loads(body)["result"]["protocolVersion"] == "2025-06-18"
    return h["mcp-session-id"]


def rpc(b, sid, method, params=None, rid=1, **kw):
    st, h, body = raw(b, {"jsonrpc": "2.0", "id": rid, "method": method,
                          "params": params or {}}, sid=sid, **kw)
    return st, json.loads(body) if body else None
