"""make demo: the console with no key and no network beyond this computer.

    python tools/demo.py [--lib COMPILED_LIB] [--heap SIZE] [--keep]

Starts, on 127.0.0.1 only:
  - the demo provider (a thread of this program): canned replies spoken
    as an OpenAI-compatible service speaks (wire format below), so the
    console's real code path runs: a streamed reply with markdown, tool
    calls that ask for approval, the token usage;
  - tools/demo_weather.py: an MCP server made with the MCP Python SDK,
    its own process (`-I`: lib/'s `mcp` package must not shadow the SDK);
then runs the console (tools/sim.py) on a throw-away flash folder whose
settings point ai.general at the demo provider, labelled as a demo
(ai.general.label: the banner, ai config and ai status show it), and at
the end stops both servers and deletes the folder (--keep leaves it).
The banner says where the MCP server is; the tour (README.md's first
section): `ai hello`, `ai what is the chip temperature?` (the board's
own board_temp: it only reads, so it runs at once), `mcp add weather
URL`, `ai -tools`, `ai what is the weather in Rochdale?` (approve with
y), `ai history`, `exit`.

Wire format of the demo provider (PROVIDERS.md section 1, the chat
completions style; base http://127.0.0.1:PORT/v1, no key):
  GET  /v1/models -> {"object": "list", "data": [{"id": "demo", ...}]}
  POST /v1/chat/completions {"model", "messages", "tools"?, "stream"?,
       "stream_options": {"include_usage"}?}
    stream false: {"id", "object": "chat.completion", "choices": [{"index":
       0, "message": {"role": "assistant", "content", "tool_calls"?},
       "finish_reason": "stop" | "tool_calls"}], "usage"}
    stream true: text/event-stream, chunked: `data: {chunk}` events
       ("object": "chat.completion.chunk"; choices[0].delta.role, then
       .content pieces of a few words, or .tool_calls [{"index", "id",
       "type": "function", "function": {"name", "arguments"}}]; a last
       chunk with finish_reason; a usage chunk with "choices": [] when
       include_usage), then `data: [DONE]`.
    errors: {"error": {"message", "type", "param", "code"}} with 400/404.
What it answers (the last message decides):
  - a tool result: what the tool said, quoted (a model would rephrase it);
  - "Call the tool named ping" with ping offered (ai config's probe):
    the call; "Reply with one word: ready" (its test): Ready;
  - a question that names an offered tool: a call of it. A word of the
    question in the tool's own name counts 2, in its description 1, the
    highest wins (the first of equals): "the chip temperature" is the
    board's board_temp, "the weather in Rochdale" the MCP server's
    get_weather, "the forecast for Lisbon" its get_forecast. Arguments:
    the city the question names (Rochdale when none), a file name it
    holds, a default the schema declares, an enum's first word; a tool
    that requires anything else is not picked;
  - a question about the weather with no such tool: how to add the demo's
    MCP server;
  - anything else: a short markdown reply (heading, bold, a list, code,
    a table) about the question and what to try next.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import sim  # noqa: E402

PROVIDER_PORT = 8391            # tried first (README's examples), else any free port
MCP_PORT = 8392
MODEL = "demo"
LABEL = "DEMO: canned replies from tools/demo.py, not a model (ai config sets up one)"
GAP = 0.03                      # seconds between streamed pieces: it shows it streams
WEATHER_WORDS = ("weather", "forecast", "temperature", "rain", "sunny", "cold", "warm")
# words that name no tool: a question's and a description's filler
STOP = set("a an the is are was of in on at to for and or my me it its s what which who how "
           "much many does do can you your please tell show give get now today there this that "
           "board console command usage".split())


# ---------------------------------------------------------------- replies

def _text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _city(question):
    """The city a question names: the capitalised word after "in"/"for",
    else Rochdale."""
    m = re.search(r"\b(?:in|for|at)\s+([A-Z][\w-]+)", question)
    return m.group(1) if m else "Rochdale"


def _words_of(text):
    return set(re.findall(r"[a-z0-9]+", text.lower())) - STOP


def _args(tool, question):
    """The arguments the demo gives a tool for a question, or None when it
    cannot fill one the tool requires: a city the question names, a file
    name it holds, an enum's first word, a declared default."""
    schema = tool.get("parameters") or {}
    path = re.search(r"[\w-]*[./][\w./-]*\w", question)
    args = {}
    for name, p in (schema.get("properties") or {}).items():
        if name == "city":
            args[name] = _city(question)
        elif "default" in p:
            args[name] = p["default"]
        elif p.get("enum"):
            args[name] = p["enum"][0]
        elif p.get("type") == "string" and path and name in ("file", "path"):
            args[name] = path.group(0)
        elif name in (schema.get("required") or ()):
            return None
    return args


def _pick(tools, question):
    """(name, arguments) of the offered tool the question names, or None:
    a word of the question in the tool's own name (without its server's
    prefix) counts 2, in its description 1; the first best one wins."""
    asked = _words_of(question)
    best, score = None, 0
    for t in tools:
        name = t.get("name", "")
        own = _words_of(name.split("__")[-1].replace("_", " "))
        about = _words_of(t.get("description") or "")
        n = sum(2 if w in own else 1 if w in about else 0 for w in asked)
        args = _args(t, question) if n > score else None
        if args is not None:
            best, score = (name, args), n
    return best


def answer(body):
    """(text, calls) for a chat completions request body: calls a list of
    (name, arguments dict)."""
    msgs = body.get("messages") or []
    tools = [t.get("function") or {} for t in body.get("tools") or ()]
    names = [t.get("name", "") for t in tools]
    last = msgs[-1] if msgs else {}
    if last.get("role") == "tool":
        said = []
        for m in reversed(msgs):
            if m.get("role") != "tool":
                break
            said.insert(0, _text(m.get("content")))
        quoted = "\n".join("> " + line for s in said for line in s.split("\n"))
        return ("The tool answered:\n\n%s\n\n*(The demo repeats what the tool said; a model "
                "would put it in its own words.)*" % quoted), []
    q = _text(last.get("content")).strip()
    low = q.lower()
    if "ping" in names and "ping" in low:
        return "", [("ping", {})]
    if low.startswith("reply with one word"):
        return "Ready", []
    call = _pick(tools, q)
    if call:
        return "", [call]
    if any(w in low for w in WEATHER_WORDS):
        return ("I have **no weather tool** yet, so I cannot look that up.\n\n"
                "- add the demo's MCP server: `mcp add weather URL` (the URL is in the "
                "banner)\n- offer its tools to me: `ai -tools`\n- then ask again"), []
    return ("# A demo reply\n"
            "You asked: *%s*\n\n"
            "I am the **demo provider**: canned text, streamed the way a real service "
            "streams it, so what you see is the console's real path:\n\n"
            "- replies arrive in pieces and are rendered as *markdown*\n"
            "- tool calls wait for your `y` before anything runs\n"
            "- the conversation is kept on flash: `ai history`\n\n"
            "| try | what it shows |\n"
            "|---|---|\n"
            "| `mcp add weather URL` | an MCP server |\n"
            "| `ai -tools` | its tools offered to the model |\n"
            "| `ai what is the chip temperature?` | a board tool that only reads |\n"
            "| `ai what is the weather in Rochdale?` | a tool call you approve |\n"
            % q.replace("*", "")), []


def _words(text):
    """Pieces of a few words, the way a service streams tokens."""
    parts = re.findall(r"\S+\s*|\s+", text)
    return ["".join(parts[i:i + 3]) for i in range(0, len(parts), 3)]


class Provider(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "antos-demo"
    count = [0]

    def log_message(self, *args):
        pass

    def _json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status, message, param=None):
        self._json(status, {"error": {"message": message, "type": "invalid_request_error",
                                      "param": param, "code": None}})

    def do_GET(self):
        self.count[0] += 1
        if self.path.rstrip("/") == "/v1/models":
            return self._json(200, {"object": "list", "data": [
                {"id": MODEL, "object": "model", "created": 1767225600, "owned_by": "antos-demo"}]})
        self._error(404, "Invalid URL (GET %s)" % self.path)

    def do_POST(self):
        self.count[0] += 1
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._error(404, "Invalid URL (POST %s)" % self.path)
        try:
            body = json.loads(raw)
        except ValueError:
            return self._error(400, "We could not parse the JSON body of your request.")
        if body.get("model") != MODEL:
            return self._error(404, "The model `%s` does not exist (this demo has: %s)" % (
                body.get("model"), MODEL), "model")
        if not isinstance(body.get("messages"), list) or not body["messages"]:
            return self._error(400, "[] is too short - 'messages'", "messages")
        text, calls = answer(body)
        usage = {"prompt_tokens": len(raw) // 4, "completion_tokens": len(text.split()) + 8 * len(calls)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        tool_calls = [{"id": "call_demo_%d_%d" % (self.count[0], i), "type": "function",
                       "function": {"name": n, "arguments": json.dumps(a)}}
                      for i, (n, a) in enumerate(calls)]
        finish = "tool_calls" if calls else "stop"
        base = {"id": "chatcmpl-demo%d" % self.count[0], "created": int(time.time()),
                "model": MODEL}
        if not body.get("stream"):
            msg = {"role": "assistant", "content": text or None}
            if tool_calls:
                msg["tool_calls"] = tool_calls
            return self._json(200, dict(base, object="chat.completion", usage=usage, choices=[
                {"index": 0, "message": msg, "finish_reason": finish}]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(delta, fin=None, **extra):
            c = dict(base, object="chat.completion.chunk",
                     choices=[{"index": 0, "delta": delta, "finish_reason": fin}])
            c.update(extra)
            return c

        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({"content": p}) for p in _words(text)]
        if tool_calls:
            events.append(chunk({"tool_calls": [dict(c, index=i) for i, c in enumerate(tool_calls)]}))
        events.append(chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(dict(chunk({}), choices=[], usage=usage))
        try:
            for ev in events + ["[DONE]"]:
                data = ("data: %s\n\n" % (ev if isinstance(ev, str) else json.dumps(ev))).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                time.sleep(GAP)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass            # the console stopped reading (Ctrl-C)


# ---------------------------------------------------------------- the demo

def _port(preferred):
    """preferred when it is free on 127.0.0.1, else one the system picks."""
    for p in (preferred, 0):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", p))
            return s.getsockname()[1]
        except OSError:
            continue
        finally:
            s.close()
    raise OSError("no free port")


def _wait(port, proc, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def settings(provider_url):
    return {"ai.general.provider": "ollama",        # an OpenAI-compatible service, no key
            "ai.general.base_url": provider_url,
            "ai.general.model": MODEL,
            "ai.general.label": LABEL}


def main(argv):
    lib, heap, keep = None, None, False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--lib" and args:
            lib = os.path.abspath(args.pop(0))
        elif a == "--heap" and args:
            heap = args.pop(0)
        elif a == "--keep":
            keep = True
        else:
            print("usage: demo.py [--lib COMPILED_LIB_DIR] [--heap SIZE] [--keep]")
            return 2
    server = ThreadingHTTPServer(("127.0.0.1", _port(PROVIDER_PORT)), Provider)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    provider_url = "http://127.0.0.1:%d/v1" % server.server_address[1]
    mcp_port = _port(MCP_PORT)
    mcp_url = "http://127.0.0.1:%d/mcp" % mcp_port
    flash = tempfile.mkdtemp(prefix="antos-demo-")
    weather = None
    try:
        with open(os.path.join(flash, "settings.json"), "w") as f:
            json.dump(settings(provider_url), f)
        print("demo: starting the demo MCP server (weather) ...", flush=True)
        log = tempfile.TemporaryFile()
        weather = subprocess.Popen(
            [sys.executable, "-I", os.path.join(ROOT, "tools", "demo_weather.py"),
             "--port", str(mcp_port)], stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)     # the terminal's Ctrl-C is the console's
        if not _wait(mcp_port, weather, 90):
            log.seek(0)
            err = log.read().decode(errors="replace").strip()
            print("demo: the MCP server did not start (%s)" % (err[-300:] or "timed out"))
            return 1
        print("demo: AI provider %s (canned replies, no key), MCP server %s, flash %s "
              "(deleted at the end)" % (provider_url, mcp_url, flash))
        print("demo: try  ai hello  |  ai what is the chip temperature?  |  "
              "mcp add weather %s  |  ai -tools  |  "
              "ai what is the weather in Rochdale?  |  ai history  |  exit" % mcp_url, flush=True)
        return sim.main(["--flash", flash] + (["--heap", heap] if heap else [])
                        + (["--lib", lib] if lib else []))
    finally:
        if weather is not None:
            weather.terminate()
            try:
                weather.wait(10)
            except subprocess.TimeoutExpired:
                weather.kill()
        server.shutdown()
        server.server_close()
        if keep:
            print("demo: the flash folder is kept: %s" % flash)
        else:
            shutil.rmtree(flash, ignore_errors=True)
        print("demo: stopped (%d requests to the demo provider)" % Provider.count[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
