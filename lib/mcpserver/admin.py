"""What the console asks of the board's MCP server (see mcpserver/__init__.py,
mcpserver/http.py): the token clients need, the board's address and the
host names clients may use, the status lines and the tools exposed.
"""
import store
import shell
import mcpserver
from mcpserver import http as h


def token(new=False):
    """The bearer token clients need (made on first use, or new=True)."""
    t = store.get("mcp.serve.token")
    if not t or new:
        t = "antos_" + h._hex(16)
        store.set("mcp.serve.token", t)
        s = mcpserver.SERVER
        if s is not None:
            s.token = t.encode()
    return t


def address():
    """The board's WiFi address, or None (the simulator: use localhost)."""
    try:
        import network
        w = network.WLAN(network.STA_IF)
        if w.isconnected():
            return w.ifconfig()[0]
    except (ImportError, OSError, AttributeError):
        pass
    return None


def hosts():
    names = ["localhost", "127.0.0.1", "[::1]"]
    a = address()
    if a:
        names.append(a)
    return tuple(names + [w.lower() for w in h.words("mcp.serve.hosts")])


def url(srv):
    return "http://%s:%d%s" % (address() or "localhost", srv.port, h.PATH)


def status(srv):
    """Lines for `mcp serve status`."""
    from compat import ticks_ms, ticks_diff
    now = ticks_ms()
    allow = h.words("mcp.serve.allow")
    return ["serving %s (token: mcp serve token)" % url(srv),
            "  sessions: %d%s" % (len(srv.sessions), "".join(
                "; %s, idle %d s" % (s[3], ticks_diff(now, s[1]) // 1000) for s in srv.sessions)),
            "  requests: %d, tool calls: %d, clients since start: %d" % (
                srv.requests, srv.calls, srv.clients),
            "  tools: %s" % " ".join(tool_names()),
            "  allowed beyond read-only (mcp.serve.allow): %s" % (" ".join(allow) or "none")]


def tool_names():
    return [spec["name"] for spec in shell.commands() if h.exposed(spec)]
