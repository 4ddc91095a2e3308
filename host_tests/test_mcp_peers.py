"""lib/mcp against TypeScript SDK servers that talk first: the SDK's own
example servers (elicitationFormExample, simpleStreamableHttp) and
host_tests/peers/ts_server.mjs (the SDK's McpServer and transports, see its
header): server requests on the standalone GET stream (elicitation,
roots/list) through the product's connect settings, keep-alive comments
and a chunk boundary after a big event there, cancellation seen by the
server, a server without tools, task-only tools hidden, titles and
annotations, resources listed and read, and the old HTTP+SSE transport
named. Every session runs with timeout=10 and a 20 s deadline: a client
that stalled on a stream would fail with a timeout instead of a result."""
import json
import re
import time

import pytest

import mcp
from mcp import client


def ok(pair):
    value, err = pair
    assert err is None, err
    return value


def session(peer, **kw):
    kw.setdefault("timeout", 10)
    kw.setdefault("deadline", 20)
    return ok(mcp.connect(peer.url, name="ts", **kw))


def test_elicitation_on_the_get_stream_sdk_example(ts_server):
    peer = ts_server("elicitationFormExample")
    asked = []

    def elicit(message, schema):
        asked.append((message, sorted(schema["properties"]), schema.get("required")))
        return {"username": "ada", "email": "ada@example.com", "password": "s3cret-pass",
                "newsletter": True}
    conn = session(peer, elicit=elicit)
    text = ok(mcp.call(conn, "register_user", {}))
    assert text.startswith("Registration successful!"), text
    assert "Username: ada" in text and "Newsletter: Yes" in text
    assert asked == [("Please provide your registration information:",
                      ["email", "interests", "newsletter", "password", "role", "username"],
                      ["username", "email", "password"])]
    # declined, cancelled, and with nobody to ask (required fields without
    # defaults: declined)
    for answer, said in ((lambda m, s: None, "Registration cancelled by user."),
                         (lambda m, s: False, "Registration was cancelled.")):
        conn.elicit = answer
        assert ok(mcp.call(conn, "register_user", {})) == said
    conn.elicit = None
    assert ok(mcp.call(conn, "register_user", {})) == "Registration cancelled by user."
    mcp.close(conn)


def test_elicitation_defaults_keepalive_and_a_big_event_on_the_get_stream(ts_server):
    """ts_server sends ": keepalive" comments every 100 ms on both streams;
    ask_big's request is a 3 KB event (more than the client's 1 KB read, so
    the CRLF that closes its chunk comes in a read of its own)."""
    conn = session(ts_server("full"))
    assert "listening" not in repr(conn.listening)
    for tool in ("ask", "ask_big"):
        got = json.loads(ok(mcp.call(conn, tool, {})))
        # no callback, no console: "days" is required and has no default
        assert got == {"action": "decline"}, got
    conn.elicit = lambda m, s: {"city": "Lisbon", "days": 3, "units": "metric"}
    got = json.loads(ok(mcp.call(conn, "ask_big", {})))
    assert got == {"action": "accept", "content": {"city": "Lisbon", "days": 3, "units": "metric"}}
    assert conn.listening is None       # the GET stream went with the call
    mcp.close(conn)


def test_roots_list_on_the_get_stream(ts_server):
    conn = session(ts_server("full"))
    assert ok(mcp.call(conn, "roots", {})) == "roots: 0"
    mcp.close(conn)


def test_cancellation_is_seen_by_the_server(ts_server):
    peer = ts_server("full")
    conn = session(peer, timeout=10, deadline=2)
    text, err = mcp.call(conn, "slow", {})
    assert text is None and err == "ts: no complete reply within 2 s (raise mcp.deadline)"
    rid = json.loads(json.dumps(conn.rid))      # the call's id (no request since)
    want = "cancelled %d timed out" % rid
    t = time.monotonic() + 20
    while want not in peer.log() and time.monotonic() < t:
        time.sleep(0.05)        # the server logs it when the notification comes
    assert want in peer.log(), peer.log()
    conn.deadline = 20
    assert ok(mcp.call(conn, "annotated", {})) == "done"    # the session goes on
    mcp.close(conn)


def test_a_server_without_tools(ts_server):
    conn = session(ts_server("notools"))
    assert conn.caps == ["resources"]
    assert ok(mcp.tools(conn)) == []
    seen = []
    assert ok(mcp.tools(conn, each=seen.append)) == 0 and seen == []
    assert ok(mcp.read(conn, "file:///notes.txt")) == "line one\nline two"
    assert mcp.call(conn, "anything", {}) == (None, "ts: Method not found (code -32601)")
    mcp.close(conn)


def test_tools_titles_annotations_and_task_only_hidden(ts_server):
    conn = session(ts_server("full"))
    tools = ok(mcp.tools(conn))
    by = dict((t["name"], t) for t in tools)
    assert sorted(by) == ["annotated", "ask", "ask_big", "ask_url", "roots", "slow"]
    assert conn.hidden == 1         # task_only
    assert by["annotated"]["title"] == "Annotated Tool"
    assert by["annotated"]["annotations"] == {"readOnlyHint": False, "destructiveHint": True}
    assert "annotations" not in by["ask"] and "title" not in by["ask"]
    mcp.close(conn)
    # the SDK's own example: titles at the top and in annotations, two tools
    # that run only as tasks
    conn = session(ts_server("simpleStreamableHttp"))
    tools = ok(mcp.tools(conn))
    by = dict((t["name"], t) for t in tools)
    assert "delay" not in by and "collect-user-info-task" not in by
    assert conn.hidden == 2
    assert by["greet"]["title"] == "Greeting Tool"
    assert by["multi-greet"]["title"] == "Multiple Greeting Tool"
    assert by["multi-greet"]["annotations"]["readOnlyHint"] is True
    assert ok(mcp.call(conn, "greet", {"name": "Ada"})) == "Hello, Ada!"
    mcp.close(conn)


def test_resources_listed_and_read(ts_server, tmp_path):
    conn = session(ts_server("simpleStreamableHttp"))
    seen = []
    assert ok(mcp.resources(conn, seen.append)) == 3
    by = dict((r["uri"], r) for r in seen)
    assert by["https://example.com/greetings/default"]["title"] == "Default Greeting"
    assert by["file:///example/file1.txt"]["mimeType"] == "text/plain"
    assert by["file:///example/file1.txt"]["description"].startswith("First example file")
    # the links a tool gives can be followed
    links = ok(mcp.call(conn, "list-files", {}))
    assert "Example File 1 <file:///example/file1.txt>" in links
    assert ok(mcp.read(conn, "file:///example/file1.txt")) == "This is the content of file 1"
    text, err = mcp.read(conn, "file:///nope.txt")
    assert text is None and err.startswith("ts: ") and "nope" in err
    mcp.close(conn)
    conn = session(ts_server("full"))
    assert ok(mcp.read(conn, "file:///logo.png")) == "[blob file:///logo.png image/png, 300 bytes]"
    # into= a file: the whole text, blobs described as in the str
    path = str(tmp_path / "read.txt")
    for uri in ("file:///notes.txt", "file:///logo.png"):
        want = ok(mcp.read(conn, uri)).encode()
        assert ok(mcp.read(conn, uri, into=path)) == len(want)
        with open(path, "rb") as f:
            assert f.read() == want
    limited = client.MAX_TEXT
    try:
        from mcp import resource as resources
        assert resources.read(conn, "file:///notes.txt", None, 5) == (
            "line \n... (truncated, 17 bytes)", None)
    finally:
        assert client.MAX_TEXT == limited
    mcp.close(conn)


def test_resources_of_a_server_without_them(ts_server):
    conn = session(ts_server("elicitationFormExample"))
    assert mcp.resources(conn, print) == (None, "ts offers no resources")
    assert mcp.read(conn, "file:///x") == (None, "ts offers no resources")
    mcp.close(conn)


def test_legacy_http_sse_endpoint_is_named(ts_server):
    peer = ts_server("legacy")
    conn, err = mcp.connect(peer.url, name="old", timeout=10, deadline=20)
    assert conn is None
    assert err == ("old: %s is an HTTP+SSE endpoint (the MCP transport of 2024-11-05), which "
                   "this client does not speak; use the server's Streamable HTTP URL" % peer.url)


@pytest.mark.parametrize("mode", ["full"])
def test_progress_reaches_a_spinner(ts_server, mode, monkeypatch):
    """notifications/progress while the console's spinner turns: its label
    says "<server>__<tool> N%" (the console's line; here a stand-in)."""
    import hooks
    import httpc
    labels = []

    class Spin:
        def __setattr__(self, k, v):
            labels.append(v)

    monkeypatch.setattr(hooks, "spinner", Spin)     # (the console hands in its own)
    monkeypatch.setattr(httpc, "ON_WAIT", lambda: None)
    conn = session(ts_server(mode), deadline=1)
    text, err = mcp.call(conn, "slow", {})
    assert text is None and "no complete reply within 1 s" in err
    # 50 ms a step of 600 for a second: a few percent, rising
    assert labels and all(re.match(r"ts__slow \d+%$", lb) for lb in labels), labels
    pct = [int(lb[9:-1]) for lb in labels]
    assert pct == sorted(pct) and pct[-1] < 50, pct
    mcp.close(conn)
