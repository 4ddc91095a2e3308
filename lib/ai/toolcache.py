"""Tool files: the tools cache and the tools of one ai.run, on flash.

The tools cache holds the tools of every configured MCP server, listed once
so that ai.run can offer them without connecting to every server first
(ai.tools_cache_build / tools_cache / tools_cache_clear, in ai/tools.py with
the console's listing and dropping a server); ai.run(mcps=...)
lists the named servers into tmp/tools.jsonl for the run.

File format: one JSON object per line: {"server", "name" (as offered:
<server>__<tool>, cleaned, with a stable hash when cleaning changed it or
it collides: loop.tool_name), "remote" (the server's own name; null for
the <server>__read_resource tool offered for a server that declares
resources: mcp/resource.py), "description", "parameters", "title"?,
"annotations"?} (a local tool offered beside MCP tools: server null).

Memory: tools are written as the MCP client parses them (one tool in RAM at
a time) and read back a line at a time (ai/lines.py), the parameters schema
as a jsonstream.RawFile that a request copies from the file: the count of
tools costs no heap. A file holds at most MAX_TOOLS.
"""
import jsonstream
import store
from compat import drive
from ai.loop import tool_name

MAX_TOOLS = 256


class Tools:
    """A tool file. Iterating it gives its tools, a line at a time; find()
    looks one up by name. Made with write=True it is filled: list(server)
    writes the tools of a configured MCP server (add is the each() of mcp's
    client.tools()), add(d) a local definition (server None). A name written twice
    or a tool over MAX_TOOLS is refused; names seen are kept as bits of
    their hash (64 bytes), a hit checked against the file; taken: names
    offered besides the file."""

    def __init__(self, path, write=False, taken=()):
        self.path = path
        self.f = open(path, "wb") if write else None
        self.count = 0
        self.server = None
        self.bits = bytearray(64)
        self.taken = taken

    def __iter__(self):
        from ai import lines
        return lines.read(self.path, "parameters", 0)

    def find(self, name):
        """The line of the tool offered as name, or None."""
        g = iter(self)
        try:
            for d in g:
                if d.get("name") == name:
                    return d
        finally:
            g.close()       # (its file now, not when collected)
        return None

    def add(self, d):
        """Write tool definition d: a tool of self.server (named as offered
        here) or, server None, a local one."""
        from mcp.exchange import McpError
        server = self.server
        remote = d["name"]
        name = tool_name(server, remote) if server else remote
        hit = self._holder(name)
        if hit is not None and server and not (
                isinstance(hit, dict) and hit.get("server") == server and hit.get("remote") == remote):
            # another tool whose cleaned name is the same (a.b and a_b, or
            # s + _x and s_ + x): this one takes the hashed form (stable)
            name = tool_name(server, remote, True)
            hit = self._holder(name)
        if hit is not None:
            raise McpError("tool name '%s' is offered twice" % name)
        h = hash(name) & 511
        self.bits[h >> 3] |= 1 << (h & 7)
        if self.count >= MAX_TOOLS:
            raise McpError("more than %d tools in all (remove a server: mcp del NAME)"
                           % MAX_TOOLS)
        line = {"server": server, "name": name, "remote": remote,
                "description": d.get("description") or "",
                "parameters": d.get("parameters") or {}}
        if d.get("read"):
            line["remote"] = None
        for k in ("title", "annotations"):      # shown when asking
            if d.get(k):
                line[k] = d[k]
        jsonstream.dump(line, self.f.write, view=True)
        self.f.write(b"\n")
        self.count += 1

    def _holder(self, name):
        """What offers name already: True (besides the file), its line, or
        None."""
        if name in self.taken:
            return True
        h = hash(name) & 511
        if not self.bits[h >> 3] & (1 << (h & 7)):
            return None
        self.f.flush()
        return self.find(name)

    def list(self, server):
        """List the tools of a configured MCP server into the file:
        (count, err); on an error nothing of that server stays."""
        return drive(self.listing(server))

    def listing(self, server, opener=None):
        """list() as a step generator (compat.drive; opener: under asyncio,
        where mcp.aio's calls are handed to the driver to await)."""
        # where this server's lines start: the file's size once flushed, not
        # tell() (MicroPython's tell() of a file reopened to append is 0
        # until it is written to)
        self.f.flush()
        at, n = store.size(self.path), self.count
        if opener is None:
            import mcp
            from mcp import client
            conn, err = mcp.connect_named(server)
        else:
            from mcp import aio
            conn, err = yield aio.connect_named(server)
        if conn:
            self.server = server
            try:
                if opener is None:
                    _, err = client.tools(conn, False, self.add)
                else:
                    _, err = yield aio.tools(conn, self.add)
                if not err and "resources" in conn.caps:
                    self.add(_reader(server))
            finally:
                if opener is None:
                    mcp.close(conn)
                else:   # (its DELETE in a task of its own)
                    import asyncio
                    asyncio.create_task(aio.close(conn))
        if err:
            self.f.close()
            store.truncate(self.path, at)
            self.f = open(self.path, "ab")
            self.count = n
            return 0, err
        return self.count - n, None

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None


def _reader(server):
    """The tool that reads a resource of server (links a tool gave)."""
    return {"name": "read_resource", "read": True, "annotations": {"readOnlyHint": True},
            "description": "Read a resource of the MCP server %s by its URI (a link "
                           "one of its tools gave, e.g. file:///x); text comes back "
                           "as it is, binary content only described." % server,
            "parameters": {"type": "object", "required": ["uri"], "properties": {
                "uri": {"type": "string", "description": "the resource's URI"}}}}
