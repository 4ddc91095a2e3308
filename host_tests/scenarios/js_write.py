# jsonstream writer cases under MicroPython (run at -X heapsize=32K):
# prints "name: result" lines that host_tests/test_jsonstream.py compares.
import jsonstream as js
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


show("bool_int", lambda: js.dumps([True, False, 1, 0, None]))
show("bytes_dump", lambda: js.dumps(b"x"))
show("nan", lambda: js.dumps(float("nan")))
show("escape_out", lambda: js.dumps("a\"b\\c\n\x01\u00e9"))
show("raw_array", lambda: js.dumps([js.Raw('{"x":[1]}'), js.Array(lambda: iter((1, 2)))]))


def arr_len():
    a = js.Array(lambda: (i * 3 for i in range(100)))
    parts = []
    js.dump({"a": a, "s": "\u00e9" * 50}, parts.append, bufsize=16)
    out = b"".join(parts)
    return js.encoded_len({"a": a, "s": "\u00e9" * 50}) == len(out) and max(len(p) for p in parts) <= 16


show("encoded_len", arr_len)


def all_escapes():
    # every control character, quote, backslash, DEL, non-ASCII, in
    # pieces of 8 (escapes at every place in the buffer)
    s = "".join(chr(c) for c in range(0, 34)) + "\\ \x7f \u00e9\U0001F600" + "x" * 7
    parts = []
    js.dump([s, {s: s}], parts.append, bufsize=8)
    n = js.encoded_len([s, {s: s}])
    return "%d %d %s" % (n, max(len(p) for p in parts), b"".join(parts).decode())


show("all_escapes", all_escapes)
heapmon.report()
