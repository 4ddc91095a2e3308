"""The board's console commands as a chat's tools (ai.run(local=...), the
console's `ai`): which are offered and how a call runs. The mapping and
the guardrails are shell/tools.py, shared with the MCP server.

    lv = chattools.level()          # the setting ai.tools.local: off|read|all
    t = chattools.Local(lv, more)   # iterable of tool definitions; find(name)
    chattools.local_tools(lv)       # the same as inline dicts with "run"

Names are "board_<cmd>": an MCP tool's name always holds "__" after its
server's name (ai/loop.py tool_name), a local one never does (a command
whose name would put "__" in it, or has a character a provider refuses, is
not offered), so the two can never be the same, whatever a server is
named. Running one captures the command's output (plain text, bounded by
shell._MAX_CAPTURE) from /, as the MCP server does; a command that made a
file for the model (the camera's picture: shell.attach) gives {"content":
its output, "files": [flash paths]}, which ai.run shows to a model that
takes pictures.
"""
import shell
import store
from shell.tools import line, read_only, name_ok, writes, refused, schema, _write_arg

PREFIX = "board_"
LEVELS = ("off", "read", "all")


def level(v=None):
    """The setting ai.tools.local (v: a value given instead): off, read
    (the default) or all."""
    if v is None:
        v = store.get("ai.tools.local")
    return v if v in LEVELS else "read"


def tool_of(name):
    """The command a local tool name stands for, or None."""
    if not name.startswith(PREFIX):
        return None
    n = name[len(PREFIX):]
    return n if "__" not in name and "." not in n and name_ok(n) else None


class Local:
    """The board's commands as ai tools at a level ("read": the read-only
    ones and MIXED ones without their write; "all": every command but
    NEVER's), then the tools of more (a list or a tool file: the tools
    cache, a run's MCP listing) if any. Iterating makes each definition
    from the registry as it goes (a /bin script's SPEC read from its
    file), so their number costs no heap; find(name) is a local tool's
    entry ({"name", "run", "board", "check"}) or more's line."""

    def __init__(self, lv, more=None):
        self.lv = lv
        self.more = more

    def __iter__(self):
        for n in shell.names():
            # (ai's and mcp's specs are large: never built for a request)
            s = shell.find(n) if tool_of(PREFIX + n) else None
            d = s and self._def(s)
            if d is not None:
                yield d
        for d in self.more or ():
            yield d

    def _def(self, s):
        n = s["name"]
        if tool_of(PREFIX + n) is None or not (
                self.lv == "all" or read_only(s) or _write_arg(s)):
            return None
        ro = read_only(s)
        return {"name": PREFIX + n, "description": "%s (the board's console command; usage: %s)"
                % (s["desc"], s["usage"]), "parameters": schema(s, self.lv != "all"),
                "annotations": {"readOnlyHint": ro}}

    def find(self, name):
        n = tool_of(name)
        if n is None:
            more = self.more
            return more.find(name) if more is not None and hasattr(more, "find") else None
        s = shell.find(n)
        if s is None or self._def(s) is None:
            return None
        return {"name": name, "board": True, "run": _runner(s, self.lv),
                "check": _checker(s)}


def _checker(spec):
    """The annotations of one call (args: the model's JSON text): whether it
    changes something, so that it is asked."""
    def check(args):
        import jsonstream
        try:
            ws = shell.parse(spec, line(spec, jsonstream.loads(args or "{}"))[len(spec["name"]):])
            return {"readOnlyHint": not writes(spec, ws)}
        except Exception:       # a bad call fails when run; asking does no harm
            return {"readOnlyHint": read_only(spec)}
    return check


def _runner(spec, lv):
    """run(args) -> the command's output; a call that is refused or fails
    raises ValueError with its words (the loop sends them as an error)."""
    def run_(args):
        try:
            cmd = line(spec, args if args is not None else {})
            why = refused(spec, cmd)
            ws = shell.parse(spec, cmd[len(spec["name"]):])
        except shell.UsageError as e:
            raise ValueError("%s (usage: %s)" % (e, spec["usage"]))
        except ValueError as e:
            raise ValueError("%s (usage: %s)" % (e, spec["usage"]))
        if why:
            raise ValueError(why)
        if lv != "all" and writes(spec, ws):
            raise ValueError("the board's owner lets models read only (ai.tools.local = %s; "
                             "all lets them change things, each call asked)" % lv)
        del shell.made[:]
        text, failed = shell.capture(cmd, True)
        if failed:
            raise ValueError(text)
        if shell.made:      # files it made for the model (the camera's picture)
            text = {"content": text, "files": shell.made[:]}
            del shell.made[:]
        return text
    return run_


def local_tools(lv="read"):
    """The local tools at level lv as inline dicts for ai.run(tools=...)."""
    t = Local(lv)
    return [dict(d, run=t.find(d["name"])["run"]) for d in t]
