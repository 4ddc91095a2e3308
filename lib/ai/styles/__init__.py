"""API styles: one module per wire format (openai, responses, anthropic,
gemini) plus
the text fallback (text.py, which wraps any of them). This package holds
what they share; a new style is a module here that follows the contract
below, plus one line in load() and its catalogue entries (ai/catalog.py).

THE STYLE CONTRACT. The driver (ai/__init__.py) resolves the settings into
cfg (ai/config.py: provider, name, style, use, model, key, base_url,
max_tokens, temperature, system, timeout, thinking, thinking_map,
tools_level, max_reply, quirks, headers (extra request headers, e.g.
Copilot's), sources), sends, retries and words the errors; a style
only translates. A style module opens with its wire format and exposes:

  request(cfg, history, tools, stream) -> (url, headers, body)
      history: re-iterable messages in the internal vocabulary (README:
      Python API); iterate it lazily, it may be streamed from flash and is
      walked at least twice (a length-counting pass, then the write).
      tools: None or [{"name", "description", "parameters"}] (parameters may
      be jsonstream.Raw). body: a jsonstream value tree (dicts, lists,
      jsonstream.Array(factory) for long lists, Raw for pre-encoded JSON),
      never one big string. stream: True for the streaming endpoint.
  read_reply(cfg, body) -> Reply
      body: the 200 response (readinto); parse it with jsonstream from the
      socket, keep only what the Reply needs.
  read_stream(cfg, events, sink) -> Reply
      events: httpc.SSE of the 200 response (next() -> Event or None at the
      end; an Event has readinto); sink(piece) gets reply text as it
      arrives, never thinking text.
  error_info(status, body, headers) -> (message, retry_after_s, kind)
      for a non-200 reply; never raises on a garbage body; kind None |
      "key" | "model" | "blocked" steers the hint the driver adds.
  models_request(cfg, page_token) -> (url, headers)
  read_models(cfg, body, add) -> next page token or None
      add(model_id) per model of one page.

Errors: a reply that cannot be used (mid-stream error event, truncated
stream, a bound exceeded) raises StyleError with a message for a person
(the driver prefixes the provider); jsonstream.JSONError and
httpc.HTTPError pass through to the driver. Rarely used paths (error
bodies, model lists) live in <style>_more.py, imported on first use.

Memory rules: every text and argument bound comes from cfg["max_reply"]
(TextBuffer); nothing grows with the reply but what the caller asked to
keep; a parse buffer is reused across the events of one stream. Data the
provider needs echoed verbatim rides in the assistant turn's "_echo" dict
({"style": name, ...}) and is replayed only to the same style (and, where
the field is provider-specific, the same provider).
"""
from compat import quote  # noqa: F401  (URL query values: the *_more modules)


class StyleError(Exception):
    """A reply that cannot be used (mid-stream error, truncated stream, reply
    over its bound). The message is shown to a person after the provider's
    name."""


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


class TextBuffer:
    """Text pieces under a bound. Stream deltas are a few characters each
    and a str object costs far more than its characters, so every 32 small
    pieces are joined into one chunk; text() joins the chunks once."""

    def __init__(self, limit, what="reply"):
        self.chunks = []
        self.small = []
        self.size = 0
        self.limit = limit
        self.what = what

    def add(self, piece):
        if piece:
            self.size += len(piece)
            if self.size > self.limit:
                raise StyleError("%s longer than %d characters" % (self.what, self.limit))
            small = self.small
            small.append(piece)
            if len(small) >= 32:
                self.chunks.append("".join(small))
                self.small = []

    def text(self):
        if self.small:
            self.chunks.append("".join(self.small))
            self.small = []
        if len(self.chunks) > 1:
            self.chunks = ["".join(self.chunks)]
        return self.chunks[0] if self.chunks else ""


def load(style):
    """Import a style module lazily: only the style in use costs RAM."""
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
