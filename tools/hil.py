"""The MicroPython scenarios on a board, with their heap (make hil).

    python tools/hil.py --port PORT [--host ADDRESS] [--only NAME,...]
                        [--timeout 120] [--list]

The board runs our firmware (lib/ frozen) or stock MicroPython with lib/
deployed (make deploy): lib/ is not copied here. What is: the scenarios of
host_tests/scenarios that read no file of this computer, with the modules
of that folder they import (heapmon, aisteps, js_chunks: found in their
import lines), compiled with mpy-cross -march=xtensawin (bytecode that
any MicroPython 1.23+ loads), into /hil on the board in one mpremote call
(files whose hash matches are skipped; the folders in /hil, the scenarios'
settings, are emptied first). Each scenario then runs twice, each time in
its own mpremote call, so on a freshly soft-reset heap, as

    import sys; sys.path.insert(0, "/hil"); sys.argv[:] = [NAME, ARGS...]; import NAME

once with the GC as the firmware sets it (boot.py) and once with
heapmon.LIVE (the GC collects every 1 KB while heapmon samples), and
their HEAPMON lines (host_tests/scenarios/heapmon.py) fill a table. The
run with the firmware's GC gives four columns, baseline + peak + least
free = heap (each rounded so that the sum holds as printed):
  baseline   heap in use once the scenario's imports are done
  peak       the sampled peak above it: live data and garbage not yet
             collected, at the worst moment
  least free what was left free then
  heap       the heap's size at the end
and the live run a fifth, not part of that sum:
  working    its sampled peak above its own baseline: the live data,
             what the "working set" column of tools/bench/MEASUREMENTS.md
             gives on the unix port
A board without _thread samples only at the start and the end: its peak
and working say "lower bound". A scenario passes when both mpremote calls
succeed and print the line the tests check for.

Scenarios that talk to servers (the fake LLM providers of host_tests/fakes,
the MCP Python SDK server, the reference "everything" server) run them on
this computer, listening on --host: an address of this computer that the
board reaches (over WiFi: boot.py joins the network in the board's
settings). Without --host they are skipped, with a line saying so; a
server that cannot start (Node or the SDK missing) skips its scenarios too.
Exit status 0 when every scenario that ran passed, 1 otherwise.
"""
import argparse
import ast
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCEN = os.path.join(ROOT, "host_tests", "scenarios")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "host_tests"))
import deploy  # noqa: E402
from mpybuild import compile_tree  # noqa: E402

STORE = "/hil/store-dir"        # settings folder of the scenarios that take one,
CONSOLE = "/hil/console-dir"    # and the console scenario's (not module names:
                                # /hil is on sys.path)
CLEAN = """import os
def rm(p):
    try:
        for e in os.ilistdir(p):
            rm(p + "/" + e[0])
        os.rmdir(p)
    except OSError:
        try:
            os.remove(p)
        except OSError:
            pass
try:
    os.mkdir("/hil")
except OSError:
    pass
for e in os.ilistdir("/hil"):
    if e[1] == 0x4000:
        rm("/hil/" + e[0])
for p in (%r, %r):
    os.mkdir(p)
""" % (STORE, CONSOLE)
LAUNCH = 'import sys;sys.path.insert(0,"/hil");sys.argv[:]=%r;import %s;' \
    'print("MODULES",*sorted(sys.modules))'
# the live run imports what the first one loaded before the scenario starts:
# its code is then in the baseline, as frozen code (no heap) is on our firmware
LAUNCH_LIVE = 'import sys;sys.path.insert(0,"/hil");import heapmon;heapmon.LIVE=True;' \
    '%ssys.argv[:]=%r;import %s'


class ServerError(Exception):
    """A server could not start (a missing tool, not the board's fault)."""


class Servers:
    """The servers scenarios talk to, listening on host, started on first
    use and stopped by close()."""

    def __init__(self, host):
        self.host = host
        self.mcp_peers = {}

    def fake(self, cls, **kw):
        srv = cls(**kw)
        srv.host = self.host
        return srv

    def mcp(self, name):
        """URL of the MCP server "sdk" or "everything" (PeerError if it
        cannot start)."""
        import peers
        try:
            if name not in self.mcp_peers and name == "sdk":
                peers.require_sdk()
                self.mcp_peers[name] = peers.sdk_peer(host=self.host).start()
            elif name not in self.mcp_peers:    # it listens on every address
                self.mcp_peers[name] = peers.start_everything()
        except peers.PeerError as e:
            raise ServerError(str(e).splitlines()[0])
        return "http://%s:%d/mcp" % (self.host, self.mcp_peers[name].port)

    def close(self):
        for p in self.mcp_peers.values():
            p.close()


def _styles():
    from fakes import FakeAnthropic, FakeGemini, FakeOpenAI
    return {"openai": (FakeOpenAI, "gpt-4o-mini", "sk-test"),
            "anthropic": (FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test"),
            "gemini": (FakeGemini, "gemini-2.5-flash", "AIza-test")}


@contextlib.contextmanager
def rounds(srv, tmp, style, tools=False, mcp=False):
    """A chat round and a streamed round (tools: after a tool round trip),
    or with mcp the tool loop with the SDK server's get_weather."""
    from fakes import Calls, Text
    fake, model, key = _styles()[style]
    url = srv.mcp("sdk") if mcp else None
    with srv.fake(fake, key=key, models=[model]) as f:
        f.options(chunked=True)
        if mcp:
            f.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
            yield [style, f.base_url, model, key, STORE, url], ()
            return
        if tools:
            f.queue(Calls([("get_weather", {"city": "Rochdale"})]))
        f.queue(Text("Hello from the fake."), Text("A streamed answer in small pieces."))
        yield [style, f.base_url, model, key, STORE] + (["tools"] if tools else []), ()


@contextlib.contextmanager
def console(srv, tmp):
    """The console's ai command with an MCP tool call: settings copied in."""
    from fakes import Calls, FakeOpenAI
    url = srv.mcp("sdk")
    with srv.fake(FakeOpenAI, flavor="ollama") as f:
        f.options(chunked=True)
        f.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        settings = os.path.join(tmp, "settings.json")
        with open(settings, "w") as out:
            json.dump({"ai.general.provider": "ollama", "ai.general.base_url": f.base_url,
                       "ai.general.model": "llama3.2", "mcp.sdk.url": url,
                       "ai.tools.approve": "always"}, out)
        yield [CONSOLE], [(settings, CONSOLE + "/settings.json")]


@contextlib.contextmanager
def mcp_server(srv, tmp, name):
    yield [srv.mcp(name)], ()


def cases():
    """(name, scenario, the output line it must print or None, set-up or
    None): a set-up takes (servers, tmp folder) and yields (argv, files to
    copy to the board first)."""
    out = [(n, n, None, None) for n in ("js_core", "js_stream", "js_write")]
    for style in ("openai", "anthropic", "gemini"):
        out.append(("rounds-" + style, "ai_rounds", "small pieces.' None",
                    lambda s, t, st=style: rounds(s, t, st)))
        out.append(("tools-" + style, "ai_rounds", "small pieces.' None",
                    lambda s, t, st=style: rounds(s, t, st, tools=True)))
    out.append(("mcp_sdk", "mcp_sdk", "slow ('counted to 3', None)",
                lambda s, t: mcp_server(s, t, "sdk")))
    out.append(("mcp_everything", "mcp_everything", "long ('Long running operation completed.",
                lambda s, t: mcp_server(s, t, "everything")))
    for style in ("openai", "anthropic", "gemini"):
        out.append(("loop-" + style, "ai_mcp_loop", "RUN 'tool said: Rochdale: 12 C, drizzle'",
                    lambda s, t, st=style: rounds(s, t, st, mcp=True)))
    out.append(("console", "aicmd_mem", "tool said: Rochdale: 12 C, drizzle", console))
    return out


class Row:
    def __init__(self, name):
        self.name = name
        self.result = "ok"
        self.firmware = {}      # HEAPMON fields of the run with the firmware's GC
        self.live = {}          # and of the run with heapmon.LIVE
        self.detail = ""

    def cells(self):
        h, v = self.firmware, self.live
        if not (h and v):
            return [self.name, self.result] + [""] * (len(HEAD) - 2)
        # rounded at the running sums: baseline + peak + least free = heap
        base, peak, heap = (tenths(int(h[k])) for k in ("baseline", "peak", "heap"))
        return [self.name, self.result, kb(base), kb(peak - base) + bound(h),
                kb(heap - peak), kb(heap),
                kb(tenths(int(v["peak"]) - int(v["baseline"]))) + bound(v)]


HEAD = ["scenario", "result", "baseline", "peak", "least free", "heap", "working"]


def tenths(n):
    """n bytes in tenths of a KB, rounded."""
    return int(n / 102.4 + 0.5)


def kb(t):
    return "%d.%d KB" % divmod(t, 10)


def bound(fields):
    return " (lower bound)" if fields.get("sampler") == "none" else ""


def heapmon_fields(out):
    m = re.search(r"^HEAPMON (.*)$", out, re.M)
    return dict(kv.split("=", 1) for kv in m.group(1).split()) if m else {}


def run_case(case, port, tool, srv, tmp, timeout):
    """The scenario's row: a run with the firmware's GC, then a live one."""
    row = Row(case[0])
    loaded = ()
    for live in (False, True):
        result, fields, out = run_once(case, port, tool, srv, tmp, timeout, live, loaded)
        row.result = result
        if result != "ok":
            if result == "FAIL":
                row.detail = "\n".join(out.strip().splitlines()[-6:])
            break
        if live:
            row.live = fields
        else:
            row.firmware = fields
            m = re.search(r"^MODULES (.*)$", out, re.M)
            loaded = [n for n in (m.group(1).split() if m else ()) if n != case[1]]
    return row


def run_once(case, port, tool, srv, tmp, timeout, live, loaded=()):
    """-> (result, HEAPMON fields, output) of one run of the scenario;
    live: with heapmon.LIVE and the modules `loaded` imported first."""
    name, scenario, marker, setup = case
    argv, files = [], ()
    with contextlib.ExitStack() as stack:
        if setup:
            if srv is None:
                return "skipped: no HOST", {}, ""
            try:
                argv, files = stack.enter_context(setup(srv, tmp))
            except ServerError as e:
                return "skipped: %s" % str(e)[:100], {}, ""
        cmd = [tool, "connect", port]
        for local, dev in files:
            cmd += ["cp", local, ":" + dev, "+"]
        args = [scenario] + [str(a) for a in argv]
        if live:
            first = "import %s;" % ",".join(loaded) if loaded else ""
            launch = LAUNCH_LIVE % (first, args, scenario)
        else:
            launch = LAUNCH % (args, scenario)
        cmd += ["exec", launch]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            out, ok = r.stdout + r.stderr, r.returncode == 0
        except subprocess.TimeoutExpired:
            out, ok = "no end within %d s (--timeout)" % timeout, False
    fields = heapmon_fields(out)
    if not ok or not fields or (marker and marker not in out):
        return "FAIL", fields, out
    return "ok", fields, out


def table(rows):
    cells = [HEAD] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEAD))]
    return "\n".join("  ".join(c[i].ljust(widths[i]) for i in range(len(HEAD))).rstrip()
                     for c in cells)


def with_helpers(names):
    """The scenarios and every module of their folder they import, directly
    or through one another."""
    todo, found = list(names), set()
    while todo:
        n = todo.pop()
        if n in found:
            continue
        found.add(n)
        with open(os.path.join(SCEN, n + ".py")) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module]
            else:
                continue
            todo += [m for m in mods if os.path.exists(os.path.join(SCEN, m + ".py"))]
    return found


def copy_scenarios(port, tool, names, build):
    """Compile the scenarios and their helpers for the board and copy them
    to /hil in one mpremote call; None or the failure's output."""
    src, out = os.path.join(build, "src"), os.path.join(build, "mpy")
    os.makedirs(src)
    for n in with_helpers(names):
        shutil.copy(os.path.join(SCEN, n + ".py"), src)
    errors = compile_tree(src, out, march="xtensawin", opt=0)
    if errors:
        return "compiling failed: %r" % errors
    cmd = [tool, "connect", port, "exec", CLEAN]
    for f in sorted(os.listdir(out)):
        cmd += ["+", "cp", os.path.join(out, f), ":/hil/" + f]
    r = deploy.run_mpremote(cmd, capture_output=True, text=True, timeout=300)
    return None if r.returncode == 0 else (r.stdout + r.stderr).strip()


def check_host(host):
    """None if this computer can listen on host, else why not."""
    s = socket.socket()
    try:
        s.bind((host, 0))
        return None
    except OSError as e:
        return str(e)
    finally:
        s.close()


def main(argv=None):
    every = cases()
    ap = argparse.ArgumentParser(prog="hil.py", description=__doc__.split("\n")[0])
    ap.add_argument("--port", default="auto", help="the board's serial port (mpremote connect)")
    ap.add_argument("--host", help="an address of this computer the board reaches; "
                                   "without it scenarios with servers are skipped")
    ap.add_argument("--only", help="comma-separated scenario names (--list shows them)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per scenario")
    ap.add_argument("--list", action="store_true", help="list the scenario names")
    a = ap.parse_args(argv)
    if a.list:
        for c in every:
            print(c[0] + ("" if c[3] is None else "  (servers: needs --host)"))
        return 0
    if a.only:
        want = a.only.split(",")
        unknown = [w for w in want if w not in [c[0] for c in every]]
        if unknown:
            print("hil: unknown scenario %s (--list shows the names)" % ", ".join(unknown))
            return 2
        every = [c for c in every if c[0] in want]
    if a.host:
        why = check_host(a.host)
        if why:
            print("hil: cannot listen on %s: %s (give an address of this computer)"
                  % (a.host, why))
            return 2
    tool = deploy.mpremote()
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    build = tempfile.mkdtemp(prefix="hil-", dir=os.path.join(ROOT, "build"))
    srv = Servers(a.host) if a.host else None
    try:
        print("hil: copying %d scenarios to %s:/hil" % (len(every), a.port), flush=True)
        failed = copy_scenarios(a.port, tool, [c[1] for c in every], build)
        if failed:
            print(failed)
            print("hil: mpremote could not copy the scenarios to the board at %s: check "
                  "the port (`%s connect list`)" % (a.port, deploy.show(tool)))
            return 1
        if srv is None and any(c[3] for c in every):
            print("hil: no HOST given: the scenarios with servers are skipped (give "
                  "HOST=<this computer's address on the board's network>)")
        rows = []
        for case in every:
            rows.append(run_case(case, a.port, tool, srv, build, a.timeout))
            print("hil: %s %s" % (case[0], rows[-1].result), flush=True)
    finally:
        if srv:
            srv.close()
        shutil.rmtree(build, ignore_errors=True)
    # back to the console; a board that does not answer now said so above
    subprocess.run([tool, "connect", a.port, "reset"], capture_output=True)
    print()
    print(table(rows))
    print("\nwith the firmware's GC, baseline + peak + least free = heap: in use after the "
          "imports, the most in use above that (live data and garbage), what was left free "
          "then, the heap's size; working: a second run's peak above its baseline with the "
          "GC collecting every 1 KB (live data: MEASUREMENTS.md's working set)")
    for r in rows:
        if r.result == "FAIL":
            print("\n%s failed:\n%s" % (r.name, r.detail))
    return 1 if any(r.result == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
