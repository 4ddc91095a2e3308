# jsonstream's element bound under MicroPython: load() a generated document
# of argv[2] items of kind argv[1] ("lists": [[],[],...], "keys":
# {"k0":0,...}) streamed from a reader (never whole in RAM) with max_items
# argv[3] ("-" for the default). Prints "items: <len or JSONError message>"
# and HEAPMON.
import sys
import jsonstream as js
import heapmon


class Gen:
    """readinto() source of the document, one item at a time."""

    def __init__(self, kind, n):
        self.kind = kind
        self.n = n
        self.i = 0
        self.pend = b"[" if kind == "lists" else b"{"

    def readinto(self, buf):
        while len(self.pend) < len(buf) and self.i <= self.n:
            if self.i == self.n:
                self.pend += b"]" if self.kind == "lists" else b"}"
            else:
                sep = b"," if self.i else b""
                self.pend += sep + (b"[]" if self.kind == "lists" else b'"k%d":0' % self.i)
            self.i += 1
        k = min(len(buf), len(self.pend))
        buf[0:k] = self.pend[0:k]
        self.pend = self.pend[k:]
        return k


kind = sys.argv[1]
n = int(sys.argv[2])
kw = {} if sys.argv[3] == "-" else {"max_items": int(sys.argv[3])}
heapmon.start()
try:
    r = len(js.load(Gen(kind, n), **kw))
except js.JSONError as e:
    r = "JSONError " + str(e)
heapmon.report()
print("items: %s" % r)
