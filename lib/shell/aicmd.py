"""The `ai` console command: chat, history, the config wizard, models, tools.

    ai QUESTION              continue the conversation of use-type chat
    ai -u TYPE QUESTION      the same for another use-type (code, ...)
    ai -f FILE QUESTION      with a file (a picture, a PDF, a text), -f again
                             for more (ai/files.py: what the model takes)
    ai chat [QUESTION]       a chat mode: every line typed at you> goes to
    ai -u TYPE chat          the model (/new, /model TOKEN, /file PATH,
                             /exit, Ctrl-D)
    ai status                what each use-type resolves to; the last
                             request's token usage (both: shell/aichat.py)
    ai -new [QUESTION]       forget the conversation first
    ai history [TYPE]        show the conversation
    ai -m MODEL QUESTION     another model (or preset token) for this question
    ai -schema SCHEMA QUESTION   the answer as JSON that follows SCHEMA ("name,
                             age int, bio: who they are", a JSON Schema, or
                             @FILE), printed indented as it arrives
                             (shell/aijson.py); -schema-multi: a list of them
    ai config [TYPE], ai models [PROVIDER], ai presets, ai login copilot
                             (shell/aiprov.py, imported for them only)
    ai edit FILE[:S-E] ... | ai undo       (shell/aiedit.py)
    ai -tools                build the tools cache from every MCP server
    ai tools list|clear      the tools a chat offers (board, MCP) / remove the cache

A question becomes one turn of lib/ai/history.py: the saved conversation is
streamed from flash into the request, the reply streams to the terminal
through the markdown renderer (shell/md.py) with a spinner until the first
piece and, as it arrives, into the turn's file on flash (nothing of it is
kept in RAM: a reply may be as long as ai.<use>.max_reply, 128 KB unless
set); only a completed turn is saved (Ctrl-C or an error leave no half
turn), keeping the newest turns within ai.history.bytes / ai.history.turns.
`ai history` streams each message from the file through the renderer.
Every chat offers the board's own commands as tools (board_ls,
board_pin...: shell/chattools.py) as the setting ai.tools.local says: read
(default: the read-only ones, run without a question), all (those that
change something too), off; and, when the tools cache exists, those
tools. Before each MCP call the setting ai.tools.approve decides: ask
(default; the call is shown whole and a typed y / n / a decides, a =
always for that tool on that server: shell/approve.py), always, never.
A board tool's call that changes something is always asked (never:
refused), whatever ai.tools.approve says.
"""
import shell
from shell import out, Error, count as _n
import store
from shell import term
from compat import const

_HISTORY_BYTES = const(16384)   # default of ai.history.bytes
_HISTORY_TURNS = const(20)      # default of ai.history.turns
_MAX_REPLY = const(131072)      # default of ai.<use>.max_reply at the console
_LINE = const(72)               # width of one-line summaries


def main(args):
    if not args:
        raise shell.UsageError("ask a question, e.g. ai what is MicroPython?")
    sub = args[0]
    arg = args[1] if len(args) > 1 else None
    if sub == "history":
        return history(arg or "chat")
    if sub == "config":
        use = arg or "general"
        _check_use(use)
        from shell import aiprov
        try:
            return aiprov.wizard(use)
        except KeyboardInterrupt:
            return out("cancelled; the settings are unchanged")
    if sub in ("login", "presets", "models"):
        from shell import aiprov
        return getattr(aiprov, sub)(args)
    if sub in ("edit", "undo"):
        from shell import aiedit
        return getattr(aiedit, sub)(args)
    import ai
    if sub in ("status", "chat"):
        from shell import aichat
        return aichat.status() if sub == "status" else aichat.mode(ai, "chat", None, arg)
    if sub == "tools":
        if arg == "clear":
            ai.tools_cache_clear()
            return out("tools cache removed; chats offer no MCP tools (ai -tools builds it)")
        return tools_list()
    if sub == "-tools":
        return tools_build(ai)
    use, new, question, model, schema, files = _options(sub)
    if question == "history":
        return history(use)
    if new:
        from ai.history import History
        History(use).clear()
        if not question:
            return out("new conversation (%s)" % use)
    if question == "chat" or question.startswith("chat "):
        from shell import aichat
        return aichat.mode(ai, use, model, question[5:].strip() or None, files)
    if not question:
        given = sub.strip()
        raise shell.UsageError("%s needs a question after it, e.g. ai %s how do I blink an LED?"
                               " (or ai %s chat)" % (given, given, given))
    chat(ai, use, question, model, schema, files)


def flash_path(p):
    """The flash path of a file a person names (relative to the current
    folder), which must exist and be none of the board's private files."""
    shown = shell.show(shell.resolve(p))
    if shell.private(shown):
        raise Error("%s is private to the board: it is never sent" % shown)
    import os
    try:
        if os.stat(shell.resolve(p))[0] & 0x4000:
            raise Error("%s is a folder; attach a file" % shown)
    except OSError:
        raise Error("%s: no such file" % shown)
    return shown


def _options(text):
    """-u TYPE, -new, -m MODEL, -f FILE and -schema[-multi] SCHEMA in front
    of the question -> (use, new, question, model, (schema, multi) or None,
    files)."""
    use, new, model, schema, files = "chat", False, None, None, []
    s = text.strip()
    while s.startswith("-"):
        word, rest = (s + " ").split(" ", 1)    # s is stripped
        if word == "-new":
            new = True
        elif word == "-f":
            f, rest = (rest.strip() + " ").split(" ", 1)
            if not f:
                raise shell.UsageError("-f needs a file and a question, e.g. ai -f /photo.jpg "
                                       "what is in this picture?")
            files.append(flash_path(f))
        elif word == "-u":
            use, rest = (rest.strip() + " ").split(" ", 1)
            if not use:
                raise shell.UsageError("-u needs a use-type and a question, e.g. ai -u code "
                                       "how do I blink an LED?")
            _check_use(use)
        elif word == "-m":
            model, rest = (rest.strip() + " ").split(" ", 1)
            if not model:
                raise shell.UsageError("-m needs a model and a question, e.g. ai -m gpt-mini "
                                       "hello (ai presets lists the short names)")
        elif word == "-schema" or word == "-schema-multi":
            s, rest = _word(rest.strip())
            if not s:
                raise shell.UsageError('%s needs a schema and a question, e.g. ai %s "name, '
                                       'age int" who wrote MicroPython?' % (word, word))
            schema = (_schema_file(s[1:]) if s[:1] == "@" else s, word == "-schema-multi")
        else:
            raise shell.UsageError("unknown option " + word)
        s = rest.strip()
    return use, new, s, model, schema, files


def _word(s):
    """(first word, rest) of s; a word in quotes ("..." or '...') may hold
    spaces."""
    if s[:1] in ("'", '"'):
        q = s.find(s[0], 1)
        if q < 0:
            raise shell.UsageError("a quote is not closed: " + s[:40])
        return s[1:q], s[q + 1:]
    return (s + " ").split(" ", 1)


def _schema_file(path):
    """The text of a schema file (ai -schema @FILE), at most 8 KB."""
    try:
        with open(shell.resolve(path)) as f:
            text = f.read(8193)
    except OSError:
        raise Error("cannot read the schema file %s" % path)
    if len(text) > 8192:
        raise Error("the schema file %s is longer than 8 KB" % path)
    return text


def _check_use(use):
    ok = 0 < len(use) <= 16
    for c in use:
        ok = ok and (c.isalpha() or c.isdigit() or c in "-_")
    if not ok:
        raise shell.UsageError("a use-type is 1 to 16 letters, digits, - or _")


def short(text, width=_LINE):
    text = (text or "").replace("\r", " ").replace("\n", " ").strip()
    return text if len(text) <= width else text[:width - 3] + "..."


def _tool_line(name, args=None, text=None, bad=False):
    """One line of a tool call (text None) or of its result, as ai shows it
    while it runs and ai history shows it later; the arguments with their
    characters (a model may escape them: "M\\u00fcnchen" shows München)."""
    if text is None:
        args = args or ""
        if "\\u" in args:
            import jsonstream
            try:        # a JSON object whose strings are written as themselves
                args = jsonstream.dumps(jsonstream.loads(args))
            except (jsonstream.JSONError, ValueError):
                pass
        out("  -> %s %s" % (name, short(args, 48)), shell.DIM)
    elif bad:
        shell.err("  x " + short(text, _LINE - 4))    # red, like an error
    else:
        out("  <- " + short(text, _LINE - 5), shell.DIM)


# -- chat ---------------------------------------------------------------------

def chat(ai, use, question, model=None, schema=None, files=None):
    from ai.history import History
    h = History(use)
    q = {"role": "user", "content": question}
    if files:
        q["files"] = files
        from ai.styles import StyleError
        try:        # (each file's reference: its type and hash, ai/files.py)
            turn = h.turn(q)
        except StyleError as e:
            raise Error(e)
    else:
        turn = h.turn(q)
    if schema:      # (JSON, printed as it arrives)
        from shell.aijson import Printer
        screen = Printer()
    else:
        from shell import md
        screen = md.Screen()
    # Tool approval: ai.tools.approve is ask (shell/approve.py: the whole
    # call shown, a typed y / n / a), always or never.
    mode = store.get("ai.tools.approve") or "ask"
    if mode not in ("ask", "always", "never"):
        shell.err("ai.tools.approve is %r; use ask, always or never (asking)" % mode)
        mode = "ask"

    def approve(call):
        screen.end()
        name = call["name"]
        args = call.get("args") or "{}"
        if mode == "never":
            out("  tool %s %s refused (ai.tools.approve = never)" % (
                name, short(args, 48)), shell.DIM)
            return False
        reads = call.get("board") and call["annotations"]["readOnlyHint"]
        if reads or mode == "always" and not call.get("board"):
            _tool_line(name, args)
        else:
            from shell import approve as person
            if not person.ask(call, _tool_line):
                return False
        screen.wait("running " + name)
        return True

    def show(call, text, bad):
        screen.end()
        _tool_line(None, None, text, bad)
        screen.wait()

    # keep=False: the reply goes to the screen and, as it arrives, into the
    # turn's file on flash (ai.ask records it), never whole into RAM
    o = {"use": use, "stream": screen.sink, "keep": False}
    if not (store.get("ai.%s.max_reply" % use) or store.get("ai.general.max_reply")):
        o["max_reply"] = _MAX_REPLY
    if model:
        o["model"] = model
    if schema:
        o["schema"], o["schema_multi"] = schema
    screen.wait()
    from shell import chattools as tools
    lv = tools.level()
    try:
        _, err = ai.run(turn, o, approve=approve, show=show, local=lv != "off" and lv)
    except KeyboardInterrupt as e:
        screen.end()
        turn.drop()
        if not e.args:      # (a prompt that was cancelled showed its ^C)
            shell.write("^C ", shell.RED)
        out("cancelled (the conversation is unchanged)")
        return
    except BaseException:
        turn.drop()
        raise
    finally:
        screen.end()
    if err:
        turn.drop()     # (the console's max_reply is an override: name the setting)
        raise Error(err.replace('overrides["max_reply"]', "ai.%s.max_reply" % use))
    turn.commit(_int_setting("ai.history.bytes", _HISTORY_BYTES),
                _int_setting("ai.history.turns", _HISTORY_TURNS))


def _int_setting(key, default):
    try:
        v = int(store.get(key, default))
        return v if v > 0 else default
    except (TypeError, ValueError):
        return default


def history(use):
    _check_use(use)
    from ai.history import History, head, pieces
    from shell import md
    h = History(use)
    turns = 0
    tty = shell.tty()
    for m in h:
        role = m.get("role")
        text = m.get("content") or ""     # a long one: a RawFile (see ai/history.py)
        if role == "user":
            turns += 1
            shell.write("you> ", shell.BOLD_GREEN)
            pieces(text, shell.write)
            out()
            _files(m)
        elif role == "assistant":
            if text:
                shell.write("ai> ", shell.BOLD_CYAN)
                r = md.Render(shell.raw, tty, width=term.cols)
                pieces(text, r.feed)
                r.close()
            for c in m.get("tool_calls") or ():
                _tool_line(c.get("name"), c.get("args"))
        elif role == "tool":
            _tool_line(None, None, head(text, _LINE), m.get("is_error"))
            _files(m)
    if not turns:
        return out("no conversation for %s yet" % use)
    out("%s: %s, %d bytes (ai %s-new starts over)" % (
        use, _n(turns, "turn"), h.size(), "" if use == "chat" else "-u %s " % use), shell.DIM)


def _files(m):
    """A line per file a message of the history refers to: [file
    /photo.jpg, 48 KB, image/jpeg] (ai/files.py)."""
    if m.get("files"):
        from ai.files import label
        for r in m["files"]:
            if isinstance(r, dict):
                out("     " + label(r.get("path"), r.get("size") or 0, r.get("type")), shell.DIM)


# -- tools cache -------------------------------------------------------------------

def tools_list():
    """The tools a chat offers, each with where it runs: the board's own
    (ai.tools.local), then the tools cache's, a line at a time."""
    from shell import chattools as tools
    lv = tools.level()
    b = 0
    for d in tools.Local(lv) if lv != "off" else ():
        b += 1
        _tool_row(d, "board, " + ("read-only" if d["annotations"]["readOnlyHint"] else "asks"))
    from ai.tools import tools_cache_lines
    n = 0
    for server, d in tools_cache_lines():      # a line at a time
        n += 1
        _tool_row(d, server)
    out("%s of the board (ai.tools.local = %s), %s" % (
        _n(b, "tool"), lv, "%s from MCP servers" % n if n else
        "no tools cache (ai -tools builds it from the MCP servers)"))


def _tool_row(d, origin):
    shell.write("%-24s " % d["name"])
    out("(" + origin + ")", shell.DIM)
    desc = short(d.get("description"), _LINE - 4)
    if desc:
        out("    " + desc)


def tools_build(ai):
    import mcp
    servers = mcp.servers()
    if not servers:
        raise Error("no MCP servers; add one with: mcp add NAME URL [TOKEN]")
    spin = term.Spinner("listing tools of " + _n(len(servers), "server"))

    def progress(name, n):
        nonlocal spin
        spin.stop()
        out("  %s: %s" % (name, _n(n, "tool")))
        spin = term.Spinner("listing tools")

    try:
        count, err = ai.tools_cache_build(progress)
    finally:
        spin.stop()
    if err:
        shell.err(err)
    if count or not err:
        out("tools cache: %s; every ai chat offers them (ai tools list)" % _n(count, "tool"))
