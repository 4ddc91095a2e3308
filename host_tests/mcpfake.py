"""A raw MCP server on 127.0.0.1 for host tests (CPython, stdlib): it
answers initialize and notifications itself and hands every other request
to a function, which writes the reply as JSON or as SSE events.

    def on(fake, msg, req, w):       # msg: the JSON-RPC request (a dict)
        w.respond(200, json.dumps(reply(msg["id"], {...})).encode(),
                  headers={"Content-Type": "application/json"})
        # or: sse(w, event_dict, ...)
    with McpFake(on) as f:
        f.url                         # http://127.0.0.1:PORT/mcp
"""
import json

from httpserver import Server


class McpFake:
    def __init__(self, on, version="2025-11-25"):
        self.on = on
        self.version = version
        self.sessions = 0
        self.answers = []
        self.srv = Server(self.handle)

    def __enter__(self):
        self.srv.__enter__()
        self.url = self.srv.url + "/mcp"
        return self

    def __exit__(self, *exc):
        self.srv.__exit__(*exc)

    def handle(self, req, w):
        msg = json.loads(req.body or b"{}")
        method = msg.get("method")
        if method == "initialize":
            self.sessions += 1
            body = {"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": self.version, "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake", "version": "1"}}}
            w.respond(200, json.dumps(body).encode(), headers={
                "Content-Type": "application/json", "Mcp-Session-Id": "s%d" % self.sessions})
        elif method is None and "id" in msg:
            self.answers.append(msg)  # our client's answer to a server request
            w.respond(202)
        elif "id" not in msg:
            w.respond(202)
        else:
            self.on(self, msg, req, w)


def sse(w, *events, end=True):
    w.start(200, {"Content-Type": "text/event-stream"})
    for e in events:
        if isinstance(e, dict):
            e = "event: message\ndata: %s\n\n" % json.dumps(e)
        w.chunk(e.encode())
    if end:
        w.end()


def reply(rid, result):
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def text_result(t):
    return {"content": [{"type": "text", "text": t}]}
