"""Generate an OpenAI-style models list of about a given size (host side)."""
import json


def entry(i):
    return {"id": "model-%06d" % i, "object": "model", "created": 1700000000 + i,
            "owned_by": "org-%08x" % (i * 2654435761 % (1 << 32))}


def write_models(path, size):
    """Write {"object":"list","data":[...]} of about `size` bytes to path;
    return (entries, ids total length, last id) for checking."""
    probe = len(json.dumps(entry(0))) + 2
    count = max(1, size // probe)
    doc = {"object": "list", "data": [entry(i) for i in range(count)]}
    with open(path, "w") as f:
        json.dump(doc, f)
    ids = [e["id"] for e in doc["data"]]
    return count, sum(len(x) for x in ids), ids[-1]
