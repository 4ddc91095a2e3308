"""Shared machinery of the loopback fake LLM provider servers (CPython only).

One threaded HTTP/1.1 server (keep-alive; request bodies with Content-Length
or chunked) that records every request, answers model requests from a FIFO
script queue, and writes either whole JSON bodies (Content-Length, or chunked
on request) or Server-Sent Events (chunked transfer encoding, LF or CRLF line
ends, optional ": keep-alive" comments). Fault injection: die_after (close the
socket after N SSE events, or after N bytes of a whole body), delay before
answering, gap between events, chunk_size (split every write into small HTTP
chunks), hold (wait for a test's threading.Event before answering). The
style modules (openai, anthropic, gemini, textonly) only hold what differs:
routes, validation, error bodies and the reply shapes.
"""

import base64
import json
import os
import random
import socket
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


# ---------------------------------------------------------------- scripts

def make_signature(size=200):
    """Opaque base64-ish blob of about `size` characters (thought signatures)."""
    raw = os.urandom(size * 3 // 4 + 3)
    return base64.b64encode(raw).decode()[:size]


@dataclass
class Think:
    """Thinking attached to a reply. size: length of the generated signature
    when none is given (e.g. size=150_000 for streaming-bound tests)."""
    text: str = "Let me think about that."
    signature: str = None
    size: int = 200

    def __post_init__(self):
        if self.signature is None:
            self.signature = make_signature(self.size)


@dataclass
class Text:
    """Plain assistant text. finish: None (normal stop) or a generic word
    ("length", "content_filter"/"refusal"/"safety", "stop") or a native value."""
    text: str = ""
    think: Think = None
    finish: str = None
    refusal: str = None    # OpenAI styles: a refusal instead of the text


@dataclass
class Calls:
    """Parallel tool calls: [(name, args_dict_or_raw_string), ...]."""
    calls: list = field(default_factory=list)
    text: str = None
    think: Think = None
    ids: bool = False      # Gemini only: include functionCall.id
    finish: str = None


@dataclass
class Fail:
    """An error reply in the style's shape (midstream=True on a streamed
    request: HTTP 200, a couple of text deltas, then the error event)."""
    status: int = 500
    message: str = None
    headers: dict = None
    kind: str = None       # e.g. "quota" (OpenAI 429), "bad_key" (Gemini 400)
    midstream: bool = False


@dataclass
class Blocked:
    """Gemini: HTTP 200, no candidates, promptFeedback.blockReason."""
    reason: str = "SAFETY"


@dataclass
class Raw:
    """Any literal response: body bytes/str (or an object, sent as JSON)."""
    body: object = b""
    status: int = 200
    headers: dict = None
    content_type: str = "application/json"


@dataclass
class Drop:
    """Close the connection without answering."""


# ---------------------------------------------------------------- records

@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict
    json: object
    raw: bytes


class Reject(Exception):
    """Raised by validators: answer `status` with JSON `body`."""

    def __init__(self, status, body, headers=None):
        Exception.__init__(self, status)
        self.status, self.body, self.headers = status, body, headers or {}


class Stream:
    """A streamed answer: events are (event_name_or_None, data_obj_or_str)."""

    def __init__(self, events, headers=None, ping=None):
        self.events, self.headers, self.ping = events, headers or {}, ping


class Whole:
    def __init__(self, status, body, headers=None, content_type="application/json"):
        self.status, self.body, self.headers = status, body, headers or {}
        self.content_type = content_type


DEFAULT_OPTIONS = dict(chunked=False, crlf=None, comments=False, die_after=None,
                       delay=0, gap=0, chunk_size=None, hold=None)

_GENERIC_FINISH = {"stop": 0, "length": 1, "max_tokens": 1, "content_filter": 2,
                   "refusal": 2, "safety": 2}


def finish_word(finish, native):
    """Map a generic finish word to the style's vocabulary (native is a
    3-tuple: stop, length, filtered); unknown words pass through."""
    if finish is None:
        return native[0]
    i = _GENERIC_FINISH.get(finish.lower())
    return finish if i is None else native[i]


def new_id(prefix, n=24, alphabet="0123456789abcdef"):
    return prefix + "".join(random.choice(alphabet) for _ in range(n))


ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def pieces(text, n):
    """Split text into pieces of n characters (at least one piece)."""
    return [text[i:i + n] for i in range(0, len(text), n)] or [""]


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def raw_args(args):
    """Tool call arguments as JSON text (a raw string is kept as given)."""
    return args if isinstance(args, str) else dumps(args)


def parsed_args(args):
    """(ok, object) for scripted args; raw strings are parsed if valid."""
    if not isinstance(args, str):
        return True, args
    try:
        obj = json.loads(args)
    except ValueError:
        return False, None
    return isinstance(obj, dict), obj


# ---------------------------------------------------------------- server

class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60

    def setup(self):
        BaseHTTPRequestHandler.setup(self)
        self.server.fake._opened(self.connection)

    def finish(self):
        try:
            BaseHTTPRequestHandler.finish(self)
        finally:
            self.server.fake._closed(self.connection)

    def log_message(self, *args):
        pass

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = lambda self: self._serve()

    def _read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            out = bytearray()
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline(16)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _serve(self):
        fake = self.server.fake
        raw = self._read_body()
        parts = urlsplit(self.path)
        query = dict((k, v[0]) for k, v in parse_qs(parts.query).items())
        headers = dict((k.lower(), v) for k, v in self.headers.items())
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None      # styles answer their "could not parse" 400
        req = Request(self.command, parts.path, query, headers, body, raw)
        opts = fake._record(req)
        try:
            try:
                answer = fake.route(req)
            except Reject as e:
                answer = Whole(e.status, e.body, e.headers)
            except Exception as e:   # a bug in the fake, or input it cannot handle
                traceback.print_exc()
                answer = Whole(500, {"error": {"message": "fake server error: %r" % e,
                                               "type": "fake_bug"}})
            if opts["delay"]:
                time.sleep(opts["delay"])
            if opts["hold"] is not None:     # a test acts while the client waits
                opts["hold"].wait(60)
            if isinstance(answer, Drop):
                return self._die()
            if isinstance(answer, Stream):
                self._stream(answer, opts, fake)
            else:
                self._whole(answer, opts)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            self.close_connection = True

    def _die(self):
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _head(self, status, ctype, headers, length=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def _chunk(self, data, opts):
        size = opts["chunk_size"] or len(data) or 1
        for i in range(0, len(data), size):
            part = data[i:i + size]
            self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")

    def _whole(self, ans, opts):
        body = ans.body
        if not isinstance(body, (bytes, str)):
            body = dumps(body)
        if isinstance(body, str):
            body = body.encode()
        chunked = opts["chunked"]
        self._head(ans.status, ans.content_type, ans.headers,
                   None if chunked else len(body))
        cut = opts["die_after"]
        if cut is not None:
            body = body[:cut]
        if chunked:
            self._chunk(body, opts)
        else:
            self.wfile.write(body)
        if cut is not None:
            return self._die()
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _stream(self, ans, opts, fake):
        headers = {"Cache-Control": "no-cache"}
        headers.update(ans.headers)
        self._head(200, "text/event-stream", headers)
        crlf = fake.CRLF if opts["crlf"] is None else opts["crlf"]
        eol = "\r\n" if crlf else "\n"
        n = 0
        for name, data in ans.events:
            text = ""
            if opts["comments"]:
                text += ": keep-alive" + eol + eol
                if ans.ping and n:
                    text += sse_text(ans.ping[0], ans.ping[1], eol)
            text += sse_text(name, data, eol)
            self._chunk(text.encode(), opts)
            n += 1
            if opts["die_after"] is not None and n >= opts["die_after"]:
                return self._die()
            if opts["gap"]:
                time.sleep(opts["gap"])
        self.wfile.write(b"0\r\n\r\n")


def sse_text(name, data, eol):
    if not isinstance(data, str):
        data = dumps(data)
    head = "event: " + name + eol if name else ""
    return head + "data: " + data + eol + eol


class FakeServer:
    """Base of every fake. Subclasses set PREFIX, CRLF and implement route()."""

    PREFIX = "/v1"
    CRLF = False
    host = "127.0.0.1"       # listened on and put in base_url (tools/hil.py: one a board reaches)
    delta_size = 5           # characters per streamed text delta

    def __init__(self, key="sk-test", models=None):
        self.key = key
        self.model_ids = self._model_list(models)
        self.requests = []
        self.files = []         # what requests carried as files (fakes/files.py)
        self.connections = 0
        self._lock = threading.Lock()
        self._script = deque()
        self._opts = dict(DEFAULT_OPTIONS)
        self._socks = set()
        self._httpd = None

    # -- lifecycle
    def start(self):
        self._httpd = ThreadingHTTPServer((self.host, 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._httpd.fake = self
        t = threading.Thread(target=self._httpd.serve_forever,
                             kwargs={"poll_interval": 0.05}, daemon=True)
        t.start()
        return self

    def stop(self):
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        return self._httpd.server_address[1]

    @property
    def base_url(self):
        return "http://%s:%d%s" % (self.host, self.port, self.PREFIX)

    @property
    def last(self):
        """The most recent request record."""
        return self.requests[-1]

    # -- scripting
    def queue(self, *replies):
        with self._lock:
            self._script.extend(replies)

    def options(self, chunked=False, crlf=None, comments=False, die_after=None,
                delay=0, gap=0, chunk_size=None, hold=None):
        """Transport options for the following replies (replaces all).
        crlf=None: the style's default (CRLF for Gemini, LF otherwise).
        hold: a threading.Event; replies wait until it is set."""
        with self._lock:
            self._opts = dict(chunked=chunked, crlf=crlf, comments=comments,
                              die_after=die_after, delay=delay, gap=gap,
                              chunk_size=chunk_size, hold=hold)

    def pending(self):
        """Number of scripted replies not used yet."""
        return len(self._script)

    def forget(self):
        """Drop the scripted replies not used yet (a request a test gave up
        before it reached the server left its own)."""
        with self._lock:
            self._script.clear()

    def next_script(self, default):
        """Next scripted reply, or default() when the queue is empty."""
        with self._lock:
            if self._script:
                return self._script.popleft()
        return default()

    # -- internals used by the handler
    def _opened(self, sock):
        with self._lock:
            self.connections += 1
            self._socks.add(sock)

    def _closed(self, sock):
        with self._lock:
            self._socks.discard(sock)

    def _record(self, req):
        with self._lock:
            self.requests.append(req)
            return dict(self._opts)

    # -- subclass hooks
    DEFAULT_MODELS = ()
    GEN_MODEL = "fake-model-%05d"

    def _model_list(self, models):
        if models is None:
            return list(self.DEFAULT_MODELS)
        if isinstance(models, int):
            ids = list(self.DEFAULT_MODELS)[:models]
            return ids + [self.GEN_MODEL % i for i in range(models - len(ids))]
        return list(models)

    def route(self, req):
        raise NotImplementedError

    # -- helpers for styles
    def answer(self, req, stream, build_whole, build_stream, fail_whole,
               fail_stream, default):
        """Common flow after validation: pick the script, build the answer."""
        script = self.next_script(default)
        if isinstance(script, Drop):
            return script
        if isinstance(script, Raw):
            return Whole(script.status, script.body, script.headers,
                         script.content_type)
        if isinstance(script, Fail):
            if script.midstream and stream:
                return fail_stream(script)
            status, body = fail_whole(script)
            return Whole(status, body, script.headers)
        return build_stream(script) if stream else build_whole(script)


def bearer(req):
    auth = req.headers.get("authorization") or ""
    return auth[7:].strip() if auth[:7].lower() == "bearer " else None


def schema_nodes(schema, at="()"):
    """Every object schema in a JSON Schema, with where it is (OpenAI's
    "context" words): [(context, node)]."""
    out = []
    stack = [(at, schema)]
    while stack:
        where, n = stack.pop()
        if not isinstance(n, dict):
            continue
        if n.get("type") == "object" or "properties" in n:
            out.append((where, n))
        for k, v in (n.get("properties") or {}).items():
            stack.append(("%s, 'properties', '%s'" % (where, k), v))
        for k in ("items", "additionalProperties"):
            if isinstance(n.get(k), dict):
                stack.append(("%s, '%s'" % (where, k), n[k]))
        for k in ("anyOf", "oneOf", "allOf"):
            for i, v in enumerate(n.get(k) or ()):
                stack.append(("%s, '%s', %d" % (where, k, i), v))
        for k, v in (n.get("$defs") or {}).items():
            stack.append(("%s, '$defs', '%s'" % (where, k), v))
    return out


def strict_problem(schema):
    """What OpenAI's strict mode refuses in a schema (its 400 text), or
    None: the root an object; every object additionalProperties false and
    every property in required
    (platform.openai.com/docs/guides/structured-outputs, supported schemas)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "In context=(), schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%s\"'." % (
            (schema or {}).get("type"),)
    for where, n in schema_nodes(schema):
        if n.get("additionalProperties") is not False:
            return ("In context=%s, 'additionalProperties' is required to be supplied and "
                    "to be false." % where)
        props = n.get("properties") or {}
        missing = [k for k in props if k not in (n.get("required") or [])]
        if missing:
            return ("In context=%s, 'required' is required to be supplied and to be an array "
                    "including every key in properties. Missing '%s'." % (where, missing[0]))
    return None


def tokens(text):
    """A rough token count for usage numbers."""
    return len(text) // 4 + 1
