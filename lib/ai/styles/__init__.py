"""API styles: one module per wire format (openai, responses, anthropic,
gemini) plus the text fallback (text.py, which wraps any of them). This
package holds what they share; a new style is a module here that follows
the contract below, plus one line in load() and its catalogue entries
(ai/catalog.py).

THE STYLE CONTRACT. The driver (ai/__init__.py) resolves the settings into
cfg (ai/config.py: provider, name, style, use, model, key, base_url,
max_tokens, temperature, system, timeout, deadline, thinking,
thinking_map, tools_level, max_reply, quirks, headers (extra request
headers, e.g. Copilot's), sources), sends, retries and words the errors; a
style only translates. A style module opens with its wire format and
exposes:

  request(cfg, history, tools, stream) -> (url, headers, body)
      history: re-iterable messages in the internal vocabulary (lib/README.md:
      ai); iterate it lazily, it may be streamed from flash and is
      walked at least twice (a length-counting pass, then the write).
      Message contents read back from a flash history may be
      jsonstream.RawFile (an encoded JSON string in a file): pass them
      through as values, call as_str() only where one must change.
      tools: None or an iterable of {"name", "description", "parameters"}
      (parameters may be jsonstream.Raw / RawFile). body: a jsonstream
      value tree (dicts, lists, jsonstream.Array(factory) for long lists,
      Raw for pre-encoded JSON), never one big string. stream: True for the
      streaming endpoint.
  read_reply(cfg, body, out) -> Reply
      body: the 200 response (readinto); parse it with jsonstream from the
      socket, keep only what the Reply needs. The reply's text goes to
      out.add(piece) as it is read (output(cfg, out) gives the Out to use).
  stream(cfg, events, out, block=True) -> Reply, a step generator
      (compat.drive): events: httpc.SSE of the 200 response (next() ->
      Event or None at the end; an Event has readinto); with block False
      (the asyncio driver) it takes each event with `yield from
      events.take()` (an event there whole: its parse never waits);
      text pieces go to out as they arrive, never thinking text.
      read_stream = blocking(stream): the same, run here, waiting.
      The Reply (reply(out, calls, finish, echo)) holds only calls, finish
      and the echo; the driver fills in the text from its Out.
  error_info(status, body, headers) -> (message, retry_after_s, kind)
      for a non-200 reply; never raises on a garbage body; kind None |
      "key" | "model" | "blocked" steers the hint the driver adds.
  models_request(cfg, page_token) -> (url, headers)
  read_models(cfg, body, add) -> next page token or None
      add(model_id) per model of one page (ai/models.py's, named in the
      style's __getattr__ table).

Errors: a reply that cannot be used (mid-stream error event, truncated
stream, a bound exceeded) raises StyleError with a message for a person
(the driver prefixes the provider); jsonstream.JSONError and
httpc.HTTPError pass through to the driver. Error replies are read in
<style>_errors.py, which the style's module __getattr__ imports on the
first (a table: CONTRIBUTING.md, Loading lazily; style.error_info is found
there); they quote a page that is not JSON with ai.errors.Head.

Memory rules: a reply's text is never held by the style: it goes to the
Out (bounded by cfg["max_reply"], streamed, recorded by a flash history,
kept only for API callers that want a str); text a style must hold (tool
arguments, reasoning) is an Out(..., what=..., spill=False) bounded by
HELD; a parse buffer is reused across the events of one stream. Data the
provider needs echoed verbatim rides in the assistant turn's "_echo" dict
({"style": name, ...}) and is replayed only to the same style (and, where
the field is provider-specific, the same provider).
"""
import sys

import jsonstream
import store
from compat import collect, drive, quote  # noqa: F401  (quote: URL query values, for the styles' model lists)

HELD = 16384        # characters a style holds in RAM: tool arguments, reasoning
MAX_ERROR = 300     # characters of a service's error message kept


class StyleError(Exception):
    """A reply that cannot be used (mid-stream error, truncated stream, reply
    over its bound). The message is shown to a person after the provider's
    name. The driver raises it for its own errors too (network, HTTP), and
    ai.config.ConfigError (settings) is this class under another name."""


class Reply:
    """One model answer.

    text: reply text ("" when none); calls: [{"id","name","args"}] or None;
    finish: "stop" | "length" | "tool_calls" | "filter" | "blocked:<why>" |
    the provider's own word; turn: the assistant message to append to the
    history (content, tool_calls, and _echo for data the provider needs
    echoed back verbatim)."""

    def __init__(self, text, calls, finish, turn):
        self.text = text
        self.calls = calls or None
        self.finish = finish
        self.turn = turn


def assistant_turn(text, calls, echo=None):
    """The history entry for a reply in the internal vocabulary."""
    turn = {"role": "assistant", "content": text or ""}
    if calls:
        turn["tool_calls"] = calls
    if echo:
        turn["_echo"] = echo
    return turn


class Out:
    """Text that arrives in pieces, under a bound: each piece is counted
    against limit (characters; StyleError "<what> longer than ..." beyond),
    handed to sink and, with keep, kept in a store.Spool for text(). A
    reply's text (the driver's Out): streamed to the caller, recorded by a
    flash history, spooled to flash when long (API callers want a str);
    without keep nothing grows with it. Text a style holds (tool arguments,
    reasoning: Out(..., what=..., spill=False)) stays in RAM. ticks: a
    backtick came (the text fallback only looks for calls then)."""

    own = False     # made by the style itself (see output())
    ticks = False
    # the driver's reply while it streams, not kept in RAM: False until
    # the second piece has been handed on, then compat.stream_gc() is
    # called (by then what lives on while the text flows, the caller's
    # included, exists) and it is True
    stream_gc = None

    def __init__(self, limit, sink=None, keep=True, what="reply", spill=True):
        self.limit = limit
        self.sink = sink
        self.what = what
        self.size = 0
        self.spool = store.Spool(what, spill) if keep else None

    def add(self, piece):
        if piece:
            self.size += len(piece)
            if self.size > self.limit:
                raise StyleError("%s longer than %d characters" % (self.what, self.limit))
            if not self.ticks and "`" in piece:
                self.ticks = True
            if self.spool is not None:
                self.spool.add(piece)
            if self.sink is not None:
                self.sink(piece)
            if self.stream_gc is False and self.size > len(piece):
                from compat import stream_gc
                stream_gc()
                self.stream_gc = True

    def text(self):
        """The kept text ("" when not kept); once."""
        return self.spool.text() if self.spool is not None else ""

    def drop(self):
        if self.spool is not None:
            self.spool.drop()


def blocking(stream):
    """A style's read_stream(cfg, events, out) -> Reply: its step generator
    stream(cfg, events, out, block) run here, waiting (compat.drive)."""
    def read_stream(cfg, events, out):
        return drive(stream(cfg, events, out))
    return read_stream


def output(cfg, out):
    """The Out a style reads into: the driver's, or for a style used on its
    own (out a stream sink or None) one of its own that keeps the text, which
    the style's Reply then carries (see reply())."""
    if isinstance(out, Out):
        return out
    out = Out(cfg.get("max_reply") or HELD, out)
    out.own = True
    return out


def reply(out, calls, finish, echo=None):
    """A style's Reply. Its text (and the turn's content) are filled in here
    only when the style made out itself; the driver fills them after the
    response is closed (ai.ask)."""
    text = out.text() if out.own else ""
    return Reply(text, calls, finish, assistant_turn(text, calls, echo))


def wire(v):
    """A content as it goes on the wire: str, or a flash history's RawFile
    passed through."""
    return v if isinstance(v, (str, jsonstream.RawFile)) else str(v)


def json_ok(s, chk=None):
    """True when the str s is one JSON value (walked, nothing built). chk =
    [cursor, verdict...] of one request: the body's first pass (the length
    count, which holds no write buffer) parses each text once, the next
    passes (the writer sets chk[0] = 0 before each) reuse the verdicts in
    the same order, so no parser adds to the heap while the body is sent."""
    if chk is not None:
        n = chk[0] = chk[0] + 1
        if n < len(chk):
            return chk[n]
    try:
        p = jsonstream.Parser(s)
        p.skip_value()
        p.finish()
        ok = True
    except (ValueError, MemoryError):
        ok = False
    if chk is not None:
        chk.append(ok)
    return ok


def as_str(v):
    """A message content as str: a jsonstream.RawFile from a flash history
    is read (see ai/history.py)."""
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    from ai import history
    return history.string(v)


# The last request and its token usage, where the service reports it:
# [use, provider, model, tokens in, tokens out (None: not reported), error
# (None: it got a reply; else why not, clipped)]. The driver names the
# request before it is sent and sets its outcome; a style's select() rules
# hand each count to tokens() (`ai status` shows them). The list lives in store, which
# stays loaded: the console forgets ai.* between commands.
from store import LAST_REQUEST as LAST  # noqa: E402


def tokens(path, n):
    """A select() handler for one count of a reply's usage, any style's
    name (OpenAI prompt_tokens/completion_tokens, Anthropic and Responses
    input_tokens/output_tokens, Gemini promptTokenCount/
    candidatesTokenCount): the ints alone are read, never the usage object
    (it comes at the end of a reply, when the heap is fullest); a later
    count of the same reply (a cumulative one) replaces an earlier one."""
    if isinstance(n, int) and not isinstance(n, bool):
        LAST[4 if path[-1] in ("completion_tokens", "output_tokens",
                               "candidatesTokenCount") else 3] = n


def load(style):
    """Import a style module lazily: only the style in use costs RAM."""
    m = sys.modules.get("ai.styles." + style)
    if m is not None:
        return m
    # its code lives on: garbage is collected first so that it goes low in
    # the heap, not into the free top that the str of a long reply needs in
    # one block (tools/bench/MEASUREMENTS.md: the str replies)
    collect()
    if style == "openai":
        from ai.styles import openai as m
    elif style == "anthropic":
        from ai.styles import anthropic as m
    elif style == "gemini":
        from ai.styles import gemini as m
    elif style == "responses":
        from ai.styles import responses as m
    else:
        raise ValueError("unknown API style %r" % style)
    return m
