# jsonstream under MicroPython: parse each file listed in argv[1] (one path
# per line) from the file itself (readinto, bufsize argv[2]) and print one
# line per file: "<name> accept <dumps(value)>" or "<name> reject <message>";
# any other exception is printed as "<name> CRASH <type> <message>".
import sys
import gc
import jsonstream

bufsize = int(sys.argv[2])
count = 0
lst = open(sys.argv[1])
while True:
    path = lst.readline().strip()
    if not path:
        break
    count += 1
    gc.collect()  # keep the 32K heap unfragmented between files
    name = path.split("/")[-1]
    try:
        with open(path, "rb") as f:
            v = jsonstream.load(f, bufsize=bufsize)
        try:
            out = jsonstream.dumps(v)
        except jsonstream.JSONError:  # inf cannot be written as JSON
            out = "repr:" + repr(v)
        print(name, "accept", out)
    except jsonstream.JSONError as e:
        print(name, "reject", e)
    except Exception as e:  # noqa: BLE001 - reported as a crash by the test
        print(name, "CRASH", type(e).__name__, e)
    try:  # the same file through skip_value(): same verdict expected
        with open(path, "rb") as f:
            p = jsonstream.Parser(f, bufsize=bufsize)
            p.skip_value()
            p.finish()
        print(name, "skip-accept", p.pos())
    except jsonstream.JSONError as e:
        print(name, "skip-reject", e)
    except Exception as e:  # noqa: BLE001
        print(name, "CRASH", type(e).__name__, e)
print("DONE", count)
