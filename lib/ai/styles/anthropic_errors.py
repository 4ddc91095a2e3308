"""The rarely used half of the anthropic style (see anthropic.py for the
wire format): error replies and the model list. Imported on first use, so a
chat round does not pay for it."""
import jsonstream
from jsonstream import Stream
from ai.styles import MAX_ERROR, quote
from ai.styles.anthropic import _headers

PAGE = 100      # models per page (tests set it: one place, here)


class _Head:
    """Replays the first bytes already read, then the rest of the body."""

    def __init__(self, head, body):
        self.head = head
        self.pos = 0
        self.body = body

    def readinto(self, buf):
        n = len(self.head) - self.pos
        if n > 0:
            n = min(n, len(buf))
            buf[0:n] = self.head[self.pos:self.pos + n]
            self.pos += n
            return n
        return self.body.readinto(buf) if self.body else 0


def _snippet(head):
    """A short printable line from a non-JSON body (tags dropped)."""
    out = []
    tag = False
    space = False
    for b in head:
        ch = chr(b)
        if ch == "<":
            tag = True
        elif ch == ">":
            tag = False
            space = True
        elif tag:
            pass
        elif b <= 32 or b > 126:
            space = True
        else:
            if space and out:
                out.append(" ")
            space = False
            out.append(ch)
    return "".join(out)[:120]


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

    head = bytearray(256)
    n = 0
    try:
        while n < len(head):
            k = body.readinto(memoryview(head)[n:])
            if not k:
                break
            n += k
    except Exception:
        pass
    head = head[:n]
    try:
        jsonstream.select(_Head(head, body), {"error.message": Stream(msg),
                                               "error.type": etype,
                                               "message": Stream(msg)})
    except Exception:
        pass    # garbage or a truncated body: use what was found
    text = found.get("message") or found.get("top") or found.get("type")
    if not text:
        text = _snippet(head) or "no error message"
    if len(text) > MAX_ERROR:
        text = text[:MAX_ERROR - 3] + "..."
    t = found.get("type")
    kind = None
    if status in (401, 403) or t in ("authentication_error", "permission_error"):
        kind = "key"
    elif status == 404 or t == "not_found_error":
        kind = "model"
    return text, None, kind


# ---------------------------------------------------------------- models

def models_request(cfg, page_token):
    url = "%s/models?limit=%d" % (cfg["base_url"], PAGE)
    if page_token:
        url += "&after_id=" + quote(page_token)
    return url, _headers(cfg)


def read_models(cfg, body, add):
    """add(id) per model; returns the after_id of the next page or None."""
    st = {"last": None, "more": False, "last_id": None}

    def mid(path, v):
        if isinstance(v, str):
            st["last"] = v
            add(v)

    def more(path, v):
        st["more"] = v is True

    def last(path, v):
        if isinstance(v, str):
            st["last_id"] = v

    jsonstream.select(body, {"data[*].id": mid, "has_more": more, "last_id": last})
    if not st["more"]:
        return None
    return st["last_id"] or st["last"]
