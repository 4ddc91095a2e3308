"""The documents still say what the code does: every `make TARGET` they
name is a target of the Makefile, every console command they show is a
registered command that takes those words, every name of the library they
show (ai.X, mcp.X, httpc.X, jsonstream.X, store.X, compat.X) exists, every
link between them leads to a file and a heading that exist, every document
is reachable from README.md, and README.md stays a front door (at most
12 KB). CPython, no network."""
import importlib
import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {".git", ".venv", "node_modules", "build", "flash", ".pytest_cache",
             "__pycache__"}
README_MAX = 12288
MODULES = ("ai", "mcp", "httpc", "jsonstream", "store", "compat")


def documents():
    """Every *.md of the repository (not of installed packages or builds),
    as paths relative to ROOT."""
    found = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(".md"):
                found.append(os.path.relpath(os.path.join(d, f), ROOT))
    return found


def read(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        return f.read()


FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def split_code(text):
    """(fenced blocks, indented code lines, inline code spans, prose): the
    prose is the text without any code, where links are read."""
    fenced = FENCE.findall(text)
    rest = FENCE.sub("", text)
    indented = [line[4:] for line in rest.split("\n")
                if line.startswith("    ") and not line.lstrip().startswith(("-", "|"))]
    spans = [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", rest)]
    prose = re.sub(r"`[^`]*`", "", rest)
    return fenced, indented, spans, prose


def code_texts(text):
    """Every piece of code in a document, a line at a time."""
    fenced, indented, spans, _ = split_code(text)
    lines = list(indented) + list(spans)
    for block in fenced:
        lines.extend(block.split("\n"))
    return lines


# ---- make targets -------------------------------------------------------

def makefile_targets():
    targets = set()
    with open(os.path.join(ROOT, "Makefile")) as f:
        for line in f:
            m = re.match(r"^([A-Za-z][\w.-]*)\s*:(?!=)", line)
            if m:
                targets.add(m.group(1))
            if line.startswith(".PHONY:"):
                targets.update(line.split()[1:])
    return targets


def make_target(command):
    """The target of `make ...` as typed in this repository, or None when
    the command is another Makefile's (make -C DIR)."""
    words = command.split()
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-C", "-f"):
            return None
        if w.startswith("-") or "=" in w:
            i += 1
            continue
        return w.strip(".,;:)")
    return None


def make_commands(doc):
    """(command line, target) for every `make ...` in the code of doc."""
    found = []
    for line in code_texts(read(doc)):
        for m in re.finditer(r"(?:^|[\s(;&|])make\s+([^#\n]*)", line):
            t = make_target(m.group(1))
            if t is not None:
                found.append((m.group(0).strip(), t))
    return found


def test_every_make_target_a_document_names_is_in_the_makefile():
    targets = makefile_targets()
    assert {"test", "check", "sim", "lint", "flash", "deploy", "hil"} <= targets, targets
    bad, seen = [], set()
    for doc in documents():
        for command, target in make_commands(doc):
            seen.add(target)
            if target not in targets:
                bad.append("%s: %s (no target %r)" % (doc, command, target))
    assert not bad, "\n".join(bad)
    assert {"sim", "test", "check", "firmware", "flash", "deploy", "hil", "bench"} <= seen, seen


def test_make_target_parsing_catches_a_missing_target():
    assert make_target("-n firmware BOARD=X") == "firmware"
    assert make_target("-C ~/micropython/mpy-cross") is None
    assert make_target("test PYTEST_ARGS=\"-k mcp\"") == "test"
    assert "flsah" not in makefile_targets()


# ---- README: a front door ------------------------------------------------

def test_readme_is_a_front_door_with_the_set_up_commands():
    size = os.path.getsize(os.path.join(ROOT, "README.md"))
    assert size <= README_MAX, "README.md is %d bytes (at most %d)" % (size, README_MAX)
    commands = [c for c, _ in make_commands("README.md")]
    for want in ("make sim", "make test", "make check"):
        assert any(c.startswith(want) for c in commands), (want, commands)


# ---- console commands ----------------------------------------------------

@pytest.fixture
def shell_registry(flash, monkeypatch):
    """The console's registry with an empty /bin: built-in commands only,
    on a board whose profile has every part (the camera board's: its
    camera command too)."""
    import shell

    class Profile:
        with open(os.path.join(ROOT, "boards", "ANTOS_XIAO_S3_SENSE", "profile.json")) as f:
            PROFILE = json.load(f)
    monkeypatch.setitem(sys.modules, "boardprofile", Profile)
    return shell


def usage_words(shell, spec):
    """Every -flag the command's usage and sub-commands name."""
    words = set(re.findall(r"-[-\w]+", spec["usage"]))
    for sub in spec.get("subs") or ():
        words.add(sub[0])
    return words


def placeholders_filled(line):
    """A reference line as a person would type it: [optional] words kept
    without brackets, the first of a|b alternatives."""
    line = line.replace("[", "").replace("]", "")
    return " ".join(w.split("|")[0] if "|" in w and not w.startswith("{") else w
                    for w in line.split())


def check_command(shell, line):
    """None when line is a command the console takes, else why not."""
    line = line.strip()
    name, rest = shell.split_words(line, True)
    spec = shell.find(name)
    if spec is None:
        return "no command %r" % name
    words = rest.split()
    if "-h" in words[:2] or "--help" in words[:2]:
        return None                             # the dispatcher shows the usage
    flags = [w for w in words[:2] if w.startswith("-") and w not in ("-h", "--help")]
    for f in flags:
        if f not in usage_words(shell, spec):
            return "%s has no option %s (usage: %s)" % (name, f, spec["usage"])
    try:
        shell.parse(spec, rest)
    except shell.UsageError as e:
        return "%s (usage: %s)" % (e, spec["usage"])
    return None


def session_commands(doc):
    """The commands typed after the console's prompt in doc's examples."""
    lines = []
    fenced, _, _, _ = split_code(read(doc))
    for block in fenced:
        for line in block.split("\n"):
            if line.startswith("/> "):
                lines.append(line[3:])
    return lines


def test_every_command_typed_in_a_documented_session_is_taken(shell_registry):
    shell = shell_registry
    bad, count = [], 0
    for doc in documents():
        for line in session_commands(doc):
            count += 1
            why = check_command(shell, line)
            if why:
                bad.append("%s: /> %s: %s" % (doc, line, why))
    assert not bad, "\n".join(bad)
    assert count >= 25, count


def reference_block(text):
    """The console reference's block of ai and mcp commands."""
    for block in FENCE.findall(text):
        if block.startswith("ai QUESTION"):
            return block
    raise AssertionError("the ai/mcp command block is gone from the console reference")


def reference_commands(block):
    """Each command of the block's lines: the part before the description,
    split at ' | ', a piece without a command name continuing the last."""
    found = []
    for line in block.split("\n"):
        if not line or line[0] == " ":
            continue                            # a description's next line
        syntax = re.split(r"\s{2,}", line)[0]
        prefix = None
        for piece in syntax.split(" | "):
            words = piece.split()
            if words[0] in ("ai", "mcp"):
                prefix = " ".join(words[:2])
                found.append(piece)
            else:
                found.append(prefix + " " + piece)
    return found


def test_every_command_of_the_console_reference_is_registered(shell_registry):
    shell = shell_registry
    text = read("lib/shell/README.md")
    bad = []
    commands = reference_commands(reference_block(text))
    assert len(commands) >= 25, commands
    for c in commands:
        why = check_command(shell, placeholders_filled(c))
        if why:
            bad.append("%s: %s" % (c, why))
    # the table of commands: each one registered, and every built-in there
    table = re.search(r"^\| command \| what \|\n\|---\|---\|\n((?:\|.*\n)+)", text, re.M)
    assert table, "the table of commands is gone from the console reference"
    shown = set()
    for row in table.group(1).splitlines():
        for span in re.findall(r"`([^`]+)`", row.split(" | ")[0]):
            name = span.split()[0]
            shown.add(name)
            if shell.find(name) is None:
                bad.append("table: %s: no command %r" % (span, name))
    assert not bad, "\n".join(bad)
    missing = [n for n in shell.names() if n not in shown]
    assert not missing, "commands the reference's table does not show: %s" % missing


def test_console_commands_in_the_documents_text_are_taken(shell_registry):
    """`ai login copilot`, `mcp add -h`, `mcp serve token new` written in
    prose: a command named without its arguments (`mcp add`) is fine, one
    with a wrong word is not."""
    shell = shell_registry
    bad, count = [], 0
    for doc in documents():
        _, _, spans, _ = split_code(read(doc))
        for span in spans:
            words = span.split()
            if len(words) < 2 or words[0] not in ("ai", "mcp") or words[1] == "...":
                continue
            count += 1
            why = check_command(shell, placeholders_filled(span))
            if why and not why.startswith("missing "):
                bad.append("%s: `%s`: %s" % (doc, span, why))
    assert not bad, "\n".join(bad)
    assert count >= 40, count


def test_the_command_check_can_fail(shell_registry):
    shell = shell_registry
    assert check_command(shell, "mcp ad weather http://x") is not None
    assert check_command(shell, "ai -x hello") is not None
    assert check_command(shell, "mcp add weather") is not None        # url missing
    assert check_command(shell, "lss /") is not None
    assert check_command(shell, "ai -m groq-fast hi") is None
    assert check_command(shell, "mcp add -h") is None


# ---- names of the library --------------------------------------------------

# what the documents write for a use-type (USE in lib/shell/keys.py) and
# for an MCP server's name (NAME): placeholders and the examples' names
USE_WORDS = ("USE", "<use>", "TYPE", "chat", "code", "helper", "edit", "general")
NAME_WORDS = ("NAME", "<name>", "weather", "notes")
FILE_ENDINGS = (".py", ".mpy", ".md", ".json", ".jsonl", ".txt")


def setting_patterns():
    """A regular expression of the settings' names (lib/shell/keys.py), and
    of their prefixes (ai.general, mcp.serve)."""
    from shell import keys
    words = {"USE": "|".join(map(re.escape, USE_WORDS)),
             "NAME": "|".join(map(re.escape, NAME_WORDS))}
    pats = set()
    for key, _, _ in keys.rows():
        parts = key.split(".")
        for n in range(2, len(parts) + 1):
            pats.add(r"\.".join("(?:%s)" % words[w] if w in words else re.escape(w)
                                 for w in parts[:n]))
    return re.compile("^(?:%s)$" % "|".join(sorted(pats)))


def resolve(dotted):
    """The object a dotted name of the library names, importing
    submodules as needed; raises LookupError."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[:i + 1]))
            except ImportError:
                raise LookupError(dotted)
    return obj


NAME = re.compile(r"(?<![\w./<-])(%s)((?:\.[A-Za-z_]\w*)+)" % "|".join(MODULES))


def library_names(doc, calls=None):
    """Dotted names under the library's modules in doc's code, but file
    names (compat.py) and the misspelt setting of an error shown; the
    names called (ai.edit(...)) also go into calls."""
    found = set()
    for line in code_texts(read(doc)):
        if "unknown setting" in line:
            continue
        for m in NAME.finditer(line):
            name = m.group(1) + m.group(2)
            if not name.endswith(FILE_ENDINGS):
                found.add(name)
                if calls is not None and line[m.end():m.end() + 1] == "(":
                    calls.add(name)
    return found


def test_every_library_name_the_documents_show_exists(flash):
    settings = setting_patterns()
    bad, checked = [], set()
    for doc in documents():
        calls = set()
        for name in sorted(library_names(doc, calls)):
            if settings.match(name) and name not in calls:
                continue                        # a setting, not a Python name
            checked.add(name)
            try:
                resolve(name)
            except LookupError:
                bad.append("%s: %s" % (doc, name))
    assert not bad, "\n".join(bad)
    api = library_names("lib/README.md")
    for want in ("ai.ask", "ai.run", "ai.edit", "mcp.call", "mcp.connect", "httpc.request",
                 "jsonstream.select", "store.Spool"):
        assert want in api, want
    assert len(checked) >= 60, sorted(checked)


def test_the_name_check_can_fail(flash):
    with pytest.raises(LookupError):
        resolve("ai.ask_twice")
    with pytest.raises(LookupError):
        resolve("mcp.client.NoSuchError")
    assert resolve("ai.history.History") is not None
    settings = setting_patterns()
    assert settings.match("ai.chat.key") and settings.match("mcp.<name>.token")
    assert settings.match("ai.general") and not settings.match("ai.ask")
    assert settings.match("mcp.serve.port") and not settings.match("mcp.serve.start")
    assert not settings.match("ai.chat.modle") and not settings.match("ai.styles.load")


# ---- links ---------------------------------------------------------------

def slug(heading):
    """GitHub's anchor of a heading."""
    s = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    s = re.sub(r"[^\w\- ]", "", s.strip().lower())
    return s.replace(" ", "-")


def anchors(doc):
    text = FENCE.sub("", read(doc))
    seen, out = {}, set()
    for h in re.findall(r"^#{1,6} (.+?)\s*#*$", text, re.M):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def links(doc):
    """(target document or None for doc itself, anchor or None) of every
    relative link in doc's prose."""
    _, _, _, prose = split_code(read(doc))
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue                            # https:, mailto:
        path, _, anchor = target.partition("#")
        if path:
            path = os.path.normpath(os.path.join(os.path.dirname(doc), path))
        yield target, path or doc, anchor or None


def test_every_link_between_documents_leads_to_a_file_and_heading():
    bad, count = [], 0
    for doc in documents():
        for target, path, anchor in links(doc):
            count += 1
            full = os.path.join(ROOT, path)
            if not os.path.exists(full):
                bad.append("%s: %s: no file %s" % (doc, target, path))
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                bad.append("%s: %s: no heading #%s in %s" % (doc, target, anchor, path))
    assert not bad, "\n".join(bad)
    assert count >= 50, count


def test_every_document_is_reachable_from_the_readme():
    seen, todo = {"README.md"}, ["README.md"]
    while todo:
        doc = todo.pop()
        for _, path, _ in links(doc):
            if path.endswith(".md") and path not in seen and os.path.exists(os.path.join(ROOT, path)):
                seen.add(path)
                todo.append(path)
    missing = [d for d in documents() if d not in seen]
    assert not missing, "documents no link from README.md leads to: %s" % missing


def test_slugs_are_githubs():
    assert slug("The ? helper") == "the--helper"
    assert slug("An MCP server's questions") == "an-mcp-servers-questions"
    assert slug("A. Our firmware (recommended: `lib/` frozen into flash)") == \
        "a-our-firmware-recommended-lib-frozen-into-flash"
    assert slug("OAuth 2.1") == "oauth-21"
