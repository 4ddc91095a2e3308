"""The board as an MCP server: the console's commands as tools, its flash
files as resources, for an AI on another machine (Streamable HTTP; the
wire format and every rule are in mcpserver/http.py). It runs the console's
commands, so it sits above the console (shell/); the MCP client (mcp/) sits
below.

    import mcpserver
    url, err = mcpserver.start(port=8765, bind="0.0.0.0")
    mcpserver.stop()               # -> True if it was serving
    asyncio.create_task(mcpserver.serve(8765))   # as a task of a program's loop
    mcpserver.SERVER               # the running server (state, counters) or None
The console's `mcp serve` (shell/mcpcmd.py) calls these; nothing of the
server is imported before. While it listens only this module stays in RAM:
the console's prompt wait (shell/term.py, WATCH) polls the listening
socket, and each request imports mcpserver/http.py (and, for resources,
mcpserver/resources.py; for the token, the address or the status,
mcpserver/admin.py). Every module a request imports, a tool's too, is
dropped again once it is answered, as the console drops a command's
(shell.forget): a client's tenth session finds the heap as its first
did. A request that comes while a command runs waits in the listen
backlog until the prompt is back.

During a tools/call a /bin script may use these (outside a call they do
little: content() prints a short line, sample() and elicit() give an error):
    mcpserver.content(item)      # add {"type": "image", ...} to the result
    mcpserver.progress(done, total=None, message=None)
    text, err = mcpserver.sample(prompt, max_tokens=100)   # the client's model
    answer, err = mcpserver.elicit(message, schema)        # {"action", "content"}
Scripts written for earlier releases do `from mcp import server`: mcp's
__getattr__ gives them this package under that name.
"""
import shell

SERVER = None
OUTPUT = 4096   # bytes of a command's output kept as a tool's result
call_served = None     # the call being served (http.Ctx), for the functions below


def start(port=8765, bind="0.0.0.0"):
    """Listen on port -> (url, None) or (None, err)."""
    global SERVER
    if SERVER is not None:
        return None, "already serving on port %d (mcp serve stop first)" % SERVER.port
    import socket
    before = shell.loaded()
    from mcpserver import admin
    try:
        token = admin.token()
        s = socket.socket()
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(socket.getaddrinfo(bind, port)[0][-1])
            s.listen(4)
            s.setblocking(False)    # accept() never waits: the prompt's poll does
        except OSError as e:
            s.close()
            return None, "cannot listen on port %d: %s" % (port, shell.oneline(e))
        SERVER = _Server(s, port, token, admin.hosts())
        from shell import term
        term.WATCH = SERVER
        return admin.url(SERVER), None
    finally:
        admin = None
        shell.forget(before)     # (the objects are heap; the code stays in flash)


def stop():
    global SERVER
    s = SERVER
    if s is None:
        return False
    from shell import term
    term.WATCH = None
    SERVER = None
    for c, _ in s.late:
        c.close()
    s.sock.close()
    return True


class _Server:
    """The listening server, term.WATCH while it runs: what a request needs
    to find between requests (the token, sessions, counters)."""

    def __init__(self, sock, port, token, hosts):
        import store
        self.sock = sock
        self.port = port
        self.poll = None        # term's poll object for the prompt wait
        self.token = token.encode()
        self.hosts = hosts      # allowed Host / Origin names (lower case)
        self.idle = int(store.get("mcp.serve.idle") or 3600) * 1000   # ms a session may rest
        self.sessions = []      # [id, last used ms, log level, client name, can sample|elicit]
        self.late = []          # [socket, due ms]: wrong tokens waiting out a delay
        self.fails = 0          # wrong tokens, each within a minute of the last
        self.failed = 0         # ticks_ms of the last
        self.calls = self.requests = self.clients = 0
        self.answer = None      # [request id, the client's response]: a call waits for it
        self.seq = 0
        # a call's output (http.Ctx): one block, made while the heap
        # is whole; made per call, a hole that large was often not to be found
        self.obuf = bytearray(OUTPUT)

    def due(self):
        """ms until a delayed 401 is due (-1: nothing to do)."""
        if not self.late:
            return -1
        from compat import ticks_ms, ticks_diff
        now = ticks_ms()
        return max(0, min(ticks_diff(t, now) for _, t in self.late))

    def serve(self, ready):
        """Send the delayed 401s now due; answer one waiting connection if
        ready (the listening socket is readable). The GC collects early
        meanwhile, as while ai.* and mcp.* talk to a server (compat.tighten):
        what a request leaves behind stays low in the heap. Every module
        the request imported is dropped afterwards."""
        from compat import tighten, loosen
        before = shell.loaded()
        gc_was = tighten()
        try:
            from mcpserver import http
            http.serve(self, ready)
        except Exception:   # never the console's end (out of memory importing...)
            if ready:       # the connection would stay ready: let it go
                try:
                    self.sock.accept()[0].close()
                except OSError:
                    pass
        finally:
            http = None
            shell.forget(before)
            loosen(gc_was)


def serve(port=8765, bind="0.0.0.0"):
    """The server as a task of a program's asyncio loop (mcpserver/task.py):
    asyncio.create_task(mcpserver.serve(8765)); cancel it to stop."""
    from mcpserver import task
    return task.serve(port, bind)


# -- for /bin scripts during a call --------------------------------------------

def content(item):
    """Add a content item ({"type": "image", "data": base64, "mimeType": ...},
    {"type": "resource", ...}) to the result of the call being served; at
    the console a short line stands for it."""
    if call_served is None:
        r = item.get("resource")
        shell.out("[%s %s]" % (item.get("type"), item.get("mimeType") or (
            r.get("uri") if isinstance(r, dict) else "")))
    else:
        call_served.add(item)


def progress(done, total=None, message=None):
    """notifications/progress to the client, if it asked for progress."""
    if call_served is not None:
        call_served.progress(done, total, message)


def sample(prompt, max_tokens=100):
    """Ask the client's model -> (text, None) or (None, err)."""
    if call_served is None:
        return None, "not serving an MCP call"
    return call_served.sample(prompt, max_tokens)


def elicit(message, schema):
    """Ask the client's user to fill a form (schema: a flat JSON Schema
    object) -> ({"action": "accept"|"decline"|"cancel", "content"}, None)
    or (None, err)."""
    if call_served is None:
        return None, "not serving an MCP call"
    return call_served.elicit(message, schema)
