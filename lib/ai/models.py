"""The catalogue and the live model lists: ai.providers() (the catalogue
as dicts) and ai.fetch_models() (the provider's GET models, page by page),
imported on first use: a chat never lists models."""
import httpc
import jsonstream
from compat import collect, const, ticks_ms
from ai import catalog
from ai.config import ConfigError, resolve
from ai.errors import explain, network_error, scrub
from ai.styles import StyleError, load

_MAX_PAGES = const(50)


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
    from ai import _left
    try:
        for _ in range(_MAX_PAGES):
            url, headers = style.models_request(cfg, token)
            with httpc.request("GET", url, headers, keep=KEEP, timeout=cfg["timeout"],
                               deadline=_left(cfg, t0)) as resp:
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
