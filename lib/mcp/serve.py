# Server-to-client side of the MCP client: answering requests the server
# sends us (on a reply stream or the standalone GET stream), holding and
# watching the standalone GET stream while a call is pending, telling the
# server a call was given up, and progress for the console's spinner.
# Imported when needed (a server request, a call that holds the GET stream)
# to keep `mcp.client` small.
#
# Wire format: a server request is a JSON-RPC message with "method" and "id"
# in an SSE event; the answer is a POST of {"jsonrpc":"2.0","id":<same id>,
# "result":...} (or "error") to the endpoint, answered 202 by the server.
#   ping                    -> {}
#   elicitation/create      -> {"action": "accept", "content": {...}} |
#                              {"action": "decline"} | {"action": "cancel"}
#                              from the elicit callback (see below)
#   sampling/createMessage  -> sample(request) text as an assistant message,
#                              or error -32601 when no callback was given
#   roots/list              -> {"roots": []}
#   anything else           -> error -32601 "Method not found"
# Elicitation: the connection's elicit(message, schema) answers a form
# (a dict: accept with it as content; None: decline; False: cancel) and
# elicit(message, None, url) a URL-mode request (a dict: the person opened
# the URL; a callback of two arguments declines it). Without a callback, a
# person at the console (shell running its loop) is asked (shell/elicit.py);
# with nobody there a form is accepted with the schema's defaults when every
# required field has one, else declined, and URL mode is declined.
# Cancelling: {"jsonrpc":"2.0","method":"notifications/cancelled",
# "params":{"requestId":<id>,"reason":"..."}} POSTed once, errors ignored.
import select
import sys

import httpc
import jsonstream
from compat import ticks_ms, ticks_diff, sleep_ms, const

_SETTLE = const(200)     # ms to wait for a GET's 409 (our last stream not yet gone)
from mcp import client


def answer(conn, m):
    """Answer the server request held in the parsed message m with a POST."""
    method = m.method
    result = error = None
    if method == "ping":
        result = {}
    elif method == "elicitation/create":
        result = _elicit(conn, m)
    elif method == "sampling/createMessage":
        result, error = _sample(conn, m)
    elif method == "roots/list":
        result = {"roots": []}
    else:
        error = {"code": -32601, "message": "Method not found"}
    reply = {"jsonrpc": "2.0", "id": m.id}
    if error is not None:
        reply["error"] = error
    else:
        reply["result"] = result
    resp = client.post(conn, reply)
    status = resp.status
    client._close(resp)
    if status < 200 or status >= 300:
        raise client.McpError("%s: the server refused our answer to %s (HTTP %d)"
                              % (conn.name, method, status))


def defaults(schema):
    """The schema's default values, or None if a required field has none."""
    content = {}
    props = schema.get("properties")
    if isinstance(props, dict):
        for k in props:
            p = props[k]
            if isinstance(p, dict) and "default" in p:
                content[k] = p["default"]
    req = schema.get("required")
    if isinstance(req, list):
        for k in req:
            if k not in content:
                return None
    return content


def _person():
    """The console's dialogue while the console runs its loop, else None."""
    sh = sys.modules.get("shell")
    if sh is not None:
        for t in sh.tasks():
            if t[1] == "console":
                from shell import elicit
                return elicit.ask
    return None


def _elicit(conn, m):
    f = m.f
    url = f.get("url") if f.get("mode") == "url" else None
    schema = f.get("requestedSchema")
    if not isinstance(schema, dict):
        schema = {}
    fn = conn.elicit or _person()
    c = f.get("pmsg")
    message = c.text() if c is not None else ""
    if fn is None:
        content = None if url else defaults(schema)
    else:
        try:
            content = fn(message, schema, url) if url else fn(message, schema)
        except KeyboardInterrupt:
            content = False
        except Exception:
            content = None      # (a callback without a url argument: declined)
    if content is False:
        return {"action": "cancel"}
    if not isinstance(content, dict):
        return {"action": "decline"}
    if url:
        return {"action": "accept"}
    return {"action": "accept", "content": content}


def _sample(conn, m):
    if conn.sample is None:
        return None, {"code": -32601, "message": "sampling not supported"}
    f = m.f
    req = {"messages": f.get("messages") or [], "systemPrompt": f.get("systemPrompt"),
           "maxTokens": f.get("maxTokens")}
    try:
        text = conn.sample(req)
    except Exception as e:
        return None, {"code": -1, "message": "sampling failed: %s" % e}
    if not isinstance(text, str):
        return None, {"code": -1, "message": "sampling declined"}
    return {"role": "assistant", "content": {"type": "text", "text": text},
            "model": client.CLIENT_NAME, "stopReason": "endTurn"}, None


def progress(conn, m):
    """A progress notification while the console's spinner turns: its line
    says "<server>__<tool> 40%" (or the count without a total)."""
    term = sys.modules.get("shell.term")
    spin = term.spinner() if term is not None else None
    done = m.f.get("progress")
    if spin is None or not isinstance(done, (int, float)) or isinstance(done, bool):
        return
    total = m.f.get("total")
    if isinstance(total, (int, float)) and not isinstance(total, bool) and total > 0:
        word = "%d%%" % min(100, int(done * 100 / total))
    else:
        word = str(done)
    spin.label = "%s__%s %s" % (conn.name, conn.calling or "", word)


def cancel(conn, rid, reason):
    """Tell the server request rid was given up (the notification once, at
    most 5 s; errors ignored: it is a courtesy)."""
    msg = {"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": rid, "reason": reason}}
    h = client._headers(conn, client.ACCEPT)
    h["Content-Type"] = "application/json"
    try:
        resp = httpc.request("POST", conn.url, headers=h, body=jsonstream.dumps(msg),
                             timeout=min(conn.timeout, 5), deadline=5)
        resp.close(False)
    except Exception:
        pass


# ------------------------------------------------ the standalone GET stream

def hold(conn):
    """Send the GET for the standalone stream before a call's POST, without
    waiting for its answer: servers start that stream's response only with
    its first event. Its answer is read when it comes (poll_get). After a
    stream of this session was closed (the last call's) the server may not
    have seen it go yet and refuse the new one at once (409: one stream a
    session): then the answer is awaited _SETTLE ms and the GET sent again
    (a server request sent while no stream is held would be lost). A
    failure to send it leaves the call without it."""
    h = client._headers(conn, "text/event-stream")
    h["Connection"] = "close"   # never pooled: closing must not drain a live stream
    for _ in range(5):
        try:
            c = httpc.request("GET", conn.url, headers=h, keep=("content-type",),
                              timeout=conn.timeout, connect_timeout=min(conn.timeout, 10),
                              wait=False)
        except (OSError, MemoryError):
            return
        conn.listening = (c, None)
        if conn.get is not True:
            return
        p = select.poll()
        p.register(c.sock, select.POLLIN)
        if not p.poll(_SETTLE) or (poll_get(conn) and conn.listening is not None):
            return      # held (no answer yet), or an event stream
        if conn.get is False:
            return      # refused for good
        sleep_ms(_SETTLE // 2)      # 409: our last stream is still open there


def next_event(conn, sse):
    """Next event of a reply stream, answering the server requests that
    arrive on the standalone GET stream meanwhile. Both streams are read
    without blocking (comments, keep-alive bytes, chunk framing and partial
    lines are consumed or kept) until an event starts on the reply stream;
    between rounds both sockets are polled. Bounded by the timeout; every
    read of the reply also by the running operation's deadline (httpc)."""
    t0 = ticks_ms()
    while True:
        client.tick(conn)
        g = conn.listening
        if g is None:
            return sse.next()
        ev = sse.next(False)
        if ev is not None or sse.ended:
            return ev
        if poll_get(conn):
            t0 = ticks_ms()     # the server is talking
            continue
        left = conn.timeout * 1000 - ticks_diff(ticks_ms(), t0)
        if left <= 0:
            conn.late = True
            raise client.McpError("%s: timed out waiting for the server" % conn.name)
        p = select.poll()
        p.register(sse._src._c.sock, select.POLLIN)   # (httpc internals: the sockets)
        p.register(g[0].sock if g[1] is None else g[0]._c.sock, select.POLLIN)
        p.poll(min(left, 100 if httpc.ON_WAIT else 1000))


def poll_get(conn):
    """Read what the standalone GET stream has now and answer an event that
    is a server request: True when something (its answer's head, an event,
    its end) was handled, False when nothing complete has arrived. The
    stream is dropped when it ends or fails; a server that answers the GET
    with anything but an event stream (405...) is not asked again in the
    session, except 409 (it still holds our last stream)."""
    g = conn.listening
    if g[1] is None:    # the answer to the GET has not been read yet
        p = select.poll()
        p.register(g[0].sock, select.POLLIN)
        if not p.poll(0):
            return False
        try:
            resp = httpc.answer(g[0])
        except OSError:     # (HTTPError too)
            conn.listening = None
            return True
        if resp.status == 200 and resp.headers.get("content-type", "").startswith(
                "text/event-stream"):
            conn.listening = (resp, httpc.SSE(resp, client.SSE_LINE))
            conn.get = True
        else:
            conn.listening = None
            resp.close(False)
            if resp.status != 409:
                conn.get = False
        return True
    try:
        ev = g[1].next(False)
        if ev is None:
            if not g[1].ended:
                return False
            client.stop_listening(conn)
            return True
        if ev.empty or ev.event != "message":
            return True
        m = client._Msg(None)
        client.parse(conn, m, ev, "a server request")
    except (httpc.HTTPError, jsonstream.JSONError, client.McpError):
        client.stop_listening(conn)
        return True
    if m.method is not None:
        if m.id is not None:
            answer(conn, m)
        elif m.method == "notifications/progress" and httpc.ON_WAIT is not None:
            progress(conn, m)
    return True
