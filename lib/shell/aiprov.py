"""The `ai` console commands about providers and models:

    ai login copilot     GitHub's device flow (lib/ai/login.py): shows the
                         code and the page to enter it on, waits for GitHub
                         (Ctrl-C cancels), saves copilot.token
    ai presets           the model presets: name, provider, model, thinking map

The code and the address come from the network: they are printed through
the console's sanitizer like any outside text.
"""
import shell
from shell import out, Error
from shell import term
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
