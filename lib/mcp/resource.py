# Resources of an MCP server (mcp.resources / mcp.read, `mcp resources`,
# `mcp read` and the chat's <server>__read_resource tool), imported on
# first use. Only for a server that declares the "resources" capability.
#
# Wire format:
#   resources/list {cursor?} -> {"resources": [{uri, name, title?,
#       description?, mimeType?, size?}, ...], "nextCursor"?}
#   resources/read {uri} -> {"contents": [{uri, mimeType?, text} |
#       {uri, mimeType?, blob (base64)}, ...]}
# Memory: a listing hands each resource to each() as it is parsed (one in
# RAM at a time, its description cut at 1 KB); a read streams text items
# into dest.add() cut at limit bytes while they are read (the rest only
# counted: "... (truncated, N bytes)"), or whole to a file (into=,
# mcp/tofile.py), and a blob is described, not read:
# "[blob URI MIME, N bytes]" (its size counted from the base64 stream).
from compat import collect, const, drive
from mcp import client, exchange, items
from mcp.exchange import McpError

# exchange.walk's actions (its const names are not attributes under MicroPython)
_SKIP = const(0)
_TAKE = const(1)
_STREAM = const(2)
_DIVE = const(3)
_COPY = const(4)
_MAX_PAGES = const(16)
_MAX_LISTED = const(1000)       # resources walked in one listing (all pages)
READ_TOOL = "read_resource"     # the chat's tool: <server>__read_resource


def check(conn):
    if "resources" not in conn.caps:
        raise McpError("%s offers no resources" % conn.name)


class _List(client.Listing):
    """result.resources[*] -> each({uri, name, title?, mimeType?, size?,
    description?}) + nextCursor."""

    def __init__(self, each):
        self.each = each
        self.count = 0
        self.cur = self.i = None

    def reset(self):
        self.cur = self.i = self.cursor = None

    def want(self, path, n):
        k = path[-1]
        if n == 2:
            return _DIVE if k == "resources" else (
                _TAKE if k == "nextCursor" else _SKIP)
        if n == 3:
            return _DIVE
        if n == 4:
            if k == "description":
                return _STREAM
            if k in ("uri", "name", "title", "mimeType", "size"):
                return _TAKE
        return _SKIP

    def _item(self, path):
        if path[2] != self.i:
            self.flush()
            self.i = path[2]
            self.cur = {}
        return self.cur

    def flush(self):
        c = self.cur
        self.cur = None
        if c is None or not isinstance(c.get("uri"), str):
            return
        if self.count >= _MAX_LISTED:
            raise McpError("more than %d resources" % _MAX_LISTED)
        self.count += 1
        d = c.get("description")
        if d is not None:
            c["description"] = d.text() + ("..." if d.cut else "")
        self.each(c)


def _walk(conn, each):
    check(conn)
    acc = _List(each)
    cursor = None
    for _ in range(_MAX_PAGES):
        drive(exchange.request(conn, "resources/list", {"cursor": cursor} if cursor else None, acc))
        acc.flush()
        cursor = acc.cursor
        if not isinstance(cursor, str) or not cursor:
            return acc.count
        collect()
    raise McpError("%s: resources/list has more than %d pages" % (conn.name, _MAX_PAGES))


def listing(conn, each):
    """(count, err): each resource to each(dict) as it is parsed."""
    return client.guard(conn, _walk, conn, each)


class _Read(client.PassBytes):
    """result.contents[*]: text items to dest (cut at limit bytes, or whole
    to a file: mcp/tofile.py), blobs described. Items are separated by a
    blank line."""

    def reset(self):
        if self.total:
            self.dest.drop()
        self.total = 0
        self.i = None
        self.it = {}

    def want(self, path, n):
        if n == 2:
            return _DIVE if path[1] == "contents" else _SKIP
        if n == 3:
            return _DIVE
        k = path[-1]
        if n == 4:
            if k == "text" and self.limit == client.WHOLE:
                return _COPY
            if k == "text" or k == "blob":
                return _STREAM
            if k == "uri" or k == "mimeType":
                return _TAKE
        return _SKIP

    def _item(self, path):
        if path[2] != self.i:
            self.flush()
            self.i = path[2]
            if self.total:
                self.add("\n\n")

    def flush(self):
        it = self.it
        self.it = {}
        b = it.get("b64")
        if b is not None:
            self.add("[blob %s %s, %d bytes]" % (it.get("uri"), it.get("mimeType") or "?",
                                                 b.size()))

    def put(self, path, v):
        self._item(path)
        self.it[path[-1]] = v

    def copy(self, path, p):
        self._item(path)
        self.total += self.dest.copy(p)

    def piece(self, path, s):
        self._item(path)
        if path[-1] == "text":
            if s:
                return self.add(s)
        else:
            b = self.it.get("b64")
            if b is None:
                b = self.it["b64"] = items.B64()
            if s is not None:
                b.add(s)

    def finish(self):
        self.flush()
        if self.total > self.limit:
            self.dest.add(client.PassBytes.NOTE % self.total)


def _read(conn, uri, dest, limit, opener=None):
    """resources/read: a step generator (mcp/exchange.py) -> the size."""
    check(conn)
    acc = _Read(dest, limit)
    yield from client.pending(conn, "resources/read", {"uri": uri}, acc, opener)
    acc.finish()
    return acc.total


def read(conn, uri, out=None, limit=client.MAX_TEXT, into=None):
    """(text, err): the resource's contents as text (see the top comment);
    with out, the text goes to out.add(piece) and text is ""; with into (a
    file path), the whole text is written there: (its size in bytes, err)."""
    conn.last_is_error = False
    if not isinstance(uri, str) or not uri:
        return None, "read_resource needs a uri (a string)"
    if into is not None:
        from mcp import tofile
        return tofile.whole(conn, into, _read, conn, uri)
    if out is None:
        text, err = client.as_text(conn, limit, _read, conn, uri)
    else:
        text, err = "", client.guard(conn, _read, conn, uri, out, limit)[1]
    return (None, err) if err else (text, None)
