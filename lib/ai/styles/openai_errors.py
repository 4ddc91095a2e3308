"""The error replies of the two OpenAI styles (the wire format is in
openai.py): an error body's message, retry hint and kind, and the message
of a stream's `error` event. Imported on the first error, so a chat round
does not pay for it."""
import jsonstream
from ai.errors import Head
from ai.styles import MAX_ERROR
from ai.styles.openai import _clip, _try_again


def _clip_string(p):
    """The string value at the cursor, at most MAX_ERROR characters kept
    (the rest is read and dropped)."""
    parts = []
    size = [0]

    def sink(piece):
        if size[0] <= MAX_ERROR:
            parts.append(piece)
            size[0] += len(piece)
    p.stream_string(sink)
    return _clip("".join(parts))


def _scan_error(src, found):
    """Walk an error document with the pull parser, keeping only
    error.message/code/type, a string `error`, or a top-level
    message/detail string (FastAPI-style servers)."""
    p = jsonstream.Parser(src, max_value=1024)
    ev = p.peek()
    if ev == jsonstream.STR:
        found["error"] = _clip_string(p)
        return
    if p.next() != jsonstream.OBJ:
        return
    while p.next() == jsonstream.KEY:
        k = p.value
        t = p.peek()
        if k == "error" and t == jsonstream.STR:
            found["error"] = _clip_string(p)
        elif k == "error" and t == jsonstream.OBJ:
            p.next()
            while p.next() == jsonstream.KEY:
                k = p.value
                if k in ("message", "code", "type") and p.peek() == jsonstream.STR:
                    found[k] = _clip_string(p)
                else:
                    p.skip_value()
        elif k in ("message", "detail") and t == jsonstream.STR:
            found["top:" + k] = _clip_string(p)
        else:
            p.skip_value()


def _found_message(found):
    for k in ("message", "error", "top:message", "top:detail", "code", "type"):
        if found.get(k):
            return found[k]
    return ""


def error_info(status, body, headers):
    """(message, retry_after_seconds or None, kind) from an error reply.
    Never raises: garbage or an HTML page is quoted (its title)."""
    found = {}
    head = Head(body)
    try:
        _scan_error(head, found)
    except Exception:
        pass        # garbage, an HTML page, a cut body: quote it below
    msg = _found_message(found) or _clip(head.line(MAX_ERROR)) or "HTTP %d" % status
    code = found.get("code") or ""
    kind = None
    if status == 401 or code in ("invalid_api_key", "invalid_authentication"):
        kind = "key"
    elif status == 404 or code == "model_not_found":
        kind = "model"
    elif code in ("content_filter", "content_policy_violation"):
        kind = "blocked"
    retry = _try_again(msg) if status == 429 else None
    return msg, retry, kind


def event_error(src):
    """The message of an SSE `error` event (its data from src)."""
    found = {}
    _scan_error(src, found)
    return _found_message(found) or "error event"
