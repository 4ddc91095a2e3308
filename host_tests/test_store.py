import os
import random
import signal
import subprocess
import sys
import time

import pytest

import store
import mpyrun
from mpyrun import GOAL


def test_set_get_persist_and_delete(flash):
    store.set("ai.chat.provider", "groq")
    store.set("ai.general.max_tokens", 512)
    store.set("flag", True)
    store.reload()
    assert store.get("ai.chat.provider") == "groq"
    assert store.get("ai.general.max_tokens") == 512
    assert store.get("flag") is True
    assert store.keys("ai.") == ["ai.chat.provider", "ai.general.max_tokens"]
    store.set("ai.chat.provider", None)
    store.reload()
    assert store.get("ai.chat.provider", "none") == "none"
    assert not (flash / "settings.json.tmp").exists()


def test_unicode_values_round_trip(flash):
    store.set("ai.chat.system", "Antworte auf Deutsch \u00e4\u00f6 \U0001F600")
    store.reload()
    assert store.get("ai.chat.system") == "Antworte auf Deutsch \u00e4\u00f6 \U0001F600"


def test_rejects_unstorable_values(flash):
    with pytest.raises(TypeError):
        store.set("x", [1, 2])


def test_secrets_are_masked_for_display():
    assert store.is_secret("ai.chat.key")
    assert store.is_secret("mcp.servers.weather.token")
    assert store.is_secret("wifi.password")
    assert not store.is_secret("ai.chat.model")
    shown = store.display("ai.chat.key", "sk-abcdefghijklmnop1234")
    assert "abcdefghijklmnop" not in shown and shown != "sk-abcdefghijklmnop1234"
    assert store.display("ai.chat.model", "llama3") == "llama3"
    assert store.display("ai.chat.key", "short") == "*****"


def test_unreadable_settings_are_kept_aside_not_lost(flash, capsys):
    (flash / "settings.json").write_bytes(b'{"ai.chat.model": "x", oops')
    assert store.get("ai.chat.model") is None
    assert (flash / "settings.json.bad").read_bytes().startswith(b'{"ai.chat.model"')
    assert "unreadable" in capsys.readouterr().out
    store.set("ai.chat.model", "y")
    store.reload()
    assert store.get("ai.chat.model") == "y"


def check_consistent(root):
    store.set_root(str(root))
    with open(os.path.join(str(root), "settings.json"), "rb") as f:
        import jsonstream
        data = jsonstream.load(f)
    n = data["n"]
    assert len(data["pad"]) == n % 700 and data["ai.chat.key"] == "sk-%d" % n
    return n


def kill_writer_repeatedly(cmd, env, root, rounds):
    rng = random.Random(7)
    seen = []
    for _ in range(rounds):
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        # killed only once it wrote a version: a kill before its first write
        # (a loaded machine) would test nothing and repeat the last n
        assert p.stdout.readline().startswith(b"wrote "), p.stderr.read()
        time.sleep(rng.uniform(0, 0.1))     # then somewhere among its writes
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
        seen.append(check_consistent(root))
    # every round wrote, so every kill landed in a stream of writes
    assert seen == sorted(set(seen)) and len(seen) == rounds and seen[-1] >= rounds, seen


def test_killed_cpython_writer_leaves_readable_store(tmp_path):
    env = dict(os.environ, PYTHONPATH=mpyrun.LIB)
    cmd = [sys.executable, os.path.join(mpyrun.SCEN, "store_writer.py"), str(tmp_path)]
    kill_writer_repeatedly(cmd, env, tmp_path, 15)


def test_killed_micropython_writer_leaves_readable_store(mpy, tmp_path):
    # the folder goes in the environment, as mpy.run() passes arguments:
    # argv is interned as names, which the heap cap's calibration never saw
    kill_writer_repeatedly(mpy.cmd("store_writer", GOAL),
                           mpy.env({"ANTOS_ARGV": "\x1f" + str(tmp_path)}), tmp_path, 15)


def test_mask_shows_the_ends_of_long_secrets_only():
    """A 9-character token masked as "sek...23" showed 5 of its 9
    characters: one shorter than 16 is stars only."""
    assert store.mask("sekret123") == "*********"
    assert store.mask("abcdefghijklmno") == "*" * 15
    assert store.mask("abcdefghijklmnop") == "abc...op"
    assert store.mask("gsk-secret-0123456789") == "gsk...89"
    assert store.mask("") == ""
