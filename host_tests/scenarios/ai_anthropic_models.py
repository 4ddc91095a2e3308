# The models list of a FakeAnthropic server with many models under a small
# heap. argv: base_url key store_dir mode limit
#   mode "count": page through the style functions + httpc, counting ids
#                 (nothing kept: the working set must not grow with the list)
#   mode "fetch": ai.fetch_models(limit=limit) end to end (keeps the ids)
import sys
import ai
import modelpages
import store
from ai.config import resolve
from ai.styles import anthropic as style
import heapmon

base, key, root, mode, limit = sys.argv[1:6]
store.set_root(root)
store.update({"ai.chat.provider": "anthropic", "ai.chat.base_url": base})
heapmon.start()
if mode == "count":
    cfg = resolve({"provider": "anthropic", "key": key})
    print("COUNT", *modelpages.count(style, cfg))
else:
    models, err = ai.fetch_models(provider="anthropic", key=key, limit=int(limit))
    print("MODELS", repr(err), len(models or ()), (models or ["-"])[0], (models or ["-"])[-1])
heapmon.report()
