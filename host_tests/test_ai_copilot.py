"""GitHub Copilot: the device flow (lib/ai/login.py), the session token
(lib/ai/copilot.py) and chats through ai.ask, against FakeGitHub (GitHub's
three endpoints and the Copilot API on one loopback server). A shared
clock is the seam: the flow's waits advance it, so no test waits real
intervals, and token expiry is a number. The console's `ai login copilot`
is in test_shell_ai_commands.py; a chat after a token refresh under the
MicroPython unix port at 64K is at the end."""

import pytest

import ai
import store
from ai import copilot, login
from fakes import Calls, FakeGitHub, Text

WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}


class Clock:
    """Seconds; wait() moves it on and records how long it was asked."""

    def __init__(self, t=1_800_000_000):
        self.t = t
        self.waits = []

    def __call__(self):
        return self.t

    def wait(self, s):
        self.waits.append(s)
        self.t += s


@pytest.fixture
def gh(flash, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(copilot, "now", clock)
    copilot.forget()
    with FakeGitHub() as g:
        g.clock = clock
        g.tick = clock
        store.update({"copilot.github": g.root, "copilot.api": g.root})
        yield g
    copilot.forget()


def run_login(gh):
    shown = []
    err = login.copilot(lambda *a: shown.append(a), gh.tick.wait, gh.tick)
    return err, shown


# ------------------------------------------------------------ device flow

def test_device_flow_pending_then_token(gh):
    gh.interval = 5
    gh.polls = ["pending", "pending", "ok"]
    err, shown = run_login(gh)
    assert err is None
    assert shown == [("WDJB-MJHT", "https://github.com/login/device", 900)]
    assert gh.tick.waits == [5, 5, 5]
    token = store.get("copilot.token")
    assert token in gh.logins and store.display("copilot.token", token) != token
    # what GitHub was sent
    first, poll = gh.requests[0], gh.requests[1]
    assert first.path == "/login/device/code" and first.headers["accept"] == "application/json"
    assert first.raw == b"client_id=Iv1.b507a08c87ecfe98&scope=read%3Auser"
    assert b"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code" in poll.raw
    assert poll.headers["content-type"] == "application/x-www-form-urlencoded"


def test_slow_down_adds_five_seconds(gh):
    gh.interval = 5
    gh.polls = ["pending", "slow_down", "pending", "ok"]
    err, _ = run_login(gh)
    assert err is None and gh.tick.waits == [5, 5, 10, 10]
    # GitHub's own rule: a poll sooner than the interval is slow_down too
    assert all(b - a >= 5 for a, b in zip(gh.poll_times, gh.poll_times[1:]))


@pytest.mark.parametrize("state,words", [
    ("expired", "the code expired before it was entered; run ai login copilot again"),
    ("denied", "the login was refused at GitHub (access_denied)")])
def test_flow_stops_on_expired_or_denied(gh, state, words):
    gh.polls = ["pending", state]
    err, _ = run_login(gh)
    assert err == words and store.get("copilot.token") is None


def test_the_code_runs_out_on_our_clock(gh):
    gh.interval, gh.expires_in = 5, 12
    gh.polls = ["pending"] * 10
    err, _ = run_login(gh)
    assert err == "the code expired before GitHub confirmed it; run ai login copilot again"
    assert gh.tick.waits == [5, 5, 5] and len(gh.poll_times) == 2


def test_flow_errors_are_one_line(gh):
    store.set("copilot.client_id", "Iv1.not-ours")
    err, shown = run_login(gh)
    assert err == ("GitHub: The client_id and/or client_secret passed are incorrect.")
    assert shown == []
    store.update({"copilot.client_id": None, "copilot.github": "http://127.0.0.1:9"})
    err, _ = run_login(gh)
    assert err.startswith("GitHub: cannot connect to 127.0.0.1:9")


def test_ctrl_c_while_waiting_stores_nothing(gh):
    gh.polls = ["pending"]

    def wait(s):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        login.copilot(lambda *a: None, wait, gh.tick)
    assert store.get("copilot.token") is None


# ------------------------------------------------------------ session tokens

def chat_cfg(gh, **kw):
    o = {"provider": "copilot", "timeout": 10}
    o.update(kw)
    return o


def test_chat_uses_one_session_until_60_s_before_expiry(gh):
    store.set("copilot.token", gh.login())
    gh.queue(Text("one"), Text("two"), Text("three"))
    assert ai.ask_simple("hi", chat_cfg(gh)) == ("one", None)
    assert gh.exchanges == 1
    req = gh.last
    assert req.path == "/chat/completions"
    assert req.headers["editor-version"] == "AntOS/0.1"
    assert req.headers["copilot-integration-id"] == "vscode-chat"
    assert req.headers["x-initiator"] == "user"
    assert req.headers["authorization"].startswith("Bearer tid=")
    assert "reasoning_effort" not in req.json                   # Copilot: no knob
    exp = copilot._session[copilot._EXPIRES]
    gh.tick.t = exp - 61
    assert ai.ask_simple("hi", chat_cfg(gh, thinking="high")) == ("two", None)
    assert gh.exchanges == 1                        # still fresh
    gh.tick.t = exp - 59
    assert ai.ask_simple("hi", chat_cfg(gh)) == ("three", None)
    assert gh.exchanges == 2                        # refreshed ahead of expiry
    assert gh.requests[-1].headers["authorization"] != req.headers["authorization"]


def test_business_endpoint_from_the_token_reply(flash, monkeypatch):
    copilot.forget()
    with FakeGitHub(api_prefix="/business") as g:
        store.update({"copilot.api": g.root, "copilot.token": g.login()})
        g.queue(Text("from business"))
        assert ai.ask_simple("hi", {"provider": "copilot"}) == ("from business", None)
        assert g.last.path == "/business/chat/completions"
        models, err = ai.fetch_models(provider="copilot")
        assert err is None and models == ["gpt-4.1", "gpt-5-mini", "o1-mini"]
        assert g.last.path == "/business/models"
    copilot.forget()


def test_tool_round_says_agent_and_tools_level_comes_from_the_model_list(gh):
    store.set("copilot.token", gh.login())
    gh.queue(Calls([("get_weather", {"city": "Leeds"})]))
    hist = [{"role": "user", "content": "weather in Leeds?"}]
    reply, err, calls = ai.ask(hist, chat_cfg(gh, tools=[WEATHER]))
    assert err is None and calls[0]["name"] == "get_weather"
    assert gh.last.headers["x-initiator"] == "user"
    assert gh.last.json["tools"][0]["function"]["name"] == "get_weather"
    hist.append({"role": "tool", "tool_call_id": calls[0]["id"], "name": "get_weather",
                 "content": "wet"})
    reply, err, _ = ai.ask(hist, chat_cfg(gh, tools=[WEATHER], stream=lambda p: None))
    assert (reply, err) == ("tool said: wet", None)
    assert gh.last.headers["x-initiator"] == "agent"       # carries tool results
    listed = [r for r in gh.requests if r.path == "/models"]
    assert len(listed) == 1                                # asked once per model
    # a model without tool_calls gets the text fallback
    gh.queue(Text("no tools here"))
    reply, err, _ = ai.ask([{"role": "user", "content": "x"}],
                           chat_cfg(gh, model="o1-mini", tools=[WEATHER]))
    assert err is None and "tools" not in gh.last.json
    assert "get_weather" in gh.last.json["messages"][0]["content"]
    # unless the tools level is set (in settings set up for copilot)
    store.update({"ai.chat.provider": "copilot", "ai.chat.tools": "native"})
    gh.queue(Text("native"))
    ai.ask([{"role": "user", "content": "x"}], chat_cfg(gh, model="o1-mini", tools=[WEATHER]))
    assert gh.last.json["tools"][0]["function"]["name"] == "get_weather"


def test_a_revoked_login_says_to_log_in_again(gh):
    store.set("copilot.token", gh.login())
    gh.queue(Text("ok"))
    assert ai.ask_simple("hi", chat_cfg(gh))[1] is None
    gh.revoke()
    gh.tick.t = copilot._session[copilot._EXPIRES]           # the session ran out: a new exchange
    reply, err = ai.ask_simple("hi", chat_cfg(gh))
    assert reply is None
    assert err == ("copilot: the GitHub login was refused (401 Bad credentials); "
                   "run ai login copilot again")
    assert store.get("copilot.token") is not None       # (the login is kept)


def test_a_refused_session_token_is_renewed_once_before_asking_to_log_in(gh, monkeypatch):
    login = gh.login()
    store.set("copilot.token", login)
    gh.queue(Text("one"), Text("two"), Text("three"))
    assert ai.ask_simple("hi", chat_cfg(gh)) == ("one", None)
    # the API forgets the session token while it looks fresh: a new one, once
    gh.sessions.clear()
    assert ai.ask_simple("hi", chat_cfg(gh)) == ("two", None)
    assert gh.exchanges == 2
    # a board whose clock was never set (2000) cannot tell the token ran out
    monkeypatch.setattr(copilot, "now", lambda: 946684800 + 60)
    gh.tick.t = copilot._session[copilot._EXPIRES] + 1
    assert ai.ask_simple("hi", chat_cfg(gh)) == ("three", None)
    assert gh.exchanges == 3
    # a fresh token refused too: now, and only now, log in again
    gh.uses = 0
    reply, err = ai.ask_simple("hi", chat_cfg(gh))
    assert err == "copilot: 401 unauthorized: token expired (run: ai login copilot)"
    assert "tid=" not in err and gh.exchanges == 4
    chats = [r for r in gh.requests if r.path == "/chat/completions"]
    assert len(chats) == 7              # three answered, each refusal retried once
    assert store.get("copilot.token") == login


def test_an_account_without_copilot(gh):
    t = gh.login()
    gh.no_copilot.add(t)
    store.set("copilot.token", t)
    reply, err = ai.ask_simple("hi", chat_cfg(gh))
    assert err == "copilot: no Copilot session for this GitHub login (404 Not Found for ***)"


def test_not_logged_in(gh):
    reply, err = ai.ask_simple("hi", {"provider": "copilot"})
    assert err == "copilot: not logged in to GitHub (run: ai login copilot)"
    models, err = ai.fetch_models(provider="copilot")
    assert models is None and err == "copilot: not logged in to GitHub (run: ai login copilot)"


# ------------------------------------------------------------ MicroPython

# the heap left free once the emulated flash is in place (see mpyrun);
# make measure bisects what each scenario needs
REFRESH_HEAP = "35K"
RENEW_HEAP = "37K"


def _both(out, second):
    """Both chats answered (what make measure bisects)."""
    return "CHAT1 'Hello from Copilot.' None" in out and "CHAT2 %r None" % second in out


def test_micropython_chat_after_a_token_refresh(mpy, measure, tmp_path):
    """Two chats at REFRESH_HEAP; the session token expires 30 s after it
    is made, inside the 60 s margin, so the second chat exchanges again."""
    def run(heap, live=False):
        with FakeGitHub() as g:
            g.ttl = 30
            g.options(chunked=True)
            g.queue(Text("Hello from Copilot."), Text("Streamed from Copilot after a refresh."))
            return g, mpy.run("ai_copilot", heap=heap, timeout=60, live=live,
                              args=[g.root, g.login(), tmp_path])
    g, r = run(REFRESH_HEAP)
    assert r.rc == 0, r
    assert "CHAT1 'Hello from Copilot.' None" in r.out, r.out
    assert "CHAT2 'Streamed from Copilot after a refresh.' None" in r.out, r.out
    assert g.exchanges == 2
    chats = [q for q in g.requests if q.path == "/chat/completions"]
    assert chats[0].headers["authorization"] != chats[1].headers["authorization"]
    live = run(REFRESH_HEAP, live=True)[1]
    assert live.rc == 0, live
    assert live.working < 24 * 1024
    measure.smallest("heap", "copilot: two chats with a session token refresh",
                     lambda heap: _both(run(heap)[1].out, "Streamed from Copilot after a refresh."), REFRESH_HEAP,
                     imports=r.imports, working=live.working)


def test_micropython_renews_a_refused_session_token_with_its_clock_unset(mpy, measure, tmp_path):
    """The board's clock at 2000: every session token looks fresh to it,
    and the fake ends each after one chat; the second chat gets a 401,
    exchanges the login once more and is answered, at RENEW_HEAP."""
    def run(heap):
        with FakeGitHub() as g:
            g.uses = 1
            g.queue(Text("Hello from Copilot."), Text("Streamed after a renewal."))
            root = tmp_path / ("renew-%s" % heap)
            root.mkdir()
            return g, mpy.run("ai_copilot", heap=heap, timeout=60,
                              args=[g.root, g.login(), root, "unset"])
    g, r = run(RENEW_HEAP)
    assert r.rc == 0, r
    assert "CHAT1 'Hello from Copilot.' None" in r.out, r.out
    assert "CHAT2 'Streamed after a renewal.' None" in r.out, r.out
    assert g.exchanges == 2
    measure.smallest("heap", "copilot: a refused session token renewed (the clock unset)",
                     lambda heap: _both(run(heap)[1].out, "Streamed after a renewal."),
                     RENEW_HEAP)


def test_a_request_with_a_picture_says_so(gh, flash):
    """The Copilot API refuses pictures without Copilot-Vision-Request:
    true (catalogue quirk vision_request); a request without one has no
    such header."""
    (flash / "p.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(200)))
    store.set("copilot.token", gh.login())
    gh.queue(Text("a picture"), Text("text"))
    hist = [{"role": "user", "content": "what is it?", "files": ["/p.png"]}]
    assert ai.ask(hist, chat_cfg(gh))[:2] == ("a picture", None)
    assert gh.last.headers["copilot-vision-request"] == "true" and len(gh.files) == 1
    assert ai.ask_simple("hi", chat_cfg(gh)) == ("text", None)
    assert "copilot-vision-request" not in gh.last.headers
