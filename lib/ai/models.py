"""The catalogue and the live model lists: ai.providers() (the catalogue
as dicts) and ai.fetch_models() (the provider's GET models, page by page),
imported on first use: a chat never lists models.

Wire format of a model list, per style (each style's docstring says it
too; a style's models_request and read_models are these two functions,
through its __getattr__ table):

  openai, responses: GET {base}/models -> {"data": [{"id"}, ...]}: one page.
  anthropic: GET {base}/models?limit=N[&after_id=ID] -> {"data": [{"id"},
    ...], "has_more", "last_id"}; the next page starts after last_id.
  gemini: GET {base}/models?pageSize=N[&pageToken=T] -> {"models":
    [{"name": "models/ID", "supportedGenerationMethods": [...]}, ...],
    "nextPageToken"}; only the models that list generateContent (or list
    no methods) are chat models.
"""
import httpc
import jsonstream
from compat import collect, const, left, quote, ticks_ms
from ai import catalog
from ai.config import ConfigError, resolve
from ai.errors import explain, network_error, scrub
from ai.styles import StyleError, load

_MAX_PAGES = const(50)
ANTHROPIC_PAGE = 100    # models per page (tests set these: one place, here)
GEMINI_PAGE = 1000      # (the service's maximum)


def providers():
    """ai.providers(): the catalogue: a list of dicts (id, name, style, base_url, key,
    model, tools, local)."""
    return [catalog.entry(p) for p in catalog.PROVIDERS]


def fetch_models(provider, key, use, limit, base_url=None):
    """The provider's live model ids (at most `limit`): (models, err)."""
    from ai import KEEP
    o = {"provider": provider, "key": key, "use": use, "base_url": base_url}
    try:
        cfg = resolve(o)
        style = load(cfg["style"])
    except ConfigError as e:
        return None, str(e)
    if "copilot" in cfg["quirks"]:
        from ai import copilot
        err = copilot.prepare(cfg, None)
        if err:
            return None, err
    found = []

    def add(mid):
        if len(found) < limit:
            found.append(mid)

    token = None
    t0 = ticks_ms()
    try:
        for _ in range(_MAX_PAGES):
            url, headers = style.models_request(cfg, token)
            with httpc.request("GET", url, headers, keep=KEEP, timeout=cfg["timeout"],
                               deadline=left(cfg["deadline"], t0)) as resp:
                if resp.status != 200:
                    msg, _, kind = style.error_info(resp.status, resp, resp.headers)
                    return None, explain(cfg, resp.status, scrub(cfg, msg),
                                         "list" if resp.status == 404 else kind, None)
                token = style.read_models(cfg, resp, add)
            if not token or len(found) >= limit:
                break
    except httpc.HTTPError as e:
        return None, network_error(cfg, e)
    except (jsonstream.JSONError, StyleError) as e:
        return None, scrub(cfg, "%s: bad model list (%s)" % (cfg["provider"], e))
    except MemoryError:
        n = len(found)
        found = None
        collect()
        return None, "%s: out of memory after %d models (ask for fewer: limit=%d)" % (
            cfg["provider"], n, n // 2)
    return found, None


def models_request(cfg, page_token):
    """(url, headers) of one page of cfg's model list."""
    style, url = load(cfg["style"]), cfg["base_url"] + "/models"
    if cfg["style"] == "anthropic":
        url += "?limit=%d" % ANTHROPIC_PAGE
        if page_token:
            url += "&after_id=" + quote(page_token)
        return url, style.key_headers(cfg)
    if cfg["style"] == "gemini":
        url += "?pageSize=%d" % GEMINI_PAGE
        if page_token:
            url += "&pageToken=" + quote(page_token)
        return url, style.key_headers(cfg)
    return url, style.bearer_headers(cfg, "application/json")


def read_models(cfg, body, add):
    """Call add(id) per model of one page of cfg's model list; returns the
    next page's token or None."""
    st = {"idx": None, "name": None, "methods": None, "token": None, "more": False}

    def value(key):
        def put(path, v):
            st[key] = v
        return put

    if cfg["style"] == "gemini":
        def close():
            name, methods = st["name"], st["methods"]
            if isinstance(name, str) and name and (
                    not isinstance(methods, list) or "generateContent" in methods):
                add(name[7:] if name.startswith("models/") else name)
            st["name"] = st["methods"] = None

        def model(key):
            put = value(key)

            def at(path, v):
                if path[1] != st["idx"]:
                    if st["idx"] is not None:
                        close()
                    st["idx"] = path[1]
                put(path, v)
            return at

        jsonstream.select(body, {"models[*].name": model("name"),
                                 "models[*].supportedGenerationMethods": model("methods"),
                                 "nextPageToken": value("token")})
        if st["idx"] is not None:
            close()
        t = st["token"]
        return t if isinstance(t, str) and t else None

    def mid(path, v):
        if isinstance(v, str):
            st["name"] = v
            add(v)

    jsonstream.select(body, {"data[*].id": mid, "has_more": value("more"),
                             "last_id": value("token")}, max_value=1024)
    if cfg["style"] != "anthropic" or st["more"] is not True:
        return None
    t = st["token"]
    return t if isinstance(t, str) and t else st["name"]
