# Tool result items other than text (mcp/client.py's _Call streams text
# items itself), imported by the first one: an image's or audio's base64
# decoded to a file on flash while it is read (Saved: never whole in RAM;
# kept as /mcp-files/<hash>.<ext>, the newest KEEP of them; its line says
# where, "[image image/png, 1234 bytes: /mcp-files/0123456789abcdef.png]", and the call
# lists it in conn.last_files), blob sizes counted from their base64
# stream, resource links, embedded resources; and structuredContent copied
# as compact JSON while it is read (copy()).
import jsonstream
from compat import const
from mcp.exchange import KeepChars

MAX_RESOURCE = 4096    # embedded text resource, inline part (chars)
MAX_FILE = 1048576     # an image or audio saved to flash (bytes); a larger one is only counted
KEEP = const(8)        # files kept in FOLDER (the oldest go first)
# (not "mcp": a folder on flash named like a module shadows the frozen
# one, as '' comes before '.frozen' on sys.path: the next boot's `import
# mcp` would find the folder)
FOLDER = "mcp-files"
_TYPES = "image/png .png image/jpeg .jpg image/gif .gif image/webp .webp audio/wav .wav audio/mpeg .mp3"


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


class Saved(B64):
    """An image's or audio's base64 decoded into tmp/item as it streams
    (whole 4-character groups; the rest waits for the next piece), hashed
    and counted; beyond MAX_FILE only counted."""

    def __init__(self):
        B64.__init__(self)
        import hashlib
        import store
        store.makedirs(store.path("tmp"))
        self.path = store.path("tmp", "item")
        self.f = open(self.path, "wb")
        self.h = hashlib.sha256()
        self.rest = ""
        self.done = 0       # bytes written

    def add(self, s):
        B64.add(self, s)
        if self.f is None:
            return
        s = self.rest + s.replace("\n", "").replace("\r", "")
        k = len(s) & ~3
        self.rest = s[k:]
        if k:
            try:
                from binascii import a2b_base64
                b = a2b_base64(s[:k])
            except ValueError:      # not base64: only counted
                return self.close(False)
            self.done += len(b)
            if self.done > MAX_FILE:
                return self.close(False)
            self.f.write(b)
            self.h.update(b)

    def close(self, whole=True):
        """The end of the string (whole: all of it was written)."""
        if self.f is not None:
            self.f.close()
            self.f = None
            if not whole or self.rest:
                self.h = None

    def keep(self, mime):
        """Move the file to /mcp-files/<hash>.<ext>; its flash path, or None."""
        if self.h is None or not self.done:
            return None
        import os
        import store
        from binascii import hexlify
        w = _TYPES.split()
        ext = w[w.index(mime) + 1] if mime in w else ".bin"
        name = hexlify(self.h.digest()[:8]).decode() + ext
        store.makedirs(store.path(FOLDER))
        store.replace(self.path, store.path(FOLDER, name))
        d = store.path(FOLDER)
        old = sorted((os.stat(d + "/" + n)[8], n) for n in os.listdir(d))
        for _, n in old[:-KEEP] if len(old) > KEEP else ():
            if n != name:
                os.remove(d + "/" + n)
        return "/" + FOLDER + "/" + name


def piece(it, k, s):
    """A streamed string of a content item it other than its text: an
    embedded resource's text (kept up to MAX_RESOURCE), an image's or
    audio's data (saved to flash: Saved) or a blob (only counted). s None:
    the end of the string."""
    if k == "text":
        c = it.get("rtext")
        if c is None:
            c = it["rtext"] = KeepChars(MAX_RESOURCE)
        if s is not None:
            c.add(s)
    else:
        b = it.get("b64")
        if b is None:
            b = it["b64"] = Saved() if k == "data" else B64()
        if s is not None:
            b.add(s)
        elif k == "data":
            b.close()


def item(add, t, it):
    """Word a finished content item of type t (not text) through add(); an
    image or audio kept on flash: its flash path. -> that path or None."""
    mime = it.get("mimeType") or "?"
    uri = it.get("uri")
    b = it.get("b64")
    size = b.size() if b is not None else 0
    if t in ("image", "audio"):
        kept = b.keep(mime) if isinstance(b, Saved) else None
        add("[%s %s, %d bytes%s]" % (t, mime, size, ": " + kept if kept else ""))
        return kept
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
