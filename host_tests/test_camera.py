"""The board's camera (issue 38): a board profile lists it
(boards/ANTOS_XIAO_S3_SENSE, the XIAO ESP32S3 Sense's OV2640), the
console's `camera [PATH] [-s SIZE]` saves a JPEG from it to flash, and
`board_camera` is a read tool: the model asks for a picture and sees it in
the next request. The camera is the stand-in of
host_tests/scenarios/boardhw.py (a JPEG of the size a test chooses)."""
import hashlib
import json
import os
import sys

import pytest

import ai
from test_shell_ai import console  # noqa: F401  (the fixture)
from fakes import Calls, FakeOpenAI, Text

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD = "ANTOS_XIAO_S3_SENSE"
PROFILE = os.path.join(os.path.dirname(HERE), "boards", BOARD, "profile.json")
sys.path.insert(0, os.path.join(HERE, "scenarios"))
import boardhw  # noqa: E402
sys.path.pop(0)


@pytest.fixture
def cam(monkeypatch, flash):
    """The console on the camera board with the stand-in hardware; ->
    run(line) gives the command's output."""
    import shell
    monkeypatch.setitem(sys.modules, "machine", boardhw)
    monkeypatch.setitem(sys.modules, "camera", boardhw._Camera)

    class Profile:
        with open(PROFILE) as f:
            PROFILE = json.load(f)
        del PROFILE["sources"]
    monkeypatch.setitem(sys.modules, "boardprofile", Profile)
    monkeypatch.setitem(boardhw.CAMERA, "bytes", 30000)
    monkeypatch.setitem(boardhw.CAMERA, "freed", 0)
    monkeypatch.setitem(boardhw.CAMERA, "deinits", 0)
    return shell.capture


def test_the_profile_names_the_pins_and_their_source():
    with open(PROFILE) as f:
        p = json.load(f)
    c = p["camera"]
    assert c["pins"]["data"] == [15, 17, 18, 16, 14, 12, 11, 48]
    assert (c["pins"]["pclk"], c["pins"]["vsync"], c["pins"]["href"], c["pins"]["xclk"],
            c["pins"]["sda"], c["pins"]["scl"]) == (13, 38, 47, 10, 40, 39)
    assert "CAMERA_MODEL_XIAO_ESP32S3" in p["sources"]["camera"]
    assert c["size"] in c["frame_sizes"]
    used = set(c["pins"]["data"]) | {c["pins"][k] for k in ("pclk", "vsync", "href", "xclk", "sda", "scl")}
    # none of the camera's pins is offered as a pin to read or set
    assert not used & set(p["hw"]["pins_read"] + p["hw"]["pins_write"])


def test_camera_saves_a_jpeg_and_gives_the_camera_back(cam, flash):
    out = cam("camera")
    assert out == "saved /camera.jpg (29 KB, a VGA JPEG from the OV2640)"
    assert (flash / "camera.jpg").read_bytes() == boardhw.frame(30000)
    args = boardhw.CAMERA["args"]
    assert args["data_pins"] == [15, 17, 18, 16, 14, 12, 11, 48] and args["xclk_pin"] == 10
    assert args["sda_pin"] == 40 and args["scl_pin"] == 39 and args["pclk_pin"] == 13
    assert args["pixel_format"] == boardhw._Camera.PixelFormat.JPEG
    assert args["frame_size"] == boardhw._Camera.FrameSize.VGA
    assert boardhw.CAMERA["freed"] == 1 and boardhw.CAMERA["deinits"] == 1
    # a path, a size as an option (anywhere) or in its place
    (flash / "pics").mkdir()
    assert cam("camera /pics/door.jpg -s UXGA").startswith("saved /pics/door.jpg (29 KB, a UXGA JPEG")
    assert boardhw.CAMERA["args"]["frame_size"] == boardhw._Camera.FrameSize.UXGA
    assert cam("camera -s QVGA /pics/hall.jpg").startswith("saved /pics/hall.jpg")
    assert cam("camera -s QVGA").startswith("saved /camera.jpg (29 KB, a QVGA JPEG")
    assert cam("camera /pics/x.jpg SVGA").startswith("saved /pics/x.jpg (29 KB, a SVGA JPEG")
    assert "not a frame size of this camera: QVGA VGA SVGA XGA HD SXGA UXGA" in cam("camera -s CIF")
    assert "size must be one of" in cam("camera -s HUGE")
    assert "camera: /settings.json is private to the board" in cam("camera /settings.json")
    assert not (flash / "settings.json").exists()


def test_a_board_without_a_camera_has_no_camera_command(flash):
    """Not listed, not run, not a tool; a /bin script may take the name."""
    import shell
    assert shell.find("camera") is None and "camera" not in shell.names()
    assert shell.capture("camera") == "unknown command: camera (type help)"
    assert "\n  camera " not in shell.capture("help")
    (flash / "bin").mkdir()
    (flash / "bin" / "camera.py").write_text(
        'SPEC = {"desc": "my own camera", "usage": "camera", "args": ()}\n'
        'def main(args):\n    import shell\n    shell.out("my camera")\n')
    assert shell.capture("camera") == "my camera"
    assert "  camera  my own camera (script)" in shell.capture("help")


@pytest.mark.parametrize("model,sees", [("gpt-4o-mini", True), ("gpt-3.5-turbo", False)])
def test_board_camera_is_a_read_tool_whose_picture_the_model_sees(cam, flash, model, sees):
    """ai.run(local=True): board_camera offered with its size only (a path
    would be a write); the model calls it, the picture is saved and, for a
    model that takes pictures, the next request carries it (decoded by the
    fake to the same bytes); for one that does not, the result's text."""
    import shell  # noqa: F401  (the board's commands as tools: hooks.local)
    with FakeOpenAI(key="sk-test", models=[model]) as srv:
        srv.queue(Calls([("board_camera", {"size": "SVGA"})]), Text("a door"))
        o = {"provider": "openai", "style": "openai", "base_url": srv.base_url,
             "model": model, "key": "sk-test", "timeout": 10}
        hist = [{"role": "user", "content": "what is in front of you?"}]
        reply, err = ai.run(hist, o, local=True)
        assert err is None and reply == "a door", err
        tools = {t["function"]["name"]: t["function"] for t in srv.requests[0].json["tools"]}
        props = tools["board_camera"]["parameters"]["properties"]
        assert list(props) == ["size"] and "UXGA" in props["size"]["enum"]
        assert hist[2]["content"] == "saved /camera.jpg (29 KB, a SVGA JPEG from the OV2640)"
        if sees:
            assert hist[2]["files"][0]["path"] == "/camera.jpg"
            assert [f["data"] for f in srv.files] == [boardhw.frame(30000)]
        else:
            assert "files" not in hist[2] and not srv.files


def test_board_camera_with_a_path_is_a_write(cam, flash):
    """A path of the model's choosing would overwrite a file: a write,
    refused without a person's yes; nothing is saved."""
    with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
        srv.queue(Calls([("board_camera", {"size": "VGA", "path": "/main.py"})]), Text("ok"))
        o = {"provider": "openai", "style": "openai", "base_url": srv.base_url,
             "model": "gpt-4o-mini", "key": "sk-test", "timeout": 10}
        hist = [{"role": "user", "content": "take a picture"}]
        assert ai.run(hist, o, local=True)[1] is None
        assert hist[2]["is_error"] and not (flash / "main.py").exists()
        assert "this call changes the board" in hist[2]["content"], hist[2]


def test_the_camera_at_the_console_and_as_the_chats_tool(console):
    """The XIAO ESP32S3 Sense in make sim (its profile, the stand-in camera
    giving a 120 KB JPEG): `camera` saves it, `help` lists it; a chat's
    model calls board_camera and the next request carries the picture."""
    from test_shell_ai import ollama_settings
    with FakeOpenAI(flavor="ollama", models=["llava"]) as srv:
        c = console(ollama_settings(srv, **{"ai.general.model": "llava"}), board=BOARD,
                    env={"ANTOS_CAMERA_BYTES": str(120 * 1024)})
        c.line("camera -s SXGA")
        assert "saved /camera.jpg (120 KB, a SXGA JPEG from the OV2640)" in c.text()
        with open(os.path.join(c.flash, "camera.jpg"), "rb") as f:
            pic = f.read()
        assert pic == boardhw.frame(120 * 1024)
        c.clear()
        c.line("help")
        assert "camera" in c.text()
        srv.queue(Calls([("board_camera", {})]), Text("a desk with a cup"))
        c.clear()
        c.line("ai what do you see?")
        assert "a desk with a cup" in c.text()
        assert [hashlib.sha256(f["data"]).digest() for f in srv.files] == [
            hashlib.sha256(pic).digest()]
        c.clear()
        c.line("ai history")
        assert "saved /camera.jpg (120 KB, a VGA JPEG from the OV2640)" in c.text()
        assert "[file /camera.jpg, 120 KB, image/jpeg]" in c.text()
