"""Talk to large language models: one API over every provider style.

    reply, err, tool_calls = ai.ask(history, overrides=None)
    reply, err = ai.ask_simple("question", overrides=None)
    models, err = ai.fetch_models(provider="groq", key="...")
    ai.providers()

Expected failures come back as `err`, a line a person can act on that names
the provider; never as an exception. On success ask() appends the assistant
turn (with any data the provider needs echoed back) to `history`.

This module is the driver: it resolves the settings, lets the style module
build the request as a jsonstream value tree, writes it to the socket piece
by piece with a Content-Length from a counting pass, retries what the
official SDKs retry, and words the errors. Styles only translate.
"""
import httpc
import jsonstream
from compat import sleep_ms, collect, const, ticks_ms, ticks_diff
from ai import catalog
from ai.config import ConfigError, resolve, source
from ai.styles import StyleError, load

_RETRIES = const(2)
_MAX_WAIT_S = const(20)       # longest server-requested wait we sit through
MAX_MODELS = 200      # ids kept from a model list (about 40 bytes each)
_MAX_PAGES = const(50)
KEEP = ("content-type", "retry-after", "retry-after-ms", "x-should-retry")


class AIError(Exception):
    pass


def providers():
    """The catalogue: a list of dicts (id, name, style, base_url, key,
    model, tools, local)."""
    return [catalog.entry(p) for p in catalog.PROVIDERS]


def _scrub(cfg, msg):
    """msg without any secret (store.scrub: every configured key and token,
    and the key in use)."""
    import store
    return store.scrub(msg, cfg.get("key"))


def _retry_wait(attempt, status, headers, hint):
    """Seconds to wait before retrying, or None when the reply is final."""
    should = headers.get("x-should-retry")
    if should == "false":
        return None
    if status not in (408, 409, 429, 500, 502, 503, 504, 529) and should != "true":
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


def _explain(cfg, status, msg, kind, wait):
    head = "%s: %d %s" % (cfg["provider"], status, msg or "error")
    if cfg.get("login") and status in (401, 403):
        return "%s (run: %s)" % (head, cfg["login"])
    if status in (401, 403) or kind == "key":
        return "%s (check %s)" % (head, source(cfg, "key"))
    if status == 404 or kind == "model":
        return "%s (check %s)" % (head, source(cfg, "model"))
    if status == 429:
        return head + (" (rate limited; retry in %d s)" % wait if wait else " (rate limited; try again later)")
    if status == 529 or status >= 500:
        return head + " (the service is overloaded or failing; try again later)"
    return head


def _left(cfg, t0):
    """Seconds left of cfg's deadline that started at ticks t0 (0 when it
    has passed: httpc then fails at once with kind "deadline")."""
    return max(cfg["deadline"] - ticks_diff(ticks_ms(), t0) / 1000, 0)


def _exchange(cfg, style, history, tools, sink):
    """One model request with retries, all within the deadline. Returns a
    Reply or raises AIError."""
    streaming = sink is not None
    t0 = ticks_ms()
    for attempt in range(_RETRIES + 1):
        url, headers, body = style.request(cfg, history, tools, streaming)
        size = jsonstream.encoded_len(body)
        try:
            resp = httpc.request("POST", url, headers,
                                 (size, lambda w: jsonstream.dump(body, w)),
                                 keep=KEEP, timeout=cfg["timeout"],
                                 deadline=_left(cfg, t0))
        except httpc.HTTPError as e:
            raise AIError(_network_error(cfg, e))
        done = False
        try:
            if resp.status == 200:
                if streaming:
                    # event/id lines are short: a small line buffer
                    reply = style.read_stream(cfg, httpc.SSE(resp, 256), sink)
                else:
                    reply = style.read_reply(cfg, resp)
                done = True
                return reply
            msg, hint, kind = style.error_info(resp.status, resp, resp.headers)
            wait = _retry_wait(attempt, resp.status, resp.headers, hint)
            done = True
        except httpc.HTTPError as e:
            raise AIError(_network_error(cfg, e))
        except jsonstream.JSONError as e:
            raise AIError("%s: bad reply (%s)" % (cfg["provider"], e))
        except StyleError as e:
            raise AIError("%s: %s" % (cfg["provider"], e))
        finally:
            # a reply abandoned half way (error, Ctrl-C) is not drained
            resp.close(done)
        msg = _scrub(cfg, msg)
        if (wait is None or attempt == _RETRIES or wait > _MAX_WAIT_S
                or wait >= _left(cfg, t0)):
            raise AIError(_explain(cfg, resp.status, msg, kind, wait))
        collect()
        sleep_ms(int(wait * 1000))


def _network_error(cfg, e):
    if e.kind == "deadline":
        return "%s: no complete reply within %d s (raise %s)" % (
            cfg["provider"], cfg["deadline"], source(cfg, "deadline"))
    msg = "%s: %s" % (cfg["provider"], _scrub(cfg, str(e)))
    if e.kind == "timeout":
        return "%s (raise %s)" % (msg, source(cfg, "timeout"))
    if cfg["local"] and e.kind in ("connect", "dns"):
        return "%s (is %s running? or run: ai config %s)" % (msg, cfg["name"], cfg["use"])
    return msg


def _empty_reason(reply):
    f = reply.finish or "unknown"
    if f == "length":
        return "empty reply: max tokens reached (raise the max_tokens setting)"
    if f.startswith("blocked"):
        return "prompt blocked (%s)" % f[8:]
    if f == "filter":
        return "empty reply: blocked by the content filter"
    return "empty reply (finish reason: %s)" % f


def ask(history, overrides=None):
    """Send the conversation; returns (reply, err, tool_calls)."""
    o = overrides or {}
    try:
        cfg = resolve(o)
    except ConfigError as e:
        return None, str(e), None
    tools = o.get("tools")
    if isinstance(tools, str) or not tools:
        tools = None
    if "copilot" in cfg["quirks"]:     # a session behind a login first
        from ai import copilot
        err = copilot.prepare(cfg, tools)
        if err:
            return None, err, None
    fallback = None
    if tools and cfg["tools_level"] == "text-fallback":
        from ai.styles import text as fallback
        cfg["system"] = fallback.system_prompt(cfg.get("system"), tools)
        msgs, tools = fallback.History(history), None
    else:
        msgs = history
        if cfg["tools_level"] == "none":
            tools = None
    try:
        style = load(cfg["style"])
        reply = _exchange(cfg, style, msgs, tools, o.get("stream"))
        if fallback:
            reply = fallback.parse(reply)
    except AIError as e:
        return None, _scrub(cfg, str(e)), None
    finally:
        collect()
    if not reply.text and not reply.calls:
        return None, "%s: %s" % (cfg["provider"], _empty_reason(reply)), None
    history.append(reply.turn)
    return reply.text, None, reply.calls


def ask_simple(prompt, overrides=None):
    """One question, one answer: returns (reply, err)."""
    reply, err, _ = ask([{"role": "user", "content": prompt}], overrides)
    return reply, err


def fetch_models(provider=None, key=None, use=None, limit=MAX_MODELS):
    """The provider's live model ids (at most `limit`): (models, err)."""
    o = {"provider": provider, "key": key, "use": use}
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
    try:
        for _ in range(_MAX_PAGES):
            url, headers = style.models_request(cfg, token)
            with httpc.request("GET", url, headers, keep=KEEP, timeout=cfg["timeout"],
                               deadline=_left(cfg, t0)) as resp:
                if resp.status != 200:
                    msg, _, kind = style.error_info(resp.status, resp, resp.headers)
                    return None, _explain(cfg, resp.status, _scrub(cfg, msg), kind, None)
                token = style.read_models(cfg, resp, add)
            if not token or len(found) >= limit:
                break
    except httpc.HTTPError as e:
        return None, _network_error(cfg, e)
    except (jsonstream.JSONError, StyleError) as e:
        return None, _scrub(cfg, "%s: bad model list (%s)" % (cfg["provider"], e))
    return found, None


def run(history, overrides=None, tools=None, mcps=None, max_rounds=8,
        approve=None, show=None):
    """The tool-use loop (see ai/loop.py): (reply, err)."""
    from ai import loop
    return loop.run(history, overrides, tools, mcps, max_rounds, approve, show)


def edit(path, start=None, end=None, where="replace", instruction=None, overrides=None):
    """Change lines start..end of a file with the model (see ai/editor.py):
    (summary, err); the file is unchanged on any failure."""
    from ai import editor
    return editor.edit(path, start, end, where, instruction, overrides)


def undo():
    """Put back the file the last edit changed: (summary, err)."""
    from ai import editor
    return editor.undo()


def register_tool(name, description, parameters, run):
    from ai import loop
    loop.register_tool(name, description, parameters, run)


def tools_cache_build(progress=None):
    from ai import toolcache
    return toolcache.build(progress)


def tools_cache():
    from ai import toolcache
    return toolcache.entries()


def tools_cache_clear():
    from ai import toolcache
    toolcache.clear()
