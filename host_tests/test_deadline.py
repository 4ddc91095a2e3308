"""The overall deadline at the product level: ai.ask / ai.fetch_models
(setting ai.<use>.deadline) and the MCP client (mcp.deadline) against
loopback servers that are slow without ever tripping the per-read timeout:
endless empty deltas, keep-alive events and comments, a byte at a time.
Each ends within its deadline plus one second with a one-line error that
names the setting to raise. (httpc's own cases: test_httpc.py.)"""
import json
import time

import pytest

import ai
import mcp
import store
from ai.config import ConfigError, resolve
from httpserver import Server
from mcpstub import Stub

DEADLINE = 2      # seconds, set through the settings a person would change


def stream_forever(event):
    return lambda req, w: w.sse_forever(event)


def trickle(head, body):
    """A handler: `head` at once, then `body` a byte every 0.3 s."""
    def h(req, w):
        w.write(head)
        w.drip(body, 0.3)
    return h


def timed(fn):
    t = time.monotonic()
    out = fn()
    return out, time.monotonic() - t


def assert_late(took, err, name, setting):
    assert err == "%s: no complete reply within %d s (raise %s)" % (name, DEADLINE, setting)
    assert DEADLINE - 0.1 < took < DEADLINE + 1, took


# ---------------------------------------------------------------- ai

def use(flash, provider, url, **more):
    settings = {"ai.chat.provider": provider, "ai.chat.key": "k-0123456789",
                "ai.chat.base_url": url, "ai.chat.deadline": DEADLINE}
    settings.update(more)
    store.update(settings)


EMPTY_DELTAS = {
    "openai": b'data: {"choices":[{"index":0,"delta":{"content":""}}]}\n\n',
    "gemini": b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]}}]}\n\n',
    "anthropic": b'event: ping\ndata: {"type": "ping"}\n\n',
}


@pytest.mark.parametrize("provider", sorted(EMPTY_DELTAS))
def test_ask_streaming_endless_empty_deltas(flash, provider):
    with Server(stream_forever(EMPTY_DELTAS[provider])) as srv:
        use(flash, provider, srv.url + "/v1")
        pieces = []
        (reply, err, calls), took = timed(lambda: ai.ask(
            [{"role": "user", "content": "hi"}], {"stream": pieces.append}))
    assert reply is None and "".join(pieces) == ""
    assert_late(took, err, provider, "ai.chat.deadline")


def test_ask_slow_body_and_the_setting_it_came_from(flash):
    body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": "x" * 50}}]})
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    with Server(trickle(head, body.encode())) as srv:
        use(flash, "openai", srv.url + "/v1", **{"ai.chat.deadline": None,
                                                 "ai.general.deadline": DEADLINE})
        (reply, err), took = timed(lambda: ai.ask_simple("hi"))
    assert reply is None
    assert_late(took, err, "openai", "ai.general.deadline")


def test_fetch_models_slow_headers(flash):
    with Server(trickle(b"HTTP/1.1 200 OK\r\n", b"X-Slow: " + b"s" * 100)) as srv:
        use(flash, "openai", srv.url + "/v1")
        (models, err), took = timed(ai.fetch_models)
    assert models is None
    assert_late(took, err, "openai", "ai.chat.deadline")


def test_deadline_setting_resolves_like_the_others(flash):
    store.update({"ai.general.provider": "ollama"})
    assert resolve()["deadline"] == 300                       # the default
    store.update({"ai.general.deadline": "120"})
    assert resolve()["deadline"] == 120
    store.update({"ai.chat.deadline": 45})
    assert resolve()["deadline"] == 45
    assert resolve({"deadline": 7})["deadline"] == 7
    store.update({"ai.chat.deadline": "soon"})
    with pytest.raises(ConfigError) as ei:
        resolve()
    assert str(ei.value) == "ai.chat.deadline must be a number, not 'soon'"


# ---------------------------------------------------------------- mcp

def test_mcp_call_keep_alive_comments_only(flash):
    """A configured server: connect_named takes the setting mcp.deadline."""
    store.update({"mcp.deadline": DEADLINE})
    with Server(Stub(slow="tools/call")) as srv:
        assert mcp.add("slow", srv.url + "/mcp") is None
        conn, err = mcp.connect_named("slow")
        assert err is None and conn.deadline == DEADLINE
        assert mcp.tools(conn) == ([], None)
        (text, err), took = timed(lambda: mcp.call(conn, "wait", {}))
        mcp.close(conn)
    assert text is None
    assert_late(took, err, "slow", "mcp.deadline")


def test_mcp_connect_slow_initialize(flash):
    with Server(Stub(slow="initialize")) as srv:
        (conn, err), took = timed(lambda: mcp.connect(srv.url + "/mcp", name="slow",
                                                      deadline=DEADLINE))
    assert conn is None
    assert_late(took, err, "slow", "mcp.deadline")


def test_mcp_deadline_default_and_bad_setting(flash):
    with Server(Stub()) as srv:
        conn, err = mcp.connect(srv.url + "/mcp")
        assert err is None and conn.deadline == 300
        mcp.close(conn)
        assert mcp.add("stub", srv.url + "/mcp") is None
        conn, err = mcp.connect_named("stub")
        assert err is None and conn.deadline == 300
        mcp.close(conn)
        store.update({"mcp.deadline": "1h"})
        assert mcp.connect_named("stub") == (
            None, "mcp.deadline must be a number, not '1h'")
        conn, err = mcp.connect_named("stub", deadline=9)
        assert err is None and conn.deadline == 9
        mcp.close(conn)
