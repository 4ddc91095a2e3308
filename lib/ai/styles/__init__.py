"""API styles: one module per wire format (openai, anthropic, gemini) plus
the text fallback. Each module exposes the same functions (see DESIGN.md and
the top of each module): request, read_reply(cfg, body, out),
read_stream(cfg, events, out), error_info, models_request, read_models.
This package holds what they share.

A reply's text goes to `out` (Out: bounded, streamed, kept or not) as the
style reads it; the style's Reply holds only calls, finish and the echo.
Message contents read back from a flash history may be jsonstream.RawFile
(an encoded JSON string in a file): styles pass them through as values and
call as_str() only where they must change one."""
import store

HELD = 16384        # characters a style holds in RAM: tool arguments, reasoning


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

    def text(self):
        """The kept text ("" when not kept); once."""
        return self.spool.text() if self.spool is not None else ""

    def drop(self):
        if self.spool is not None:
            self.spool.drop()


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


def as_str(v):
    """A message content as str: a jsonstream.RawFile from a flash history
    is read (see ai/history.py)."""
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    from ai import history
    return history.string(v)


def quote(s):
    """Percent-encode s for a URL query (RFC 3986 unreserved bytes kept;
    walks bytes: MicroPython interns every one-character str)."""
    out = bytearray()
    for b in s.encode():
        if 48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or b in b"-_.~":
            out.append(b)
        else:
            out.extend(("%%%02X" % b).encode())
    return out.decode()


def load(style):
    """Import a style module lazily: only the style in use costs RAM."""
    if style == "openai":
        from ai.styles import openai as m
    elif style == "anthropic":
        from ai.styles import anthropic as m
    elif style == "gemini":
        from ai.styles import gemini as m
    else:
        raise ValueError("unknown API style %r" % style)
    return m
