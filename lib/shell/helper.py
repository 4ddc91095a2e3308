"""The ? helper: plain-English questions answered from the live system first.

    ? what is the date / what time is it          -> runs date
    ? how much memory is free / what is my free memory -> runs free
    ? how much flash space is left                -> runs df
    ? what is running                             -> runs ps
    ? which folder am I in                        -> runs pwd
    ? what are my settings                        -> runs get (masked)
    ? what model am I using                       -> runs ai status
    ? list my files                               -> runs ls
    ? what is the temperature                     -> runs temp
    ? which pins can I use                        -> runs pin (the board's pins)
    ? what is on the i2c bus / which wifi networks are there -> i2c scan, wifi scan
    ? where is boot.py            -> files whose name matches, with paths
    ? what does mcp do            -> the command's description and usage
                                     (or a file's first doc line)
    ? what can I use for networking -> commands by tag (or description word)
Questions about the machine's state run the read-only command that shows it
(after a dim "(from: CMD)" line); questions about a command ("what does X
do", "the X command", "describe X") describe it; how-to questions ("how do
I ...", "how can I ...") and everything else go to the model of use-type
"helper" with a system prompt
that lists the installed commands (name and one line each, bounded), so the
answer fits this machine. The answer streams (markdown on a terminal). With
no provider configured the error names the command that configures one.
"""
import os

import shell
from shell import out
import store
from compat import const

_MAX_FOUND = const(20)      # files listed for "where is"
_MAX_VISIT = const(2000)    # entries walked looking for a file
_MAX_DEPTH = const(8)
_MAX_SYSTEM = const(2000)   # characters of the command list in the system prompt

# question word (prefix) -> registry tag, as "word:tag" pairs ("tag" alone:
# the word is the tag)
TAGS = ("network internet:network wifi:network online:network "
        "file:files folder:files director:files memory ram:memory "
        "flash:files setting:settings config:settings ai model:ai chat:ai "
        "mcp tool:mcp python script:python system help")

# state questions: "topic words=command" (the read-only command that answers)
STATE = ("files=ls;date time clock day today=date;memory heap ram=free;"
         "flash disk storage space=df;running tasks task processes=ps;"
         "settings setting configuration=get;model provider=ai status;"
         "temperature temp hot=temp;pins pin gpio gpios=pin;"
         "analog adc=adc;i2c=i2c scan;networks=wifi scan;wifi=wifi status")
# a question about a command, not about the state it shows
ABOUT = "does command commands usage describe explain help mean"

# filler words between spaces (one string: a fraction of a tuple's flash)
SKIP = (" the a an is are do does i me my can use for what which how to of "
        "with on in command commands there any you please show list about "
        "thing things program programs ")


def _words(q):
    r = []
    w = ""
    for c in q.lower() + " ":
        if "a" <= c <= "z" or "0" <= c <= "9" or c in "._-/":
            w += c
        else:
            w = w.strip(".")
            if w:
                r.append(w)
            w = ""
    return r


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
    w = _words(q)
    if w[:1] == ["how"] and w[1:2] != ["much"] and w[1:2] != ["many"]:
        return _ask_model(q)        # how-to: the model knows, we do not
    if not (_state(w) or _where(w) or _what_does(w) or _by_tag(w)):
        _ask_model(q)


def _any(words, keys):
    """True when one of the space-separated keys is among the words."""
    for k in keys.split():
        if k in words:
            return True
    return False


# ---- from the live system -----------------------------------------------------

def _walk(start, match):
    """Breadth-first over the flash from start; match(name) -> keep.
    -> [(host path, size)], a folder as ("path/", None)."""
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
                return found
            p = d.rstrip("/") + "/" + n
            try:
                st = os.stat(p)
            except OSError:
                continue
            isdir = st[0] & 0x4000
            if match(n):
                found.append((p + "/", None) if isdir else (p, st[6]))
                if len(found) >= _MAX_FOUND:
                    return found
            if isdir and depth < _MAX_DEPTH and not n.startswith("."):
                todo.append((p, depth + 1))
    return found


def _where(words):
    if not _any(words, "where find locate"):
        return False
    name = _after(words, ("where", "find", "locate", "is", "are"))
    if not name:
        return False
    lname = name.lower()
    root = store.root() or "/"
    found = _walk(root, lambda n: n.lower() == lname) or _walk(
        root, lambda n: lname in n.lower())
    spec = shell.find(name)
    if not found and spec is None:
        out("No file or command named like '%s' on this machine (searched %s)." % (
            name, shell.show(root)))
        return True
    if found:
        out("Found %d %s named like '%s':" % (
            len(found), "entry" if len(found) == 1 else "entries", name))
        for p, size in found:
            out("  " + shell.show(p) + ("" if size is None else "  (%d bytes)" % size))
    if spec is not None:
        out("'%s' is also a command: %s (help %s)" % (name, spec["desc"], name))
    return True


def _what_does(words):
    name = None
    if "does" in words and _any(words, "do mean for"):
        name = _after(words, ("does",))
    elif words[:2] in (["what", "is"], ["what", "s"]) or words[:1] in (["describe"], ["explain"]):
        name = _after(words, ("is", "s", "describe", "explain"))
    if not name:
        return False
    spec = shell.find(name)
    if spec is not None:
        where = shell.show(spec["path"]) if spec["path"] else "built-in command (%s)" % spec["module"]
        out(shell.fold("%s: %s" % (name, spec["desc"]), 2))
        out(shell.fold("usage: " + spec["usage"], 7))
        from shell import builtins
        builtins.subs_tags(spec)
        out("where: " + where)
        return True
    from shell import script
    p = script._bin(name)
    why = p and script.why(p)
    if why:         # a /bin script that is no command: why not
        out("%s: %s is not a command: %s" % (name, shell.show(p), why))
        return True
    found = _walk(store.root() or "/", lambda n: n == name or n == name + ".py")
    for p, size in found:
        if size is None:
            continue
        # the first docstring or comment line of the file (bounded read)
        line = None
        try:
            with open(p) as f:
                for _ in range(10):
                    s = f.readline().strip()
                    for m in ('"""', "'''", "#"):
                        if s.startswith(m):
                            s = s[len(m):].strip().strip('"').strip("'").strip()
                            if s:
                                line = s[:120]
                                break
                    if line or (s and not s.startswith("import")):
                        break
        except (OSError, UnicodeError):
            pass
        out("%s: %s" % (shell.show(p), line or "(no description in the file)"))
        return True
    return False


def _state(words):
    """Run the read-only command a state question asks about."""
    if _any(words, ABOUT):
        return False
    cmd = None
    if "am" in words and _any(words, "folder directory where"):
        cmd = "pwd"
    elif _any(words, "where find locate"):
        return False            # a file or command to find
    for rule in STATE.split(";"):
        keys, c = rule.split("=")
        if cmd is None and _any(words, keys):
            cmd = c
    if cmd is None:
        return False
    if cmd in ("free", "df") and not _any(words, "free much left used available my"):
        return False
    if cmd == "ls" and not _any(words, "list show my which what"):
        return False
    out("(from: %s)" % cmd, shell.DIM)
    shell.dispatch(cmd)
    return True


def _by_tag(words):
    tags = []
    for w in words:
        for pair in TAGS.split():
            key, tag = (pair + ":" + pair).split(":")[:2]
            if w.startswith(key) and tag not in tags:
                tags.append(tag)
    if not tags or not _any(words, "can commands command use which list for"):
        return False
    rows = []
    for s in shell.commands():
        for t in tags:
            if t in s["tags"]:
                rows.append(s)
                break
    if not rows:
        return False
    out("Commands tagged %s:" % ", ".join(tags))
    for s in rows:
        out("  %-7s %s" % (s["name"], s["desc"]))
    return True


# ---- the model ---------------------------------------------------------------------

def _ask_model(q):
    import ai
    from shell import md
    # What the model needs to know about this machine, bounded: the
    # installed commands, /bin scripts first (the most specific), name and
    # one line each.
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
                break
            parts.append(line)
            n += len(line)
        else:
            continue
        break
    parts = "".join(parts)      # the list goes before the request
    screen = md.Screen()
    screen.wait()
    try:
        reply, err = ai.ask_simple(q, {"use": "helper", "system": parts,
                                       "stream": screen.sink})
    finally:
        screen.end()
    if err:
        if "no AI provider" in err or "no API key" in err:
            raise shell.Error(err)
        raise shell.Error("?: " + err)
    if not screen.pieces and reply:
        out(reply)
