"""What the two OpenAI styles share (openai.py: chat completions,
responses.py: Responses), imported with either: the request headers, the
reasoning effort word, a tool result's text, and the way to their error
replies (openai_errors.py) and model list (ai/models.py: GET {base}/models
-> {"data": [{"id"}, ...]}, one page), which both import as their module
__getattr__ (its table). Anthropic and Gemini chats do not pay for it.
A stream's `data: [DONE]` is spotted with Event.startswith (httpc.sse),
which looks at the reader's buffer: nothing is read ahead or copied."""
from compat import lazy

# (CONTRIBUTING.md: Loading lazily)
__getattr__ = lazy((("error_info", "ai.styles.openai_errors"), ("models_request", "ai.models"),
                    ("read_models", "ai.models")))


def bearer_headers(cfg, accept):
    """Request headers of the OpenAI-shaped styles: the key as a bearer
    token (none without a key, e.g. Ollama) and cfg["headers"] (Copilot's)."""
    h = {"Content-Type": "application/json", "Accept": accept}
    if cfg.get("key"):
        h["Authorization"] = "Bearer " + cfg["key"]
    if cfg.get("headers"):
        h.update(cfg["headers"])
    return h


def effort(cfg):
    """The reasoning effort word for cfg["thinking"] (chat completions'
    reasoning_effort, Responses' reasoning.effort), or None to send none:
    the nearest word the model's family takes (ai/catalog.py EFFORTS); a
    preset's thinking map "none" sends none."""
    word = cfg.get("thinking")
    if not word or cfg.get("thinking_map") == "none":
        return None
    from ai import catalog
    words = catalog.efforts(cfg["provider"], cfg.get("model") or "")
    return catalog.nearest(word, words) if words else None


def refused(r, piece):
    """A piece of a refusal for reader r (its on_text, refusal): the
    reply's text, but where a schema asks for JSON (ai/schema.py) the
    finish "refused:<its text>", which the reader sets."""
    if not r.cfg.get("schema"):
        r.on_text(None, piece)
    elif isinstance(piece, str):
        from ai.styles import MAX_ERROR
        r.refusal = ((r.refusal or "") + piece)[:MAX_ERROR]


def tool_output(m):
    """A tool message's text for the wire: neither OpenAI style has an
    error flag, so an error result starts with "Error"."""
    out = m.get("content") or ""
    if m.get("is_error") is True:
        from ai.styles import as_str
        out = as_str(out)           # (a file-backed one is read)
        if not out.startswith("Error"):
            out = "Error: " + out
    return out


