# ai.ask_json with select under a small heap: argv provider base_url model
# key store_root count [aio]. The fake streams {"items": [count items]}; each
# item goes to the handler as it completes and is dropped: ITEMS <count>
# <first id> <last id> <err>, then the heap report. With aio, by
# ai.aio.ask_json in an asyncio loop (asyncio loaded before the baseline).
import sys
import gc
import aisteps
import heapmon
import ai
import ai.schema        # (in the baseline: a program that asks for JSON loads it)

AIO = sys.argv[7:] == ["aio"]
if AIO:
    import asyncio
    from ai import aio

ov = aisteps.setup(*sys.argv[1:6])
ov["max_reply"] = 262144
SCHEMA = "id int, name, note: a sentence, ok bool"
seen = [0, None, None]


def item(path, v):
    seen[0] += 1
    if seen[1] is None:
        seen[1] = v["id"]
    seen[2] = v["id"]


gc.collect()
heapmon.start()
ov["schema_multi"] = True
ov["select"] = {"items[*]": item}
if AIO:
    value, err = asyncio.run(aio.ask_json("list them", SCHEMA, ov))
else:
    value, err = ai.ask_json("list them", SCHEMA, ov)
print("ITEMS", seen[0], seen[1], seen[2], repr(value), repr(err))
heapmon.report()
