"""The driver's error wording (ai/__init__.py), imported when a request
fails so that a chat that goes well pays no heap for it: the line for an
HTTP error, a network error, an empty or cut reply, a missing key, and the
wait before a retry; every line scrubbed of secrets. Also Head, with which
the styles' error readers (ai/styles/*_errors.py) quote a page that is not
JSON."""
from ai.config import source
from compat import const


def scrub(cfg, msg):
    """msg without any secret (store.scrub: every configured key and token,
    and the key in use)."""
    import store
    return store.scrub(msg, cfg.get("key"))


RETRIED = (408, 409, 429, 500, 502, 503, 504, 529)     # statuses worth another try


def retry_wait(attempt, status, headers, hint):
    """Seconds to wait before retrying, or None when the reply is final."""
    should = headers.get("x-should-retry")
    if should == "false":
        return None
    if status not in RETRIED and should != "true":
        return None
    wait = None
    try:
        if "retry-after-ms" in headers:
            wait = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            wait = float(headers["retry-after"])
    except ValueError:
        pass  # an HTTP date: use our own backoff
    if wait is None:
        wait = hint
    if wait is None:
        wait = min(0.5 * (2 ** attempt), 8)
    return max(wait, 0)


def explain(cfg, status, msg, kind, wait):
    """The line for an error reply; kind "list": to the model list."""
    head = "%s: %d %s" % (cfg["provider"], status, msg or "error")
    if cfg.get("login") and status in (401, 403):
        return "%s (run: %s)" % (head, cfg["login"])
    if status in (401, 403) or kind == "key":
        return "%s (check %s)" % (head, source(cfg, "key"))
    if status == 404 and kind == "list":
        return "%s (no model list at %s: check %s, or type a model id)" % (
            head, cfg["base_url"], source(cfg, "base_url"))
    if status == 404 or kind == "model":
        return "%s (check %s)" % (head, source(cfg, "model"))
    if status == 429:
        return head + (" (rate limited; retry in %d s)" % wait if wait else " (rate limited; try again later)")
    if status >= 500 and status in RETRIED:
        return head + " (the service is overloaded or failing; try again later)"
    return head


def wizard(cfg):
    """The command that sets up what resolved: `ai config` for ai.general
    (the fallback of every use-type), `ai config USE` when the use-type
    names its own provider."""
    p = cfg["sources"].get("provider") or ""
    return "ai config" + ("" if p.startswith("ai.general.") or not p.startswith("ai.")
                          else " " + cfg["use"])


def no_key(cfg, owners):
    """The error for a provider that needs a key and has none: the setting
    to make when the settings chose it; else (an override, a preset) what
    the settings are set up for, whose key is not sent to it."""
    pid = cfg["provider"]
    if (cfg["sources"].get("provider") or "").startswith("ai."):
        return "%s: no API key (set %s or run: %s)" % (pid, source(cfg, "key"), wizard(cfg))
    use = cfg["use"]
    mine = owners.get(use)
    if mine:
        return "%s: no API key (the %s settings are for %s; set up %s with: ai config)" % (
            pid, "ai.general" if mine == owners.get("general") else "ai." + use, mine, pid)
    return "%s: no API key (set up %s with: ai config)" % (pid, pid)


def network_error(cfg, e):
    if e.kind == "deadline":
        return "%s: no complete reply within %d s (raise %s)" % (
            cfg["provider"], cfg["deadline"], source(cfg, "deadline"))
    msg = "%s: %s" % (cfg["provider"], scrub(cfg, str(e)))
    if e.kind == "timeout":
        return "%s (raise %s)" % (msg, source(cfg, "timeout"))
    if cfg["local"] and e.kind in ("connect", "dns"):
        return "%s (is %s running? or run: %s)" % (msg, cfg["name"], wizard(cfg))
    return msg


def empty_reason(cfg, reply):
    f = reply.finish or "unknown"
    if f == "length":
        return "empty reply: max tokens reached (raise %s)" % source(cfg, "max_tokens")
    if f.startswith("blocked"):
        return "prompt blocked (%s)" % f[8:]
    if f == "filter":
        return "empty reply: blocked by the content filter"
    return "empty reply (finish reason: %s)" % f


def cut_mark(cfg, finish):
    """The line after a reply the service cut short (finish "length" or
    "filter")."""
    if finish == "filter":
        return "\n\n[reply cut short by the content filter]"
    return "\n\n[reply cut short: max tokens reached (raise %s)]" % source(cfg, "max_tokens")


_HEAD = const(256)      # bytes of an error body kept to quote it
_LT = const(0x3C)       # <
_GT = const(0x3E)       # >
_SP = const(0x20)
_DEL = const(0x7F)


class Head:
    """An error body passed through to a parser with its first bytes kept,
    so that a page that is not JSON can still be quoted (line())."""

    def __init__(self, body):
        self.body = body
        self.head = bytearray()

    def readinto(self, buf):
        got = self.body.readinto(buf)
        if got and len(self.head) < _HEAD:
            self.head.extend(memoryview(buf)[:min(got, _HEAD - len(self.head))])
        return got

    def line(self, limit):
        """The page as one line of at most limit characters: an HTML page's
        title, or its text without tags. Reads on first, up to the kept
        size (the parser stopped early on a page that is not JSON)."""
        buf = bytearray(64)
        try:
            while len(self.head) < _HEAD and self.readinto(buf):
                pass
        except Exception:
            pass    # a reset or a timeout: quote what came
        raw = bytes(self.head)
        i = raw.lower().find(b"<title>")
        if i >= 0:
            j = raw.lower().find(b"</title>", i)
            raw = raw[i + 7:j if j > 0 else len(raw)]
        text = bytearray()
        tag = False
        for b in raw:
            if b == _LT:
                tag = True
            elif b == _GT:
                tag = False
                text.append(_SP)
            elif not tag:
                text.append(b if b > _SP and b != _DEL else _SP)    # no control bytes
        for cut in range(4):        # a character the kept size cut in two
            try:
                return " ".join(str(text[:len(text) - cut], "utf-8").split())[:limit]
            except UnicodeError:
                pass
        return " ".join(str(bytes(b if b < _DEL else _SP for b in text), "ascii").split())[:limit]
