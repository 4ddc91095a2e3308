# Benchmark scenario (MicroPython unix port): a streamed chat reply and a
# big MCP tool result through the library, beside reading the same bytes
# off a raw socket and through httpc's readinto.
# argv: method url repeats mode root
#   method: raw (a socket of our own: connect, GET, read to the end),
#           read (httpc.request + readinto), chat (ai.ask streamed, the
#           console's way: keep=False, the text recorded into a history
#           turn on flash and handed to a stream callback), mcp (mcp.call
#           of the server's "big" tool; url is the MCP endpoint)
#   mode: time (best of repeats, the firmware's GC setting) or alloc (one
#         run after a warm-up, every byte it allocated: alloccount.py)
# Prints "RESULT bytes=<n> pieces=<n> chars=<n> first_ms=<ms> alloc=<n> best_ms=<ms>".
import socket
import time

from benchmp import ARGS, best_ms, result

method, url, reps, mode, root = ARGS[0], ARGS[1], int(ARGS[2]), ARGS[3], ARGS[4]
buf = bytearray(512)
st = [0, 0, 0, 0]       # bytes, pieces, chars, us to the first piece
t = [0, None]           # start, the least us to the first piece


def first():
    if not st[1]:
        st[3] = time.ticks_diff(time.ticks_us(), t[0])


def raw():
    host, _, rest = url[7:].partition("/")
    h, _, port = host.partition(":")
    s = socket.socket()
    s.connect(socket.getaddrinfo(h, int(port))[0][-1])
    s.write(b"GET /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (rest, host))
    while True:
        k = s.readinto(buf)
        if not k:
            break
        first()
        st[1] += 1
        st[0] += k
    s.close()


if method == "read":
    import httpc

    def read():
        with httpc.request("GET", url) as r:
            while True:
                k = r.readinto(buf)
                if not k:
                    break
                first()
                st[1] += 1
                st[0] += k
elif method == "chat":
    import ai
    import store
    from ai import history
    from ai.styles import load
    store.set_root(root)
    load("openai")
    h = history.History("chat")
    h.clear()

    def sink(piece):
        first()
        st[1] += 1
        st[2] += len(piece)

    ov = {"provider": "groq", "base_url": url, "model": "llama-3.3-70b-versatile",
          "key": "gsk-bench", "timeout": 30, "keep": False, "stream": sink,
          "max_reply": 131072}
    q = {"role": "user", "content": "a long answer please"}

    def chat():
        hist = h.turn(q)
        reply, err, calls = ai.ask(hist, ov)
        if err:
            raise SystemExit("chat: " + err)
        hist.drop()
elif method == "mcp":
    import mcp
    import store
    store.set_root(root)
    conn, err = mcp.connect(url)
    if err:
        raise SystemExit("mcp: " + err)

    def call():
        text, err = mcp.call(conn, "big", {})
        if err:
            raise SystemExit("mcp: " + err)
        st[1] += 1
        st[2] += len(text)

fn = {"raw": raw, "read": read if method == "read" else None,
      "chat": chat if method == "chat" else None,
      "mcp": call if method == "mcp" else None}[method]


def run():
    st[0] = st[1] = st[2] = st[3] = 0
    t[0] = time.ticks_us()
    fn()
    if t[1] is None or st[3] < t[1]:
        t[1] = st[3]


alloc = 0
if mode == "alloc":
    import alloccount
    run()               # (warm: lazy imports, the pooled connection)
    alloccount.start()
    run()
    alloc = alloccount.count()
    ms = 0
else:
    ms = best_ms(run, reps)
result("bytes=%d pieces=%d chars=%d first_ms=%.2f alloc=%d" % (
    st[0], st[1], st[2], t[1] / 1000, alloc), ms)
