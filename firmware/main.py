# Starts the serial console. Ctrl-D on an empty line leaves to the REPL.
import shell

shell.run()
