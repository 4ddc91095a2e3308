import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)

import mpyrun  # noqa: E402

# Real MCP peers (fixtures and the summary hook). Imported rather than
# listed in pytest_plugins, so `pytest` also works from the repository root.
from peers import (conformance, conformance_suite, everything_process,  # noqa: E402,F401
                   everything_server, pytest_terminal_summary, sdk_process, sdk_server,
                   ts_server)

# a simulated flash folder whose /bin scripts are named test_*.py (the
# conformance suite's fixture tools): not test modules
collect_ignore = ["mcp_flash"]

TESTDATA = os.path.join(os.path.dirname(HERE), "..", "shared", "testdata")


@pytest.fixture(scope="session")
def mpy():
    """Runner for scenarios under the MicroPython unix port (see mpyrun)."""
    return mpyrun.Runner()


@pytest.fixture
def flash(tmp_path):
    """A fresh simulated flash: lib/store points at tmp_path."""
    import store
    store.set_root(str(tmp_path))
    yield tmp_path
    store.set_root(None)


@pytest.fixture(scope="session")
def testdata():
    path = os.path.normpath(TESTDATA)
    if not os.path.isdir(path):
        pytest.skip("shared test data not found at %s" % path)
    return path


# Test tiers (host_tests/README.md): markers applied from what a test uses,
# so a new test lands in the right tier without anyone remembering to tag it.
#   micropython  runs scenarios under the unix port (the `mpy` fixture, or a
#                module that drives test_simboard's simulated board)
#   peers        a real MCP server from PyPI or npm
#   conformance  the official MCP conformance suite (the conformance_suite
#                fixture, which the conformance fixture uses)
#   pty          drives a program through a pseudo-terminal (pexpect)
#   smoke        a MicroPython test `make check` keeps (marked by hand)
# `make check` runs: not (micropython or peers or conformance or pty), or smoke.
_PEER_FIXTURES = ("sdk_server", "sdk_process", "everything_server",
                  "everything_process", "ts_server")


def pytest_configure(config):
    for name, what in (("micropython", "runs scenarios under the MicroPython unix port"),
                       ("peers", "uses a real MCP server from PyPI or npm"),
                       ("conformance", "runs the official MCP conformance suite"),
                       ("pty", "drives a program through a pseudo-terminal"),
                       ("smoke", "a MicroPython test that make check runs too")):
        config.addinivalue_line("markers", "%s: %s" % (name, what))


def pytest_collection_modifyitems(config, items):
    for item in items:
        used = getattr(item, "fixturenames", ())
        mod = getattr(item, "module", None)
        if "mpy" in used or getattr(getattr(mod, "Board", None), "__module__", "") == "test_simboard":
            item.add_marker("micropython")     # (a simulated board is the unix port too)
        if any(f in used for f in _PEER_FIXTURES):
            item.add_marker("peers")
        if "conformance_suite" in used:        # (the conformance fixture uses it)
            item.add_marker("conformance")
        if getattr(getattr(item, "module", None), "pexpect", None) is not None:
            item.add_marker("pty")


# Measurements (make measure: tools/bench/measure.py): tests assert caps;
# with --measure FILE they also bisect smallest heaps and record figures,
# one JSON line each in FILE, which measure.py turns into
# tools/bench/MEASUREMENTS.md. Without it nothing is bisected or recorded.
def pytest_addoption(parser):
    parser.addoption("--measure", metavar="FILE", default=None,
                     help="bisect smallest heaps and record figures into FILE (JSON lines)")


class Measure:
    def __init__(self, path, mpy=None):
        self.path = path
        self.mpy = mpy

    def record(self, table, row, **figures):
        """A row of a measurement table: figures (bytes, K, counts)."""
        if self.path:
            import json
            with open(self.path, "a") as f:
                f.write(json.dumps({"table": table, "row": row, "figures": figures}) + "\n")

    # A cap is the smallest heap plus 3-4K (CONTRIBUTING.md, "Measure, do
    # not guess"); one further above what its scenario needs than that and
    # run-to-run noise (1-2K on a busy machine) explain asserts too little,
    # and the measuring run says so.
    LOOSE = 8 * 1024

    def smallest(self, table, row, passes, cap, floor=None, shared=False, **figures):
        """Bisect the smallest heap at which passes(heap) holds (between
        floor and cap, see mpyrun.Runner.smallest) and record it with the
        figures; None (and no runs) unless measuring. A cap more than
        LOOSE above it fails: lower the cap to what the record says
        (shared: the cap is several scenarios', the heaviest sets it)."""
        if not self.path:
            return None
        least = self.mpy.smallest(passes, cap, floor)
        self.record(table, row, smallest="%dK" % (least // 1024), cap=cap, **figures)
        assert shared or mpyrun.parse_size(cap) - least <= self.LOOSE, (
            "%s: the cap %s is loose, it needs %dK (a cap is that plus 3-4K)"
            % (row, cap, least // 1024))
        return least


@pytest.fixture(scope="session")
def measure(request, mpy):
    return Measure(request.config.getoption("--measure"), mpy)
