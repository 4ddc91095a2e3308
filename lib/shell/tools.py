"""The local tool catalogue: read-only console commands offered to a model.

    tools = shell.local_tools()     # inline dicts for ai.run(tools=...)

Each is {"name": "sh_<cmd>", "description": desc + usage from the registry,
"parameters": one string "args", "run": args -> the command's output}.
Output is captured as plain text (no escape codes), bounded by
4000 characters (shell._MAX_CAPTURE). Kept apart from shell/__init__.py so the console loop
does not carry it.
"""
import shell

# Read-only commands a model may run as tools; /bin scripts opt in with
# "tool": True in their SPEC.
TOOL_SAFE = ("help", "ls", "cat", "pwd", "free", "df", "ps", "date", "get")


def local_tools():
    """Registry commands as ai tools (inline dicts for ai.run(tools=...)):
    name "sh_<cmd>", the description and usage from the registry, one
    string parameter "args"; running one captures the command's output
    (plain text, bounded by shell._MAX_CAPTURE)."""
    out_ = []
    for s in shell.commands():
        if s["name"] not in TOOL_SAFE:
            d = s["path"] and shell.read_spec(s["path"])
            if not (d and d.get("tool") is True):
                continue
        out_.append({
            "name": "sh_" + s["name"].replace("-", "_"),
            "description": "%s (console command; usage: %s)" % (s["desc"], s["usage"]),
            "parameters": {"type": "object", "properties": {"args": {
                "type": "string",
                "description": "the arguments after the command name, as typed"}}},
            "run": _tool_runner(s["name"])})
    return out_


def _tool_runner(name):
    def run_(args):
        a = args.get("args") if isinstance(args, dict) else None
        return shell.capture(name + (" " + a if isinstance(a, str) and a else ""))
    return run_
