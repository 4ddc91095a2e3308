"""The board's MCP server as a task of a program's own asyncio loop
(mcpserver.serve, imported on first use: a program without it never
loads asyncio):

    import asyncio, mcpserver
    asyncio.create_task(mcpserver.serve(8765))

The task waits for a connection without holding the loop, then answers
it as the console's `mcp serve` does (mcpserver/http.py: one request,
its command run to its end, its reply written: the loop waits for that,
as for any console command); the delayed refusals of wrong tokens go out
when due. Cancel the task to stop serving (the socket is closed).
"""
import asyncio
import select

import mcpserver
from compat import MICROPYTHON
from httpc.aio import _ready


class _Listening:
    """What httpc.aio._ready waits on: the listening socket, to read."""
    wr = False

    def __init__(self, sock):
        self.sock = sock


async def serve(port=8765, bind="0.0.0.0"):
    url, err = mcpserver.start(port, bind)
    if err:
        raise OSError(err)
    srv = mcpserver.SERVER
    waiting = _Listening(srv.sock)
    poll = select.poll()
    poll.register(srv.sock, select.POLLIN)
    try:
        while True:
            due = srv.due()
            if due < 0:
                await _ready(waiting)
            else:           # (a wrong token's 401 waits out its delay)
                try:
                    if MICROPYTHON:
                        await asyncio.wait_for_ms(_ready(waiting), due)
                    else:
                        await asyncio.wait_for(_ready(waiting), due / 1000)
                except asyncio.TimeoutError:
                    pass
            srv.serve(bool(poll.poll(0)))
    finally:
        mcpserver.stop()
