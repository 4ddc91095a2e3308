# The console core under a board-like heap: dispatch a session of built-in
# commands and ? questions (pipe mode, output to stdout), report the peak
# working heap and what stays allocated afterwards (command modules are
# dropped after each command, so little should).
import gc
import sys

import shell
from shell import term  # noqa: F401  (the run loop imports it too)
import heapmon

LINES = ("help", "ls", "cd bin", "ls", "cd /", "? where is boot.py",
         "? what does mcp do", "? what can I use for networking",
         "? how much memory is free", "free", "df", "ps", "get", "help mv",
         "hello Ann", "nosuch", "mv a", "cat boot.py")

heapmon.start()
for line in LINES:
    shell.dispatch(line)
gc.collect()
print("RESIDUAL %d" % (gc.mem_alloc() - heapmon._state["base"]))
print("MODULES %s" % " ".join(sorted(m for m in sys.modules if m.startswith("shell."))))
heapmon.report()
