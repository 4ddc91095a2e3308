"""MCP test client: the official Python SDK (PyPI `mcp`, 2.x) driving the
board's MCP server (lib/mcpserver/) for host_tests/test_mcp_server.py.

    .venv/bin/python -I host_tests/peers/sdk_client.py URL
        environment: MCP_TOKEN (the bearer token), MCP_STEPS (a JSON list),
        MCP_SESSIONS (sessions in a row, each running the steps; 1)

Steps, run in order on one session; each prints one JSON line (after the
session's first line, {"server", "version"}):
  {"op": "tools"}                         -> {"tools": [{name, title, inputSchema, annotations}]}
  {"op": "call", "name": N, "args": {...}, "progress": true}
                                          -> {"content", "isError", "logs", "progress"}
  {"op": "level", "level": "info"}        -> {"ok": true}
  {"op": "resources", "cursor": C}        -> {"resources": [...], "nextCursor"}
  {"op": "read", "uri": U}                -> {"contents": [...]}
  {"op": "ping"}                          -> {"ok": true}
A step that fails prints {"error": "..."} and the next one runs. The
client answers sampling with "sampled: <prompt>" and elicitation with
{"action": "accept", "content": {"name": "sdk"}}.
Run with python -I: our lib/ has its own `mcp` package.
"""
import asyncio
import json
import os
import sys

for _p in sys.path:
    if os.path.isfile(os.path.join(_p or ".", "compat.py")):
        sys.exit("sdk_client: project lib/ is on sys.path (%s); run with python -I" % _p)

import httpx2  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


def dump(x):
    return x.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(url):
    steps = json.loads(os.environ["MCP_STEPS"])
    logs = []

    async def on_log(params):
        logs.append(params.data)

    async def on_sample(ctx, params):
        prompt = params.messages[0].content.text
        return types.CreateMessageResult(role="assistant", model="sdk",
                                         content=types.TextContent(type="text",
                                                                   text="sampled: " + prompt))

    async def on_elicit(ctx, params):
        return types.ElicitResult(action="accept", content={"name": "sdk"})

    headers = {"Authorization": "Bearer " + os.environ.get("MCP_TOKEN", "")}
    for _ in range(int(os.environ.get("MCP_SESSIONS", "1"))):
        await session(url, headers, steps, logs, on_log, on_sample, on_elicit)


async def session(url, headers, steps, logs, on_log, on_sample, on_elicit):
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, logging_callback=on_log,
                                     sampling_callback=on_sample,
                                     elicitation_callback=on_elicit) as s:
                init = await s.initialize()
                print(json.dumps({"server": init.server_info.name,
                                  "version": init.protocol_version}), flush=True)
                for st in steps:
                    try:
                        out = await step(s, st, logs)
                    except Exception as e:  # the test reads it
                        out = {"error": "%s: %s" % (type(e).__name__, e)}
                    print(json.dumps(out), flush=True)


async def step(s, st, logs):
    op = st["op"]
    if op == "tools":
        r = await s.list_tools()
        return {"tools": [dump(t) for t in r.tools]}
    if op == "call":
        del logs[:]
        prog = []

        async def on_progress(p, total, message):
            prog.append([p, total])
        r = await s.call_tool(st["name"], st.get("args"),
                              progress_callback=on_progress if st.get("progress") else None)
        await asyncio.sleep(0)
        return {"content": [dump(c) for c in r.content], "isError": r.is_error,
                "logs": list(logs), "progress": prog}
    if op == "level":
        await s.set_logging_level(st["level"])
        return {"ok": True}
    if op == "resources":
        p = types.PaginatedRequestParams(cursor=st["cursor"]) if st.get("cursor") else None
        r = await s.list_resources(params=p)
        return {"resources": [dump(x) for x in r.resources], "nextCursor": r.next_cursor}
    if op == "read":
        r = await s.read_resource(st["uri"])
        return {"contents": [dump(c) for c in r.contents]}
    if op == "ping":
        await s.send_ping()
        return {"ok": True}
    raise ValueError("unknown step " + op)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
