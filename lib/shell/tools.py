"""Console commands as tools: one mapping for the chat's local tools
(ai.run(local=...), the console's `ai`) and the board's MCP server
(mcpserver/http.py).

    schema(spec)       -> JSON Schema of a command's arguments
    line(spec, args)   -> the command line a call's arguments make (ValueError)
    read_only(spec)    -> True for commands that change nothing
    writes(spec, ws)   -> True when this call (the parsed words) changes something
    refused(spec, line) -> why a call is never run as a tool, or None
The chat's side (the board's commands as ai tools, board_<cmd>, made a
line at a time) is shell/chattools.py; the MCP server imports only this.

A spec's ARG (name, type, count[, description]) becomes one property:
"int" an integer, a tuple of words a string enum, any other type a string
(described by its type when the ARG has no description); count "*" / "+"
an array of those (at least one item for "+"); "1" and "+" are required.
A command with sub-commands (ai, mcp, wifi) takes one string "args", the
words after its name as typed. A call's arguments are turned back into a
console line (quoted where needed), so every check the console makes on a
typed line applies.

The guardrails, the same for a chat and for an MCP client:
- NEVER: py, exit, reboot, ?, and ai and mcp (keys, tokens, logins, the
  server itself) are no tools; nor a call that touches a secret: `set` of
  a secret or of a setting that grants tools (ai.tools.*, mcp.serve.*,
  mcp.NAME.allow), `wifi connect`, a path to the settings or the chat
  history (refused()).
- READ_ONLY commands (and /bin scripts whose SPEC says "readonly": True)
  run without a question. MIXED ones read unless a write argument is
  given (pin PIN VALUE sets a pin): the read is offered like a read-only
  command, the write like any command that changes something.
- Commands that change something are offered to a chat only with
  ai.tools.local = all, to an MCP client only when named in
  mcp.serve.allow, and every call of one is asked at the console.

Kept apart from shell/__init__.py so the console loop does not carry it.
"""
import shell
import store

# Commands that change nothing; a /bin script says so with "readonly": True
# in its SPEC. Offered to a model, and exposed by the MCP server, without
# a setting and without asking.
READ_ONLY = ("help", "ls", "cat", "pwd", "free", "df", "ps", "date", "get",
             "adc", "i2c", "temp", "wifi")
# Commands that read unless given their write argument (name:argument):
# pin PIN reads a pin; camera saves its picture where the profile says
# (a path of the model's choosing would be a write)
MIXED = ("pin:value", "camera:path")
NEVER = ("py", "exit", "reboot", "?", "ai", "mcp")     # console-only
# settings no tool may change: what grants tools (and every secret)
_GUARDED = ("ai.tools.", "mcp.serve.")

_ABOUT = {"path": "a file or folder on the board's flash (/ is its root)",
          "file": "a file on the board's flash (/ is its root)",
          "dir": "a folder on the board's flash (/ is its root)",
          "cmd": "a console command name", "key": "a setting name, e.g. ai.chat.model",
          "text": "free text: the rest of the command line, as typed"}


def read_only(spec):
    return spec["readonly"] if spec["path"] else spec["name"] in READ_ONLY


def _write_arg(spec):
    """The argument that makes a MIXED command write, or None."""
    if spec["path"]:
        return None
    for m in MIXED:
        n, _, a = m.partition(":")
        if n == spec["name"]:
            return a
    return None


def name_ok(n):
    """A command name an MCP client or provider takes as a tool name."""
    for c in n.encode():
        if not (97 <= c <= 122 or 65 <= c <= 90 or 48 <= c <= 57 or c in (45, 46, 95)):
            return False
    return 0 < len(n) <= 64 and n not in NEVER


def writes(spec, ws):
    """True when the call, its words as shell.parse gives them, changes
    something."""
    a = _write_arg(spec)
    if a is None:
        return not read_only(spec)
    for i, arg in enumerate(spec["args"]):
        if arg[0] == a:
            return len(ws) > i and ws[i] is not None
    return True


def refused(spec, line):
    """Why the call (a console line) is never run as a tool, or None: a
    path to the settings or the chat history, a secret, a setting that
    grants tools, wifi connect."""
    n = spec["name"]
    ws = shell.parse(spec, line[len(n):])
    if n == "wifi" and ws[:1] == ["connect"]:
        return "wifi connect takes a password: only at the console"
    if n == "set":
        k = ws[1] if ws[0] == "-d" and len(ws) > 1 else ws[0]
        if store.is_secret(k) or k.endswith(".allow") or k.startswith(_GUARDED[0]) \
                or k.startswith(_GUARDED[1]):
            return "set %s: only at the console (a secret, or a setting that grants tools)" % k
    for i, a in enumerate(spec["args"] if not spec.get("subs") else ()):
        if a[1] in ("path", "file", "dir") and i < len(ws):
            for w in (ws[i:] if a[2] in ("*", "+") else ws[i:i + 1]):
                if w is not None and shell.private(shell.show(shell.resolve("/" + w))):
                    return "%s: %s is private to the board" % (n, w)
    return None


def schema(spec, reads=False):
    """reads=True: without a MIXED command's write argument."""
    props = {}
    req = []
    skip = _write_arg(spec) if reads else None
    if spec.get("subs"):
        props["args"] = {"type": "string", "description": "the words after '%s', as typed "
                         "at the console: %s" % (spec["name"], spec["usage"])}
        return {"type": "object", "properties": props}
    for a in spec["args"]:
        name, typ, count = a[0], a[1], a[2]
        if name == skip:
            continue
        p = {"type": "integer" if typ == "int" else "string"}
        if isinstance(typ, tuple):
            p["enum"] = list(typ)
        about = a[3] if len(a) > 3 else _ABOUT.get(typ)
        if count in ("*", "+"):
            p = {"type": "array", "items": p}
            if count == "+":
                p["minItems"] = 1
        if about:
            p["description"] = about
        props[name] = p
        if count in ("1", "+"):
            req.append(name)
    s = {"type": "object", "properties": props, "additionalProperties": False}
    if req:
        s["required"] = req
    return s


def _word(name, v):
    """One argument value as a console word (quoted when needed)."""
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise ValueError("%s must be a string or a number" % name)
    w = str(v)
    if "\n" in w or "\r" in w:
        raise ValueError("%s must be one line" % name)
    if w and " " not in w and "\t" not in w and "'" not in w and '"' not in w:
        return w
    if '"' not in w:
        return '"' + w + '"'
    if "'" not in w:
        return "'" + w + "'"
    raise ValueError("%s cannot hold both kinds of quotes" % name)


def line(spec, args):
    """The console line for a call of the command with args (a dict of the
    schema's properties); raises ValueError naming what is wrong."""
    if not isinstance(args, dict):
        raise ValueError("the arguments must be an object")
    out = [spec["name"]]
    if spec.get("subs"):
        a = args.get("args")
        for k in args:
            if k != "args":
                raise ValueError("unknown argument %s" % k)
        if a is not None:
            if not isinstance(a, str):
                raise ValueError("args must be a string")
            out.append(a)
        return " ".join(out)
    known = [a[0] for a in spec["args"]]
    for k in args:
        if k not in known:
            raise ValueError("unknown argument %s" % k)
    gap = None
    for a in spec["args"]:
        name, typ, count = a[0], a[1], a[2]
        v = args.get(name)
        if v is None:
            if count in ("1", "+"):
                raise ValueError("missing argument %s" % name)
            gap = name
            continue
        if gap:
            if count != "?" or a is not spec["args"][-1] or "[-%s " % name[0] not in spec["usage"]:
                raise ValueError("%s needs %s before it" % (name, gap))
            out.append("-" + name[0])       # (camera -s VGA: see shell.parse)
        if typ == "text":
            if not isinstance(v, str):
                raise ValueError("%s must be a string" % name)
            out.append(v)
            continue
        if count in ("*", "+"):
            if not isinstance(v, list):
                raise ValueError("%s must be an array" % name)
            for x in v:
                out.append(_word(name, x))
        else:
            out.append(_word(name, v))
    return " ".join(out)
