"""Stand-in MCP client for exercising the conformance-suite runner.

NOT lib/mcp: a tiny CPython-only raw http.client client speaking MCP
Streamable HTTP (JSON-RPC 2.0 over POST; reply application/json or
text/event-stream). The conformance suite runs it as
    <python> standin_client.py [--bad-init] <url>
with MCP_CONFORMANCE_SCENARIO set. Supported scenarios: initialize,
tools_call. --bad-init sends an initialize without clientInfo so that the
suite must report a failure (proves the runner really checks).
"""
import http.client
import json
import os
import sys
from urllib.parse import urlsplit

PROTO = "2025-11-25"


class Conn:
    def __init__(self, url):
        u = urlsplit(url)
        self.host, self.port = u.hostname, u.port or 80
        self.path = u.path or "/"
        self.session = None
        self.proto = None
        self.next_id = 0

    def post(self, msg):
        """POST one JSON-RPC message; return the response message or None."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=10)
        h = {"Content-Type": "application/json",
             "Accept": "application/json, text/event-stream"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
        if self.proto:
            h["MCP-Protocol-Version"] = self.proto
        c.request("POST", self.path, json.dumps(msg), h)
        r = c.getresponse()
        sid = r.getheader("Mcp-Session-Id")
        if sid:
            self.session = sid
        ctype = (r.getheader("Content-Type") or "").split(";")[0].strip()
        want = msg.get("id")
        try:
            if r.status >= 400:
                raise SystemExit("HTTP %d: %s" % (r.status, r.read(300)))
            if want is None:
                r.read()
                return None
            if ctype == "application/json":
                return json.loads(r.read())
            if ctype == "text/event-stream":
                data = []
                for raw in r:  # SSE: events end at a blank line
                    line = raw.decode("utf-8").rstrip("\r\n")
                    if line.startswith("data:"):
                        data.append(line[5:].lstrip(" "))
                    elif line == "" and data:
                        text = "\n".join(data)
                        data = []
                        if text:
                            m = json.loads(text)
                            if m.get("id") == want and "method" not in m:
                                return m
                raise SystemExit("stream ended without a reply to id %r" % want)
            raise SystemExit("unexpected content type %r" % ctype)
        finally:
            c.close()

    def request(self, method, params=None):
        self.next_id += 1
        m = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            m["params"] = params
        reply = self.post(m)
        if "error" in reply:
            raise SystemExit("%s failed: %s" % (method, reply["error"]))
        return reply["result"]

    def notify(self, method):
        self.post({"jsonrpc": "2.0", "method": method})


def main(argv):
    url = argv[-1]
    bad = "--bad-init" in argv[1:-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    c = Conn(url)
    params = {"protocolVersion": PROTO, "capabilities": {}}
    if not bad:
        params["clientInfo"] = {"name": "peers-standin", "version": "0.1"}
    res = c.request("initialize", params)
    c.proto = res.get("protocolVersion", PROTO)
    c.notify("notifications/initialized")
    if scenario == "initialize":
        c.request("tools/list")
    elif scenario == "tools_call":
        tools = c.request("tools/list")["tools"]
        for t in tools:
            if t["name"] == "add_numbers":
                out = c.request("tools/call", {"name": "add_numbers",
                                               "arguments": {"a": 2, "b": 3}})
                print(out["content"][0].get("text"))
    else:
        sys.stderr.write("standin_client: unsupported scenario %s\n" % scenario)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
