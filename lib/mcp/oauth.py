# OAuth 2.1 for MCP servers (MCP authorization spec 2025-11-25), imported by
# mcp/exchange.py only when a server answers a POST with a challenge:
#   401 + WWW-Authenticate: Bearer resource_metadata="<url>", scope="a b"
#   403 + WWW-Authenticate: Bearer error="insufficient_scope", scope="a b c"
#
# Discovery. Protected-resource metadata (RFC 9728) from resource_metadata,
# else /.well-known/oauth-protected-resource<path of the MCP URL>, then at
# the root; its `resource` must be the MCP URL or a prefix of it on the same
# origin (else no authorization: a token for another resource). Then the
# metadata of its first authorization server (RFC 8414 / OpenID discovery):
#   issuer https://as/t1: /.well-known/oauth-authorization-server/t1,
#     /.well-known/openid-configuration/t1, /t1/.well-known/openid-configuration
#   issuer https://as:    /.well-known/oauth-authorization-server,
#     /.well-known/openid-configuration
# whose `issuer` must be the one asked for. A server without resource
# metadata is a 2025-03-26 one: its own origin is the authorization server
# (metadata as above, else /authorize, /token, /register there).
#
# Grants. With a person (conn.authorize, `mcp login`): authorization code +
# PKCE S256 (refused when the metadata does not list S256), `resource` (RFC
# 8707) in the authorization and the token request, `state` checked on the
# pasted redirect address (and `iss` when given, RFC 9207). The person opens
# the URL anywhere; authorize(url) returns the address the browser ended on
# (or just the code). Without a person: the stored refresh token, else
# client_credentials (client_secret_basic / _post, or private_key_jwt with an
# ES256 key: mcp/es256.py) or, with an enterprise IdP (SEP-990), an RFC 8693
# token exchange at the IdP for an ID-JAG, then the RFC 7523 jwt-bearer grant.
# Scope: the challenge's, else the resource's scopes_supported, else none;
# plus what an earlier 403 asked for, plus offline_access when the
# authorization server lists it (refresh tokens). A 403 insufficient_scope
# asks again with the wider scope; one whose scope the token already has, or
# a fourth challenge to one message, is an error.
#
# Client identity for the code grant, in order: a pre-registered client
# (client_id / client_secret settings), an earlier registration at the same
# authorization server, the client ID metadata document URL (setting
# mcp.client_url, an https URL) where the server says
# client_id_metadata_document_supported, else dynamic registration (RFC
# 7591). Token endpoint authentication as registered, else as advertised:
# private_key_jwt, client_secret_basic, client_secret_post, none.
#
# Settings, mcp.<name>.<part> (only for a registry entry with this URL):
#   a person's: client_id, client_secret, client_key (EC P-256 PEM text or a
#     file path), idp_url (IdP token endpoint), idp_client, idp_token (an ID
#     token from the IdP)
#   the flow's (those registry.add drops): token, refresh_token, expires (Unix s),
#     scope, issuer, resource, reg_id, reg_secret, reg_auth
# Secrets are masked by store (last part contains token/secret/key).
#
# Memory: every document is walked with jsonstream's pull parser keeping only
# the listed top-level fields (each value at most 8 KB of JSON, a document at
# most 64 KB read); request bodies are a few short form fields.
import os
import binascii
import hashlib

import httpc
import jsonstream
import store
from mcp.exchange import Conn, McpError, close_reply
from compat import const, epoch, clock_ok, quote, unquote

REDIRECT = "http://127.0.0.1/callback"   # the page the browser cannot open: its address carries the code
CLIENT_NAME = "AntOS AI"
_MAX_AUTH = const(3)       # authorizations for one message
_MAX_DOC = const(65536)    # bytes of one document read
_MAX_VALUE = const(8192)   # one kept value (JSON text)
_GRANT = "urn:ietf:params:oauth:grant-type:"
_PRM = ("resource", "authorization_servers", "scopes_supported")
_ASM = ("issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint",
        "scopes_supported", "grant_types_supported", "code_challenge_methods_supported",
        "token_endpoint_auth_methods_supported", "client_id_metadata_document_supported")
_REPLY = ("access_token", "token_type", "expires_in", "refresh_token", "scope", "client_id",
          "client_secret", "token_endpoint_auth_method", "error", "error_description")


# ------------------------------------------------------------ challenge

def challenge(conn, resp, tries):
    """Answer an OAuth challenge to one of conn's POSTs (a 401, or a 403
    with insufficient_scope; resp is closed): a new conn.token, else
    McpError. tries: authorizations already done for this message."""
    h = params(resp.headers.get("www-authenticate") or "")
    status = resp.status
    close_reply(resp)
    st = _state(conn)
    had = st.get("scope")
    if status == 403:
        if _covers(had, h.get("scope")):
            raise McpError("%s: access denied (403, insufficient_scope) although the token has scope %s"
                           % (conn.name, had))
        _save(conn, st, {"scope": _union(had, h.get("scope"))})   # what the next login asks for
    if tries >= _MAX_AUTH:
        raise McpError("%s: still refused (%d) after %d authorizations" % (conn.name, status, tries))
    person = conn.authorize is not None
    if not person:
        if status == 401 and st.get("refresh_token") and _refresh(conn, st):
            return
        if not (st.get("client_secret") or st.get("client_key") or st.get("idp_token")):
            _needs_login(conn, status, st)
    meta = _discover(conn, h)
    scope = _union(st.get("scope"), h.get("scope") or meta.get("scopes"))
    if scope and _has(meta, "scopes_supported", "offline_access"):
        scope = _union(scope, "offline_access")
    grants = meta.get("grant_types_supported")
    if person and (not isinstance(grants, list) or "authorization_code" in grants):
        doc = _code_grant(conn, st, meta, scope)
    elif _has(meta, "grant_types_supported", "client_credentials") and st.get("client_id") \
            and (st.get("client_secret") or st.get("client_key")):
        doc = _grant(conn, st, meta, [("grant_type", "client_credentials"), ("scope", scope),
                                      ("resource", meta["resource"])], _preregistered(conn, st, meta))
    elif _has(meta, "grant_types_supported", _GRANT + "jwt-bearer") and st.get("idp_token"):
        doc = _enterprise(conn, st, meta, scope)
    elif person:
        raise McpError("%s: the authorization server offers no grant this device can use" % conn.name)
    else:
        _needs_login(conn, status, st)
    _took(conn, st, meta, doc, scope, None)


def _needs_login(conn, status, st):
    if status == 403:
        raise McpError("%s: needs more access (scope %s, 403); run: mcp login %s"
                       % (conn.name, st.get("scope"), conn.reg_name or "<name>"))
    from mcp import errors
    raise errors.status_error(conn, 401, "", "", "")


def params(v):
    """The auth-params of the Bearer challenge in a WWW-Authenticate value
    (lowercase names; quoted values unquoted)."""
    out = {}
    low = v.lower()
    i = 0
    while True:     # "bearer" as the scheme, not inside another value
        i = low.find("bearer", i)
        if i < 0:
            return out
        i += 6
        if (i == 6 or low[i - 7] in " ,") and (i == len(v) or v[i] == " "):
            break
    n = len(v)
    while i < n:
        while i < n and v[i] in " ,":
            i += 1
        j = v.find("=", i)
        if j < 0 or " " in v[i:j].strip() or "," in v[i:j]:
            break       # the next scheme starts
        key = low[i:j].strip()
        j += 1
        while j < n and v[j] == " ":
            j += 1
        if j < n and v[j] == '"':
            e = j + 1
            while True:
                e = v.find('"', e)
                if e < 0 or v[e - 1] != "\\":
                    break
                e += 1
            if e < 0:
                e = n
            out[key] = v[j + 1:e].replace('\\"', '"')
            i = e + 1
        else:
            e = v.find(",", j)
            if e < 0:
                e = n
            out[key] = v[j:e].strip()
            i = e
    return out


def _words(s):
    return s.split() if isinstance(s, str) else []


def _union(a, b):
    w = _words(a)
    for x in _words(b):
        if x not in w:
            w.append(x)
    return " ".join(w) or None


def _covers(have, want):
    h = _words(have)
    for x in _words(want):
        if x not in h:
            return False
    return True


def _has(meta, key, value):
    v = meta.get(key)
    return isinstance(v, list) and value in v


# ---------------------------------------------------------------- state

def _state(conn):
    """conn's OAuth state: the mcp.<name>.* settings when conn is that
    registry entry (same URL: credentials never go to another server), else
    a dict of its own (kept for the connection only)."""
    st = getattr(conn, "oauth", None)
    if st is None:
        st = conn.oauth = {}
        name = conn.reg_name
        if name and store.get("mcp.%s.url" % name) == conn.url:
            pre = "mcp.%s." % name
            for k in store.keys(pre):
                st[k[len(pre):]] = store.get(k)
            st[""] = pre
    return st


def _save(conn, st, pairs):
    pre = st.get("")
    saved = {}
    for k in pairs:
        st[k] = pairs[k]
        if pre:
            saved[pre + k] = pairs[k]
    if saved:
        store.update(saved)


def _took(conn, st, meta, doc, scope, refresh):
    """Keep the token of a token response doc (saved, and in conn.token)."""
    from mcp import registry
    tok = doc.get("access_token")
    err = registry.check_token(tok)    # it goes into a header line
    if err:
        raise McpError("%s: unusable access token from the authorization server (%s)" % (conn.name, err))
    kind = doc.get("token_type")
    if isinstance(kind, str) and kind.lower() != "bearer":
        raise McpError("%s: token type %s is not supported" % (conn.name, kind[:20]))
    exp = doc.get("expires_in")
    try:
        exp = epoch() + int(exp) if exp is not None and clock_ok() else None
    except (TypeError, ValueError):
        exp = None
    rt = doc.get("refresh_token")
    got = doc.get("scope")
    _save(conn, st, {"token": tok, "refresh_token": rt if isinstance(rt, str) else refresh,
                     "expires": exp, "scope": got if isinstance(got, str) else scope,
                     "issuer": meta.get("issuer"), "resource": meta.get("resource")})
    conn.token = tok


# ------------------------------------------------------------ discovery

def _split(url):
    """-> (origin, path without query or trailing "/") of an http(s) URL."""
    try:
        scheme, host, port, path = httpc._split(url)
    except ValueError:
        raise McpError("bad URL %s" % url[:100])
    q = path.find("?")
    if q >= 0:
        path = path[:q]
    std = 443 if scheme == "https" else 80
    return "%s://%s%s" % (scheme, host, "" if port == std else ":%d" % port), path.rstrip("/")


def _discover(conn, h):
    """The authorization server's metadata (_ASM fields) plus "resource"
    (what a token is asked for) and "scopes" (the resource's own list)."""
    origin, path = _split(conn.url)
    wk = "/.well-known/oauth-protected-resource"
    if "resource_metadata" in h:
        urls = (h["resource_metadata"],)
    else:
        urls = (origin + wk + path, origin + wk) if path else (origin + wk,)
    for u in urls:
        prm = _get(conn, u, _PRM)
        if prm is not None:
            break
    if prm is None:
        # 2025-03-26: the MCP server's origin is the authorization server
        meta = _server(conn, origin, False) or {
            "authorization_endpoint": origin + "/authorize", "token_endpoint": origin + "/token",
            "registration_endpoint": origin + "/register"}
        meta["resource"] = origin + path
        return meta
    res = prm.get("resource")
    if not isinstance(res, str) or not _within(conn.url, res):
        raise McpError("%s: the server's metadata is for another resource (%s); not authorizing"
                       % (conn.name, str(res)[:100]))
    ases = prm.get("authorization_servers")
    if not isinstance(ases, list) or not ases or not isinstance(ases[0], str):
        raise McpError("%s: the server's metadata names no authorization server" % conn.name)
    meta = _server(conn, ases[0], True)
    if meta is None:
        raise McpError("%s: no authorization server metadata for %s" % (conn.name, ases[0][:100]))
    meta["resource"] = res
    sc = prm.get("scopes_supported")
    if isinstance(sc, list):
        meta["scopes"] = " ".join(x for x in sc if isinstance(x, str)) or None
    return meta


def _within(url, res):
    """True when resource identifier res covers url: same origin, and its
    path is url's or a parent of it."""
    a, ap = _split(url)
    b, bp = _split(res)
    return a == b and (ap == bp or ap.startswith(bp + "/")) and "#" not in res


def _server(conn, issuer, check):
    """Authorization server metadata for issuer (the well-known URLs in the
    top comment), or None; check: its issuer must be this one."""
    origin, path = _split(issuer)
    oa, oi = "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"
    if path:
        urls = (origin + oa + path, origin + oi + path, origin + path + oi)
    else:
        urls = (origin + oa, origin + oi)
    for u in urls:
        m = _get(conn, u, _ASM)
        if m is not None:
            m["doc"] = True
            if check and str(m.get("issuer")).rstrip("/") != issuer.rstrip("/"):
                raise McpError("%s: the metadata at %s is for another issuer" % (conn.name, u[:100]))
            return m
    return None


# ----------------------------------------------------------------- HTTP

def _http(conn, method, url, headers, body=None):
    # tokens and client secrets travel in clear over http://: only to a
    # server whose own MCP URL is http:// already (a LAN box, tests)
    if not (url.startswith("https://") or (url.startswith("http://")
                                           and conn.url.startswith("http://"))):
        raise McpError("%s: refusing %s (an authorization server must use https://)"
                       % (conn.name, url[:100]))
    try:
        return httpc.request(method, url, headers=headers, body=body, keep=("content-type",),
                             timeout=conn.timeout, max_redirects=3 if method == "GET" else 0)
    except ValueError:
        raise McpError("%s: bad URL %s" % (conn.name, url[:100]))


class _Cut:
    """A response's readinto(), at most _MAX_DOC bytes in all."""

    def __init__(self, resp):
        self.resp = resp
        self.n = 0

    def readinto(self, buf):
        k = self.resp.readinto(buf)
        self.n += k or 0
        if self.n > _MAX_DOC:
            raise jsonstream.JSONError("larger than %d bytes" % _MAX_DOC)
        return k


def _doc(conn, resp, keys, what):
    """The top-level fields named in keys of the JSON object in resp."""
    out = {}
    try:
        p = jsonstream.Parser(_Cut(resp), max_value=_MAX_VALUE)
        if p.next() != jsonstream.OBJ:
            raise jsonstream.JSONError("not a JSON object")
        while p.next() == jsonstream.KEY:
            k = p.value
            if k in keys:
                out[k] = p.read_value()
            else:
                p.skip_value()
        p.finish()
    except jsonstream.JSONError as e:
        raise McpError("%s: bad %s (%s)" % (conn.name, what, e))
    finally:
        close_reply(resp)
    return out


def _get(conn, url, keys):
    """A metadata document's fields, or None when there is none at url."""
    r = _http(conn, "GET", url, {"Accept": "application/json"})
    if r.status != 200 or "json" not in r.headers.get("content-type", ""):
        close_reply(r)
        return None
    return _doc(conn, r, keys, url[:100])


def _post(conn, url, body, headers, what):
    """POST a form or JSON body -> the reply's _REPLY fields (2xx), else
    McpError with the server's error and description."""
    r = _http(conn, "POST", url, headers, body)
    d = {}
    if "json" in r.headers.get("content-type", ""):
        d = _doc(conn, r, _REPLY, what)
    else:
        close_reply(r)
    if r.status < 200 or r.status > 299 or "error" in d:
        e = d.get("error")
        desc = d.get("error_description")
        raise McpError("%s: %s refused (HTTP %d%s%s)" % (
            conn.name, what, r.status, (": %s" % str(e)[:60]) if e else "",
            (", %s" % str(desc)[:200]) if desc else ""))
    return d


_FORM = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


def _grant(conn, st, meta, fields, ident):
    """A token request to the authorization server, the client (ident:
    (client_id, secret, method)) authenticated -> its _REPLY fields."""
    cid, secret, method = ident
    h = _FORM
    if method == "client_secret_basic":
        h = {"Authorization": "Basic " + _b64(quote(cid) + ":" + quote(secret))}
        h.update(_FORM)
    else:
        fields.append(("client_id", cid))
        if method == "client_secret_post":
            fields.append(("client_secret", secret))
        elif method == "private_key_jwt":
            from mcp import es256
            fields.append(("client_assertion_type",
                           "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"))
            fields.append(("client_assertion", es256.assertion(
                _key_text(conn, st["client_key"]), cid,
                meta.get("issuer") or meta["token_endpoint"])))
    ep = meta.get("token_endpoint")
    if not isinstance(ep, str):
        raise McpError("%s: the authorization server has no token endpoint" % conn.name)
    return _post(conn, ep, form(fields), h, "token request")


def _key_text(conn, v):
    if v.startswith("-----"):
        return v
    try:
        with open(v) as f:
            return f.read(8192)
    except OSError:
        raise McpError("%s: cannot read the client key file %s" % (conn.name, v[:100]))


# --------------------------------------------------------------- grants

def _code_grant(conn, st, meta, scope):
    """Authorization code + PKCE with the person -> token reply fields."""
    if meta.get("doc") and not _has(meta, "code_challenge_methods_supported", "S256"):
        raise McpError("%s: the authorization server does not offer PKCE (S256); not logging in"
                       % conn.name)
    ep = meta.get("authorization_endpoint")
    if not isinstance(ep, str):
        raise McpError("%s: the authorization server has no authorization endpoint" % conn.name)
    ident = _identity(conn, st, meta)
    verifier = b64url(os.urandom(32))
    state = b64url(os.urandom(16))
    res = meta["resource"]
    url = ep + ("&" if "?" in ep else "?") + form([
        ("response_type", "code"), ("client_id", ident[0]), ("redirect_uri", REDIRECT),
        ("scope", scope), ("state", state),
        ("code_challenge", b64url(hashlib.sha256(verifier.encode()).digest())),
        ("code_challenge_method", "S256"), ("resource", res)])
    code = _code(conn, conn.authorize(url), state, meta.get("issuer"))
    return _grant(conn, st, meta, [("grant_type", "authorization_code"), ("code", code),
                                   ("redirect_uri", REDIRECT), ("code_verifier", verifier),
                                   ("resource", res)], ident)


def _code(conn, answer, state, issuer):
    """The code from what the person pasted: the redirect address (its
    state must be ours) or the code alone."""
    s = (answer or "").strip()
    if not s:
        raise McpError("%s: login cancelled" % conn.name)
    if "=" not in s:
        return s
    f = {}
    for part in s[s.find("?") + 1:].split("&"):
        i = part.find("=")
        if i > 0:
            f[part[:i]] = unquote(part[i + 1:], True)
    if "error" in f:
        raise McpError("%s: authorization refused: %s%s" % (
            conn.name, f["error"][:60],
            (" (%s)" % f["error_description"][:200]) if "error_description" in f else ""))
    if f.get("state") != state:
        raise McpError("%s: that address is not from this login (its state differs)" % conn.name)
    if "iss" in f and issuer and f["iss"] != issuer:
        raise McpError("%s: that address comes from another authorization server" % conn.name)
    if not f.get("code"):
        raise McpError("%s: no code in that address" % conn.name)
    return f["code"]


def _identity(conn, st, meta):
    """(client_id, secret, token endpoint auth method) for the code grant,
    registering the device when it must (see the top comment)."""
    if st.get("client_id"):
        return _preregistered(conn, st, meta)
    if st.get("reg_id") and st.get("issuer") == meta.get("issuer"):
        return st["reg_id"], st.get("reg_secret"), st.get("reg_auth") or "none"
    url = store.get("mcp.client_url")
    if isinstance(url, str) and url.startswith("https://") \
            and meta.get("client_id_metadata_document_supported") is True:
        reg = {"reg_id": url, "reg_secret": None, "reg_auth": "none"}
    else:
        ep = meta.get("registration_endpoint")
        if not isinstance(ep, str):
            raise McpError("%s: the authorization server does not register clients; set "
                           "mcp.%s.client_id (and client_secret)" % (conn.name, conn.reg_name or "<name>"))
        body = {"client_name": CLIENT_NAME, "redirect_uris": [REDIRECT], "response_types": ["code"],
                "grant_types": ["authorization_code", "refresh_token"]}
        if _has(meta, "token_endpoint_auth_methods_supported", "none"):
            body["token_endpoint_auth_method"] = "none"      # a public client
        d = _post(conn, ep, jsonstream.dumps(body), {"Content-Type": "application/json",
                                                     "Accept": "application/json"}, "registration")
        cid = d.get("client_id")
        if not isinstance(cid, str) or not cid:
            raise McpError("%s: the registration gave no client_id" % conn.name)
        sec = d.get("client_secret")
        sec = sec if isinstance(sec, str) else None
        m = d.get("token_endpoint_auth_method")
        reg = {"reg_id": cid, "reg_secret": sec,
               "reg_auth": m if isinstance(m, str) else _method(conn, meta, sec, None)}
    reg["issuer"] = meta.get("issuer")
    _save(conn, st, reg)
    return reg["reg_id"], reg["reg_secret"], reg["reg_auth"]


def _preregistered(conn, st, meta):
    sec = st.get("client_secret")
    return st.get("client_id"), sec, _method(conn, meta, sec, st.get("client_key"))


def _method(conn, meta, secret, key):
    """The token endpoint auth method to use: the strongest the server
    lists (RFC 8414's default: client_secret_basic) that this client can."""
    ms = meta.get("token_endpoint_auth_methods_supported")
    if not isinstance(ms, list):
        ms = ("client_secret_basic", "none")
    for m in ("private_key_jwt" if key else "", "client_secret_basic" if secret else "",
              "client_secret_post" if secret else "", "none"):
        if m and m in ms:
            return m
    raise McpError("%s: the authorization server accepts no client authentication this "
                   "device has (set mcp.%s.client_secret or client_key)"
                   % (conn.name, conn.reg_name or "<name>"))


def _enterprise(conn, st, meta, scope):
    """SEP-990: the IdP's ID token exchanged at the IdP for an ID-JAG
    (RFC 8693), then the jwt-bearer grant (RFC 7523) with it."""
    idp = st.get("idp_url")
    if not isinstance(idp, str):
        raise McpError("%s: set mcp.%s.idp_url (the IdP's token endpoint)"
                       % (conn.name, conn.reg_name or "<name>"))
    d = _post(conn, idp, form([
        ("grant_type", _GRANT + "token-exchange"),
        ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
        ("audience", meta.get("issuer")), ("resource", meta["resource"]), ("scope", scope),
        ("subject_token", st["idp_token"]),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ("client_id", st.get("idp_client"))]), _FORM, "token exchange at the IdP")
    jag = d.get("access_token")
    if not isinstance(jag, str):
        raise McpError("%s: the IdP gave no assertion" % conn.name)
    return _grant(conn, st, meta, [("grant_type", _GRANT + "jwt-bearer"), ("assertion", jag),
                                   ("scope", scope)], _preregistered(conn, st, meta))


def _refresh(conn, st):
    """A new token from the stored refresh token -> True; False (and the
    refresh token forgotten) when that does not work."""
    meta = None
    if isinstance(st.get("issuer"), str):
        meta = _server(conn, st["issuer"], False)
    if meta is None:
        return False
    meta["resource"] = st.get("resource")
    if st.get("client_id"):
        ident = _preregistered(conn, st, meta)
    else:
        ident = (st.get("reg_id"), st.get("reg_secret"), st.get("reg_auth") or "none")
    try:
        doc = _grant(conn, st, meta, [("grant_type", "refresh_token"),
                                      ("refresh_token", st["refresh_token"]),
                                      ("resource", st.get("resource"))], ident)
        _took(conn, st, meta, doc, st.get("scope"), st["refresh_token"])
    except McpError:
        _save(conn, st, {"refresh_token": None})
        return False
    return True


# ------------------------------------------------------------ public API

def renew(name, s, timeout=30):
    """Refresh the token of registry entry s (registry.get(name)) before it
    runs out -> the new token, or None (then the 401 path tries again)."""
    conn = Conn(s["url"], s["token"], name, timeout=timeout)
    st = _state(conn)
    try:
        if st.get("refresh_token") and _refresh(conn, st):
            return conn.token
    except (McpError, OSError):
        pass
    return None


def login(name, authorize):
    """Log in to registry server name with a person (authorize(url) -> the
    address the browser ended on, or the code; None cancels). -> ({"scope",
    "expires", "renew" (a refresh token came)}, None), (None, None) when the
    server asked for no authorization, or (None, error)."""
    from mcp import client, registry
    s = registry.get(name)
    if s is None:
        return None, registry.check_name(name) or (
            "no MCP server named %s; add it with: mcp add %s <url>" % (name, name))
    conn, err = client.connect(s["url"], None, name, authorize=authorize)
    if err:
        return None, err
    try:
        _, err = client.tools(conn, True)     # some servers ask only here
    finally:
        client.close(conn)
    if err:
        return None, err
    st = getattr(conn, "oauth", None)
    if st is None or conn.token is None:
        return None, None
    return {"scope": st.get("scope"), "expires": st.get("expires"),
            "renew": st.get("refresh_token") is not None}, None


# ------------------------------------------------------------- encoding

def form(fields):
    """"k=v&..." of (name, value) pairs; None values are left out."""
    return "&".join(k + "=" + quote(v) for k, v in fields if v is not None)


def _b64(s):
    return binascii.b2a_base64(s.encode()).decode().strip()


def b64url(data):
    """base64url without padding (RFC 4648 section 5), as PKCE and JWS use."""
    return binascii.b2a_base64(data).decode().rstrip("\n=").replace("+", "-").replace("/", "_")
