"""Conformance-suite client command (CPython) built on lib/mcp.

    python host_tests/mcp_conformance_client.py <url>
with MCP_CONFORMANCE_SCENARIO set (the suite does both). The logic lives in
host_tests/scenarios/mcp_conf.py so the same client also runs under the
MicroPython unix port as a compiled scenario (`micropython -m mcp_conf`).
lib/ goes first on sys.path: the Python SDK installed in .venv is also
called `mcp`.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[0:0] = [os.path.join(os.path.dirname(HERE), "lib"), os.path.join(HERE, "scenarios")]

import mcp_conf  # noqa: E402

if __name__ == "__main__":
    sys.exit(mcp_conf.main())
