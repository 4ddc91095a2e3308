"""Text fallback for tool calling, for models without a native tools field.

The tools are described in the system prompt and the model is asked to
answer a call with one fenced block per call:

    ```tool_call
    {"name": "get_weather", "arguments": {"city": "Rochdale"}}
    ```

parse() turns such blocks back into the usual [{"id","name","args"}] list
(ids "text-1", "text-2"... per reply). Only that exact form is a call: the
fence starts a line and is labelled tool_call, the closing ``` is a line of
its own, the JSON is an object with "name" (text) and "arguments" (an
object) and nothing else. A call quoted in prose, a json or unlabelled
fence, "args" instead of "arguments", a block inside another fence: text,
never run. In the history sent to the model, assistant tool calls become
those blocks again and tool results become plain user text, "Tool result
for <name> (<id>): <text>", consecutive results joined into one user
message (with their files: pictures a tool saved). This wraps any wire
style; the wire style sends no tools field at all.
"""
import jsonstream
from ai.styles import Reply, assistant_turn, as_str as _text

MAX_TOOLS_PROMPT = 6000
FENCE = "```tool_call"


def system_prompt(system, tools):
    lines = [system] if system else []
    lines.append("You can call tools. To call one, answer with a block exactly like:\n"
                 + FENCE + '\n{"name": "TOOL", "arguments": {...}}\n```\n'
                 "One block per call, each starting on its own line; other forms are not run. "
                 "After the blocks, stop and wait for the results, "
                 "which arrive as 'Tool result for TOOL (...)'. Tools:")
    size = 0
    for t in tools:
        p = t.get("parameters") or {}
        if not isinstance(p, dict):     # Raw / RawFile: JSON text already
            from ai.lines import load
            p = load(p)
        line = "- %s: %s Arguments (JSON Schema): %s" % (
            t["name"], t.get("description") or "", jsonstream.dumps(p))
        size += len(line)
        if size > MAX_TOOLS_PROMPT:
            lines.append("- (more tools not listed)")
            break
        lines.append(line)
    return "\n".join(lines)


def _call_block(c):
    return "%s\n{\"name\": %s, \"arguments\": %s}\n```" % (
        FENCE, jsonstream.dumps(c["name"]), c["args"] or "{}")


class History:
    """A re-iterable view of a history with tool traffic turned into text."""

    def __init__(self, history):
        self.history = history

    def __iter__(self):
        results = []
        files = []      # the tool results' files (pictures a tool saved)
        for m in self.history:
            role = m["role"]
            if role == "tool":
                results.append("Tool result for %s (%s): %s" % (
                    m.get("name", "tool"), m.get("tool_call_id", ""), _text(m.get("content"))))
                files.extend(m.get("files") or ())
                continue
            if results:
                yield _results(results, files)
                results, files = [], []
            if role == "assistant" and m.get("tool_calls"):
                parts = [_text(m.get("content"))] + [_call_block(c) for c in m["tool_calls"]]
                yield {"role": "assistant", "content": "\n".join(p for p in parts if p)}
            else:
                yield m
        if results:
            yield _results(results, files)


def _results(results, files):
    m = {"role": "user", "content": "\n\n".join(results)}
    if files:
        m["files"] = files
    return m


def parse(reply):
    """Split a text reply into prose and tool calls (a new Reply). Walks the
    lines: a fence opens on a line that starts with ``` and closes on a
    line of only as many or more backticks."""
    text = reply.text or ""
    calls = []
    kept = []       # the prose between call blocks
    done = 0        # text before this is in kept (or was a call block)
    fence = None    # the open fence: (backticks, label, body start, line start)
    i, n = 0, len(text)
    while i < n:
        j = text.find("\n", i)
        if j < 0:
            j = n
        if text.startswith("```", i):
            line = text[i:j].strip()
            ticks = 0
            while ticks < len(line) and line[ticks] == "`":
                ticks += 1
            if fence is None:
                fence = (ticks, line[ticks:].strip(), j + 1, i)
            elif ticks == len(line) and ticks >= fence[0]:
                call = None
                if fence[0] == 3 and fence[1] == "tool_call":
                    call = _as_call(text[fence[2]:i])
                if call is not None:
                    calls.append({"id": "text-%d" % (len(calls) + 1),
                                  "name": call[0], "args": call[1]})
                    kept.append(text[done:fence[3]])
                    done = j + 1
                fence = None
        i = j + 1
    if not calls:
        return reply
    kept.append(text[done:])
    text = "".join(kept).strip()
    return Reply(text, calls, "tool_calls",
                 assistant_turn(text, calls, reply.turn.get("_echo")))


def _as_call(payload):
    """(name, arguments as JSON text) of a block's JSON, or None."""
    try:
        obj = jsonstream.loads(payload.strip())
    except jsonstream.JSONError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    args = obj.get("arguments", {})
    for k in obj:
        if k != "name" and k != "arguments":
            return None
    if not isinstance(args, dict):
        return None
    return obj["name"], jsonstream.dumps(args)
