"""Settings per use-type. Each field resolves, first hit wins: the per-call
overrides, then ai.<use>.<field>, then ai.general.<field>, then the provider's
default from the catalogue.

Credentials belong to a provider. The fields tied to one provider (model,
key, base_url, tools, style: BOUND) of a use-type's settings are the
provider's those settings are set up for: ai.<use>.provider, else the
provider of a preset in ai.<use>.model, else (ai.<use> naming none)
ai.general's. They apply only when that is the provider of the request
(or when no provider is named at all: the rule ai.general always had); a
provider chosen elsewhere (an override, `ai -m PRESET`, `ai models P`)
takes its own: ai.general's when ai.general is set up for it, else the
catalogue's (and a missing key is an error that says so). A key is never
sent to a host it was not set for, nor a model id to another service.

Model tokens: wherever a model is named (the model override, ai.<use>.model,
`ai -m TOKEN`, the wizard) the value may be
    <preset>[,thinking=minimal|low|medium|high|max][,model=<raw id>]
A preset (ai/catalog.py PRESETS) names a provider and a model id and
selects that provider; model= keeps the preset's provider and thinking map
with another id; thinking= sits between the thinking override and the
thinking settings. A value without a comma that is no preset is a plain
model id for the provider the settings name. Unknown presets, options and
thinking words are errors that list the valid ones.

Style: ai.<use>.style (or the style override) switches a provider of the
openai or responses style to the other (OpenAI-compatible services that
serve both /chat/completions and /responses)."""
import store
from ai import catalog
from compat import const
# settings that cannot be used (unknown provider, preset, option...): the
# one exception class of the ai package (each class costs a few hundred
# bytes of heap from import on, and no caller needs to tell them apart)
from ai.styles import StyleError as ConfigError

THINKING = ("minimal", "low", "medium", "high", "max")
_DEFAULT_TIMEOUT = const(60)     # seconds per socket wait (first byte included)
_DEFAULT_DEADLINE = const(300)   # seconds for a whole exchange, retries included
_DEFAULT_MAX_REPLY = const(16384)     # characters ask() returns (the console: 128 KB)


BOUND = ("model", "key", "base_url", "tools", "style")     # fields of one provider


def _scope_provider(scope):
    """(provider, setting) that ai.<scope> is set up for by itself:
    ai.<scope>.provider, else a preset's in ai.<scope>.model; or (None,
    None)."""
    name = "ai.%s.provider" % scope
    p = store.get(name)
    if p:
        return p, name
    name = "ai.%s.model" % scope
    m = store.get(name)
    if isinstance(m, str) and m:
        try:
            preset = parse_model(m)[0]
        except ConfigError:
            preset = None
        if preset:
            return preset[1], name
    return None, None


def _setting(use, field, provider, owners):
    """(value, setting name) from ai.<use> then ai.general, or (None,
    None); a BOUND field only from settings set up for provider, or for
    none at all (owners: {scope: the provider its settings are for})."""
    for scope in (use, "general") if use != "general" else ("general",):
        if field in BOUND and owners[scope] not in (None, provider):
            continue
        name = "ai.%s.%s" % (scope, field)
        v = store.get(name)
        if v is not None and v != "":
            return v, name
    return None, None


def _number(v, name, kind):
    try:
        return kind(v)
    except (TypeError, ValueError):
        raise ConfigError("%s must be a number, not %r" % (name, v))


def source(cfg, field):
    """The setting that gave cfg[field] (overrides["key"] for a Python
    caller's), or the one to make: ai.<scope>.<field> of the settings the
    provider came from (ai.general's when ai.general named it), else
    ai.<use>.<field>."""
    s = cfg["sources"].get(field)
    if s == "overrides":
        return 'overrides["%s"]' % field
    if s:
        return s
    p = cfg["sources"].get("provider") or ""
    if field in BOUND and p.startswith("ai."):
        return p[:p.rfind(".") + 1] + field
    return "ai.%s.%s" % (cfg["use"], field)



def parse_model(token):
    """(preset tuple or None, model id, thinking word or None) of a model
    token (see the module docstring); ConfigError names the valid words. A
    plain id is told from a preset here; tokens are read by ai/presets.py
    (imported only for them)."""
    head = token.split(",", 1)[0].strip()
    if "," not in token and ("\n" + catalog.PRESETS).find("\n" + head + " ") < 0:
        return None, token, None
    from ai import presets
    return presets.parse(token, head)


def resolve(overrides=None):
    """The full configuration for one request, or ConfigError with the
    setting to make."""
    o = overrides or {}
    use = o.get("use") or "chat"
    # the provider each scope's settings are set up for (see the top)
    gp = _scope_provider("general")
    up = _scope_provider(use) if use != "general" else gp
    owners = {"general": gp[0], use: up[0] or gp[0]}
    pid, psrc = o.get("provider"), "overrides"    # psrc: where it comes from (the hints)
    if not pid:
        pid, psrc = up if up[0] else gp
    # a preset in the model token names the provider
    token, tsrc = (o.get("model"), "overrides") if o.get("model") else _setting(
        use, "model", pid, owners)
    preset, model, think = parse_model(token) if isinstance(token, str) else (None, None, None)
    if preset:
        if o.get("provider") and o["provider"] != preset[1]:
            raise ConfigError("model '%s' is a preset of %s, not of provider %s" % (
                token, preset[1], o["provider"]))
        pid, psrc = preset[1], tsrc
    if not pid:
        raise ConfigError("no AI provider set for '%s' (run: ai config; or set "
                          "ai.%s.provider for %s alone)" % (use, use, use))
    entry = catalog.find(pid)
    if entry is None:
        raise ConfigError("unknown provider '%s' (known: %s)" % (pid, ", ".join(catalog.ids())))
    cfg = {"provider": pid, "name": entry["name"], "style": entry["style"],
           "use": use, "local": entry.get("local", False),
           "quirks": tuple(entry["quirks"].split())}
    sources = {}
    for field in ("model", "key", "base_url", "max_tokens", "temperature",
                  "system", "timeout", "deadline", "thinking", "tools", "style",
                  "max_reply"):
        f = field       # tools: a level (str) or definitions; then tools_level
        if field == "tools" and not isinstance(o.get(field), str):
            f = "tools_level"
        if o.get(f) is not None:
            v, src = o[f], "overrides"
        elif field == "model":
            v, src = (None, None) if preset else (token, tsrc)
        else:
            v, src = _setting(use, field, pid, owners)
        cfg[field] = v
        if src:
            sources[field] = src
    sources["provider"] = psrc
    cfg["sources"] = sources    # only what was set: see source()
    cfg["thinking_map"] = None
    if preset:
        cfg["model"] = model
        sources["model"] = tsrc
        cfg["thinking_map"] = preset[3]
        if think and o.get("thinking") is None:
            cfg["thinking"] = think
            sources["thinking"] = tsrc
    style = cfg["style"] or entry["style"]
    switchable = ("openai", "responses")        # styles a provider may swap
    if style != entry["style"] and (style not in switchable or entry["style"] not in switchable):
        raise ConfigError("%s: %s speaks only the %s style, not %r" % (
            source(cfg, "style"), pid, entry["style"], style))
    cfg["style"] = style
    cfg["model"] = cfg["model"] or entry["model"]
    cfg["base_url"] = (cfg["base_url"] or entry["base_url"]).rstrip("/")
    cfg["tools_level"] = cfg.pop("tools") or entry["tools"]
    if cfg["tools_level"] not in ("native", "text-fallback", "none"):
        raise ConfigError("%s must be native, text-fallback or none" % source(cfg, "tools"))
    if entry["key"] and not cfg["key"]:
        from ai.errors import no_key
        raise ConfigError(no_key(cfg, owners))
    if cfg["max_tokens"] is not None:
        cfg["max_tokens"] = _number(cfg["max_tokens"], source(cfg, "max_tokens"), int)
    else:
        cfg["max_tokens"] = entry["max_tokens"]     # (None: the service's own)
    if cfg["temperature"] is not None:
        cfg["temperature"] = _number(cfg["temperature"], source(cfg, "temperature"), float)
    cfg["timeout"] = _number(cfg["timeout"] or _DEFAULT_TIMEOUT, source(cfg, "timeout"), int)
    cfg["deadline"] = _number(cfg["deadline"] or _DEFAULT_DEADLINE, source(cfg, "deadline"), int)
    t = cfg["thinking"]
    if t in ("", "off", "none"):
        t = None
    if t is not None and t not in THINKING:
        raise ConfigError("%s must be one of %s, not %r" % (source(cfg, "thinking"), "|".join(THINKING), t))
    cfg["thinking"] = t
    cfg["max_reply"] = _number(cfg["max_reply"] or _DEFAULT_MAX_REPLY, source(cfg, "max_reply"), int)
    return cfg
