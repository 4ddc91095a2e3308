# httpc's built-in roots (the cacerts module) under the MicroPython unix
# port. args: port of a loopback TLS server with a "localhost" certificate
# of a test CA, that CA as a PEM file. Prints the outcome of the default
# (no ca=, CA_FILE None) and of ca=<test CA>, how many certificates went to
# load_verify_locations (counted by a wrapper of tls installed in
# sys.modules before httpc imports it) and whether cacerts stayed loaded;
# then the errors for a broken bundle and for a firmware without one.
import sys
import gc
import tls as real_tls


class Ctx:
    """tls.SSLContext that counts load_verify_locations calls."""
    loaded = 0

    def __init__(self, proto):
        self.c = real_tls.SSLContext(proto)

    def load_verify_locations(self, der):
        Ctx.loaded += 1
        self.c.load_verify_locations(der)

    def wrap_socket(self, *a, **kw):
        return self.c.wrap_socket(*a, **kw)


class FakeTls:
    SSLContext = Ctx
    PROTOCOL_TLS_CLIENT = real_tls.PROTOCOL_TLS_CLIENT
    CERT_REQUIRED = real_tls.CERT_REQUIRED


sys.modules["tls"] = FakeTls
import httpc  # noqa: E402
import httpc.ca  # noqa: E402  (imported by the first https request; "kept" is the context's)
import httpc.errors  # noqa: E402  (the failed handshake's wording, imported by the first failure)

PORT = int(sys.argv[1])
TEST_CA = sys.argv[2]
URL = "https://localhost:%d/" % PORT
print("default CA_FILE", httpc.CA_FILE)
gc.collect()
before = gc.mem_alloc()
for _ in range(2):          # the second time from the cached context
    try:
        httpc.request("GET", URL)
        print("bundle NO ERROR")
    except httpc.HTTPError as e:
        print("bundle", e.kind, str(e))
gc.collect()
print("kept", gc.mem_alloc() - before)
print("loaded", Ctx.loaded, "cacerts" in sys.modules)
Ctx.loaded = 0
with httpc.request("GET", URL, ca=TEST_CA) as r:
    print("testca", r.status, r.read().decode(), Ctx.loaded)
import cacerts  # noqa: E402
print("roots", len(cacerts.ROOTS))


class Junk:
    ROOTS = (b"\x30\x03\x02\x01\x05",)


sys.modules["cacerts"] = Junk       # a broken bundle, then none at all
saved = sys.path[:]
for name in ("junk", "gone"):
    try:
        httpc.request("GET", URL)
        print(name, "NO ERROR")
    except httpc.HTTPError as e:
        print(name, e.kind, str(e), "cacerts" in sys.modules)
    sys.path[:] = ["/nonexistent"]   # (empty would hide loaded modules too)
sys.path[:] = saved
print("DONE")
