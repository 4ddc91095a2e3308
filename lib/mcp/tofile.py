# A result written whole to a file as it is read (mcp.call and mcp.read
# with into=PATH), imported on first use. The text is flattened as a str
# result is (mcp/client.py) but not cut: str pieces (separators, items
# other than text, structuredContent) are encoded as they come, and a text
# item's bytes go from the parser's buffer to the file through one buffer
# (jsonstream.Parser.stream_bytes): no str per piece, nothing allocated
# per byte. The call gives the size in bytes; a tool error's text goes to
# the file too and its start into the error line.
import httpc
from compat import const
from mcp import client
from mcp.exchange import McpError

_TOOL_ERROR = const(300)       # bytes of a tool error's text in its error line


class File:
    """The file a result goes to: add(str) for pieces, copy(parser) for a
    text item's bytes, drop() to start again (a message that was not our
    response carried text)."""

    def __init__(self, path):
        self.path = path
        self.buf = bytearray(512)
        self.f = open(path, "wb")

    def add(self, s):
        self.f.write(s.encode())

    def copy(self, p):
        """The string at the parser's cursor, its UTF-8 bytes; -> their count."""
        n = p.stream_bytes(self.f.write, self.buf)
        if n is None:
            p.skip_value()      # (not a string: no text)
        return n or 0

    def drop(self):
        self.f.close()
        self.f = open(self.path, "wb")


def whole(conn, path, read, *args):
    """(size, err): read(*args, File(path), client.WHOLE) -> the bytes it
    wrote. A file that cannot be written is said so; after any other
    failure it holds what was read."""
    def run():
        try:
            f = File(path)
            try:
                return client.done(read(*args, f, client.WHOLE))
            finally:
                f.f.close()
        except OSError as e:
            if isinstance(e, httpc.HTTPError):
                raise
            raise McpError("%s: cannot write %s (%s)" % (conn.name, path, e))
    size, err = client.guard(conn, run)
    if conn.last_is_error and err is None:
        with open(path, "rb") as f:
            e = f.read(_TOOL_ERROR + 1)
        head = client.utf8_head(e, _TOOL_ERROR) + "..." if len(e) > _TOOL_ERROR else str(e, "utf-8")
        return None, "tool error: " + (head or "(no details)")
    return (None, err) if err else (size, None)
