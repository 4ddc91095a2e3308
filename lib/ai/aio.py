"""ai for programs that keep their own asyncio loop: the same calls,
awaited, with the same return values, errors, options and history
handling as the blocking ones (lib/README.md: "Programs with their own
loop").

    from ai import aio
    reply, err, calls = await aio.ask(history, opts)
    reply, err = await aio.ask_simple(prompt, opts)
    value, err = await aio.ask_json(prompt, schema, opts)   # opts schema= in ask and run too
    reply, err = await aio.run(history, opts, tools=..., mcps=..., local=..., approve=...)
    async with aio.stream(history, opts) as s:
        async for piece in s:
            ...
    s.reply, s.err, s.tool_calls, s.usage

One protocol core runs under both APIs: ai.steps and ai.run_steps are
the blocking calls' step generators, run here by httpc.aio (imported only
by this module: a blocking program never loads asyncio). The request is
always streamed (its reads never wait; but a structured reply Groq gives
whole only, ai/schema.py's nostream, whose body is read to its end as it
arrives); approve() and a local tool's run
may be coroutine functions. Cancelling the task, or leaving a stream's
`async with` early, closes the connection at once (never pooled) and
re-raises CancelledError; a flash history's turn is committed by the
program, so it holds a whole turn or none.
"""
from httpc.aio import Steps, run as _run, _open
import ai
from ai.styles import LAST


async def ask(history, overrides=None):
    """ai.ask, awaited: (reply, err, tool_calls)."""
    return await _run(ai.steps(history, overrides, _open))


async def ask_json(prompt, schema, opts=None):
    """ai.ask_json, awaited: (value, err); select's functions are plain
    functions, called as each value completes."""
    return await _run(ai.json_steps(prompt, schema, opts, _open))


async def ask_simple(prompt, overrides=None):
    """ai.ask_simple, awaited: (reply, err)."""
    reply, err, _ = await ask([{"role": "user", "content": prompt}], overrides)
    return reply, err


async def run(history, overrides=None, tools=None, mcps=None, max_rounds=8,
              approve=None, show=None, local=None):
    """ai.run, awaited: (reply, err). approve (and an inline tool's "run")
    may be a plain function or a coroutine function."""
    return await _run(ai.run_steps(history, overrides, tools, mcps, max_rounds, approve, show,
                                   local, _open))


class stream:
    """A streamed reply, read as it arrives:

        async with aio.stream(history, opts) as s:
            async for piece in s:
                print(piece, end="")
        s.reply, s.err, s.tool_calls, s.usage   # as ai.ask gives them

    The request runs in the task that iterates (no task of its own): each
    piece is parsed when it is asked for. Leaving the block before the end
    (break, an exception, a cancel) closes the request; s.reply is then
    the text that arrived (as ai.ask keeps it: unless opts keep is False)
    and s.err says it was stopped. s.usage is (tokens in, tokens out) where the service
    reported them, else None."""

    def __init__(self, history, overrides=None):
        o = dict(overrides or {})
        user = o.get("stream")
        self._pieces = []
        self._out = []      # the reply's Out (ai.steps hands it over)

        def sink(piece):
            self._pieces.append(piece)
            if user is not None:
                user(piece)
        o["stream"] = sink
        self._s = Steps(ai.steps(history, o, _open, self._out.append))
        self.reply = self.err = self.tool_calls = self.usage = None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self._s.close()
        if self._s.stopped and self.err is None:
            self.err = "stopped before the reply ended"
            if self._out and self._out[0].spool is not None:
                self.reply = self._out[0].text()     # (what was kept of it)
        self._end()
        return False

    def __aiter__(self):
        return self

    async def __anext__(self):
        s = self._s
        while not self._pieces:
            if s.done:
                raise StopAsyncIteration
            # the wait the last step asked for, then the next step: a piece
            # it gives is handed on before its own wait
            await s.wait()
            if s.advance():
                self.reply, self.err, self.tool_calls = s.value
                if not self.err and (LAST[3] is not None or LAST[4] is not None):
                    self.usage = (LAST[3], LAST[4])
                self._end()
        return self._pieces.pop(0)

    def _end(self):
        if self._out:
            self._out.pop().drop()
