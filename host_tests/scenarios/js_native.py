# jsonstream's native walker takes the common tokens itself: counts the
# tokens that go through Parser.next() instead (the slow path for tokens
# cut short, escaped keys, errors) while select() and skip_value() read
# plain documents, in place and through 256-byte reads. Prints
# "<case> <calls of next> <result>" lines; the test expects 0 calls.
import jsonstream as js
from js_chunks import Chunks

calls = [0]
_next = js.Parser.next


def counting(self):
    calls[0] += 1
    return _next(self)


js.Parser.next = counting


DOCS = (
    ("models", b'{"object": "list", "data": [{"id": "model-1", "object": "model", "created": 1700000000,'
               b' "owned_by": "org one"}, {"id": "m\xc3\xa9 2!", "object": "model", "created": -1.5e3,'
               b' "owned_by": null, "x": [true, false, {}, []]}]}'),
    ("chat", b'{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1733000000,"choices":[{"index":0,'
             b'"delta":{"content":" caf\xc3\xa9 \\"q\\" \\n \\u00e9 \xf0\x9f\x98\x80!"},"logprobs":null,'
             b'"finish_reason":"stop"}],"usage":{"total_tokens":12,"x":0.25}}'),
)
got = []
RULES = js.Rules({"data[*].id": lambda p, v: got.append(v), "choices[0].finish_reason": lambda p, v: got.append(v),
                  "choices[0].delta.content": js.Stream(lambda p, v: got.append(v))})
for name, doc in DOCS:
    for k in (0, 256):
        del got[:]
        calls[0] = 0
        js.select(doc if k == 0 else Chunks(doc, k), RULES)
        print("%s-select-%d %d %s" % (name, k, calls[0], js.dumps(got)))
        calls[0] = 0
        p = js.Parser(doc if k == 0 else Chunks(doc, k))
        p.skip_value()
        p.finish()
        print("%s-skip-%d %d %d" % (name, k, calls[0], p.pos()))
