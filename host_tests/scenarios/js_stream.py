# jsonstream chunked input, select() and stream_string() under MicroPython
# (run at -X heapsize=32K): prints
# "name: result" lines that host_tests/test_jsonstream.py compares.
import jsonstream as js
from js_chunks import Chunks
import heapmon

heapmon.start()


def show(name, fn):
    try:
        r = fn()
    except js.JSONError as e:
        r = "JSONError " + str(e)
    except TypeError:
        r = "TypeError"
    print("%s: %s" % (name, r))


def chunked():
    doc = '{"a": [1, 2.5, "x\\u00e9\\ud83d\\ude00y", {"b": null}], "c": "' + "\u00e9" * 40 + '"}'
    want = js.dumps(js.loads(doc))
    for k in range(1, 9):
        if js.dumps(js.load(Chunks(doc.encode(), k), bufsize=32)) != want:
            return "mismatch at k=%d" % k
    return "ok"


show("chunked", chunked)


def sel():
    got = []
    doc = ('{"choices": [{"message": {"content": "hi \\u00e9", "tool_calls": [{"id": "t1"}, {"id": "t2"}]}}],'
           ' "usage": {"n": 3}, "x": {"a": {"y": 1}, "b": {"y": 2}}}')
    js.select(Chunks(doc.encode(), 3), {
        "choices[0].message.content": js.Stream(lambda p, v: got.append(v)),
        "choices[0].message.tool_calls[*].id": lambda p, v: got.append((p, v)),
        "x.*.y": lambda p, v: got.append(v),
    }, bufsize=32)
    return repr(got)


show("select", sel)


def stream_big():
    # a 200 KB string streamed through a 32K heap in pieces
    n = [0, 0]

    def sink(piece):
        n[0] += len(piece)
        n[1] += 1

    class Gen:
        def __init__(self):
            self.left = 200000
            self.head = b'["'

        def readinto(self, buf):
            if self.head:
                buf[0:2] = self.head
                self.head = None
                return 2
            if self.left <= 0:
                if self.left == 0:
                    buf[0:2] = b'"]'
                    self.left = -1
                    return 2
                return 0
            k = min(len(buf), self.left)
            for i in range(k):
                buf[i] = 97
            self.left -= k
            return k

    p = js.Parser(Gen())
    p.next()
    ok = p.stream_string(sink)
    p.next()
    p.finish()
    return "%s %d %s" % (ok, n[0], n[1] > 100)


show("stream_big", stream_big)
heapmon.report()
