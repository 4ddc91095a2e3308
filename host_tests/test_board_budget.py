"""The board's whole budget: TLS connections and sockets held at once.

On an ESP32 without PSRAM mbedTLS takes each TLS connection's buffers from
the ESP-IDF heap, which holds one moving data beside one idle
(boards/ANTOS_ESP32/profile.json: tls_max 2); the unix port charges them
to no heap, so the harness counts them instead (scenarios/netcount.py:
more at once than the profile allows fails the run). Here both the
provider and the MCP servers are https (a TLS front with a test CA before
each loopback server, tlsfront.py), the common case on a board; the front
counts what the server side saw too.
"""
import pytest

from fakes import Calls, FakeOpenAI, Text
from httpserver import Server
from mpyrun import GOAL, BudgetError, parse_size
from tlsfront import LocalCA, TLSFront

# Each scenario's heap (free once the emulated flash is in place; make
# measure bisects what it needs). The tests of the network budget alone
# (connections counted, an elicitation's second connection, an OAuth
# login, Copilot's token exchange) run at the project's GOAL.
# the chat and tool rounds with both kept-alive TLS connections
TLS_CAP = "47K"
# the console's tool round with the cache built from an https server,
# every module imported
CONSOLE_TLS_CAP = "62K"
# the console and its MCP server at once, a chat streaming over TLS
SERVE_TLS_CAP = "58K"


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return LocalCA(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="module")
def sdk_https(sdk_server, ca):
    with TLSFront(sdk_server(), ca) as front:
        yield front


def _tls_session(mpy, tmp_path, ca, sdk_https, heap=TLS_CAP):
    with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv, \
            TLSFront(srv.base_url, ca) as prov:
        srv.options(chunked=True)
        srv.queue(Text("Hello over TLS."),
                  Calls([("sdk__get_weather", {"city": "Rochdale"})]),
                  Text("tool said: Rochdale: 12 C, drizzle"),
                  Calls([("sdk__get_weather", {"city": "Leeds"})]),
                  Text("tool said: Leeds: 12 C, drizzle"))
        root = tmp_path / ("flash-%s" % heap)
        root.mkdir()
        r = mpy.run("tls_session", heap=heap, args=[ca.der, prov.url, sdk_https.url, root],
                    timeout=120)
    return r, prov


def test_a_chat_and_two_tool_rounds_over_tls(mpy, measure, tmp_path, ca, sdk_https):
    assert parse_size(TLS_CAP) <= parse_size(GOAL)
    r, prov = _tls_session(mpy, tmp_path, ca, sdk_https)
    assert r.rc == 0, r
    assert "CHAT 'Hello over TLS.' None" in r.out, r.out
    assert "RUN 'tool said: Rochdale: 12 C, drizzle' None" in r.out, r.out
    assert "RUN 'tool said: Leeds: 12 C, drizzle' None" in r.out, r.out
    # mcp test says that server requests come on a call's own stream here
    assert "TEST 5 False None" in r.out, r.out
    assert r.tls_peak == 2, r.err
    # one connection to each, kept alive: no GET stream beside the calls
    assert prov.peak == 1 and sdk_https.peak == 1
    measure.smallest("heap", "https: a chat and two ai.run tool rounds (MCP SDK server)",
                     lambda h: "RUN 'tool said: Leeds" in _tls_session(mpy, tmp_path, ca,
                                                                       sdk_https, h)[0].out,
                     TLS_CAP, goal=GOAL)


def test_a_run_that_holds_one_tls_connection_too_many_fails(mpy, ca):
    """The harness, not only httpc, holds a scenario to the board: with
    httpc's budget switched off, a third TLS connection open at once stops
    the run (two pass)."""
    def ok(req, w):
        w.respond(200, b"ok", headers={"Content-Type": "text/plain"})
    with Server(ok) as srv, TLSFront(srv.url + "/x", ca) as front:
        r = mpy.run("tls_many", heap=GOAL, args=[front.url, 2], ca=ca.der)
        assert r.rc == 0 and "DONE" in r.out and r.tls_peak == 2, r
        with pytest.raises(BudgetError, match="3 TLS connections .* ANTOS_ESP32 allows 2"):
            mpy.run("tls_many", heap=GOAL, args=[front.url, 3], ca=ca.der)
        r = mpy.run("tls_many", heap=GOAL, args=[front.url, 3], ca=ca.der, budget=False)
        assert r.rc == 97 and "OPEN 2" in r.out and "OPEN 3" not in r.out, r
        # the S3 with PSRAM holds four
        r = mpy.run("tls_many", heap=GOAL, args=[front.url, 4], ca=ca.der,
                    board="ANTOS_ESP32S3")
        assert r.rc == 0 and r.tls_peak == 4, r


def test_elicitation_over_tls_within_the_budget(mpy, ca, sdk_server):
    """The Python SDK server asks its question on the call's reply stream;
    the answer goes on a second connection: two TLS connections at once,
    never the GET stream beside them."""
    with TLSFront(sdk_server(ask=True), ca) as front:
        r = mpy.run("tls_elicit", heap=GOAL, args=[front.url], ca=ca.der, timeout=60)
    assert r.rc == 0, r
    assert "connect None" in r.out, r.out
    assert "greet ('hello, Ada! hello, Ada!', None) ['Who should I greet?']" in r.out, r.out
    assert r.tls_peak == 2 and front.peak == 2, (r.err, front.peak)


def test_oauth_login_over_tls_within_the_budget(mpy, tmp_path, ca):
    """An MCP server whose authorization server is the same https origin:
    discovery, registration, the code exchange and the calls."""
    from test_oauth import FakeAuth
    with FakeAuth() as fake, TLSFront(fake.base, ca) as front:
        fake.base, fake.url = front.base, front.base + "/mcp"   # what its metadata says
        r = mpy.run("mcp_oauth", heap=GOAL, args=[fake.url], cwd=str(tmp_path), ca=ca.der,
                    timeout=60)
    assert r.rc == 0, r
    assert "connect None" in r.out and "tools None read,write" in r.out, r.out
    assert "read ('read with mcp:read offline_access', None)" in r.out, r.out
    assert 1 <= r.tls_peak <= 2 and front.total >= 1


def test_copilot_over_tls_within_the_budget(mpy, tmp_path, ca):
    """The Copilot session token from the GitHub API and the chats from the
    Copilot API, both https, twice (the token is exchanged again)."""
    from fakes import FakeGitHub

    class Front(FakeGitHub):
        root = api = None       # https, set once the front is up
    with Front() as g, TLSFront(g.base_url, ca) as front:
        Front.root = front.base
        Front.api = front.url.rstrip("/")
        g.ttl = 30
        g.options(chunked=True)
        g.queue(Text("Hello from Copilot."), Text("Streamed from Copilot after a refresh."))
        r = mpy.run("ai_copilot", heap=GOAL, timeout=60, ca=ca.der,
                    args=[front.base, g.login(), tmp_path])
    assert r.rc == 0, r
    assert "CHAT1 'Hello from Copilot.' None" in r.out, r.out
    assert "CHAT2 'Streamed from Copilot after a refresh.' None" in r.out, r.out
    assert g.exchanges == 2 and r.tls_peak <= 2


def _console_tls(mpy, tmp_path, ca, sdk_https, heap):
    import json
    flash = tmp_path / ("flash-%s" % heap)
    flash.mkdir()
    with FakeOpenAI(flavor="ollama") as srv, TLSFront(srv.base_url, ca) as prov:
        srv.options(chunked=True)
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        (flash / "settings.json").write_text(json.dumps({
            "ai.general.provider": "ollama", "ai.general.base_url": prov.url.rstrip("/"),
            "ai.general.model": "llama3.2", "mcp.sdk.url": sdk_https.url,
            "ai.tools.approve": "always"}))
        r = mpy.run("aicmd_mem", heap=heap, args=[flash], ca=ca.der, timeout=60)
    return r, prov


def test_the_console_asks_with_cached_tools_over_tls(mpy, measure, tmp_path, ca, sdk_https):
    """`ai QUESTION` at the console, the tools cache built from the https
    MCP server, the model calling one of them: within the budget."""
    r, prov = _console_tls(mpy, tmp_path, ca, sdk_https, CONSOLE_TLS_CAP)
    assert r.rc == 0, r
    assert "CACHE 6 None" in r.out, r.out
    assert "tool said: Rochdale: 12 C, drizzle" in r.out, r.out
    assert r.tls_peak == 2 and prov.total >= 1 and sdk_https.total >= 1

    def passes(heap):
        x = _console_tls(mpy, tmp_path, ca, sdk_https, heap)[0]
        return x.rc == 0 and "tool said: Rochdale: 12 C, drizzle" in x.out
    measure.smallest("heap", "https: the console's tool round, its cache built, every module imported",
                     passes, CONSOLE_TLS_CAP)


def _serve_while_chatting(mpy, tmp_path, ca, heap):
    """-> (the ping's answer or None, the board, its (TLS, sockets) peak)."""
    import threading
    from boardserve import Board, make_flash, rpc, init
    with FakeOpenAI(flavor="ollama") as srv, TLSFront(srv.base_url, ca) as prov:
        srv.options(chunked=True, gap=0.02)
        srv.queue(Text("A reply that takes a while to stream, in many small pieces."))
        folder = tmp_path / ("serve-%s" % heap)
        folder.mkdir()
        flash = make_flash(folder, {"ai.general.provider": "ollama",
                                    "ai.general.base_url": prov.url.rstrip("/"),
                                    "ai.general.model": "llama3.2"})
        b = Board(mpy, flash, heap=heap, ca=ca.der)
        got = {}
        try:
            sid = init(b)
            b.type("ai hello")
            b.expect("A reply")                 # streaming has begun
            t = threading.Thread(target=lambda: got.update(ping=rpc(b, sid, "ping")))
            t.start()
            b.expect("small pieces.")
            t.join(30)
            b.close()
        finally:
            b.kill()
    return got.get("ping"), b, b.net()


def test_mcp_serve_while_chatting_over_tls(mpy, measure, tmp_path, ca):
    """The board serves MCP (plain http on the LAN: sockets) while its
    console streams a reply over TLS: a client's request waits for the
    command and is answered after it; sockets and TLS within the budget."""
    ping, b, (tls, sockets) = _serve_while_chatting(mpy, tmp_path, ca, SERVE_TLS_CAP)
    assert ping and ping[0] == 200, (ping, b.text[-2000:])
    assert tls == 1 and 2 <= sockets <= 4, b.text[-2000:]

    def passes(heap):
        try:
            ping, b, _ = _serve_while_chatting(mpy, tmp_path, ca, heap)
        except AssertionError:
            return False
        return bool(ping) and ping[0] == 200 and "out of memory" not in b.text
    measure.smallest("heap", "https: the board's MCP server answering while the console chats",
                     passes, SERVE_TLS_CAP)
