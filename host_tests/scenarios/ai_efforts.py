# The reasoning effort / thinking level each provider, model and thinking
# word gets (ai/catalog.py EFFORTS), one line per stdin line "provider
# model word": the value, or None.
import sys
from ai import catalog

for line in sys.stdin:
    w = line.split()
    if len(w) == 3:
        words = catalog.efforts(w[0], w[1])
        print(catalog.nearest(w[2], words) if words else None)
