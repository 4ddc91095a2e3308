"""`ai chat` (a chat mode) and `ai status`, imported by shell/aicmd.py for
them only (a question does not pay for them):

    ai chat [QUESTION], ai -u TYPE chat
        every line typed at the you> prompt goes to the model, as ai
        QUESTION sends it (the same conversation on flash); /new, /model
        TOKEN, /file PATH (attaches a file to the next line), /help, /exit
        (or Ctrl-D); Ctrl-C stops a reply and stays
    ai status
        what each use-type resolves to (ai/config.py): provider, model,
        tools level, the key masked and the setting it comes from, the base
        URL, a label (ai.<use>.label), the files the model takes (ai/files.py:
        the catalogue's); a use-type that resolves as general
        does says so in one line; then the last request (ai.styles.LAST):
        why it failed, or its token usage where the service reported it
"""
import shell
from shell import out, Error, aicmd
import store
from shell import term


_CHAT_HELP = ("/new starts over, /model TOKEN switches, /file PATH attaches a file to the "
              "next line, /exit or Ctrl-D leaves")
_WORDS = ("/new", "/model", "/file", "/help", "/exit")


def mode(ai, use, model, first=None, files=None):
    """ai chat: every line typed at the you> prompt goes to the model
    (the conversation of use-type use, kept as by ai QUESTION); lines
    starting with "/" are the mode's own: /new, /model TOKEN (/model
    alone: the one in use), /file PATH (a file for the next line; /file
    alone: those waiting), /help, /exit (also Ctrl-D); "//x" sends "/x".
    Ctrl-C stops a reply (or the line being typed) and stays in the mode;
    a failed request is one error line and the mode goes on. files: the
    files of the first line (ai -f FILE chat)."""
    from compat import collect
    out("chat with %s (%s): every line goes to the model; %s" % (
        _model_line(use, model), use, _CHAT_HELP), shell.DIM)
    typed = term.History()
    line = first
    files = list(files or ())
    while True:
        try:
            if line is None:
                line = term.readline("you> ", typed, _complete, style=shell.BOLD_GREEN)
                if line is None:
                    return out("left the chat (ai history shows it; ai chat goes on with it)")
            text, line = line.strip(), None
            if text[:1] == "/" and text[:2] != "//":
                word, arg = (text + " ").split(" ", 1)
                arg = arg.strip()
                if word in ("/exit", "/quit", "/q"):
                    return out("left the chat (ai history shows it; ai chat goes on with it)")
                if word == "/new":
                    from ai.history import History
                    History(use).clear()
                    out("new conversation (%s)" % use)
                elif word == "/model":
                    model = _switch(use, model, arg)
                elif word == "/file":
                    _attach(files, arg)
                else:
                    out("%s: %s" % (word if word == "/help" else "unknown " + word, _CHAT_HELP))
            elif text:
                sent, files = files, []
                aicmd.chat(ai, use, text[1:] if text[:2] == "//" else text, model, files=sent)
        except KeyboardInterrupt:
            pass                # (a prompt or a reply showed its ^C)
        except Error as e:
            shell.err(e)
        collect()


def _attach(files, arg):
    """/file PATH: a file for the next line; /file alone: those waiting."""
    if arg:
        import os
        p = aicmd.flash_path(arg)
        files.append(p)
        n = os.stat(shell.resolve(p))[6]
        from ai.files import size_text
        out("%s (%s) goes with your next line" % (p, size_text(n)), shell.DIM)
    elif files:
        out("with your next line: " + ", ".join(files), shell.DIM)
    else:
        out("no file waits for your next line (/file PATH attaches one)", shell.DIM)


def _complete(before):
    """Tab at you>: the mode's words, then /file's paths."""
    if before.startswith("/file "):
        start, found = term.complete("ls " + before[6:])
        return start + 3, found
    if before[:1] == "/" and " " not in before:
        return 0, sorted(w + " " for w in _WORDS if w.startswith(before))
    return 0, []


def _model_line(use, model):
    """"provider model" that a question of use-type use goes to now."""
    from ai.config import resolve, ConfigError
    try:
        cfg = resolve({"use": use, "model": model})
    except ConfigError as e:
        return "(%s)" % e
    return "%s %s" % (cfg["provider"], cfg["model"])


def _switch(use, model, token):
    """/model TOKEN: the model for the rest of this chat, if it resolves."""
    if not token:
        out("model: " + _model_line(use, model))
        return model
    from ai.config import resolve, ConfigError
    try:
        resolve({"use": use, "model": token})
    except ConfigError as e:
        shell.err("/model %s: %s" % (token, e))
        return model
    out("model: %s for this chat" % _model_line(use, token))
    return token


def status():
    """ai status: what each use-type resolves to (provider, model, tools
    level, the key masked and the setting it comes from, the base URL),
    then the last request: why it failed, or its token usage where the
    service reported it."""
    from ai.config import resolve, ConfigError
    from ai.styles import LAST
    uses = ["general", "chat", "helper", "edit"]     # ai's, ?'s, ai edit's
    for k in store.keys("ai."):
        p = k.split(".")
        if len(p) == 3 and p[1] not in uses and p[1] not in ("history", "tools"):
            uses.append(p[1])
    general = None
    for use in uses:
        try:
            cfg = resolve({"use": use})
        except ConfigError as e:
            shell.err("%-8s %s" % (use, e))
            continue
        key = cfg["key"]
        if key:
            key = "key %s from %s" % (store.mask(key), cfg["sources"].get("key") or "?")
        elif "copilot" in cfg["quirks"]:
            key = "key from copilot.token" if store.get("copilot.token") else "not logged in"
        else:
            key = "no key needed"
        line = "%s %s, tools %s, %s" % (cfg["provider"], cfg["model"], cfg["tools_level"], key)
        where = cfg["base_url"]
        label = store.get("ai.%s.label" % use)
        if use == "general":
            general = (line, where)
        elif general == (line, where) and not label:
            out("%-8s the same as general" % use)
            continue
        out(shell.fold("%-8s %s" % (use, line), 9))
        out(shell.fold("         %s (provider from %s)%s" % (
            where, cfg["sources"].get("provider"), ("; " + label) if label else ""), 9),
            shell.DIM)
        from ai.files import sees
        seen = sees(cfg["provider"], cfg["model"])
        out(shell.fold("         files: text" + (", " + seen if seen else "; no pictures"), 9),
            shell.DIM)
    if LAST[1] is None:
        return out("last request: none since the console started")
    if LAST[5] is not None:
        return out(shell.fold("last request: %s, %s %s: failed: %s" % tuple(LAST[:3] + LAST[5:]), 2))
    if LAST[3] is None and LAST[4] is None:
        return out("last request: %s, %s %s: the service reported no token usage" % tuple(LAST[:3]))
    out("last request: %s, %s %s: %s tokens in, %s out" % tuple(
        [v if v is not None else "?" for v in LAST[:5]]))
