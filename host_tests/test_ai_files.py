"""Files on a message (issue 38, lib/ai/files.py): every style writes a
message's files in its own wire format, base64 made from a small buffer
straight into the request, to fakes that decode it strictly (no padding
inside, nothing outside the alphabet: fakes/files.py); text files as text;
what a model cannot take refused before any connection."""
import hashlib
import json
import os

import pytest

import ai
from fakes import Calls, FakeAnthropic, FakeGemini, FakeOpenAI, FakeResponses, Text

# (id, fake, its arguments, provider, model, key, takes PDF)
STYLES = [
    ("openai", FakeOpenAI, {"flavor": "openai"}, "openai", "gpt-4o-mini", "sk-test", True),
    ("groq", FakeOpenAI, {"flavor": "groq"}, "groq", "meta-llama/llama-4-scout-17b-16e-instruct",
     "gsk-test", False),
    ("kimi", FakeOpenAI, {"flavor": "kimi"}, "kimi", "kimi-k2.5", "sk-kimi", False),
    ("ollama", FakeOpenAI, {"flavor": "ollama"}, "ollama", "llava", "-", False),
    ("responses", FakeResponses, {}, "openai", "gpt-5-mini", "sk-test", True),
    ("anthropic", FakeAnthropic, {}, "anthropic", "claude-sonnet-4-5", "sk-ant-test", True),
    ("gemini", FakeGemini, {}, "gemini", "gemini-2.5-flash", "AIza-test", True),
]
IDS = [s[0] for s in STYLES]
# what the wire carries per kind of file, per style: the part of a user
# message's content that holds a text file's text
TRICKY = "a\u00e9\u20ac\U0001f600\"\\\x01\x1f\n\t"


def jpeg(n):
    """n bytes that start as a JPEG does (n >= 3), else as many of its magic."""
    return (b"\xff\xd8\xff" + os.urandom(max(n - 3, 0)))[:n]


def png(n):
    return (b"\x89PNG\r\n\x1a\n" + os.urandom(max(n - 8, 0)))[:n]


def pdf(n):
    return (b"%PDF-1.7\n" + os.urandom(max(n - 9, 0)))[:n]


def sha(b):
    return hashlib.sha256(b).hexdigest()


def serve(case, **kw):
    _, fake, args, provider, model, key, _ = case
    srv = fake(key=key, models=[model], **args) if key != "-" else fake(models=[model], **args)
    srv.start()
    o = {"provider": provider, "base_url": srv.base_url, "model": model, "timeout": 10}
    if key != "-":
        o["key"] = key
    if case[0] == "openai":
        o["style"] = "openai"       # chat completions (the provider's default is Responses)
    o.update(kw)
    return srv, o


def put(root, name, data):
    (root / name.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (root / name.lstrip("/")).write_bytes(data)
    return name


def arrived(srv, n):
    """The files the fake decoded from its requests, and every request's
    Content-Length against the bytes it read."""
    for r in srv.requests:
        assert int(r.headers["content-length"]) == len(r.raw)
    assert len(srv.files) == n, srv.files
    return srv.files


@pytest.mark.parametrize("case", STYLES, ids=IDS)
def test_every_style_sends_pictures_and_pdfs_strictly(flash, case):
    """Sizes with n % 3 = 0, 1 and 2, a 1-byte file's neighbour (the
    smallest JPEG: 3 bytes), 20 KB PNG, a PDF where the style takes one:
    the fake decodes each strictly to the same bytes, streamed and not."""
    files = [put(flash, "/a.jpg", jpeg(3)), put(flash, "/b.jpg", jpeg(3 * 700 + 1)),
             put(flash, "/c.jpg", jpeg(3 * 700 + 2)), put(flash, "/d.png", png(20 * 1024))]
    if case[6]:
        files.append(put(flash, "/doc.pdf", pdf(5000)))
    srv, o = serve(case)
    try:
        for stream in (False, True):
            srv.files.clear()
            srv.queue(Text("a picture of noise"))
            if stream:
                o["stream"] = lambda piece: None
            hist = [{"role": "user", "content": "what are these?", "files": files}]
            reply, err, _ = ai.ask(hist, o)
            assert err is None and reply == "a picture of noise", err
            got = arrived(srv, len(files))
            for f, g in zip(files, got):
                assert sha(g["data"]) == sha((flash / f[1:]).read_bytes()), f
                assert g["mime"] == {"jpg": "image/jpeg", "png": "image/png",
                                     "pdf": "application/pdf"}[f.rsplit(".", 1)[1]]
            body = json.dumps(srv.last.json)
            assert "[file /b.jpg, 2 KB, image/jpeg]" in body and "what are these?" in body
    finally:
        srv.stop()


def strings(v):
    """Every str in a JSON value, in order."""
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


@pytest.mark.parametrize("case", STYLES, ids=IDS)
def test_a_text_file_arrives_as_the_same_text(flash, case):
    """Quotes, backslashes, control bytes and 1 to 4-byte characters
    across every offset of the writer's read pieces: the text the model
    gets is the file's, after its label."""
    text = TRICKY * 700
    put(flash, "/notes.txt", text.encode())
    put(flash, "/one.txt", b"x")        # a 1-byte file
    srv, o = serve(case)
    try:
        srv.queue(Text("read it"))
        reply, err, _ = ai.ask([{"role": "user", "content": "summarize",
                                 "files": ["/notes.txt", "/one.txt"]}], o)
        assert err is None, err
        s = list(strings(srv.last.json))
        i = s.index("[file /notes.txt, %d KB, text/plain]" % round(len(text.encode()) / 1024))
        assert text in s[i + 1:i + 5], s[i:i + 5]
        i = s.index("[file /one.txt, 1 byte, text/plain]")
        assert "x" in s[i + 1:i + 5], s[i:i + 5]
        assert int(srv.last.headers["content-length"]) == len(srv.last.raw)
    finally:
        srv.stop()


def refused(flash, case, files, overrides=None):
    srv, o = serve(case, **(overrides or {}))
    try:
        hist = [{"role": "user", "content": "look", "files": files}]
        reply, err, _ = ai.ask(hist, o)
        assert reply is None and srv.connections == 0 and not srv.requests, err
        assert len(hist) == 1
        return err
    finally:
        srv.stop()


def test_refusals_before_any_connection(flash):
    case = dict((s[0], s) for s in STYLES)
    put(flash, "/p.jpg", jpeg(3000))
    put(flash, "/a.gif", b"GIF89a" + os.urandom(100))
    put(flash, "/x.bmp", b"BM" + bytes(range(256)) * 4)
    put(flash, "/doc.pdf", pdf(2000))
    put(flash, "/empty.txt", b"")
    groq_text = ("groq", FakeOpenAI, {"flavor": "groq"}, "groq", "llama-3.3-70b-versatile",
                 "gsk-test", False)
    assert refused(flash, groq_text, ["/p.jpg"]) == (
        "groq: /p.jpg (image/jpeg, 3 KB): llama-3.3-70b-versatile takes no pictures; "
        "nothing was sent")
    assert refused(flash, case["groq"], ["/doc.pdf"]) == (
        "groq: /doc.pdf (application/pdf, 2 KB): meta-llama/llama-4-scout-17b-16e-instruct "
        "takes no PDF; nothing was sent")
    assert refused(flash, case["gemini"], ["/a.gif"]) == (
        "gemini: /a.gif (image/gif, 106 bytes): gemini-2.5-flash takes jpeg, png, webp only; "
        "nothing was sent")
    assert refused(flash, case["ollama"], ["/a.gif"]).endswith("llava takes jpeg, png, webp only; "
                                                               "nothing was sent")
    for style in ("openai", "anthropic"):
        assert refused(flash, case[style], ["/x.bmp"]) == (
            "%s: /x.bmp is not a picture (JPEG, PNG, GIF, WebP), a PDF or UTF-8 text; "
            "nothing was sent" % case[style][3])
    assert refused(flash, case["gemini"], ["/missing.jpg"]) == (
        "gemini: /missing.jpg: no such file; nothing was sent")
    assert refused(flash, case["gemini"], ["/empty.txt"]) == (
        "gemini: /empty.txt is empty; nothing was sent")


def test_oversized_files_and_requests_are_refused_before_any_connection(flash):
    case = dict((s[0], s) for s in STYLES)
    put(flash, "/big.jpg", jpeg(4 * 1024 * 1024))        # 5.3 MB as base64
    assert refused(flash, case["anthropic"], ["/big.jpg"]) == (
        "anthropic: /big.jpg (image/jpeg, 4.0 MB): 5.3 MB as base64, over anthropic's "
        "5.0 MB a file; nothing was sent")
    put(flash, "/mid.jpg", jpeg(3200 * 1024))           # 4.1 MB as base64
    assert refused(flash, case["groq"], ["/mid.jpg"]) == (
        "groq: the request with its files is 4.1 MB, over groq's 4.0 MB a request; "
        "nothing was sent (send fewer or smaller files)")


def test_ollama_sends_pictures_to_any_model_and_lets_it_answer(flash):
    """Whether an Ollama model sees is the model's: sent, not refused."""
    case = ("ollama", FakeOpenAI, {"flavor": "ollama"}, "ollama", "llama3.2", "-", False)
    put(flash, "/p.png", png(500))
    srv, o = serve(case)
    try:
        srv.queue(Text("I cannot see it"))
        reply, err, _ = ai.ask([{"role": "user", "content": "look", "files": ["/p.png"]}], o)
        assert err is None and len(arrived(srv, 1)) == 1
    finally:
        srv.stop()


# a local tool that hands the model a file, as the board's camera does
SNAP = {"name": "snap", "description": "take a picture",
        "parameters": {"type": "object", "properties": {}},
        "run": lambda args: {"content": "saved /cam.jpg", "files": ["/cam.jpg"]}}


@pytest.mark.parametrize("case", STYLES, ids=IDS)
def test_a_tools_picture_reaches_the_model_in_the_next_request(flash, case):
    """A local tool that returns a file (as the board's camera does): the
    next request carries it as a picture after the tool's result, in the
    style's own place for it; the round after sends it again."""
    put(flash, "/cam.jpg", jpeg(5000))
    srv, o = serve(case)
    try:
        srv.queue(Calls([("snap", {})]), Text("a cat"))
        hist = [{"role": "user", "content": "what do you see?"}]
        reply, err = ai.run(hist, o, tools=[SNAP])
        assert err is None and reply == "a cat", err
        got = arrived(srv, 1)
        assert sha(got[0]["data"]) == sha((flash / "cam.jpg").read_bytes())
        assert hist[2]["files"][0]["path"] == "/cam.jpg"
        srv.queue(Text("still a cat"))
        hist.append({"role": "user", "content": "and now?"})
        assert ai.ask(hist, o)[1] is None
        assert len(arrived(srv, 2)) == 2
    finally:
        srv.stop()


def test_a_tools_picture_stays_a_line_for_a_model_that_sees_none(flash):
    put(flash, "/cam.jpg", jpeg(5000))
    case = ("groq", FakeOpenAI, {"flavor": "groq"}, "groq", "llama-3.3-70b-versatile",
            "gsk-test", False)
    srv, o = serve(case)
    try:
        srv.queue(Calls([("snap", {})]), Text("cannot see"))
        hist = [{"role": "user", "content": "what do you see?"}]
        assert ai.run(hist, o, tools=[SNAP]) == ("cannot see", None)
        assert not srv.files and "files" not in hist[2] and hist[2]["content"] == "saved /cam.jpg"
    finally:
        srv.stop()


def test_a_plain_chat_never_imports_the_files_module(flash):
    import sys
    case = STYLES[0]
    srv, o = serve(case)
    sys.modules.pop("ai.files", None)
    try:
        srv.queue(Text("hi"))
        assert ai.ask([{"role": "user", "content": "hi"}], o)[1] is None
        assert "ai.files" not in sys.modules
    finally:
        srv.stop()


# ---------------------------------------------------------------- MicroPython

# (fake, provider, model, key, style override): the wire formats
MP_STYLES = [
    ("openai", FakeOpenAI, "openai", "gpt-4o-mini", "sk-test", "openai"),
    ("responses", FakeResponses, "openai", "gpt-4.1", "sk-test", "responses"),
    ("anthropic", FakeAnthropic, "anthropic", "claude-sonnet-4-5", "sk-ant-test", "-"),
    ("gemini", FakeGemini, "gemini", "gemini-2.5-flash", "AIza-test", "-"),
]
# a 300 KB picture and a 20 KB PNG in a chat of two rounds pass at it (3K
# over the smallest passing heap: openai's 33K since the async core, 31K
# with no file; the other styles' 30K), below the chat's cap (test_ai_heap.py)
FILES_CAP = "36K"


def _files_run(mpy, srv, flash, case, picture, heap, live=False):
    _, _, provider, model, key, style = case
    srv.queue(Text("A streamed answer in small pieces."), Text("Again."))
    return mpy.run("ai_files", heap=heap, live=live, timeout=120,
                   args=[provider, srv.base_url, model, key, flash, style, picture, "/p.png"])


@pytest.mark.parametrize("case", MP_STYLES, ids=[c[0] for c in MP_STYLES])
def test_a_300k_picture_costs_the_heap_what_a_2k_one_does(mpy, measure, flash, case):
    """Every style under MicroPython at the chat's heap cap: a question
    with a 300 KB JPEG and a 20 KB PNG, streamed, then a second round that
    sends them again; the fake decodes each strictly to the same bytes
    (SHA-256), every Content-Length equal to the bytes received, and the
    working heap with the 300 KB picture within 1 KB of a 2 KB one's."""
    put(flash, "/big.jpg", jpeg(300 * 1024))
    put(flash, "/small.jpg", jpeg(2048))
    put(flash, "/p.png", png(20 * 1024))
    fake = case[1]
    with fake(key=case[4], models=[case[3]]) as srv:
        srv.options(chunked=True)
        r = _files_run(mpy, srv, flash, case, "/big.jpg", FILES_CAP)
        assert r.rc == 0, r
        assert "FILES None" in r.out and "AGAIN None 'Again.'" in r.out, r.out
        assert int(r.out.split("FILES None ")[1].split()[0]) >= 3      # it streamed
        got = arrived(srv, 4)
        want = [sha((flash / n).read_bytes()) for n in ("big.jpg", "p.png")] * 2
        assert [sha(g["data"]) for g in got] == want
        working = {}
        for name, size in (("/small.jpg", 2048), ("/big.jpg", 300 * 1024)):
            working[size] = sorted(_files_run(mpy, srv, flash, case, name, FILES_CAP,
                                              live=True).working for _ in range(3))[1]
        print("%s: working heap with a 2 KB / 300 KB picture: %r" % (case[0], working))
        assert abs(working[300 * 1024] - working[2048]) < 1024, working

        def passes(heap):
            x = _files_run(mpy, srv, flash, case, "/big.jpg", heap)
            return x.rc == 0 and "AGAIN None" in x.out
        measure.smallest("heap", "%s: a 300 KB JPEG and a 20 KB PNG, two rounds" % case[0],
                         passes, FILES_CAP, imports=r.imports, working=working[300 * 1024])
        measure.record("working", "%s: a question with a 2 KB / 300 KB picture" % case[0],
                       **{"%d B" % k: v for k, v in working.items()})


# ---------------------------------------------------------------- history

def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f]


def turn(srv, o, h, msg):
    """One turn of the conversation h on flash, answered and saved; the
    strings of its request."""
    srv.queue(Text("ok"))
    t = h.turn(msg)
    reply, err, _ = ai.ask(t, o)
    assert err is None, err
    t.commit()
    return list(strings(srv.last.json))


def test_the_history_keeps_references_and_sends_the_file_again_while_unchanged(flash):
    """A turn records path, size, type and hash, never the bytes; later
    turns send the file again while it is unchanged, else its label says
    it changed or went."""
    from ai.history import History
    pic = jpeg(48 * 1024)
    put(flash, "/photo.jpg", pic)
    case = STYLES[0]
    srv, o = serve(case, keep=False)
    try:
        h = History("chat")
        turn(srv, o, h, {"role": "user", "content": "what is this?", "files": ["/photo.jpg"]})
        lines = read_lines(h.path)
        ref = lines[0]["files"][0]
        assert ref == {"path": "/photo.jpg", "size": len(pic), "type": "image/jpeg",
                       "sha": hashlib.sha256(pic).hexdigest()[:16]}
        assert list(lines[0])[:2] == ["role", "files"] and os.path.getsize(h.path) < 400
        assert sha(arrived(srv, 1)[0]["data"]) == sha(pic)

        def again(question):
            return turn(srv, o, h, {"role": "user", "content": question})
        again("and now?")
        assert len(arrived(srv, 2)) == 2                        # sent again, unchanged
        put(flash, "/photo.jpg", jpeg(48 * 1024))              # changed (same size)
        s = again("again?")
        assert "[file /photo.jpg: changed or gone]" in s and len(srv.files) == 2
        put(flash, "/photo.jpg", pic)                          # back as it was
        again("once more?")
        assert len(srv.files) == 3
        os.remove(flash / "photo.jpg")
        assert "[file /photo.jpg: changed or gone]" in again("gone?")
    finally:
        srv.stop()


def test_a_model_that_sees_no_pictures_gets_an_earlier_ones_label(flash):
    """A model switched to one that takes no pictures: a new picture is
    refused, an earlier turn's is its label (not sent, and why)."""
    from ai.history import History
    put(flash, "/photo.jpg", jpeg(2000))
    seeing = STYLES[1]      # groq's vision model, then its text model
    srv, o = serve(seeing, keep=False)
    try:
        h = History("chat")
        turn(srv, o, h, {"role": "user", "content": "what is this?", "files": ["/photo.jpg"]})
        o["model"] = "llama-3.3-70b-versatile"
        srv.model_ids.append("llama-3.3-70b-versatile")
        # a new picture for it is refused, nothing sent ...
        t = h.turn({"role": "user", "content": "and this?", "files": ["/photo.jpg"]})
        n = len(srv.requests)
        reply, err, _ = ai.ask(t, o)
        assert err.endswith("llama-3.3-70b-versatile takes no pictures; nothing was sent")
        assert len(srv.requests) == n
        t.drop()
        # ... the earlier one is its label
        assert ("[file /photo.jpg, 2 KB, image/jpeg: not sent, llama-3.3-70b-versatile takes "
                "no pictures]") in turn(srv, o, h, {"role": "user", "content": "what was it?"})
        assert len(srv.files) == 1
    finally:
        srv.stop()


def test_trimming_counts_a_file_by_its_encoded_size(flash):
    """ai.history.bytes holds what requests carry: a turn whose 30 KB
    picture is 40 KB of base64 is dropped from a 32 KB budget, though its
    line is a few hundred bytes."""
    from ai.history import History
    put(flash, "/photo.jpg", jpeg(30 * 1024))
    srv, o = serve(STYLES[0], keep=False)
    try:
        h = History("chat")
        for q, f in (("first", []), ("with a picture", ["/photo.jpg"]), ("third", [])):
            srv.queue(Text("ok"))
            t = h.turn({"role": "user", "content": q, "files": f} if f else
                       {"role": "user", "content": q})
            assert ai.ask(t, o)[1] is None
            t.commit(32 * 1024, 20)
        kept = [m["content"] for m in read_lines(h.path) if m["role"] == "user"]
        assert kept == ["third"], kept
        assert os.path.getsize(h.path) < 1024
    finally:
        srv.stop()


# ---------------------------------------------------------------- asyncio

@pytest.mark.parametrize("case", STYLES, ids=IDS)
def test_an_awaited_ask_carries_its_files(flash, case):
    """ai.aio (issue 37) writes the same request: the pictures decoded
    strictly by the fake, awaited whole and streamed, and a refusal before
    any connection."""
    import asyncio
    from ai import aio
    files = [put(flash, "/a.jpg", jpeg(3 * 1000 + 2)), put(flash, "/b.png", png(2000))]
    srv, o = serve(case)
    try:
        srv.queue(Text("a picture of noise"), Text("streamed"))

        async def both():
            h = [{"role": "user", "content": "what are these?", "files": files}]
            got = [(await aio.ask(h, o))[:2]]
            h = [{"role": "user", "content": "and streamed?", "files": files}]
            pieces = []
            async with aio.stream(h, o) as s:
                async for p in s:
                    pieces.append(p)
            got.append(("".join(pieces), s.err))
            return got
        assert asyncio.run(both()) == [("a picture of noise", None), ("streamed", None)]
        want = [sha((flash / f[1:]).read_bytes()) for f in files] * 2
        assert [sha(g["data"]) for g in arrived(srv, 4)] == want
    finally:
        srv.stop()
    groq_text = ("groq", FakeOpenAI, {"flavor": "groq"}, "groq", "llama-3.3-70b-versatile",
                 "gsk-test", False)
    srv, o = serve(groq_text)
    try:
        reply, err, _ = asyncio.run(aio.ask([{"role": "user", "content": "x", "files": files}], o))
        assert reply is None and err.endswith("takes no pictures; nothing was sent")
        assert srv.connections == 0
    finally:
        srv.stop()


def test_an_awaited_run_shows_a_tools_picture(flash):
    import asyncio
    from ai import aio
    put(flash, "/cam.jpg", jpeg(5000))
    srv, o = serve(STYLES[0])
    try:
        srv.queue(Calls([("snap", {})]), Text("a cat"))
        hist = [{"role": "user", "content": "what do you see?"}]
        assert asyncio.run(aio.run(hist, o, tools=[SNAP])) == ("a cat", None)
        assert [sha(g["data"]) for g in arrived(srv, 1)] == [sha((flash / "cam.jpg").read_bytes())]
    finally:
        srv.stop()


def test_micropython_an_awaited_ask_carries_a_300k_picture(mpy, flash):
    """The same chat under ai.aio in an asyncio loop on the unix port, at
    the awaited chat's heap cap (test_aio.py): the fake decodes each file
    to the same bytes."""
    from test_aio import CHAT_CAP
    put(flash, "/big.jpg", jpeg(300 * 1024))
    put(flash, "/p.png", png(20 * 1024))
    case = MP_STYLES[0]
    with FakeOpenAI(key=case[4], models=[case[3]]) as srv:
        srv.options(chunked=True)
        srv.queue(Text("A streamed answer in small pieces."), Text("Again."))
        r = mpy.run("ai_files", heap=CHAT_CAP, timeout=120,
                    args=[case[2], srv.base_url, case[3], case[4], flash, case[5], "/big.jpg",
                          "/p.png", "aio"])
        assert r.rc == 0 and "AGAIN None 'Again.'" in r.out, r
        assert int(r.out.split("FILES None ")[1].split()[0]) >= 3, r   # it streamed
        want = [sha((flash / n).read_bytes()) for n in ("big.jpg", "p.png")] * 2
        assert [sha(g["data"]) for g in arrived(srv, 4)] == want
