# The console's `ai` command, one question whose answer needs an MCP tool
# call (cached tools, approve=always), with every module of that path
# imported first: argv store_root [bare]. No connection is pooled at the
# start, so both connections' buffers count. With "bare" the same round goes
# straight to ai.run with the conversation in RAM (no console layer), to
# tell the console's share from the library's. Prints the working heap.
import sys
import store
store.set_root(sys.argv[1])
import shell
from shell import term, md, aicmd, mcpcmd, tools, chattools  # noqa: F401
import ai
from ai import loop, history, config, catalog  # noqa: F401
from ai.styles import openai  # noqa: F401
import mcp  # noqa: F401  (in the baseline, as frozen code is)
from mcp import client, registry  # noqa: F401
import httpc
import jsonstream  # noqa: F401
import heapmon

shell.set_tty(False)
n, err = ai.tools_cache_build()
print("CACHE", n, err)
httpc.close_all()
heapmon.start()
if sys.argv[2:] == ["bare"]:
    h = [{"role": "user", "content": "What is the weather in Rochdale?"}]
    # the board's read-only tools too, as the console offers them by default
    print("BARE", ai.run(h, {"use": "chat", "stream": shell.write}, local="read"))
else:
    aicmd.main(["What is the weather in Rochdale?"])
heapmon.report()
