# ai.edit of big.py on the flash folder under a small heap: lines 11-12
# replaced, with the whole file as context (#file), then ai.undo.
# argv: base_url flash_root; the pytest side queues the answer.
import sys
import ai
import store
from ai import config, editor  # noqa: F401  (code in the baseline, as frozen)
from ai.styles import load
import heapmon

base, root = sys.argv[1:3]
store.set_root(root)
ov = {"provider": "ollama", "base_url": base, "model": "llama3.2", "timeout": 10}
load(config.resolve(ov)["style"])
heapmon.start()
summary, err = ai.edit(root + "/big.py", 11, 12, instruction="set both to numbers, see #file",
                       overrides=ov)
print("EDIT", repr(summary), repr(err))
heapmon.report()
with open(root + "/big.py") as f:
    print("HEAD", repr(f.read(800)))
print("UNDO", repr(ai.undo()[0]))
