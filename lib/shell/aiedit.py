"""`ai edit` and `ai undo` at the console (lib/ai/editor.py does the work):

    ai edit FILE[:START[-END]] [--before|--after] [-m MODEL] INSTRUCTION
    ai undo

FILE is relative to the current folder; no line range means the whole
file; "#file" in the instruction sends the whole file as context. A
spinner turns while the model writes (Ctrl-C cancels: the file stays as
it was); then one line says what changed, e.g. "main.py: +12 -3 lines at
10-20 (ai undo puts it back)".
"""
import shell
from shell import out, Error, UsageError
from shell import term

USAGE = "ai edit FILE[:START[-END]] [--before|--after] [-m MODEL] INSTRUCTION"


def _target(word):
    """(path, start, end) of FILE[:START[-END]]."""
    i = word.rfind(":")
    if i > 0:
        rng = word[i + 1:].split("-")
        try:
            nums = [int(x) for x in rng]
        except ValueError:
            nums = None
        if nums and 1 <= len(nums) <= 2:
            return word[:i], nums[0], nums[-1]
    return word, None, None


def edit(args):
    # (the registry gives the file as a word of its own: Tab completes it)
    word, rest = args[1], args[2] if len(args) > 2 else ""
    path, start, end = _target(word)
    where, ov = "replace", {}
    while True:
        w, after = shell.split_words(rest, True)
        if w in ("--before", "--after"):
            where = w[2:]
        elif w == "-m":
            ov["model"], after = shell.split_words(after, True)
            if not ov["model"]:
                raise UsageError("-m needs a model, e.g. -m gpt-mini")
        else:
            break
        rest = after
    if not rest.strip():
        raise UsageError("say what to change: " + USAGE)
    import ai
    name = shell.show(shell.resolve(path))
    spin = term.Spinner("ai edit %s" % name)
    n = [0]

    def progress(piece):
        n[0] += 1
        if n[0] & 15 == 0:
            spin.turn()             # looks for Ctrl-C too
        else:
            term.check_interrupt()

    ov["stream"] = progress
    try:
        summary, err = ai.edit(shell.resolve(path), start, end, where, rest.strip(), ov)
    except KeyboardInterrupt:
        spin.stop()
        shell.write("^C", shell.RED)
        return out(" cancelled; %s is unchanged" % name)
    finally:
        spin.stop()
    if err:
        raise Error(err)
    out("%s: %s (ai undo puts it back)" % (name, summary))


def undo(args):
    import ai
    summary, err = ai.undo()
    if err:
        raise Error(err)
    out(summary)
