# The console as make sim runs it on an emulated board (tools/sim.py
# --board): romboot has set up the frozen code's image, the board's
# profile and GC setting; this is the firmware's main.py's part. Exit
# status 10: the person left for the Python REPL (`py`, Ctrl-D).
import sys
import shell
shell.run()
sys.exit(10 if shell.left == "repl" else 0)
