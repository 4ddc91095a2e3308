"""Every failure in lib/ai's error list, as the person at the console reads
it: one line that names the provider and says what to do."""
import pytest

import ai
import store
from fakes import Blocked, Fail, FakeAnthropic, FakeGemini, FakeResponses, Text

STYLES = {      # provider: its default style's fake (openai: Responses)
    "openai": (FakeResponses, "gpt-5-mini", "sk-test"),
    "anthropic": (FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test"),
    "gemini": (FakeGemini, "gemini-2.5-flash", "AIza-test"),
}


@pytest.fixture(params=sorted(STYLES))
def srv(request, tmp_path):
    fake, model, key = STYLES[request.param]
    store.set_root(str(tmp_path))
    with fake(key=key, models=[model]) as s:
        store.update({"ai.chat.provider": request.param, "ai.chat.key": key,
                      "ai.chat.base_url": s.base_url, "ai.chat.model": model,
                      "ai.chat.timeout": 5})
        s.pid = request.param
        yield s
    store.set_root(None)


def ask(stream=False):
    o = {"stream": (lambda piece: None)} if stream else None
    reply, err, calls = ai.ask([{"role": "user", "content": "hi"}], o)
    assert reply is None and calls is None
    assert "\n" not in err and "Traceback" not in err
    return err


def test_wrong_key_names_the_setting(srv):
    store.set("ai.chat.key", "wrong-key-123456")
    err = ask()
    assert err.startswith(srv.pid + ": 4")            # 401, or Gemini's 400
    assert err.endswith("(check ai.chat.key)")
    assert "wrong-key-123456" not in err
    assert len(srv.requests) == 1                      # never retried


def test_forbidden_is_a_key_problem(srv):
    srv.queue(Fail(403))
    err = ask()
    assert err.startswith(srv.pid + ": 403") and err.endswith("(check ai.chat.key)")


def test_unknown_model_names_the_setting(srv):
    store.set("ai.chat.model", "no-such-model")
    err = ask()
    assert err.startswith(srv.pid + ": 404") and err.endswith("(check ai.chat.model)")


def test_rate_limit_says_how_long_to_wait(srv):
    srv.queue(Fail(429, headers={"retry-after": "90"}))
    err = ask()
    assert err.startswith(srv.pid + ": 429") and err.endswith("(rate limited; retry in 90 s)")


def test_overloaded_after_retries(srv):
    status = 529 if srv.pid == "anthropic" else 503
    srv.queue(Fail(status), Fail(status), Fail(status))
    err = ask()
    assert err.startswith("%s: %d" % (srv.pid, status))
    assert err.endswith("(the service is overloaded or failing; try again later)")
    assert len(srv.requests) == 3                      # two retries


def test_mid_stream_error_event(srv):
    srv.queue(Fail(529 if srv.pid == "anthropic" else 503, midstream=True))
    err = ask(stream=True)
    assert err.startswith(srv.pid + ": ") and "verload" in err


def test_max_tokens_before_any_text(srv):
    srv.queue(Text("", finish="length"))
    assert ask() == srv.pid + ": empty reply: max tokens reached (raise the max_tokens setting)"


def test_safety_block_of_the_reply(srv):
    srv.queue(Text("", finish="safety"))
    assert ask() == srv.pid + ": empty reply: blocked by the content filter"


def test_timeout_names_the_setting(srv):
    store.set("ai.chat.timeout", 1)
    srv.options(delay=2.5)
    err = ask()
    assert err.startswith(srv.pid + ": ") and "timed out" in err
    assert err.endswith("(raise ai.chat.timeout)")


def test_gemini_blocked_prompt(tmp_path):
    store.set_root(str(tmp_path))
    try:
        with FakeGemini(key="AIza-test") as s:
            store.update({"ai.chat.provider": "gemini", "ai.chat.key": "AIza-test",
                          "ai.chat.base_url": s.base_url})
            s.queue(Blocked("SAFETY"))
            assert ask() == "gemini: prompt blocked (SAFETY)"
    finally:
        store.set_root(None)


def test_unreachable_host(tmp_path):
    store.set_root(str(tmp_path))
    try:
        store.update({"ai.chat.provider": "groq", "ai.chat.key": "gsk-1234567890",
                      "ai.chat.base_url": "http://127.0.0.1:9/openai/v1"})
        err = ask()
    finally:
        store.set_root(None)
    assert err == "groq: cannot connect to 127.0.0.1:9: connection refused"
