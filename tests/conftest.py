"""Shared test configuration.

Oracle tests (marked ``oracle``) compare skirm with independent
implementations. With ``SKIRM_STRICT_ORACLES=1`` (set by ``.ci/run``) a skipped
oracle test is reported as a failure, so CI cannot pass without them.
"""

import os
from pathlib import Path

import numpy as np
import pytest

#: The shared reference data, beside the project root.
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and os.environ.get("SKIRM_STRICT_ORACLES") == "1"
        and item.get_closest_marker("oracle") is not None
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"oracle test skipped under SKIRM_STRICT_ORACLES=1: {item.nodeid}"
        )


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def shared_data():
    """Path of the shared reference data; oracle tests fail loudly without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED_DATA}")
    return SHARED_DATA
