"""One exchange through a style module, as the driver does it, for the
per-style tests (they test a style without the driver's retries)."""
import json

import httpc
import jsonstream


def base_cfg(**kw):
    """A resolved configuration as lib/ai/config.py hands it to a style."""
    cfg = {"max_tokens": None, "temperature": None, "system": None, "timeout": 10,
           "thinking": None, "tools_level": "native", "use": "chat", "max_reply": 16000}
    cfg.update(kw)
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
