# Harness self-test: allocate N bytes under a heap cap and report the peak.
import sys
import heapmon

heapmon.start()
buf = bytearray(int(sys.argv[1]))
heapmon.report()
