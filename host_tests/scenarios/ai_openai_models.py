# A large OpenAI-style model list through ai.fetch_models under a small heap:
# only the ids are materialized (the driver keeps at most its limit).
# argv: base_url provider key store_root
import sys
import ai
import store
import heapmon
# imported before the baseline: ai.ask loads it lazily, but its bytecode is
# frozen in flash on the device and is not part of the working set
from ai.styles import openai  # noqa: F401

base, provider, key = sys.argv[1:4]
store.set_root(sys.argv[4])
store.update({"ai.chat.provider": provider, "ai.chat.base_url": base})  # chat's: the provider's
heapmon.start()
# limit: 500 kept ids (the default) are ~40 KB on this 64-bit port by themselves
models, err = ai.fetch_models(provider=provider, key=key if key != "-" else None,
                              limit=100)
print("MODELS", len(models or ()), repr(err), repr((models or ["-"])[-1]))
heapmon.report()
