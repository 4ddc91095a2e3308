# config.resolve of each overrides dict on stdin (one JSON object a line),
# with the settings of store_root: [provider, base_url, key, model] as
# JSON, or ERR and the error. argv: store_root
import sys
import json
import store
store.set_root(sys.argv[1])
from ai import config

for line in sys.stdin:
    if line.strip():
        try:
            cfg = config.resolve(json.loads(line))
            print(json.dumps([cfg["provider"], cfg["base_url"], cfg["key"], cfg["model"]]))
        except config.ConfigError as e:
            print("ERR", e)
