"""API styles: one module per wire format (openai, anthropic, gemini) plus
the text fallback. Each module exposes the same functions (see DESIGN.md and
the top of each module): request, read_reply, read_stream, error_info,
models_request, read_models. This package holds what they share."""


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
    """Collects reply text pieces under a bound without repeated string
    concatenation; join() once at the end."""

    def __init__(self, limit):
        self.parts = []
        self.size = 0
        self.limit = limit

    def add(self, piece):
        if piece:
            self.size += len(piece)
            if self.size > self.limit:
                raise StyleError("reply longer than %d characters" % self.limit)
            self.parts.append(piece)

    def text(self):
        s = "".join(self.parts)
        self.parts = [s] if s else []
        return s


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
