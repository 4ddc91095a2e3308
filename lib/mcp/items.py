# Tool result items other than text (mcp/client.py's _Call streams text
# items itself), imported by the first one: image/audio/blob sizes counted
# from their base64 stream, resource links, embedded resources; and
# structuredContent copied as compact JSON while it is read (copy()).
import jsonstream
from mcp.exchange import KeepChars

MAX_RESOURCE = 4096    # embedded text resource, inline part (chars)


class B64:
    """Counts the decoded size of a base64 string streamed in pieces."""

    def __init__(self):
        self.n = 0
        self.tail = ""

    def add(self, s):
        self.n += len(s) - s.count("\n") - s.count("\r")
        self.tail = (self.tail + s[-2:])[-2:]

    def size(self):
        pad = 2 if self.tail == "==" else (1 if self.tail[-1:] == "=" else 0)
        return self.n * 3 // 4 - pad


def piece(it, k, s):
    """A streamed string of a content item it other than its text: an
    embedded resource's text (kept up to MAX_RESOURCE) or base64 data/blob
    (only counted). s None: the end of the string."""
    if k == "text":
        c = it.get("rtext")
        if c is None:
            c = it["rtext"] = KeepChars(MAX_RESOURCE)
        if s is not None:
            c.add(s)
    else:
        b = it.get("b64")
        if b is None:
            b = it["b64"] = B64()
        if s is not None:
            b.add(s)


def item(add, t, it):
    """Word a finished content item of type t (not text) through add()."""
    mime = it.get("mimeType") or "?"
    uri = it.get("uri")
    b = it.get("b64")
    size = b.size() if b is not None else 0
    if t in ("image", "audio"):
        add("[%s %s, %d bytes]" % (t, mime, size))
    elif t == "resource_link":
        name = it.get("name")
        add(("%s <%s>" % (name, uri)) if name else ("<%s>" % uri))
    elif t == "resource":
        rt = it.get("rtext")
        if rt is not None:
            add("[resource %s]\n" % uri)
            add(rt.text())
            if rt.cut:
                add("... (truncated)")
        else:
            add("[blob %s %s, %d bytes]" % (uri, mime, size))
    else:
        add("[%s content]" % t)


def copy(p, write):
    """The value at the parser's cursor as compact JSON text, to write(str)
    in pieces (strings streamed); nothing is held but one flag per open
    container."""
    J = jsonstream
    stack = []      # per open container: True once it holds an element
    while True:
        t = p.peek()
        if t == J.END_OBJ or t == J.END_ARR:
            p.next()
            write("}" if t == J.END_OBJ else "]")
            stack.pop()
        else:
            if stack:
                if stack[-1]:
                    write(",")
                stack[-1] = True
            if t == J.KEY:
                p.next()
                write(J.dumps(p.value) + ":")
                t = p.peek()
            if t == J.OBJ or t == J.ARR:
                p.next()
                write("{" if t == J.OBJ else "[")
                stack.append(False)
                continue
            if t == J.STR:
                write('"')
                p.stream_string(lambda s: write(J.dumps(s)[1:-1]))
                write('"')
            else:
                p.next()
                write(J.dumps(p.value))
        if not stack:
            return
