"""Smoke tests of the real MCP test peers (host_tests/peers.py).

Raw MCP JSON-RPC over Streamable HTTP with CPython's http.client only (not
lib/mcp): proves each peer starts, speaks the protocol as documented in
host_tests/peers/NOTES.md, and that the conformance runner machinery works.
"""
import http.client
import json
import socket
import time
from urllib.parse import urlsplit

import pytest

import peers

PROTO = "2025-11-25"
SDK_TOOLS = {"add", "echo", "get_weather", "fail", "slow_count"}


class Reply:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers
        self.raw = raw
        self.ctype = (headers.get("content-type") or "").split(";")[0].strip()
        self.events = []  # SSE: list of dicts {id, event, data, retry}
        self.messages = []  # JSON-RPC messages in arrival order
        if self.ctype == "text/event-stream":
            self._parse_sse(raw.decode("utf-8"))
        elif self.ctype == "application/json" and raw:
            self.messages.append(json.loads(raw))

    def _parse_sse(self, text):
        ev = {}
        for line in text.splitlines():  # LF or CRLF
            if line == "":
                if ev:
                    self.events.append(ev)
                    if ev.get("data"):
                        self.messages.append(json.loads(ev["data"]))
                ev = {}
            elif line.startswith(":"):
                continue
            else:
                k, _, v = line.partition(":")
                v = v[1:] if v.startswith(" ") else v
                ev[k] = ev[k] + "\n" + v if k == "data" and k in ev else v
        if ev:
            self.events.append(ev)

    @property
    def session(self):
        return self.headers.get("mcp-session-id")

    def response(self, rid):
        for m in self.messages:
            if m.get("id") == rid and "method" not in m:
                return m
        raise AssertionError("no response to id %r in %r" % (rid, self.raw[:500]))


def post(url, msg, session=None, proto=None, token=None, host=None,
         accept="application/json, text/event-stream"):
    u = urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=15)
    h = {"Content-Type": "application/json", "Accept": accept}
    if session:
        h["Mcp-Session-Id"] = session
    if proto:
        h["MCP-Protocol-Version"] = proto
    if token:
        h["Authorization"] = "Bearer " + token
    if host:
        h["Host"] = host
    try:
        c.request("POST", u.path, json.dumps(msg), h)
        r = c.getresponse()
        raw = r.read()
        headers = {k.lower(): v for k, v in r.getheaders()}
        return Reply(r.status, headers, raw)
    finally:
        c.close()


def req(rid, method, params=None):
    m = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        m["params"] = params
    return m


def initialize(url, **kw):
    r = post(url, req(1, "initialize", {"protocolVersion": PROTO, "capabilities": {},
                                        "clientInfo": {"name": "peers-smoke", "version": "1"}}),
             **kw)
    assert r.status == 200, (r.status, r.raw[:300])
    res = r.response(1)["result"]
    assert res["protocolVersion"] == PROTO
    sid = r.session
    n = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session=sid,
             proto=PROTO, **kw)
    assert n.status in (200, 202), (n.status, n.raw[:300])
    return r, sid


# ------------------------------------------------------------ Python SDK

@pytest.mark.parametrize("json_mode", [False, True], ids=["sse", "json"])
@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
def test_sdk_server_modes(sdk_server, json_mode, stateless):
    url = sdk_server(json=json_mode, stateless=stateless)
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    r, sid = initialize(url)
    assert r.ctype == ("application/json" if json_mode else "text/event-stream")
    assert r.response(1)["result"]["serverInfo"]["name"] == "peers-sdk-server"
    if stateless:
        assert sid is None
    else:
        assert sid and len(sid) >= 16

    t = post(url, req(2, "tools/list"), session=sid, proto=PROTO)
    assert t.status == 200
    tools = t.response(2)["result"]["tools"]
    assert SDK_TOOLS <= {x["name"] for x in tools}
    add = [x for x in tools if x["name"] == "add"][0]
    assert set(add["inputSchema"]["properties"]) == {"a", "b"}

    c = post(url, req(3, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
             session=sid, proto=PROTO)
    assert c.status == 200
    res = c.response(3)["result"]
    assert res["content"] == [{"type": "text", "text": "5"}]
    assert res["structuredContent"] == {"result": 5}
    assert res["isError"] is False


def test_sdk_tools_and_errors(sdk_server):
    url = sdk_server()
    _, sid = initialize(url)

    def call(rid, name, args):
        r = post(url, req(rid, "tools/call", {"name": name, "arguments": args}),
                 session=sid, proto=PROTO)
        assert r.status == 200
        return r.response(rid)

    assert call(2, "echo", {"text": "héllo"})["result"]["content"][0]["text"] == "héllo"
    w = call(3, "get_weather", {"city": "Rochdale"})["result"]
    assert w["content"][0]["text"] == "Rochdale: 12 C, drizzle"
    f = call(4, "fail", {"reason": "disk on fire"})["result"]
    assert f["isError"] is True and "disk on fire" in f["content"][0]["text"]
    # bad params and unknown tools: a result with isError, or a JSON-RPC error
    bad = call(5, "add", {"a": "x"})
    assert bad.get("error") or bad["result"]["isError"] is True
    unk = post(url, req(6, "no/such/method"), session=sid, proto=PROTO).response(6)
    assert unk["error"]["code"] == -32601


def test_sdk_progress_and_logs_on_sse(sdk_server):
    url = sdk_server()
    _, sid = initialize(url)
    r = post(url, req(7, "tools/call", {"name": "slow_count", "arguments": {"n": 3},
                                        "_meta": {"progressToken": "tok"}}),
             session=sid, proto=PROTO)
    assert r.ctype == "text/event-stream"
    assert b"\r\n" in r.raw  # the Python SDK frames SSE with CRLF
    methods = [m.get("method") for m in r.messages]
    assert methods.count("notifications/progress") == 3
    assert methods.count("notifications/message") == 3
    assert methods[-1] is None and r.messages[-1]["id"] == 7  # response comes last
    prog = [m["params"] for m in r.messages if m.get("method") == "notifications/progress"]
    assert [p["progress"] for p in prog] == [1, 2, 3]
    assert all(p["progressToken"] == "tok" and p["total"] == 3 for p in prog)
    assert r.response(7)["result"]["content"][0]["text"] == "counted to 3"


def test_sdk_session_and_header_errors(sdk_server):
    url = sdk_server()
    _, sid = initialize(url)
    no_sid = post(url, req(2, "tools/list"), proto=PROTO)
    assert no_sid.status == 400
    gone = post(url, req(2, "tools/list"), session="0" * 32, proto=PROTO)
    assert gone.status == 404
    only_json = post(url, req(2, "tools/list"), session=sid, proto=PROTO,
                     accept="application/json")
    assert only_json.status == 406
    port = urlsplit(url).port
    assert post(url, req(2, "tools/list"), session=sid, proto=PROTO,
                host="localhost").status == 421  # Host must carry the port
    assert post(url, req(2, "tools/list"), session=sid, proto=PROTO,
                host="localhost:%d" % port).status == 200


def test_sdk_bearer_token(sdk_server):
    url = sdk_server(token="s3cret-token")
    init = req(1, "initialize", {"protocolVersion": PROTO, "capabilities": {},
                                  "clientInfo": {"name": "t", "version": "1"}})
    none = post(url, init)
    assert none.status == 401
    www = none.headers.get("www-authenticate", "")
    assert www.startswith("Bearer") and "resource_metadata=" in www
    wrong = post(url, init, token="nope")
    assert wrong.status == 401 and wrong.headers.get("www-authenticate", "").startswith("Bearer")
    _, sid = initialize(url, token="s3cret-token")
    c = post(url, req(3, "tools/call", {"name": "add", "arguments": {"a": 40, "b": 2}}),
             session=sid, proto=PROTO, token="s3cret-token")
    assert c.response(3)["result"]["structuredContent"] == {"result": 42}
    # the session id alone does not authorise
    assert post(url, req(4, "tools/list"), session=sid, proto=PROTO).status == 401


def test_sdk_kill_and_restart(sdk_process):
    p = sdk_process(json=True)
    assert p.alive and p.startup_s < 15
    initialize(p.url)
    url = p.url
    p.kill()
    assert not p.alive
    with pytest.raises(OSError):
        post(url, req(1, "tools/list"))
    p.restart()
    assert p.url == url and p.alive
    initialize(url)  # a new process: old sessions are gone, a new one works


# ------------------------------------------------------- everything server

def test_everything_server(everything_server):
    url = everything_server
    r, sid = initialize(url)
    assert r.ctype == "text/event-stream" and sid
    # priming event: an id and an empty data line, before the response
    assert r.events[0].get("id") and r.events[0].get("data") == ""
    t = post(url, req(2, "tools/list"), session=sid, proto=PROTO)
    names = {x["name"] for x in t.response(2)["result"]["tools"]}
    assert {"echo", "get-sum", "get-tiny-image"} <= names
    c = post(url, req(3, "tools/call", {"name": "get-sum", "arguments": {"a": 2, "b": 3}}),
             session=sid, proto=PROTO)
    assert b"\r\n" not in c.raw  # TypeScript SDK frames SSE with LF
    assert "5" in c.response(3)["result"]["content"][0]["text"]
    img = post(url, req(4, "tools/call", {"name": "get-tiny-image", "arguments": {}}),
               session=sid, proto=PROTO).response(4)["result"]["content"]
    assert any(x["type"] == "image" and x["mimeType"] == "image/png" for x in img)


# --------------------------------------------------------- conformance

def test_conformance_initialize_standin_passes(conformance):
    rc, out = conformance("initialize", peers.standin_command(), timeout=60)
    assert rc == 0, out
    assert "mcp-client-initialization" in out and "SUCCESS" in out
    assert "Passed: 1/1" in out and "OVERALL: PASSED" in out


def test_conformance_tools_call_standin_passes(conformance):
    rc, out = conformance("tools_call", peers.standin_command(), timeout=60)
    assert rc == 0, out
    assert "tool-add-numbers" in out and "OVERALL: PASSED" in out


def test_conformance_reports_failures(conformance):
    rc, out = conformance("initialize", peers.standin_command("--bad-init"), timeout=60)
    assert rc != 0
    assert "FAILURE" in out and "Client name missing" in out


def test_missing_tools_fail_clearly(monkeypatch):
    monkeypatch.setattr(peers, "CONFORMANCE_BIN", "/nonexistent/conformance")
    with pytest.raises(peers.PeerError, match="npm ci"):
        peers.run_conformance("initialize", "true")
    monkeypatch.setattr(peers, "EVERYTHING_JS", "/nonexistent/index.js")
    with pytest.raises(peers.PeerError, match="server-everything missing"):
        peers.start_everything()
    monkeypatch.setenv("PEERS_NODE", "/nonexistent/node")
    with pytest.raises(peers.PeerError, match="cannot run"):
        peers.node_exe()


def test_dead_server_fails_fast_with_its_output():
    t0 = time.monotonic()
    p = peers.Peer("bad", [peers.python_exe(), "-c", "import sys; sys.exit('boom: no server')"])
    with pytest.raises(peers.PeerError) as e:
        p.start(timeout=10)
    assert time.monotonic() - t0 < 8
    assert "boom: no server" in str(e.value) and "exited with 1" in str(e.value)
    p.close()


def test_silent_server_times_out_bounded():
    # listens on nothing: start() must give up at its deadline and kill it
    p = peers.Peer("mute", [peers.python_exe(), "-c", "import time; time.sleep(60)"])
    t0 = time.monotonic()
    with pytest.raises(peers.PeerError, match="did not accept"):
        p.start(timeout=1.0)
    assert time.monotonic() - t0 < 5
    assert not p.alive
    p.close()


def test_free_port_is_bindable():
    port = peers.free_port()
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    finally:
        s.close()
