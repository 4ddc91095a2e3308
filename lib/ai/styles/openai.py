"""OpenAI chat completions style: OpenAI, Groq, Ollama (/v1), Kimi (Moonshot).

Wire format (what this module writes and reads):

  POST {base}/chat/completions        Authorization: Bearer <key> (omitted
                                      when there is no key, e.g. Ollama)
  {"model": m, "stream": bool,
   "messages": [
     {"role": "system", "content": s},            cfg system + a leading
                                                  history system, merged
     {"role": "user", "content": s | [part, ...]},  parts with files (below)
     {"role": "assistant", "content": s | null,   null when only calls
      "tool_calls": [{"id", "type": "function",
                      "function": {"name", "arguments": "<JSON text>"}}],
      "reasoning_content": s},                    Kimi thinking (echoed)
     {"role": "tool", "tool_call_id": id, "content": s}],
   "tools": [{"type": "function",
              "function": {"name", "description", "parameters"}}],
   "max_completion_tokens" | "max_tokens": n,      (quirk max_tokens)
   "temperature": t, "reasoning_effort": e,
   "stream_options": {"include_obfuscation": false},  (quirk no_obfuscation)
   "response_format": {"type": "json_schema", "json_schema": {"name",
     "schema", "strict"?}} | {"type": "json_object"}}   (a schema: ai/schema.py)

  A refusal (message.refusal, delta.refusal) is the reply's text; with a
  schema the finish "refused:<its text>".
  Reply: {"choices": [{"message": {"content": s | null, "refusal"?,
          "reasoning_content"?, "tool_calls"?: [...]}, "finish_reason"}]}
  finish_reason stop | length | tool_calls | content_filter (-> "filter").

  Stream: SSE `data: {chunk}` events, no event names, ending with
  `data: [DONE]`. Text in choices[0].delta.content; tool calls arrive as
  fragments in choices[0].delta.tool_calls[] keyed by their `index` (only
  the first fragment of an index carries id and name; `arguments` pieces
  are concatenated; Groq/Ollama send whole calls in one fragment). A chunk
  `{"error": {...}}` mid-stream is a failure; a stream without [DONE] is
  truncated. The token usage (`usage` of a whole reply or of a stream's
  last chunk, `choices: []`, which quirk stream_usage asks for with
  stream_options.include_usage; Kimi `choices[0].usage`, Groq
  `x_groq.usage`): its two counts go to ai.styles.tokens(); Ollama/Groq `reasoning`
  text is skipped unread.

  Errors: {"error": {"message", "type", "param", "code"}} (Kimi: no code;
  some servers: {"error": "text"}); rate-limit messages say "Please try
  again in 1.5s", which becomes the retry hint.
  Models: GET {base}/models -> {"object": "list", "data": [{"id", ...}]},
  one page.

Provider differences are catalogue quirks (ai/catalog.py): max_tokens,
no_obfuscation, x_initiator.
Thinking: cfg["thinking"] -> reasoning_effort (ai.styles.oai.effort: the
nearest word the model's family takes, ai/catalog.py EFFORTS; nothing
where the family has no knob, e.g. Kimi, whose thinking is chosen by model
id, Copilot, Groq's models but GPT-OSS and Qwen 3; Ollama maps
reasoning_effort to its native `think`).
cfg["headers"] (Copilot's editor headers) are added to every request;
x_initiator sets X-Initiator: agent when the last message is a tool result.

Echo: Kimi thinking models answer 400 when an assistant tool-call message
comes back without its reasoning_content, so a reply's reasoning_content is
kept in turn["_echo"] = {"style": "openai", "provider": id,
"reasoning_content": text} and sent back only to that same provider (other
OpenAI-shaped services may refuse the unknown field).

Tool results with is_error get an "Error: " prefix (the wire has no flag).

Files (ai/files.py): a user message with files has content parts, per
file {"type": "text", "text": "[file /photo.jpg, 48 KB, image/jpeg]"},
then {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,..."}},
{"type": "file", "file": {"filename", "file_data": "data:application/pdf;
base64,..."}} (PDF) or {"type": "text", "text": <the file's text>}, then
the question's {"type": "text"}. Tool messages are text only: the files
of a round's tool results follow them as one user message of such parts.
Copilot (quirk vision_request): Copilot-Vision-Request: true on a request
with a picture.
"""
import jsonstream
from ai.styles import HELD, Out, StyleError, blocking, output, reply as _reply, as_str, tokens
from ai.styles.oai import bearer_headers, effort, refused, tool_output, __getattr__  # noqa: F401
from compat import const

_MAX_CALLS = const(32)          # tool calls in one reply

_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_calls",
           "function_call": "tool_calls", "content_filter": "filter"}


# ---------------------------------------------------------------- request

def request(cfg, history, tools, stream):
    """(url, headers, body value tree) for one chat completion."""
    quirks = cfg.get("quirks") or ()
    accept = "text/event-stream" if stream else "application/json"
    headers = bearer_headers(cfg, accept)
    if "x_initiator" in quirks:
        headers["X-Initiator"] = "user"     # _messages may say agent
    if "app_title" in quirks:
        headers["X-Title"] = "AntOS AI"
    body = {"model": cfg["model"], "stream": bool(stream),
            "messages": jsonstream.Array(lambda: _messages(cfg, history, headers))}
    if tools:
        body["tools"] = jsonstream.Array(lambda: _tools(tools))
    if cfg.get("max_tokens") is not None:
        field = "max_tokens" if "max_tokens" in quirks else "max_completion_tokens"
        body[field] = cfg["max_tokens"]
    if cfg.get("temperature") is not None:
        body["temperature"] = cfg["temperature"]
    word = effort(cfg)
    if word and "reasoning_object" in quirks:
        body["reasoning"] = {"effort": word}
    elif word:
        body["reasoning_effort"] = word
    if cfg.get("schema"):
        cfg["schema"].body(body)         # (ai/schema.py)
    if stream and "no_obfuscation" in quirks:
        body["stream_options"] = {"include_obfuscation": False}
    if stream and "stream_usage" in quirks:
        body["stream_options"] = {"include_usage": True}
    return cfg["base_url"] + "/chat/completions", headers, body


def _tools(tools):
    for t in tools:
        yield {"type": "function",
               "function": {"name": t["name"],
                            "description": t.get("description") or "",
                            "parameters": t.get("parameters") or
                            {"type": "object", "properties": {}}}}


def _messages(cfg, history, headers):
    """Translate the internal history lazily, one message at a time. With
    the x_initiator quirk the first pass (the length count, before the
    headers go out) sets X-Initiator from the role of the last message."""
    system = cfg.get("system")
    first = True
    m = None
    shown = None    # tool results of this round with files: their pictures follow them
    for m in history:
        if first:
            first = False
            if m.get("role") == "system":
                c = m.get("content") or ""
                if system:
                    c = system + "\n\n" + as_str(c) if c else system
                yield {"role": "system", "content": c}
                continue
            if system:
                yield {"role": "system", "content": system}
        if shown and m.get("role") != "tool":
            yield {"role": "user", "content": _content(cfg, shown)}
            shown = None
        yield _message(cfg, m)
        if m.get("role") == "tool" and m.get("files"):
            shown = (shown or []) + [m]
    if shown:
        yield {"role": "user", "content": _content(cfg, shown)}
    if first and system:
        yield {"role": "system", "content": system}
    if "X-Initiator" in headers:
        headers["X-Initiator"] = "agent" if m and m.get("role") == "tool" else "user"
    if cfg.get("_files") and "vision_request" in cfg["quirks"]:
        from ai import files
        if files.images(cfg):
            headers["Copilot-Vision-Request"] = "true"


def _content(cfg, ms, text=None):
    """The content parts of the files of the messages ms, then text
    (ai/files.py content), in chat completions' shapes."""
    def part(kind, name, v):
        if kind == "text":
            return {"type": "text", "text": v}
        if kind == "pdf":
            return {"type": "file", "file": {"filename": name, "file_data": v}}
        return {"type": "image_url", "image_url": {"url": v}}
    from ai.files import content
    return content(cfg, ms, part, text)


def _message(cfg, m):
    role = m.get("role")
    if role == "tool":
        return {"role": "tool", "tool_call_id": _tid(cfg, m.get("tool_call_id") or ""),
                "content": tool_output(m)}
    if role != "assistant":
        c = m.get("content") or ""
        return {"role": role, "content": _content(cfg, (m,), c) if m.get("files") else c}
    out = {"role": "assistant", "content": m.get("content") or ""}
    calls = m.get("tool_calls")
    if calls:
        out["tool_calls"] = [
            {"id": _tid(cfg, c["id"]), "type": "function",
             "function": {"name": c["name"], "arguments": c.get("args") or "{}"}}
            for c in calls]
        if not out["content"]:
            out["content"] = None
    echo = m.get("_echo")
    if echo and echo.get("style") == "openai" and \
            echo.get("provider", cfg.get("provider")) == cfg.get("provider"):
        rc = echo.get("reasoning_content")
        if rc is not None:
            out["reasoning_content"] = rc
    return out


def _tid(cfg, cid):
    """A tool-call id as the service takes it: with the quirk tool_id9, 9
    letters and digits (such an id as it is, any other hashed to one: a
    call and its result map alike)."""
    if "tool_id9" not in (cfg.get("quirks") or ()) or len(cid) == 9 and _alnum(cid):
        return cid
    h = 5381        # djb2 (xor) over the id's bytes, small ints only
    for c in cid.encode():
        h = (h * 33 ^ c) & 0xFFFFF
    out = bytearray(9)
    for i in range(9):
        out[i] = _ALNUM[h % 62]
        h = (h * 33 + 17) & 0xFFFFF
    return str(out, "utf-8")


_ALNUM = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _alnum(s):
    for c in s.encode():
        if not (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122):
            return False
    return True


# ---------------------------------------------------------------- replies

class _Reader:
    """What one reply (whole or streamed) accumulates, under bounds: the
    text goes to out, reasoning and call arguments are held (HELD)."""

    def __init__(self, cfg, out, stream=False):
        limit = min(cfg.get("max_reply") or HELD, HELD)
        self.limit = limit
        self.cfg = cfg
        self.out = out
        self.stream = stream
        self.reasoning = Out(limit, None, True, "reasoning", False)
        self.reasoning_over = False
        self.calls = []           # [id, name, Out(args)] by index
        self.finish = None
        self.error = None
        self.refusal = None

    # handlers (self, path, value) for jsonstream.select (see _rules)
    def on_text(self, path, piece):
        if isinstance(piece, str):
            self.out.add(piece)

    def on_refusal(self, path, piece):
        refused(self, piece)

    def on_reasoning(self, path, piece):
        if not isinstance(piece, str) or self.reasoning_over:
            return
        try:
            self.reasoning.add(piece)
        except StyleError:
            # only needed to continue tool calls: decided in reply()
            self.reasoning_over = True
            self.reasoning = None

    def on_finish(self, path, value):
        if isinstance(value, str):
            self.finish = value

    def on_error(self, path, value):
        self.error = value

    def on_call(self, path, f):
        """One tool-call object (whole reply) or fragment (stream; only the
        first fragment of an index has id and name, arguments come in
        pieces; servers without `index` open a new call with each id)."""
        if not isinstance(f, dict):
            return
        fn = f.get("function")
        if not isinstance(fn, dict):
            fn = {}
        idx = f.get("index")
        if not isinstance(idx, int) or isinstance(idx, bool):
            idx = None if self.stream else path[4]
        calls = self.calls
        if idx is None:
            idx = len(calls) if f.get("id") or not calls else len(calls) - 1
        if idx < 0 or idx >= _MAX_CALLS:
            raise StyleError("more than %d tool calls" % _MAX_CALLS)
        while len(calls) <= idx:
            calls.append([None, None, Out(self.limit, None, True, "tool call arguments", False)])
        c = calls[idx]
        if isinstance(f.get("id"), str) and f["id"]:
            c[0] = f["id"]
        name = fn.get("name")
        if isinstance(name, str) and name and c[1] is None:
            c[1] = name     # only the first fragment names it (some repeat it)
        args = fn.get("arguments")
        if args is not None:
            if not isinstance(args, str):
                args = jsonstream.dumps(args)   # a server sending an object
            c[2].add(args)

    def raise_error(self):
        from ai.styles import openai_errors
        raise StyleError(openai_errors.error_text(self.error) or "error in reply")

    def reply(self):
        if self.error is not None:
            self.raise_error()
        calls = []
        for i, c in enumerate(self.calls):
            if c[1] is None and not c[2].size:
                continue    # an index announced but never filled
            calls.append({"id": c[0] or "call_%d" % i, "name": c[1] or "",
                          "args": c[2].text() or "{}"})
        finish = self.finish
        if calls and finish in (None, "stop"):
            finish = "tool_calls"  # Ollama used to say stop
        finish = _FINISH.get(finish, finish)
        if self.refusal is not None:
            finish = "refused:" + self.refusal
        echo = None
        if self.reasoning_over:
            if calls:
                raise StyleError("reasoning longer than %d characters" % self.limit)
        else:
            rc = self.reasoning.text()
            if rc and calls:    # (asked back on tool-call turns only: Kimi, DeepSeek)
                echo = {"style": "openai", "provider": self.cfg.get("provider"),
                        "reasoning_content": rc}
        return _reply(self.out, calls or None, finish, echo)


_RULES = {}     # "message" / "delta": the rules, compiled once (see _rules)
_BUF = []       # the stream's parse buffer, made once


def _rules(where):
    """select() rules for a whole message ("message") or a chunk ("delta"),
    compiled once for every reply: the handlers are _Reader's functions,
    called with the reply's reader (select(target=)), so replies at once
    (an asyncio program's) share them, a select at a time. Text streams in
    pieces; a tool call (fragment) is small and read whole (its arguments
    are bounded by max_value; see _select)."""
    rules = _RULES.get(where)
    if rules is None:
        base = "choices[0]." + where
        stream = jsonstream.Stream
        R = _Reader
        rules = _RULES[where] = jsonstream.Rules({
            base + ".content": stream(R.on_text),
            base + ".refusal": stream(R.on_refusal),
            base + ".reasoning_content": stream(R.on_reasoning),
            base + ".tool_calls[*]": R.on_call,
            "choices[0].finish_reason": R.on_finish,
            "error": R.on_error,
            # the token usage: a whole reply's, a stream's last chunk's (asked
            # for with stream_options.include_usage), Groq's, Kimi's
            "usage.prompt_tokens": _tokens, "usage.completion_tokens": _tokens,
            "x_groq.usage.prompt_tokens": _tokens, "x_groq.usage.completion_tokens": _tokens,
            "choices[0].usage.prompt_tokens": _tokens, "choices[0].usage.completion_tokens": _tokens,
        })
    return rules


def _tokens(r, path, n):
    tokens(path, n)


def _select(r, src, rules, buf=None):
    # a materialized tool call may hold max_reply characters of arguments,
    # each up to 6 bytes when escaped as \uXXXX
    jsonstream.select(src, rules, max_value=6 * r.limit + 1024, buf=buf, target=r)


def read_reply(cfg, body, out=None):
    """Reply from a whole (non-streamed) 200 body; its text goes to out
    (see ai.styles.output)."""
    r = _Reader(cfg, output(cfg, out))
    _select(r, body, _rules("message"))
    return r.reply()


def stream(cfg, events, out, block=True):
    """Reply from an SSE stream; text pieces go to out (an Out, or a sink)
    as they arrive. A step generator (ai.styles: the style contract)."""
    r = _Reader(cfg, output(cfg, out), True)
    rules = _rules("delta")
    # one parse buffer for every event, the size of a chunk of a few words
    # (read in one piece: no copy within the buffer); the rules' parser
    # keeps the first one it was given
    if not _BUF:
        _BUF.append(bytearray(320))
    while True:
        ev = events.next() if block else (yield from events.take())
        if ev is None:
            raise StyleError("stream ended early")
        if ev.empty:
            continue
        if ev.startswith(b"[DONE]"):
            return r.reply()
        if ev.event == "error":
            from ai.styles import openai_errors
            raise StyleError(openai_errors.event_error(ev))
        _select(r, ev, rules, _BUF[0])
        if r.error is not None:
            r.raise_error()


read_stream = blocking(stream)
