# Benchmark scenario (MicroPython unix port): jsonstream.loads of a string
# of argv[2] "\n" escapes held in RAM, or jsonstream.load of the same text
# streamed through 256-byte reads.
# argv: method (loads|stream) escapes repeats
# Prints "RESULT chars=<n> best_ms=<ms>".
import jsonstream
from benchmp import ARGS, best_ms, result

method, count, reps = ARGS[0], int(ARGS[1]), int(ARGS[2])
doc = b'"' + b"\\n" * count + b'"'
got = [0]


class Reader:
    def __init__(self):
        self.i = 0

    def readinto(self, buf):
        k = min(len(doc) - self.i, len(buf))
        buf[0:k] = memoryview(doc)[self.i:self.i + k]
        self.i += k
        return k


def run():
    if method == "loads":
        got[0] = len(jsonstream.loads(doc, max_value=1 << 20))
    else:
        got[0] = len(jsonstream.load(Reader(), max_value=1 << 20))


best = best_ms(run, reps)
result("chars=%d" % got[0], best)
