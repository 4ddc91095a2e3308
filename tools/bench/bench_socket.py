"""Benchmark: parse throughput over loopback HTTP as a fraction of the
socket read rate, measured side by side on the MicroPython unix port: httpc
GETs a ~1 MB models list from a server in this process and either reads the
body into a 256-byte buffer or extracts every data[*].id with
jsonstream.select straight off the socket."""
import http.server
import os
import threading

from common import ratio, table
from models_doc import write_models

SIZE = 1024 * 1024
REPS = 3
ROUNDS = 3
HEAP = "64K"
METHODS = (("socket read, 256-byte buffer", "read", False),
           ("jsonstream.select", "js", False),
           ("baseline jsonstream", "js", True))


def serve(body):
    """A loopback HTTP server answering every GET with body; (server, url)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d/models" % srv.server_address[1]


def run(ctx):
    path = os.path.join(ctx.build, "models_%d.json" % SIZE)
    count = write_models(path, SIZE)[0]
    with open(path, "rb") as f:
        body = f.read()
    srv, url = serve(body)
    try:
        best = ctx.best([(name, "bench_http", HEAP, [m, url, REPS], base)
                         for name, m, base in METHODS], ROUNDS)
    finally:
        srv.shutdown()
        srv.server_close()
    ok = True
    rows = []
    rate = {}
    for name, m, _base in METHODS:
        b = best[name]
        if isinstance(b, str):
            rows.append([name, b, "-", "-"])
            ok = ok and b == "no baseline"
            continue
        f = b[1]
        if (m == "read" and int(f["bytes"]) != len(body)) or (m == "js" and int(f["count"]) != count):
            raise SystemExit("wrong result from %s: %r" % (name, f))
        rate[name] = len(body) / 1e6 / (b[0] / 1000.0)
        rows.append([name, "%.1f" % b[0], "%.1f" % rate[name],
                     ratio(rate[name], rate.get("socket read, 256-byte buffer"))])
    print("body: %d bytes over loopback HTTP (httpc, keep-alive)" % len(body))
    table(["method", "best ms", "MB/s", "fraction of the read rate"], rows)
    return ok
