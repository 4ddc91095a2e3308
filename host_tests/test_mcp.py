"""lib/mcp: the MCP client against real servers (Python SDK, reference
"everything" server), the official conformance suite, raw loopback servers
for faults, the registry, and the same client under the MicroPython unix port
in at most 64K of free heap."""
import base64
import hashlib
import http.client
import json
import os
import re
import stat
import subprocess
import threading
import time
import types

import pytest

import mcp
import store
from mcp import client, items
from mcpfake import McpFake as Fake, reply, sse, text_result
import peers
from mpyrun import GOAL

HERE = os.path.dirname(os.path.abspath(__file__))
CONF_CLIENT = os.path.join(HERE, "mcp_conformance_client.py")


def ok(pair):
    value, err = pair
    assert err is None, err
    return value


# ------------------------------------------------------------ Python SDK

@pytest.mark.parametrize("json_mode,stateless", [(False, False), (True, False),
                                                 (False, True), (True, True)])
def test_sdk_server(sdk_server, json_mode, stateless):
    url = sdk_server(json=json_mode, stateless=stateless)
    conn = ok(mcp.connect(url, name="sdk"))
    assert conn.version == "2025-11-25"
    assert conn.server == "peers-sdk-server"
    assert (conn.session is None) == stateless
    tools = ok(mcp.tools(conn))
    by = dict((t["name"], t) for t in tools)
    assert sorted(by) == ["add", "echo", "fail", "get_weather", "slow_count"]
    assert by["add"]["description"] == "Add two integers."
    assert sorted(by["add"]["parameters"]["properties"]) == ["a", "b"]
    assert set(by["add"]) == {"name", "description", "parameters"}
    assert ok(mcp.call(conn, "add", {"a": 2, "b": 3})) == "5"
    assert ok(mcp.call(conn, "get_weather", '{"city": "Rochdale"}')) == "Rochdale: 12 C, drizzle"
    assert ok(mcp.call(conn, "echo", {"text": "h\u00e9llo \U0001F600"})) == "h\u00e9llo \U0001F600"
    assert conn.last_is_error is False
    text, err = mcp.call(conn, "fail", {"reason": "disk on fire"})
    assert text is None and err.startswith("tool error: ") and "disk on fire" in err
    assert conn.last_is_error is True
    # progress + log notifications arrive first on the SSE variant: skipped
    assert ok(mcp.call(conn, "slow_count", {"n": 3})) == "counted to 3"
    assert conn.last_is_error is False
    text, err = mcp.call(conn, "add", "{not json")
    assert text is None and err.startswith("bad tool arguments for add")
    text, err = mcp.call(conn, "add", "[1, 2]")
    assert err == "bad tool arguments for add: not a JSON object"
    mcp.close(conn)


def test_sdk_bearer_token(sdk_server):
    url = sdk_server(token="s3cret-token")
    conn = ok(mcp.connect(url, token="s3cret-token", name="secure"))
    assert ok(mcp.call(conn, "add", {"a": 1, "b": 1})) == "2"
    mcp.close(conn)
    conn, err = mcp.connect(url, name="secure")
    assert conn is None
    # where a token comes from: an OAuth login or one set by hand (no
    # authorize callback and no client credentials: no discovery is tried)
    assert err == ("secure: needs authorization (401); run: mcp login secure, "
                   "or set a token: mcp add secure %s <token>" % url)
    conn, err = mcp.connect(url, token="wrong-token-value", name="secure")
    assert conn is None
    assert err.startswith("secure: token refused (401); run: mcp login secure, or set a token")
    assert "wrong-token-value" not in err and "s3cret" not in err


def test_sdk_session_expires_transparently(sdk_process):
    peer = sdk_process()
    conn = ok(mcp.connect(peer.url, name="sdk"))
    old = conn.session
    assert ok(mcp.call(conn, "add", {"a": 1, "b": 2})) == "3"
    peer.restart()  # same port, every session forgotten -> 404
    assert ok(mcp.call(conn, "add", {"a": 2, "b": 2})) == "4"
    assert conn.session and conn.session != old
    assert len(ok(mcp.tools(conn))) == 5
    mcp.close(conn)


def test_sdk_killed_mid_stream(sdk_process):
    peer = sdk_process()
    conn = ok(mcp.connect(peer.url, name="sdk"))
    killer = threading.Timer(0.4, peer.kill)
    killer.start()
    t0 = time.monotonic()
    text, err = mcp.call(conn, "slow_count", {"n": 50})  # ~1 s of progress events
    killer.join()
    assert text is None
    assert err.startswith("sdk: ") and "slow" not in err, err
    assert "tools/call" in err or "connection" in err
    assert time.monotonic() - t0 < 10
    # and the next call says clearly that nobody is there
    text, err = mcp.call(conn, "add", {"a": 1, "b": 1})
    assert text is None and err.startswith("sdk: cannot connect to 127.0.0.1:%d" % peer.port)


# ------------------------------------------------------ everything server

def raw_image(url):
    """get-tiny-image's bytes, fetched with http.client (independent)."""
    port = int(url.split(":")[2].split("/")[0])
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def post(msg):
        c.request("POST", "/mcp", json.dumps(msg), h)
        r = c.getresponse()
        return r, r.read().decode()

    r, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
    h["Mcp-Session-Id"] = r.getheader("mcp-session-id")
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    _, body = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "get-tiny-image", "arguments": {}}})
    for line in body.splitlines():
        if line.startswith("data: {"):
            for item in json.loads(line[6:])["result"]["content"]:
                if item["type"] == "image":
                    return base64.b64decode(item["data"])
    raise AssertionError("no image in reply")


def test_everything_server(everything_server, flash):
    conn = ok(mcp.connect(everything_server, name="everything"))
    assert conn.server == "mcp-servers/everything"
    tools = ok(mcp.tools(conn))
    names = [t["name"] for t in tools]
    for n in ("echo", "get-sum", "get-tiny-image", "get-resource-links",
              "get-resource-reference", "get-structured-content",
              "trigger-long-running-operation"):
        assert n in names
    echo = tools[names.index("echo")]
    assert echo["parameters"]["properties"]["message"]["type"] == "string"
    assert "$schema" not in echo["parameters"]
    assert ok(mcp.call(conn, "echo", {"message": "hello"})) == "Echo: hello"
    assert "5" in ok(mcp.call(conn, "get-sum", {"a": 2, "b": 3}))
    img = ok(mcp.call(conn, "get-tiny-image", {}))
    raw = raw_image(everything_server)
    # decoded to flash while it was read (mcp/items.py): the line says where
    m = re.search(r"\[image image/png, %d bytes: (/mcp-files/[0-9a-f]{16}\.png)\]" % len(raw), img)
    assert m and img.startswith("Here's the image you requested:\n[image"), img
    assert (flash / m.group(1)[1:]).read_bytes() == raw and conn.last_files == (m.group(1),)
    links = ok(mcp.call(conn, "get-resource-links", {"count": 2}))
    assert re.search(r"\n\S.* <demo://resource/\S+>\n\S.* <demo://resource/\S+>$", links), links
    text = ok(mcp.call(conn, "get-resource-reference", {"resourceType": "Text", "resourceId": 1}))
    assert "[resource demo://resource/dynamic/text/1]\nResource 1: This is a plaintext" in text
    blob = ok(mcp.call(conn, "get-resource-reference", {"resourceType": "Blob", "resourceId": 2}))
    m = re.search(r"\[blob demo://resource/dynamic/blob/2 text/plain, (\d+) bytes\]", blob)
    assert m and int(m.group(1)) > 20, blob
    sc = ok(mcp.call(conn, "get-structured-content", {"location": "New York"}))
    assert json.loads(sc)["conditions"]  # text item present: no second copy
    assert sc.count("{") == 1
    long = ok(mcp.call(conn, "trigger-long-running-operation", {"duration": 1, "steps": 3}))
    assert long.startswith("Long running operation completed")
    text, err = mcp.call(conn, "no-such-tool", {})
    assert text is None and "no-such-tool" in err
    mcp.close(conn)


def test_everything_session_deleted_behind_our_back(everything_server):
    # the reference server answers an unknown session with 400 "No valid
    # session ID" (not 404): recognised, a new session is made once
    conn = ok(mcp.connect(everything_server, name="everything"))
    old = conn.session
    port = int(everything_server.split(":")[2].split("/")[0])
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": old,
                                         "MCP-Protocol-Version": conn.version})
    assert c.getresponse().status == 200
    assert ok(mcp.call(conn, "echo", {"message": "again"})) == "Echo: again"
    assert conn.session != old
    mcp.close(conn)


# ------------------------------------------------------- conformance suite

# Every client scenario of conformance 0.1.16 (`conformance list --client`;
# test_conformance_lists_these_scenarios notices a version that adds some).
AUTH_SCENARIOS = [
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/client-credentials-jwt", "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow"]
SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults",
             "sse-retry"] + AUTH_SCENARIOS
# scenarios that pass when the client refuses (it exits 1 saying why)
REFUSALS = {"auth/resource-mismatch": "the server's metadata is for another resource "
                                      "(https://evil.example.com/mcp); not authorizing",
            "auth/scope-retry-limit": "access denied (403, insufficient_scope) although "
                                      "the token has scope mcp:admin"}


def conformance_passed(rc, out, scenario):
    assert rc == 0, out
    m = re.search(r"Passed: (\d+)/(\d+), 0 failed, 0 warnings", out)
    assert m and m.group(1) == m.group(2) and int(m.group(1)) >= 1, out
    assert "OVERALL: PASSED" in out, out
    if scenario in REFUSALS:
        assert REFUSALS[scenario] in out, out


def test_conformance_lists_these_scenarios(conformance_suite):
    node, suite = conformance_suite
    r = subprocess.run([node, suite, "list", "--client"], capture_output=True,
                       text=True, timeout=60)
    assert sorted(re.findall(r"^  - (\S+)", r.stdout, re.M)) == sorted(SCENARIOS), r.stdout


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_cpython(conformance, scenario):
    rc, out = conformance(scenario, [peers.python_exe(), CONF_CLIENT], timeout=60)
    conformance_passed(rc, out, scenario)


@pytest.fixture(scope="module")
def mpy_conf_cmd(mpy, tmp_path_factory):
    """heap -> a shell wrapper running the conformance client under MicroPython."""
    env = mpy.env()
    folder = tmp_path_factory.mktemp("mcpconf")

    def make(heap):
        path = str(folder / ("mpy_conf_%s.sh" % heap))
        cmd = " ".join("'%s'" % a for a in mpy.cmd("mcp_conf", heap))
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + "".join("export %s='%s'\n" % (k, env[k]) for k in
                                             ("MICROPYPATH", "ANTOS_ROM", "ANTOS_QSTRS",
                                              "ANTOS_BOARD"))
                    + "exec %s \"$@\"\n" % cmd)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path
    return make


# The client connects as the console does (mcp.connect_named: the settings
# and the registry in RAM). Each scenario runs at its cap (free heap, see
# mpyrun) with the firmware's GC and the ANTOS_ESP32 board's network
# budget; make measure bisects the smallest heaps.
@pytest.mark.parametrize("scenario,heap", [("initialize", "26K"), ("tools_call", "28K"),
                                           ("sse-retry", "33K"),
                                           ("elicitation-sep1034-client-defaults", "35K"),
                                           ("auth/metadata-default", "32K"),
                                           ("auth/scope-step-up", "34K"),
                                           ("auth/pre-registration", "32K"),
                                           ("auth/client-credentials-basic", "32K")])
def test_conformance_micropython(conformance, mpy, measure, mpy_conf_cmd, scenario, heap):
    rc, out = conformance(scenario, mpy_conf_cmd(heap), timeout=60)
    conformance_passed(rc, out, scenario)

    def passes(h):
        rc, out = conformance(scenario, mpy_conf_cmd(h), timeout=60)
        return rc == 0 and "OVERALL: PASSED" in out
    measure.smallest("heap", "MCP conformance %s" % scenario, passes, heap)


# ------------------------------------------------------------ MicroPython

# mcp_sdk and mcp_everything run at their caps (free heap, see mpyrun; the
# store module, which mcp.call spools a result in, is in their baseline as
# on the board); their working sets are measured in live=True runs.
SDK_HEAP = "31K"
EVERYTHING_HEAP = "38K"
SDK_LINES = ["connect None 2025-11-25", "tools None add,echo,fail,get_weather,slow_count",
             "add ('5', None)", "weather ('Rochdale: 12 C, drizzle', None)",
             "fail (None, 'tool error: Error executing tool fail: nope') True",
             "slow ('counted to 3', None)"]


def _sdk_ok(r):
    return r.rc == 0 and all(line in r.out for line in SDK_LINES)


def test_micropython_sdk(mpy, measure, sdk_server):
    url = sdk_server()
    r = mpy.run("mcp_sdk", heap=SDK_HEAP, args=[url], timeout=60)
    assert r.rc == 0, r
    for line in SDK_LINES:
        assert line in r.out, r.out
    live = mpy.working("mcp_sdk", heap=SDK_HEAP, args=[url], timeout=60)
    measure.smallest("heap", "mcp: the Python SDK server, six calls",
                     lambda heap: _sdk_ok(mpy.run("mcp_sdk", heap=heap, args=[url], timeout=60)),
                     SDK_HEAP, imports=r.imports, working=live.working)
    assert live.working < 20000, live.working


def _everything_misses(r, size):
    """The checks the mcp_everything run fails (empty: it passed)."""
    m = re.search(r"^tools None (\d+)$", r.out, re.M)
    checks = [("rc 0", r.rc == 0), ("13+ tools", m and int(m.group(1)) >= 13)]
    checks += [(s, s in r.out) for s in (
        "echo,get-annotated-message,", "echo ('Echo: hi from micropython', None)",
        "[image image/png, %d bytes: /mcp-files/" % size, "long ('Long running operation completed.")]
    return [name for name, ok in checks if not ok]


def test_micropython_everything(mpy, measure, everything_server, tmp_path):
    size = len(raw_image(everything_server))
    r = mpy.run("mcp_everything", heap=EVERYTHING_HEAP, args=[everything_server], timeout=60,
                cwd=tmp_path)
    assert not _everything_misses(r, size), r
    live = mpy.working("mcp_everything", heap=EVERYTHING_HEAP, args=[everything_server], timeout=60,
                       cwd=tmp_path)
    measure.smallest("heap", "mcp: the reference everything server", lambda heap: not
                     _everything_misses(mpy.run("mcp_everything", heap=heap, cwd=tmp_path,
                                                args=[everything_server], timeout=60), size),
                     EVERYTHING_HEAP, imports=r.imports, working=live.working)
    # 13+ tools are kept + buffers, and during each call the server's GET
    # stream (a second connection with its buffers and mcp/listen.py)
    assert live.working < 34000, live.working


# ------------------------------------------------------ faults (raw server)

def test_fault_server_down():
    port = peers.free_port()
    conn, err = mcp.connect("http://127.0.0.1:%d/mcp" % port, name="gone")
    assert conn is None
    assert err.startswith("gone: cannot connect to 127.0.0.1:%d" % port), err


@pytest.mark.parametrize("body", [b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"te',
                                  b"<html>oops</html>", b'{"jsonrpc":"2.0","id":2,,}'])
def test_fault_garbage_json(body):
    def on(f, msg, req, w):
        w.respond(200, body, headers={"Content-Type": "application/json"})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text, err = mcp.call(conn, "x", {})
        assert text is None
        assert err.startswith("fake: bad JSON in the reply to tools/call (JSON: "), err


NOT_MCP = [  # (content type, body, what the error quotes)
    ("text/html; charset=utf-8", b"<!DOCTYPE html>\r\n<title>Login \x1b[31mnow</title>" + b"x" * 100,
     "'<!DOCTYPE html> <title>Login [31mnow</title>" + "x" * 18 + "...'"),
    ("application/json", b'{"status": "ok", "version": "1.2"}',
     "'{\"status\": \"ok\", \"version\": \"1.2\"}'"),
    ("application/json", b'{"jsonrpc": "2.0", "id": 1, "result": {}}',
     "'{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}'"),
    ("application/json", b"not json", "'not json'"),
    ("text/event-stream", b'data: {"hello": 1}\n\n', "'data: {\"hello\": 1}'"),
    (None, b"", "an empty body"),
]


def _serve_not_mcp(req, w):
    ct, body, _ = NOT_MCP[int(req.path.split("/")[1])]
    w.respond(200, body, headers={"Content-Type": ct} if ct else {})


def test_a_url_that_is_not_mcp_says_what_came_back(mpy):
    """A URL that answers initialize with 200 but no MCP: the status, the
    content type and the first bytes (cleaned), on both interpreters."""
    from httpserver import Server
    with Server(_serve_not_mcp) as srv:
        urls = ["%s/%d/mcp" % (srv.url, i) for i in range(len(NOT_MCP))]
        want = []
        for url, (ct, _, shown) in zip(urls, NOT_MCP):
            want.append("x: %s does not look like an MCP endpoint: it answered initialize "
                        "with HTTP 200, %s, %s" % (url, ct or "no content type", shown))
            assert mcp.connect(url, name="x") == (None, want[-1])
        r = mpy.run("mcp_connect", heap=GOAL, args=urls)
    assert r.rc == 0, r
    assert r.out.split("\n")[:len(urls)] == ["CONNECT " + repr(w) for w in want], r.out


def test_fault_wrong_id_skipped_on_stream():
    def on(f, msg, req, w):
        rid = msg["id"]
        sse(w, "id: 1\ndata:\n\n",  # priming
            {"jsonrpc": "2.0", "method": "notifications/progress",
             "params": {"progressToken": rid, "progress": 1, "message": "half"}},
            reply(rid + 100, text_result("not mine")),
            ": keepalive\n\n",
            {"jsonrpc": "2.0", "method": "notifications/message",
             "params": {"level": "info", "data": {"big": "x" * 5000}}},
            {"result": text_result("mine"), "jsonrpc": "2.0", "id": rid})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        assert ok(mcp.call(conn, "x", {})) == "mine"


def test_fault_wrong_id_json_reply():
    def on(f, msg, req, w):
        w.respond(200, json.dumps(reply(msg["id"] + 1, text_result("other"))).encode(),
                  headers={"Content-Type": "application/json"})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text, err = mcp.call(conn, "x", {})
        assert err == "fake: the reply to tools/call was not its response"


@pytest.mark.parametrize("how", ["close", "reset"])
def test_fault_stream_dies(how):
    def on(f, msg, req, w):
        sse(w, {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1}}, end=False)
        getattr(w, how)()
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text, err = mcp.call(conn, "x", {})
        assert text is None and err.startswith("fake: "), err
        assert "tools/call" in err


def test_fault_stream_ends_without_reply_no_resume_id():
    def on(f, msg, req, w):
        sse(w, {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1}})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text, err = mcp.call(conn, "x", {})
        assert err == "fake: the server closed the stream before the reply to tools/call"


def test_resume_with_last_event_id():
    seen = []

    def on(f, msg, req, w):
        f.pending = msg["id"]
        sse(w, "id: ev-7\nretry: 200\ndata:\n\n")

    def handle_get(f, req, w):
        seen.append((time.monotonic(), req.headers.get("last-event-id")))
        if seen[-1][1] is None:     # the standalone stream: this server has none
            return w.respond(405)
        sse(w, "id: ev-8\ndata: %s\n\n" % json.dumps(reply(f.pending, text_result("resumed"))),
            end=False)  # the GET stream stays open: the client must not wait for its end

    with Fake(on) as f:
        orig = f.handle

        def handle(req, w):
            if req.method == "GET":
                return handle_get(f, req, w)
            return orig(req, w)
        f.srv.handler = handle
        conn = ok(mcp.connect(f.url, name="fake"))
        t0 = time.monotonic()
        assert ok(mcp.call(conn, "x", {})) == "resumed"
        # the standalone GET before the call (refused), then the resume
        assert [s[1] for s in seen] == [None, "ev-7"]
        assert 0.15 < seen[1][0] - t0 < 2.0
        assert ok(mcp.call(conn, "x", {})) == "resumed"
        # a server without a standalone stream is not asked again
        assert [s[1] for s in seen] == [None, "ev-7", "ev-7"]


def test_fault_session_404_reinitializes_once():
    def on(f, msg, req, w):
        if req.headers.get("mcp-session-id") != "s%d" % f.sessions or f.sessions < 2:
            w.respond(404, b"Session not found", headers={"Content-Type": "text/plain"})
            return
        w.respond(200, json.dumps(reply(msg["id"], text_result("fresh"))).encode(),
                  headers={"Content-Type": "application/json"})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        assert ok(mcp.call(conn, "x", {})) == "fresh"
        assert f.sessions == 2 and conn.session == "s2"


def test_fault_session_404_twice_is_an_error():
    def on(f, msg, req, w):
        w.respond(404, b"Session not found", headers={"Content-Type": "text/plain"})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text, err = mcp.call(conn, "x", {})
        assert err == "fake: no MCP endpoint at %s (404)" % f.url
        assert f.sessions == 2  # one new session, not a loop


def test_fault_http_error_with_jsonrpc_body():
    def on(f, msg, req, w):
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "Bad Request: nope"}}
        w.respond(400, json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text, err = mcp.call(conn, "x", {})
        assert err == "fake: tools/call failed: HTTP 400 Bad Request: Bad Request: nope"


def test_jsonrpc_error_and_unsupported_version():
    def on(f, msg, req, w):
        body = {"jsonrpc": "2.0", "id": msg["id"],
                "error": {"code": -32602, "message": "Unknown tool: x"}}
        w.respond(200, json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        assert mcp.call(conn, "x", {}) == (None, "fake: Unknown tool: x (code -32602)")
        assert conn.last_is_error is False
    with Fake(on, version="1999-01-01") as f:
        conn, err = mcp.connect(f.url, name="fake")
        assert conn is None and err == "fake: unsupported MCP protocol version '1999-01-01'"
    with Fake(on, version="2024-11-05") as f:
        conn = ok(mcp.connect(f.url))
        assert conn.version == "2024-11-05" and conn.name == "127.0.0.1:%d" % f.srv.port


def test_server_requests_on_the_post_stream():
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "default": "Ada"}, "n": {"type": "integer", "default": 3},
        "free": {"type": "string"}}, "required": ["name"]}

    def on(f, msg, req, w):
        rid = msg["id"]
        sse(w, {"jsonrpc": "2.0", "id": "p1", "method": "ping"},
            {"jsonrpc": "2.0", "id": 41, "method": "elicitation/create",
             "params": {"message": "Who?", "requestedSchema": schema}},
            {"jsonrpc": "2.0", "id": 42, "method": "elicitation/create",
             "params": {"message": "Need", "requestedSchema": {
                 "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}},
            {"jsonrpc": "2.0", "id": 43, "method": "sampling/createMessage",
             "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                        "maxTokens": 10}},
            {"jsonrpc": "2.0", "id": 44, "method": "roots/list"},
            {"jsonrpc": "2.0", "id": 45, "method": "bogus/thing"},
            reply(rid, text_result("done")))
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        assert ok(mcp.call(conn, "x", {})) == "done"
        got = dict((a["id"], a) for a in f.answers)
        assert got["p1"]["result"] == {}
        assert got[41]["result"] == {"action": "accept", "content": {"name": "Ada", "n": 3}}
        assert got[42]["result"] == {"action": "decline"}  # required field without default
        assert got[43]["error"]["code"] == -32601
        assert got[44]["result"] == {"roots": []}
        assert got[45]["error"]["code"] == -32601
    calls = []

    def elicit(message, sch):
        calls.append((message, sorted(sch["properties"])))
        return {"name": "Grace"}

    def sample(request):
        return "sampled: " + request["messages"][0]["content"]["text"]
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake", elicit=elicit, sample=sample))
        assert ok(mcp.call(conn, "x", {})) == "done"
        got = dict((a["id"], a) for a in f.answers)
        assert got[41]["result"] == {"action": "accept", "content": {"name": "Grace"}}
        assert got[43]["result"]["content"] == {"type": "text", "text": "sampled: hi"}
        assert calls[0] == ("Who?", ["free", "n", "name"])
        init = json.loads(f.srv.requests[0].body)
        assert init["params"]["capabilities"] == {
            "elicitation": {"form": {}, "url": {}}, "roots": {}, "sampling": {}}
        assert init["params"]["clientInfo"]["name"] == "antos-ai"
        later = f.srv.requests[1].headers
        assert later["mcp-protocol-version"] == "2025-11-25" and later["mcp-session-id"] == "s1"


BIG_TEXT = "y" * (client.MAX_TEXT + 100)
PAYLOAD = base64.b64encode(bytes(range(256)) * 24).decode()  # 6144 bytes
RESULTS = {
    "mixed": {"content": [
        {"type": "text", "text": "a"},
        {"data": PAYLOAD, "mimeType": "image/png", "type": "image"},  # type last
        {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
        {"type": "resource_link", "uri": "file:///x", "name": "X file"},
        {"type": "resource", "resource": {"text": "z" * 5000, "uri": "mem://t"}},
        {"type": "resource", "resource": {"uri": "mem://b", "mimeType": "app/bin",
                                          "blob": "QUJD"}},
        {"type": "text", "text": ""}, {"type": "weird"}],
        "structuredContent": {"ignored": True}},
    "structured": {"content": [], "structuredContent": {"a": [1, 2], "b": "c"}},
    # structuredContent first (before any text is known): spooled, then
    # dropped when text comes, used when none does
    "struct_first": {"structuredContent": {"k": "v" * 40000}, "isError": False,
                     "content": [{"type": "text", "text": "the text"}]},
    "struct_only": {"structuredContent": {"q": ["\u00e9\"\n", 1.5, None, True, {}]},
                    "content": []},
    # a duplicate of the text as structuredContent, longer than any bound
    "dup": {"content": [{"type": "text", "text": "w" * 20000}],
            "structuredContent": {"result": "w" * 20000}},
    "wide": {"content": [{"type": "text", "text": "\u00e9" * 9000}]},
    "big": {"content": [{"type": "text", "text": BIG_TEXT}]},
    "error": {"content": [{"type": "text", "text": "boom"}], "isError": True},
}


def results(f, msg, req, w):
    """A fake server's answer to tools/call: RESULTS[the tool's name]."""
    body = reply(msg["id"], RESULTS[msg["params"]["name"]])
    w.respond(200, json.dumps(body).encode(), headers={"Content-Type": "application/json"})


def test_result_flattening_and_bounds(flash):
    with Fake(results) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        text = ok(mcp.call(conn, "mixed", {}))
        lines = text.split("\n")
        assert lines[0] == "a"
        # an image or audio is decoded to flash as it is read, named by its hash
        png = "/mcp-files/%s.png" % hashlib.sha256(base64.b64decode(PAYLOAD)).hexdigest()[:16]
        wav = "/mcp-files/%s.wav" % hashlib.sha256(b"RIFF").hexdigest()[:16]
        assert lines[1] == "[image image/png, 6144 bytes: %s]" % png
        assert lines[2] == "[audio audio/wav, 4 bytes: %s]" % wav
        assert conn.last_files == (png, wav)
        assert (flash / png[1:]).read_bytes() == base64.b64decode(PAYLOAD)
        assert lines[3] == "X file <file:///x>"
        assert lines[4] == "[resource mem://t]"
        assert lines[5] == "z" * items.MAX_RESOURCE + "... (truncated)"
        assert lines[6] == "[blob mem://b app/bin, 3 bytes]"
        assert lines[7:] == ["", "[weird content]"]
        assert json.loads(ok(mcp.call(conn, "structured", {}))) == {"a": [1, 2], "b": "c"}
        t = ok(mcp.call(conn, "big", {}))
        assert t == "y" * client.MAX_TEXT + "\n... (truncated, %d bytes)" % len(BIG_TEXT)
        assert ok(mcp.call(conn, "struct_first", {})) == "the text"
        assert json.loads(ok(mcp.call(conn, "struct_only", {}))) == {
            "q": ["\u00e9\"\n", 1.5, None, True, {}]}
        t = ok(mcp.call(conn, "dup", {}))
        assert t == "w" * client.MAX_TEXT + "\n... (truncated, 20000 bytes)"
        # cut at a character, never inside one: 8192 two-byte characters
        t = ok(mcp.call(conn, "wide", {}))
        assert t == "\u00e9" * (client.MAX_TEXT // 2) + "\n... (truncated, 18000 bytes)"
        assert mcp.call(conn, "error", {}) == (None, "tool error: boom")
        assert conn.last_is_error is True
        sent = json.loads(f.srv.requests[-1].body)
        assert sent["params"]["arguments"] == {} and sent["params"]["name"] == "error"


def test_an_awaited_call_decodes_pictures_to_flash_too(flash):
    """mcp.aio.call: the same text as mcp.call, the image and audio on
    flash, conn.last_files listing them; the next call resets it."""
    import asyncio
    from mcp import aio as maio
    with Fake(results) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        want = ok(mcp.call(conn, "mixed", {}))
        files = conn.last_files
        for p in files:
            (flash / p[1:]).unlink()
        assert ok(asyncio.run(maio.call(conn, "mixed", {}))) == want
        assert conn.last_files == files and len(files) == 2
        assert (flash / files[0][1:]).read_bytes() == base64.b64decode(PAYLOAD)
        assert (flash / files[1][1:]).read_bytes() == b"RIFF"
        ok(asyncio.run(maio.call(conn, "structured", {})))
        assert conn.last_files == ()
        mcp.close(conn)


def test_a_result_into_a_file_is_whole_and_flattened_the_same(flash, tmp_path):
    """mcp.call(..., into=PATH): the whole text (no cut) in the file as it
    is read, flattened as the str is (items, structuredContent, escapes and
    \\u escapes of a JSON or SSE reply), and its size in bytes; a tool
    error's text goes there and its start into err; a result that came in
    a message that was not ours is forgotten; a file that cannot be written
    is said so. (flash: its pictures go to the test's flash, not the
    working folder.)"""
    sizes = {}

    def on(f, msg, req, w):
        name = msg["params"]["name"]
        body = reply(msg["id"], RESULTS.get(name) or {"content": [{"type": "text", "text": name}]})
        if name in ("dup", "wide"):    # SSE, a reply to another id first
            sse(w, "id: 1\ndata:\n\n", reply(msg["id"] + 100, RESULTS["mixed"]), body)
        else:
            w.respond(200, json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    path = str(tmp_path / "result.txt")
    with Fake(on) as f:
        conn = ok(mcp.connect(f.url, name="fake"))
        for name in ("mixed", "structured", "struct_first", "struct_only"):
            want = ok(mcp.call(conn, name, {}))
            sizes[name] = ok(mcp.call(conn, name, {}, into=path))
            with open(path, "rb") as fh:
                assert fh.read().decode() == want, name
            assert sizes[name] == len(want.encode())
        for name, text in (("big", BIG_TEXT), ("dup", "w" * 20000), ("wide", "\u00e9" * 9000)):
            assert ok(mcp.call(conn, name, {}, into=path)) == len(text.encode())
            with open(path, "rb") as fh:
                assert fh.read().decode() == text, name
        assert mcp.call(conn, "error", {}, into=path) == (None, "tool error: boom")
        assert conn.last_is_error is True
        with open(path, "rb") as fh:
            assert fh.read() == b"boom"
        RESULTS["long_error"] = {"content": [{"type": "text", "text": "\u00e9" * 400}], "isError": True}
        try:
            assert mcp.call(conn, "long_error", {}, into=path) == (
                None, "tool error: " + "\u00e9" * 150 + "...")
        finally:
            del RESULTS["long_error"]
        assert ok(mcp.call(conn, "after", {})) == "after"
        missing = str(tmp_path / "no" / "such" / "folder" / "r.txt")
        size, err = mcp.call(conn, "mixed", {}, into=missing)
        assert size is None and err.startswith("fake: cannot write %s (" % missing), err
        assert ok(mcp.call(conn, "after", {}, into=path)) == 5


# ---------------------------------------------------------------- registry

def test_the_result_spool_is_one_given_back_after_each_call(flash, monkeypatch):
    """mcp.call / mcp.read keep a result for its str in one store.Spool,
    made once (so it lives low in the heap), given back after each call,
    an interrupted one too; a call made while one is reading (a sampling
    callback) gets its own; it follows the store's root."""
    sp = client.spool()
    inner = client.spool()
    assert inner is not sp and inner.path == store.path("tmp", "result-inner")
    client.unspool(inner)
    sp.add("some text")
    client.unspool(sp)
    assert sp.size == 0 and client.spool() is sp
    client.unspool(sp)

    def interrupted(*a):
        raise KeyboardInterrupt
    monkeypatch.setattr(client, "guard", interrupted)
    conn = types.SimpleNamespace(last_is_error=False)
    with pytest.raises(KeyboardInterrupt):
        client.call(conn, "work", {})
    assert client.spool() is sp
    client.unspool(sp)
    store.set_root(str(flash / "elsewhere"))
    assert client.spool().path == str(flash / "elsewhere") + "/tmp/result"
    client.unspool(sp)


def test_registry(flash):
    assert mcp.servers() == []
    assert mcp.add("weather", "http://127.0.0.1:9/mcp") is None
    assert mcp.add("gh_2-x", "https://example.test/mcp", "tok-123456789") is None
    assert mcp.servers() == [
        {"name": "gh_2-x", "url": "https://example.test/mcp", "token": "tok-123456789"},
        {"name": "weather", "url": "http://127.0.0.1:9/mcp", "token": None}]
    store.reload()  # persisted on flash, not only in RAM
    saved = json.loads((flash / "settings.json").read_text())
    assert saved["mcp.weather.url"] == "http://127.0.0.1:9/mcp"
    assert saved["mcp.gh_2-x.token"] == "tok-123456789"
    assert [s["name"] for s in mcp.servers()] == ["gh_2-x", "weather"]
    # replacing without a token drops the old one
    assert mcp.add("gh_2-x", "https://example.test/v2") is None
    assert mcp.servers()[0] == {"name": "gh_2-x", "url": "https://example.test/v2", "token": None}
    for bad in ("", "a.b", "has space", "x" * 33, "caf\u00e9", "a/b"):
        assert mcp.add(bad, "http://h/mcp") is not None, bad
    for url in ("ftp://h/x", "http://", "https:///x", "http://a b/", "h/mcp", "http://h/\n"):
        assert mcp.add("ok", url) is not None, url
    assert mcp.add("ok", "http://h/mcp", "two words") is not None
    assert mcp.add("ok", "http://h/mcp", "line\r\nX-Evil: 1") is not None
    assert store.keys("mcp.ok") == []
    assert mcp.remove("nope") == "no MCP server named nope"
    assert mcp.remove("a.b") is not None
    assert mcp.remove("weather") is None
    assert [s["name"] for s in mcp.servers()] == ["gh_2-x"]
    assert store.keys("mcp.weather") == []
    assert store.display("mcp.gh_2-x.token", "tok-123456789") != "tok-123456789"


def test_registry_connect_named_and_test(flash, sdk_server):
    conn, err = mcp.connect_named("missing")
    assert conn is None and err == "no MCP server named missing; add it with: mcp add missing <url> [token]"
    assert mcp.add("local", sdk_server()) is None
    info = ok(mcp.test("local"))
    assert info["tools"] == 5 and sorted(info["names"])[0] == "add"
    assert isinstance(info["ms"], int) and 0 <= info["ms"] < 10000
    url = sdk_server(token="tok-abcdefgh")
    assert mcp.add("secure", url) is None
    info, err = mcp.test("secure")
    assert info is None and err == ("secure: needs authorization (401); run: mcp login secure, "
                                    "or set a token: mcp add secure %s <token>" % url)
    assert mcp.add("secure", url, "tok-abcdefgh") is None
    assert ok(mcp.test("secure"))["tools"] == 5
    port = peers.free_port()
    assert mcp.add("down", "http://127.0.0.1:%d/mcp" % port) is None
    info, err = mcp.test("down")
    assert err.startswith("down: cannot connect to 127.0.0.1:%d" % port)
