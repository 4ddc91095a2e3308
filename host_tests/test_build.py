"""Every device module must compile for the ESP32 (xtensawin)."""
import os
import subprocess
import tempfile
import threading

import mpyrun
from toolrun import load, run


def test_every_lib_module_compiles_for_xtensawin():
    with tempfile.TemporaryDirectory() as out:
        errors = mpyrun.compile_tree(mpyrun.LIB, out, march="xtensawin")
        names = sorted(os.path.relpath(os.path.join(d, f), out)
                       for d, _, fs in os.walk(out) for f in fs)
    assert not errors, "\n".join("%s: %s" % e for e in errors)
    assert "compat.mpy" in names


def test_compile_failure_names_the_file(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n")
    errors = mpyrun.compile_tree(str(tmp_path), str(tmp_path / "out"), march="xtensawin")
    assert [e[0].endswith("broken.py") for e in errors] == [True]


def test_heap_cap_is_enforced_and_peak_reported(mpy, tmp_path):
    small = mpy.run("heapcheck", heap="32K", args=[8000])
    assert small.rc == 0, small
    assert small.peak is not None and small.working >= 8000, small
    big = mpy.run("heapcheck", heap="32K", args=[40000])
    assert big.rc != 0 and "MemoryError" in big.err + big.out, big


def test_the_heap_cap_holds_when_lib_gains_names(mpy, tmp_path):
    """romboot opens the names' next pool up front; with twice lib/'s names
    that pool is at least twice as large, and the runner's calibration must
    still boot and leave the heap a test names (it once failed every test
    at boot when lib/ crossed a pool size)."""
    import copy
    grown = copy.copy(mpy)
    with open(mpy.qstrs) as f:
        names = f.read()
    n = names.count("\n")
    grown.qstrs = str(tmp_path / "qstrs.txt")
    with open(grown.qstrs, "w") as f:
        f.write(names + "".join("grown_name_%05d\n" % i for i in range(n)))
    grown.flash = {True: grown.calibrate(True), False: mpy.flash[False]}
    assert grown.boot(True) > mpy.boot(True) + 16 * n      # the names are in the boot
    small = grown.run("heapcheck", heap="32K", args=[8000])
    assert small.rc == 0, small
    big = grown.run("heapcheck", heap="32K", args=[40000])
    assert big.rc != 0 and "MemoryError" in big.err + big.out, big


def test_a_build_into_a_used_folder_never_takes_a_file_away(tmp_path, monkeypatch):
    """make deploy to two boards at once: one copies from the build folder
    while the other compiles into it again. Every file stays there, whole,
    all along; a file whose source is gone goes."""
    mpybuild = load("mpybuild")
    src, out = tmp_path / "lib", tmp_path / "out"
    for i in range(9):
        (src / ("pkg%d" % (i % 3))).mkdir(parents=True, exist_ok=True)
        (src / ("pkg%d" % (i % 3)) / ("m%d.py" % i)).write_text("X = %r\n" % ("x" * 500 * i))
    monkeypatch.setattr(mpybuild, "LIB", str(src))
    assert mpybuild.main(["--quiet", "--out", str(out)]) == 0
    built = {p: p.read_bytes() for p in out.rglob("*.mpy")}
    assert len(built) == 9
    (out / "pkg0" / "gone.mpy").write_bytes(b"stale")
    seen, done = [], threading.Event()

    def read_all():
        while not done.is_set():
            try:
                seen.append({p: p.read_bytes() for p in built} == built)
            except OSError as e:
                seen.append(e)
    reader = threading.Thread(target=read_all)
    reader.start()
    try:
        assert mpybuild.main(["--quiet", "--out", str(out)]) == 0
    finally:
        done.set()
        reader.join()
    assert len(seen) > 2 and all(x is True for x in seen), [x for x in seen if x is not True][:3]
    assert not (out / "pkg0" / "gone.mpy").exists()
    assert sorted(out.rglob("*")) == sorted(set(built) | {out / d for d in ("pkg0", "pkg1",
                                                                          "pkg2")})


FOLDS = '''import sys
MICROPYTHON = sys.implementation.name == "micropython"
if MICROPYTHON: s = "\u00e9t\u00e9"
else:
    import cpython_only_module
def f(x):
    if not MICROPYTHON:
        return cpython_only_module.f(x)
    elif MICROPYTHON:
        return x + 1
    return x if MICROPYTHON else x - 1
kept = MICROPYTHON and 1
'''


def test_cpython_branches_are_folded_away_in_what_is_compiled(tmp_path):
    """lib/ is compiled (make mpy, the tests' MicroPython, the firmware's
    manifest) with `if MICROPYTHON:` made constant; only those tests change,
    line for line, and the compiler drops the other branch."""
    mpybuild = load("mpybuild")
    folded = mpybuild.fold(FOLDS)
    assert folded.splitlines() == FOLDS.replace("if MICROPYTHON:", "if True:").replace(
        "if not MICROPYTHON:", "if False:").splitlines()
    assert "x if MICROPYTHON else" in folded and "kept = MICROPYTHON and" in folded
    assert mpybuild.fold("import os\nif os.sep:\n    pass\n") is None
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "folds.py").write_text(FOLDS, encoding="utf-8")
    assert not mpybuild.compile_tree(str(tmp_path / "src"), str(tmp_path / "out"), march="xtensawin")
    assert b"cpython_only_module" not in (tmp_path / "out" / "folds.mpy").read_bytes()
    assert b"cpython_only_module" in subprocess.run(
        [mpybuild.mpy_cross(), "-march=xtensawin", "-o", "/dev/stdout", str(tmp_path / "src" / "folds.py")],
        capture_output=True).stdout
    # as the tests' MicroPython runs lib/: compiled for this host, folded
    assert not mpybuild.compile_tree(str(tmp_path / "src"), str(tmp_path / "host"))
    r = subprocess.run([mpyrun.tool("micropython"), "-c",
                        "import sys; sys.path.insert(0, %r); import folds; print(folds.s, folds.f(1), folds.kept)"
                        % str(tmp_path / "host")], capture_output=True, text=True, timeout=60)
    assert r.stdout.split() == ["\u00e9t\u00e9", "2", "1"], r


def test_measurements_give_the_frozen_size_make_mpy_gives(tmp_path):
    """make measure writes lib/'s frozen size into MEASUREMENTS.md, compiled
    as make mpy compiles it."""
    measure = load("bench/measure")
    rows = measure.frozen_size()
    total = sum(n for _, n in rows)
    r = run("mpybuild.py", "--march", "xtensawin", "--out", tmp_path / "x")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-2].split()[:2] == ["total", str(total)], r.stdout
    doc = measure.render([], "", "2026-12-03", "abc", rows)
    assert "## Frozen size" in doc
    assert "{:,} bytes of .mpy in {} modules".format(total, len(rows)) in doc, doc
    assert "jsonstream.mpy {:,}".format(dict(rows)["jsonstream.mpy"]) in doc


def test_the_tests_micropython_is_v1_28_at_the_boards_word_size():
    """Every scenario, make sim and the simulated board run this one
    interpreter (tools/mpunix.py): the unix port of v1.28.0 built for 32
    bits, its variant (tools/antos32) the ESP32 port's where it matters."""
    code = ("import sys, gc\n"
            "print(sys.maxsize, sys.implementation.version[:3], sys.implementation._build,"
            " sys.implementation._thread)\n"
            "gc.collect(); a = gc.mem_alloc(); t = [(i,) for i in range(100)]\n"
            "print(gc.mem_alloc() - a)\n"
            "import asyncio, ssl, tls, mip, ntptime, requests\n"
            "try:\n    [].x\nexcept AttributeError as e:\n    print(e)\n")
    r = subprocess.run([mpyrun.tool("micropython"), "-c", code], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    first, size, err = r.stdout.splitlines()
    assert first == "2147483647 (1, 28, 0) antos32 GIL", first
    # 100 tuples and their list: 32-bit objects (the 64-bit build: 4,288 + its list)
    assert 2048 <= int(size) <= 2400, size
    assert err == "'list' object has no attribute 'x'", err
