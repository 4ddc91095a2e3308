# The standalone GET stream of the MCP client: held while a call is pending
# (sent before the call's POST, without waiting for its answer) and watched
# beside the reply stream, so that server requests not tied to the call
# are not lost; they are answered by mcp/answer.py. Imported when a call
# holds the stream, to keep `mcp.client` small. The stream takes a
# connection of its own (the pooled one stays for the POST), and only when
# the board has room for three at once (httpc.room): the call's POST, the
# stream, and a POST to answer what the server asks. An ESP32 without
# PSRAM has TLS room for two, so there a call goes without it and server
# requests arrive on the POST's reply stream only (answered on a second,
# short connection).
#
# Wire format: GET <endpoint> with Accept: text/event-stream and the
# session's Mcp-Session-Id; the server answers 200 text/event-stream (its
# events are JSON-RPC messages, as on a reply stream), 405 (it offers no
# such stream: not asked again in the session) or 409 (it still holds our
# last one: asked again after a moment).
import select

import httpc
import jsonstream
from compat import ticks_ms, ticks_diff, sleep_ms

from mcp import exchange
from mcp.exchange import McpError, stop_listening


# ------------------------------------------------ the standalone GET stream

def hold(conn):
    """Send the GET for the standalone stream before a call's POST, on a
    connection of its own (the pooled one is the POST's). The two come to
    the server on different connections, in either order, so the POST waits
    until the GET is answered, at most 200 ms (some servers start that
    stream's response only with its first event; its answer is then read
    when it comes, poll_get): a call whose tool asks the client something at
    once must find the stream there. After a stream of this session was
    closed (the last call's) the server may not have seen it go yet and
    refuse the new one (409: one stream a session): the GET is sent again
    (a server request sent while no stream is held would be lost). A
    failure to send it, or no room for it beside the POST on this board,
    leaves the call without it."""
    if not httpc.room(conn.url, 3):
        return
    h = exchange.headers(conn, "text/event-stream")
    h["Connection"] = "close"   # never pooled: closing must not drain a live stream
    for _ in range(5):
        try:
            c = httpc.request("GET", conn.url, headers=h, keep=("content-type",),
                              timeout=conn.timeout, connect_timeout=min(conn.timeout, 10),
                              wait=False, fresh=True)
        except (OSError, MemoryError):
            return
        conn.listening = (c, None)
        p = select.poll()
        p.register(c.sock, select.POLLIN)
        if not p.poll(200) or (poll_get(conn) and conn.listening is not None):
            return      # held (no answer yet), or an event stream
        if conn.get is False:
            return      # refused for good
        sleep_ms(100)      # 409: our last stream is still open there


def next_event(conn, sse):
    """Next event of a reply stream, answering the server requests that
    arrive on the standalone GET stream meanwhile. Both streams are read
    without blocking (comments, keep-alive bytes, chunk framing and partial
    lines are consumed or kept) until an event starts on the reply stream;
    between rounds both sockets are polled. Bounded by the timeout; every
    read of the reply also by the running operation's deadline (httpc)."""
    t0 = ticks_ms()
    while True:
        exchange.tick(conn)
        g = conn.listening
        if g is None:
            return sse.next()
        ev = sse.next(False)
        if ev is not None or sse.ended:
            return ev
        if poll_get(conn):
            t0 = ticks_ms()     # the server is talking
            continue
        left = conn.timeout * 1000 - ticks_diff(ticks_ms(), t0)
        if left <= 0:
            conn.late = True
            raise McpError("%s: timed out waiting for the server" % conn.name)
        p = select.poll()
        p.register(sse._src._c.sock, select.POLLIN)   # (httpc internals: the sockets)
        p.register(g[0].sock if g[1] is None else g[0]._c.sock, select.POLLIN)
        p.poll(min(left, 100 if httpc.ON_WAIT else 1000))


def poll_get(conn):
    """Read what the standalone GET stream has now and answer an event that
    is a server request: True when something (its answer's head, an event,
    its end) was handled, False when nothing complete has arrived. The
    stream is dropped when it ends or fails; a server that answers the GET
    with anything but an event stream (405...) is not asked again in the
    session, except 409 (it still holds our last stream)."""
    g = conn.listening
    if g[1] is None:    # the answer to the GET has not been read yet
        p = select.poll()
        p.register(g[0].sock, select.POLLIN)
        if not p.poll(0):
            return False
        # answer() closes the connection on any failure (running out of
        # memory too): it is not looked at again
        conn.listening = None
        try:
            resp = httpc.answer(g[0])
        except OSError:     # (HTTPError too)
            return True
        if resp.status == 200 and resp.headers.get("content-type", "").startswith(
                "text/event-stream"):
            # its reader (a line buffer) is made once the stream has bytes:
            # most calls end with nothing on it
            conn.listening = (resp, False)
            conn.get = True
        else:
            resp.close(False)
            if resp.status != 409:
                conn.get = False
        return True
    if g[1] is False:
        # (httpc internals: bytes read with the head wait in the connection's
        # buffer; more are read into it without blocking, not found by
        # polling the socket, as TLS may hold a record's rest already read)
        c = g[0]._c
        if c.pos == c.end:
            try:
                n = c.recv(c.rmv, False)
            except OSError:
                stop_listening(conn)
                return True
            if n is None:
                return False
            c.pos, c.end = 0, n
        # (event/id/retry lines are short: the reply streams' bound, exchange._SSE_LINE)
        g = conn.listening = (g[0], httpc.SSE(g[0], 256))
    try:
        ev = g[1].next(False)
        if ev is None:
            if not g[1].ended:
                return False
            stop_listening(conn)
            return True
        if ev.empty or ev.event != "message":
            return True
        m = exchange.Msg(None)
        exchange.parse(conn, m, ev, "a server request")
    except (httpc.HTTPError, jsonstream.JSONError, McpError):
        stop_listening(conn)
        return True
    if m.method is not None:
        m.incoming(conn)
    return True
