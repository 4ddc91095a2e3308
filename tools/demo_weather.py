"""The demo's MCP server (make demo): canned weather, made with the official
MCP Python SDK (PyPI `mcp`, pinned in tools/requirements-peers.txt),
serving Streamable HTTP at http://127.0.0.1:PORT/mcp.

    .venv/bin/python -I tools/demo_weather.py --port P [--host 127.0.0.1]

Run it as its own process with isolation (-I): lib/ has a package named
`mcp` too, and must never be on this process's sys.path. tools/demo.py
starts and stops it.

Tools: get_weather(city), get_forecast(city, days) (1 to 3); one
resource, weather://cities (the cities it knows). Everything is made up
and deterministic; nothing leaves the computer. It ends by itself when
the program that started it is gone.
"""
import argparse
import os
import sys
import threading
import time

for _p in sys.path:
    if os.path.isfile(os.path.join(_p or ".", "compat.py")):
        sys.exit("demo_weather: the project's lib/ is on sys.path (%s); run with python -I" % _p)

from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402

# city -> (temperature C, sky) today; the forecast walks the list on
CITIES = {
    "rochdale": ("Rochdale", 12, "drizzle"),
    "london": ("London", 15, "overcast"),
    "lisbon": ("Lisbon", 24, "sunny"),
    "tokyo": ("Tokyo", 19, "clear"),
    "reykjavik": ("Reykjavik", 4, "snow showers"),
}
SKIES = ("sunny", "overcast", "drizzle", "clear", "windy")


def _city(name):
    key = (name or "").strip().lower()
    if key not in CITIES:
        raise ToolError("no weather for %r (known: %s)" % (
            name, ", ".join(c[0] for c in CITIES.values())))
    return CITIES[key]


def build(host):
    app = MCPServer("antos-demo-weather", version="1.0.0", log_level="WARNING",
                    instructions="Canned weather for a few cities (the AntOS demo).")

    @app.tool()
    def get_weather(city: str) -> str:
        """Current weather for a city: temperature and sky."""
        name, temp, sky = _city(city)
        return "%s: %d C, %s" % (name, temp, sky)

    @app.tool()
    def get_forecast(city: str, days: int = 3) -> str:
        """Weather for the next days (1 to 3) in a city."""
        name, temp, sky = _city(city)
        days = max(1, min(int(days), 3))
        start = SKIES.index(sky) if sky in SKIES else 0
        return "; ".join("%s day %d: %d C, %s" % (name, d + 1, temp + d, SKIES[(start + d) % len(SKIES)])
                         for d in range(days))

    @app.resource("weather://cities", name="cities", title="Cities",
                  description="The cities this server knows", mime_type="text/plain")
    def cities() -> str:
        return "\n".join(c[0] for c in CITIES.values())

    return app


def watch_parent():
    """Exit when the program that started us is gone (no orphans)."""
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    a = ap.parse_args()
    threading.Thread(target=watch_parent, daemon=True).start()
    build(a.host).run("streamable-http", host=a.host, port=a.port, streamable_http_path="/mcp")


if __name__ == "__main__":
    main()
