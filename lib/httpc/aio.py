# httpc.aio: the asyncio driver of httpc's step generators, imported only
# by programs that await (ai.aio, mcp.aio): a blocking program never loads
# asyncio.
#
#     resp = await httpc.aio.request("GET", url, ...)   # as httpc.request
#     value = await httpc.aio.run(steps)                 # any step generator
#
# The protocol (request and head, chunked bodies, SSE, the styles' events,
# the MCP exchange) is written once, as step generators (compat.drive):
# given block=False they never wait, they yield the connection that must
# become ready (c.wr: to write, else to read) or an int, ms to sleep. run()
# awaits that and goes on; the blocking driver (compat.drive) runs the same
# generators with block=True, where the reads wait inside.
#
# What still holds the loop: the DNS lookup (getaddrinfo blocks), the TLS
# handshake (its arithmetic; on MicroPython its round trips too: it runs
# inside the request's first write), the request's writes (they wait for
# the socket to take them: a long request on a slow link), and a unit of
# the reply too long for its buffer (an SSE event over its buffer, a whole
# JSON body) read to its end as it arrives.
#
# Time: one watchdog task for every call waiting (not a wait_for per read)
# cancels a call's task when no byte came within the connection's timeout,
# or its deadline passed; the call turns that into the HTTPError the
# blocking driver raises ("timed out waiting for HOST", kind "timeout" or
# "deadline").
# Cancelling the task (or leaving an `async with` early) closes the
# connection at once (never pooled) and re-raises CancelledError.
#
# The board's budget: connections count in the one pool of httpc (its
# TLS_MAX and SOCKETS_MAX; pool_stats, close_all). A new connection that
# does not fit waits for one to close, up to its connect timeout, then
# fails as the blocking driver does ("no room for a connection ...").
import errno
import select
import socket

from compat import CALLS, MICROPYTHON, ticks_ms, ticks_diff
import httpc
from httpc import HTTPError

if MICROPYTHON:
    import asyncio
    from asyncio import core as _core

    def _ready(c):
        """Wait until c's socket can be read (or written: c.wr)."""
        if c.wr:
            yield _core._io_queue.queue_write(c.sock)
        else:
            yield _core._io_queue.queue_read(c.sock)

    def _task():
        return _core.cur_task

    def _loop():
        return _core._task_queue     # (new with each new_event_loop)
else:
    import asyncio

    async def _ready(c):
        s = c.sock
        if not c.wr and getattr(s, "pending", None) and s.pending():
            return      # (TLS: bytes already decrypted, the socket is quiet)
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        fd = s.fileno()
        add, remove = (loop.add_writer, loop.remove_writer) if c.wr else \
            (loop.add_reader, loop.remove_reader)
        add(fd, _wake, fut)
        try:
            await fut
        finally:
            remove(fd)

    def _wake(fut):
        if not fut.done():
            fut.set_result(None)

    def _task():
        return asyncio.current_task()

    def _loop():
        return asyncio.get_running_loop()

_BUDGET_POLL = 20       # ms between looks for room under the board's budget


def _threshold(t=None):
    """gc.threshold() (MicroPython's; CPython's GC has none to keep)."""
    if MICROPYTHON:
        import gc
        if t is None:
            return gc.threshold()
        gc.threshold(t)
_IDLE = 100             # ms the watchdog sleeps at most between looks


_armed = []             # the Steps waiting now with a time limit (_watch)
_watcher = [None, None]     # the one watchdog task while any is armed, its loop


async def _watch():
    """Every _IDLE ms: a Steps whose wait passed its time limit gets the
    error to raise in .err and its task is cancelled (Steps._wait turns
    that into the error). Ends when nothing waits."""
    while _armed:
        now = ticks_ms()
        i = 0
        while i < len(_armed):
            s = _armed[i]
            if ticks_diff(now, s.due) >= 0:
                c = s.c
                s.err = httpc._late(c.deadline, c.host) if s.late else \
                    HTTPError("timed out waiting for %s" % c.host, "timeout", c.sent)
                _armed.pop(i)
                s.task.cancel()
            else:
                i += 1
        if MICROPYTHON:
            await asyncio.sleep_ms(_IDLE)
        else:
            await asyncio.sleep(_IDLE / 1000)
    _watcher[0] = None


class Steps:
    """A step generator run in the calling task, a step at a time:
    advance() runs it to its next yield (sending it what the last wait
    gave), wait() awaits what it yielded: a connection to become ready, ms
    to sleep, or an awaitable it hands over (an approval that is a
    coroutine), whose value it gets back. Closed (by close(), or when the
    task is cancelled in wait()) the generator's finally blocks run: its
    connection is closed, never pooled."""

    def __init__(self, steps):
        self.g = steps
        self.w = self.c = self.task = self.err = None
        self.due = 0
        self.late = False
        self.val = self.exc = self.value = None
        self.done = self.stopped = False
        self.keys = []      # the servers waited on: their pooled connections
        if not CALLS[0]:
            CALLS[1] = _threshold()
        CALLS[0] += 1

    def advance(self):
        """Run the generator to its next wait: True once it has returned
        (its value in .value)."""
        try:
            w = self.g.send(self.val) if self.exc is None else self.g.throw(self.exc)
        except StopIteration as e:
            self.value = e.value
            self.done = True
            self._unwatch()
            return True
        except BaseException:
            self.done = True
            self._unwatch()
            raise
        self.val = self.exc = None
        self.w = w
        return False

    async def wait(self):
        """Await what the generator asked for at its last advance()."""
        w = self.w
        self.w = None
        try:
            if isinstance(w, int):
                if MICROPYTHON:
                    await asyncio.sleep_ms(w)
                else:
                    await asyncio.sleep(w / 1000)
            elif isinstance(w, httpc._Conn):
                await self._wait(w)
            elif w is not None:
                try:
                    self.val = await w
                except Exception as e:      # (the generator words it)
                    self.exc = e
        except BaseException:
            self.close()
            raise

    async def step(self):
        """advance() and wait(): True once the generator has returned."""
        if self.advance():
            return True
        await self.wait()
        return False

    async def _wait(self, c):
        if self.keys is not None and c.key not in self.keys:
            self.keys.append(c.key)
        # the limit: the read timeout, or what is left of the deadline
        # when that is sooner (httpc._due raises once it has passed)
        ms = c.timeout_ms
        try:
            left = httpc._due(c.deadline, c.host)
        except HTTPError as e:
            self.exc = e
            return
        self.late = left is not None and left <= ms
        self.c = c
        self.due = ticks_ms() + (left if self.late else ms)
        self.task = _task()
        loop = _loop()
        if _watcher[1] is not loop:     # a new loop (an old one abandoned)
            _armed.clear()
            _watcher[0], _watcher[1] = None, loop
        _armed.append(self)
        if _watcher[0] is None:
            _watcher[0] = asyncio.create_task(_watch())
        try:
            await _ready(c)
        except asyncio.CancelledError:
            if self.err is None:
                raise                   # the caller's
            self.exc, self.err = self.err, None
            if not MICROPYTHON:
                self.task.uncancel()
        finally:
            if self in _armed:
                _armed.remove(self)
            self.c = self.task = None

    def close(self):
        """Stop the generator before its end (a cancel, a stream left
        early): its connection is closed, and so are the pooled ones of
        the servers it used (an earlier round's: nothing stays open for a
        call that was given up)."""
        if not self.done:
            self.done = self.stopped = True
            self.g.close()      # (GeneratorExit at its yield: its finally blocks run)
            for k in self.keys or ():
                c = httpc.pooled.pop(k, None)
                if c is not None:
                    c.close()
        self._unwatch()

    def _unwatch(self):
        """The end, whichever way: the last of the calls at once puts the
        GC setting back (compat.CALLS)."""
        if self.keys is not None:
            self.keys = None
            CALLS[0] -= 1
            if not CALLS[0]:
                _threshold(CALLS[1])


async def run(steps):
    """Run a step generator in this task to its end: its return value.
    Cancelled, it closes the generator and re-raises."""
    s = Steps(steps)
    while not await s.step():
        pass
    return s.value


def _open(key, connect_timeout, ca, deadline):
    """A new connection, as httpc._open makes one, without waiting: a step
    generator (the opener of httpc.steps). Waits its turn under the
    board's budget; connects without blocking; on MicroPython the TLS
    handshake runs in the request's first write, on CPython here."""
    scheme, host, port = key
    t0 = ticks_ms()
    while True:
        try:
            httpc._room(key)
            break
        except HTTPError as e:
            if e.kind != "budget" or ticks_diff(ticks_ms(), t0) >= connect_timeout * 1000:
                raise
            yield _BUDGET_POLL
    ctx = None
    if scheme == "https":
        from httpc.ca import context
        ctx = context(ca)
    fam, addr = httpc._address(host, port)
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.setblocking(False)
    except BaseException:
        s.close()
        raise
    c = httpc._made(httpc._Conn(key, host, s))
    try:
        httpc._nodelay(s)
        c.deadline = deadline
        c.set_timeout(connect_timeout * 1000)
        where = "%s:%d" % (host, port)
        try:
            s.connect(addr)
        except OSError as e:
            if e.args[0] not in (errno.EINPROGRESS, errno.EAGAIN):
                raise _refused(e, where)
            c.wr = True
            try:
                yield c
            except HTTPError as e:
                if e.kind == "timeout":
                    raise HTTPError("timed out connecting to %s" % where, "timeout")
                raise
            c.wr = False
            c.poll.modify(s, select.POLLOUT)
            ev = c.poll.poll(0)
            c.poll.modify(s, select.POLLIN)
            if ev and ev[0][1] & (select.POLLERR | select.POLLHUP):
                try:
                    s.connect(addr)     # (again: it raises what went wrong)
                except OSError as e:
                    raise _refused(e, where)
                raise HTTPError("cannot connect to %s" % where, "connect")
        httpc.counts["opened"] += 1
        if ctx is not None:
            from compat import clock_ok
            clock_ok()
            try:
                if MICROPYTHON:
                    c.use(ctx.wrap_socket(s, server_hostname=host, do_handshake_on_connect=False))
                else:
                    t = ctx.wrap_socket(s, server_hostname=host, do_handshake_on_connect=False)
                    c.use(t)
                    yield from _handshake(c, t)
            except (OSError, ValueError) as e:
                if isinstance(e, HTTPError):
                    raise
                from httpc.errors import handshake_error
                raise handshake_error(e, host, where)
        return c
    except BaseException:
        c.close()
        raise


if not MICROPYTHON:
    def _handshake(c, t):
        import ssl
        while True:
            try:
                t.do_handshake()
                return
            except ssl.SSLWantReadError:
                c.wr = False
            except ssl.SSLWantWriteError:
                c.wr = True
            yield c
            c.wr = False


def _refused(e, where):
    from httpc.errors import reason
    return HTTPError("cannot connect to %s: %s" % (where, reason(e)), "connect")


async def request(method, url, headers=None, body=None, keep=(), timeout=30,
                  connect_timeout=10, max_redirects=3, ca=None, secret=(), deadline=None,
                  fresh=False):
    """httpc.request, awaited: the Response (its head read). Read its body
    with `await read(resp, buf)` (or httpc.SSE over it, with take())."""
    return await run(httpc.steps(method, url, headers, body, keep, timeout, connect_timeout,
                                 max_redirects, ca, secret, deadline, True, fresh, _open))


async def readinto(resp, buf):
    """resp.readinto(buf), awaiting bytes: the count, 0 at the end."""
    return await run(_readinto(resp, buf))


def _readinto(resp, buf):
    while True:
        n = resp.readinto(buf, False)
        if n is not None:
            return n
        yield resp._c
