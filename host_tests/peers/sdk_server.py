"""MCP test peer: the official Python SDK (PyPI `mcp`, 2.x MCPServer API)
serving Streamable HTTP on 127.0.0.1:PORT/mcp (or --host), for host tests of
lib/mcp and make hil.

Run it as its own process with the venv's CPython and isolation so that our
lib/ (which has its own `mcp` package) is never on sys.path:

    .venv/bin/python -I host_tests/peers/sdk_server.py --port P
        [--json] [--stateless] [--token T] [--host ADDRESS]

--json       replies are application/json instead of text/event-stream
--stateless  no Mcp-Session-Id, every request stands alone
--token T    require `Authorization: Bearer T`; otherwise 401 with
             WWW-Authenticate (the SDK's own TokenVerifier + AuthSettings)
--host A     listen on A instead of 127.0.0.1 (make hil: an address of
             this computer that a board reaches over WiFi)
--big        more tools for memory tests: big(size) returns `size`
             characters of text, which the SDK also sends as
             structuredContent {"result": ...}; big_text(size) the text
             only; picture(size) a PNG of `size` bytes (its header, then
             picture_bytes' pattern) as an image item

Tools: add, echo, get_weather, fail (raises -> isError), slow_count
(progress notifications + log messages before the answer).
This script is CPython-only test machinery; it is not part of lib/.
"""
import argparse
import asyncio
import os
import sys
import threading
import time

# Refuse to run with our lib/ shadowing the SDK: the error would be baffling.
for _p in sys.path:
    if os.path.isfile(os.path.join(_p or ".", "compat.py")):
        sys.exit("sdk_server: project lib/ is on sys.path (%s); run with python -I" % _p)

from mcp.server.auth.provider import AccessToken  # noqa: E402
from mcp.server.auth.settings import AuthSettings  # noqa: E402
from mcp.server.mcpserver import Context, Image, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from pydantic import BaseModel  # noqa: E402

WEATHER = {
    "rochdale": "Rochdale: 12 C, drizzle",
    "london": "London: 15 C, overcast",
    "lisbon": "Lisbon: 24 C, sunny",
}


class StaticToken:
    """TokenVerifier (SDK protocol) that accepts exactly one bearer token."""

    def __init__(self, token):
        self.token = token

    async def verify_token(self, token):
        if token != self.token:
            return None
        return AccessToken(token=token, client_id="peers-test", scopes=[])


BIG = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


def big_text(size):
    return (BIG * (size // len(BIG) + 1))[:size]


def picture_bytes(size):
    """A PNG's signature, then bytes 0-255 over and over: `size` bytes."""
    head = b"\x89PNG\r\n\x1a\n"
    return (head + bytes(range(256)) * (size // 256 + 1))[:size]


def build(port, token, host, big=False, ask=False):
    kw = {"log_level": "WARNING"}
    if token:
        base = "http://%s:%d" % (host, port)
        kw["token_verifier"] = StaticToken(token)
        kw["auth"] = AuthSettings(issuer_url=base, resource_server_url=base + "/mcp",
                                  validate_token_resource=False)
    app = MCPServer("peers-sdk-server", version="1.0.0", **kw)

    @app.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @app.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @app.tool()
    def get_weather(city: str) -> str:
        """Current weather for a city (canned, deterministic)."""
        return WEATHER.get(city.strip().lower(), "%s: 18 C, clear" % city.strip())

    @app.tool()
    def fail(reason: str) -> str:
        """Always fails with the given reason (tool error, isError=true)."""
        # ToolError: the SDK passes its text to the client; any other
        # exception is reported only as "Error executing tool fail".
        raise ToolError(reason)

    @app.tool()
    async def slow_count(n: int, ctx: Context) -> str:
        """Count to n, sending a progress notification and a log message per step."""
        n = max(0, min(n, 50))
        for i in range(1, n + 1):
            await ctx.info("counting %d of %d" % (i, n))
            await ctx.report_progress(i, n, "step %d" % i)
            await asyncio.sleep(0.02)
        return "counted to %d" % n

    if big:
        @app.tool()
        def big(size: int) -> str:
            """size characters of text (also as structuredContent)."""
            return big_text(size)

        @app.tool(name="big_text", structured_output=False)
        def big_plain(size: int) -> str:
            """size characters of text, no structuredContent."""
            return big_text(size)

        @app.tool()
        def picture(size: int) -> Image:
            """A PNG of size bytes, as an image item."""
            return Image(data=picture_bytes(size), format="png")

        @app.resource("big://{size}", mime_type="text/plain")
        def big_resource(size: str) -> str:
            """size characters of text as a resource."""
            return big_text(int(size))

    if ask:
        class Name(BaseModel):
            name: str
            times: int = 1

        @app.tool()
        async def greet(ctx: Context) -> str:
            """Ask the person for a name (elicitation on the call's own stream)."""
            r = await ctx.elicit("Who should I greet?", Name)
            if r.action != "accept":
                return "nobody to greet (%s)" % r.action
            return " ".join(["hello, %s!" % r.data.name] * r.data.times)

    return app


def watch_parent():
    # Exit when the test process that started us is gone (no orphans).
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--stateless", action="store_true")
    ap.add_argument("--token")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--ask", action="store_true")
    a = ap.parse_args()
    threading.Thread(target=watch_parent, daemon=True).start()
    app = build(a.port, a.token, a.host, a.big, a.ask)
    app.run("streamable-http", host=a.host, port=a.port, streamable_http_path="/mcp",
            json_response=a.json, stateless_http=a.stateless)


if __name__ == "__main__":
    main()
