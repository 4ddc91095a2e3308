"""GitHub Copilot: the session token behind every request of the provider
copilot (catalogue quirk "copilot"; the wire is chat completions, the
openai style).

    GET {copilot.api}/copilot_internal/v2/token
        Authorization: token <GitHub OAuth token>, Accept: application/json
    -> 200 {"token", "expires_at": unix seconds, "refresh_in",
            "endpoints": {"api": "https://api.<plan>.githubcopilot.com", ...}}
       401 {"message": "Bad credentials"}        the login was revoked
       403 / 404 {"message"}                     no Copilot on the account

The OAuth token is the setting copilot.token (written by `ai login
copilot`, shown masked) or the key override. The session token is kept in
RAM for that login and fetched again 60 s before expires_at (now() is the
clock, a seam for tests), and once more when the API refuses it (401: it
ended early, or the board's clock was never set); only when that fails too
does the error say to log in again. endpoints.api is the base URL (individual,
business and enterprise plans differ) unless a base_url is set. Every
request carries the editor headers (HEADERS).

    GET {api}/models -> {"data": [{"id", "capabilities": {"supports":
        {"tool_calls": bool, ...}, ...}, ...}]}

When tools are offered and no tools level is set, a model's
capabilities.supports.tool_calls decides it (without: the text fallback);
the answer is kept in RAM per model.

Settings: copilot.token, copilot.api (default https://api.github.com; a
GitHub Enterprise Server: https://HOST/api/v3), copilot.github and
copilot.client_id (the device flow, ai/login.py).
"""
import time

import httpc
import jsonstream
import store
from compat import const

API = "https://api.github.com"
HEADERS = {"Editor-Version": "AntOS/0.1", "Editor-Plugin-Version": "antos-ai/0.1",
           "Copilot-Integration-Id": "vscode-chat"}
LOGIN = "ai login copilot"
_REFRESH_S = const(60)
# the board's clock counts from 2000, a PC's from 1970; expires_at from 1970
_EPOCH = 946684800 if time.gmtime(0)[0] == 2000 else 0

_session = [None, None, 0, None]    # the fields below
_LOGIN = const(0)       # the GitHub OAuth token the session was made from
_TOKEN = const(1)       # the Copilot session token
_EXPIRES = const(2)     # when it ends, seconds since 1970
_API = const(3)         # the API base the token endpoint named, or None
_tools = {}                         # model id -> tool calling supported


def now():
    """Seconds since 1970 (replaced by tests)."""
    return int(time.time()) + _EPOCH


def forget():
    """Drop the session token (a new login)."""
    _session[_LOGIN] = _session[_TOKEN] = None
    _tools.clear()


def _get(url, headers, timeout):
    """(status, parsed JSON object or None) of a small GET reply."""
    with httpc.request("GET", url, headers, timeout=timeout) as resp:
        try:
            doc = jsonstream.load(resp, max_value=4096)
        except jsonstream.JSONError:
            doc = None
        return resp.status, doc if isinstance(doc, dict) else None


def session(cfg, oauth):
    """(session token, api base) for the login oauth; raises ValueError
    with a line for a person."""
    if not oauth:
        raise ValueError("not logged in to GitHub (run: %s)" % LOGIN)
    s = _session
    if s[_LOGIN] == oauth and s[_TOKEN] and now() < s[_EXPIRES] - _REFRESH_S:
        return s[_TOKEN], s[_API]
    forget()
    h = {"Authorization": "token " + oauth, "Accept": "application/json"}
    h.update(HEADERS)
    base = (store.get("copilot.api") or API).rstrip("/")
    status, doc = _get(base + "/copilot_internal/v2/token", h, cfg["timeout"])
    doc = doc or {}
    said = _text(doc.get("message")).replace(oauth, "***")     # never echo the login
    if status == 401:
        raise ValueError("the GitHub login was refused (401 %s); run %s again" % (
            said or "bad credentials", LOGIN))
    if status != 200 or not isinstance(doc.get("token"), str):
        raise ValueError("no Copilot session for this GitHub login (%d %s)" % (
            status, said or "no token in the reply"))
    exp = doc.get("expires_at")
    ends = doc.get("endpoints")
    api = ends.get("api") if isinstance(ends, dict) else None
    s[_LOGIN], s[_TOKEN] = oauth, doc["token"]
    s[_EXPIRES] = exp if isinstance(exp, int) and not isinstance(exp, bool) else now() + 600
    s[_API] = api if isinstance(api, str) and api.startswith("http") else None
    return s[_TOKEN], s[_API]


def _text(v):
    return " ".join(v.split())[:200] if isinstance(v, str) else ""


def prepare(cfg, tools):
    """Make cfg ready for the Copilot API (key, base URL, headers, tools
    level): None, or the error line."""
    # the login: the key override, else the setting (cfg["key"] becomes
    # the session token; a renewal finds the login in cfg["oauth"])
    oauth = cfg.get("oauth") or cfg.get("key") or store.get("copilot.token")
    try:
        token, api = session(cfg, oauth)
        if api and "base_url" not in cfg["sources"]:
            cfg["base_url"] = api.rstrip("/")
        cfg["key"] = token
        cfg["oauth"] = oauth
        cfg["headers"] = HEADERS
        cfg["login"] = LOGIN
        cfg["renew"] = _renew
        if tools and "tools" not in cfg["sources"]:
            if _supports_tools(cfg) is False:
                cfg["tools_level"] = "text-fallback"
    except ValueError as e:
        return "%s: %s" % (cfg["provider"], e)
    except httpc.HTTPError as e:
        return "%s: GitHub: %s" % (cfg["provider"], e)
    return None


def _renew(cfg):
    """After the API refused the session token (401): a fresh one, which
    the driver tries once (None), or the error line. The login is kept:
    the token may have ended early, or a board whose clock was never set
    cannot tell that it expired."""
    _session[_TOKEN] = None
    return prepare(cfg, None)


def _supports_tools(cfg):
    """capabilities.supports.tool_calls of cfg's model (None: not listed)."""
    model = cfg["model"]
    if model in _tools:
        return _tools[model]
    at = [None, False]          # index of the model in data[], seen indexes

    def on_id(path, v):
        if v == model:
            at[0] = path[1]

    def on_tools(path, v):
        if v is True:
            at[1] = at[1] or []
            at[1].append(path[1])

    from ai.styles.oai import bearer_headers
    h = bearer_headers(cfg, "application/json")
    with httpc.request("GET", cfg["base_url"] + "/models", h, timeout=cfg["timeout"]) as resp:
        if resp.status != 200:
            return None
        jsonstream.select(resp, {"data[*].id": on_id,
                                 "data[*].capabilities.supports.tool_calls": on_tools},
                          max_value=1024)
    if at[0] is None:
        return None
    ok = bool(at[1]) and at[0] in at[1]
    _tools[model] = ok
    return ok
