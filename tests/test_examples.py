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
