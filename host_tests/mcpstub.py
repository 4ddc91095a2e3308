"""A minimal Streamable HTTP MCP server for httpserver.Server, for tests of
the client's transport (deadlines, the standalone GET stream) where the
real peers cannot be made slow or odd on purpose.

    from mcpstub import Stub
    stub = Stub(call=fn(req, w, msg), get=fn(req, w))
    with Server(stub) as srv: mcp.connect(srv.url + "/mcp", ...)

initialize gets a JSON result (protocol 2025-06-18, session "s1"),
notifications and our answers to server requests get 202 (answers are kept
in stub.answers), tools/list an empty list, tools/call the `call` handler's
reply (default: a text result "done"), GET the `get` handler's stream
(default: 405, no stream), DELETE 200. Any method may be overridden with
slow=METHOD: its reply never completes (SSE keep-alive comments)."""
import json


def reply(w, rid, result):
    w.respond(200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}),
              headers={"Content-Type": "application/json", "Mcp-Session-Id": "s1"})


class Stub:
    def __init__(self, call=None, get=None, slow=None):
        self.call = call
        self.get = get
        self.slow = slow
        self.answers = []

    def __call__(self, req, w):
        if req.method == "DELETE":
            w.respond(200, b"")
            return
        if req.method == "GET":
            if self.get is None:
                w.respond(405, b"")
            else:
                self.get(req, w)
            return
        msg = json.loads(req.body)
        method = msg.get("method")
        if method is not None and method == self.slow:
            w.sse_forever(b": keep-alive\n\n")
        elif method == "initialize":
            reply(w, msg["id"], {"protocolVersion": "2025-06-18",
                                 "capabilities": {"tools": {}},
                                 "serverInfo": {"name": "stub"}})
        elif method is None or "id" not in msg:
            if method is None:
                self.answers.append(msg)
            w.respond(202, b"")
        elif method == "tools/list":
            reply(w, msg["id"], {"tools": []})
        elif method == "tools/call" and self.call is not None:
            self.call(req, w, msg)
        else:
            reply(w, msg["id"], {"content": [{"type": "text", "text": "done"}]})
