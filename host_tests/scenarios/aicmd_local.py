# The console's `ai` command with the board's tools (ai.tools.local = all in
# the flash's settings): three questions, the model reading files and a pin
# (no question), then writing a file and setting a pin twice, the typed
# answers (n, n, y, y) coming as lines on stdin. Every module of the path
# imported first: argv store_root. Prints the pin's level and the working heap.
import sys
import store
store.set_root(sys.argv[1])
import shell
from shell import term, md, aicmd, approve, tools, chattools, builtins, hw  # noqa: F401
import ai  # noqa: F401
from ai import loop, history, config, catalog  # noqa: F401
from ai.styles import openai  # noqa: F401
import mcp  # noqa: F401
from mcp import registry  # noqa: F401
import jsonstream  # noqa: F401
import machine
import heapmon

shell.set_tty(False)
heapmon.start()
for q in ("what is on the board?", "note it and light the LED", "please do"):
    shell.out("you> " + q)
    aicmd.main([q])
heapmon.report()
print("PIN2", machine.Pin(2).value())
