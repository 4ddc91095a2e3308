"""Console commands as tools: one mapping for the chat's local tools and
the board's MCP server (mcp/server.py).

    tools = shell.local_tools()     # inline dicts for ai.run(tools=...)
    schema(spec)       -> JSON Schema of a command's arguments
    line(spec, args)   -> the command line a call's arguments make (ValueError)
    read_only(spec)    -> True for commands that change nothing

A spec's ARG (name, type, count[, description]) becomes one property:
"int" an integer, a tuple of words a string enum, any other type a string
(described by its type when the ARG has no description); count "*" / "+"
an array of those (at least one item for "+"); "1" and "+" are required.
A command with sub-commands (ai, mcp, wifi) takes one string "args", the
words after its name as typed. A call's arguments are turned back into a
console line (quoted where needed), so every check the console makes on a
typed line applies.

Local tools are named "sh_<cmd>" with the description and usage from the
registry; running one captures the command's output (plain text, bounded by
shell._MAX_CAPTURE). Kept apart from shell/__init__.py so the console loop
does not carry it.
"""
import shell

# Commands that change nothing; a /bin script says so with "readonly": True
# in its SPEC. Only these are offered to a model, and exposed by the MCP
# server without mcp.serve.allow.
READ_ONLY = ("help", "ls", "cat", "pwd", "free", "df", "ps", "date", "get")

_ABOUT = {"path": "a file or folder on the board's flash (/ is its root)",
          "file": "a file on the board's flash (/ is its root)",
          "dir": "a folder on the board's flash (/ is its root)",
          "cmd": "a console command name", "key": "a setting name, e.g. ai.chat.model",
          "text": "free text: the rest of the command line, as typed"}


def read_only(spec):
    return spec["readonly"] if spec["path"] else spec["name"] in READ_ONLY


def schema(spec):
    props = {}
    req = []
    if spec.get("subs"):
        props["args"] = {"type": "string", "description": "the words after '%s', as typed "
                         "at the console: %s" % (spec["name"], spec["usage"])}
        return {"type": "object", "properties": props}
    for a in spec["args"]:
        name, typ, count = a[0], a[1], a[2]
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
            raise ValueError("%s needs %s before it" % (name, gap))
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


def local_tools():
    """The read-only commands as ai tools (inline dicts for ai.run(tools=...)):
    name "sh_<cmd>", the description and usage from the registry, the
    schema above; running one captures the command's output (plain text,
    bounded by shell._MAX_CAPTURE)."""
    out_ = []
    for s in shell.commands():
        if read_only(s):
            out_.append({
                "name": "sh_" + s["name"].replace("-", "_"),
                "description": "%s (console command; usage: %s)" % (s["desc"], s["usage"]),
                "parameters": schema(s), "run": _tool_runner(s)})
    return out_


def _tool_runner(spec):
    def run_(args):
        try:
            cmd = line(spec, args if args is not None else {})
        except ValueError as e:
            return "Error: %s (usage: %s)" % (e, spec["usage"])
        return shell.capture(cmd)
    return run_
