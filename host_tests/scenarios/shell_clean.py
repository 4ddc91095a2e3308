"""shell.clean under MicroPython: one JSON string per stdin line -> the hex
of its sanitized UTF-8 (test_shell_clean.py compares with CPython)."""
import sys
import json
import binascii

import shell

for line in sys.stdin:
    if line.strip():
        print(binascii.hexlify(shell.clean(json.loads(line)).encode()).decode())
