"""Files on a message: what a message's "files" become in a request,
checked before anything is sent. Imported by the first message that has
files (a chat without them never loads it).

    {"role": "user", "content": "what is in this picture?", "files": ["/photo.jpg"]}

A file is a flash path (under the store root, as the console's paths),
or the reference a history on flash keeps instead of the bytes, ref():
{"path", "size", "type", "sha"} (the first 16 hex digits of its SHA-256).
Its type comes from its first bytes: JPEG, PNG, GIF, WebP, PDF, else UTF-8
text (the whole file checked), else it is refused. What a model takes is
catalogue data (ai/catalog.py FILES: the types, the most base64 bytes of a
file and of a request, each row with its source).

Each style writes what parts(cfg, m, uri) gives, in its own wire format:
per file a label, "[file /photo.jpg, 48 KB, image/jpeg]" (the model
knows which file it sees; `ai history` shows the same line), then the
file as a jsonstream.RawFile that makes a JSON string of it: base64
(after a data URI's head with uri),
or a text file's text escaped. A file that cannot be sent is its label
alone, saying why: "[file /photo.jpg: changed or gone]".

Strict and lenient: a file given as a path, or a reference from the turn
being asked (a history on flash marks those "_new"), is checked strictly:
an unknown type, a model that takes no pictures (or not that type), a file
over the model's limit are a StyleError that names the file, the type or
size and the model, raised in the request's first pass (the length count,
before any connection), so nothing is sent. A reference from an earlier
turn, and a tool's file (a picture a tool saved), are sent again while
unchanged (same size and hash) and the model takes them, else their label
says why not. Where the catalogue says the server decides ("?": Ollama,
Copilot), pictures of the types it lists are sent and the server answers.
The request with its files is held to the provider's request limit once
its length is counted (over()).

Per request, cfg["_files"] keeps each file's verdict (the passes and the
retries of one ask() check a file once). Memory: no file is held: the
check reads 12 bytes (a text file: all of it, 256 at a time), a hash
reads 512 at a time, and the bytes go from flash into the request in
pieces (jsonstream.RawFile with encode).
"""
import os

import store
from jsonstream import RawFile
from ai.styles import StyleError
from compat import const

_PIECE = const(512)      # bytes read at a time to hash or check a file
# the types from the first bytes: (magic, offset, MIME type); the catalogue's
# word for one is its subtype ("jpeg")
_MAGIC = ((b"\xff\xd8\xff", 0, "image/jpeg"), (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
          (b"GIF87a", 0, "image/gif"), (b"GIF89a", 0, "image/gif"),
          (b"WEBP", 8, "image/webp"), (b"%PDF-", 0, "application/pdf"))
TEXT = "text/plain"


def host(p):
    """The host path of a flash path ("/photo.jpg": under the store root)."""
    return store.root().rstrip("/") + "/" + p.lstrip("/")


def sniff(head):
    """The MIME type of a file's first bytes, or None (not a known binary)."""
    for magic, at, mime in _MAGIC:
        if head[at:at + len(magic)] == magic and (at == 0 or head[:4] == b"RIFF"):
            return mime
    return None


def size_text(n):
    """A size as a person reads it: 1 byte, 812 bytes, 48 KB, 1.5 MB."""
    if n < 1024:
        return "%d byte%s" % (n, "" if n == 1 else "s")
    if n < 1048576:
        return "%d KB" % ((n + 512) // 1024)
    return "%d.%d MB" % (n // 1048576, n % 1048576 * 10 // 1048576)


def label(path, size, mime, why=None):
    return "[file %s, %s, %s%s]" % (path, size_text(size), mime, ": " + why if why else "")


def _kind(f):
    """The MIME type of the open file f: from its first bytes, else
    text/plain when all of it is UTF-8, else None."""
    buf = bytearray(_PIECE)
    mv = memoryview(buf)
    n = f.readinto(mv[0:12]) or 0
    mime = sniff(bytes(mv[0:n]))
    if mime is not None:
        return mime
    keep = n        # bytes not checked yet (a character cut short waits for the next read)
    while True:
        got = f.readinto(mv[keep:]) or 0
        n = keep + got
        cut = n
        i = n - 1
        while i >= 0 and i > n - 4 and buf[i] & 0xC0 == 0x80:
            i -= 1
        if got and i >= 0 and buf[i] >= 0xC0 and n - i < (2 if buf[i] < 0xE0 else 3 if buf[i] < 0xF0 else 4):
            cut = i
        try:
            str(mv[0:cut], "utf-8")
        except UnicodeError:
            return None
        if not got:
            return TEXT
        buf[0:n - cut] = buf[cut:n]
        keep = n - cut


def _sha(f):
    import hashlib
    from binascii import hexlify
    h = hashlib.sha256()
    buf = bytearray(_PIECE)
    while True:
        n = f.readinto(buf)
        if not n:
            return hexlify(h.digest()[:8]).decode()
        h.update(memoryview(buf)[0:n])


def ref(path):
    """The reference a history keeps for the file at flash path: {"path",
    "size", "type", "sha"}; StyleError when it is missing or of no type
    this sends."""
    h = host(path)
    try:
        size = os.stat(h)[6]
        with open(h, "rb") as f:
            mime = _kind(f)
            if mime is None:
                raise StyleError(_unknown(path))
            f.seek(0)
            sha = _sha(f)
    except OSError:
        raise StyleError("%s: no such file" % path)
    return {"path": path, "size": size, "type": mime, "sha": sha}


def _unknown(path):
    return "%s is not a picture (JPEG, PNG, GIF, WebP), a PDF or UTF-8 text" % path


def _reason(cfg, mime, size):
    """Why cfg's model cannot take a file of this type and size, or None."""
    if mime == TEXT:
        return None
    from ai import catalog
    words = catalog.efforts(cfg["provider"], cfg["model"], catalog.FILES) or ("-", "-", "-")
    types = words[0].lstrip("?")
    word = mime[mime.find("/") + 1:]
    what = "PDF" if word == "pdf" else "pictures"
    if types == "-" or word not in types.split(","):
        ok = [t for t in types.split(",") if (t == "pdf") == (word == "pdf") and t != "-"]
        if not ok:
            return "%s takes no %s" % (cfg["model"], what)
        return "%s takes %s only" % (cfg["model"], ", ".join(ok))
    most = words[1]
    if most != "-" and 4 * ((size + 2) // 3) > int(most):
        return "%s as base64, over %s's %s a file" % (
            size_text(4 * ((size + 2) // 3)), cfg["provider"], size_text(int(most)))
    return None


def _check(cfg, f, strict):
    """A file's verdict: (label, name, MIME type, host path, size) to send,
    or (label,) alone; StyleError when strict and it cannot be sent."""
    rec = f if isinstance(f, dict) else None
    path = rec.get("path") if rec else f
    if not isinstance(path, str) or not path:
        raise StyleError("%s: a file is a flash path, not %r" % (cfg["provider"], path))
    h = host(path)
    try:
        size = os.stat(h)[6]
    except OSError:
        size = None
    mime = rec.get("type") if rec else None
    if size is None or rec and size != rec.get("size"):
        if strict:
            raise StyleError("%s: %s: %s; nothing was sent" % (
                cfg["provider"], path, "no such file" if size is None else "changed since it was attached"))
        return ("[file %s: changed or gone]" % path,)
    if rec is None or not strict:       # (a reference of this turn was made just now)
        with open(h, "rb") as fh:
            if rec is None:
                mime = _kind(fh) if size else None
                if mime is None:
                    raise StyleError("%s: %s; nothing was sent" % (
                        cfg["provider"], _unknown(path) if size else path + " is empty"))
            elif _sha(fh) != rec.get("sha"):
                return ("[file %s: changed or gone]" % path,)
    why = _reason(cfg, mime, size)
    if why is not None:
        if strict:
            raise StyleError("%s: %s (%s, %s): %s; nothing was sent" % (
                cfg["provider"], path, mime, size_text(size), why))
        return (label(path, size, mime, "not sent, " + why),)
    return (label(path, size, mime), path[path.rfind("/") + 1:], mime, h, size)


def parts(cfg, m, uri=False):
    """The files of message m as [(label, name, MIME type, value)]: value
    a jsonstream.RawFile that makes a JSON string of the file (base64,
    after a data URI's head with uri; a text file's text), or None when the label says why the file is not sent."""
    seen = cfg.get("_files")
    if seen is None:
        seen = cfg["_files"] = {}
    user = m.get("role") == "user"
    out = []
    for f in m.get("files") or ():
        rec = isinstance(f, dict)
        strict = user and (not rec or m.get("_new") is True)
        key = "%s %s %s" % (f.get("path"), f.get("sha"), strict) if rec else f
        v = seen.get(key)
        if v is None:
            v = seen[key] = _check(cfg, f, strict)
        if len(v) == 1:
            out.append((v[0], None, None, None))
            continue
        mime = v[2]
        if mime != TEXT:
            seen["_images"] = True
        text = mime == TEXT
        out.append((v[0], v[1], mime, RawFile(v[3], 0, v[4], "text" if text else "base64",
                                             "data:%s;base64," % mime if uri and not text else "")))
    return out


def content(cfg, ms, part, text=None):
    """The content parts of the files of the messages ms (parts(): per file
    its label, then the picture, PDF or text), then text; part(kind, name,
    value) makes one of the style's parts, kind "text", "image" or "pdf"
    (the OpenAI styles' content lists)."""
    out = []
    for m in ms:
        for label, name, mime, v in parts(cfg, m, True):
            out.append(part("text", None, label))
            if v is not None:
                out.append(part("text" if mime == TEXT else
                                "pdf" if mime == "application/pdf" else "image", name, v))
    if text:
        out.append(part("text", None, text))
    return out


def shown(msg, made, o, cfg):
    """The files a tool made (flash paths), as references on its result
    msg, those the model takes: it sees them in the next request (for
    another the result's text says what there is). cfg: the resolved
    settings of o, or None (resolved here). Returns cfg (ai/loop.py)."""
    if cfg is None:
        from ai.config import resolve
        cfg = resolve(o)
    for p in made:
        try:
            r = ref(p)
        except StyleError:
            continue            # gone, or of no type a model takes
        if takes(cfg, r["type"]):
            msg.setdefault("files", []).append(r)
    return cfg


def sees(provider, model):
    """What a model takes besides text, for a person (ai status, ai
    models), from the catalogue: "jpeg, png, gif, webp pictures and PDF",
    "... if the model sees them" where the server decides, or None."""
    from ai import catalog
    t = (catalog.efforts(provider, model, catalog.FILES) or ("-",))[0]
    words = [w for w in t.lstrip("?").split(",") if w != "-"]
    if not words:
        return None
    pics = [w for w in words if w != "pdf"]
    said = "%s pictures" % ", ".join(pics) if pics else ""
    if "pdf" in words:
        said += (" and " if said else "") + "PDF"
    return said + (" if the model sees them" if t[0] == "?" else "")


def images(cfg):
    """True when the request carries a picture or a PDF (after its first pass)."""
    f = cfg.get("_files")
    return bool(f and f.get("_images"))


def over(cfg, size):
    """StyleError when a request with files is longer than the provider
    takes (its length counted: nothing was sent)."""
    from ai import catalog
    words = catalog.efforts(cfg["provider"], cfg["model"], catalog.FILES)
    if words and words[2] != "-" and size > int(words[2]):
        raise StyleError("%s: the request with its files is %s, over %s's %s a request; "
                         "nothing was sent (send fewer or smaller files)" % (
                             cfg["provider"], size_text(size), cfg["provider"],
                             size_text(int(words[2]))))


def takes(cfg, mime):
    """True when cfg's model takes a file of this type (as far as the
    catalogue knows: where the server decides, True)."""
    return _reason(cfg, mime, 0) is None
