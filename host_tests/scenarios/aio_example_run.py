# Runs the documented example program (aio_example.py) as the test of
# issue 37 item 6: argv flash_root port. The settings on that flash name
# the provider; a 10 ms probe task measures, on the process's CPU clock
# (see aio_chat.py's ticker), the longest any task waited while the chat
# streamed (from its first piece, as the ticker test: before it the
# connection, the lookup and the requests hold the loop, measured apart),
# and apart the longest wait in which the server answered a request.
import sys
import asyncio
import store
store.set_root(sys.argv[1])
import aio_example as ex
from ai import loop, toolcache  # noqa: F401  (loaded before, as a board's program would have them)
from ai.styles import openai  # noqa: F401
from mcpserver import task  # noqa: F401
ex.PORT = int(sys.argv[2])
state = [0, 0, 0]
pieces = [0]
_show = ex.show


def counted(piece):
    pieces[0] += 1
    _show(piece)


ex.show = counted       # (main() looks show up when it runs)


_stat = open("/proc/self/schedstat", "rb")
_buf = bytearray(48)


def cpu_ms():
    """This process's time on a CPU, ms (see aio_chat.py's; the file kept
    open and read into one buffer: a probe that allocates little)."""
    _stat.seek(0)
    n = _stat.readinto(_buf)
    v = 0
    for i in range(n):
        c = _buf[i]
        if c < 48 or c > 57:
            break
        v = v * 10 + c - 48
    return v // 1000000


async def probe():
    """state[0]: the longest gap while the chat streamed; state[1]: the
    longest one in which the server answered a request (the task answers
    each in one go: mcpserver/task.py); state[2]: the longest before the
    chat's first piece."""
    import mcpserver
    cpu = cpu_ms()
    seen = 0
    while True:
        await asyncio.sleep_ms(10)
        c = cpu_ms()
        srv = mcpserver.SERVER
        n = srv.requests if srv is not None else 0
        k = 1 if n != seen else 0 if pieces[0] else 2
        state[k] = max(state[k], c - cpu)
        seen = n
        cpu = c


async def both():
    t = asyncio.create_task(probe())
    await ex.main()
    t.cancel()
    print("PROBE", state[0], state[1], state[2])
    print("LONGEST", ex.longest[0])


asyncio.run(both())
