"""Every gallery example runs as a plain script, so none can rot."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: The gallery's examples, one folder per section (docs/conf.py).
EXAMPLES = sorted(
    (Path(__file__).resolve().parents[1] / "examples").glob("*/plot_*.py"),
    key=lambda path: path.name,
)


def test_examples_are_found():
    assert len(EXAMPLES) >= 5, [path.name for path in EXAMPLES]


def test_every_example_is_in_a_section_of_the_gallery():
    """A gallery section is a folder with its README.txt, listed in
    docs/conf.py; an example outside them would not be shown."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    assert list(examples.glob("plot_*.py")) == []
    conf = (examples.parent / "docs" / "conf.py").read_text()
    for path in EXAMPLES:
        assert (path.parent / "README.txt").exists(), path
        assert f'"../examples/{path.parent.name}"' in conf, path.parent.name


def test_no_example_ends_on_a_saved_file():
    """Gallery pages show what an example prints: no path of a temporary
    file (the gallery keeps the figures itself)."""
    for path in EXAMPLES:
        assert "savefig" not in path.read_text(), path.name


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
    path = next(p for p in EXAMPLES if p.name == "plot_lightgbm_xgboost.py")
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
