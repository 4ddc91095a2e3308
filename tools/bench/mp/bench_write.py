# Benchmark scenario (MicroPython unix port): serialize a chat-like request
# (argv[2] messages of ~1 KB with newlines, quotes and non-ASCII) with
# jsonstream.dump to a counting sink, jsonstream.encoded_len, or json.dumps.
# argv: method (dump|len|json) messages repeats mode (time|heap)
# Prints "RESULT bytes=<n> best_ms=<ms>".
import json
import jsonstream
from benchmp import ARGS, best_ms, result, sample

method, count, reps = ARGS[0], int(ARGS[1]), int(ARGS[2])
text = ("Line with \"quotes\", a tab\tand caf\u00e9 \u2615 text.\n" * 20)
body = {"model": "m", "stream": True, "temperature": 0.5, "max_tokens": 1024,
        "messages": [{"role": "user" if i % 2 else "assistant", "content": text}
                     for i in range(count)]}
sample()
total = [0]


def sink(b):
    total[0] += len(b)


def run():
    total[0] = 0
    if method == "dump":
        jsonstream.dump(body, sink)
    elif method == "len":
        total[0] = jsonstream.encoded_len(body)
    else:
        total[0] = len(json.dumps(body).encode())


best = best_ms(run, reps)
result("bytes=%d" % total[0], best)
