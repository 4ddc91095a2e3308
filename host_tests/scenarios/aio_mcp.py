# mcp.aio under the unix port beside the blocking mcp calls (issue 37):
# argv url. The official SDK server: connect, tools, a call, a failing
# tool, a call with progress events; a line each, blocking (B) then
# awaited (A), which the test compares.
import sys
import asyncio
import mcp
from mcp import aio, client, exchange  # noqa: F401  (in the baseline, as frozen code is)
import heapmon

url = sys.argv[1]


def blocking():
    conn, err = mcp.connect(url, name="sdk")
    print("CONNECT B", repr(err), conn.server)
    tools, err = mcp.tools(conn)
    print("TOOLS B", repr(err), sorted(t["name"] for t in tools))
    print("CALL B", repr(mcp.call(conn, "get_weather", {"city": "Rochdale"})))
    print("FAIL B", repr(mcp.call(conn, "fail", {"reason": "no"})))
    print("PROGRESS B", repr(mcp.call(conn, "slow_count", {"n": 3})))
    mcp.close(conn)


async def awaited():
    conn, err = await aio.connect(url, name="sdk")
    print("CONNECT A", repr(err), conn.server)
    tools, err = await aio.tools(conn)
    print("TOOLS A", repr(err), sorted(t["name"] for t in tools))
    print("CALL A", repr(await aio.call(conn, "get_weather", {"city": "Rochdale"})))
    print("FAIL A", repr(await aio.call(conn, "fail", {"reason": "no"})))
    print("PROGRESS A", repr(await aio.call(conn, "slow_count", {"n": 3})))
    await aio.close(conn)


heapmon.start()
blocking()
asyncio.run(awaited())
heapmon.report()
