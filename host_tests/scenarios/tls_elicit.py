# A tool that asks the person something (elicitation) on a server reached
# over TLS, on a board with TLS room for two: the question comes on the
# call's own reply stream (no GET stream beside the call) and the answer
# goes on a second, short connection. argv: url
import sys
import mcp
from mcp import client  # noqa: F401
import heapmon

asked = []


def elicit(message, schema):
    asked.append(message)
    return {"name": "Ada", "times": 2}


heapmon.start()
conn, err = mcp.connect(sys.argv[1], name="sdk", elicit=elicit)
print("connect", repr(err))
print("greet", mcp.call(conn, "greet", {}), asked)
mcp.close(conn)
heapmon.report()
