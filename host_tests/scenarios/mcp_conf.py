# Client for the official MCP conformance suite, built on lib/mcp. Runs under
# CPython (host_tests/mcp_conformance_client.py) and the MicroPython unix port
# (`micropython -m mcp_conf <url>`). The suite passes the server URL as the
# last argument and the scenario name in MCP_CONFORMANCE_SCENARIO.
# Like a person at the console, it registers the server (settings in the
# current folder, which the suite makes a fresh temporary one), puts the
# scenario's credentials (MCP_CONFORMANCE_CONTEXT) into that server's
# settings and connects with mcp.connect_named:
#   initialize: connect (initialize + initialized), list tools, close
#   tools_call / sse-retry / elicitation-* / auth/* / others: connect, list
#     tools, call every tool with arguments made from its schema (numbers 2,
#     3, ...; strings "test"); the elicitation scenario's request arrives on
#     the standalone GET stream, which the client holds during a call, and
#     is answered with the schema's defaults (no person, no callback)
# OAuth logins go through browser(): it follows the authorization redirect
# as a browser would (the suite's /authorize redirects at once), the one
# test-only step.
import os
import sys

import httpc
import jsonstream
import mcp
import store

NAME = "conformance"
# the suite's fixed client ID metadata document URL (its CIMD scenarios)
CLIENT_URL = "https://conformance-test.local/client-metadata.json"
# context field -> setting mcp.<NAME>.<part>
CONTEXT = {"client_id": "client_id", "client_secret": "client_secret",
           "private_key_pem": "client_key", "idp_token_endpoint": "idp_url",
           "idp_client_id": "idp_client", "idp_id_token": "idp_token"}


def sample_args(schema):
    """Arguments for a tool call: one value per required property."""
    args = {}
    props = schema.get("properties") or {}
    req = schema.get("required") or []
    n = 2
    for k in sorted(props):
        p = props[k]
        if k not in req:
            continue
        t = p.get("type") if isinstance(p, dict) else None
        if isinstance(p, dict) and "default" in p:
            args[k] = p["default"]
        elif t in ("number", "integer"):
            args[k] = n
            n += 1
        elif t == "boolean":
            args[k] = True
        elif t == "array":
            args[k] = []
        elif t == "object":
            args[k] = {}
        else:
            args[k] = "test"
    return args


def browser(url):
    """The address the authorization endpoint redirects to."""
    r = httpc.request("GET", url, keep=("location",), max_redirects=0)
    r.close()
    print("authorize: HTTP %d" % r.status)
    return r.headers.get("location")


def configure(url):
    """The server and the scenario's credentials, as settings."""
    err = mcp.add(NAME, url)
    if err:
        raise SystemExit("mcp.add: " + err)
    pairs = {"mcp.client_url": CLIENT_URL}
    ctx = jsonstream.loads(os.getenv("MCP_CONFORMANCE_CONTEXT") or "{}")
    for k in CONTEXT:
        if k in ctx:
            pairs["mcp.%s.%s" % (NAME, CONTEXT[k])] = ctx[k]
    store.update(pairs)


def run(url, scenario):
    configure(url)
    conn, err = mcp.connect_named(NAME, authorize=browser)
    if err:
        print("connect:", err)
        return 1
    print("connected: %s %s session=%s" % (conn.server, conn.version, bool(conn.session)))
    rc = 0
    try:
        tools, err = mcp.tools(conn)
        if err:
            print("tools:", err)
            return 1
        print("tools:", [t["name"] for t in tools])
        if scenario == "initialize":
            return 0
        for t in tools:
            text, err = mcp.call(conn, t["name"], sample_args(t["parameters"]))
            if err:
                print("call %s: %s" % (t["name"], err))
                rc = 1
            else:
                print("call %s: %s" % (t["name"], text))
    finally:
        mcp.close(conn)
    return rc


def main():
    url = sys.argv[-1]
    scenario = os.getenv("MCP_CONFORMANCE_SCENARIO") or ""
    print("scenario:", scenario, "url:", url)
    rc = run(url, scenario)
    print("exit", rc)
    return rc


# run directly, or as the target of romboot (the harness imports it by name)
if __name__ == "__main__" or sys.argv[0] == "mcp_conf":
    sys.exit(main())
