"""The `ai` console command: chat, history, the config wizard, models, tools.

    ai QUESTION              continue the conversation of use-type chat
    ai -u TYPE QUESTION      the same for another use-type (code, ...)
    ai -new [QUESTION]       forget the conversation first
    ai history [TYPE]        show the conversation
    ai config [TYPE]         wizard: provider, key, model, test, tool probe
                             (no TYPE: ai.general, the fallback of every type)
    ai models [PROVIDER]     the provider's live model list
    ai -tools                build the tools cache from every MCP server
    ai tools list|clear      show / remove the tools cache

A question becomes one turn of lib/ai/history.py: the saved conversation is
streamed from flash into the request, the reply streams to the terminal
through the markdown renderer (shell/md.py) with a spinner until the first
piece, and only a completed turn is written back (Ctrl-C or an error leave
no half turn). The file is then trimmed to ai.history.bytes /
ai.history.turns. When the tools cache exists, ai.run offers those tools;
before each call the setting ai.tools.approve decides: ask (default: y / n /
a = always for that tool, remembered in ai.tools.allow), always, never.
"""
import shell
import store
from shell import term
from compat import const

_HISTORY_BYTES = const(16384)   # default of ai.history.bytes
_HISTORY_TURNS = const(20)      # default of ai.history.turns
_LINE = const(72)               # width of one-line summaries
PING = {"name": "ping", "description": "Answers pong. Call it when asked to.",
        "parameters": {"type": "object", "properties": {}}}


def main(args):
    if not args:
        raise shell.UsageError("ask a question, e.g. ai what is MicroPython?")
    sub = args[0]
    if sub == "history":
        return history(args[1] if len(args) > 1 else "chat")
    if sub == "config":
        return config(args[1] if len(args) > 1 else "general")
    if sub == "models":
        return models(args[1] if len(args) > 1 else None)
    if sub == "tools":
        return tools_clear() if args[1] == "clear" else tools_list()
    if sub == "-tools":
        return tools_build()
    use, new, question = _options(sub)
    if question == "history":
        return history(use)
    if new:
        from ai.history import History
        History(use).clear()
        if not question:
            shell.out("new conversation (%s)" % use)
            return
    if not question:
        raise shell.UsageError("missing question")
    chat(use, question)


def _options(text):
    """-u TYPE and -new in front of the question -> (use, new, question)."""
    use, new = "chat", False
    s = text.strip()
    while s.startswith("-"):
        word, rest = _split1(s)
        if word == "-new":
            new = True
        elif word == "-u":
            use, rest = _split1(rest)
            if not use:
                raise shell.UsageError("-u needs a use-type, e.g. -u code")
            _check_use(use)
        else:
            raise shell.UsageError("unknown option " + word)
        s = rest.strip()
    return use, new, s


def _split1(s):
    """(first word, the rest) of s."""
    s = s.strip()
    i = s.find(" ")
    return (s, "") if i < 0 else (s[:i], s[i + 1:])


def _check_use(use):
    ok = 0 < len(use) <= 16
    for c in use:
        ok = ok and (c.isalpha() or c.isdigit() or c in "-_")
    if not ok:
        raise shell.UsageError("a use-type is 1 to 16 letters, digits, - or _")


def _k(use, field):
    return "ai.%s.%s" % (use, field)


def _int_setting(key, default):
    try:
        v = int(store.get(key, default))
        return v if v > 0 else default
    except (TypeError, ValueError):
        return default


def _dim(s):
    return "\x1b[2m" + s + "\x1b[0m" if shell.tty() else s


def _red(s):
    return "\x1b[31m" + s + "\x1b[0m" if shell.tty() else s


def _short(text, width=_LINE):
    text = (text or "").replace("\r", " ").replace("\n", " ").strip()
    return text if len(text) <= width else text[:width - 3] + "..."


# -- tool approval -----------------------------------------------------------

def _allowed():
    v = store.get("ai.tools.allow") or ""
    return [n for n in str(v).split(",") if n]


def _approver(screen):
    mode = store.get("ai.tools.approve") or "ask"
    if mode not in ("ask", "always", "never"):
        shell.err("ai.tools.approve is %r; use ask, always or never (asking)" % mode)
        mode = "ask"

    def approve(call):
        screen.end()
        label = "%s %s" % (call["name"], _short(call.get("args") or "{}", 48))
        if mode == "never":
            shell.out(_dim("  tool %s refused (ai.tools.approve = never)" % label))
            return False
        if mode == "always" or call["name"] in _allowed():
            shell.out(_dim("  -> " + label))
            screen.wait("running " + call["name"])
            return True
        c = term.ask("  run %s? [y]es [n]o [a]lways: " % label, "yna")
        if c == "a":
            allow = _allowed()
            allow.append(call["name"])
            store.set("ai.tools.allow", ",".join(allow))
        if c in ("y", "a"):
            screen.wait("running " + call["name"])
            return True
        return False

    def show(call, text, bad):
        screen.end()
        if bad:
            shell.out(_red("  x " + _short(text, _LINE - 4)))
        else:
            shell.out(_dim("  <- " + _short(text, _LINE - 5)))
        screen.wait()

    return approve, show


# -- chat ---------------------------------------------------------------------

def chat(use, question):
    import ai
    from ai.history import History
    h = History(use)
    turn = h.turn({"role": "user", "content": question})
    from shell import md
    screen = md.Screen()
    approve, show = _approver(screen)
    screen.wait()
    try:
        reply, err = ai.run(turn, {"use": use, "stream": screen.sink},
                            approve=approve, show=show)
    except KeyboardInterrupt:
        screen.end()
        shell.out(_red("^C") + " cancelled (the conversation is unchanged)")
        return
    finally:
        screen.end()
    if err:
        raise shell.Error(err)
    if reply and not screen.pieces:       # not streamed (text fallback)
        screen.sink(reply)
        screen.end()
    turn.commit()
    h.trim(_int_setting("ai.history.bytes", _HISTORY_BYTES),
           _int_setting("ai.history.turns", _HISTORY_TURNS))


def history(use):
    _check_use(use)
    from ai.history import History
    from shell import md
    h = History(use)
    turns = 0
    for m in h:
        role = m.get("role")
        text = m.get("content") or ""
        if role == "user":
            turns += 1
            shell.out(("\x1b[1;32myou>\x1b[0m " if shell.tty() else "you> ") + text)
        elif role == "assistant":
            if text:
                shell.write("\x1b[1;36mai>\x1b[0m " if shell.tty() else "ai> ")
                r = md.Render(shell.write, shell.tty())
                r.feed(text)
                r.close()
            for c in m.get("tool_calls") or ():
                shell.out(_dim("  -> %s %s" % (c.get("name"), _short(c.get("args"), 48))))
        elif role == "tool":
            line = _short(text, _LINE - 5)
            shell.out(_red("  x " + line) if m.get("is_error") else _dim("  <- " + line))
    if not turns:
        shell.out("no conversation for %s yet" % use)
        return
    shell.out(_dim("%s: %d turn%s, %d bytes (ai -new starts over)" % (
        use, turns, "" if turns == 1 else "s", h.size())))


# -- models ---------------------------------------------------------------------

def _columns(items, mark=None):
    if not items:
        return
    w = min(max(len(s) for s in items) + 2, 40)
    per = max(1, 78 // w)
    row = []
    for s in items:
        s = s if len(s) < w else s[:w - 4] + "..."
        if s == mark:
            s = s + "*"
        row.append(s + " " * (w - len(s)))
        if len(row) == per:
            shell.out("".join(row).rstrip())
            row = []
    if row:
        shell.out("".join(row).rstrip())


def models(provider=None):
    import ai
    from ai import catalog
    if provider and catalog.find(provider) is None:
        raise shell.Error("unknown provider %s (known: %s)" % (provider, ", ".join(catalog.ids())))
    found, err = term.busy("fetching the model list", ai.fetch_models, provider=provider)
    if err:
        raise shell.Error(err)
    from ai.config import resolve, ConfigError
    try:
        cfg = resolve({"provider": provider})
        name, current = cfg["provider"], cfg["model"]
    except ConfigError:
        name, current = provider, None
    _columns(found, current)
    shell.out("%s: %d model%s%s" % (name, len(found), "" if len(found) == 1 else "s",
                                    " (* in use)" if current in found else ""))


# -- tools cache -------------------------------------------------------------------

def tools_build():
    import ai
    import mcp
    servers = mcp.servers()
    if not servers:
        raise shell.Error("no MCP servers; add one with: mcp add NAME URL [TOKEN]")
    spin = [term.Spinner("listing tools of %d server%s" % (
        len(servers), "" if len(servers) == 1 else "s"))]

    def progress(name, n):
        spin[0].stop()
        shell.out("  %s: %d tool%s" % (name, n, "" if n == 1 else "s"))
        spin[0] = term.Spinner("listing tools")

    try:
        count, err = ai.tools_cache_build(progress)
    finally:
        spin[0].stop()
    if err:
        shell.err(err)
    if count or not err:
        shell.out("tools cache: %d tool%s; every ai chat offers them (ai tools list)" % (
            count, "" if count == 1 else "s"))


def tools_list():
    import ai
    items = ai.tools_cache()
    if not items:
        shell.out("no tools cache; build it with: ai -tools")
        return
    for server, d in items:
        shell.out("%-24s %s" % (d["name"], _dim("(" + server + ")")))
        desc = _short(d.get("description"), _LINE - 4)
        if desc:
            shell.out("    " + desc)
    shell.out("%d tool%s" % (len(items), "" if len(items) == 1 else "s"))


def tools_clear():
    import ai
    ai.tools_cache_clear()
    shell.out("tools cache removed; chats offer no MCP tools (ai -tools builds it)")


# -- ai config: the wizard -----------------------------------------------------------

def _read(prompt, mask=False):
    line = term.masked(prompt) if mask else term.readline(prompt)
    if line is None:
        raise KeyboardInterrupt
    return line.strip()


def config(use):
    _check_use(use)
    try:
        _wizard(use)
    except KeyboardInterrupt:
        shell.out("cancelled; the settings are unchanged")


def _wizard(use):
    import ai
    from compat import ticks_ms, ticks_diff
    provs = ai.providers()
    cur = store.get(_k(use, "provider"))
    shell.out("ai config %s: Enter keeps [the value shown], Ctrl-C cancels" % use)
    labels = []
    for p in provs:
        labels.append("%-10s %s%s" % (p["id"], p["name"], "  (current)" if p["id"] == cur else ""))
    i = term.menu(labels, "Provider:")
    if i is None:
        raise KeyboardInterrupt
    p = provs[i]
    pid, same = p["id"], p["id"] == cur
    url0 = (store.get(_k(use, "base_url")) if same else None) or p["base_url"]
    url = _read("Base URL [%s]: " % url0) or url0
    if not (url.startswith("http://") or url.startswith("https://")):
        raise shell.Error("the base URL must start with http:// or https://; nothing changed")
    key = None
    if p["key"]:
        key0 = store.get(_k(use, "key")) if same else None
        key = _read("API key%s: " % ((" [%s]" % store.mask(key0)) if key0 else ""), True) or key0
        if not key:
            raise shell.Error("%s needs an API key; nothing changed" % p["name"])
    model0 = store.get(_k(use, "model")) if same else None
    tag = "current" if model0 else "default"
    model0 = model0 or p["model"]
    # Settings are written while the wizard tests them; the old values go
    # back unless the wizard gets to the end (old is emptied then).
    old = {}

    def put(fields):
        pairs = {}
        for f in fields:
            k = _k(use, f)
            if k not in old:
                old[k] = store.get(k)
            pairs[k] = fields[f]
        store.update(pairs)

    try:
        put({"provider": pid, "key": key, "model": None, "tools": "native",
                     "base_url": None if url == p["base_url"] else url})
        model = _pick_model(ai, use, model0, tag)
        put({"model": model})

        t0 = ticks_ms()
        reply, err = term.busy("testing %s" % model, ai.ask_simple,
                               "Reply with one word: ready", {"use": use})
        ms = ticks_diff(ticks_ms(), t0)
        if err:
            shell.err("test failed: " + err)
            if term.ask("save anyway? [y/n]: ", "yn", "n") != "y":
                shell.out("nothing changed")
                return
            level = None
        else:
            shell.out("test: %s replied %r in %d ms" % (model, _short(reply, 40), ms))
            level = _probe(ai, use)
        put({"tools": level})
        old = None
    finally:
        if old:
            store.update(old)
    shell.out("saved ai.%s: provider %s, model %s%s%s" % (
        use, pid, model, (", key " + store.mask(key)) if key else "",
        (", tools " + level) if level else ""))


def _pick_model(ai, use, model0, tag):
    found, err = term.busy("fetching the model list", ai.fetch_models, use=use)
    if err or not found:
        shell.err("no model list (%s); type a model id" % (err or "the list is empty"))
        return _read("Model [%s]: " % model0) or model0
    labels = [m + ("  (%s)" % tag if m == model0 else "") for m in found]
    r = term.menu(labels, "Models (%d); Enter at the end or q keeps %s:" % (len(found), model0),
                  typed=True)
    if r is None:
        return model0
    if isinstance(r, str):
        return r
    return found[r]


def _probe(ai, use):
    """Ask once with a tool offered: native tool calling, or the text
    fallback when the provider refuses tools. -> level or None (unknown)."""
    _, err, calls = term.busy("checking tool calling", ai.ask,
                              [{"role": "user", "content": "Call the tool named ping now."}],
                              {"use": use, "tools": [PING]})
    if calls:
        shell.out("tools: native tool calling works")
        return "native"
    if err:
        low = err.lower()
        if " 400" in err or " 422" in err or "tool" in low or "function" in low:
            shell.out("tools: no native tool calling (%s); using the text fallback" % _short(err, 60))
            return "text-fallback"
        shell.err("tools: could not probe (%s); the catalogue default applies" % _short(err, 60))
        return None
    shell.out("tools: native (the model answered without calling the probe tool)")
    return "native"
