"""/bin scripts, for a person: where one failed, why one is no command.
Imported for those only (shell/__init__.py calls it through _call, which
drops it again: its texts cost the console no heap the rest of the time).

    script.where(e, path)   # "/bin/boom.py line 3: " (the file, its line)
    script.why(path)        # "it has no SPEC = {...} line", or None
    script.unknown([name])  # the line for a name that is no command
    script.shadowed(None)   # say which /bin scripts a built-in hides
"""
import os
import sys

import shell
import store

# what shell.read_spec's ValueError(n) means
WHY = ("it has no SPEC = {...} line", "its SPEC is not a {...} dict literal",
       "its SPEC's args are not (name, type, count) tuples",
       "its SPEC {...} does not end within 2048 bytes")    # (shell's _MAX_SPEC)


def where(e, p):
    """The file and line of p where the exception e was raised (its
    innermost frame in p: a script's own line, not the console's), with
    ": " after it; just the file when no frame is in p (a SyntaxError
    names its line in its text on CPython)."""
    line = getattr(e, "lineno", None) if getattr(e, "filename", None) == p else None
    if line is None:
        if hasattr(sys, "print_exception"):     # MicroPython: no traceback module
            import io
            s = io.StringIO()
            sys.print_exception(e, s)
            mark = 'File "%s", line ' % p
            for ln in s.getvalue().split("\n"):
                i = ln.find(mark)
                if i >= 0:
                    line = ln[i + len(mark):].split(",")[0]
        else:
            tb = e.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == p:
                    line = tb.tb_lineno
                tb = tb.tb_next
    return "%s%s: " % (shell.show(p), "" if line is None else " line %s" % line)



def why(p):
    """Why the /bin script p is no command (one line), or None."""
    e = shell.read_spec(p, True)
    if e is None:
        return None
    if isinstance(e, ValueError) and e.args and isinstance(e.args[0], int):
        return WHY[e.args[0]]
    return "its SPEC: " + shell.oneline(e)


def _bin(name):
    """The host path of /bin/NAME.py when there is one."""
    p = store.path("bin") + "/" + name + ".py"
    return p if "/" not in name and not name.startswith(".") and store.exists(p) else None


def unknown(args):
    name = args[0]
    p = _bin(name)
    w = p and why(p)
    shell.err("%s is not a command: %s (a command declares SPEC = {...} and main(args))"
              % (shell.show(p), w) if w else "unknown command: %s (type help)" % name)


def shadowed(args):
    try:
        bins = os.listdir(store.path("bin"))
    except OSError:
        return
    for t in shell.TABLE:
        n = t[:t.find("~")]
        if n + ".py" in bins and shell.here(n):
            shell.out("/bin/%s.py is not a command: the built-in %s has that name "
                      "(rename the script)" % (n, n), shell.DIM)
