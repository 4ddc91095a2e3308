# jsonstream reader core cases under MicroPython (run at -X heapsize=32K):
# prints "name: result" lines that host_tests/test_jsonstream.py compares
# (accepted values re-encoded with jsonstream.dumps).
import jsonstream as js
import heapmon

heapmon.start()
CASES = (
    ("surrogates", '"\\ud83d\\ude00\\u00e9\\uD83D"'),
    ("astral_utf8", b'"\xf0\x9f\x98\x80"'),
    ("bad_utf8", b'["ok", "\xed\xa0\x80"]'),
    ("overlong", b'"\xc0\xaf"'),
    ("numbers", "[0, -1, 12345678901234567890123, 1.5, -2e3, 1E+2, -0.0]"),
    ("trailing", "[1] x"),
    ("depth", "[" * 65 + "]" * 65),
    ("lenient_mp_json", '{"a" 1}'),
    ("comma", "[1,,2]"),
    ("leading_zero", "[01]"),
    ("object", '{"k": {"x": [true, false, null]}, "e": {}, "a": []}'),
)
for name, doc in CASES:
    try:
        r = js.dumps(js.loads(doc))
    except js.JSONError as e:
        r = "JSONError " + str(e)
    print("%s: %s" % (name, r))
try:
    js.loads('"' + "x" * 100 + '"', max_value=50)
except js.JSONError as e:
    print("long_value: %s" % e)
p = js.Parser("[" * 64 + "]" * 64)
p.skip_value()
p.finish()
print("depth_ok: %d" % p.pos())
heapmon.report()
