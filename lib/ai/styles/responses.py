"""OpenAI Responses style (the `responses` style of lib/ai), stateless.

Wire format (POST {base}/responses, Authorization: Bearer <key>):

  {"model", "store": false, "stream": bool,
   "instructions": s,          cfg system + the system messages opening the
                               history; resent every round (nothing is
                               stored on the service)
   "input": [item, ...],
   "tools": [{"type": "function", "name", "description", "parameters",
              "strict": false}],       (strict is the service's default:
                                        it refuses most MCP schemas)
   "max_output_tokens": n,
   "temperature": t,           (models without reasoning only)
   "reasoning": {"effort": e}, (ai.styles.oai.effort; reasoning models)
   "text": {"format": {"type": "json_schema", "name", "schema", "strict"}},
                               (a schema: ai/schema.py; a refusal is then
                               the finish "refused:<its text>")
   "include": ["reasoning.encrypted_content"]}   (reasoning models: with
                               store false a reasoning item can only be
                               replayed with its encrypted content)

  Input items from the history: user / later system messages -> {"role",
  "content": text}; assistant -> {"role": "assistant", "content": text}
  (when there is text), then {"type": "function_call", "call_id", "name",
  "arguments"} per call, or its echoed output items (below); tool ->
  {"type": "function_call_output", "call_id", "output"} ("Error: " prefix
  for is_error). A message with files (ai/files.py) has content parts: per
  file {"type": "input_text", "text": "[file /photo.jpg, 48 KB, image/jpeg]"},
  then {"type": "input_image", "image_url": "data:image/jpeg;base64,..."},
  {"type": "input_file", "filename", "file_data": "data:application/pdf;
  base64,..."} (PDF) or {"type": "input_text", "text": <the file's text>},
  then the question's input_text; the files of a round's tool results
  follow its function_call_output items as one user item of such parts.

  Reply: {"status": completed|incomplete|failed|..., "error": {"code",
  "message"}?, "incomplete_details": {"reason"}?, "output": [item, ...],
  ...the request echoed (instructions, tools: skipped unread)}. Items:
    {"type": "reasoning", "id", "summary": [...], "encrypted_content"?}
    {"type": "message", "id", "role", "status", "content": [{"type":
     "output_text", "text", "annotations"} | {"type": "refusal", "refusal"}]}
    {"type": "function_call", "id", "call_id", "name", "arguments", "status"}
  The text is every output_text / refusal of the message items, wherever
  they are in output[] (reasoning comes first: never output[0]). Calls:
  {"id": call_id, "name", "args": arguments}.

  Stream: `event: <type>` with data.type the same (OpenAI), or data lines
  only with the type inside the data, anywhere in it, and a last `data:
  [DONE]` (LiteLLM's /v1/responses and other OpenAI-compatible services);
  read here:
    response.output_item.added     {"output_index", "item": {type, id,
                                   call_id, name}}: the item being written
    response.output_text.delta, response.refusal.delta   {"delta"}: text
    response.function_call_arguments.delta  {"output_index", "delta"}
    response.output_item.done      a reasoning item, whole (for the echo);
                                   a call's arguments if no delta came
    response.completed | response.incomplete | response.failed   the end:
                                   status, incomplete_details.reason,
                                   error (the output echoed there is
                                   skipped unread)
    error {"code", "message"}      a failure after HTTP 200
  Every other event is skipped unread (when an `event:` line names it;
  else walked, its values skipped). A stream that ends without one of the
  three end events, or [DONE], is truncated.

  Status: incomplete -> finish "length" (max_output_tokens) or "filter"
  (content_filter); text that came is kept (the driver marks it, as for
  every style); a call cut short is an error. failed -> an error with the
  service's message.

  Errors and models are those of chat completions ({"error": {"message",
  "type", "param", "code"}}: openai_errors.py; GET {base}/models: ai/models.py).

Echo: a reply with function calls AND reasoning items that all carry their
encrypted content keeps its output items, in order, in turn["_echo"] =
{"style": "responses", "provider": id, "items": [...]}: reasoning items
whole and verbatim, message and function_call items as {"type", "id"
(, "call_id")} stubs whose text, name and arguments the replay takes from
the turn's content and tool_calls (no second copy of them). The follow-up
replays them exactly there, before the function_call_output items (the
service answers 400 when a call comes back without its reasoning item).
Replayed only to the same provider; other turns are rebuilt without ids.

Memory: a whole reply is walked with the pull parser (text streamed to
the driver's Out, arguments into bounded Outs held in RAM, reasoning items
materialized under MAX_OPAQUE); stream events are walked by one pull
parser through one buffer (no rules compiled per reply); reply text is
bounded by cfg["max_reply"], arguments by HELD.
"""
import jsonstream
from jsonstream import Array
from ai.styles import HELD, MAX_ERROR, Out, StyleError, blocking, output, reply as _reply, as_str, tokens
from ai.styles.oai import bearer_headers, effort, refused, tool_output, __getattr__  # noqa: F401
from compat import const

MAX_OPAQUE = const(65536)      # reasoning items of one reply, in characters
_MAX_CALLS = const(32)


# ---------------------------------------------------------------- request

def thinks(cfg):
    """True for a reasoning model: it takes reasoning.effort and the
    encrypted-content include, and refuses temperature: a family with
    effort words (ai/catalog.py EFFORTS; not the gpt-4 and older families,
    nor -chat variants)."""
    from ai import catalog
    return catalog.efforts(cfg["provider"], cfg["model"]) is not None


def request(cfg, history, tools, stream):
    """(url, headers, body value tree) for one Responses request."""
    body = {"model": cfg["model"], "store": False, "stream": bool(stream),
            "input": Array(lambda: _input(cfg, history))}
    system = _instructions(cfg, history)
    if system:
        body["instructions"] = system
    if tools:
        body["tools"] = Array(lambda: _tools(tools))
    if cfg.get("max_tokens") is not None:
        body["max_output_tokens"] = cfg["max_tokens"]
    if thinks(cfg):
        body["include"] = ["reasoning.encrypted_content"]
        word = effort(cfg)
        if word:
            body["reasoning"] = {"effort": word}
    elif cfg.get("temperature") is not None:
        body["temperature"] = cfg["temperature"]
    if cfg.get("schema"):
        cfg["schema"].body(body)         # (ai/schema.py: text.format)
    accept = "text/event-stream" if stream else "application/json"
    return cfg["base_url"] + "/responses", bearer_headers(cfg, accept), body


def _instructions(cfg, history):
    parts = [cfg["system"]] if cfg.get("system") else []
    for m in history:
        if m.get("role") != "system":
            break
        if m.get("content"):
            parts.append(as_str(m["content"]))    # (a file-backed one is read)
    return "\n\n".join(parts) if parts else None


def _tools(tools):
    for t in tools:
        yield {"type": "function", "name": t["name"],
               "description": t.get("description") or "",
               "parameters": t.get("parameters") or {"type": "object", "properties": {}},
               "strict": False}


def _input(cfg, history):
    """The input items, one history message at a time."""
    lead = True
    shown = []      # tool results of this round with files: their pictures follow them
    for m in history:
        role = m.get("role")
        if role == "system" and lead:
            continue                    # in the instructions
        lead = False
        if shown and role != "tool":
            yield {"role": "user", "content": _content(cfg, shown)}
            shown = []
        if role == "tool":
            yield {"type": "function_call_output", "call_id": m.get("tool_call_id") or "",
                   "output": tool_output(m)}
            if m.get("files"):
                shown.append(m)
        elif role == "assistant":
            for item in _assistant(cfg, m):
                yield item
        else:
            c = m.get("content") or ""
            yield {"role": role, "content": _content(cfg, (m,), c) if m.get("files") else c}
    if shown:
        yield {"role": "user", "content": _content(cfg, shown)}


def _content(cfg, ms, text=None):
    """The input parts of the files of the messages ms, then text
    (ai/files.py content), in Responses' shapes."""
    def part(kind, name, v):
        if kind == "text":
            return {"type": "input_text", "text": v}
        if kind == "pdf":
            return {"type": "input_file", "filename": name, "file_data": v}
        return {"type": "input_image", "image_url": v}
    from ai.files import content
    return content(cfg, ms, part, text)


def _assistant(cfg, m):
    text = m.get("content") or ""
    calls = m.get("tool_calls") or ()
    echo = m.get("_echo")
    if isinstance(echo, dict) and echo.get("style") == "responses" and \
            echo.get("provider") == cfg.get("provider") and echo.get("items"):
        by_id = {}
        for c in calls:
            by_id[c.get("id")] = c
        for it in echo["items"]:
            kind = it.get("type")
            if kind == "message":
                if text:
                    yield {"type": "message", "id": it.get("id"), "role": "assistant",
                           "status": "completed", "content": [
                               {"type": "output_text", "text": text, "annotations": []}]}
                    text = ""           # one message item carries all of it
            elif kind == "function_call":
                c = by_id.get(it.get("call_id")) or {}
                yield {"type": "function_call", "id": it.get("id"),
                       "call_id": it.get("call_id"), "name": c.get("name") or "",
                       "arguments": c.get("args") or "{}", "status": "completed"}
            else:
                yield it                # a reasoning item, verbatim
        return
    if text:
        yield {"role": "assistant", "content": text}
    for c in calls:
        yield {"type": "function_call", "call_id": c.get("id") or "",
               "name": c.get("name") or "", "arguments": c.get("args") or "{}"}


# ---------------------------------------------------------------- replies

class _Reader:
    """One reply, whole or streamed: the text goes to out; per output item
    [type, id, call_id, name, arguments Out, reasoning item]."""

    def __init__(self, cfg, out):
        self.cfg = cfg
        self.out = out
        self.limit = min(cfg.get("max_reply") or HELD, HELD)
        self.items = []
        self.opaque = 0
        self.status = None
        self.reason = None
        self.error = None
        self.refusal = None

    def on_text(self, path, piece):
        if isinstance(piece, str):
            self.out.add(piece)

    def on_refusal(self, path, piece):
        refused(self, piece)

    def item(self, i):
        """The entry of output item i (entries made up to i)."""
        if not isinstance(i, int) or isinstance(i, bool) or i < 0 or i >= 4 * _MAX_CALLS:
            raise StyleError("bad output_index %r" % (i,))
        items = self.items
        while len(items) <= i:
            items.append([None, None, None, None, None, None])
        return items[i]

    def set(self, e, fields):
        """Scalar fields of an item: type, id, call_id, name."""
        i = 0
        for k in ("type", "id", "call_id", "name"):
            v = fields.get(k)
            if isinstance(v, str):
                e[i] = v
            i += 1

    def args(self, e, piece):
        if e[4] is None:
            e[4] = Out(self.limit, None, True, "tool call arguments", False)
        if not isinstance(piece, str):
            piece = jsonstream.dumps(piece)     # a server sending an object
        e[4].add(piece)

    def reasoning(self, e, item):
        if not isinstance(item, dict):
            return
        self.opaque += jsonstream.encoded_len(item)
        if self.opaque > MAX_OPAQUE:
            raise StyleError("reasoning longer than %d characters (lower the "
                             "thinking setting)" % MAX_OPAQUE)
        e[5] = item

    def reply(self):
        if self.error is not None or self.status == "failed":
            err = self.error if isinstance(self.error, dict) else {}
            msg = err.get("message") or err.get("code") or "the reply failed"
            raise StyleError(str(msg)[:300])
        calls = []
        stubs = []
        whole = True            # every reasoning item replayable
        seen = False
        for e in self.items:
            kind = e[0]
            if kind == "function_call":
                if len(calls) >= _MAX_CALLS:
                    raise StyleError("more than %d tool calls" % _MAX_CALLS)
                calls.append({"id": e[2] or "call_%d" % len(calls), "name": e[3] or "",
                              "args": (e[4].text() if e[4] else "") or "{}"})
                stubs.append({"type": kind, "id": e[1], "call_id": calls[-1]["id"]})
            elif kind == "message":
                stubs.append({"type": kind, "id": e[1]})
            elif kind == "reasoning":
                seen = True
                item = e[5]
                if not (item and item.get("encrypted_content")):
                    whole = False
                stubs.append(item)
        finish = "tool_calls" if calls else "stop"
        if self.status == "incomplete":
            reason = self.reason or "incomplete"
            if calls:
                raise StyleError("reply cut short (%s) in a tool call (raise the "
                                 "max_tokens setting)" % reason)
            finish = {"max_output_tokens": "length", "content_filter": "filter"}.get(
                reason, reason)         # (the driver marks the text)
        if self.refusal is not None:
            finish = "refused:" + self.refusal
        echo = None
        if calls and seen and whole:
            echo = {"style": "responses", "provider": self.cfg.get("provider"),
                    "items": stubs}
        return _reply(self.out, calls or None, finish, echo)


def read_reply(cfg, body, out=None):
    """Reply from a whole (non-streamed) 200 body: a walk of the pull
    parser that keeps status, error, incomplete_details and output[]; the
    text goes to out (see ai.styles.output)."""
    r = _Reader(cfg, output(cfg, out))
    p = jsonstream.Parser(body, max_value=MAX_OPAQUE + 1024)
    if p.next() != jsonstream.OBJ:
        raise StyleError("the reply is not a JSON object")
    while p.next() == jsonstream.KEY:
        k = p.value
        if k == "output" and p.peek() == jsonstream.ARR:
            p.next()
            i = 0
            while p.peek() != jsonstream.END_ARR:
                _output_item(p, r, r.item(i))
                i += 1
            p.next()
        elif k == "status":
            r.status = p.read_value()
        elif k == "error":
            r.error = p.read_value()
        elif k == "incomplete_details" and p.peek() == jsonstream.OBJ:
            r.reason = (p.read_value() or {}).get("reason")
        else:
            p.skip_value()
    p.finish()
    return r.reply()


def _output_item(p, r, e):
    """One output item: text and arguments streamed, the rest kept as a
    dict (a reasoning item is that dict, whole)."""
    if p.peek() != jsonstream.OBJ:
        p.skip_value()
        return
    p.next()
    item = {}
    while p.next() == jsonstream.KEY:
        k = p.value
        t = p.peek()
        if k == "content" and item.get("type") == "message" and t == jsonstream.ARR:
            p.next()
            while p.peek() != jsonstream.END_ARR:
                if p.peek() != jsonstream.OBJ:
                    p.skip_value()
                    continue
                p.next()
                while p.next() == jsonstream.KEY:
                    if p.value in ("text", "refusal") and p.peek() == jsonstream.STR:
                        f = r.on_refusal if p.value == "refusal" else r.on_text
                        p.stream_string(lambda s: f(None, s))
                    else:
                        p.skip_value()
            p.next()
        elif k == "arguments" and t == jsonstream.STR:
            p.stream_string(lambda s: r.args(e, s))
        else:
            try:
                item[k] = p.read_value()
            except jsonstream.JSONError as x:
                _too_long(x, k)
    r.set(e, item)
    if e[0] == "reasoning":
        r.reasoning(e, item)
    elif e[0] == "message" and isinstance(item.get("content"), list):
        for part in item["content"]:   # content came before its type
            if isinstance(part, dict):
                r.on_text(None, part.get("text"))
                r.on_refusal(None, part.get("refusal"))


def _too_long(err, what):
    """A value over the parse bound is named as such; other JSON errors
    pass on."""
    if "longer than" in str(err):
        raise StyleError("%s longer than %d bytes (reasoning: lower the thinking "
                         "setting)" % (what, MAX_OPAQUE))
    raise err


# the events read (every other one is skipped unread when an `event:`
# line names it; a data-only stream names them in the data)
_TEXT = ("response.output_text.delta", "response.refusal.delta")
_ARGS = "response.function_call_arguments.delta"
_ADDED = "response.output_item.added"
_DONE = "response.output_item.done"
_ENDS = ("response.completed", "response.incomplete", "response.failed")


def stream(cfg, events, out, block=True):
    """Reply from an SSE stream; text pieces go to out (an Out, or a sink)
    as they arrive (a step generator: ai.styles, the style contract). One
    pull parser walks every event through one buffer (see the wire format
    above: the type from the `event:` line, else from the data)."""
    r = _Reader(cfg, output(cfg, out))
    p = None
    buf = bytearray(256)        # one parse buffer for every event
    cur = None                  # the entry of the item being written
    while True:
        ev = events.next() if block else (yield from events.take())
        if ev is None:
            raise StyleError("stream ended early")
        if ev.empty:
            continue
        name = ev.event
        if name == "message":
            name = None         # no `event:` line: the type is in the data
        elif name in _TEXT or name == _ARGS or name == _ADDED or name in _ENDS:
            pass
        elif name == _DONE:
            if cur is None or cur[0] not in ("reasoning", "function_call") or \
                    (cur[0] == "function_call" and cur[4] is not None):
                continue        # nothing in it that the deltas did not give
        elif name != "error":
            continue            # created, in_progress, content_part, *.done...
        if ev.startswith(b"[DONE]"):
            return r.reply()    # (data-only streams end so, after their end event)
        if p is None:
            p = jsonstream.Parser(ev, buf=buf, max_value=MAX_OPAQUE + 1024)
        else:
            p.reuse(ev, MAX_OPAQUE + 1024)
        try:
            t, got, pend = _event(p, r, name, cur)
        except jsonstream.JSONError as x:
            _too_long(x, "an output item")
        if t in _TEXT:
            for s in pend:
                (r.on_text if t == _TEXT[0] else r.on_refusal)(None, s)
        elif t == _ARGS:
            e = r.item(got.get("output_index"))
            for s in pend:
                r.args(e, s)
        elif t == _ADDED:
            cur = r.item(got.get("output_index", len(r.items)))
            r.set(cur, got)
        elif t == _DONE and cur is not None:
            if cur[0] == "reasoning":
                r.reasoning(cur, got.get("item"))
            elif cur[0] == "function_call" and cur[4] is None:
                for s in pend:      # a call whose arguments came whole
                    r.args(cur, s)
        elif t in _ENDS:
            r.status = got.get("status") or t[9:]
            r.reason = got.get("reason")
            r.error = got.get("error")
            return r.reply()
        elif t == "error":
            raise StyleError(str(got.get("message") or got.get("code") or "error event")[:MAX_ERROR])


read_stream = blocking(stream)


def _event(p, r, name, cur):
    """Walk one event's data: (type, fields, pieces). The type is name (the
    `event:` line) or the data's own "type", wherever it comes; text
    deltas go to the reply at once when name says what they are, else
    they wait in pieces (an event's delta is a few characters, bounded
    here) until the type is known. An item is kept whole (for the echo)
    while it may be a reasoning item; a message's content is never read
    (the deltas gave it)."""
    got = {}
    pend = []
    size = [0]
    text = name in _TEXT

    def piece(s):
        if text:
            (r.on_text if name == _TEXT[0] else r.on_refusal)(None, s)
            return
        size[0] += len(s)
        if size[0] > r.limit:
            raise StyleError("an event longer than %d characters" % r.limit)
        pend.append(s)

    if p.next() != jsonstream.OBJ:
        raise StyleError("an event that is not a JSON object")
    t = name
    while p.next() == jsonstream.KEY:
        k = p.value
        v = p.peek()
        if k == "type" and v == jsonstream.STR:
            k = p.read_value()
            t = name or k
        elif k == "delta" and v == jsonstream.STR:
            p.stream_string(piece)
        elif k == "item" and v == jsonstream.OBJ:
            got["item"] = _item(p, cur, piece)
            for f in ("type", "id", "call_id", "name"):
                got[f] = got["item"].get(f)
        elif k == "response" and v == jsonstream.OBJ:
            p.next()
            while p.next() == jsonstream.KEY:
                f = p.value
                if f == "status" or f == "error":
                    got[f] = p.read_value()
                elif f == "incomplete_details" and p.peek() == jsonstream.OBJ:
                    got["reason"] = (p.read_value() or {}).get("reason")
                elif f == "usage" and p.peek() == jsonstream.OBJ:
                    p.next()        # (its counts alone, as ints: ai.styles.tokens)
                    while p.next() == jsonstream.KEY:
                        u = p.value
                        if u == "input_tokens" or u == "output_tokens":
                            tokens((u,), p.read_value())
                        else:
                            p.skip_value()
                else:
                    p.skip_value()          # (the output and request echoed)
        elif k in ("output_index", "code", "message"):
            got[k] = p.read_value()
        else:
            p.skip_value()
    return t, got, pend


def _item(p, cur, piece):
    """An output item of an event as a dict: every member read but a
    message's content (skipped: the deltas gave it; a reasoning item's
    content is kept) and a call's arguments (to piece). Its type may come
    after its content: then the item being written (cur) tells."""
    item = {}
    p.next()
    while p.next() == jsonstream.KEY:
        k = p.value
        if k == "arguments" and p.peek() == jsonstream.STR:
            p.stream_string(piece)
        elif k == "content" and (item.get("type") or (cur and cur[0])) != "reasoning":
            p.skip_value()
        else:
            item[k] = p.read_value()
    return item
