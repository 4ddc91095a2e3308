"""The `ai` console commands about providers and models (imported by
shell/aicmd.py for them only: a chat does not pay for them):

    ai config [TYPE]     the wizard: provider, base URL, key, model, a test
                         and a tool probe, then one write of the settings
    ai models [PROVIDER] the provider's live model list (* = in use)
    ai login copilot     GitHub's device flow (lib/ai/login.py): shows the
                         code and the page to enter it on, waits for GitHub
                         (Ctrl-C cancels), saves copilot.token
    ai presets           the model presets: name, provider, model, thinking map

The code and the address come from the network: they are printed through
the console's sanitizer like any outside text.
"""
import shell
from shell import out, Error, count as _n
from shell import term
from shell.aicmd import short
import store
from compat import const, sleep_ms, ticks_ms, ticks_diff

_STEP_MS = const(100)       # how often a wait looks for Ctrl-C


def login(args):
    provider = args[1] if len(args) > 1 else ""
    if provider != "copilot":
        raise Error("only copilot logs in (%s takes an API key: ai config)" % (
            provider or "a provider"))
    from ai import login as flow
    t0 = ticks_ms()
    spin = [term.Spinner("asking GitHub for a code")]

    def show(code, uri, secs):
        spin[0].stop()
        out("Open %s and enter the code %s (it expires in %d min)." % (
            uri, code, max(1, secs // 60)))
        spin[0] = term.Spinner("waiting for GitHub (Ctrl-C cancels)")

    def wait(s):
        start = ticks_ms()
        while ticks_diff(ticks_ms(), start) < s * 1000:
            spin[0].turn() if spin[0].on else term.check_interrupt()
            sleep_ms(_STEP_MS)

    try:
        err = flow.copilot(show, wait, lambda: ticks_diff(ticks_ms(), t0) / 1000)
    except KeyboardInterrupt:
        spin[0].stop()
        shell.write("^C", shell.RED)
        return out(" cancelled; the login is unchanged")
    finally:
        spin[0].stop()
    if err:
        raise Error("copilot: " + err)
    out("logged in to GitHub (copilot.token, shown masked); try: ai -m copilot-mini hello")


def presets(args):
    from ai import catalog
    rows = catalog.PRESETS.split("\n")
    for row in rows:
        name, provider, model, tmap = row.split()
        out("%-14s %-10s %-26s %s" % (name, provider, model,
                                       "" if tmap == "none" else "thinking: " + tmap))
    out("%s; use one as ai -m NAME[,thinking=low][,model=ID] QUESTION or in ai.<use>.model"
        % shell.count(len(rows), "preset"), shell.DIM)


def models(args):
    import ai
    provider = args[1] if len(args) > 1 else None
    from ai import catalog
    if provider and catalog.find(provider) is None:
        raise Error("unknown provider %s (known: %s)" % (provider, ", ".join(catalog.ids())))
    found, err = term.busy("fetching the model list", ai.fetch_models, provider=provider)
    if err:
        raise Error(err)
    from ai.config import resolve, ConfigError
    try:
        cfg = resolve({"provider": provider})
        name, current = cfg["provider"], cfg["model"]
    except ConfigError:
        name, current = provider, None
    from ai.files import sees
    seen = 0
    if found:       # in columns, the model in use marked "*", one that sees pictures "+"
        w = min(max(len(s) for s in found) + 3, 40)
        per = max(1, 78 // w)
        row = []
        for m in found:
            s = m if len(m) < w - 1 else m[:w - 5] + "..."
            if m == current:
                s = s + "*"
            if sees(name, m) and "if the model" not in sees(name, m):
                s += "+"
                seen += 1
            row.append(s + " " * (w - len(s)))
            if len(row) == per:
                out("".join(row).rstrip())
                row = []
        if row:
            out("".join(row).rstrip())
    said = sees(name, "") or ""
    out("%s: %s%s%s" % (name, _n(len(found), "model"),
                        " (* in use)" if current in found else "",
                        ("; + sees pictures" if seen else "") + (
                            "; pictures go to any model, the server says whether it sees them"
                            if "if the model" in said else "")))


def _read(prompt, mask=False):
    line = term.masked(prompt) if mask else term.readline(prompt)
    if line is None:
        raise KeyboardInterrupt
    return line.strip()


def _as_settings(err, k):
    """An error of a wizard's try names the setting the value will be
    saved as, not the override that carried it."""
    for f in ("key", "model", "base_url"):
        err = err and err.replace('overrides["%s"]' % f, k + f)
    return err


def _refused(err, pid, k):
    """The error of a request says the service refused the key."""
    return err.startswith(pid + ": 401 ") or err.startswith(pid + ": 403 ") or (
        "(check %skey)" % k) in err


def wizard(use):
    """Provider, base URL, key, model: each tried through overrides (the
    model list, a test question, a tool probe) and written once, together,
    at the end (store.update: one atomic write), when the test passed or
    the person said to save anyway. Until then nothing is written: Ctrl-C,
    a reset or a kill at any question leave the old settings whole."""
    import ai
    k = "ai.%s." % use          # the settings' prefix
    provs = ai.providers()
    cur = store.get(k + "provider")
    label = store.get(k + "label")
    out("ai config %s: Enter keeps [the value shown], Ctrl-C cancels" % use)
    general = None
    if not cur and use != "general":
        # Enter keeps what it has: nothing of its own, ai.general's setup
        general = store.get("ai.general.provider")
        out("%s has no provider of its own: it uses ai.general's (%s); Enter at the "
            "menu keeps that" % (use, general or "none yet"))
    labels = []
    keep = -1 if use != "general" and not cur else None
    for i, p in enumerate(provs):
        now = ""
        if p["id"] == cur:
            keep = i
            now = "  (current%s)" % (": " + label if label else "")
        elif p["id"] == general:
            now = "  (ai.general's)"
        labels.append("%-10s %s%s" % (p["id"], p["name"], now))
    # every provider on one page (15 lines): Enter keeps the current one
    i = term.menu(labels, "Provider:", page=len(labels), keep=keep)
    if i is None:
        raise KeyboardInterrupt
    if i < 0:
        return out("%s falls back to ai.general%s; nothing changed" % (
            use, (" (%s)" % general) if general else ", which has no provider yet: run ai config"))
    p = provs[i]
    pid = p["id"]
    same = pid == cur
    url0 = (store.get(k + "base_url") if same else None) or p["base_url"]
    url = _read("Base URL [%s]: " % url0) or url0
    if not (url.startswith("http://") or url.startswith("https://")):
        raise Error("the base URL must start with http:// or https://; nothing changed")
    key = None
    if p["key"]:
        key0 = store.get(k + "key") if same else None
        key = _read("API key%s: " % ((" [%s]" % store.mask(key0)) if key0 else ""), True) or key0
        if not key:
            raise Error("%s needs an API key; nothing changed" % p["name"])
    model0 = store.get(k + "model") if same else None
    tag = "current" if model0 else "default"
    model0 = model0 or p["model"]
    base = None if url == p["base_url"] else url        # (None: the catalogue's)
    # what is tried is what would be saved: overrides, never the settings
    # ("": no key, never the old provider's; the URL when one is stored)
    o = {"use": use, "provider": pid, "key": key or "",
         "base_url": url if base or store.get(k + "base_url") else None}
    while True:
        found, err = term.busy("fetching the model list", ai.fetch_models, provider=pid,
                               key=o["key"], use=use, base_url=o["base_url"])
        err = _as_settings(err, k)
        if not (key and err and _refused(err, pid, k)):
            break
        # the service says the key is wrong: ask for it again, not for a
        # model that the key could not list
        shell.err("the key was refused: " + err)
        again = _read("API key (again; Enter keeps it): ", True)
        if not again:
            break
        key = o["key"] = again
    if err or not found:
        shell.err("no model list (%s); type a model id" % (err or "the list is empty"))
        model = _read("Model [%s]: " % model0) or model0
    else:
        model = term.menu([m + ("  (%s)" % tag if m == model0 else "") for m in found],
                          "Models (%d); Enter at the end or q keeps %s:" % (
                              len(found), model0), typed=True)
        model = model0 if model is None else model if isinstance(model, str) else found[model]
    from ai.config import parse_model, ConfigError
    try:            # a typed model token: its preset must be this provider's
        t = parse_model(model)[0]
    except ConfigError as e:
        raise Error("%s; nothing changed" % e)
    if t and t[1] != pid:
        raise Error("%s is a preset of %s, not %s; nothing changed" % (model, t[1], pid))
    o["model"] = model
    o["tools_level"] = "native"         # the probe asks for a native call
    t0 = ticks_ms()
    reply, err = term.busy("testing %s" % model, ai.ask_simple,
                           "Reply with one word: ready", o)
    ms = ticks_diff(ticks_ms(), t0)
    err = _as_settings(err, k)
    level = None
    if err:
        shell.err("test failed: " + err)
        if term.ask("save anyway? [y/n]: ", "yn", "n") != "y":
            out("nothing changed")
            return
    else:
        out("test: %s replied '%s' in %d ms" % (model, short(reply, 40), ms))
        # Ask once with a tool offered: native tool calling, or the text
        # fallback when the provider refuses tools (None: unknown).
        o["tools"] = [{"name": "ping", "description": "Answers pong. Call it when asked to.",
                       "parameters": {"type": "object", "properties": {}}}]
        _, err, calls = term.busy("checking tool calling", ai.ask,
                                  [{"role": "user", "content": "Call the tool named ping now."}], o)
        level = "native"
        if calls:
            out("tools: native tool calling works")
        elif err:
            low = err.lower()
            if " 400" in err or " 422" in err or "tool" in low or "function" in low:
                out("tools: no native tool calling (%s); using the text fallback"
                    % short(err, 60))
                level = "text-fallback"
            else:
                shell.err("tools: could not probe (%s); the catalogue default applies"
                          % short(err, 60))
                level = None
        else:
            out("tools: native (the model answered without calling the probe tool)")
    store.update({k + "provider": pid, k + "key": key, k + "model": model,
                  k + "tools": level, k + "base_url": base, k + "label": None})
    out("saved ai.%s: provider %s, model %s%s%s" % (
        use, pid, model, (", key " + store.mask(key)) if key else "",
        (", tools " + level) if level else ""))
