# Heap kept by each import, in order (argv: module names). Run under romboot
# so the bytecode stays in the ROM image: what is left is what the board
# pays for an import (qstrs, function/class/module objects, tables).
import gc
import sys

gc.collect()
base = prev = gc.mem_alloc()
for name in sys.argv[1:]:
    __import__(name)
    gc.collect()
    now = gc.mem_alloc()
    print("IMPORT %s %d" % (name, now - prev))
    prev = now
print("IMPORT total %d" % (prev - base))
