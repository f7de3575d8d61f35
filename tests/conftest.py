"""Shared test configuration.

Oracle tests (marked ``oracle``) compare skirm with independent
implementations. With ``SKIRM_STRICT_ORACLES=1`` (set by ``.ci/run``) a skipped
oracle test is reported as a failure, so CI cannot pass without them; the one
exception is a test that needs the reference data (MQ2008, LightGBM's example)
when that folder is absent, as in a lone clone of the project.

The reference data are read from ``$SKIRM_DATA``, by default ``shared/data``
beside the project's folder.
"""

import os
from pathlib import Path

import numpy as np
import pytest

#: The reference data: $SKIRM_DATA, else shared/data beside the project root.
SHARED_DATA = Path(
    os.environ.get("SKIRM_DATA")
    or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)

#: How a skip for missing reference data starts (strict mode lets it pass).
NO_DATA = "reference data not found"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and os.environ.get("SKIRM_STRICT_ORACLES") == "1"
        and item.get_closest_marker("oracle") is not None
        and NO_DATA not in str(report.longrepr)
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
        pytest.skip(f"{NO_DATA} at {SHARED_DATA} (set SKIRM_DATA to its folder)")
    return SHARED_DATA
