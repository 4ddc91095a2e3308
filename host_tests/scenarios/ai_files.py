# Files on a message through ai.ask under a small heap, as a chat of two
# rounds: argv provider base_url model key store_root style file... [aio]
# (flash paths under store_root; style "-": the provider's; "aio" last:
# the same by ai.aio.stream and ai.aio.ask in an asyncio loop). Round one
# streams the answer to a question with the files, round two asks again
# with them in the history (sent again). Prints FILES <err> <pieces>
# <reply> and AGAIN <err> <reply>.
import sys
import ai
import aisteps
import heapmon

argv = sys.argv[1:]
awaited = argv[-1] == "aio"
if awaited:
    argv = argv[:-1]
    import asyncio
    from ai import aio
ov = aisteps.setup(*argv[:5], style=None if argv[5] == "-" else argv[5])
files = argv[6:]
from ai import files as _files  # noqa: F401,E402  (its code in the baseline, as frozen)
heapmon.start()
hist = [{"role": "user", "content": "what is in these?", "files": files}]
pieces = []


async def rounds():
    async with aio.stream(hist, ov) as s:
        async for p in s:
            pieces.append(p)
    print("FILES", repr(s.err), len(pieces), repr(s.reply))
    hist.append({"role": "user", "content": "and again?"})
    reply, err, _ = await aio.ask(hist, ov)
    print("AGAIN", repr(err), repr(reply))

if awaited:
    asyncio.run(rounds())
else:
    ov["stream"] = pieces.append
    reply, err, _ = ai.ask(hist, ov)
    print("FILES", repr(err), len(pieces), repr(reply))
    del ov["stream"]
    hist.append({"role": "user", "content": "and again?"})
    reply, err, _ = ai.ask(hist, ov)
    print("AGAIN", repr(err), repr(reply))
heapmon.report()
