"""The settings the firmware reads: the one list that `set` checks values
against, `help set` shows and the table of settings in lib/shell/README.md
repeats (host_tests/test_shell_settings.py holds them equal). Imported by `set`
and `help set` only.

    keys.kind("ai.chat.tools")       # "native|text-fallback|none"; None: not
                                     # ours; ValueError: bad or unknown name
    value = keys.check("ai.chat.max_tokens", 100)   # the value to store,
                                                    # or ValueError(why)
    keys.show(out)          # the table, one line per setting

TABLE: one line per setting: the key, its kind, what it is. In a key, USE
stands for a use-type (chat, code, helper, edit, general...: letters,
digits, - and _) and NAME for an MCP server's name. Kinds: text, secret
(text shown masked), int:MIN-MAX (a whole number from MIN to MAX),
number:MIN-MAX (any number from MIN to MAX), bool (true or false), url
(http:// or https://), provider (an id of ai/catalog.py), model (a model
id or a preset token: ai/config.py), or the choices a|b|c. Every number
has a range: a value outside it would be saved and then misread (a port
above 65535 wraps to another one).
A key under ai., mcp. or net. that is not here is refused with the nearest
known one (a typo would be saved and never read); other keys (your
scripts' own) are stored as typed.
"""

TABLE = """\
ai.USE.provider provider the provider of use-type USE (general: the fallback of all)
ai.USE.model model model id or preset token (ai presets)
ai.USE.key secret API key
ai.USE.base_url url the API's base URL
ai.USE.max_tokens int:1-1000000 longest reply, in tokens
ai.USE.temperature number:0-2 sampling temperature
ai.USE.system text system prompt
ai.USE.timeout int:1-3600 seconds of each network wait (60)
ai.USE.deadline int:1-86400 seconds of a whole exchange (300)
ai.USE.thinking minimal|low|medium|high|max|off thinking effort
ai.USE.tools native|text-fallback|none tool calling
ai.USE.style openai|responses|anthropic|gemini wire format (openai or responses: swaps)
ai.USE.max_reply int:64-1048576 longest reply kept, in characters (131072 at the console, 16384 for ai.ask)
ai.USE.label text a note shown beside the provider (banner, ai config, ai status): make demo sets one
ai.history.bytes int:1024-1048576 bytes of a conversation kept (16384)
ai.history.turns int:1-1000 turns of a conversation kept (20)
ai.max_tool_result int:256-1048576 bytes of a tool result a chat keeps; it goes through flash (16384)
ai.tools.approve ask|always|never tool calls of a chat: ask first, run, refuse
ai.tools.local off|read|all the board's commands as a chat's tools: none, read-only (default), all (changes asked)
mcp.NAME.url url the server's URL (mcp add)
mcp.NAME.token secret bearer token (mcp add, mcp login)
mcp.NAME.allow text tools trusted for always (the approval's a)
mcp.NAME.client_id text OAuth client ID of a pre-registered client
mcp.NAME.client_secret secret its secret
mcp.NAME.client_key secret its EC P-256 private key (PEM text or a file)
mcp.NAME.idp_url url enterprise IdP token endpoint
mcp.NAME.idp_client text client ID at the IdP
mcp.NAME.idp_token secret ID token from the IdP
mcp.NAME.refresh_token secret OAuth: the refresh token (mcp login)
mcp.NAME.expires int:0-4294967295 OAuth: when the token expires (Unix s)
mcp.NAME.scope text OAuth: the scope granted
mcp.NAME.issuer url OAuth: the authorization server
mcp.NAME.resource url OAuth: the resource the token is for
mcp.NAME.reg_id text OAuth: the dynamic registration's client ID
mcp.NAME.reg_secret secret OAuth: its secret
mcp.NAME.reg_auth text OAuth: its token endpoint authentication
mcp.deadline int:1-86400 seconds of one MCP operation (300)
mcp.max_result int:256-1048576 bytes of a result mcp.call and mcp.read give a program as a str (16384)
mcp.client_url url OAuth client ID metadata document (https)
mcp.serve.port int:1-65535 port of mcp serve (8765)
mcp.serve.bind text address mcp serve listens on
mcp.serve.hosts text host names clients may use for the board
mcp.serve.idle int:1-604800 seconds an unused session is kept (3600)
mcp.serve.autostart bool start mcp serve at boot
mcp.serve.allow text commands exposed beyond the read-only ones
mcp.serve.always text commands allowed for always (the approval's a)
mcp.serve.token secret the token clients send (mcp serve token new)
net.tls_max int:0-16 TLS connections open at once (unset: the board profile's; 0: no limit)
net.sockets_max int:0-64 sockets open at once, TLS ones too (unset: the board profile's; 0: no limit)
wifi.ssid text WiFi network (wifi connect)
wifi.password secret its password
wifi.wait int:1-300 seconds boot.py waits for WiFi (15)
copilot.token secret GitHub login for Copilot (ai login copilot)
copilot.github url GitHub Enterprise Server: its https://HOST
copilot.api url GitHub Enterprise Server: its Copilot API
copilot.client_id text OAuth app of the device flow
"""


def rows():
    """(key, kind, what) per line of TABLE."""
    for line in TABLE.split("\n"):
        if line:
            k, kind, what = line.split(" ", 2)
            yield k, kind, what


def show(out):
    import shell
    out("settings (USE: a use-type such as chat, code or general; NAME: an MCP server):")
    for k, kind, what in rows():
        out(shell.fold("  %-22s %-16s %s" % (k, kind, what), 42))


def _word(w, most):
    """A use-type or server name: letters, digits, - and _."""
    if not 0 < len(w) <= most:
        return False
    for b in w.encode():
        if not (97 <= b <= 122 or 65 <= b <= 90 or 48 <= b <= 57 or b == 95 or b == 45):
            return False
    return True


def kind(key):
    """The kind of a known key; None for a key of another prefix (a
    script's own); ValueError for a bad name or an unknown key under ai.,
    mcp. or net."""
    if key.startswith("-") or " " in key or not 0 < len(key) <= 64:
        raise ValueError("bad setting name %r" % key)
    parts = key.split(".")
    for k, kind, _ in rows():
        p = k.split(".")
        if len(p) != len(parts):
            continue
        ok = True
        for want, got in zip(p, parts):
            if want == "USE":
                ok = ok and _word(got, 16)
            elif want == "NAME":
                ok = ok and _word(got, 32)
            else:
                ok = ok and want == got
        if ok:
            return kind
    if key.startswith("ai.") or key.startswith("mcp.") or key.startswith("net."):
        raise ValueError("unknown setting %s (did you mean %s? help set lists them)"
                         % (key, nearest(key)))
    return None


def _distance(a, b):
    """Edit distance of two short strings."""
    prev = list(range(len(b) + 1))
    for i in range(len(a)):
        cur = [i + 1]
        for j in range(len(b)):
            cur.append(min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (a[i] != b[j])))
        prev = cur
    return prev[-1]


def nearest(key):
    """The known key closest to key, with its USE or NAME filled in from key."""
    parts = key.split(".")
    best, score = None, 1 << 30
    for k, _, _ in rows():
        p = k.split(".")
        if len(p) == len(parts):        # USE / NAME as typed
            p = [parts[i] if w in ("USE", "NAME") else w for i, w in enumerate(p)]
        cand = ".".join(p)
        d = _distance(key, cand)
        if d < score:
            best, score = cand, d
    return best


def limits(k):
    """(low, high) of a kind int:MIN-MAX or number:MIN-MAX, else None."""
    i = k.find(":")
    if i < 0 or k[:i] not in ("int", "number"):
        return None
    lo, hi = k[i + 1:].split("-")
    return int(lo), int(hi)


def check(key, value):
    """The value to store for key (a number for the int and number
    kinds, within their range), or ValueError with what is valid."""
    k = kind(key)
    v = value
    if k is None or k in ("text", "secret"):
        return v
    r = limits(k)
    if r is not None:
        if k.startswith("int"):
            ok = isinstance(v, int) and not isinstance(v, bool)
            what = "a whole number"
        else:
            try:
                ok = not isinstance(v, bool)
                v = float(v) if isinstance(v, str) else v
                ok = ok and isinstance(v, (int, float))
            except ValueError:
                ok = False
            what = "a number"
        if ok and r[0] <= v <= r[1]:
            return v
        raise ValueError("%s must be %s from %d to %d (not %r)" % (key, what, r[0], r[1], value))
    if k == "bool":
        if v is True or v is False:
            return v
        raise ValueError("%s must be true or false (not %r)" % (key, v))
    v = str(v)
    if k == "url":
        if not (v.startswith("http://") or v.startswith("https://")):
            raise ValueError("%s must be a URL starting with http:// or https:// (not %r)"
                             % (key, v))
    elif k == "provider":
        from ai import catalog
        if catalog.find(v) is None:
            raise ValueError("%s must be one of %s (not %r)" % (key, ", ".join(catalog.ids()), v))
    elif k == "model":
        from ai.config import parse_model, ConfigError
        try:
            parse_model(v)
        except ConfigError as e:
            raise ValueError("%s: %s" % (key, e))
    elif v not in k.split("|"):
        raise ValueError("%s must be one of %s (not %r)" % (key, ", ".join(k.split("|")), v))
    return v
