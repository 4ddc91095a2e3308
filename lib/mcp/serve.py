# Server-to-client side of the MCP client: answering requests the server
# sends us (on a reply stream or the standalone GET stream) and watching the
# standalone GET stream while a reply is pending. Imported only when needed
# (a server request arrives, or listen=True), to keep `mcp.client` small.
#
# Wire format: a server request is a JSON-RPC message with "method" and "id"
# in an SSE event; the answer is a POST of {"jsonrpc":"2.0","id":<same id>,
# "result":...} (or "error") to the endpoint, answered 202 by the server.
#   ping                    -> {}
#   elicitation/create      -> {"action":"accept","content":{...}} with the
#                              elicit(message, schema) callback's dict, or
#                              the schema's defaults (every required field
#                              needs one); otherwise {"action":"decline"};
#                              url-mode elicitation is declined
#   sampling/createMessage  -> sample(request) text as an assistant message,
#                              or error -32601 when no callback was given
#   roots/list              -> {"roots": []}
#   anything else           -> error -32601 "Method not found"
import select

import httpc
import jsonstream
from compat import ticks_ms, ticks_diff
from mcp import client, client_more


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


def _elicit(conn, m):
    mode = m.f.get("mode")
    if mode is not None and mode != "form":
        return {"action": "decline"}  # url mode: nobody can open a browser here
    schema = m.f.get("requestedSchema")
    if not isinstance(schema, dict):
        schema = {}
    if conn.elicit is not None:
        try:
            content = conn.elicit(client_more.text(m, "pmsg"), schema)
        except Exception:
            content = None
        if not isinstance(content, dict):
            return {"action": "decline"}
    else:
        content = defaults(schema)
        if content is None:
            return {"action": "decline"}
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


# ------------------------------------------------ the standalone GET stream

def listen(conn):
    """Open the standalone GET stream (servers without one answer 405)."""
    t0, conn.t0 = conn.t0, None   # it outlives the running operation: no deadline
    try:
        resp = client_more.get_stream(conn)
    finally:
        conn.t0 = t0
    if resp.status == 200 and client_more.is_sse(resp):
        conn.listening = (resp, httpc.SSE(resp, client.SSE_LINE))
    else:
        client._close(resp)


def next_event(conn, sse):
    """Next event of a reply stream, answering the server requests that
    arrive on the standalone GET stream meanwhile. Both streams are read
    without blocking (comments, keep-alive bytes, chunk framing and partial
    lines are consumed or kept) until an event starts on the reply stream;
    between rounds both sockets are polled. Bounded by the timeout; every
    read of the reply also by the running operation's deadline (httpc)."""
    t0 = ticks_ms()
    while True:
        g = conn.listening
        if g is None:
            return sse.next()
        ev = sse.next(False)
        if ev is not None or sse.ended:
            return ev
        if _serve_get(conn):
            continue
        left = conn.timeout * 1000 - ticks_diff(ticks_ms(), t0)
        if left <= 0:
            raise client.McpError("%s: timed out waiting for the server" % conn.name)
        p = select.poll()
        p.register(sse._src._c.sock, select.POLLIN)   # (httpc internals: the sockets)
        p.register(g[0]._c.sock, select.POLLIN)
        if httpc.ON_WAIT is None:
            p.poll(min(left, 1000))
        elif not p.poll(min(left, 100)):
            httpc.ON_WAIT()     # the console's spinner and Ctrl-C, as in httpc


def _serve_get(conn):
    """Read what the standalone GET stream has now and answer an event that
    is a server request: True when an event (or the stream's end) was
    handled, False when nothing complete has arrived. The stream is dropped
    when it ends or fails."""
    g = conn.listening
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
    if m.method is not None and m.id is not None:
        answer(conn, m)
    return True
