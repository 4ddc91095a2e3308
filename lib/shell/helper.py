"""The ? helper: plain-English questions answered from the live system first.

    ? where is boot.py            -> files whose name matches, with paths
    ? what does mcp do            -> the command's description and usage
                                     (or a file's first doc line)
    ? what is running             -> the console's tasks
    ? what can I use for networking -> commands by tag (or description word)
    ? how much memory / flash is free -> heap and flash figures
Everything else goes to the model of use-type "helper" with a system prompt
that lists the installed commands (name and one line each, bounded), so the
answer fits this machine. The answer streams (markdown on a terminal). With
no provider configured the error names the command that configures one.
"""
import os

import shell
import store
from compat import const

_MAX_FOUND = const(20)      # files listed for "where is"
_MAX_VISIT = const(2000)    # entries walked looking for a file
_MAX_DEPTH = const(8)
_MAX_SYSTEM = const(2000)   # characters of the command list in the system prompt

# question word (prefix) -> registry tag, as "word:tag" pairs
TAGS = ("network:network internet:network wifi:network online:network "
        "file:files folder:files director:files memory:memory ram:memory "
        "flash:files setting:settings config:settings ai:ai model:ai chat:ai "
        "mcp:mcp tool:mcp python:python script:python system:system help:help")

# filler words between spaces (one string: a fraction of a tuple's flash)
SKIP = (" the a an is are do does i me my can use for what which how to of "
        "with on in command commands there any you please show list about "
        "thing things program programs ")


def _words(q):
    out = []
    w = []
    for c in q.lower() + " ":
        if "a" <= c <= "z" or "0" <= c <= "9" or c in "._-/":
            w.append(c)
        elif w:
            out.append("".join(w).strip("."))
            w = []
    return [x for x in out if x]


def _after(words, keys):
    """The first word after any of the key words (skipping fillers)."""
    for i in range(len(words)):
        if words[i] in keys:
            for w in words[i + 1:]:
                if " %s " % w not in SKIP + "file folder called named script ":
                    return w
    return None


def main(args):
    q = args[0].strip() if args else ""
    if not q:
        raise shell.UsageError("ask a question, e.g. ? where is boot.py")
    words = _words(q)
    for rule in (_where, _what_does, _tasks, _memory, _by_tag):
        if rule(q, words):
            return
    _ask_model(q)


# ---- from the live system -----------------------------------------------------

def _walk(start, match):
    """Breadth-first over the flash from start; match(name) -> keep.
    -> ([host paths], visited, truncated)."""
    found = []
    todo = [(start, 0)]
    visited = 0
    while todo:
        d, depth = todo.pop(0)
        try:
            names = os.listdir(d)
        except OSError:
            continue
        names.sort()
        for n in names:
            visited += 1
            if visited > _MAX_VISIT:
                return found, visited, True
            p = d.rstrip("/") + "/" + n
            try:
                isdir = os.stat(p)[0] & 0x4000
            except OSError:
                continue
            if match(n):
                found.append(p + ("/" if isdir else ""))
                if len(found) >= _MAX_FOUND:
                    return found, visited, True
            if isdir and depth < _MAX_DEPTH and not n.startswith("."):
                todo.append((p, depth + 1))
    return found, visited, False


def _where(q, words):
    if not ("where" in words or "find" in words or "locate" in words):
        return False
    name = _after(words, ("where", "find", "locate", "is", "are"))
    if not name:
        return False
    lname = name.lower()
    root = store.root() or "/"
    exact, _, _ = _walk(root, lambda n: n.lower() == lname)
    found = exact
    if not found:
        found, _, _ = _walk(root, lambda n: lname in n.lower())
    spec = shell.find(name)
    if not found and spec is None:
        shell.out("No file or command named like '%s' on this machine (searched %s)." % (
            name, shell.show(root)))
        return True
    if found:
        shell.out("Found %d %s named like '%s':" % (
            len(found), "entry" if len(found) == 1 else "entries", name))
        for p in found:
            st = None
            try:
                st = os.stat(p.rstrip("/"))
            except OSError:
                pass
            size = "" if p.endswith("/") or st is None else "  (%d bytes)" % st[6]
            shell.out("  " + shell.show(p) + size)
    if spec is not None:
        shell.out("'%s' is also a command: %s (help %s)" % (name, spec["desc"], name))
    return True


def _what_does(q, words):
    name = None
    if "does" in words and ("do" in words or "mean" in words or "for" in words):
        name = _after(words, ("does",))
    elif words[:2] in (["what", "is"], ["what", "s"]) or words[:1] in (["describe"], ["explain"]):
        name = _after(words, ("is", "s", "describe", "explain"))
    if not name:
        return False
    spec = shell.find(name)
    if spec is not None:
        where = shell.show(spec["path"]) if spec["path"] else "built-in command (%s)" % spec["module"]
        shell.out("%s: %s" % (name, spec["desc"]))
        shell.out("usage: " + spec["usage"])
        for s in spec.get("subs") or ():
            shell.out("  %s %-7s %s" % (name, s[0], s[2]))
        if spec["tags"]:
            shell.out("tags: " + ", ".join(spec["tags"]))
        shell.out("where: " + where)
        return True
    found, _, _ = _walk(store.root() or "/", lambda n: n == name or n == name + ".py")
    for p in found:
        if p.endswith("/"):
            continue
        line = _doc_line(p)
        shell.out("%s: %s" % (shell.show(p), line or "(no description in the file)"))
        return True
    return False


def _doc_line(p):
    """The first docstring or comment line of a file (bounded read)."""
    try:
        with open(p) as f:
            for _ in range(10):
                ln = f.readline()
                if not ln:
                    break
                s = ln.strip()
                for q in ('"""', "'''", "#"):
                    if s.startswith(q):
                        s = s[len(q):].strip().strip('"').strip("'").strip()
                        if s:
                            return s[:120]
                if s and not s.startswith("import"):
                    break
    except (OSError, UnicodeError):
        pass
    return None


def _tasks(q, words):
    if not ("running" in words or "tasks" in words or "task" in words
            or "processes" in words or "ps" in words):
        return False
    from compat import ticks_ms, ticks_diff
    now = ticks_ms()
    ts = shell.tasks()
    shell.out("Running tasks (%d), as ps shows:" % len(ts))
    for tid, name, t0 in ts:
        shell.out("  %d  %s  (%d s)" % (tid, name, ticks_diff(now, t0) // 1000))
    return True


def _memory(q, words):
    mem = "memory" in words or "heap" in words or "ram" in words
    fl = "flash" in words or "disk" in words or "space" in words or "storage" in words
    if not (mem or fl) or not ("free" in words or "much" in words or "left" in words
                              or "used" in words or "available" in words):
        return False
    from shell import builtins
    if mem:
        h = builtins.heap()
        if h:
            shell.out("heap: %s free, %s used (as free shows)" % (
                builtins._kb(h[1]), builtins._kb(h[0])))
        else:
            shell.out("heap: not measurable on this interpreter")
    if fl or not mem:
        f = builtins.flash()
        if f:
            shell.out("flash: %s free of %s (as df shows)" % (
                builtins._kb(f[1]), builtins._kb(f[0])))
    return True


def _by_tag(q, words):
    tags = []
    for w in words:
        for pair in TAGS.split():
            key, tag = pair.split(":")
            if w.startswith(key) and tag not in tags:
                tags.append(tag)
    if not tags or not ("can" in words or "commands" in words or "command" in words
                        or "use" in words or "which" in words or "list" in words
                        or "for" in words):
        return False
    rows = []
    for s in shell.commands():
        for t in tags:
            if t in s["tags"]:
                rows.append(s)
                break
    if not rows:
        return False
    shell.out("Commands tagged %s:" % ", ".join(tags))
    for s in rows:
        shell.out("  %-7s %s" % (s["name"], s["desc"]))
    return True


# ---- the model ---------------------------------------------------------------------

def system_prompt():
    """What the model needs to know about this machine, bounded: the
    installed commands, /bin scripts first (the most specific), name and
    one line each."""
    parts = ["You answer questions on the serial console of a small MicroPython "
             "board (AntOS). Be brief. Commands installed here:"]
    n = len(parts[0])
    for scripts in (True, False):
        for s in shell.commands():
            if bool(s["path"]) != scripts:
                continue
            line = "\n%s: %s" % (s["name"], s["desc"])
            if n + len(line) > _MAX_SYSTEM:
                parts.append("\n...")
                return "".join(parts)
            parts.append(line)
            n += len(line)
    return "".join(parts)


def _ask_model(q):
    import ai
    from shell import md
    screen = md.Screen()
    screen.wait()
    try:
        reply, err = ai.ask_simple(q, {"use": "helper", "system": system_prompt(),
                                       "stream": screen.sink})
    finally:
        screen.end()
    if err:
        if "no AI provider" in err or "no API key" in err:
            raise shell.Error(err)
        raise shell.Error("?: " + err)
    if not screen.pieces and reply:
        shell.out(reply)
