"""The gemini style's error replies (the wire format is in gemini.py): an
error body's message, retry delay and kind, and the first line of an error
that came in a stream. Imported on the first error, so a chat round does
not pay for it."""
import jsonstream
from jsonstream import Stream
from ai.errors import Head
from ai.styles import MAX_ERROR, wire

HTTP_TEXT = {400: "bad request", 401: "unauthorized", 403: "permission denied",
             404: "not found", 429: "too many requests",
             500: "internal server error", 502: "bad gateway",
             503: "service unavailable", 504: "gateway timeout"}


def first_line(msg):
    """The first line of an error message, at most MAX_ERROR characters."""
    i = msg.find("\n")
    if i >= 0:
        msg = msg[:i].strip()
    return msg[:MAX_ERROR]


def _delay(v):
    """RetryInfo.retryDelay ("2s", "1.5s", "30.123s") -> seconds or None."""
    if not isinstance(v, str) or not v.endswith("s"):
        return None
    try:
        return float(v[:-1])
    except ValueError:
        return None


def error_info(status, body, headers):
    """(message, retry_after_seconds or None, kind) of an error reply; kind
    is None | "key" | "model" | "blocked". Never raises on a bad body."""
    st = {"msg": [], "status": None, "reasons": [], "retry": None, "n": 0}

    def on_msg(path, piece):
        if isinstance(piece, str) and st["n"] < MAX_ERROR:
            st["msg"].append(piece[:MAX_ERROR - st["n"]])
            st["n"] += len(piece)

    def on_status(path, v):
        st["status"] = v

    def on_reason(path, v):
        if isinstance(v, str) and len(st["reasons"]) < 8:
            st["reasons"].append(v)

    def on_delay(path, v):
        st["retry"] = _delay(v)

    rules = {"error.message": Stream(on_msg), "error.status": on_status,
             "error.details[*].reason": on_reason,
             "error.details[*].retryDelay": on_delay}
    head = Head(body)
    try:
        jsonstream.select(head, rules)
        msg = first_line("".join(st["msg"]).strip())
    except Exception:  # garbage, a cut body, a reset: quote what came
        msg = first_line("".join(st["msg"]).strip()) or head.line(MAX_ERROR)
    if not msg:
        msg = wire(st["status"] or HTTP_TEXT.get(status, ""))
    s = st["status"]
    kind = None
    if "API_KEY_INVALID" in st["reasons"] or status in (401, 403) or \
            s in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
        kind = "key"
    elif status == 404 or s == "NOT_FOUND":
        kind = "model"
    elif s == "FAILED_PRECONDITION":
        kind = "blocked"
    return msg, st["retry"], kind
