# ai.ask_json through one style under MicroPython: argv provider base_url
# model key store_root schema_file style|- [aio]. Prints VALUE <the value
# as JSON> or ERR <err>; with aio, by ai.aio.ask_json in an asyncio loop.
import sys
import aisteps
import ai
import jsonstream

ov = aisteps.setup(*sys.argv[1:6], style=sys.argv[7] if sys.argv[7] != "-" else None)
with open(sys.argv[6]) as f:
    schema = f.read()
ov["stream"] = lambda piece: None
if sys.argv[8:] == ["aio"]:
    import asyncio
    from ai import aio
    value, err = asyncio.run(aio.ask_json("who?", schema, ov))
else:
    value, err = ai.ask_json("who?", schema, ov)
print("ERR " + err if err else "VALUE " + jsonstream.dumps(value))
