# Starts the serial console after boot.py. Three ways to the plain Python
# REPL instead (tools/README.md: "First start, and the safe way out"):
#   - Ctrl-C during the one second after "console in 1 s" is printed;
#   - a file named noconsole in the board's root folder (for example
#     `mpremote touch :noconsole`; delete it to get the console back);
#   - in the console: `py` or Ctrl-D on an empty line (the console also
#     steps aside when mpremote asks for the raw REPL).
# From the REPL, `import shell; shell.run()` starts the console.
# With the setting mcp.serve.autostart on, the board's MCP server starts
# first (as if `mcp serve` were typed; boot.py has joined WiFi by then).
def _main():
    import os
    import time
    try:
        os.stat("noconsole")
        print("main: noconsole file found: plain REPL (import shell; shell.run() "
              "starts the console)")
        return
    except OSError:
        pass
    print("AntOS console in 1 s (Ctrl-C: plain REPL)")
    try:
        time.sleep_ms(1000)
    except KeyboardInterrupt:
        print("main: plain REPL (import shell; shell.run() starts the console)")
        return
    import shell
    import store
    if store.get("mcp.serve.autostart"):
        shell.dispatch("mcp serve")     # one line if it fails; never fatal
    shell.run()


_main()
del _main
