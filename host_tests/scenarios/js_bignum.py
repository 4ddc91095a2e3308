# jsonstream under MicroPython: a number of argv[1] digits (then argv[2],
# e.g. "" or ".") in a member select() skips, streamed from a generator (the
# document is never whole in RAM). Prints "bignum: <id or JSONError>" and
# HEAPMON.
import sys
import jsonstream as js
import heapmon


class Gen:
    def __init__(self, digits, tail):
        self.parts = [b'{"skip": -', None, tail.encode() + b', "id": "x"}']
        self.left = digits

    def readinto(self, buf):
        if self.parts[0]:
            k = len(self.parts[0])
            buf[0:k] = self.parts[0]
            self.parts[0] = b""
            return k
        if self.left:
            k = min(self.left, len(buf))
            for i in range(k):
                buf[i] = 49 + (self.left - i) % 9
            self.left -= k
            return k
        k = len(self.parts[2])
        buf[0:k] = self.parts[2]
        self.parts[2] = b""
        return k


heapmon.start()
got = []
try:
    js.select(Gen(int(sys.argv[1]), sys.argv[2]), {"id": lambda p, v: got.append(v)})
    r = repr(got)
except js.JSONError as e:
    r = "JSONError " + str(e)
heapmon.report()
print("bignum: " + r)
