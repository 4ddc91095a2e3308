"""Every device module must compile for the ESP32 (xtensawin)."""
import os
import tempfile

import mpyrun


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
