"""The anthropic style's error replies (the wire format is in
anthropic.py): an error body's message and kind. Imported on the first
error, so a chat round does not pay for it."""
import jsonstream
from jsonstream import Stream
from ai.errors import Head
from ai.styles import MAX_ERROR


def error_info(status, body, headers):
    """(message, retry_after_seconds or None, kind) for a non-200 reply."""
    found = {}

    def msg(path, piece):
        if isinstance(piece, str):
            key = "top" if len(path) == 1 else "message"
            m = found.get(key, "")
            if len(m) <= MAX_ERROR:
                found[key] = m + piece

    def etype(path, v):
        if isinstance(v, str):
            found["type"] = v[:60]

    head = Head(body)
    try:
        jsonstream.select(head, {"error.message": Stream(msg), "error.type": etype,
                                 "message": Stream(msg)})
    except Exception:
        pass    # garbage or a truncated body: use what was found
    text = found.get("message") or found.get("top") or found.get("type") or \
        head.line(MAX_ERROR) or "no error message"
    if len(text) > MAX_ERROR:
        text = text[:MAX_ERROR - 3] + "..."
    t = found.get("type")
    kind = None
    if status in (401, 403) or t in ("authentication_error", "permission_error"):
        kind = "key"
    elif status == 404 or t == "not_found_error":
        kind = "model"
    return text, None, kind
