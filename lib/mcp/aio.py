"""mcp for programs that keep their own asyncio loop: the same calls,
awaited, with the same return values and errors as the blocking ones.

    from mcp import aio
    conn, err = await aio.connect_named("weather")   # or aio.connect(url, ...)
    tools, err = await aio.tools(conn)
    text, err = await aio.call(conn, "get_weather", {"city": "Rochdale"})
    text, err = await aio.read(conn, uri)
    await aio.close(conn)

The exchange (mcp/exchange.py: initialize, a request and its reply, the
SSE events of a reply) is the blocking calls' step generators, run here
by httpc.aio; a blocking program never imports this module. Under asyncio
the session holds no standalone GET stream while a call runs (the server
sends what it asks on the call's own reply), and the rare paths (an OAuth
challenge, a session the server dropped, a reply stream resumed after it
broke) run as the blocking client runs them. Cancelling the task closes
the call's connection at once.
"""
import jsonstream
from compat import tighten, loosen, ticks_ms
from httpc.aio import run, request, _open
import mcp
from mcp import client, exchange


async def _guard(conn, steps):
    """(value, None) of the step generator, within the operation's
    deadline, or (None, err) as the blocking client words it."""
    conn.t0 = ticks_ms()
    gc_was = tighten()
    try:
        return (await run(steps)), None
    except (exchange.McpError, OSError, jsonstream.JSONError, MemoryError) as e:
        return None, client.failure(conn, e)
    finally:
        conn.t0 = None
        loosen(gc_was)


async def connect(url, token=None, name=None, elicit=None, sample=None, timeout=30,
                  authorize=None, deadline=None):
    """mcp.connect, awaited: (conn, err)."""
    conn, err = client.session(url, token, name, elicit, sample, False, timeout, authorize,
                               deadline)
    if err:
        return None, err
    _, err = await _guard(conn, exchange.initialize(conn, _open))
    if err:
        exchange.stop_listening(conn)
        return None, err
    return conn, None


async def connect_named(name, **kw):
    """mcp.connect_named, awaited: (conn, err)."""
    s, err = mcp.named(name, kw)
    if err:
        return None, err
    kw.pop("listen", None)
    return await connect(s["url"], token=s["token"], name=name, **kw)


async def tools(conn, each=None):
    """mcp.tools, awaited: (tools, err)."""
    return await _guard(conn, client._list_tools(conn, False, each, _open))


async def call(conn, name, args=None, out=None, limit=None):
    """mcp.call, awaited: (text, err), the text cut at mcp.max_result (or
    limit); with out, the text goes to out.add(piece) and text is ""."""
    conn.last_is_error = False
    conn.last_files = ()
    args, err = client.arguments(name, args)
    if err:
        return None, err
    return await _text(conn, out, limit, client._call, conn, name, args)


async def read(conn, uri, out=None, limit=None):
    """mcp.read, awaited: (text, err) (out and limit as call's)."""
    from mcp import resource
    conn.last_is_error = False
    if not isinstance(uri, str) or not uri:
        return None, "read_resource needs a uri (a string)"
    return await _text(conn, out, limit, resource._read, conn, uri)


async def _text(conn, out, limit, read, *args):
    """read(*args, dest, limit, opener), a step generator, into out or the
    result spool: as the blocking client.call's (text, err)."""
    if limit is None:
        limit = mcp.limit()
    if out is not None:
        return client.called(conn, "", (await _guard(conn, read(*args, out, limit, _open)))[1],
                             False)
    dest = client.spool()
    try:
        _, err = await _guard(conn, read(*args, dest, limit, _open))
        text, err = client.text_of(conn, dest, err)
    finally:
        client.unspool(dest)
    return client.called(conn, text, err)


async def close(conn):
    """mcp.close, awaited: the session ended (DELETE); errors are ignored."""
    if conn is None:
        return
    exchange.stop_listening(conn)
    if conn.session:
        try:
            resp = await request("DELETE", conn.url, headers=exchange.headers(conn),
                                 timeout=min(conn.timeout, 5), deadline=5)
            resp.close()
        except Exception:
            pass
    conn.session = None
