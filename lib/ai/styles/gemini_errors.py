"""The rarely used half of the gemini style (see gemini.py for the wire
format): the thinking tables, error replies and the model list. Imported on
first use, so a chat round does not pay for it."""
import jsonstream
from jsonstream import Stream
from ai.styles import quote
from ai.styles.gemini import MAX_ERROR, _generation, _headers, _model, _str

PAGE = 1000               # models per page (the service's maximum; tests set it)
# gemini-2.5: thinking word -> thinkingBudget (flash may switch it off: 0)
BUDGET = {"minimal": 0, "low": 1024, "medium": 8192, "high": 16384, "max": 24576}
BUDGET_PRO = {"minimal": 128, "low": 1024, "medium": 8192, "high": 16384, "max": 32768}
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


def thinking(cfg):
    """generationConfig.thinkingConfig for cfg["thinking"] (see gemini.py)."""
    word = cfg.get("thinking")
    tmap = cfg.get("thinking_map")      # a preset's: budget | level | none
    if not word or tmap == "none":
        return None
    gen = 2.5 if tmap == "budget" else 3 if tmap == "level" else _generation(cfg)
    m = _model(cfg).lower()
    if gen == 2.5:
        table = BUDGET_PRO if "-pro" in m else BUDGET
        return {"thinkingBudget": table.get(word, BUDGET["medium"])}
    if gen == 3:        # the words of the model's family (ai/catalog.py EFFORTS)
        from ai import catalog
        words = catalog.efforts(cfg["provider"], m)
        return {"thinkingLevel": catalog.nearest(word, words)} if words else None
    return None


class _Head:
    """Passes readinto through and keeps the first bytes, to quote a body
    that is not JSON."""

    def __init__(self, body, n=160):
        self.body = body
        self.head = bytearray()
        self.n = n

    def readinto(self, buf):
        got = self.body.readinto(buf)
        if got and len(self.head) < self.n:
            self.head.extend(bytes(buf[:min(got, self.n - len(self.head))]))
        return got

    def more(self):
        """Read on until the head is full (a body that is not JSON)."""
        buf = bytearray(64)
        try:
            while len(self.head) < self.n and self.readinto(buf):
                pass
        except Exception:
            pass


def _snippet(raw):
    """Printable text of the first bytes of a body (cut UTF-8 tolerated)."""
    for cut in range(4):
        try:
            s = bytes(raw[:len(raw) - cut]).decode()
            break
        except UnicodeError:
            s = ""
    return " ".join(s.split())[:MAX_ERROR]


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
    head = _Head(body)
    msg = ""
    try:
        jsonstream.select(head, rules)
        msg = first_line("".join(st["msg"]).strip())
    except Exception:  # garbage, a cut body, a reset: quote what came
        msg = first_line("".join(st["msg"]).strip())
        if not msg:
            head.more()
            msg = _snippet(head.head)
    if not msg:
        msg = _str(st["status"] or HTTP_TEXT.get(status, ""))
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


def models_request(cfg, page_token):
    """(url, headers) of one page of the model list."""
    url = cfg["base_url"] + "/models?pageSize=%d" % PAGE
    if page_token:
        url += "&pageToken=" + quote(page_token)
    return url, _headers(cfg)


def read_models(cfg, body, add):
    """Calls add(id) per chat-capable model of one page; returns the next
    page token or None."""
    st = {"idx": None, "name": None, "methods": None, "token": None}

    def close():
        name, methods = st["name"], st["methods"]
        if isinstance(name, str) and name and (
                not isinstance(methods, list) or "generateContent" in methods):
            add(name[7:] if name.startswith("models/") else name)
        st["idx"] = st["name"] = st["methods"] = None

    def at(path):
        if path[1] != st["idx"]:
            if st["idx"] is not None:
                close()
            st["idx"] = path[1]

    def on_name(path, v):
        at(path)
        st["name"] = v

    def on_methods(path, v):
        at(path)
        st["methods"] = v

    def on_token(path, v):
        st["token"] = v

    jsonstream.select(body, {"models[*].name": on_name,
                             "models[*].supportedGenerationMethods": on_methods,
                             "nextPageToken": on_token})
    if st["idx"] is not None:
        close()
    t = st["token"]
    return t if isinstance(t, str) and t else None
