"""API styles: one module per wire format (openai, anthropic, gemini) plus
the text fallback. Each module exposes the same functions (see DESIGN.md and
the top of each module): request, read_reply, read_stream, error_info,
models_request, read_models. This package holds what they share."""
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
    else:
        raise ValueError("unknown API style %r" % style)
    return m
