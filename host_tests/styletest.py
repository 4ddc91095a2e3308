"""One exchange through a style module, as the driver does it, for the
per-style tests (they test a style without the driver's retries)."""
import json

import httpc
import jsonstream


_FIELDS = ("provider", "model", "key", "base_url", "max_tokens", "temperature",
           "system", "timeout", "thinking", "use", "max_reply")


def base_cfg(**kw):
    """A configuration exactly as lib/ai/config.py resolves it for a style,
    from overrides (no settings file: a store with an empty root), so tests
    and product cannot drift apart. Keys resolve() takes as overrides go
    through it (provider default "openai", key "sk-test", timeout 10);
    tools_level becomes the "tools" override; key=None sends no key even
    where the provider needs one (tests of the service's answer to that);
    anything else is set on the result."""
    import store
    from ai.config import resolve
    o = {"provider": "openai", "key": "sk-test", "timeout": 10}
    extra = {}
    for k in kw:
        if k == "key" and kw[k] is None:
            extra[k] = None
        elif k in _FIELDS:
            o[k] = kw[k]
        elif k == "tools_level":
            o["tools"] = kw[k]
        elif k not in ("name", "style"):    # resolve() takes these from the catalogue
            extra[k] = kw[k]
    saved = store._root, store._settings
    store._root, store._settings = "", {}
    try:
        cfg = resolve(o)
    finally:
        store._root, store._settings = saved
    cfg.update(extra)
    return cfg


def body_json(body):
    """Serialize a request value tree twice, as the driver does (a counting
    pass, then the real one; the tree must be re-iterable), and parse it
    with CPython's json."""
    out = []
    jsonstream.dump(body, out.append)
    data = b"".join(bytes(p) for p in out)
    assert jsonstream.encoded_len(body) == len(data)
    assert jsonstream.dumps(body).encode() == data
    return json.loads(data)


class Trickle:
    """A reply body (or SSE event data) with readinto that hands out at most
    `step` bytes per call. data: bytes, text, or a value sent as JSON."""

    def __init__(self, data, step=7):
        if isinstance(data, str):
            data = data.encode()
        elif not isinstance(data, (bytes, bytearray)):
            data = json.dumps(data).encode()
        self.data = data
        self.pos = 0
        self.step = step

    def startswith(self, prefix):
        """(httpc's Event.startswith: before any of the data is read.)"""
        return self.pos == 0 and self.data.startswith(prefix)

    def readinto(self, buf):
        n = min(len(buf), self.step, len(self.data) - self.pos)
        buf[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


def style_helpers(style):
    """(send, ask, error_of) bound to one style module."""

    def send(cfg, history, tools=None, stream=False):
        url, headers, body = style.request(cfg, history, tools, stream)
        size = jsonstream.encoded_len(body)
        return httpc.request("POST", url, headers,
                             (size, lambda w: jsonstream.dump(body, w)),
                             keep=("retry-after", "content-type"), timeout=10)

    def ask(cfg, history, tools=None, stream=False):
        """(Reply, sink pieces or None); AssertionError naming a non-200."""
        pieces = []
        with send(cfg, history, tools, stream) as r:
            if r.status != 200:
                raise AssertionError("HTTP %d %r" % (r.status, style.error_info(
                    r.status, r, r.headers)))
            if stream:
                reply = style.read_stream(cfg, httpc.SSE(r), pieces.append)
                assert "".join(pieces) == reply.text
                return reply, pieces
            return style.read_reply(cfg, r), None

    def error_of(cfg, history, tools=None, stream=False):
        with send(cfg, history, tools, stream) as r:
            assert r.status != 200
            return r.status, style.error_info(r.status, r, r.headers)

    return send, ask, error_of
