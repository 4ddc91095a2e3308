"""Talk to large language models: one API over every provider style.

    reply, err, tool_calls = ai.ask(history, overrides=None)
    reply, err = ai.ask_simple("question", overrides=None)
    models, err = ai.fetch_models(provider="groq", key="...")
    ai.providers()

Expected failures come back as `err`, a line a person can act on that names
the provider; never as an exception (running out of memory included: the
line says what to make smaller). On success ask() appends the assistant
turn (with any data the provider needs echoed back) to `history`.

Memory: the reply's text goes to an Out (ai/styles) as it is read: bounded
by max_reply, streamed to the caller, and kept (RAM, then flash: a
store.Spool) only for the str that ask() returns, which is built after the
response is closed (a str is one block of RAM: the largest reply that can
be returned is bounded by the heap). With overrides keep=False nothing is
kept: ask() returns "" as the reply and a history that records to flash
(ai.history.Turn) gets the text as it arrives, so no reply size costs RAM.

This module is the driver: it resolves the settings, lets the style module
build the request as a jsonstream value tree, writes it to the socket piece
by piece with a Content-Length from a counting pass, retries what the
official SDKs retry, and words the errors. Styles only translate.
"""
import httpc
import jsonstream
from compat import VERSION as __version__  # noqa: F401  (ai.__version__)
from compat import collect, const, drive, lazy, left, ticks_ms, tighten, loosen
from ai.config import ConfigError, resolve, source
from ai.styles import LAST, Out, StyleError, load

_RETRIES = const(2)
_KEPT = const(120)            # characters of a failed request's error kept in LAST
_STOPPED = "stopped before the reply ended (Ctrl-C)"   # LAST[5] until the request ends
_MAX_WAIT_S = const(20)       # longest server-requested wait we sit through
_WHOLE_EVENT = const(512)     # (asyncio) an SSE event is parsed once it is whole
MAX_MODELS = 200      # ids kept from a model list by default (see ai/models.py)
KEEP = ("content-type", "retry-after", "retry-after-ms", "x-should-retry")


def _exchange(cfg, style, history, tools, out, streaming, opener=None):
    """One model request with retries, all within the deadline: a step
    generator (compat.drive; opener: the asyncio driver's connections,
    httpc.aio) that returns a Reply or raises StyleError with the line to
    show."""
    block = opener is None
    t0 = ticks_ms()
    attempt = 0
    # a key that can be renewed (a Copilot session token): once, on a 401
    renew = cfg.pop("renew", None)
    while True:
        url, headers, body = style.request(cfg, history, tools, streaming)
        size = jsonstream.encoded_len(body)
        if "_files" in cfg:     # files went in (ai/files.py): within the provider's limit
            from ai import files
            files.over(cfg, size)
        # what lives on (a new pooled connection) goes into the holes, not
        # into the middle of the free space a long reply text needs
        collect()
        try:
            resp = yield from httpc.steps(
                "POST", url, headers, (size, lambda w: jsonstream.dump(body, w, view=True)),
                keep=KEEP, timeout=cfg["timeout"], deadline=left(cfg["deadline"], t0),
                opener=opener)
        except httpc.HTTPError as e:
            raise StyleError(_errors().network_error(cfg, e))
        # sent: the request's value tree is not kept while the reply streams
        # (a retry asks the style again)
        headers = body = None
        done = False
        try:
            if resp.status == 200:
                if streaming and not resp.headers.get("content-type", "").startswith(
                        "application/json"):
                    # a text not kept in RAM (keep=False): once it flows,
                    # nothing read lives on (Out.add calls compat.stream_gc;
                    # ask() puts the GC setting back)
                    if out.spool is None:
                        out.stream_gc = False
                    # event/id lines are short: a small line buffer; the
                    # asyncio driver parses an event once it is there
                    # whole: room for the events of a chat
                    reply = yield from style.stream(
                        cfg, httpc.SSE(resp, 256, 0 if block else _WHOLE_EVENT), out, block)
                else:       # (also a server that ignored "stream": one reply)
                    reply = style.read_reply(cfg, resp, out)
                done = True
                return reply
            msg, hint, kind = style.error_info(resp.status, resp, resp.headers)
            errors = _errors()
            wait = errors.retry_wait(attempt, resp.status, resp.headers, hint)
            done = True
        except httpc.HTTPError as e:
            raise StyleError(_errors().network_error(cfg, e))
        except jsonstream.JSONError as e:
            raise StyleError("%s: bad reply (%s)" % (cfg["provider"], e))
        except StyleError as e:
            raise StyleError("%s: %s" % (cfg["provider"], e))
        finally:
            # a reply abandoned half way (error, Ctrl-C) is not drained
            resp.close(done)
        msg = errors.scrub(cfg, msg)
        if resp.status == 401 and renew is not None:
            err = renew(cfg)
            renew = None
            if err:
                raise StyleError(err)
            continue
        if (wait is None or attempt == _RETRIES or wait > _MAX_WAIT_S
                or wait >= left(cfg["deadline"], t0)):
            raise StyleError(errors.explain(cfg, resp.status, msg, kind, wait))
        collect()
        yield int(wait * 1000)      # (slept by the driver)
        attempt += 1


_FALLBACK_PARSE = const(8192)     # longest text-fallback reply searched for calls


_OOM = "out of memory (restart, or free memory: ai -new, ai tools clear)"


def _oom(cfg, out, tools):
    """The line for a MemoryError in a request: what to make smaller. (Not
    in ai/errors.py: with no heap left, importing it would fail.)"""
    if cfg is None:
        return _OOM
    what = cfg["provider"] + ": out of memory"
    if out is not None and out.size:
        return "%s after %d characters of the reply (lower %s, or %s)" % (
            what, out.size, source(cfg, "max_reply"), source(cfg, "max_tokens"))
    if tools:
        return what + " sending the request (offer fewer tools: ai tools clear; or start over: ai -new)"
    return what + " sending the request (a shorter conversation: ai -new)"


def _failed(cfg, err):
    """(None, err, None), err kept as the outcome of the request named in
    LAST (clipped: it stays for the session)."""
    if cfg is not None:
        LAST[5] = err if len(err) <= _KEPT else err[:_KEPT] + "..."
    return None, err, None


def ask(history, overrides=None):
    """Send the conversation; returns (reply, err, tool_calls)."""
    try:
        return drive(steps(history, overrides))
    except MemoryError:     # (before the steps began: the generator itself)
        collect()
        return None, _OOM, None


def steps(history, overrides=None, opener=None, hand=None):
    """ask() as a step generator (compat.drive; the asyncio driver, ai.aio,
    passes its opener; hand(out): the reply's Out as soon as it is made,
    for a stream left early to read what it kept)."""
    cfg = out = None
    tools = (overrides or ()) and overrides.get("tools")
    gc_was = tighten()
    try:
        o = overrides or {}
        try:
            cfg = resolve(o)
        except ConfigError as e:
            return None, str(e), None       # (nothing was asked: LAST stays)
        LAST[0], LAST[1], LAST[2] = cfg["use"], cfg["provider"], cfg["model"]
        LAST[3] = LAST[4] = None            # (in place: no list per request)
        LAST[5] = _STOPPED
        tools = o.get("tools")
        if isinstance(tools, str) or not tools:
            tools = None
        if "copilot" in cfg["quirks"]:     # a session behind a login first
            from ai import copilot
            err = copilot.prepare(cfg, tools)
            if err:
                return _failed(cfg, err)
        keep = o.get("keep") is not False
        stream = o.get("stream")
        sink = stream
        rec = None if keep else getattr(history, "record", None)   # a history on flash
        if rec is not None:
            sink = rec
            if stream is not None:
                def sink(piece):
                    stream(piece)
                    rec(piece)
        chk = None
        if o.get("schema") is not None:     # (ai/schema.py: the wire form, the check)
            from ai.schema import Check
            chk = Check(cfg, o, tools, sink)
            sink = chk.add
        fallback = None
        if tools and cfg["tools_level"] == "text-fallback":
            from ai.styles import text as fallback
            cfg["system"] = fallback.system_prompt(cfg.get("system"), tools)
            msgs, tools = fallback.History(history), None
        else:
            msgs = history
            if cfg["tools_level"] == "none":
                tools = None
        # the text fallback searches the text for calls: kept (on flash
        # already when the history records it)
        out = Out(cfg["max_reply"], sink, keep or (fallback is not None and rec is None))
        if hand is not None:
            hand(out)
        try:
            # (the asyncio driver always streams: its reads never wait;
            # Groq's structured replies come whole: ai/schema.py nostream)
            reply = yield from _exchange(cfg, load(cfg["style"]), msgs, tools, out,
                                         (stream is not None or opener is not None)
                                         and not (chk and chk.nostream), opener)
        finally:
            collect()
        err = chk and chk.end(reply, out.size)
        if err:
            out.drop()
            return _failed(cfg, err)
        if not out.size and not reply.calls:
            out.drop()
            return _failed(cfg, "%s: %s" % (cfg["provider"], _errors().empty_reason(cfg, reply)))
        if out.size and reply.finish in ("length", "filter") and chk is None:
            # the service cut the reply: said in the text, in every style
            mark = _errors().cut_mark(cfg, reply.finish)
            out.limit += len(mark)
            out.add(mark)
        # the text only now: the response is closed and collected
        if fallback and out.ticks and out.size <= _FALLBACK_PARSE:
            reply.text = out.text() if out.spool is not None else history.recorded()
            reply = fallback.parse(reply)
            if not keep and not reply.calls:
                reply.text = ""         # the caller has it: it streamed
        elif keep:
            reply.text = out.text()
        else:
            out.drop()
        reply.turn["content"] = reply.text
        history.append(reply.turn)
        LAST[5] = None
        return reply.text, None, reply.calls
    except StyleError as e:     # (the one exception class of ai: see ai/config.py)
        if out is not None:     # (None: a schema that cannot be used)
            out.drop()
        return _failed(cfg, _errors().scrub(cfg, str(e)))
    except MemoryError:
        reply = None
        if out is not None:
            out.drop()
        collect()
        try:
            return _failed(cfg, _oom(cfg, out, tools))
        except MemoryError:     # not even the line's words: a constant, no allocation
            err = _OOM
            if cfg is not None:
                LAST[5] = err
            return None, err, None
    finally:
        loosen(gc_was)


def _errors():
    from ai import errors       # (a request that goes well never needs it)
    return errors


def fetch_models(provider=None, key=None, use=None, limit=MAX_MODELS, base_url=None):
    """The provider's live model ids (at most `limit`): (models, err)."""
    gc_was = tighten()
    try:
        from ai.models import fetch_models
        return fetch_models(provider, key, use, limit, base_url)
    except MemoryError:
        collect()
        return None, "out of memory reading the model list (ask for fewer: limit=)"
    finally:
        loosen(gc_was)


def ask_json(prompt, schema, opts=None):
    """A reply that follows a JSON schema, as its value: (value, err).
    prompt: a question, or a history (as ai.ask's). schema: a JSON Schema
    (dict or JSON text) or llm's concise syntax (ai/schema.py). opts:
    ai.ask's overrides, and select={path: fn} (jsonstream.select's
    patterns): each value at a path goes to fn(path, value) once it is
    complete and checked, and nothing else is kept (value is None). The
    text is not kept for a question; for a history, as ai.ask keeps it."""
    try:
        return drive(json_steps(prompt, schema, opts))
    except MemoryError:     # (before the steps began: the generator itself)
        collect()
        return None, _OOM


def json_steps(prompt, schema, opts=None, opener=None):
    """ask_json() as a step generator (compat.drive; ai.aio passes its
    opener)."""
    o = dict(opts or {})
    o["schema"] = schema
    hist = prompt
    if isinstance(prompt, str):
        hist = [{"role": "user", "content": prompt}]
        if o.get("keep") is None:
            o["keep"] = False
    got = []
    if o.get("select") is None:
        o["select"] = {"": lambda path, v: got.append(v)}
    _, err, _ = yield from steps(hist, o, opener)
    return (None, err) if err else (got[0] if got else None, None)


def ask_simple(prompt, overrides=None):
    """One question, one answer: returns (reply, err)."""
    try:
        reply, err, _ = ask([{"role": "user", "content": prompt}], overrides)
    except MemoryError:
        collect()
        return None, _oom(None, None, None)
    return reply, err


def run(history, overrides=None, tools=None, mcps=None, max_rounds=8,
        approve=None, show=None, local=None):
    """The tool-use loop (see ai/loop.py): (reply, err). local=True (or
    "read"): the board's read-only console commands are tools too; "all":
    those that change something too, each call only after approve()."""
    try:
        return drive(run_steps(history, overrides, tools, mcps, max_rounds, approve, show, local))
    except MemoryError:     # (before the steps began: the generator itself)
        collect()
        return None, _OOM


def run_steps(history, overrides=None, tools=None, mcps=None, max_rounds=8,
              approve=None, show=None, local=None, opener=None):
    """run() as a step generator (compat.drive; ai.aio passes its opener)."""
    gc_was = tighten()
    try:
        from ai import loop
        return (yield from loop.run(history, overrides, tools, mcps, max_rounds, approve, show,
                                    local, opener))
    except MemoryError:
        collect()
        return None, ("out of memory running the tools (fewer tools: ai tools clear; "
                      "a smaller ai.max_tool_result; or start over: ai -new)")
    finally:
        loosen(gc_was)


def tools_cache_build(progress=None):
    """List every configured MCP server's tools into the cache: (count, err)."""
    gc_was = tighten()
    try:
        from ai.tools import tools_cache_build
        return tools_cache_build(progress)
    except MemoryError:
        collect()
        return 0, "out of memory listing the tools (fewer MCP servers: mcp del NAME)"
    finally:
        loosen(gc_was)


# The calls a chat never makes, imported on first use (CONTRIBUTING.md:
# Loading lazily); any other name is a submodule (from ai import loop).
__getattr__ = lazy((("edit", "ai.editor"), ("undo", "ai.editor"),
                    ("providers", "ai.models"),
                    ("register_tool", "ai.tools"), ("tools_cache", "ai.tools"),
                    ("tools_cache_clear", "ai.tools")), "ai")
