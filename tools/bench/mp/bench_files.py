# Benchmark scenario (MicroPython unix port): a question with a picture on
# flash through ai.ask (chat completions, the base64 written from a
# 768-byte buffer into the request), beside writing the same request bytes
# (held in RAM) to a raw socket and reading the same reply.
# argv: method url repeats mode root picture request
#   method: ai (ai.ask, its kept-alive connection) or raw (a socket of our
#           own, kept open: the request's bytes from the file `request`,
#           read into RAM first, in one write; raw1k: in 1 KB writes)
#   mode: time (best of repeats) or heap (heapmon's peak of one run)
# Prints "RESULT sent=<request bytes> best_ms=<ms>".
import socket

from benchmp import ARGS, best_ms, result, sample

method, url, reps, root, picture, request = ARGS[0], ARGS[1], int(ARGS[2]), ARGS[4], ARGS[5], ARGS[6]
buf = bytearray(512)
sent = [0]

if method == "ai":
    import ai
    import store
    from ai.styles import load
    store.set_root(root)
    load("openai")
    from ai import files  # noqa: F401  (its code in the baseline, as frozen)
    ov = {"provider": "openai", "style": "openai", "base_url": url, "model": "gpt-4o-mini",
          "key": "sk-bench", "timeout": 30}

    def run():
        reply, err, _ = ai.ask([{"role": "user", "content": "what is in this picture?",
                                 "files": [picture]}], ov)
        if err:
            raise SystemExit("ai: " + err)
else:
    with open(request, "rb") as f:
        data = f.read()
    host, _, _ = url[7:].partition("/")
    h, _, port = host.partition(":")
    s = socket.socket()
    s.connect(socket.getaddrinfo(h, int(port))[0][-1])
    mv = memoryview(data)

    def run():
        if method == "raw":
            s.write(data)
        else:
            for i in range(0, len(data), 1024):
                s.write(mv[i:i + 1024])
        # the reply: its head, then Content-Length bytes
        got = b""
        while b"\r\n\r\n" not in got:
            got += s.read(1)
        n = int(got.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        while n:
            n -= s.readinto(buf, min(n, 512))

sample()
run()       # (warm: lazy imports, the connection)
ms = best_ms(run, reps)
result("method=%s" % method, ms)
