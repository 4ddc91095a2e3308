"""The board's MCP server's resources (see mcpserver/__init__.py,
mcpserver/http.py), imported for a resources/ request. In this order:
- board://state: the board's state as one JSON object (application/json):
  {"board", "heap": {"used", "free"}, "flash": {"total", "free"},
  "uptime_s", "wifi": {"connected", "ssid", "address"}} (a part the
  interpreter cannot tell is null);
- /bin scripts whose SPEC declares "resource": "<uri>" (and "readonly":
  True; "mime": its type, text/plain by default): reading one runs the
  script and gives its output, like a tool call;
- every flash file as file:///<path> (settings, history and *.tmp never),
  with its size and a type from its name.
resources/list pages by _PAGE (nextCursor: how many came before, as text).
resources/read gives a text file as "text" and any other as "blob"
(base64), streamed from the file in pieces, at most _MAX_READ bytes; a
file that holds a secret of the settings is not served.
"""
import os

import jsonstream
import store
import shell
from compat import const, unquote
from mcpserver import http as h

_PAGE = const(50)
_MAX_READ = const(65536)
_MAX_DEPTH = const(8)
_MIME = (".py text/x-python;.json application/json;.jsonl application/jsonl;.txt text/plain;"
         ".md text/markdown;.csv text/csv;.html text/html;.log text/plain;.png image/png;"
         ".jpg image/jpeg;.wav audio/wav;.der application/pkix-cert;.pem application/x-pem-file")


def _mime(p):
    i = p.rfind(".")
    if i > 0:
        j = _MIME.find(p[i:].lower() + " ")
        if j >= 0:
            k = _MIME.find(";", j)
            return _MIME[_MIME.find(" ", j) + 1:k if k > 0 else len(_MIME)]
    return "text/plain"


def _scripts():
    """(uri, spec, SPEC dict) of the /bin scripts that are resources."""
    for spec in shell.commands():
        if spec["path"]:
            d = shell.read_spec(spec["path"])
            if d and isinstance(d.get("resource"), str) and d.get("readonly") is True:
                yield d["resource"], spec, d


def _files():
    """(shown path, size) of every flash file a client may see: a folder's
    files, then its folders, each in name order (stable between pages)."""
    stack = ["/"]
    while stack:
        d = stack.pop()
        host = shell.resolve(d)
        try:
            names = sorted(os.listdir(host))
        except OSError:
            continue
        dirs = []
        for n in names:
            p = d.rstrip("/") + "/" + n
            if n.endswith(".tmp") or shell.private(p):
                continue
            f = host.rstrip("/") + "/" + n
            if store.is_dir(f):
                if p.count("/") < _MAX_DEPTH:
                    dirs.append(p)
            else:
                n = store.size(f)
                if n is not None:
                    yield p, n
        while dirs:
            stack.append(dirs.pop())


STATE = "board://state"


def state():
    """The board's state (see the module text)."""
    from shell import builtins
    from compat import ticks_ms, board
    hp, fl = builtins.heap(), builtins.flash()
    w = {"connected": False, "ssid": None, "address": None}
    try:
        import network
        n = network.WLAN(network.STA_IF)
        if n.isconnected():
            w = {"connected": True, "ssid": n.config("essid"), "address": n.ifconfig()[0]}
    except (ImportError, OSError, AttributeError, ValueError):
        pass
    return {"board": board().get("board"),
            "heap": hp and {"used": hp[0], "free": hp[1]},
            "flash": fl and {"total": fl[0], "free": fl[1]},
            "uptime_s": ticks_ms() // 1000, "wifi": w}


def _listing():
    yield {"uri": STATE, "name": "board state", "mimeType": "application/json",
           "description": "heap, flash, uptime and WiFi of the board, as JSON"}
    for uri, spec, d in _scripts():
        yield {"uri": uri, "name": spec["name"], "description": spec["desc"],
               "mimeType": str(d.get("mime") or "text/plain")}
    for p, size in _files():
        yield {"uri": "file://" + p, "name": p, "mimeType": _mime(p), "size": size}


def resources(srv, method, rid, params, out):
    if method == "resources/list":
        c = params.get("cursor")
        try:
            skip = int(c) if c is not None else 0
        except (ValueError, TypeError):
            return out.message(h.rpc_error(rid, -32602, "bad cursor"))
        n = 0       # a counting pass: is there a page after this one?
        for _ in _listing():
            n += 1
            if n > skip + _PAGE:
                break

        def page():
            i = 0
            for r in _listing():
                if i >= skip + _PAGE:
                    return
                if i >= skip:
                    yield r
                i += 1
        res = {"resources": jsonstream.Array(page)}
        if n > skip + _PAGE:
            res["nextCursor"] = str(skip + _PAGE)
        return out.message({"jsonrpc": "2.0", "id": rid, "result": res})
    if method == "resources/templates/list":
        return out.message({"jsonrpc": "2.0", "id": rid, "result": {"resourceTemplates": []}})
    if method != "resources/read":
        return out.message(h.rpc_error(rid, -32601, "Method not found: " + method))
    uri = params.get("uri")
    if not isinstance(uri, str):
        return out.message(h.rpc_error(rid, -32602, "uri needed"))
    missing = h.rpc_error(rid, -32002, "Resource not found: " + uri)
    if uri == STATE:
        return out.message({"jsonrpc": "2.0", "id": rid, "result": {"contents": [{
            "uri": uri, "mimeType": "application/json",
            "text": jsonstream.dumps(state())}]}})
    if uri.startswith("file:///"):
        p = shell._norm(unquote(uri[7:]))
        host = shell.resolve(p)
        n = store.size(host)
        if n is None or store.is_dir(host) or shell.private(p) or p.endswith(".tmp"):
            return out.message(missing)
        if n > _MAX_READ:
            return out.message(h.rpc_error(rid, -32602, "%s: %d bytes, over the %d a read "
                                             "may give" % (p, n, _MAX_READ)))
        kind = _kind(host)
        if kind is None:
            return out.message(h.rpc_error(rid, -32002, "%s holds a secret of the board" % p))
        return _send_file(rid, uri, host, _mime(p) if kind else "application/octet-stream",
                          kind, out)
    for u, spec, d in _scripts():
        if u == uri:
            ctx = h.Ctx(srv, [None, 0, 99, "", 0], out, None)
            if ctx.run(spec["name"]):
                return out.message(h.rpc_error(rid, -32603, "%s failed: see the board's "
                                                         "console (run %s)" % (uri, spec["name"])))
            w = out.write
            out.begin()
            w(b'{"jsonrpc":"2.0","id":')
            jsonstream.dump(rid, w)
            w(b',"result":{"contents":[{"uri":')
            jsonstream.dump(uri, w)
            w(b',"mimeType":')
            jsonstream.dump(str(d.get("mime") or "text/plain"), w)
            w(b',"text":')
            ctx.json_text(w)
            w(b"}]}}")
            return out.end()
    return out.message(missing)


def _chunks(host, buf):
    """The file's bytes in pieces (memoryviews of buf)."""
    mv = memoryview(buf)
    with open(host, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                return
            yield mv[0:n]


def _kind(host):
    """True: UTF-8 text; False: binary; None: it holds a secret of the
    settings (looked for across piece boundaries too)."""
    secrets = [str(store.get(k)).encode() for k in store.keys() if store.is_secret(k)]
    secrets = [s for s in secrets if len(s) >= 6]
    keep = max([len(s) for s in secrets] + [1]) - 1
    text = True
    tail = b""      # the last bytes of the file so far: a secret may go on
    carry = b""     # a character cut between pieces
    for piece in _chunks(host, bytearray(512)):
        piece = bytes(piece)
        data = tail + piece
        for s in secrets:
            if s in data:
                return None
        tail = data[len(data) - keep:] if keep else b""
        if text:
            data = carry + piece
            k = shell.whole(data)
            data, carry = data[:k], data[k:]
            try:
                data.decode()
            except UnicodeError:
                text = False
            if b"\x00" in piece:
                text = False
    return text and not carry


def _send_file(rid, uri, host, mime, text, out):
    import binascii
    w = out.write
    out.begin()
    w(b'{"jsonrpc":"2.0","id":')
    jsonstream.dump(rid, w)
    w(b',"result":{"contents":[{"uri":')
    jsonstream.dump(uri, w)
    w(b',"mimeType":')
    jsonstream.dump(mime, w)
    w(b',"text":"' if text else b',"blob":"')
    carry = b""
    for piece in _chunks(host, bytearray(384)):
        data = carry + bytes(piece)
        if text:
            k = shell.whole(data)
            data, carry = data[:k], data[k:]
            w(jsonstream.esc(str(data, "utf-8")))
        else:       # base64 of whole 3-byte groups; the rest waits
            k = len(data) - len(data) % 3
            carry = data[k:]
            w(binascii.b2a_base64(data[:k])[:-1])
    if carry:
        w(binascii.b2a_base64(carry)[:-1])
    w(b'"}]}}')
    out.end()
