"""lib/jsonstream.py: streaming JSON reader/writer on CPython and, through
scenarios, on the MicroPython unix port under small heap caps."""
import json
import math
import os
import random
import subprocess
import sys

import pytest

import jsonstream as js

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))

from models_doc import write_models  # noqa: E402

# Documented decisions for the implementation-defined corpus files (see the
# top of lib/jsonstream.py): these are accepted, every other i_* is rejected.
I_ACCEPT = {
    "i_number_double_huge_neg_exp.json": [0.0],
    "i_number_huge_exp.json": [math.inf],
    "i_number_neg_int_huge_exp.json": [-math.inf],
    "i_number_pos_double_huge_exp.json": [math.inf],
    "i_number_real_neg_overflow.json": [-math.inf],
    "i_number_real_pos_overflow.json": [math.inf],
    "i_number_real_underflow.json": [0.0],
    "i_number_too_big_neg_int.json": [-123123123123123123123123123123],
    "i_number_too_big_pos_int.json": [100000000000000000000],
    "i_number_very_big_negative_int.json": [-237462374673276894279832749832423479823246327846],
    "i_object_key_lone_2nd_surrogate.json": {"\ufffd": 0},
    "i_string_1st_surrogate_but_2nd_missing.json": ["\ufffd"],
    "i_string_1st_valid_surrogate_2nd_invalid.json": ["\ufffd\u1234"],
    "i_string_incomplete_surrogate_and_escape_valid.json": ["\ufffd\n"],
    "i_string_incomplete_surrogate_pair.json": ["\ufffda"],
    "i_string_incomplete_surrogates_escape_valid.json": ["\ufffd\ufffd\n"],
    "i_string_invalid_lonely_surrogate.json": ["\ufffd"],
    "i_string_invalid_surrogate.json": ["\ufffdabc"],
    "i_string_inverted_surrogates_U+1D11E.json": ["\ufffd\ufffd"],
    "i_string_lone_second_surrogate.json": ["\ufffd"],
}


class Chunks:
    """readinto() source returning at most k bytes per call."""

    def __init__(self, data, k, first=None):
        self.data = data
        self.k = k
        self.first = first  # size of the first read (split tests)
        self.i = 0
        self.calls = 0

    def readinto(self, buf):
        k = self.k
        if self.first is not None and self.calls == 0:
            k = self.first
        self.calls += 1
        n = min(len(self.data) - self.i, k, len(buf))
        buf[0:n] = self.data[self.i:self.i + n]
        self.i += n
        return n


def corpus(testdata, kind="test_parsing"):
    d = os.path.join(testdata, "JSONTestSuite", kind)
    if not os.path.isdir(d):
        pytest.skip("JSONTestSuite not found at %s" % d)
    return [(f, os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".json")]


def verdict(data, **kw):
    try:
        return "accept", js.load(data if not isinstance(data, bytes) else data, **kw)
    except js.JSONError as e:
        assert str(e).startswith("JSON: ") and " at byte " in str(e), e
        return "reject", str(e)


def same(a, b):
    """Equality where floats compare with a relative tolerance (MicroPython's
    float parsing may differ in the last bit) and nan/inf match."""
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
            return False
        if math.isinf(a) or math.isinf(b):
            return a == b
        return a == b or abs(a - b) <= 1e-15 * max(abs(a), abs(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# -- corpus on CPython ------------------------------------------------------

def expected_verdict(name):
    if name.startswith("y_"):
        return "accept"
    if name.startswith("n_"):
        return "reject"
    return "accept" if name in I_ACCEPT else "reject"


def test_corpus_cpython_in_memory_and_one_byte_reads(testdata):
    files = corpus(testdata)
    assert len(files) > 300
    bad = []
    for name, path in files:
        with open(path, "rb") as f:
            data = f.read()
        r1 = verdict(data)
        # the same bytes through 1-byte reads and the smallest buffer
        r2 = verdict(Chunks(data, 1), bufsize=32)
        if r1[0] != expected_verdict(name) or r1[0] != r2[0]:
            bad.append((name, r1, r2))
            continue
        if r1[0] == "accept":
            assert same(r1[1], r2[1]), name
            if name.startswith("y_"):
                assert same(r1[1], json.loads(data)), name
            if name in I_ACCEPT:
                assert same(r1[1], I_ACCEPT[name]), (name, r1[1])
    assert not bad, bad


def skip_verdict(src, **kw):
    p = js.Parser(src, **kw)
    try:
        p.skip_value()
        p.finish()
        return "accept", p.pos()
    except js.JSONError as e:
        return "reject", str(e)


def test_corpus_skip_value_same_verdicts_and_messages(testdata):
    bad = []
    for name, path in corpus(testdata):
        with open(path, "rb") as f:
            data = f.read()
        want = verdict(data)
        for got in (skip_verdict(data), skip_verdict(Chunks(data, 1), bufsize=32),
                    skip_verdict(Chunks(data, 7), bufsize=32)):
            if got[0] != want[0] or (got[0] == "reject" and got[1] != want[1]):
                bad.append((name, want, got))
            if got[0] == "accept" and got[1] != len(data):
                bad.append((name, "pos", got[1], len(data)))
    assert not bad, bad


def test_corpus_rejects_name_offsets(testdata):
    d = os.path.join(testdata, "JSONTestSuite", "test_parsing")
    msg = verdict(open(os.path.join(d, "n_object_trailing_comma.json"), "rb").read())[1]
    assert msg == "JSON: expected '\"' (object key) at byte 8", msg
    msg = verdict(open(os.path.join(d, "i_string_UTF-8_invalid_sequence.json"), "rb").read())[1]
    assert msg == "JSON: invalid UTF-8 at byte 7", msg
    msg = verdict(open(os.path.join(d, "i_structure_500_nested_arrays.json"), "rb").read())[1]
    assert msg == "JSON: nesting deeper than 64 at byte 64", msg


def test_transform_corpus_matches_cpython_where_defined(testdata):
    for name, path in corpus(testdata, "test_transform"):
        data = open(path, "rb").read()
        got = verdict(data)
        try:
            data.decode("utf-8")
        except UnicodeError:
            # raw encoded surrogates: CPython's json lets them through with
            # 'surrogatepass'; strict UTF-8 here rejects them (documented)
            assert got[0] == "reject" and "invalid UTF-8" in got[1], (name, got)
            continue
        want = json.loads(data)
        text = json.dumps(want)
        if "\\ud8" in text or "\\udc" in text or "\\udf" in text:
            # lone surrogates: we decode U+FFFD (documented)
            assert got[0] == "accept" and "\ufffd" in json.dumps(got[1], ensure_ascii=False), name
            continue
        assert got[0] == "accept" and same(got[1], want), (name, got, want)


# -- corpus under MicroPython -----------------------------------------------

@pytest.mark.parametrize("bufsize", [32, 256])
def test_corpus_micropython_same_verdicts(mpy, testdata, tmp_path, bufsize):
    files = corpus(testdata)
    lst = tmp_path / "files.txt"
    lst.write_text("\n".join(p for _, p in files) + "\n")
    r = mpy.run("js_corpus", heap="32K", args=[lst, bufsize], timeout=120)
    assert r.rc == 0, r
    lines = r.out.rstrip("\n").split("\n")  # not splitlines(): U+2028 is data
    assert lines[-1] == "DONE %d" % len(files), r
    got = {}
    skips = {}
    for ln in lines[:-1]:
        name, v, rest = (ln.split(" ", 2) + [""])[:3]
        assert v != "CRASH", ln
        if v.startswith("skip-"):
            skips[name] = (v[5:], rest)
        else:
            got[name] = (v, rest)
    assert len(got) == len(files) == len(skips)
    for name, path in files:
        size = os.path.getsize(path)
        want = (got[name][0], str(size) if got[name][0] == "accept" else got[name][1])
        assert skips[name] == want, (name, skips[name], want)
    mismatch = []
    for name, path in files:
        v, rest = got[name]
        cp = verdict(open(path, "rb").read())
        if v != cp[0]:
            mismatch.append((name, v, rest, cp[0]))
        elif v == "accept" and rest.startswith("repr:"):
            if rest != "repr:" + repr(cp[1]):
                mismatch.append((name, rest, cp[1]))
        elif v == "accept":
            # the MicroPython value, re-encoded by jsonstream.dumps there
            if not same(json.loads(rest), cp[1]):
                mismatch.append((name, rest, cp[1]))
        elif rest != cp[1]:
            mismatch.append((name, "message", rest, cp[1]))
    assert not mismatch, mismatch


# -- differential against CPython json --------------------------------------

def rand_str(rng):
    pool = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\u00e9", "\u20ac",
            "\u4e2d", "\U0001F600", "\U0001D11E", "\uffff", "\u2028"]
    n = rng.choice([0, 1, 3, 8, 40, 300])
    return "".join(rng.choice(pool) for _ in range(n))


def rand_num(rng):
    c = rng.randrange(6)
    if c == 0:
        return rng.randrange(-1000, 1000)
    if c == 1:
        return rng.randrange(-10 ** 30, 10 ** 30)
    if c == 2:
        return rng.uniform(-1e6, 1e6)
    if c == 3:
        return rng.choice([0.0, -0.0, 1e-300, 5e-324, 1.7976931348623157e308, 0.1, 1e22])
    if c == 4:
        return float(rng.randrange(-10 ** 6, 10 ** 6)) * 10 ** rng.randrange(-20, 20)
    return rng.randrange(0, 10)


def rand_value(rng, depth=0, keys=None):
    """A random value; keys: objects take their keys from these (the ones
    js_select's patterns name) and strings are also plain or empty."""
    c = rng.randrange(10 if depth < 6 else 6)
    if c == 0:
        return rand_str(rng)
    if c == 1:
        return rand_num(rng)
    if c == 2:
        return rng.choice([True, False, None] + ([] if keys is None else ["", "plain", "x" * 70]))
    if c in (3, 4, 5):
        return rand_str(rng) if c == 3 else rand_num(rng)
    if c in (6, 7):
        return [rand_value(rng, depth + 1, keys) for _ in range(rng.randrange(5))]
    if keys is not None:
        return {k: rand_value(rng, depth + 1, keys) for k in rng.sample(keys, rng.randrange(6))}
    return {rand_str(rng)[:10]: rand_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def rand_doc(rng):
    v = rand_value(rng)
    text = json.dumps(v, ensure_ascii=rng.random() < 0.5,
                      indent=rng.choice([None, None, 1, "\t"]),
                      separators=rng.choice([None, (",", ":"), (" , ", " : ")]))
    return v, text.encode()


def test_differential_every_chunk_size_and_split():
    rng = random.Random(8259)
    for _ in range(60):
        v, data = rand_doc(rng)
        assert same(js.loads(data, max_value=1 << 20), v)
        ks = range(1, len(data) + 1) if len(data) < 200 else [1, 2, 3, 5, 7, 13, 31, 32, 33, 64, 255, 4096]
        for k in ks:
            got = js.load(Chunks(data, k), bufsize=32, max_value=1 << 20)
            assert same(got, v), (k, data)
            p = js.Parser(Chunks(data, k), bufsize=32)
            p.skip_value()
            p.finish()
            assert p.pos() == len(data)
        if len(data) < 120:
            for s in range(1, len(data) + 1):  # one split at every position
                got = js.load(Chunks(data, 1 << 20, first=s), bufsize=256, max_value=1 << 20)
                assert same(got, v), (s, data)


def test_differential_micropython(mpy, tmp_path):
    rng = random.Random(1234)
    docs = [rand_doc(rng) for _ in range(40)]
    f = tmp_path / "docs.txt"
    f.write_bytes(b"\n".join(d for _, d in docs if b"\n" not in d) + b"\n")
    kept = [v for v, d in docs if b"\n" not in d]
    r = mpy.run("js_diff", heap="64K", args=[f, 1, 2, 3, 7, 32, 1000], timeout=120)
    lines = r.out.rstrip("\n").split("\n")
    assert r.rc == 0 and lines[-1] == "DONE", r
    lines = lines[:-1]
    assert len(lines) == 6 * len(kept)
    for ln in lines:
        no, k, out = ln.split(" ", 2)
        assert not out.startswith("ERROR"), ln
        assert same(json.loads(out), kept[int(no)]), (ln, kept[int(no)])


KEYS = ["a", "b", "c", "d", "e", "f", "g", "id", "n", "k", "o", "x\"y", "\u00e9", "k" * 300, "zz"]


MUTATIONS = b'{}[]",:\\ u0123456789.eE+-tfnrl\x00\x1f\x7f\xc3\xa9\xed\xf0'


def mutate(rng, data, alphabet=MUTATIONS):
    """data with 1-3 bytes deleted, inserted or replaced."""
    data = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(3)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and pos < len(data):
            del data[pos]
        elif op == 1:
            data[pos:pos] = bytes([rng.choice(alphabet)])
        elif pos < len(data):
            data[pos] = rng.choice(alphabet)
    return bytes(data)


EDGES = [
    b"true", b"trxe", b"tru", b"false", b"fals3", b"null", b"nul", b"nulll", b"-", b"-a", b"-0",
    b"-01", b"01", b"0", b"1.", b"1.5", b"1.e5", b"1e", b"1e+", b"1E-7", b"12e+34", b"-0.0e0",
    b'"a\\u12:4"', b'"a\\u12G4"', b'"a\\u12aF"', b'"\\uD83D\\uDE00"', b'"\\x"', b'"\\/\\b\\f\\n\\r\\t\\"\\\\"',
    b'"\x01"', b'"\x1f"', b'"\x7f"', b'"\xc2\x80"', b'"\xc1\xbf"', b'"\xe0\xa0\x80"', b'"\xe0\x9f\xbf"',
    b'"\xed\x9f\xbf"', b'"\xed\xa0\x80"', b'"\xef\xbf\xbf"', b'"\xf0\x90\x80\x80"',
    b'"\xf0\x8f\xbf\xbf"', b'"\xf4\x8f\xbf\xbf"', b'"\xf4\x90\x80\x80"', b'"\xf5\x80\x80\x80"',
    b'"\x80"', b'"\xe0\xa0"', b'"\xc3\xa9\xc3"', b'"plain text!"', b'""', b"[]", b"{}", b"[,]", b"[1,]",
    b"{,}", b'{"a" 1}',
    b'{"a":1,}', b"[" * 70 + b"]" * 70, b'"' + b"y" * 300 + b'"', b"9" * 300, b'"\xc3\xa9' * 40 + b'"',
]


@pytest.mark.smoke
def test_select_and_skip_micropython_native_same_as_cpython(mpy, tmp_path):
    """The native scanner (MicroPython only) against the pure-Python path:
    the same handler calls, errors and skip results for valid and broken
    documents, in place and at every chunking."""
    rng = random.Random(17)
    docs = []
    while len(docs) < 160:
        v = rand_value(rng, keys=KEYS) if rng.random() < 0.8 else [
            {k: rand_value(rng, 1, KEYS) for k in rng.sample(KEYS, 3)} for _ in range(3)]
        text = json.dumps(v, ensure_ascii=rng.random() < 0.3, separators=rng.choice([None, (",", ":")]))
        data = text.encode()
        if rng.random() < 0.35:
            data = mutate(rng, data)
        if b"\n" not in data and b"\r" not in data and len(data) < 4000:
            docs.append(data)
    # every token edge the scanner decides on, valid and not, in the
    # places it walks through: a skipped member, a selected one, an element
    for t in EDGES:
        for shape in (b'[%s]', b'{"zz": %s, "a": 1}', b'{"a":%s}', b'{"d": [{"id": "x"}, {"q": %s, "id": 2}]}',
                      b'{%s: 1, "a": 2}', b'{"d": [{"id": "x", "n": %s}]}'):
            docs.append(shape % t)
    f = tmp_path / "docs.txt"
    f.write_bytes(b"\n".join(docs) + b"\n")
    ks = ["0", "1", "2", "3", "7", "32", "1000"]
    scen = os.path.join(ROOT, "host_tests", "scenarios", "js_select.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "lib"))
    want = subprocess.run([sys.executable, scen, str(f)] + ks, capture_output=True, env=env,
                          timeout=300).stdout.decode().split("\n")
    r = mpy.run("js_select", heap="512K", args=[f] + ks, timeout=300)
    got = r.out.split("\n")
    assert r.rc == 0 and got[-2] == "DONE" and want[-2] == "DONE", r
    assert len(got) == len(want) == 2 * len(ks) * len(docs) + 2
    errors = 0
    for g, w in zip(got, want):
        errors += '["error",' in w
        if " skip " in w or g == w:
            assert g == w
            continue
        g, w = g.split(" ", 2)[2], w.split(" ", 2)[2]
        assert same(json.loads(g), json.loads(w)), (g, w)  # floats may print differently
    assert errors > 200  # broken documents were among them


def test_a_sink_that_wants_no_more_gets_the_rest_counted():
    """stream_string: a sink returning True gets the rest of the string as
    its length in UTF-8 bytes (escapes, surrogate pairs and characters cut
    by the buffer's end counted as what they stand for), at every chunking;
    the rest is still checked."""
    text = "abc \u00e9\U0001F600 \"q\" \\ tab\t\n" * 40
    want = len(text.encode())
    for doc in (json.dumps(text).encode(), json.dumps(text, ensure_ascii=False).encode()):
        for step in (1, 3, 7, 64, 1000):
            for cut in (0, 50, 700):
                got = [0, 0]

                def sink(x):
                    if type(x) is int:
                        got[1] += x
                        return True
                    got[0] += len(x.encode())
                    return got[0] >= cut
                p = js.Parser(Chunks(doc, step), bufsize=32)
                assert p.stream_string(sink)
                p.finish()
                assert got[0] + got[1] == want, (step, cut, got)
                assert got[1] and got[0] >= cut
    for bad, what in ((b'"' + b"x" * 100 + b'\x01"', "control character"),
                      (b'"' + b"x" * 100 + b'\xff"', "invalid UTF-8"),
                      (b'"' + b"x" * 100 + b'\\q"', "escape"),
                      (b'"' + b"x" * 100, "end of input")):
        p = js.Parser(Chunks(bad, 7), bufsize=32)
        with pytest.raises(js.JSONError, match=what):
            p.stream_string(lambda x: True)


def _byte_docs(rng):
    """JSON strings for stream_bytes: random text (escaped or not), every
    string edge of EDGES, broken ones."""
    docs = []
    while len(docs) < 120:
        text = json.dumps(rand_str(rng) + rand_str(rng), ensure_ascii=rng.random() < 0.5)
        data = text.encode()
        if rng.random() < 0.3:
            data = mutate(rng, data)
        if b"\n" not in data and b"\r" not in data:
            docs.append(data)
    return docs + [t for t in EDGES if t.startswith(b'"')]


def test_stream_bytes_gives_the_utf8_at_every_chunking_and_buffer():
    """stream_bytes: the string's UTF-8 bytes (escapes, surrogate pairs,
    characters cut by the buffer's end), through output buffers of every
    size, at every chunking; its length returned; a broken string fails
    with stream_string's message."""
    text = "abc \u00e9\U0001F600 \"q\" \\ tab\t\n/\b\f\r" * 40 + "\u2028\x7f"
    want = text.encode()
    for doc in (json.dumps(text).encode(), json.dumps(text, ensure_ascii=False).encode()):
        for step in (0, 1, 3, 7, 64, 1000):
            for size in (1, 4, 5, 64, 512):
                got = []
                p = js.Parser(Chunks(doc, step) if step else doc, bufsize=32)
                assert p.stream_bytes(lambda v: got.append(bytes(v)), bytearray(size)) == len(want)
                p.finish()
                assert b"".join(got) == want, (step, size)
                assert all(len(g) == size for g in got[:-1]) and 0 < len(got[-1]) <= size
    p = js.Parser(b'{"a": 1}')
    assert p.stream_bytes(None, bytearray(8)) is None and p.next() == js.OBJ

    def message(parse):
        try:
            parse()
        except js.JSONError as e:
            return str(e)
    for doc in _byte_docs(random.Random(3629)):
        for step in (1, 7, 1000):
            a = message(lambda: js.Parser(Chunks(doc, step), bufsize=32).stream_bytes(
                lambda v: None, bytearray(16)))
            b = message(lambda: js.Parser(Chunks(doc, step), bufsize=32).stream_string(lambda s: None))
            assert a == b, (doc, step)


def test_stream_bytes_micropython_native_same_as_cpython(mpy, tmp_path):
    """The native copier (MicroPython) against the pure-Python path: the
    same bytes, lengths and errors, in place and at every chunking."""
    docs = _byte_docs(random.Random(5))
    f = tmp_path / "docs.txt"
    f.write_bytes(b"\n".join(docs) + b"\n")
    ks = ["0", "1", "2", "3", "7", "32", "1000"]
    scen = os.path.join(ROOT, "host_tests", "scenarios", "js_bytes.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "lib") + os.pathsep + os.path.dirname(scen))
    want = subprocess.run([sys.executable, scen, str(f)] + ks, capture_output=True, env=env,
                          timeout=300).stdout.decode().split("\n")
    r = mpy.run("js_bytes", heap="256K", args=[f] + ks, timeout=300)
    got = r.out.split("\n")
    assert r.rc == 0 and got[-2] == "DONE" and want[-2] == "DONE", r
    assert got == want
    errors = 0
    for line in want[:-2]:
        no, k, size, rest = line.split(" ", 3)
        doc = docs[int(no)]
        if rest.startswith("ERROR"):
            errors += 1
            assert message(doc) is not None, (doc, rest)     # (loads fails too)
        else:
            n, hexed = rest.split(" ")
            assert bytes.fromhex(hexed) == js.loads(doc).encode() and int(n) == len(hexed) // 2
    assert errors > 20


def message(doc):
    try:
        js.loads(doc)
    except js.JSONError as e:
        return str(e)


def test_stream_string_and_skip_value_at_every_chunk_size():
    s = "x\u00e9\U0001F600\\\"\n" * 50 + "end"
    doc = json.dumps({"skip": [s, {"a": [1, 2e5, None]}], "s": s, "t": 1}, ensure_ascii=False).encode()
    for k in (1, 2, 3, 5, 31, 100):
        p = js.Parser(Chunks(doc, k), bufsize=32)
        assert p.next() == js.OBJ and p.next() == js.KEY and p.value == "skip"
        p.skip_value()
        assert p.next() == js.KEY and p.value == "s"
        pieces = []
        assert p.peek() == js.STR
        assert p.stream_string(pieces.append) is True
        assert "".join(pieces) == s and all(pieces) and all(isinstance(x, str) for x in pieces)
        assert len(pieces) > 1
        assert p.next() == js.KEY and p.stream_string(pieces.append) is False
        assert p.next() == js.NUM and p.value == 1
        assert p.next() == js.END_OBJ and p.next() == js.EOF
        p.finish()
        assert p.pos() == len(doc)


def test_events_and_values():
    p = js.Parser(b' {"a": [true, false, null, -0.5, 10, "s"]} ')
    evs = []
    while True:
        e = p.next()
        evs.append((e, p.value if e in (js.KEY, js.STR, js.NUM) else None))
        if e == js.EOF:
            break
    assert evs == [(js.OBJ, None), (js.KEY, "a"), (js.ARR, None), (js.TRUE, None), (js.FALSE, None),
                   (js.NULL, None), (js.NUM, -0.5), (js.NUM, 10), (js.STR, "s"), (js.END_ARR, None),
                   (js.END_OBJ, None), (js.EOF, None)]
    p.finish()
    assert isinstance(js.loads("10"), int) and isinstance(js.loads("1e1"), float)
    assert js.loads("123456789012345678901234567890") == 123456789012345678901234567890


@pytest.mark.parametrize("doc,msg", [
    ('{"a":1 "b":2}', "JSON: expected ',' or '}' at byte 7"),
    ('[1 2]', "JSON: expected ',' or ']' at byte 3"),
    ('[1,2', "JSON: unexpected end of input at byte 4"),
    ('{"a":1}  [', "JSON: expected end of input at byte 9"),
    ('"abc\x01"', "JSON: control character in string at byte 4"),
    ('[' * 65, "JSON: nesting deeper than 64 at byte 64"),
    ('"' + "y" * 20000 + '"', "JSON: value longer than 16384 bytes at byte 0"),
    ('[' + ('"' + "a" * 100 + '",') * 200 + '1]', "JSON: value longer than 16384 bytes at byte 0"),
    ('[' + '1,' * 1023 + '1]', "JSON: more than 1024 elements at byte 2047"),
    ('{' + ''.join('"k%03d":0,' % i for i in range(600)) + '"z":0}',
     "JSON: more than 1024 elements at byte 4607"),
    ('[1, 2, 03]', "JSON: expected ',' or ']' at byte 8"),
    ('[1, 2, 3.]', "JSON: expected digit at byte 9"),
    ('-', "JSON: unexpected end of input at byte 1"),
    ('[1e+]', "JSON: expected digit at byte 4"),
    ('"\\uZZZZ"', "JSON: expected hex digit at byte 3"),
])
def test_error_messages_name_offset_and_expectation(doc, msg):
    for src in (doc, Chunks(doc.encode(), 1)):
        with pytest.raises(js.JSONError) as ei:
            js.load(src, bufsize=32) if not isinstance(src, str) else js.loads(src)
        assert str(ei.value) == msg
        assert isinstance(ei.value, ValueError)


def test_max_items_bounds_materialized_values_everywhere():
    lists = ("[" + ",".join(["[]"] * 5461) + "]").encode()  # 16 KB
    want = "JSON: more than 1024 elements at byte 3070"
    for src, kw in ((lists, {}), (Chunks(lists, 1), {"bufsize": 32}), (Chunks(lists, 7), {})):
        with pytest.raises(js.JSONError) as ei:
            js.load(src, **kw)
        assert str(ei.value) == want
    assert len(js.loads(lists, max_items=5462)) == 5461
    with pytest.raises(js.JSONError, match="more than 5 elements at byte 14"):
        js.loads(b'{"a": [1, 2], "b": 3}', max_items=5)  # the key "b" is the 6th
    assert js.loads(b'{"a": [1, 2], "b": 3}', max_items=7) == {"a": [1, 2], "b": 3}
    assert js.loads(b'"scalar"', max_items=1) == "scalar"
    # select() materializes with the same bound; skipped values are not counted
    doc = b'{"skip": ' + lists + b', "take": [1, 2, 3]}'
    got = []
    js.select(doc, {"take": lambda p, v: got.append(v)}, max_value=1 << 20)
    assert got == [[1, 2, 3]]
    with pytest.raises(js.JSONError, match="more than 3 elements at byte 29"):
        js.select(b'{"skip": 1, "take": [[], [], [], []]}', {"take": lambda p, v: None}, max_items=3)
    rules = js.Rules({"skip": lambda p, v: None})
    for _ in range(2):  # a parser reused by Rules keeps the bound
        with pytest.raises(js.JSONError, match="more than 1024 elements at byte 3079"):
            js.select(Chunks(doc, 100), rules, max_value=1 << 20)


def test_max_items_micropython_error_instead_of_memory(mpy):
    lists = ("[" + ",".join(["[]"] * 5461) + "]").encode()
    keys = ("{" + ",".join('"k%d":0' % i for i in range(1700)) + "}").encode()
    for kind, n, doc in (("lists", 5461, lists), ("keys", 1700, keys)):
        with pytest.raises(js.JSONError) as ei:
            js.loads(doc)
        r = mpy.run("js_items", heap="96K", args=[kind, n, "-"])
        assert r.rc == 0 and "items: JSONError %s" % ei.value in r.out, r
        print("%s: %d items refused at %s; working heap %d bytes" % (kind, n, ei.value, r.working))
    # the bound is what keeps it inside the cap: unbounded, it runs out
    r = mpy.run("js_items", heap="96K", args=["lists", 5461, 10000])
    assert r.rc != 0 and "MemoryError" in r.err, r
    r = mpy.run("js_items", heap="32K", args=["lists", 5461, 100])
    assert r.rc == 0 and "items: JSONError JSON: more than 100 elements at byte 298" in r.out, r
    r = mpy.run("js_items", heap="32K", args=["lists", 50, "-"])
    assert r.rc == 0 and "items: 50" in r.out, r


def test_number_longer_than_buffer():
    doc = b"[" + b"1" * 100 + b", -" + b"2" * 70 + b".5e-3]"
    want = [int("1" * 100), float("-" + "2" * 70 + ".5e-3")]
    assert js.loads(doc) == want
    for k in (1, 7, 100):
        assert js.load(Chunks(doc, k), bufsize=32) == want
    with pytest.raises(js.JSONError, match="value longer than 50 bytes at byte 1"):
        js.load(Chunks(doc, 7), bufsize=32, max_value=50)
    with pytest.raises(js.JSONError, match="expected digit at byte 37"):
        js.load(Chunks(b"[" + b"1" * 35 + b".]", 3), bufsize=32)


def test_skipping_a_long_number_keeps_nothing():
    doc = b'{"skip": -' + b"7" * 100000 + b', "id": 1}'
    got = []
    js.select(Chunks(doc, 97), {"id": lambda p, v: got.append(v)}, bufsize=32)
    assert got == [1]
    with pytest.raises(js.JSONError, match="value longer than 16384 bytes at byte 9"):
        js.load(Chunks(doc, 97), bufsize=32)
    with pytest.raises(js.JSONError, match="expected digit at byte 100011"):
        js.select(Chunks(doc.replace(b"7,", b"7.,"), 97), {"id": lambda p, v: None}, bufsize=32)


def test_skipping_a_1mb_number_micropython_32k(mpy):
    for digits in (1000, 1 << 20):
        r = mpy.run("js_bignum", heap="32K", args=[digits, ""], timeout=120)
        assert r.rc == 0 and "bignum: ['x']" in r.out, r
        live = mpy.working("js_bignum", heap="32K", args=[digits, ""], timeout=120)
        print("skipping a %d-digit number: working heap %d bytes" % (digits, live.working))
        assert live.working < 8000
    r = mpy.run("js_bignum", heap="32K", args=[1 << 20, "."], timeout=120)
    assert r.rc == 0 and "bignum: JSONError JSON: expected digit at byte %d" % (10 + (1 << 20) + 1) in r.out, r


# -- select -----------------------------------------------------------------

CHAT = {
    "id": "c1", "object": "chat.completion",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hello \u00e9 \U0001F600 " * 40,
                                 "tool_calls": [{"id": "t1", "function": {"name": "f", "arguments": "{}"}},
                                                {"id": "t2", "function": {"name": "g", "arguments": "[1]"}}]}},
        {"index": 1, "message": {"role": "assistant", "content": "second"}},
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 7},
    "x": {"a": {"y": 1}, "b": {"y": [2]}, "c": {"z": 3}},
}


def run_select(doc, rules, k=5, **kw):
    data = json.dumps(doc).encode()
    js.select(Chunks(data, k), rules, bufsize=32, **kw)


def test_select_paths_indices_wildcards():
    for k in (1, 3, 64):
        got = []
        rec = lambda p, v: got.append((p, v))  # noqa: E731
        run_select(CHAT, {
            "choices[1].message.content": rec,
            "choices[*].message.tool_calls[*].id": rec,
            "x.*.y": rec,
            "usage": rec,
            "nothing.here": rec,
            "choices[5]": rec,
        }, k=k)
        assert sorted(got, key=repr) == sorted([
            (["choices", 1, "message", "content"], "second"),
            (["choices", 0, "message", "tool_calls", 0, "id"], "t1"),
            (["choices", 0, "message", "tool_calls", 1, "id"], "t2"),
            (["x", "a", "y"], 1), (["x", "b", "y"], [2]),
            (["usage"], {"prompt_tokens": 5, "completion_tokens": 7}),
        ], key=repr)


def test_select_root_and_nested_rules_outermost_wins():
    got = []
    run_select([{"a": {"b": 1}}, 2], {"": lambda p, v: got.append(("root", p, v))})
    assert got == [("root", [], [{"a": {"b": 1}}, 2])]
    got = []
    run_select(CHAT, {"usage": lambda p, v: got.append(v),
                      "usage.prompt_tokens": lambda p, v: got.append("inner")})
    assert got == [CHAT["usage"]]  # the deeper rule is not called separately
    got = []
    run_select([[1, 2], [3]], {"[*][1]": lambda p, v: got.append((p, v))})
    assert got == [([0, 1], 2)]


def test_select_stream_pieces_reassemble():
    for k in (1, 2, 7, 50):
        pieces = []
        whole = []
        run_select(CHAT, {
            "choices[0].message.content": js.Stream(lambda p, v: pieces.append((p, v))),
            "choices[*].index": js.Stream(lambda p, v: whole.append((p, v))),
        }, k=k)
        assert pieces[-1] == (["choices", 0, "message", "content"], None)
        text = "".join(v for _, v in pieces[:-1])
        assert text == CHAT["choices"][0]["message"]["content"]
        assert len(pieces) > 3 and all(v for _, v in pieces[:-1])
        # non-string values at a Stream path arrive whole, without a None
        assert whole == [(["choices", 0, "index"], 0), (["choices", 1, "index"], 1)]


def test_select_errors_and_abort():
    with pytest.raises(js.JSONError, match="expected ':' at byte 18"):
        js.select(b'{"a": [1, 2], "b" 3}', {"a": lambda p, v: None})
    with pytest.raises(js.JSONError, match="expected end of input"):
        js.select(b'{"a": 1} {', {"a": lambda p, v: None})
    with pytest.raises(js.JSONError, match="expected ',' or ']' at byte 11"):
        js.select(b'[1, 2, "x" 3]', {"[0]": lambda p, v: None})

    class Stop(Exception):
        pass

    def stop(p, v):
        raise Stop()
    with pytest.raises(Stop):
        js.select(b'{"a": 1, "b": [}', {"a": stop})
    with pytest.raises(js.JSONError, match="value longer than 10 bytes"):
        js.select(b'{"a": "0123456789abc"}', {"a": lambda p, v: None}, max_value=10)
    # skipping is strict too: a broken skipped value is reported
    with pytest.raises(js.JSONError, match="control character in string at byte 8"):
        js.select(b'{"a": "x\x01"}', {"b": lambda p, v: None})


# -- writer -----------------------------------------------------------------

def test_dump_round_trip_and_encoded_len():
    rng = random.Random(42)
    for _ in range(200):
        v = rand_value(rng)
        parts = []
        js.dump(v, parts.append, bufsize=16)
        out = b"".join(parts)
        assert all(isinstance(p, bytes) and 0 < len(p) <= 16 for p in parts)
        assert js.encoded_len(v) == len(out)
        assert same(json.loads(out), v)
        assert js.dumps(v) == out.decode()
        assert same(js.loads(out, max_value=1 << 20), v)


def test_dump_types_raw_array_generators():
    assert js.dumps([True, False, 1, 0, None, 1.5, -2, 1e22]) == "[true,false,1,0,null,1.5,-2,1e+22]"
    assert js.dumps("\u00e9\U0001F600") == '"\u00e9\U0001F600"'  # UTF-8 kept
    assert js.dumps("\"\\/\n\r\t\b\f\x00\x1f\x7f") == '"\\"\\\\/\\n\\r\\t\\b\\f\\u0000\\u001f\x7f"'
    assert js.dumps((1, [2])) == "[1,[2]]"
    opaque = b'{"thoughtSignature":"a\\u00e9 b",  "x":[1 ,2]}'
    assert js.dumps({"k": js.Raw(opaque)}).encode() == b'{"k":' + opaque + b"}"
    arr = js.Array(lambda: ({"i": i} for i in range(3)))
    assert js.encoded_len({"a": arr}) == len(js.dumps({"a": arr})) == len('{"a":[{"i":0},{"i":1},{"i":2}]}')
    assert js.dumps((x for x in "ab")) == '["a","b"]'
    for bad in (b"x", bytearray(b"x"), {1: 2}, object()):
        with pytest.raises(TypeError):
            js.dumps(bad)
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(js.JSONError):
            js.dumps([bad])


def test_rawfile_copies_file_bytes_in_pieces_every_pass(tmp_path):
    value = {"text": "caf\u00e9 \"q\"\n" * 50, "n": [1, 2.5, None]}
    enc = json.dumps(value).encode()
    f = tmp_path / "hist.jsonl"
    f.write_bytes(b"garbage before" + enc + b"\nafter")
    rf = js.RawFile(str(f), 14, len(enc))
    msg = {"role": "user", "content": rf}
    n = js.encoded_len(msg)
    for _ in range(2):  # encoded_len, then dump twice: opened every pass
        parts = []
        js.dump(msg, parts.append, bufsize=16)
        out = b"".join(parts)
        assert len(out) == n and all(0 < len(p) <= 16 for p in parts)
        assert json.loads(out) == {"role": "user", "content": value}
    assert js.dumps([rf, rf]) == "[%s,%s]" % (enc.decode(), enc.decode())
    assert js.encoded_len(js.RawFile(str(tmp_path / "absent"), 0, 7)) == 7  # not read
    with pytest.raises(js.JSONError) as ei:
        js.dumps([js.RawFile(str(f), 14, len(enc) + 100)])
    assert str(ei.value) == "JSON: %s ends before byte %d" % (f, 14 + len(enc) + 100)
    with pytest.raises(OSError):
        js.dumps(js.RawFile(str(tmp_path / "absent"), 0, 7))


def test_rawfile_micropython_64k_under_small_heap(mpy, tmp_path):
    import hashlib
    working = {}
    for size in (1024, 64 * 1024):
        text = ("line %d: caf\u00e9 \"quoted\"\n" * (size // 20))[:size]
        enc = json.dumps(text).encode()
        f = tmp_path / ("hist%d.jsonl" % size)
        f.write_bytes(b'{"role":"assistant","content":' + enc + b"}\n")
        want = b'["user",' + enc + b"]"
        r = mpy.run("js_rawfile", heap="16K", args=[f, 30, len(enc)])
        assert r.rc == 0, r
        n, b1, b2, piece, digest = r.out.split("rawfile: ")[1].split()
        assert int(n) == int(b1) == int(b2) == len(want) and int(piece) <= 256
        assert digest == hashlib.sha256(want).hexdigest()
        # (the scenario samples at each piece after a collect: one run is exact)
        working[size] = mpy.working("js_rawfile", heap="16K", args=[f, 30, len(enc)]).working
        print("RawFile of %d bytes under a 16K heap: working heap %d bytes" % (len(enc), working[size]))
    assert working[64 * 1024] < 4096 and abs(working[64 * 1024] - working[1024]) < 256, working
    r = mpy.run("js_rawfile", heap="16K", args=[f, 30, len(enc) + 10])
    assert r.rc == 0 and "rawfile: JSONError JSON: %s ends before byte %d" % (f, 30 + len(enc) + 10) in r.out, r


# text whose characters (1 to 4 bytes, escapes, control bytes) fall across
# every offset of a read piece: 14 bytes a pattern, 256 % 14 = 4
TRICKY = "a\u00e9\u20ac\U0001f600\"\\\x01\n"


def test_rawfile_makes_a_file_a_string_base64_and_text_every_pass(tmp_path):
    import base64
    for n in (0, 1, 2, 3, 767, 768, 769, 5000):
        data = os.urandom(n)
        f = tmp_path / ("f%d" % n)
        f.write_bytes(data + b"more after the size")
        fs = js.RawFile(str(f), 0, n, "base64", "data:image/png;base64,")
        msg = {"url": fs}
        want = 2 + 22 + 4 * ((n + 2) // 3)
        assert js.encoded_len(msg) == len('{"url":}') + want
        for _ in range(2):      # opened at every pass
            parts = []
            js.dump(msg, parts.append, bufsize=64)
            out = b"".join(bytes(p) for p in parts)
            assert len(out) == js.encoded_len(msg)
            url = json.loads(out)["url"]
            assert url.startswith("data:image/png;base64,")
            b64 = url[22:]
            assert "=" not in b64.rstrip("=") and len(b64) % 4 == 0   # padding at the end only
            assert base64.b64decode(b64, validate=True) == data
    assert js.encoded_len(js.RawFile(str(tmp_path / "absent"), 0, 10, "base64")) == 2 + 16   # not read
    text = (TRICKY * 200).encode()
    f = tmp_path / "t.txt"
    f.write_bytes(text)
    for k in (16, 64, 256):
        v = [js.RawFile(str(f), 0, len(text), "text")]
        parts = []
        js.dump(v, parts.append, bufsize=k)
        out = b"".join(bytes(p) for p in parts)
        assert len(out) == js.encoded_len(v) and json.loads(out) == [text.decode()]
    with pytest.raises(js.JSONError) as ei:
        js.dumps([js.RawFile(str(f), 0, len(text) + 5, "base64")])
    assert str(ei.value) == "JSON: %s ends before byte %d" % (f, len(text) + 5)


def test_rawfile_string_micropython_same_bytes_and_flat_heap(mpy, tmp_path):
    """Base64 of 1 byte to 300 KB (n % 3 = 0, 1, 2) and text with every
    kind of character across the read pieces: the bytes CPython writes,
    encoded_len equal to what is written, pieces bounded, and the working
    heap of 300 KB within 256 B of 2 KB's (the issue asks 1 KB)."""
    import hashlib
    working = {}
    cases = [("b64", n) for n in (1, 767, 768, 769, 2048, 300 * 1024)] + [("text", 0)]
    for mode, n in cases:
        f = tmp_path / ("%s%d" % (mode, n))
        if mode == "text":
            data = (TRICKY * 700).encode()
            n = len(data)
        else:
            data = os.urandom(n)
        f.write_bytes(data)
        value = ["user", js.RawFile(str(f), 0, n, "base64" if mode == "b64" else "text",
                                    "data:image/jpeg;base64," if mode == "b64" else "")]
        want = js.dumps(value).encode()
        r = mpy.run("js_rawfile", heap="16K", args=[f, mode, n])
        assert r.rc == 0, r
        got, b1, b2, piece, digest = r.out.split("rawfile: ")[1].split()
        assert int(got) == int(b1) == int(b2) == len(want), (mode, n)
        assert int(piece) <= 1024 and digest == hashlib.sha256(want).hexdigest(), (mode, n)
        if n in (2048, 300 * 1024):
            # (sampled at each piece after a collect: one run is exact)
            working[n] = mpy.working("js_rawfile", heap="16K", args=[f, mode, n]).working
    print("a file as base64 under a 16K heap: working heap %r" % working)
    assert abs(working[300 * 1024] - working[2048]) < 256, working
    r = mpy.run("js_rawfile", heap="16K", args=[f, "text", n + 3])
    assert r.rc == 0 and "rawfile: JSONError JSON: %s ends before byte %d" % (f, n + 3) in r.out, r


def test_dump_big_string_pieces_bounded():
    s = ("line \u00e9\n" * 5000)
    parts = []
    js.dump({"s": s}, parts.append, bufsize=256)
    assert max(len(p) for p in parts) <= 256 and len(parts) > 100
    assert json.loads(b"".join(parts)) == {"s": s}


# -- MicroPython under -X heapsize=32K --------------------------------------

def scenario_lines(mpy, name):
    r = mpy.run(name, heap="32K", timeout=60)
    assert r.rc == 0, r
    got = dict(ln.split(": ", 1) for ln in r.out.split("\n") if ": " in ln)
    live = mpy.working(name, heap="32K", timeout=60)
    print("%s working heap: %d bytes (32K cap)" % (name, live.working))
    assert live.working < 16000, live.working
    return got


def test_reader_core_cases_micropython_32k(mpy):
    got = scenario_lines(mpy, "js_core")
    assert json.loads(got["surrogates"]) == "\U0001F600\u00e9\ufffd"
    assert json.loads(got["astral_utf8"]) == "\U0001F600"
    assert got["bad_utf8"] == "JSONError JSON: invalid UTF-8 at byte 8"
    assert got["overlong"] == "JSONError JSON: invalid UTF-8 at byte 1"
    assert got["numbers"] == "[0,-1,12345678901234567890123,1.5,-2000.0,100.0,-0.0]"
    assert got["trailing"] == "JSONError JSON: expected end of input at byte 4"
    assert got["depth"] == "JSONError JSON: nesting deeper than 64 at byte 64"
    assert got["depth_ok"] == "128"
    assert got["lenient_mp_json"] == "JSONError JSON: expected ':' at byte 5"
    assert got["comma"] == "JSONError JSON: expected value at byte 3"
    assert got["leading_zero"] == "JSONError JSON: expected ',' or ']' at byte 2"
    assert json.loads(got["object"]) == {"k": {"x": [True, False, None]}, "e": {}, "a": []}
    assert got["long_value"] == "JSON: value longer than 50 bytes at byte 0"


def test_stream_select_micropython_32k(mpy):
    got = scenario_lines(mpy, "js_stream")
    assert got["chunked"] == "ok"
    assert sorted(map(repr, eval(got["select"]))) == sorted(map(repr, [
        "hi \u00e9", None, (["choices", 0, "message", "tool_calls", 0, "id"], "t1"),
        (["choices", 0, "message", "tool_calls", 1, "id"], "t2"), 1, 2]))
    assert got["stream_big"] == "True 200000 True"


def test_writer_cases_micropython_32k(mpy):
    got = scenario_lines(mpy, "js_write")
    assert got["bool_int"] == "[true,false,1,0,null]"
    assert got["bytes_dump"] == "TypeError"
    assert got["nan"] == "JSONError JSON: cannot write NaN or infinity"
    assert json.loads(got["escape_out"]) == "a\"b\\c\n\x01\u00e9"
    assert json.loads(got["raw_array"]) == [{"x": [1]}, [1, 2]]
    assert got["encoded_len"] == "True"
    s = "".join(chr(c) for c in range(0, 34)) + "\\ \x7f \u00e9\U0001F600" + "x" * 7
    want = js.dumps([s, {s: s}])
    assert got["all_escapes"] == "%d 8 %s" % (len(want.encode()), want)


def test_models_list_select_under_32k_heap_both_sizes(mpy, tmp_path):
    peaks = {}
    for size in (50 * 1024, 1024 * 1024):
        path = tmp_path / ("models_%d.json" % size)
        count, idlen, last = write_models(str(path), size)
        r = mpy.run("js_models", heap="32K", args=[path], timeout=120)
        assert r.rc == 0, r
        assert "count=%d idlen=%d last=%s" % (count, idlen, last) in r.out, r
        peaks[size] = mpy.working("js_models", heap="32K", args=[path], timeout=120).working
        print("models list %d bytes (%d ids): peak working heap %d bytes under 32K" % (
            os.path.getsize(path), count, r.working))
    r = mpy.run("js_models", heap="32K", args=[path, "one"], timeout=120)
    assert r.rc == 0 and "count=1 idlen=12 last=model-005000" in r.out, r
    r = mpy.working("js_models", heap="32K", args=[path, "one"], timeout=120)
    print("one field out of the 1 MB list: peak working heap %d bytes" % r.working)
    assert r.working < 12000
    # working set independent of document size (20x larger input)
    assert peaks[1024 * 1024] < 12000 and peaks[50 * 1024] < 12000, peaks
    assert abs(peaks[1024 * 1024] - peaks[50 * 1024]) < 3000, peaks


def test_json_load_needs_more_than_the_boards_heap_for_50k_list(mpy, tmp_path):
    """MicroPython's json.load of a 50 KB model list needs more than the
    ANTOS_ESP32's whole 112 KB GC heap (about 120K on the tests' 32-bit
    build); jsonstream.select reads it in 32K (about 7K)."""
    path = tmp_path / "models.json"
    write_models(str(path), 50 * 1024)
    r = mpy.run("js_models", heap="112K", args=[path, "json"], timeout=60)
    assert r.rc != 0 and "MemoryError" in r.err + r.out, r
    r = mpy.run("js_models", heap="32K", args=[path], timeout=60)
    assert r.rc == 0, r


def test_select_key_matching_in_buffer_and_escaped_keys():
    doc = ('{"\\u0069d": 1, "x\\"y": 2, "\u00e9": 3, "id2": 4, "i": 5, "a": [1, {"b": 6}],'
           ' "o": {"b": 7}, "arr": [{"x": 8, "y": 9}, {"x": 10, "y": 11}]}').encode()
    for k in (1, 2, 5, 1000):
        got = []
        rec = lambda p, v: got.append((p, v))  # noqa: E731
        js.select(Chunks(doc, k), {"id": rec, "x\"y": rec, "\u00e9": rec, "a.b": rec, "o.b": rec,
                                   "arr[0].x": rec, "arr[*].y": rec}, bufsize=32)
        assert got == [(["id"], 1), (["x\"y"], 2), (["\u00e9"], 3), (["o", "b"], 7),
                       (["arr", 0, "x"], 8), (["arr", 0, "y"], 9), (["arr", 1, "y"], 11)], (k, got)
    with pytest.raises(js.JSONError, match="control character in string at byte 10"):
        js.select(b'{"a": 1, "\x01": 2}', {"b": lambda p, v: None})
    with pytest.raises(js.JSONError, match="expected '\"' \\(object key\\) at byte 9"):
        js.select(b'{"a": 1, 3: 2}', {"b": lambda p, v: None})
    with pytest.raises(js.JSONError, match="invalid UTF-8 at byte 10"):
        js.select(b'{"a": 1, "\xff": 2}', {"b": lambda p, v: None})


def test_select_many_elements_keeps_caches_bounded():
    doc = json.dumps({"data": [{"id": "m%d" % i, "n": i} for i in range(3000)]}).encode()
    n = [0]

    def on(p, v):
        assert p == ["data", n[0], "id"] and v == "m%d" % n[0]
        n[0] += 1
    js.select(Chunks(doc, 100), {"data[*].id": on})
    assert n[0] == 3000


def test_read_value_after_key_and_none_from_readinto():
    p = js.Parser(Chunks(b'{"a": {"b": [1, "x"]}, "c": 2}', 3), bufsize=32)
    assert p.next() == js.OBJ and p.next() == js.KEY and p.value == "a"
    assert p.read_value() == {"b": [1, "x"]}
    assert p.next() == js.KEY and p.read_value() == 2
    assert p.peek() == js.END_OBJ and p.next() == js.END_OBJ and p.peek() == js.EOF
    p.finish()

    class NoneAtEnd:
        def __init__(self):
            self.sent = False

        def readinto(self, buf):
            if self.sent:
                return None
            buf[0:3] = b"[1,"
            self.sent = True
            return 3
    with pytest.raises(js.JSONError, match="unexpected end of input at byte 3"):
        js.load(NoneAtEnd())
    with pytest.raises(js.JSONError, match="document is not complete"):
        p = js.Parser(b"[1, 2]")
        p.next()
        p.finish()


def test_fuzz_mutations_only_jsonerror_and_agree_with_cpython():
    rng = random.Random(99)
    checked = 0
    for _ in range(1500):
        _, data = rand_doc(rng)
        data = mutate(rng, data[:300], MUTATIONS + b"\n")
        results = []
        for src, kw in ((data, {}), (Chunks(data, 1), {"bufsize": 32}), (Chunks(data, 5), {"bufsize": 32})):
            try:
                results.append(("ok", js.load(src, max_value=1 << 20, **kw)))
            except js.JSONError as e:
                results.append(("err", str(e)))
        assert results[1][0] == results[0][0] and results[2][0] == results[0][0], (data, results)
        for sk in (skip_verdict(data), skip_verdict(Chunks(data, 3), bufsize=32)):
            if results[0][0] == "ok":
                assert sk == ("accept", len(data)), (data, sk)
            else:
                assert sk == ("reject", results[0][1]), (data, sk, results[0])
        if results[0][0] == "ok":
            assert same(results[1][1], results[0][1]) and same(results[2][1], results[0][1])
            want = json.loads(data)  # CPython must accept what we accept
            if "\ufffd" not in repr(results[0][1]):
                assert same(results[0][1], want), data
            checked += 1
        else:
            assert results[1][1] == results[0][1] == results[2][1], (data, results)
    assert checked > 50


def test_native_walker_takes_plain_documents_without_the_slow_path(mpy):
    """Plain documents (spaces, '!', UTF-8, escapes in values, numbers,
    literals, empty containers) are read by the native walker alone: no
    token goes through Parser.next(), in place or through 256-byte reads."""
    r = mpy.run("js_native", heap="64K")
    assert r.rc == 0, r
    lines = r.out.strip().split("\n")
    assert len(lines) == 8, r.out
    got = {}
    for ln in lines:
        case, calls, result = ln.split(" ", 2)
        assert calls == "0", ln
        got[case] = json.loads(result)
    for k in ("0", "256"):
        assert got["models-select-" + k] == ["model-1", "m\u00e9 2!"]
        assert got["chat-select-" + k] == [' caf\u00e9 "q" \n \u00e9 \U0001F600!', None, "stop"]
        assert got["models-skip-" + k] == 214 and got["chat-skip-" + k] == 224
