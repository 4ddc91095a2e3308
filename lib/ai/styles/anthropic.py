"""Anthropic Messages API style (the `anthropic` style of lib/ai).

Wire format spoken here (anthropic-version 2023-06-01):

  POST {base}/messages   headers x-api-key, anthropic-version,
                         content-type: application/json
                         (+ accept: text/event-stream when streaming)
  {"model", "max_tokens" (required: the setting, else the catalogue's 8192;
               with thinking on, the budget is added when it is not more),
   "system": str,
   "messages": [{"role": "user"|"assistant", "content": [block, ...]}],
   "tools": [{"name", "description", "input_schema"}],
   "thinking": {"type": "enabled", "budget_tokens": N} | {"type": "disabled"}
               | {"type": "adaptive"} (a preset's thinking map "adaptive"),
   "temperature" (not with thinking on), "stream": true,
   "output_config": {"format": {"type": "json_schema", "schema"}}, or a
   forced tool: "tool_choice": {"type": "tool", "name"} | {"type": "any"},
   "disable_parallel_tool_use": true (a schema: ai/schema.py; the forced
   tool's input, whole or as input_json_delta pieces, is the reply's text)}

  Blocks: {"type":"text","text"}, {"type":"tool_use","id","name","input":{}},
  {"type":"tool_result","tool_use_id","content","is_error"?},
  files (ai/files.py), each after a text block "[file /photo.jpg, 48 KB,
  image/jpeg]": {"type":"image","source":{"type":"base64","media_type",
  "data"}}, {"type":"document","source":{...base64...}} (PDF),
  {"type":"document","source":{"type":"text","media_type":"text/plain",
  "data"}} (a text file); a user message's before its text, a tool
  result's in its content list after its text,
  {"type":"thinking","thinking","signature"}, {"type":"redacted_thinking",
  "data"}. Roles must alternate, so consecutive internal messages of one
  wire role are merged into one message: tool results (internal role
  "tool") become tool_result blocks of ONE user message, placed first.
  System messages at the head of the history join cfg["system"] (cfg
  first) in the top-level "system"; a later system message is sent as user
  text (the wire has no system role).

  Reply: {"content": [blocks], "stop_reason": end_turn|max_tokens|
  stop_sequence|tool_use|pause_turn|refusal, ...}. Finish mapping:
  end_turn/stop_sequence -> stop, max_tokens -> length, tool_use ->
  tool_calls, refusal -> filter, others raw.

  Stream: SSE events named like data.type: message_start,
  content_block_start {index, content_block}, content_block_delta {index,
  delta: text_delta.text | input_json_delta.partial_json | thinking_delta.
  thinking | signature_delta.signature}, content_block_stop, message_delta
  {delta.stop_reason}, message_stop (terminal), ping, error {error:{type,
  message}} (possible after HTTP 200). redacted_thinking blocks arrive whole
  in content_block_start.

  Errors: {"type":"error","error":{"type","message"}}; 401
  authentication_error / 403 permission_error -> kind "key", 404
  not_found_error -> kind "model". No retry hint in the body (the driver
  reads retry-after headers).

  Models: GET {base}/models?limit=N[&after_id=ID] -> {"data":[{"id",...}],
  "has_more", "first_id", "last_id"}; the next page token is last_id
  (read in ai/models.py).

Echo (history["_echo"]): only when a reply holds tool_use blocks AND
thinking or redacted_thinking blocks, the whole content array is kept as
{"style": "anthropic", "blocks": "<block>,<block>,..."}: the blocks' JSON
text joined by commas (no brackets) so that it is written verbatim, as one
jsonstream.Raw element, into the content list of the assistant message
(thinking text and signatures unchanged, in their original order, as the
service demands for the turn whose tool results follow). Thinking of a
reply without tool calls is dropped (the service ignores thinking blocks
of earlier turns), and replies without thinking carry no echo: text and
tool_use blocks are rebuilt from content/tool_calls, which saves a second
copy of the text in RAM and on flash. Tool call args = the tool_use input
as JSON text (non-stream: the input object re-serialized; stream: the
concatenated partial_json; sent back as the args text itself when it is
one JSON object, else {}). Tool ids other styles made (e.g. Kimi's
"functions.get_weather:0") are mapped to the id alphabet [a-zA-Z0-9_-] on
both the tool_use and the tool_result side.

Memory: stream events are parsed with jsonstream.select (one compiled rule
set and one buffer for all events), a whole reply with a walk of the pull
parser (no rule set to build: the heap peaks while a reply is read); text
pieces go to the driver's Out as they arrive (cfg["max_reply"] characters;
a text block is also held only once thinking was seen, for the echo),
thinking and argument strings are held under bounds (cfg["max_reply"], at
most ai.styles.HELD, for all tool arguments and for thinking; MAX_OPAQUE
for signatures and redacted data); nothing else is materialized. A
request's tool-call
arguments are checked (one JSON object?) in the body's first pass only, the
length count (see _input).
"""
import jsonstream
from compat import lazy
from jsonstream import Array, Raw, Stream
from ai.styles import (HELD, MAX_ERROR, Out, StyleError, blocking, output, reply as _reply, as_str, tokens,
                       wire as _str, json_ok)

VERSION = "2023-06-01"
MAX_OPAQUE = 32768          # signatures / redacted data kept for the echo
ID_OK = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


# ---------------------------------------------------------------- request

def key_headers(cfg):
    h = {"anthropic-version": VERSION}
    if cfg.get("key"):
        h["x-api-key"] = cfg["key"]
    return h


def request(cfg, history, tools, stream):
    """(url, headers, body value tree) for one messages request."""
    headers = key_headers(cfg)
    headers["content-type"] = "application/json"
    if stream:
        headers["accept"] = "text/event-stream"
    chk = [0]       # see _input
    body = {"model": cfg["model"],
            "messages": Array(lambda: _messages(cfg, history, chk))}
    system = _system(cfg, history)
    if system:
        body["system"] = system
    max_tokens = cfg["max_tokens"]      # (set: the catalogue has a default)
    think = cfg.get("thinking")
    tmap = cfg.get("thinking_map")     # a preset's: budget | adaptive | none
    if tmap == "none":
        think = None
    # thinking word -> budget_tokens ("minimal" turns thinking off: the
    # cheapest answer; the service's smallest budget is 1024); tables are
    # built per call, not kept at import
    budget = {"low": 1024, "medium": 4096, "high": 16384, "max": 32000}.get(think)
    thinking_on = budget is not None
    if think == "minimal":
        body["thinking"] = {"type": "disabled"}
    elif thinking_on and tmap == "adaptive":
        body["thinking"] = {"type": "adaptive"}     # the model sizes it
    elif thinking_on:
        if max_tokens <= budget:        # the service wants max_tokens > budget:
            max_tokens += budget        # the answer keeps its own after the thinking
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    body["max_tokens"] = max_tokens
    # with thinking on the service only accepts the default temperature
    if cfg.get("temperature") is not None and not thinking_on:
        body["temperature"] = cfg["temperature"]
    if tools and cfg.get("tools_level", "native") == "native":
        body["tools"] = Array(lambda: (_tool(t) for t in tools))
    if cfg.get("schema"):
        cfg["schema"].body(body)     # (ai/schema.py: output_config, or a forced tool)
    if stream:
        body["stream"] = True
    return cfg["base_url"] + "/messages", headers, body


def _tool(t):
    schema = t.get("parameters") or {"type": "object", "properties": {}}
    out = {"name": t["name"], "input_schema": schema}
    if t.get("description"):
        out["description"] = t["description"]
    return out


def _system(cfg, history):
    """cfg["system"] then the system messages that open the history."""
    parts = []
    if cfg.get("system"):
        parts.append(cfg["system"])
    for m in history:
        if m.get("role") != "system":
            break
        if m.get("content"):
            parts.append(as_str(m["content"]))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else "\n\n".join(parts)


def _tid(s):
    """A tool id in the alphabet the service accepts (same map both ways).
    Checked by bytes: MicroPython interns every one-character str."""
    s = _str(s or "")
    for b in s.encode():
        if not (97 <= b <= 122 or 65 <= b <= 90 or 48 <= b <= 57 or b == 95 or b == 45):
            return "".join(ch if ch in ID_OK else "_" for ch in s)
    return s or "toolu_none"


def _input(args, chk=None):
    """tool_use input for a call's args text: the text itself (Raw) when it
    is one JSON object, else {} (the model's invalid JSON cannot go on the
    wire; its tool result already told it so). chk: see styles.json_ok."""
    if isinstance(args, dict):
        return args
    if not isinstance(args, str):
        return {}
    s = args.strip()
    return Raw(s) if s.startswith("{") and json_ok(s, chk) else {}


def _messages(cfg, history, chk):
    """Yields wire messages: internal messages merged per wire role."""
    chk[0] = 0
    role = None
    results = []   # tool_result blocks of the current user message (first)
    blocks = []    # other blocks of the current message
    lead = True
    for m in history:
        r = m.get("role")
        if r == "system" and lead:
            continue            # went to the top-level system
        lead = False
        if r == "assistant":
            wire, new = "assistant", _assistant_blocks(m, chk)
        elif r == "tool":
            wire, new = "user", None
            block = {"type": "tool_result", "tool_use_id": _tid(m.get("tool_call_id"))}
            if m.get("content"):
                block["content"] = _str(m["content"])
            if m.get("files"):      # (a tool's picture: in its result)
                block["content"] = file_blocks(cfg, m, m.get("content"))
            if m.get("is_error"):
                block["is_error"] = True
        else:                   # user, or a system message mid-history
            wire = "user"
            c = m.get("content")
            new = [{"type": "text", "text": _str(c)}] if c else None
            if new and r == "system":
                new[0]["text"] = "[system] " + as_str(c)
            if m.get("files"):
                new = file_blocks(cfg, m, c)
        if r != "tool" and not new:
            continue            # the service refuses empty text blocks
        if wire != role and (results or blocks):
            yield {"role": role, "content": results + blocks}
            results, blocks = [], []
        role = wire
        if r == "tool":
            results.append(block)
        else:
            blocks.extend(new)
    if results or blocks:
        yield {"role": role, "content": results + blocks}


def file_blocks(cfg, m, text=None):
    """The blocks of message m's files (ai/files.py: a label, then the
    picture, PDF or text document), then text: the one place that writes
    them."""
    from ai import files
    out = []
    for label, _, mime, v in files.parts(cfg, m):
        out.append({"type": "text", "text": label})
        if v is None:
            continue
        if mime == files.TEXT:
            src = {"type": "text", "media_type": mime, "data": v}
        else:
            src = {"type": "base64", "media_type": mime, "data": v}
        out.append({"type": "image" if mime.startswith("image/") else "document", "source": src})
    if text:
        out.append({"type": "text", "text": _str(text)})
    return out


def _assistant_blocks(m, chk):
    echo = m.get("_echo")
    if isinstance(echo, dict) and echo.get("style") == "anthropic" and echo.get("blocks"):
        # the original content blocks, comma-joined JSON: one Raw element
        return [Raw(echo["blocks"])]
    out = []
    if m.get("content"):
        out.append({"type": "text", "text": _str(m["content"])})
    for c in m.get("tool_calls") or ():
        out.append({"type": "tool_use", "id": _tid(c.get("id")),
                    "name": c.get("name") or "", "input": _input(c.get("args"), chk)})
    return out


# ---------------------------------------------------------------- replies

class _Block:
    def __init__(self):
        self.type = None
        self.parts = Out(1 << 30, None, True, "block", False)   # text / thinking / partial_json
        # pieces (bounds are counted per kind in _Content.count)
        self.sig = []       # signature pieces
        self.id = None
        self.name = None
        self.args = None    # tool input as JSON text (non-stream)


class _Content:
    """The content blocks of one reply, assembled under bounds. Text goes
    to out; a block keeps its text too only once thinking was seen (for the
    echo, see the top)."""

    def __init__(self, cfg, out):
        self.out = out
        self.limit = min(cfg.get("max_reply") or HELD, HELD)
        s = cfg.get("schema")
        self.answer = s and s.tool      # a forced tool's name: its input is the reply
        self.thinking = False
        self.blocks = {}
        self.order = []
        self.sizes = {}
        self.finish = None

    def block(self, i):
        b = self.blocks.get(i)
        if b is None:
            b = self.blocks[i] = _Block()
            self.order.append(i)
        return b

    def count(self, what, n, limit):
        size = self.sizes.get(what, 0) + n
        if size > limit:
            if what == "thinking":
                raise StyleError("thinking longer than %d characters (lower the "
                                 "thinking setting)" % limit)
            raise StyleError("%s longer than %d characters" % (what, limit))
        self.sizes[what] = size

    def add(self, i, what, piece):
        """Append a piece to block i; what: text|thinking|args|opaque."""
        if not piece:
            return
        if what == "args" and self.answer and self.block(i).name == self.answer:
            what = "text"
        if what == "text":
            self.out.add(piece)
            if not self.thinking:
                return
        elif what == "opaque":
            self.count(what, len(piece), MAX_OPAQUE)
        else:
            self.count(what, len(piece), self.limit)
        if what != "args":
            self.thinking = True
        b = self.block(i)
        if what == "opaque":
            b.sig.append(piece)
        else:
            b.parts.add(piece)

    def reply(self):
        """The Reply: calls, finish and the history turn (+ echo); the text
        went to out."""
        calls = []
        echo = False
        for i in self.order:
            b = self.blocks[i]
            t = b.type
            if t == "tool_use" and self.answer and b.name == self.answer:
                self.out.add(b.args)    # (a whole reply's; a stream's came as text)
                continue
            if t == "tool_use":
                if b.args is None:
                    b.args = b.parts.text() or "{}"
                b.parts = None
                calls.append({"id": b.id or "", "name": b.name or "", "args": b.args})
            elif t == "thinking" or t == "redacted_thinking":
                echo = True
        turn_echo = None
        if echo and calls:      # see "Echo" at the top
            turn_echo = {"style": "anthropic", "blocks": self._echo_blocks()}
        finish = self.finish
        table = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                 "tool_use": "tool_calls", "refusal": "filter",
                 "model_context_window_exceeded": "length"}
        if finish in table:
            finish = table[finish]
        elif finish is None:
            finish = "tool_calls" if calls else "stop"
        if finish == "tool_calls" and not calls:
            finish = "stop"             # (the forced tool's answer)
        calls = calls or None
        return _reply(self.out, calls, finish, turn_echo)

    def _echo_blocks(self):
        out = []
        for i in self.order:
            b = self.blocks[i]
            t = b.type
            if t == "text":
                v = {"type": "text", "text": b.parts.text()}
                if not v["text"]:
                    continue
            elif t == "thinking":
                v = {"type": "thinking", "thinking": b.parts.text(),
                     "signature": "".join(b.sig)}
            elif t == "redacted_thinking":
                v = {"type": "redacted_thinking", "data": "".join(b.sig)}
            elif t == "tool_use":
                v = {"type": "tool_use", "id": b.id or "", "name": b.name or "",
                     "input": _input(b.args)}
            else:
                continue        # server-side blocks are not ours to replay
            out.append(jsonstream.dumps(v))
        return ",".join(out)


def _block(p, c, i):
    """The members of content block i (the parser is inside its object)."""
    while p.next() == jsonstream.KEY:
        k = p.value
        if k == "input":
            b = c.block(i)
            b.args = jsonstream.dumps(p.read_value())
            c.count("args", len(b.args), c.limit)
        elif p.peek() != jsonstream.STR:
            p.skip_value()
        elif k == "type" or k == "id" or k == "name":
            setattr(c.block(i), k, p.read_value())
        elif k == "text" or k == "thinking" or k == "signature" or k == "data":
            what = k if k == "text" or k == "thinking" else "opaque"
            p.stream_string(lambda piece: c.add(i, what, piece))
        else:
            p.skip_value()


def read_reply(cfg, body, out=None):
    """Parse a whole (non-stream) messages reply from body.readinto: a walk
    with the pull parser (content[*] blocks and stop_reason; everything
    else skipped unread), lighter than select() rules."""
    c = _Content(cfg, output(cfg, out))
    J = jsonstream
    p = J.Parser(body, max_value=max(16384, c.limit))
    if p.peek() != J.OBJ:
        p.skip_value()
    else:
        p.next()
        while p.next() == J.KEY:
            k = p.value
            if k == "stop_reason":
                c.finish = p.read_value()
            elif k == "content" and p.peek() == J.ARR:
                p.next()
                i = 0
                while p.peek() != J.END_ARR:
                    if p.peek() == J.OBJ:
                        p.next()
                        _block(p, c, i)
                    else:
                        p.skip_value()
                    i += 1
                p.next()
            else:
                p.skip_value()
    p.finish()
    return c.reply()


def stream(cfg, events, out, block=True):
    """Read an SSE messages stream; out (an Out, or a sink) gets reply
    text as it comes. A step generator (ai.styles: the style contract)."""
    c = _Content(cfg, output(cfg, out))
    ev = {}     # fields of the event being parsed
    got = []    # (what, piece) of the event, routed once its index is known

    def val(path, v):
        k = path[-1]
        if k == "type" and len(path) == 2:
            k = "btype" if path[0] == "content_block" else "etype"
        elif k == "stop_reason":
            k = "stop"
        ev[k] = v

    def piece(path, p):
        if not isinstance(p, str) or not p:
            return
        k = path[-1]
        if k == "message":          # error.message
            m = ev.get("message", "")
            if len(m) < MAX_ERROR:
                ev["message"] = m + p
            return
        if k == "partial_json":
            k = "args"
        elif k != "thinking" and k != "text":
            k = "opaque"            # signature, data
        got.append((k, p))

    # one rule set for every event (each names itself in data.type); the
    # field name at the end of the path says what a value is
    s = Stream(piece)
    B, D = "content_block.", "delta."     # see read_reply
    rules = jsonstream.Rules({
        "type": val, "index": val, "error.type": val, D + "stop_reason": val,
        B + "type": val, B + "id": val, B + "name": val, B + "input": val,
        B + "text": s, B + "thinking": s, B + "signature": s, B + "data": s,
        D + "text": s, D + "thinking": s, D + "signature": s,
        D + "partial_json": s, "error.message": s,
        # tokens in (message_start), out (message_delta: the count so far)
        "message.usage.input_tokens": tokens, "usage.output_tokens": tokens})
    buf = bytearray(256)    # one parse buffer for every event
    done = False
    while True:
        e = events.next() if block else (yield from events.take())
        if e is None:
            break
        if done or e.empty:
            continue            # nothing after message_stop matters
        ev.clear()
        got.clear()
        jsonstream.select(e, rules, max_value=MAX_OPAQUE, buf=buf)
        t = ev.get("type") or e.event
        if t == "error":
            msg = ev.get("message") or "stream error"
            if ev.get("etype"):
                msg = "%s: %s" % (ev["etype"], msg)
            raise StyleError(msg[:MAX_ERROR])
        if t == "message_stop":
            done = True
            continue
        if t == "message_delta":
            if ev.get("stop"):
                c.finish = ev["stop"]
            continue
        i = ev.get("index")
        if not isinstance(i, int) or isinstance(i, bool):
            continue            # message_start, ping, unknown events
        if t == "content_block_start":
            b = c.block(i)
            b.type = ev.get("btype")
            b.id = ev.get("id")
            b.name = ev.get("name")
            if isinstance(ev.get("input"), dict) and ev["input"]:
                b.args = jsonstream.dumps(ev["input"])  # whole input, no deltas
        for what, piece in got:
            c.add(i, what, piece)
    if not done:
        raise StyleError("stream ended early")
    return c.reply()


read_stream = blocking(stream)


# the error replies and the model list, imported on first use
# (CONTRIBUTING.md: Loading lazily)
__getattr__ = lazy((("error_info", "ai.styles.anthropic_errors"), ("models_request", "ai.models"),
                    ("read_models", "ai.models")))
