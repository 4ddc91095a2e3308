"""Model tokens, read when a model names a preset or has options (see
ai/config.py): "<preset>[,thinking=W][,model=ID]" against the catalogue's
PRESETS (one line each: name provider model thinking-map; a scan of that
text, no table in RAM). Imported only for such tokens."""
from ai import catalog
from ai.config import THINKING, ConfigError


def parse(token, head):
    """(preset tuple, model id, thinking word or None) of a model token
    whose head is a preset or that has options; ConfigError names the
    valid presets, options and thinking words."""
    parts = token.split(",")
    table = catalog.PRESETS
    i = ("\n" + table).find("\n" + head + " ") if head else -1
    if i < 0:
        raise ConfigError("unknown preset '%s' in model '%s' (presets: %s)" % (
            head, token, ", ".join(line.split()[0] for line in table.split("\n"))))
    j = table.find("\n", i)
    p = tuple(table[i:j if j > 0 else len(table)].split())
    model, think = p[2], None
    for opt in parts[1:]:
        kv = opt.split("=", 1)
        k = kv[0].strip()
        v = kv[1].strip() if len(kv) > 1 else ""
        if k == "thinking" and (v in THINKING or v == "off"):
            think = v       # (off: none, as ai.<use>.thinking off says)
        elif k == "thinking":
            raise ConfigError("thinking must be one of %s, not %r (in model '%s')" % (
                "|".join(THINKING), v, token))
        elif k == "model" and v:
            model = v
        else:
            raise ConfigError("unknown option '%s' in model '%s' (options: "
                              "thinking=%s, model=<id>)" % (opt.strip(), token, "|".join(THINKING)))
    return p, model, think
