# The MCP client's failures (mcp/exchange.py, whose top comment describes
# the Streamable HTTP wire format), imported by the first one so that a session
# that goes well does not pay for them:
# - a non-2xx reply: a short reason from its body (JSON-RPC error.message or
#   the first text line, at most 512 bytes read) and the wording per status;
#   404 (or 400 naming the session) on a request with a session id: the
#   session is gone, initialize again once and resend;
# - an SSE reply that ends before our response: wait the stream's `retry:`
#   time, then GET the endpoint with `Last-Event-ID` to resume it;
# - JSON-RPC error text: "message (code N)";
# - the wording of a failed exchange (failed()).
from compat import drive, sleep_ms, const
from mcp import exchange
from mcp.exchange import McpError, close_reply

_MAX_RESUME = const(3)         # GET reconnections for one response
_RETRY_MS = const(1000)        # wait before resuming when the server gave no retry:
_MAX_RETRY_MS = const(10000)   # upper bound on a server's retry: value
_SP = const(0x20)
_DEL = const(0x7F)


def text(m, key):
    """The text collected under key ("emsg", "pmsg") of a parsed message."""
    c = m.f.get(key)
    return c.text() if c is not None else ""


def error_text(m):
    msg = text(m, "emsg") or "error"
    code = m.f.get("code")
    if code is None:
        return msg
    return "%s (code %s)" % (msg, code)


# ------------------------------------------------------------ HTTP status

def get_stream(conn, last_id=None):
    """GET the endpoint as an event stream (resume or standalone stream)."""
    h = exchange.headers(conn, "text/event-stream")
    if last_id is not None:
        h["Last-Event-ID"] = last_id
    h["Connection"] = "close"  # never pooled: closing must not drain a live stream
    return drive(exchange.send(conn, "GET", h))


def is_sse(resp):
    return resp.headers.get("content-type", "").startswith("text/event-stream")


def error_detail(resp):
    """A short reason from an error body (JSON-RPC error.message or the first
    line of text), reading at most 512 bytes."""
    try:
        data = resp.read(512)
    except Exception:
        data = b""
    close_reply(resp)
    if not data:
        return ""
    if "json" in resp.headers.get("content-type", ""):
        m = exchange.Msg(None)
        try:
            exchange.walk(data, m)
        except Exception:
            m.f = {}
        if "emsg" in m.f:
            return ": " + text(m, "emsg")
    try:
        s = data.decode()
    except UnicodeError:
        return ""
    line = s.strip().split("\n")[0].strip()
    return (": " + line[:120]) if line else ""


def status_error(conn, status, reason, detail, what):
    import store
    url = store.mask_url(conn.url)
    if status == 401:
        # where a token comes from: an OAuth login, or one set by hand
        reg = conn.reg_name or "<name>"
        return McpError("%s: %s (401); run: mcp login %s, or set a token: mcp add %s %s <token>"
                               % (conn.name, "token refused" if conn.token else "needs authorization",
                                  reg, reg, url))
    if status == 403:
        return McpError("%s: access denied (403)%s" % (conn.name, detail))
    if status == 404:
        return McpError("%s: no MCP endpoint at %s (404)" % (conn.name, url))
    return McpError("%s: %s failed: HTTP %d %s%s"
                           % (conn.name, what, status, reason, detail))


def not_mcp(conn, resp):
    """The McpError for a URL whose reply to initialize is not MCP: its
    status, content type and first bytes (control characters and runs of
    space made one space, a character cut at the end dropped)."""
    import store
    b = bytearray(getattr(resp, "head", b""))
    for i in range(len(b)):
        if b[i] < _SP or b[i] == _DEL:
            b[i] = _SP
    text = ""
    for cut in range(len(b), max(len(b) - 4, -1), -1):
        try:
            text = str(b[:cut], "utf-8")
            break
        except UnicodeError:
            pass
    text = " ".join(text.split())
    if len(b) >= 64:
        text += "..."
    return McpError(
        "%s: %s does not look like an MCP endpoint: it answered initialize with HTTP %d, "
        "%s, %s" % (conn.name, store.mask_url(conn.url), resp.status,
                    resp.headers.get("content-type") or "no content type",
                    "'%s'" % text if text else "an empty body"))


def check(conn, resp, what):
    """Raise the McpError for a non-2xx response (its body is read and closed)."""
    s = resp.status
    if 200 <= s < 300:
        return
    detail = error_detail(resp)
    if what == "initialize" and s in (404, 405) and _legacy(conn):
        import store
        raise McpError(
            "%s: %s is an HTTP+SSE endpoint (the MCP transport of 2024-11-05), which this "
            "client does not speak; use the server's Streamable HTTP URL"
            % (conn.name, store.mask_url(conn.url)))
    raise status_error(conn, s, resp.reason, detail, what)


def _legacy(conn):
    """True when a GET of the URL is an event stream whose first event is
    "endpoint" (the old transport's: where to POST). At most 5 s."""
    import httpc
    try:
        resp = httpc.request("GET", conn.url, headers={"Accept": "text/event-stream",
                                                       "Connection": "close"},
                             keep=("content-type",), timeout=min(conn.timeout, 5), deadline=5)
    except Exception:
        return False
    try:
        return resp.status == 200 and is_sse(resp) and httpc.SSE(resp, 256).next().event == "endpoint"
    except Exception:
        return False
    finally:
        resp.close(False)


def refused(conn, resp, msg, method):
    """A non-2xx reply to the request msg: the response to read instead
    (after a new session), or the McpError raised."""
    s = resp.status
    detail = error_detail(resp)
    # 404: the server forgot our session (restart, expiry); the reference
    # server says 400 "No valid session ID" instead. Start a new one once.
    if conn.session and method != "initialize" and (
            s == 404 or (s == 400 and "session" in detail.lower())):
        drive(exchange.initialize(conn))
        resp = drive(exchange.post(conn, msg))
        check(conn, resp, method)
        return resp
    raise status_error(conn, s, resp.reason, detail, method)


def resume(conn, last_id, retry, resumes, method):
    """The stream of a reply ended before our response: GET it again from
    last_id after the retry wait (resumes done so far: at most _MAX_RESUME)."""
    if last_id is None or resumes >= _MAX_RESUME:
        raise McpError("%s: the server closed the stream before the reply to %s"
                              % (conn.name, method))
    wait = _RETRY_MS if retry is None else retry
    sleep_ms(max(0, min(wait, _MAX_RETRY_MS)))
    resp = get_stream(conn, last_id)
    if resp.status != 200 or not is_sse(resp):
        close_reply(resp)
        raise McpError("%s: cannot resume the stream for the reply to %s (HTTP %d)"
                              % (conn.name, method, resp.status))
    return resp


def failed(conn, e, tail=""):
    """The message for an httpc.HTTPError."""
    conn.late = e.kind == "deadline" or e.kind == "timeout"
    if e.kind == "deadline":
        return "%s: no complete reply within %d s (raise mcp.deadline)" % (
            conn.name, conn.deadline)
    return "%s: %s%s" % (conn.name, e, tail)
