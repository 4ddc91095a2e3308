"""Every failure in lib/ai's error list, as the person at the console reads
it: one line that names the provider and says what to do."""
import pytest

import ai
import store
from fakes import Blocked, Fail, FakeAnthropic, FakeGemini, FakeOpenAI, FakeResponses, Raw, Text
from mpyrun import GOAL

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
    assert ask() == srv.pid + ": empty reply: max tokens reached (raise ai.chat.max_tokens)"


CUT = "\n\n[reply cut short: max tokens reached (raise ai.chat.max_tokens)]"
FILTERED = "\n\n[reply cut short by the content filter]"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_reply_cut_short_says_so_in_every_style(srv, stream):
    """Cut by the token limit or by the filter after some text: the text
    is kept and a last line says so, streamed too (the console shows it
    and the history keeps it)."""
    srv.queue(Text("The beginning of a long", finish="length"),
              Text("Part of it", finish="content_filter"))
    for text, mark in (("The beginning of a long", CUT), ("Part of it", FILTERED)):
        pieces = []
        hist = [{"role": "user", "content": "hi"}]
        reply, err, _ = ai.ask(hist, {"stream": pieces.append} if stream else None)
        assert (reply, err) == (text + mark, None)
        assert hist[-1]["content"] == reply
        if stream:
            assert "".join(pieces) == reply


def test_a_chat_completions_reply_cut_short_says_so(flash):
    with FakeOpenAI(flavor="groq", key="gsk-test", models=["llama-3.3-70b-versatile"]) as s:
        store.update({"ai.chat.provider": "groq", "ai.chat.key": "gsk-test",
                      "ai.chat.base_url": s.base_url, "ai.chat.max_tokens": 20})
        s.queue(Text("The beginning of a long", finish="length"),
                Text("Part of it", finish="content_filter"))
        assert ai.ask_simple("hi", {"stream": lambda p: None}) == (
            "The beginning of a long" + CUT, None)
        assert ai.ask_simple("hi") == ("Part of it" + FILTERED, None)


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


# ---- issue 15: the hints say what to do, and only what applies

def test_a_stream_timeout_keeps_the_advice(srv):
    store.set("ai.chat.timeout", 1)
    srv.options(gap=2.5)            # the stream starts, then goes silent
    err = ask(stream=True)
    assert "timed out" in err and err.endswith("(raise ai.chat.timeout)"), err


def test_501_is_final_and_not_called_overloaded(srv):
    srv.queue(Fail(501, message="not implemented here"))
    err = ask()
    assert err.startswith(srv.pid + ": 501") and "try again later" not in err, err
    assert len(srv.requests) == 1


def test_a_value_from_overrides_is_named_as_its_field(srv):
    _, err, _ = ai.ask([{"role": "user", "content": "hi"}], {"key": "wrong-key-123456"})
    assert err.endswith('(check overrides["key"])'), err


WHOLE = {   # one whole reply, as a server that ignores "stream" sends it
    "openai": {"id": "r1", "object": "response", "status": "completed", "output": [
        {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Whole reply.", "annotations": []}]}]},
    "anthropic": {"id": "m1", "type": "message", "role": "assistant", "model": "x",
                  "content": [{"type": "text", "text": "Whole reply."}],
                  "stop_reason": "end_turn"},
    # streamGenerateContent without alt=sse: an array of the stream's objects
    "gemini": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Whole "}]}}]},
               {"candidates": [{"content": {"role": "model", "parts": [{"text": "reply."}]},
                                "finishReason": "STOP"}]}],
}


def test_a_streamed_request_answered_with_json_is_read_whole(srv):
    srv.queue(Raw(WHOLE[srv.pid]))
    pieces = []
    reply, err, _ = ai.ask([{"role": "user", "content": "hi"}], {"stream": pieces.append})
    assert err is None and reply == "Whole reply." and "".join(pieces) == "Whole reply."


def test_chat_completions_answered_with_json_and_a_model_list_404(tmp_path):
    store.set_root(str(tmp_path))
    try:
        with FakeOpenAI(flavor="groq", key="gsk-test") as s:
            store.update({"ai.general.provider": "groq", "ai.general.key": "gsk-test",
                          "ai.general.base_url": s.base_url})
            s.queue(Raw({"id": "c1", "object": "chat.completion", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "Whole reply."},
                 "finish_reason": "stop"}]}))
            pieces = []
            reply, err, _ = ai.ask([{"role": "user", "content": "hi"}], {"stream": pieces.append})
            assert err is None and reply == "Whole reply." and pieces == ["Whole reply."]
            # a server without GET /models: the base URL, not the model
            store.set("ai.general.base_url", s.base_url + "/no-list")
            models, err = ai.fetch_models()
            assert models is None and err.startswith("groq: 404"), err
            assert err.endswith("(no model list at %s/no-list: check ai.general.base_url, "
                                "or type a model id)" % s.base_url), err
    finally:
        store.set_root(None)


@pytest.mark.parametrize("provider,fake,model,key,style", [
    ("openai", FakeResponses, "gpt-5-mini", "sk-test", "responses"),
    ("groq", FakeOpenAI, "llama-3.3-70b-versatile", "gsk-test", None),
    ("anthropic", FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test", None),
    ("gemini", FakeGemini, "gemini-2.5-flash", "AIza-test", None)])
def test_micropython_marks_a_reply_cut_short(mpy, tmp_path, provider, fake, model, key, style):
    kw = {"flavor": "groq"} if fake is FakeOpenAI else {}
    with fake(key=key, models=[model], **kw) as s:
        s.queue(*[Text("The beginning", finish=f) for f in ("length", "content_filter") * 2])
        r = mpy.run("ai_cut", heap=GOAL, timeout=60,
                    args=[provider, s.base_url, model, key, tmp_path] + ([style] if style else []))
    assert r.rc == 0, r
    cut = "ai.chat.max_tokens"
    want = ["The beginning\n\n[reply cut short: max tokens reached (raise %s)]" % cut,
            "The beginning" + FILTERED]
    lines = [x for x in r.out.split("\n") if x.startswith("CUT")]
    assert lines == ["CUT %r None " % want[0], "CUT %r None " % want[1],
                     "CUT %r None %r" % (want[0], want[0]),
                     "CUT %r None %r" % (want[1], want[1])], r.out
