"""Every gallery example runs as a plain script, so none can rot."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("plot_*.py"))


def test_examples_are_found():
    assert len(EXAMPLES) >= 5, [path.name for path in EXAMPLES]


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
@pytest.mark.slow
def test_example_runs(path, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    completed = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, (
        f"{path.name} exited with {completed.returncode}\n"
        f"--- stdout ---\n{completed.stdout[-3000:]}\n"
        f"--- stderr ---\n{completed.stderr[-3000:]}"
    )


@pytest.mark.slow
def test_lightgbm_xgboost_example_skips_missing_libraries(tmp_path):
    """Without LightGBM and XGBoost the example still runs, and says why."""
    path = EXAMPLES[0].with_name("plot_lightgbm_xgboost.py")
    prelude = (
        "import runpy, sys; "
        "sys.modules['lightgbm'] = None; sys.modules['xgboost'] = None; "
        f"runpy.run_path({str(path)!r}, run_name='__main__')"
    )
    completed = subprocess.run(
        [sys.executable, "-c", prelude],
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "LightGBM is not installed" in completed.stdout
    assert "XGBoost is not installed" in completed.stdout
    assert "pointwise (sklearn)" in completed.stdout
