# The console's `ai` command with a long reply, every module of that path
# imported first and markdown on (tty): argv flash_root command...
# e.g. `ai write a long text`, `ai history`; several commands, one console,
# separated by a ";" argument. The reply streams through the renderer to
# stdout and into the history file; prints the working heap.
import sys
import store
store.set_root(sys.argv[1])
import shell
from shell import term, md, aicmd  # noqa: F401
import ai  # noqa: F401  (in the baseline, as frozen code is)
from ai import loop, history, config, catalog  # noqa: F401
from ai.styles import openai  # noqa: F401
import httpc
import jsonstream  # noqa: F401
import heapmon

shell.set_tty(True)
httpc.close_all()
heapmon.start()
for line in " ".join(sys.argv[2:]).split(" ; "):
    shell.dispatch(line)
heapmon.report()
