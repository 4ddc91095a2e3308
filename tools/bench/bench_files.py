"""Benchmark: a question with a 300 KB picture on flash through ai.ask
(issue 38: the base64 written from a small buffer straight into the
request, its length counted first), beside writing the same request bytes,
held in RAM, to a raw socket (in one write, and in 1 KB writes), on the
MicroPython unix port over loopback HTTP to a server that reads the body
and answers a short chat completion; and the smallest heap of the ask with
a 2 KB and with a 300 KB picture."""
import http.server
import json
import os
import sys
import threading

from common import BUILD, ROOT, kb, ratio, table

sys.path.insert(0, os.path.join(ROOT, "lib"))

SIZE = 300 * 1024
REPS = 5
ROUNDS = 3
HEAP = "4M"
GOAL = 2.0      # ai.ask / raw socket
REPLY = json.dumps({"id": "chatcmpl-bench", "object": "chat.completion", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "a picture of noise"},
     "finish_reason": "stop"}]}).encode()


def serve():
    """A loopback server: every POST's body read (its bytes counted in
    got) and a short chat completion answered, keep-alive."""
    got = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            n = int(self.headers["Content-Length"])
            left = n
            while left:
                left -= len(self.rfile.read(min(left, 65536)))
            got.append(n)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(REPLY)))
            self.end_headers()
            self.wfile.write(REPLY)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d/v1" % srv.server_address[1], got


def request_bytes(root, url, picture):
    """The request ai.ask writes for the question, built by the library
    (CPython), head and body: what the raw socket sends."""
    import jsonstream
    import store
    from ai.config import resolve
    from ai.styles import openai
    store.set_root(root)
    try:
        cfg = resolve({"provider": "openai", "style": "openai", "base_url": url,
                       "model": "gpt-4o-mini", "key": "sk-bench"})
        _, headers, body = openai.request(cfg, [{"role": "user", "content": "what is in this picture?",
                                                 "files": [picture]}], None, False)
        data = jsonstream.dumps(body).encode()
    finally:
        store.set_root(None)
    host = url[7:].split("/")[0]
    head = "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %d\r\n\r\n" % (
        host, "".join("%s: %s\r\n" % kv for kv in headers.items()), len(data))
    return head.encode() + data


def run(ctx):
    root = os.path.join(BUILD, "files")
    os.makedirs(root, exist_ok=True)
    for name, n in (("big.jpg", SIZE), ("small.jpg", 2048)):
        with open(os.path.join(root, name), "wb") as f:
            f.write(b"\xff\xd8\xff" + os.urandom(n - 3))
    srv, url, got = serve()
    try:
        req = os.path.join(root, "request.http")
        with open(req, "wb") as f:
            f.write(request_bytes(root, url, "/big.jpg"))
        methods = (("ai.ask, the picture from flash", "ai"),
                   ("raw socket, the request in RAM, one write", "raw"),
                   ("raw socket, the request in RAM, 1 KB writes", "raw1k"))
        best = ctx.best([(name, "bench_files", HEAP, [m, url, REPS, "time", root, "/big.jpg", req],
                          False) for name, m in methods], ROUNDS)
        bodies = sorted(set(got))       # (the same bytes by every method)
        heaps = {}
        for pic in ("/small.jpg", "/big.jpg"):
            heaps[pic] = ctx.min_heap("bench_files", ["ai", url, 1, "time", root, pic, req],
                                      hint=32768)
    finally:
        srv.shutdown()
        srv.server_close()
    ok = True
    rows = []
    ms = {}
    for name, m in methods:
        b = best[name]
        if isinstance(b, str):
            rows.append([name, b, "-"])
            ok = False
            continue
        ms[m] = b[0]
    sent = os.path.getsize(req)
    body = len(bodies) == 1 and bodies[0]
    for name, m in methods:
        if m in ms:
            rows.append([name, "%.1f" % ms[m], ratio(ms[m], ms.get("raw"))])
    print("request: %d bytes (body %s, the same from every method), a %d-byte JPEG as base64" % (
        sent, body, SIZE))
    table(["method", "best ms", "time / raw socket (one write)"], rows)
    if "ai" in ms and "raw" in ms:
        r = ms["ai"] / ms["raw"]
        print("ai.ask / raw socket: %.2f (goal <= %.1f)%s" % (r, GOAL, "" if r <= GOAL else "  <-- NOT MET"))
    print("smallest heap of the ask: with a 2 KB picture %s, with a 300 KB picture %s" % (
        kb(heaps["/small.jpg"]), kb(heaps["/big.jpg"])))
    return ok and bool(body)
