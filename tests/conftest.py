"""Shared test configuration.

Oracle tests (marked ``oracle``) compare skirm with independent
implementations. With ``SKIRM_STRICT_ORACLES=1`` (set by ``.ci/run``) a skipped
oracle test is reported as a failure, so CI cannot pass without them.
"""

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

#: The shared reference data, beside the project root.
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

#: Builds NIST trec_eval 10.0 from the unmodified source kept beside it.
BUILD_SCRIPT = SHARED_DATA.parent / "tools" / "build-trec-eval"


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


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory):
    """trec_eval 10.0, built once per session (skips without the tools)."""
    if not BUILD_SCRIPT.is_file():
        pytest.skip(f"trec_eval build script not found at {BUILD_SCRIPT}")
    if shutil.which("make") is None or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler to build trec_eval")
    dest = tmp_path_factory.mktemp("trec_eval")
    done = subprocess.run(
        ["sh", str(BUILD_SCRIPT), str(dest)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"trec_eval did not build: {done.stderr.strip()[:200]}")
    return done.stdout.strip()
