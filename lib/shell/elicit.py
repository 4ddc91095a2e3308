"""An MCP server's question to the person at the console (elicitation),
imported when one arrives while the console runs (mcp/listen.py).

    content = ask(message, schema)        # form mode
    content = ask(message, None, url)     # URL mode
    -> a dict (accept: the form's values; URL mode: {} once the person
       says they opened it), None (decline) or KeyboardInterrupt (Ctrl-C:
       the server is told "cancel")

Form mode (a flat JSON Schema object: string, number, integer, boolean,
enum / oneOf choices, arrays of choices): each field is asked in turn,
required ones first: its title (or name), type, description, the choices
numbered, the default in brackets, "required" marked. Enter takes the
default, or leaves an optional field out. Each answer is checked against
the schema (type, enum, minLength/maxLength, minimum/maximum,
minItems/maxItems, format email) and asked again with the reason when it
does not fit. Then the values are shown and a typed a / d accepts or
declines. URL mode shows the address (sanitized: server text never drives
the terminal) and asks whether the person opened it.

Every answer is a line typed after its question, pending input drained
first (term.ask / term.drain): type-ahead never answers a server. The
spinner of the running call stops while asking and turns again after.
"""
import shell
from shell import out, term
import jsonstream

_MAX_FIELDS = 32


def ask(message, schema, url=None):
    spin = term.spinner()
    if spin is not None:
        spin.stop()
    try:
        out("  the MCP server asks: " + (message or "(no message)"), shell.BOLD_CYAN)
        if url is not None:
            out("  open this address in a browser (on any device):")
            out("  " + url)
            c = term.ask("  did you open it and finish there? [y]es [n]o: ", "yn")
            return {} if c == "y" else None
        return _form(schema or {})
    finally:
        if spin is not None:
            spin.go()


def _fields(schema):
    """[(name, spec, required)]: required fields in their order, then the
    others by name."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    req = schema.get("required")
    req = [k for k in req if k in props] if isinstance(req, list) else []
    names = req + sorted(k for k in props if k not in req)
    return [(k, props[k] if isinstance(props[k], dict) else {}, k in req)
            for k in names[:_MAX_FIELDS]]


def _choices(p):
    """[(value, label)] of an enum / oneOf (or of an array's items), or None."""
    if p.get("type") == "array" and isinstance(p.get("items"), dict):
        p = p["items"]
    e = p.get("enum")
    if isinstance(e, list):
        names = p.get("enumNames")
        if not isinstance(names, list) or len(names) != len(e):
            names = e
        return [(e[i], str(names[i])) for i in range(len(e))]
    alts = p.get("oneOf") or p.get("anyOf")
    if isinstance(alts, list):
        out_ = []
        for a in alts:
            if isinstance(a, dict) and "const" in a:
                out_.append((a["const"], str(a.get("title") or a["const"])))
        return out_ or None
    return None


def _shown(v):
    return v if isinstance(v, str) else jsonstream.dumps(v)


def _form(schema):
    fields = _fields(schema)
    content = {}
    for name, p, req in fields:
        typ = p.get("type") or "string"
        head = "  %s (%s%s)" % (p.get("title") or name, typ, ", required" if req else "")
        d = p.get("description")
        out(head + (": " + d if isinstance(d, str) and d else ""))
        ch = _choices(p)
        if ch:
            out("    " + "  ".join("%d %s" % (i + 1, ch[i][1]) for i in range(len(ch))))
        has = "default" in p
        prompt = "  %s%s: " % (name, (" [%s]" % _shown(p["default"])) if has else "")
        while True:
            term.drain()
            line = term.readline(prompt)
            if line is None:
                return None         # end of input: nobody answers
            line = line.strip()
            if not line:
                if has:
                    content[name] = p["default"]
                    break
                if not req:
                    break
                out("    required: type a value (Ctrl-C cancels)")
                continue
            v, why = _value(line, p, typ, ch)
            if why is None:
                content[name] = v
                break
            out("    " + why)
    out("  you answer:")
    for k in content:
        out("    %s: %s" % (k, _shown(content[k])))
    c = term.ask("  send it? [a]ccept [d]ecline: ", "ad")
    return content if c == "a" else None


def _pick(word, ch):
    """The choice a word names: its number or its value."""
    if word.isdigit() and 1 <= int(word) <= len(ch):
        return ch[int(word) - 1][0], True
    for v, label in ch:
        if word == _shown(v) or word == label:
            return v, True
    return None, False


def _value(line, p, typ, ch):
    """(value, None), or (None, why it does not fit the schema)."""
    if typ == "array":
        if not ch:
            return None, "this console asks only for arrays of choices"
        got = []
        for w in line.split(","):
            v, ok = _pick(w.strip(), ch)
            if not ok:
                return None, "pick from the numbers above, separated by commas"
            got.append(v)
        lo, hi = p.get("minItems"), p.get("maxItems")
        if isinstance(lo, int) and len(got) < lo or isinstance(hi, int) and len(got) > hi:
            return None, "pick %s to %s of them" % (lo or 0, hi if isinstance(hi, int) else "any")
        return got, None
    if ch:
        v, ok = _pick(line, ch)
        return (v, None) if ok else (None, "type a number from the list")
    if typ == "boolean":
        w = line.lower()
        if w in ("y", "yes", "true"):
            return True, None
        if w in ("n", "no", "false"):
            return False, None
        return None, "type y or n"
    if typ in ("number", "integer"):
        try:
            v = int(line) if typ == "integer" else float(line)
        except ValueError:
            return None, "type a%s number" % ("" if typ == "number" else " whole")
        lo, hi = p.get("minimum"), p.get("maximum")
        if isinstance(lo, (int, float)) and v < lo or isinstance(hi, (int, float)) and v > hi:
            return None, "a number from %s to %s" % (lo if lo is not None else "any",
                                                      hi if hi is not None else "any")
        return v, None
    lo, hi = p.get("minLength"), p.get("maxLength")
    if isinstance(lo, int) and len(line) < lo or isinstance(hi, int) and len(line) > hi:
        return None, "%s to %s characters" % (lo or 0, hi if isinstance(hi, int) else "any")
    if p.get("format") == "email" and ("@" not in line or "." not in line.split("@")[-1]):
        return None, "an email address, like name@example.com"
    return line, None
