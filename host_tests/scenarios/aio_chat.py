# ai.aio as an asyncio program on a board runs it (issue 37):
# argv mode provider base_url model key store_root [more]
#   same     a plain ask, a stream and a tool round by the blocking calls,
#            then the same by ai.aio: a line each, the test compares them
#   ticker   a 10 ms ticker task beside aio.stream of a long reply: TICKER
#            worst gap (ms) once the first piece arrived, the time to it,
#            the pieces; heapmon's peak over the whole program
#   ticker-blocking   the same reply by a blocking ai.ask in the loop
#   abandon  a stream left by a KeyboardInterrupt (the loop ends, no
#            finally runs): the sockets still open, then httpc.close_all()
#            and the next call
#   budget   three awaited asks at once: each answer, the most connections
#            held at once (netcount stops a run over the board's budget)
#   reuse    two awaited asks one after the other (one connection)
#   mem-blocking, mem-async, mem-two   heapmon's peak of a streamed reply
#            by ai.ask, by aio.stream, by two aio.streams at once; a live
#            run (the working set) samples the live heap at each piece the
#            program gets (after a collect), not with a sampler thread: on
#            a busy machine that one missed a blocking call's peak and
#            read the difference 1.9 KB where it is 1.3-1.7
#   imports  a blocking ai.ask: does anything load asyncio?
import sys
import time
import aisteps
import httpc
from ai import loop  # noqa: F401  (in the baseline, as frozen code is)

mode = sys.argv[1]
if mode not in ("imports", "mem-blocking"):   # (ticker-blocking: the ticker is asyncio)
    import asyncio
    from ai import aio
import heapmon
ov = aisteps.setup(*sys.argv[2:8])
more = sys.argv[8:]
TOOL = {"name": "add", "description": "Add two numbers",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"},
                                                         "b": {"type": "integer"}}},
        "run": lambda a: a["a"] + a["b"]}


def roles(h):
    return [(m["role"], m.get("content"), [(c["name"], c["args"]) for c in m.get("tool_calls") or ()])
            for m in h]


def blocking():
    import ai
    h = [{"role": "user", "content": "hello"}]
    r = ai.ask(h, ov)
    print("ASK B", repr(r[0]), repr(r[1]), roles(h))
    pieces = []
    o = dict(ov)
    o["stream"] = pieces.append
    h = [{"role": "user", "content": "stream please"}]
    r = ai.ask(h, o)
    print("STREAM B", repr("".join(pieces)), repr(r[0]), repr(r[1]), roles(h))
    h = [{"role": "user", "content": "add 2 and 3"}]
    r = ai.run(h, ov, tools=[TOOL], approve=lambda c: True)
    print("RUN B", repr(r), roles(h))


async def asynchronous():
    h = [{"role": "user", "content": "hello"}]
    r = await aio.ask(h, ov)
    print("ASK A", repr(r[0]), repr(r[1]), roles(h))
    h = [{"role": "user", "content": "stream please"}]
    pieces = []
    async with aio.stream(h, ov) as s:
        async for p in s:
            pieces.append(p)
    print("STREAM A", repr("".join(pieces)), repr(s.reply), repr(s.err), roles(h))

    async def approve(c):
        await asyncio.sleep_ms(1)
        return True
    h = [{"role": "user", "content": "add 2 and 3"}]
    r = await aio.run(h, ov, tools=[TOOL], approve=approve)
    print("RUN A", repr(r), roles(h))


def cpu_ms():
    """This process's time on a CPU (Linux: /proc/self/schedstat, ns), ms:
    a gap between ticks measured on it leaves out the time the machine gave
    to its other work (a busy test machine preempts for tens of ms)."""
    with open("/proc/self/schedstat") as f:
        return int(f.read().split()[0]) // 1000000


async def ticker(state):
    last = time.ticks_ms()
    cpu = cpu_ms()
    while True:
        await asyncio.sleep_ms(10)
        now = time.ticks_ms()
        c = cpu_ms()
        gap = time.ticks_diff(now, last)
        if state[1] is not None:
            state[0] = max(state[0], gap)
            state[4] = max(state[4], c - cpu)
        else:
            state[3] = max(state[3], gap)
        state[2] += 1
        last = now
        cpu = c


async def long_reply():
    # worst gap once the first piece came, ms to it, ticks, worst gap before
    # it, worst gap on the process's CPU clock once the first piece came
    state = [0, None, 0, 0, 0]
    t = asyncio.create_task(ticker(state))
    await asyncio.sleep_ms(20)
    t0 = time.ticks_ms()
    n = 0
    size = 0
    o = dict(ov)
    o["keep"] = False
    o["max_reply"] = 70000
    h = [{"role": "user", "content": "a long one"}]
    async with aio.stream(h, o) as s:
        async for p in s:
            if state[1] is None:
                state[1] = time.ticks_diff(time.ticks_ms(), t0)
            n += 1
            size += len(p)
    t.cancel()
    print("TICKER", state[0], state[1], n, size, repr(s.err), state[2], state[3], state[4])


async def blocking_reply():
    """The same reply by the blocking ai.ask inside the loop: the ticker's
    worst gap is the whole call (make bench's side by side)."""
    import ai
    state = [0, None, 0, 0, 0]
    t = asyncio.create_task(ticker(state))
    await asyncio.sleep_ms(20)
    n = Count()
    o = dict(ov)
    o["keep"] = False
    o["max_reply"] = 70000
    o["stream"] = n.add
    state[1] = 0        # (counted from the start: the call holds the loop throughout)
    r = ai.ask([{"role": "user", "content": "a long one"}], o)
    await asyncio.sleep_ms(20)
    t.cancel()
    print("TICKER", state[0], 0, 0, n.n, repr(r[1]), state[2], state[3], state[4])


async def abandon():
    # the stream in a task of its own: the KeyboardInterrupt, raised in
    # another, ends the loop with that task's frames never resumed
    got = []

    async def read():
        async with aio.stream([{"role": "user", "content": "a long one"}], ov) as s:
            async for p in s:
                got.append(p)
    asyncio.create_task(read())
    while not got:
        await asyncio.sleep_ms(5)
    raise KeyboardInterrupt


async def many(n):
    async def one(i):
        return await aio.ask([{"role": "user", "content": "question %d" % i}], ov)
    tasks = [asyncio.create_task(one(i)) for i in range(n)]
    out = []
    for t in tasks:
        out.append(await t)
    return out


class Count:
    n = 0

    def add(self, piece):
        heapmon.probe()
        self.n += len(piece)


async def streams(n):
    o = dict(ov)
    o["keep"] = False

    async def one(i):
        k = 0
        async with aio.stream([{"role": "user", "content": "q%d" % i}], o) as s:
            async for p in s:
                heapmon.probe()
                k += len(p)
        return k, s.err
    # the first in the main task, each other in a task of its own: what a
    # program running n at once needs
    tasks = [asyncio.create_task(one(i)) for i in range(1, n)]
    out = [await one(0)]
    for t in tasks:
        out.append(await t)
    return out


heapmon.start(sampler=not heapmon.LIVE)
if mode == "same":
    blocking()
    asyncio.run(asynchronous())
elif mode == "ticker":
    asyncio.run(long_reply())
elif mode == "ticker-blocking":
    asyncio.run(blocking_reply())
elif mode == "abandon":
    try:
        asyncio.run(abandon())
    except KeyboardInterrupt:
        print("ABANDONED", httpc.pool_stats()["sockets"])
    httpc.close_all()
    print("CLOSED", httpc.pool_stats()["sockets"])
    asyncio.new_event_loop()
    r = asyncio.run(aio.ask([{"role": "user", "content": "again"}], ov))
    print("AGAIN", repr(r[0]), repr(r[1]), httpc.pool_stats()["sockets"])
elif mode == "budget":
    for r in asyncio.run(many(3)):
        print("BUDGET", repr(r[0]), repr(r[1]))
    print("POOL", httpc.pool_stats()["opened"])
elif mode == "reuse":
    for r in asyncio.run(many(1)) + asyncio.run(many(1)):
        print("REUSE", repr(r[0]), repr(r[1]))
    print("POOL", httpc.pool_stats()["opened"], httpc.pool_stats()["reused"])
elif mode == "mem-blocking":
    import ai
    n = Count()
    o = dict(ov)
    o["stream"] = n.add
    o["keep"] = False
    r = ai.ask([{"role": "user", "content": "q"}], o)
    print("MEM", n.n, repr(r[1]))
elif mode == "mem-async":
    print("MEM", repr(asyncio.run(streams(1))))
elif mode == "mem-two":
    print("MEM", repr(asyncio.run(streams(2))))
elif mode == "imports":
    import ai
    r = ai.ask([{"role": "user", "content": "q"}], ov)
    print("IMPORTS", repr(r[1]), "asyncio" in sys.modules, "httpc.aio" in sys.modules)
heapmon.report()
