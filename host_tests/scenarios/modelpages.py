# Pages through a style's model list straight off the socket (the style's
# models_request/read_models + httpc), keeping only a count, so the working
# heap must not grow with the list. Shared by the *_models scenarios.
import httpc


def count(style, cfg):
    """(number of ids, pages, last id)."""
    st = {"n": 0, "last": None}

    def add(mid):
        st["n"] += 1
        st["last"] = mid

    token, pages = None, 0
    while True:
        url, headers = style.models_request(cfg, token)
        r = httpc.request("GET", url, headers, timeout=10)
        try:
            token = style.read_models(cfg, r, add)
        finally:
            r.close()
        pages += 1
        if not token:
            return st["n"], pages, st["last"]
