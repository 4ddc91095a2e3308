"""OAuth 2.1 for MCP servers (lib/mcp/oauth.py, lib/mcp/es256.py).

- The flows against FakeAuth, a loopback MCP server that is its own
  authorization server (RFC 9728 / 8414 metadata, registration, PKCE checked
  at /token, refresh tokens): login, refresh on 401, renewal before expiry,
  a 403 step-up without a person, the pasted address checked, refusals.
- The encodings and the ES256 client assertion on CPython and under the
  MicroPython unix port (signatures checked with PyJWT / cryptography).
- The heap of a login under 64K with metadata documents of 1 KB and 60 KB.
- `mcp login` at the console through a pseudo-terminal against the
  conformance suite's own authorization server.
The conformance suite's 22 auth scenarios run in test_mcp.py."""
import base64
import hashlib
import http.client
import json
import re
import threading
import urllib.parse

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

import compat
import mcp
import store
from mcp import es256, exchange, oauth
from httpserver import Server
import peers
from test_shell_ai import console, read_settings  # noqa: F401  (the pty Console fixture)
from mpyrun import GOAL

SCOPE_READ = "mcp:read"


class FakeAuth:
    """One loopback origin: POST /mcp is an MCP server that takes the bearer
    tokens /token issued (tools "read", and "write" which needs scope
    mcp:write: 403 insufficient_scope), and the same origin is its
    authorization server. pad: bytes of extra (skipped) members in both
    metadata documents; expires_in: of every token; bad_token: /token
    answers a token with CR LF in it."""

    def __init__(self, expires_in=3600, pad=0, bad_token=False):
        self.expires_in = expires_in
        self.pad = pad
        self.bad_token = bad_token
        self.tokens = {}        # access token -> scope
        self.refresh = {}       # refresh token -> scope
        self.codes = {}         # code -> (challenge, scope, resource)
        self.log = []           # (method, path, detail)
        self.asked = []         # the query of every /authorize
        self.n = 0
        self.lock = threading.Lock()
        self.srv = Server(self.handle)

    def __enter__(self):
        self.srv.__enter__()
        self.base = self.srv.url
        self.url = self.base + "/mcp"
        return self

    def __exit__(self, *exc):
        self.srv.__exit__(*exc)

    def _json(self, w, obj, status=200, headers=None):
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        w.respond(status, json.dumps(obj).encode(), headers=h)

    def _padded(self, doc):
        if self.pad:
            # a long list of claims, as OpenID providers publish
            doc["claims_supported"] = ["claim_%06d" % i for i in range(self.pad // 16)]
        return doc

    def handle(self, req, w):
        path, _, query = req.path.partition("?")
        with self.lock:
            self.n += 1
            n = self.n
        if req.method == "POST" and path == "/mcp":
            return self.mcp(req, w)
        if path == "/.well-known/oauth-protected-resource/mcp":
            self.log.append(("GET", path, ""))
            return self._json(w, self._padded({
                "resource": self.url, "authorization_servers": [self.base],
                "scopes_supported": [SCOPE_READ]}))
        if path == "/.well-known/oauth-authorization-server":
            self.log.append(("GET", path, ""))
            return self._json(w, self._padded({
                "issuer": self.base, "authorization_endpoint": self.base + "/authorize",
                "token_endpoint": self.base + "/token",
                "registration_endpoint": self.base + "/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "scopes_supported": [SCOPE_READ, "mcp:write", "offline_access"]}))
        if path == "/register":
            self.log.append(("POST", path, ""))
            return self._json(w, {"client_id": "device-1"}, 201)
        if path == "/authorize":
            q = dict(urllib.parse.parse_qsl(query))
            self.asked.append(q)
            code = "code-%d" % n
            self.codes[code] = (q["code_challenge"], q.get("scope", ""), q["resource"])
            loc = q["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"code": code, "state": q["state"], "iss": self.base})
            return w.respond(302, b"", headers={"Location": loc})
        if path == "/token":
            return self.token(req, w, n)
        w.respond(404, b"not found")

    def token(self, req, w, n):
        f = dict(urllib.parse.parse_qsl(req.body.decode()))
        grant = f.get("grant_type")
        self.log.append(("POST", "/token", grant))
        if grant == "authorization_code":
            challenge, scope, resource = self.codes.pop(f.get("code"), (None, None, None))
            verifier = f.get("code_verifier", "").encode()
            good = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
            if challenge is None or good.decode() != challenge or f.get("resource") != resource:
                return self._json(w, {"error": "invalid_grant"}, 400)
        elif grant == "refresh_token":
            scope = self.refresh.pop(f.get("refresh_token"), None)
            if scope is None:
                return self._json(w, {"error": "invalid_grant",
                                      "error_description": "refresh token revoked"}, 400)
        else:
            return self._json(w, {"error": "unsupported_grant_type"}, 400)
        at, rt = "at-%d" % n, "rt-%d" % n
        self.tokens[at] = scope
        self.refresh[rt] = scope
        self._json(w, {"access_token": "bad\r\nX-Evil: 1" if self.bad_token else at,
                       "token_type": "Bearer", "expires_in": self.expires_in,
                       "refresh_token": rt, "scope": scope})

    def mcp(self, req, w):
        msg = json.loads(req.body or b"{}")
        method = msg.get("method")
        self.log.append(("POST", "/mcp", method))
        auth = req.headers.get("authorization", "")
        scope = self.tokens.get(auth[7:]) if auth.startswith("Bearer ") else None
        meta = 'resource_metadata="%s/.well-known/oauth-protected-resource/mcp"' % self.base
        if scope is None:
            return self._json(w, {"error": "invalid_token"}, 401, {
                "WWW-Authenticate": 'Bearer %s, scope="%s"' % (meta, SCOPE_READ)})
        if "id" not in msg:
            return w.respond(202)
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "fake-auth", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "read", "inputSchema": {"type": "object"}},
                                {"name": "write", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            name = msg["params"]["name"]
            if name == "write" and "mcp:write" not in scope.split():
                return self._json(w, {"error": "insufficient_scope"}, 403, {
                    "WWW-Authenticate": 'Bearer error="insufficient_scope", '
                                        'scope="%s mcp:write", %s' % (SCOPE_READ, meta)})
            result = {"content": [{"type": "text", "text": "%s with %s" % (name, scope)}]}
        else:
            return self._json(w, {"jsonrpc": "2.0", "id": msg["id"],
                                  "error": {"code": -32601, "message": "no"}})
        self._json(w, {"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def grants(self):
        return [d for m, p, d in self.log if p == "/token"]


def browser(url):
    """A browser that opens the authorization URL: the address it is sent to."""
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request("GET", u.path + "?" + u.query)
    r = c.getresponse()
    loc = r.getheader("Location")
    c.close()
    return loc


def ok(pair):
    value, err = pair
    assert err is None, err
    return value


# ---------------------------------------------------------------- flows

def test_login_then_refresh_on_401_then_login_again(flash):
    with FakeAuth() as fake:
        assert mcp.add("fake", fake.url) is None
        info = ok(mcp.login("fake", browser))
        assert info["renew"] and "mcp:read" in info["scope"].split()
        q = fake.asked[0]
        # PKCE S256, the resource (RFC 8707), the challenge's scope and
        # offline_access (the server lists it), a registered client
        assert q["code_challenge_method"] == "S256" and q["resource"] == fake.url
        assert q["scope"].split() == [SCOPE_READ, "offline_access"]
        assert q["client_id"] == "device-1" and q["redirect_uri"] == oauth.REDIRECT
        s = store.items("mcp.fake.")
        s = dict(s)
        assert s["mcp.fake.token"] in fake.tokens and s["mcp.fake.refresh_token"] in fake.refresh
        assert s["mcp.fake.issuer"] == fake.base and s["mcp.fake.reg_id"] == "device-1"
        assert s["mcp.fake.resource"] == fake.url and s["mcp.fake.expires"] > 0
        # a session without a person uses the saved token
        conn = ok(mcp.connect_named("fake"))
        assert ok(mcp.call(conn, "read", {})) == "read with mcp:read offline_access"
        # the server forgets the access token: 401 -> refresh -> the call goes through
        fake.tokens.clear()
        assert ok(mcp.call(conn, "read", {})).startswith("read with")
        assert fake.grants() == ["authorization_code", "refresh_token"]
        assert store.get("mcp.fake.token") == conn.token and conn.token in fake.tokens
        # refresh token revoked too: the error names both ways to a token,
        # and the dead refresh token is forgotten
        fake.tokens.clear()
        fake.refresh.clear()
        text, err = mcp.call(conn, "read", {})
        assert text is None and err == (
            "fake: token refused (401); run: mcp login fake, or set a token: "
            "mcp add fake %s <token>" % fake.url)
        assert store.get("mcp.fake.refresh_token") is None
        mcp.close(conn)
        # logging in again reuses the registration
        ok(mcp.login("fake", browser))
        assert [p for m, p, d in fake.log].count("/register") == 1


def test_token_renewed_before_it_runs_out(flash):
    with FakeAuth(expires_in=30) as fake:     # inside the 60 s margin at once
        assert mcp.add("fake", fake.url) is None
        ok(mcp.login("fake", browser))
        old = store.get("mcp.fake.token")
        n = len(fake.log)
        conn = ok(mcp.connect_named("fake"))
        # refreshed first, then the session starts with the new token: no 401
        assert fake.log[n:][:3] == [("GET", "/.well-known/oauth-authorization-server", ""),
                                    ("POST", "/token", "refresh_token"),
                                    ("POST", "/mcp", "initialize")], fake.log[n:]
        assert conn.token != old and store.get("mcp.fake.token") == conn.token
        mcp.close(conn)


def test_step_up_needs_a_person_then_login_widens_the_scope(flash):
    with FakeAuth() as fake:
        assert mcp.add("fake", fake.url) is None
        ok(mcp.login("fake", browser))
        conn = ok(mcp.connect_named("fake"))
        text, err = mcp.call(conn, "write", {})
        assert text is None and err == ("fake: needs more access (scope mcp:read offline_access "
                                        "mcp:write, 403); run: mcp login fake")
        mcp.close(conn)
        assert store.get("mcp.fake.scope") == "mcp:read offline_access mcp:write"
        ok(mcp.login("fake", browser))
        assert "mcp:write" in fake.asked[-1]["scope"].split()
        conn = ok(mcp.connect_named("fake"))
        assert ok(mcp.call(conn, "write", {})).startswith("write with mcp:read")
        mcp.close(conn)
        # with a person at hand the 403 becomes a second login at once
        fake.tokens.clear()
        fake.tokens["at-narrow"] = SCOPE_READ
        store.set("mcp.fake.token", "at-narrow")
        store.set("mcp.fake.scope", SCOPE_READ)
        conn = ok(mcp.connect_named("fake", authorize=browser))
        assert ok(mcp.call(conn, "write", {})).startswith("write with")
        assert "mcp:write" in fake.asked[-1]["scope"].split()
        mcp.close(conn)


def _login_with(fake, answer):
    return mcp.connect(fake.url, name="x", authorize=answer)


def test_the_pasted_address_is_checked():
    with FakeAuth() as fake:
        def swap_state(url):
            return re.sub(r"state=[^&]+", "state=forged", browser(url))
        conn, err = _login_with(fake, swap_state)
        assert err == "x: that address is not from this login (its state differs)"
        conn, err = _login_with(fake, lambda url: oauth.REDIRECT +
                                "?error=access_denied&error_description=the+person+said+no")
        assert err == "x: authorization refused: access_denied (the person said no)"
        conn, err = _login_with(fake, lambda url: "  ")
        assert err == "x: login cancelled"
        conn, err = _login_with(fake, lambda url: re.sub("iss=[^&]+", "iss=http%3A%2F%2Fevil",
                                                         browser(url)))
        assert err == "x: that address comes from another authorization server"
        # the code alone is enough
        conn = ok(_login_with(fake, lambda url: urllib.parse.parse_qs(
            urllib.parse.urlsplit(browser(url)).query)["code"][0]))
        assert ok(mcp.call(conn, "read", {})).startswith("read with")
        # an unnamed connection keeps its login to itself: nothing saved
        assert conn.oauth.get("") is None
        mcp.close(conn)


def test_refusals():
    with FakeAuth(bad_token=True) as fake:
        conn, err = _login_with(fake, browser)
        assert err == ("x: unusable access token from the authorization server "
                       "(token must be printable ASCII without spaces)")
    # an authorization server over http:// only for an http:// MCP server
    conn = exchange.Conn("https://mcp.example/mcp", name="s")
    with pytest.raises(exchange.McpError, match="an authorization server must use https://"):
        oauth._http(conn, "GET", "http://as.example/.well-known/x", {})
    # a resource identifier covers the MCP URL: same origin, a parent path
    assert oauth._within("https://h/mcp", "https://h/mcp")
    assert oauth._within("https://h/a/mcp", "https://h/a")
    assert oauth._within("https://H:443/mcp/", "https://h")
    assert not oauth._within("https://h/mcp", "https://h/mc")
    assert not oauth._within("https://h/mcp", "http://h/mcp")
    assert not oauth._within("https://h/mcp", "https://h:8443/mcp")
    assert not oauth._within("https://h/mcp", "https://evil.example.com/mcp")


def test_no_discovery_without_a_way_to_a_token():
    """No person, no client credentials, no refresh token: the 401 is
    answered with the wording at once, nothing else is asked."""
    with FakeAuth() as fake:
        conn, err = mcp.connect(fake.url, name="x")
        assert conn is None and err.startswith("x: needs authorization (401); run: mcp login x")
        assert [p for m, p, d in fake.log] == ["/mcp"]


def test_metadata_document_size_is_bounded():
    with FakeAuth(pad=70000) as fake:
        conn, err = _login_with(fake, browser)
        assert conn is None and "larger than 65536 bytes" in err, err


# ------------------------------------------------------------ encodings

@pytest.fixture(scope="module")
def ec_pem(tmp_path_factory):
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path = tmp_path_factory.mktemp("key") / "key.pem"
    path.write_text(pem)
    return key, pem, str(path)


def test_encodings_and_signature_on_both_interpreters(mpy, ec_pem):
    key, pem, path = ec_pem
    r = mpy.run("oauth_units", heap=GOAL, args=[path])
    assert r.rc == 0, r
    lines = dict(line.split(" ", 1) for line in r.out.splitlines())
    assert lines["pkce"] == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"     # RFC 7636
    assert lines["quote"] == urllib.parse.quote("a b&c=d/\u00e9~*", safe="-._~")
    assert lines["quote"] == compat.quote("a b&c=d/\u00e9~*")
    # a form value ("+" a space), a bad escape kept, a URI path ("+" stays)
    assert lines["unquote"] == "a b&c=d/\u00e9~* 50% /a+b c%zz%4"
    assert lines["form"] == "a=x%20y&b=1%2F2"
    assert lines["params"] == str(sorted(oauth.params(
        'Basic realm="bearer", Bearer error="insufficient_scope", scope="a b", '
        'resource_metadata="http://h/x", error_description="say \\"no\\""').items()))
    assert lines["params"] == str([("error", "insufficient_scope"),
                                   ("error_description", 'say "no"'),
                                   ("resource_metadata", "http://h/x"), ("scope", "a b")])
    assert lines["params2"] == str([("realm", "x"), ("scope", "y")])
    assert int(lines["d"]) == key.private_numbers().private_value
    for token in (lines["jwt"], es256.assertion(pem, "dev-1", "http://127.0.0.1:1/as")):
        claims = jwt.decode(token, key.public_key(), algorithms=["ES256"],
                            audience="http://127.0.0.1:1/as")
        assert claims["iss"] == claims["sub"] == "dev-1" and claims["exp"] - claims["iat"] == 300


def test_es256_keys():
    key = ec.generate_private_key(ec.SECP256R1())
    sec1 = key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()
    assert es256.private_key(sec1) == key.private_numbers().private_value
    # the PEM pasted as one line (a console line) works too
    assert es256.private_key(" ".join(sec1.split("\n"))) == key.private_numbers().private_value
    other = [rsa.generate_private_key(65537, 2048), ec.generate_private_key(ec.SECP384R1())]
    for k in other:
        pem = k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode()
        with pytest.raises(exchange.McpError, match="not an EC P-256 private key"):
            es256.private_key(pem)
    with pytest.raises(exchange.McpError, match="not an EC P-256 private key"):
        es256.private_key("-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----")


# ------------------------------------------------------------------ heap

# the heap free once the emulated flash is in place (see mpyrun); make
# measure bisects what the login with 60 KB of metadata needs
LOGIN_HEAP = "31K"


def _login_heap(mpy, folder, pad, live=False, heap=LOGIN_HEAP):
    folder.mkdir()
    with FakeAuth(pad=pad) as fake:
        r = mpy.run("mcp_oauth", heap=heap, args=[fake.url], cwd=str(folder), timeout=60,
                    live=live)
    assert r.rc == 0, r
    assert "connect None" in r.out and "tools None read,write" in r.out, r.out
    assert "read ('read with mcp:read offline_access', None)" in r.out, r.out
    return r


def test_login_heap_does_not_grow_with_the_metadata(mpy, measure, tmp_path):
    _login_heap(mpy, tmp_path / "a", 1024)
    _login_heap(mpy, tmp_path / "b", 60000)
    small = _login_heap(mpy, tmp_path / "a-live", 1024, live=True)
    big = _login_heap(mpy, tmp_path / "b-live", 60000, live=True)
    print("MicroPython OAuth login + call: working heap %d bytes (1 KB metadata), %d bytes "
          "(60 KB metadata), cap %s" % (small.working, big.working, LOGIN_HEAP))
    assert abs(big.working - small.working) < 2048, (small.working, big.working)

    def passes(heap):
        try:
            _login_heap(mpy, tmp_path / ("b-" + heap), 60000, heap=heap)
        except AssertionError:
            return False
        return True
    measure.smallest("heap", "mcp: an OAuth login (60 KB of metadata) and a call", passes,
                     LOGIN_HEAP)


# --------------------------------------------------------------- console

def test_mcp_login_at_the_console(console, conformance_suite):
    with peers.ConformanceServer("auth/metadata-default") as srv:
        c = console({})
        c.line("mcp add conf " + srv.url)
        c.clear()
        c.type("mcp login conf\r")
        c.expect_exact("address (or code): ")
        screen = c.text()
        assert "Open this address in a browser and sign in:" in screen, screen
        url = re.search(r"(http://localhost:\d+/authorize\?\S+)", c.raw).group(1)
        q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        assert q["code_challenge_method"] == "S256" and q["resource"] == srv.url
        c.line(browser(url))            # what the person pastes
        assert re.search(r"^conf: logged in; token saved; valid \d+ min, then: mcp login conf$",
                         c.text(), re.M), c.text()
        s = read_settings(c.flash)
        token = s["mcp.conf.token"]
        assert token.startswith("test-token") and s["mcp.conf.reg_id"] == "test-client-id"
        assert token not in c.raw       # never shown
        c.clear()
        c.line("mcp test conf")
        assert "conf: ok, 1 tool" in c.text(), c.text()
        c.clear()
        c.line("get mcp.conf")
        assert re.search(r"mcp\.conf\.token += tes\.\.\.\d\d", c.text()), c.text()
        assert "mcp.conf.reg_secret" in c.text() and "test-client-secret" not in c.raw
        # an empty answer cancels
        c.clear()
        c.type("mcp login conf\r")
        c.expect_exact("address (or code): ")
        c.line("")
        assert "conf: login cancelled" in c.text(), c.text()
    out = srv.stop()
    assert "FAILURE" not in out and "token-request" in out, out
