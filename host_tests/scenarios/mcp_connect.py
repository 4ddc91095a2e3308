# mcp.connect of each URL on the command line: prints CONNECT and the
# error (or None). argv: url ...
import sys
import mcp

for url in sys.argv[1:]:
    conn, err = mcp.connect(url, name="x", timeout=5, deadline=10)
    print("CONNECT", repr(err))
    if conn:
        mcp.close(conn)
