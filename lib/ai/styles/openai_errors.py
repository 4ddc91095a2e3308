"""The rarely used half of the openai style (see openai.py for the wire
format): error replies and events, and the model list. Imported on first
use, so a chat round does not pay for it."""
import jsonstream
from compat import const
from ai.styles import MAX_ERROR
from ai.styles.oai import bearer_headers
from ai.styles.openai import _clip, _try_again

_HEAD = const(200)             # bytes of a non-JSON error body looked at


class _Tap:
    """Passes a body through to the parser, keeping its first bytes so a
    non-JSON error page can still be quoted."""

    def __init__(self, src):
        self.src = src
        self.head = bytearray(_HEAD)
        self.n = 0

    def readinto(self, buf):
        k = self.src.readinto(buf)
        if k and self.n < _HEAD:
            take = min(k, _HEAD - self.n)
            self.head[self.n:self.n + take] = buf[:take]
            self.n += take
        return k

    def text(self):
        """The kept bytes as text; bytes that are not UTF-8 are dropped."""
        raw = bytes(self.head[:self.n])
        out = []
        i = 0
        n = len(raw)
        while i < n:
            b = raw[i]
            k = 1 if b < 0x80 else 2 if 0xC2 <= b < 0xE0 else \
                3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF5 else 0
            if k == 1:
                if b >= 32 or b in (9, 10, 13):
                    out.append(chr(b))
            elif k:
                try:
                    out.append(raw[i:i + k].decode())
                    i += k
                    continue
                except UnicodeError:
                    pass
            i += 1
        return "".join(out)


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
    tap = _Tap(body)
    try:
        _scan_error(tap, found)
    except Exception:
        pass        # garbage, an HTML page, a cut body: quote it below
    msg = _found_message(found)
    if not msg:
        msg = _page_text(tap.text()) or "HTTP %d" % status
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


def _page_text(text):
    """A short readable line from a non-JSON body (HTML: its title)."""
    low = text.lower()
    i = low.find("<title>")
    if i >= 0:
        j = low.find("</title>", i)
        text = text[i + 7:j if j > 0 else len(text)]
    elif text.lstrip().startswith("<"):
        return ""
    return _clip(text)


def event_error(src):
    """The message of an SSE `error` event (its data from src)."""
    found = {}
    _scan_error(src, found)
    return _found_message(found) or "error event"


def read_models(cfg, body, add):
    """Call add(id) per model id; returns None (no further pages)."""
    def on(path, value):
        if isinstance(value, str):
            add(value)
    jsonstream.select(body, {"data[*].id": on}, max_value=1024)
    return None


def models_request(cfg, page_token):
    """(url, headers) of the model list (one page: the token is unused)."""
    return cfg["base_url"] + "/models", bearer_headers(cfg, "application/json")
