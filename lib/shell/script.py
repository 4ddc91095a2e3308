"""Where a script failed, for a person: imported on a script's error only.

    script.where(e, path)       # "/bin/boom.py line 3: " (the file, its line)
"""
import sys

import shell


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

