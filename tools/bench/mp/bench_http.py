# Benchmark scenario (MicroPython unix port): GET a models list over
# loopback HTTP with httpc and either only read its body (readinto a
# 256-byte buffer: what the port reads from a socket) or extract every
# data[*].id with jsonstream.select straight off the socket.
# argv: method (read|js) url repeats
# Prints "RESULT bytes=<n> count=<n> best_ms=<ms>".
import httpc
import jsonstream
from benchmp import ARGS, best_ms, result

method, url, reps = ARGS[0], ARGS[1], int(ARGS[2])
state = [0, 0]
buf = bytearray(256)


def on_id(p, v):
    state[1] += 1


def run():
    state[0] = state[1] = 0
    r = httpc.request("GET", url)
    try:
        if method == "read":
            while True:
                k = r.readinto(buf)
                if not k:
                    break
                state[0] += k
        else:
            jsonstream.select(r, {"data[*].id": on_id})
    finally:
        r.close()


best = best_ms(run, reps)
result("bytes=%d count=%d" % (state[0], state[1]), best)
