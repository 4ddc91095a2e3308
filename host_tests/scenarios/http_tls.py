# httpc TLS under the MicroPython unix port. args: port of a loopback TLS
# server whose certificate is for "localhost", good DER bundle, DER bundle
# of an unrelated CA, good PEM bundle. "noca" sets httpc.CA_FILE = None:
# the built-in roots (lib/cacerts.py), which do not know the test CA.
import sys
import httpc

PORT = int(sys.argv[1])
GOOD, BAD, PEM = sys.argv[2], sys.argv[3], sys.argv[4]
URL = "https://localhost:%d/" % PORT
httpc.CA_FILE = GOOD
a = httpc.pool_stats()
for _ in range(2):
    with httpc.request("GET", URL) as r:
        body = r.read()
print("good", r.status, body.decode())
b = httpc.pool_stats()
print("reuse opened=%d reused=%d" % (b["opened"] - a["opened"], b["reused"] - a["reused"]))
with httpc.request("GET", URL, ca=PEM) as r:
    print("pem", r.status, r.read().decode())
for name, url, ca in (("unknown", URL, BAD),
                      ("host", "https://127.0.0.1:%d/" % PORT, GOOD),
                      ("noca", URL, None),
                      ("missing", URL, "/nonexistent/ca.der")):
    if name == "noca":
        httpc.CA_FILE = None
    try:
        httpc.request("GET", url, ca=ca)
        print(name, "NO ERROR")
    except httpc.HTTPError as e:
        print(name, e.kind, str(e))
print("DONE")
