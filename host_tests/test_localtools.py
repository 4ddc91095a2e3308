"""The board's own commands and hardware as the model's tools (issue 27):
the hardware commands on the stand-in (host_tests/scenarios/boardhw.py),
the chat's board tools through a pseudo-terminal (tools/sim.py, as a
person types approvals), the same chat under the unix port at the chat's
heap, and the Python SDK client calling the hardware through mcp serve."""
import json
import os
import re
import sys
import threading

import pytest

from fakes import Calls, FakeOpenAI, Text
from test_shell_ai import console, read_lines, ollama_settings, MEM_HEAP, BUDGET  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(os.path.dirname(HERE), "boards", "ANTOS_ESP32", "profile.json")


# ---------------------------------------------------------------- commands (CPython)

@pytest.fixture
def hw(monkeypatch, tmp_path):
    """The console with the stand-in hardware and the ESP32 profile's pins;
    -> run(line) gives the command's output."""
    sys.path.insert(0, os.path.join(HERE, "scenarios"))
    try:
        import boardhw
    finally:
        sys.path.pop(0)
    import shell
    import store
    monkeypatch.setitem(sys.modules, "machine", boardhw)
    monkeypatch.setitem(sys.modules, "esp32", boardhw._Esp32)

    class Profile:
        with open(PROFILE) as f:
            PROFILE = {"hw": json.load(f)["hw"]}
    monkeypatch.setitem(sys.modules, "boardprofile", Profile)
    monkeypatch.setattr(boardhw, "LEVELS", {0: 1})
    store.set_root(str(tmp_path))
    try:
        yield shell.capture
    finally:
        store.set_root(None)


def test_pin_reads_sets_and_refuses_what_the_profile_does_not_list(hw):
    listing = hw("pin")
    assert "can be read and set: 2 (LED on most DevKitC boards), 4," in listing
    assert "can only be read: 0 (BOOT button), 5, 12, 15, 34" in listing
    assert hw("pin 0") == "pin 0 = 1"       # the BOOT button, released
    assert hw("pin 2") == "pin 2 = 0"
    assert hw("pin 2 on") == "pin 2 set to 1"
    assert hw("pin 2") == "pin 2 = 1"
    assert hw("pin 2 0") == "pin 2 set to 0"
    out = hw("pin 7")           # the SPI flash's: never listed
    assert out.startswith("pin: 7 is not one of this board's pins: 0 2 4 5 12"), out
    out = hw("pin 34 1")        # input only
    assert out.startswith("pin: 34 may only be read (pins that can be set: 2 4 13"), out
    assert "value must be one of: 0, 1, on, off" in hw("pin 2 high")


def test_adc_i2c_temp_on_the_stand_in(hw):
    assert hw("adc").startswith("analog inputs (adc PIN reads one): 32, 33, 34")
    assert hw("adc 34") == "adc 34 = 65495 of 65535 (3.298 V)"
    assert hw("adc 2").startswith("adc: 2 is not one of this board's analog inputs: 32 33")
    assert hw("i2c scan") == "i2c bus 0: 2 devices at 0x3c 0x76"
    assert hw("i2c scan 0") == "i2c bus 0: 2 devices at 0x3c 0x76"
    assert hw("i2c buses") == "bus 0: scl pin 22, sda pin 21"
    assert hw("i2c scan 1") == "i2c: no bus 1 on this board (buses: 0)"
    assert hw("temp") == "chip temperature: 41 C"


def test_hardware_commands_without_a_profile_or_a_machine_say_so(tmp_path):
    import shell
    import store
    store.set_root(str(tmp_path))
    try:    # CPython: no boardprofile module, no machine
        assert "no pins in this board's profile" in shell.capture("pin 2")
        assert "no analog inputs in this board's profile" in shell.capture("adc 34")
        assert "temp: this chip has no temperature sensor" in shell.capture("temp")
        assert "wifi: only on the board" in shell.capture("wifi scan")
    finally:
        store.set_root(None)


def test_wifi_scan_lists_the_networks_strongest_first(hw, monkeypatch):
    class WLAN:
        def __init__(self, _):
            pass

        def active(self, on=None):
            return True

        def scan(self):     # (ssid, bssid, channel, RSSI, security, hidden)
            return [(b"cafe", b"\x01" * 6, 6, -71, 0, False),
                    (b"home\x1b[2J", b"\x02" * 6, 11, -48, 3, False)]

    class Network:
        STA_IF = 0
    Network.WLAN = WLAN
    monkeypatch.setitem(sys.modules, "network", Network)
    out = hw("wifi scan")
    lines = out.split("\n")
    assert "home^[[2J" in lines[0] and "-48 dBm" in lines[0] and "secure" in lines[0]
    assert "cafe" in lines[1] and "open" in lines[1]
    assert lines[2] == "wifi: 2 networks in reach"


def test_write_puts_text_in_a_file_never_the_settings(hw, tmp_path):
    assert hw("write notes.txt hello there") == "wrote /notes.txt (12 B)"
    assert (tmp_path / "notes.txt").read_text() == "hello there\n"
    assert "is the board's settings or chat history" in hw("write settings.json {}")
    assert not (tmp_path / "settings.json").exists()


def test_the_helper_runs_the_hardware_commands(hw, tmp_path):
    (tmp_path / "boot.py").write_text("# boot\n")
    assert hw("? what is the temperature") == "(from: temp)\nchip temperature: 41 C"
    assert hw("? which pins can I use").startswith("(from: pin)\npins that can be read and set:")
    out = hw("? list my files")
    assert out.startswith("(from: ls)") and "boot.py" in out
    assert hw("? what is on the i2c bus") == "(from: i2c scan)\ni2c bus 0: 2 devices at 0x3c 0x76"


def test_board_tools_read_without_asking_and_refuse_writes_below_all(hw):
    from shell import chattools
    read = chattools.Local("read")
    names = [d["name"] for d in read]
    assert "board_pin" in names and "board_write" not in names and "board_rm" not in names
    pin = read.find("board_pin")
    assert pin["check"]('{"pin": 2}') == {"readOnlyHint": True}
    assert pin["check"]('{"pin": 2, "value": "1"}') == {"readOnlyHint": False}
    assert pin["run"]({"pin": 2}) == "pin 2 = 0"
    with pytest.raises(ValueError, match="lets models read only"):
        pin["run"]({"pin": 2, "value": "1"})
    assert hw("pin 2") == "pin 2 = 0"
    assert read.find("board_write") is None and read.find("board_py") is None
    every = chattools.Local("all")
    assert every.find("board_pin")["run"]({"pin": 2, "value": "1"}) == "pin 2 set to 1"
    # never a name an MCP tool can have: those hold "__" after the server's name
    assert all("__" not in d["name"] for d in every)
    assert chattools.tool_of("board__x") is None and chattools.tool_of("board_ls") == "ls"


def test_a_program_gets_board_tools_and_writes_need_its_approval(hw, tmp_path):
    import ai
    with FakeOpenAI(flavor="ollama") as srv:
        o = {"provider": "ollama", "base_url": srv.base_url, "model": "llama3.2"}
        srv.queue(Calls([("board_pin", {"pin": 2, "value": "1"}), ("board_temp", {})]),
                  Text("done"))
        h = [{"role": "user", "content": "set the LED"}]
        reply, err = ai.run(h, o, local="all")
        assert (reply, err) == ("done", None)
        results = [m["content"] for m in h if m["role"] == "tool"]
        assert results[0].startswith("Error: this call changes the board: it runs only when "
                                     "a person approves it")
        assert results[1] == "chip temperature: 41 C"
        assert hw("pin 2") == "pin 2 = 0"
        srv.queue(Calls([("board_pin", {"pin": 2, "value": "1"})]), Text("on"))
        asked = []
        reply, err = ai.run([{"role": "user", "content": "again"}], o, local="all",
                            approve=lambda c: asked.append(c) or True)
        assert reply == "on" and hw("pin 2") == "pin 2 = 1"
        assert asked[0]["board"] and asked[0]["annotations"] == {"readOnlyHint": False}
        # local=True: the read-only ones only, on the wire
        srv.queue(Text("ok"))
        ai.run([{"role": "user", "content": "hi"}], o, local=True)
        offered = [t["function"]["name"] for t in srv.requests[-1].json["tools"]]
        assert "board_ls" in offered and "board_pin" in offered and "board_rm" not in offered


# ---------------------------------------------------------------- the chat, as a person types

def test_chat_uses_board_tools_reads_at_once_writes_after_a_typed_yes(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv, **{"ai.tools.local": "all"}),
                    files={"notes.txt": "buy milk\n"})
        # ai tools list: the board's tools and where they run, the tools cache's too
        with open(os.path.join(c.flash, "tools.jsonl"), "w") as f:
            f.write(json.dumps({"server": "sdk", "name": "sdk__echo", "remote": "echo",
                                "description": "Echo text", "parameters": {}}) + "\n")
        c.line("ai tools list")
        screen = c.text()
        assert "board_ls                 (board, read-only)" in screen
        assert "board_rm                 (board, asks)" in screen
        assert "sdk__echo                (sdk)" in screen
        assert "board_py" not in screen and "board_ai" not in screen
        assert "tools of the board (ai.tools.local = all), 1 from MCP servers" in screen
        os.remove(os.path.join(c.flash, "tools.jsonl"))
        # reads run without a question
        srv.queue(Calls([("board_ls", {}), ("board_cat", {"file": "notes.txt"}),
                         ("board_pin", {"pin": 2})]))
        c.clear()
        c.line("ai what is on the board?", timeout=30)
        screen = c.text()
        assert "[y]es" not in screen
        assert "-> board_ls {}" in screen and "notes.txt" in screen
        assert "<- buy milk" in screen and "<- pin 2 = 0" in screen
        # writes: asked, declined once...
        writes = Calls([("board_write", {"file": "todo.txt", "text": "call Ann"}),
                        ("board_pin", {"pin": 2, "value": "1"})])
        srv.queue(writes)
        c.clear()
        c.type("ai note it and light the LED\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        screen = c.text()
        assert "tool call: board_write on this board (it changes something)" in screen
        assert re.search(r'arguments: \{"file": ?"todo.txt", ?"text": ?"call Ann"\}', screen)
        c.type("n\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        assert "tool call: board_pin on this board" in c.text()
        c.type("n\r")
        c.expect_prompt()
        assert not os.path.exists(os.path.join(c.flash, "todo.txt"))
        assert c.text().count("x the user refused this call") == 2
        c.line("pin 2")
        assert "pin 2 = 0" in c.text()
        # ... and approved once
        srv.queue(writes)
        c.clear()
        c.type("ai please do\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        c.type("y\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        c.type("y\r")
        c.expect_prompt()
        assert "<- wrote /todo.txt (9 B)" in c.text() and "<- pin 2 set to 1" in c.text()
        with open(os.path.join(c.flash, "todo.txt")) as f:
            assert f.read() == "call Ann\n"
        c.line("pin 2")
        assert "pin 2 = 1" in c.text()
        # the history on flash: every call and result
        hist = read_lines(os.path.join(c.flash, "history", "chat.jsonl"))
        results = [m["content"] for m in hist if m["role"] == "tool"]
        assert "9 B  notes.txt" in results[0] and results[1:3] == ["buy milk", "pin 2 = 0"]
        assert results[3:5] == ["Error: the user refused this call"] * 2
        assert results[5:] == ["wrote /todo.txt (9 B)", "pin 2 set to 1"]
        # read: the writes are not offered; off: no board tool on the wire
        c.line("set ai.tools.local read")
        c.line("ai hi")
        offered = [t["function"]["name"] for t in srv.requests[-1].json["tools"]]
        assert "board_ls" in offered and "board_write" not in offered
        pin = [t for t in srv.requests[-1].json["tools"] if t["function"]["name"] == "board_pin"]
        assert list(pin[0]["function"]["parameters"]["properties"]) == ["pin"]
        c.line("set ai.tools.local off")
        c.line("ai hi again")
        assert "tools" not in srv.requests[-1].json
        c.clear()
        c.line("ai tools list")
        assert "0 tools of the board (ai.tools.local = off), no tools cache" in c.text()


# ---------------------------------------------------------------- the same chat at the chat's heap

def _chat_round(mpy, srv, flash, live):
    """The three questions of aicmd_local on a fresh flash, the typed
    answers n, n, y, y on stdin."""
    flash.mkdir()
    (flash / "notes.txt").write_text("buy milk\n")
    (flash / "settings.json").write_text(json.dumps(ollama_settings(
        srv, **{"ai.tools.local": "all"})))
    writes = Calls([("board_write", {"file": "todo.txt", "text": "call Ann"}),
                    ("board_pin", {"pin": 2, "value": "1"})])
    srv.queue(Calls([("board_ls", {}), ("board_cat", {"file": "notes.txt"}),
                     ("board_pin", {"pin": 2})]), Text("read"), writes, Text("no"),
              writes, Text("done"))
    run = mpy.working if live else mpy.run
    return run("aicmd_local", heap=MEM_HEAP, args=[flash], timeout=120, input="n\nn\ny\ny\n")


def test_chat_with_board_tools_at_the_chats_heap(mpy, tmp_path):
    """The console's ai with board tools under the unix port, lib/ as frozen
    code, at the heap of a chat with an MCP tool call (test_shell_ai's
    MEM_HEAP): reads at once, two writes declined then approved (typed
    lines), history saved; its working set within the same budget."""
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(chunked=True)
        r = _chat_round(mpy, srv, tmp_path / "flash", False)
        live = _chat_round(mpy, srv, tmp_path / "live", True)
    assert r.rc == 0 and "Traceback" not in r.out + r.err, r
    assert r.out.count("run it? [y]es [n]o [a]lways:") == 4, r.out
    assert "<- pin 2 = 0" in r.out and "<- buy milk" in r.out
    assert "<- wrote /todo.txt (9 B)" in r.out and "<- pin 2 set to 1" in r.out
    assert "PIN2 1" in r.out
    flash = tmp_path / "flash"
    hist = read_lines(flash / "history" / "chat.jsonl")
    results = [m["content"] for m in hist if m["role"] == "tool"]
    assert "9 B  notes.txt" in results[0]
    assert results[1:] == ["buy milk", "pin 2 = 0",
                       "Error: the user refused this call", "Error: the user refused this call",
                       "wrote /todo.txt (9 B)", "pin 2 set to 1"]
    assert (flash / "todo.txt").read_text() == "call Ann\n"
    print("\nai rounds with board tools (unix port, frozen lib/): working set %d B; budget %d B"
          % (live.working, BUDGET))
    assert live.working < BUDGET * 0.9, live.working


# ---------------------------------------------------------------- over MCP, the Python SDK client

def test_sdk_client_reads_the_hardware_and_a_write_needs_allow_and_a_yes(board):
    from test_mcp_server import sdk, text_of
    b = board()
    steps = [{"op": "tools"},
             {"op": "call", "name": "pin", "args": {"pin": 2}},
             {"op": "call", "name": "pin", "args": {}},
             {"op": "call", "name": "adc", "args": {"pin": 34}},
             {"op": "call", "name": "i2c", "args": {"action": "scan"}},
             {"op": "call", "name": "temp", "args": {}},
             {"op": "call", "name": "pin", "args": {"pin": 7}},
             {"op": "call", "name": "pin", "args": {"pin": 2, "value": "1"}}]
    _, r = sdk(b.url, steps)
    tools = {t["name"]: t for t in r[0]["tools"]}
    assert {"pin", "adc", "i2c", "temp", "wifi"} <= set(tools)
    assert list(tools["pin"]["inputSchema"]["properties"]) == ["pin"]     # no value yet
    assert tools["temp"]["annotations"]["readOnlyHint"] is True
    assert text_of(r[1]) == "pin 2 = 0" and not r[1]["isError"]
    assert "can be read and set: 2 (LED" in text_of(r[2])
    assert text_of(r[3]) == "adc 34 = 65495 of 65535 (3.298 V)"
    assert text_of(r[4]) == "i2c bus 0: 2 devices at 0x3c 0x76"
    assert text_of(r[5]) == "chip temperature: 41 C"
    assert r[6]["isError"] and "7 is not one of this board's pins" in text_of(r[6])
    assert r[7]["isError"] and "set mcp.serve.allow pin" in text_of(r[7])
    # allowed: each write asked at the console; n refuses, y runs it
    b.line("set mcp.serve.allow pin", "/> ")
    results = {}
    steps = [{"op": "tools"}] + [{"op": "call", "name": "pin", "args": {"pin": 2, "value": "1"}}] * 2 \
        + [{"op": "call", "name": "pin", "args": {"pin": 2}}]
    th = threading.Thread(target=lambda: results.update(r=sdk(b.url, steps)[1]))
    th.start()
    for answer in "ny":
        b.expect("allow? [y]es [n]o [a]lways: ")
        b.type(answer)
    th.join(120)
    r = results["r"]
    pin = [t for t in r[0]["tools"] if t["name"] == "pin"][0]
    assert "value" in pin["inputSchema"]["properties"]
    assert r[1]["isError"] and "did not allow" in text_of(r[1])
    assert text_of(r[2]) == "pin 2 set to 1" and not r[2]["isError"]
    assert text_of(r[3]) == "pin 2 = 1"
    m = b.close()
    assert "mcp: mcp asks to run: pin 2 1" in b.text and "pin 2 1 (refused)" in b.text
    from test_mcp_server import IDLE_BUDGET, CALL_BUDGET
    assert m["idle"] < IDLE_BUDGET and m["peak"] < CALL_BUDGET


@pytest.fixture
def board(mpy, tmp_path):
    from boardserve import Board, make_flash
    made = []

    def start():
        b = Board(mpy, make_flash(tmp_path))
        made.append(b)
        return b
    yield start
    for b in made:
        b.kill()
