# The Python REPL after `py` on an emulated board (tools/sim.py --board):
# the unix port's REPL follows (MICROPYINSPECT) with shell imported.
import shell  # noqa: F401
import store  # noqa: F401
print("Python REPL: shell.run() goes back to the console")
