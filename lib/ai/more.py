"""The driver's rarely used paths (ai/__init__.py), imported on first use so
that a chat pays no heap for them: error wording (HTTP errors, network
errors, empty replies), the wait before a retry,
the catalogue as dicts, the live model list, building and listing the
tools cache (ai/toolcache.py); and the public calls a chat never makes
(ai.providers, register_tool, tools_cache, tools_cache_clear:
ai/__init__.py's __getattr__ finds them here)."""
import httpc
import jsonstream
from compat import collect, const, ticks_ms
from ai import catalog
from ai.config import ConfigError, resolve, source
from ai.styles import StyleError, load

_MAX_PAGES = const(50)


def providers():
    """ai.providers(): the catalogue: a list of dicts (id, name, style, base_url, key,
    model, tools, local)."""
    return [catalog.entry(p) for p in catalog.PROVIDERS]


def scrub(cfg, msg):
    """msg without any secret (store.scrub: every configured key and token,
    and the key in use)."""
    import store
    return store.scrub(msg, cfg.get("key"))


RETRIED = (408, 409, 429, 500, 502, 503, 504, 529)     # statuses worth another try


def retry_wait(attempt, status, headers, hint):
    """Seconds to wait before retrying, or None when the reply is final."""
    should = headers.get("x-should-retry")
    if should == "false":
        return None
    if status not in RETRIED and should != "true":
        return None
    wait = None
    try:
        if "retry-after-ms" in headers:
            wait = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            wait = float(headers["retry-after"])
    except ValueError:
        pass  # an HTTP date: use our own backoff
    if wait is None:
        wait = hint
    if wait is None:
        wait = min(0.5 * (2 ** attempt), 8)
    return max(wait, 0)


def explain(cfg, status, msg, kind, wait):
    """The line for an error reply; kind "list": to the model list."""
    head = "%s: %d %s" % (cfg["provider"], status, msg or "error")
    if cfg.get("login") and status in (401, 403):
        return "%s (run: %s)" % (head, cfg["login"])
    if status in (401, 403) or kind == "key":
        return "%s (check %s)" % (head, source(cfg, "key"))
    if status == 404 and kind == "list":
        return "%s (no model list at %s: check %s, or type a model id)" % (
            head, cfg["base_url"], source(cfg, "base_url"))
    if status == 404 or kind == "model":
        return "%s (check %s)" % (head, source(cfg, "model"))
    if status == 429:
        return head + (" (rate limited; retry in %d s)" % wait if wait else " (rate limited; try again later)")
    if status >= 500 and status in RETRIED:
        return head + " (the service is overloaded or failing; try again later)"
    return head


def wizard(cfg):
    """The command that sets up what resolved: `ai config` for ai.general
    (the fallback of every use-type), `ai config USE` when the use-type
    names its own provider."""
    p = cfg["sources"].get("provider") or ""
    return "ai config" + ("" if p.startswith("ai.general.") or not p.startswith("ai.")
                          else " " + cfg["use"])


def no_key(cfg, owners):
    """The error for a provider that needs a key and has none: the setting
    to make when the settings chose it; else (an override, a preset) what
    the settings are set up for, whose key is not sent to it."""
    pid = cfg["provider"]
    if (cfg["sources"].get("provider") or "").startswith("ai."):
        return "%s: no API key (set %s or run: %s)" % (pid, source(cfg, "key"), wizard(cfg))
    use = cfg["use"]
    mine = owners.get(use)
    if mine:
        return "%s: no API key (the %s settings are for %s; set up %s with: ai config)" % (
            pid, "ai.general" if mine == owners.get("general") else "ai." + use, mine, pid)
    return "%s: no API key (set up %s with: ai config)" % (pid, pid)


def network_error(cfg, e):
    if e.kind == "deadline":
        return "%s: no complete reply within %d s (raise %s)" % (
            cfg["provider"], cfg["deadline"], source(cfg, "deadline"))
    msg = "%s: %s" % (cfg["provider"], scrub(cfg, str(e)))
    if e.kind == "timeout":
        return "%s (raise %s)" % (msg, source(cfg, "timeout"))
    if cfg["local"] and e.kind in ("connect", "dns"):
        return "%s (is %s running? or run: %s)" % (msg, cfg["name"], wizard(cfg))
    return msg


def empty_reason(cfg, reply):
    f = reply.finish or "unknown"
    if f == "length":
        return "empty reply: max tokens reached (raise %s)" % source(cfg, "max_tokens")
    if f.startswith("blocked"):
        return "prompt blocked (%s)" % f[8:]
    if f == "filter":
        return "empty reply: blocked by the content filter"
    return "empty reply (finish reason: %s)" % f


def cut_mark(cfg, finish):
    """The line after a reply the service cut short (finish "length" or
    "filter")."""
    if finish == "filter":
        return "\n\n[reply cut short by the content filter]"
    return "\n\n[reply cut short: max tokens reached (raise %s)]" % source(cfg, "max_tokens")


def fetch_models(provider, key, use, limit, base_url=None):
    """The provider's live model ids (at most `limit`): (models, err)."""
    from ai import KEEP
    o = {"provider": provider, "key": key, "use": use, "base_url": base_url}
    try:
        cfg = resolve(o)
        style = load(cfg["style"])
    except ConfigError as e:
        return None, str(e)
    if "copilot" in cfg["quirks"]:
        from ai import copilot
        err = copilot.prepare(cfg, None)
        if err:
            return None, err
    found = []

    def add(mid):
        if len(found) < limit:
            found.append(mid)

    token = None
    t0 = ticks_ms()
    from ai import _left
    try:
        for _ in range(_MAX_PAGES):
            url, headers = style.models_request(cfg, token)
            with httpc.request("GET", url, headers, keep=KEEP, timeout=cfg["timeout"],
                               deadline=_left(cfg, t0)) as resp:
                if resp.status != 200:
                    msg, _, kind = style.error_info(resp.status, resp, resp.headers)
                    return None, explain(cfg, resp.status, scrub(cfg, msg),
                                         "list" if resp.status == 404 else kind, None)
                token = style.read_models(cfg, resp, add)
            if not token or len(found) >= limit:
                break
    except httpc.HTTPError as e:
        return None, network_error(cfg, e)
    except (jsonstream.JSONError, StyleError) as e:
        return None, scrub(cfg, "%s: bad model list (%s)" % (cfg["provider"], e))
    except MemoryError:
        n = len(found)
        found = None
        collect()
        return None, "%s: out of memory after %d models (ask for fewer: limit=%d)" % (
            cfg["provider"], n, n // 2)
    return found, None


def tools_cache_build(progress):
    """List the tools of every configured MCP server into the cache file:
    (count, err). Servers that fail are reported in err; the rest are kept.
    The old cache stays until the new one is complete."""
    import mcp
    import store
    from ai.loop import CACHE
    from ai.toolcache import Tools
    path = store.path(CACHE)
    w = Tools(path + ".tmp", True)
    errors = []
    try:
        for s in mcp.servers():
            n, err = w.list(s["name"])
            if err:
                errors.append(err)
            elif progress:
                progress(s["name"], n)
    finally:
        w.close()
    store.replace(path + ".tmp", path)
    return w.count, ("; ".join(errors) or None)


def tools_cache_lines():
    """(server, tool definition) of every cached tool, a line at a time;
    parameters is a jsonstream.RawFile of the schema's JSON text (the
    console's ai tools list)."""
    import store
    from ai.loop import CACHE
    from ai.toolcache import Tools
    for d in Tools(store.path(CACHE)):
        if d.get("name"):
            yield d["server"], d


def tools_cache():
    """ai.tools_cache(): [(server, tool definition with "name" as offered and
    "remote")] or []."""
    from ai import lines
    out = []
    for server, d in tools_cache_lines():
        d["parameters"] = lines.load(d["parameters"])
        out.append((server, d))
    return out


def tools_cache_clear():
    """ai.tools_cache_clear(): remove the cache (chats offer no MCP tools)."""
    import store
    from ai.loop import CACHE
    store.remove(store.path(CACHE))


def tools_cache_drop(server):
    """Remove the tools of server from the tools cache (mcp del, mcp add
    over the name): the count removed. The kept lines are copied as they
    are, a line at a time."""
    import store
    from ai import lines
    from ai.loop import CACHE
    p = store.path(CACHE)
    keep = []       # (offset, length) of the lines kept: 256 at most
    n = 0
    for a, k, m in lines.read(p, "parameters", 0, at=True):
        if m.get("server") == server:
            n += 1
        else:
            keep.append((a, k))
    if n:
        def write(w):
            for a, k in keep:
                store.copy(p, w, a, k)
        store.write_atomic(p, write)
    return n


def register_tool(name, description, parameters, run):
    """ai.register_tool(): offer a Python callable as a tool, run(args_dict)
    -> str, named by string in ai.run(tools=[...]) (ai/loop.py)."""
    from ai import loop
    loop._LOCAL[name] = {"name": name, "description": description,
                        "parameters": parameters, "run": run}
