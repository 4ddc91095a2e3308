import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)

import mpyrun  # noqa: E402

# Real MCP peers (fixtures and the summary hook). Imported rather than
# listed in pytest_plugins, so `pytest` also works from the repository root.
from peers import (conformance, everything_process, everything_server,  # noqa: E402,F401
                   pytest_terminal_summary, sdk_process, sdk_server, ts_server)

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
