"""The driver in lib/ai/__init__.py: what every style shares."""
import time

import pytest

import ai
import httpc
import store
from fakes import Fail, FakeOpenAI, Text


@pytest.fixture
def srv(tmp_path):
    store.set_root(str(tmp_path))
    with FakeOpenAI(key="sk-test-0123456789") as s:
        store.update({"ai.chat.provider": "openai", "ai.chat.key": "sk-test-0123456789",
                      "ai.chat.base_url": s.base_url, "ai.chat.model": "gpt-4o-mini",
                      "ai.chat.style": "openai"})       # chat completions
        yield s
    store.set_root(None)


def test_ctrl_c_mid_stream_closes_at_once_and_keeps_history(srv):
    srv.options(gap=0.2)        # a slow stream: draining it would take seconds
    srv.queue(Text("word " * 60))
    hist = [{"role": "user", "content": "talk"}]

    def sink(piece):
        raise KeyboardInterrupt

    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        ai.ask(hist, {"stream": sink})
    assert time.monotonic() - t0 < 1.0
    assert len(hist) == 1                      # no half turn
    srv.queue(Text("fine"))
    assert ai.ask_simple("again")[0] == "fine"  # the next request works


def test_the_last_request_says_whether_it_failed_and_why(srv):
    """ai.styles.LAST[5]: None for a request that got a reply; else the
    error line (scrubbed, clipped: it stays for the session), and no
    token counts."""
    from ai.styles import LAST
    srv.queue(Text("fine"))
    assert ai.ask_simple("x") == ("fine", None)        # (a whole reply: with its usage)
    assert LAST[:3] == ["chat", "openai", "gpt-4o-mini"] and LAST[5] is None
    assert isinstance(LAST[3], int) and isinstance(LAST[4], int), LAST
    srv.queue(Fail(400, message="bad request for key sk-test-0123456789 " + "x" * 400))
    reply, err = ai.ask_simple("x", {"stream": lambda p: None})
    assert reply is None and err.startswith("openai: 400 bad request for key ***")
    assert LAST[3] is None and LAST[4] is None
    assert LAST[5].startswith("openai: 400 bad request for key ***") and LAST[5].endswith("...")
    assert len(LAST[5]) <= 123 < len(err) and "sk-test" not in LAST[5]
    srv.options(gap=0.2)
    srv.queue(Text("word " * 60))

    def sink(piece):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        ai.ask([{"role": "user", "content": "talk"}], {"stream": sink})
    assert LAST[5] == "stopped before the reply ended (Ctrl-C)"
    srv.options(gap=0)
    srv.queue(Text("fine"))
    assert ai.ask_simple("again")[1] is None and LAST[5] is None


def test_the_key_never_appears_in_an_error(srv):
    srv.queue(Fail(400, message="bad request for key sk-test-0123456789"))
    reply, err = ai.ask_simple("x")
    assert reply is None and "sk-test-0123456789" not in err and "***" in err


def test_retry_after_is_honoured_then_succeeds(srv):
    srv.queue(Fail(429, headers={"retry-after-ms": "300"}), Text("ok"))
    t0 = time.monotonic()
    reply, err = ai.ask_simple("x")
    assert (reply, err) == ("ok", None) and time.monotonic() - t0 >= 0.3
    assert len(srv.requests) == 2


def test_x_should_retry_false_wins_and_key_errors_are_not_retried(srv):
    srv.queue(Fail(503, headers={"x-should-retry": "false"}))
    reply, err = ai.ask_simple("x")
    assert err.startswith("openai: 503") and "try again later" in err
    assert len(srv.requests) == 1
    srv.queue(Fail(401))
    reply, err = ai.ask_simple("x")
    assert "(check ai.chat.key)" in err and len(srv.requests) == 2


def test_too_long_a_wait_is_reported_not_slept(srv):
    srv.queue(Fail(429, headers={"retry-after": "120"}))
    t0 = time.monotonic()
    reply, err = ai.ask_simple("x")
    assert time.monotonic() - t0 < 2
    assert "rate limited; retry in 120 s" in err


def test_unreachable_local_provider_says_to_start_it(tmp_path):
    store.set_root(str(tmp_path))
    try:
        store.update({"ai.general.provider": "ollama",
                      "ai.general.base_url": "http://127.0.0.1:9/v1"})
        reply, err = ai.ask_simple("x")
    finally:
        store.set_root(None)
    assert err.startswith("ollama: cannot connect to 127.0.0.1:9")
    # the provider came from ai.general: its wizard is ai config, not ai config chat
    assert err.endswith("(is Ollama (local) running? or run: ai config)"), err
    httpc.close_all()


def test_page_tokens_are_percent_encoded():
    from ai.styles import quote
    assert quote("abc-XYZ_0.9~") == "abc-XYZ_0.9~"
    assert quote("a b/c+d=\u00e9") == "a%20b%2Fc%2Bd%3D%C3%A9"


@pytest.mark.parametrize("kind", ["ollama", "groq", "kimi", "openai-whole", "anthropic", "gemini"])
def test_the_last_requests_token_usage_where_the_service_reports_it(tmp_path, kind):
    """ai.styles.LAST: the use-type, provider and model of the last request
    and the tokens its reply reported (OpenAI's usage chunk, asked for by
    Ollama's stream_usage quirk; Groq's x_groq.usage; Kimi's
    choices[0].usage; a whole reply's usage; Anthropic's message_start and
    message_delta; Gemini's usageMetadata)."""
    from ai.styles import LAST
    from fakes import FakeAnthropic, FakeGemini
    store.set_root(str(tmp_path))
    provider = kind.split("-")[0]
    fake = {"anthropic": lambda: FakeAnthropic(key="sk-ant-0123456789"),
            "gemini": lambda: FakeGemini(key="AIza-0123456789")}.get(
        provider, lambda: FakeOpenAI(flavor=provider, key="sk-test-0123456789"))
    try:
        with fake() as s:
            s.queue(Text("one two three four five six"))
            store.update({"ai.code.provider": provider, "ai.code.key": "sk-test-0123456789"
                          if provider not in ("anthropic", "gemini") else
                          ("sk-ant-0123456789" if provider == "anthropic" else "AIza-0123456789"),
                          "ai.code.base_url": s.base_url,
                          "ai.code.model": s.model_ids[0],
                          "ai.code.style": "openai" if provider == "openai" else None})
            LAST[:] = [None] * 6
            o = {"use": "code"}
            if kind != "openai-whole":
                o["stream"] = lambda piece: None
            reply, err = ai.ask_simple("count to six", o)
            assert err is None, err
            assert LAST[:3] == ["code", provider, s.model_ids[0]]
            assert isinstance(LAST[3], int) and LAST[3] > 0, LAST
            assert isinstance(LAST[4], int) and LAST[4] > 0, LAST
            if provider == "ollama":
                assert s.last.json["stream_options"] == {"include_usage": True}
    finally:
        store.set_root(None)
