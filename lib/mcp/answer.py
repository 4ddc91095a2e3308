# Answering what an MCP server sends the client: its requests (on a reply
# stream or the standalone GET stream, mcp/listen.py), progress for the
# console's spinner, and telling the server a call was given up. Imported
# only when one of those comes, to keep what every call loads small.
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
# person at the console (shell running its loop) is asked (hooks.ask);
# with nobody there a form is accepted with the schema's defaults when every
# required field has one, else declined, and URL mode is declined.
# Progress: {"method":"notifications/progress","params":{"progressToken":..,
# "progress":40,"total":100}} on the spinner's line.
# Cancelling: {"jsonrpc":"2.0","method":"notifications/cancelled",
# "params":{"requestId":<id>,"reason":"..."}} POSTed once, errors ignored.
import hooks
import httpc
import jsonstream
from compat import drive
from mcp import exchange
from mcp.exchange import McpError


def incoming(conn, m):
    """A message from the server that is not a response (on a reply stream
    or the GET stream): a request is answered; progress turns the console's
    spinner; other notifications are dropped. Imported only for a request
    or while someone watches (exchange.Msg.incoming)."""
    if m.id is not None:
        answer(conn, m)
    elif m.method == "notifications/progress" and httpc.ON_WAIT is not None:
        progress(conn, m)


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
    resp = drive(exchange.post(conn, reply))
    status = resp.status
    exchange.close_reply(resp)
    if status < 200 or status >= 300:
        raise McpError("%s: the server refused our answer to %s (HTTP %d)"
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
    f = m.f
    url = f.get("url") if f.get("mode") == "url" else None
    schema = f.get("requestedSchema")
    if not isinstance(schema, dict):
        schema = {}
    fn = conn.elicit or hooks.ask
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
            "model": exchange.CLIENT_NAME, "stopReason": "endTurn"}, None


def progress(conn, m):
    """A progress notification while the console's spinner turns: its line
    says "<server>__<tool> 40%" (or the count without a total)."""
    spin = hooks.spinner() if hooks.spinner is not None else None
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
    h = exchange.headers(conn)
    h["Content-Type"] = "application/json"
    try:
        resp = httpc.request("POST", conn.url, headers=h, body=jsonstream.dumps(msg),
                             timeout=min(conn.timeout, 5), deadline=5)
        resp.close(False)
    except Exception:
        pass
