"""The error replies of the two OpenAI styles (the wire format is in
openai.py): an error body's message, retry hint and kind, the message of
a stream's `error` event and of an error in a reply. Imported on the first
error, so a chat round does not pay for it."""
import jsonstream
from ai.errors import Head
from ai.styles import MAX_ERROR


def error_text(err):
    """Message text from an error value in a reply: a dict with
    message/code/type, or a string."""
    if isinstance(err, dict):
        msg = err.get("message")
        if not isinstance(msg, str) or not msg:
            msg = err.get("code") or err.get("type") or ""
            msg = msg if isinstance(msg, str) else ""
        return _clip(msg)
    if isinstance(err, str):
        return _clip(err)
    return ""


def _clip(s):
    s = " ".join(s.split())
    if len(s) > MAX_ERROR:
        s = s[:MAX_ERROR - 3] + "..."
    return s


def _try_again(msg):
    """Seconds from "... try again in 1.5s" / "in 20ms" / "in 2m3.5s"."""
    i = msg.find("try again in ")
    if i < 0:
        return None
    s = msg[i + 13:]
    total = 0.0
    num = ""
    seen = False
    j = 0
    while j < len(s):
        ch = s[j]
        if ch.isdigit() or ch == ".":
            num += ch
        elif num and s[j:j + 2] == "ms":
            total += float(num) / 1000
            num, seen = "", True
            j += 1
        elif num and ch in "hms":
            total += float(num) * (3600 if ch == "h" else 60 if ch == "m" else 1)
            num, seen = "", True
        else:
            break
        j += 1
    return total if seen else None


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
