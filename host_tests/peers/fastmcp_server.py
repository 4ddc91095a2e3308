"""Servers built with PyPI `fastmcp` (pinned in tools/requirements-peers.txt),
as MCP test peers on 127.0.0.1 (streamable HTTP at /mcp):

    fastmcp_server.py --port P text
        tools text(size) (size characters of a fixed pattern: fastmcp sends
        it as text and again as structuredContent {"result": ...}) and
        text_only(size) (no structuredContent), and the resource template
        text://{size};
    fastmcp_server.py --port P filesystem ROOT NODE SERVER_JS
        a fastmcp proxy of the reference filesystem server (npm
        @modelcontextprotocol/server-filesystem, which speaks stdio only)
        over ROOT: its tools (read_text_file, list_directory...) as the
        proxy's.

Run as its own process by host_tests/peers.py (fastmcp's `mcp` must not meet
lib/mcp). Exits when the test process that started it goes away.
"""
import argparse
import os
import threading
import time

PATTERN = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


def pattern(size):
    return (PATTERN * (size // len(PATTERN) + 1))[:size]


def text_server():
    from fastmcp import FastMCP
    app = FastMCP("peers-fastmcp")

    @app.tool
    def text(size: int) -> str:
        """size characters of text (fastmcp adds them as structuredContent)."""
        return pattern(size)

    @app.tool(output_schema=None)
    def text_only(size: int) -> str:
        """size characters of text, no structuredContent."""
        return pattern(size)

    @app.resource("text://{size}", mime_type="text/plain")
    def text_resource(size: str) -> str:
        """size characters of text as a resource."""
        return pattern(int(size))

    return app


def filesystem_server(root, node, script):
    from fastmcp.server import create_proxy
    config = {"mcpServers": {"fs": {"command": node, "args": [script, root],
                                    "transport": "stdio"}}}
    return create_proxy(config, name="peers-filesystem")


def watch_parent():
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("mode", choices=["text", "filesystem"])
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    threading.Thread(target=watch_parent, daemon=True).start()
    app = text_server() if a.mode == "text" else filesystem_server(*a.args)
    app.run("http", host="127.0.0.1", port=a.port, path="/mcp", show_banner=False,
            log_level="warning")


if __name__ == "__main__":
    main()
