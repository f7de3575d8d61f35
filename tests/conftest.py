"""Shared test configuration.

Oracle tests (marked ``oracle``) compare skirm with independent
implementations. With ``SKIRM_STRICT_ORACLES=1`` (set by ``.ci/run``) a skipped
oracle test is reported as a failure, so CI cannot pass without them; the
exceptions are the tests that need the reference data (MQ2008, LightGBM's
example) or the tools beside it that build trec_eval 10.0, when those folders
are absent, as in a lone clone of the project, and the tests of an oracle
package a CI job declares it cannot install (``SKIRM_ABSENT_ORACLES``, names
separated by spaces: ``.ci/run`` names torch and torchmetrics on a Python
without torch's CPU wheel, and runs those tests in a job that has it).

The reference data are read from ``$SKIRM_DATA``, by default ``shared/data``
beside the project's folder.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from _data import mq2008_documents

#: The reference data: $SKIRM_DATA, else shared/data beside the project root.
SHARED_DATA = Path(
    os.environ.get("SKIRM_DATA")
    or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)

#: How a skip for missing reference data starts (strict mode lets it pass).
NO_DATA = "reference data not found"
#: Likewise for the tools that build trec_eval: absent in a lone clone.
NO_TOOLS = "trec_eval build script not found"

#: Builds NIST trec_eval 10.0 from the unmodified source kept beside it.
BUILD_SCRIPT = SHARED_DATA.parent / "tools" / "build-trec-eval"


def _declared_absent(longrepr):
    """Whether a skip is ``importorskip``'s for a package in
    ``$SKIRM_ABSENT_ORACLES``."""
    names = os.environ.get("SKIRM_ABSENT_ORACLES", "").split()
    return any(
        re.search(rf"could not import '{re.escape(name)}[.']", str(longrepr))
        for name in names
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and os.environ.get("SKIRM_STRICT_ORACLES") == "1"
        and item.get_closest_marker("oracle") is not None
        and NO_DATA not in str(report.longrepr)
        and NO_TOOLS not in str(report.longrepr)
        and not _declared_absent(report.longrepr)
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


@pytest.fixture(scope="session")
def mq2008_docs(shared_data):
    """MQ2008's test fold with document ids: ``(labels, qids, docids,
    features)``."""
    return mq2008_documents(shared_data / "mq2008" / "test.txt")


@pytest.fixture
def one_thread():
    """One OpenMP/BLAS thread per fit: CI has 2 shared cores, and searches
    with ``n_jobs=2`` would otherwise oversubscribe them. Modules that fit
    models use it with ``pytestmark = pytest.mark.usefixtures("one_thread")``."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory):
    """trec_eval 10.0, built once per session (skips without the tools)."""
    if not BUILD_SCRIPT.is_file():
        pytest.skip(f"{NO_TOOLS} at {BUILD_SCRIPT} (beside the reference data)")
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
