"""Public names load on first use: the lazy tables agree with the imports
type checkers read, and a plain import pulls in no more than it needs."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGES = ["skirm", "skirm.metrics", "skirm.trec"]


def _type_checking_names(package):
    """Names imported under ``if TYPE_CHECKING:`` in the package's file."""
    path = Path(importlib.import_module(package).__file__)
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for stmt in node.body:
                names.update(alias.name for alias in stmt.names)
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_lazy_table_equals_the_type_checking_imports(package):
    module = importlib.import_module(package)
    public = set(module.__all__) - {"__version__"}
    assert public == _type_checking_names(package)
    for name in module.__all__:
        assert getattr(module, name) is not None
        assert name in dir(module)


@pytest.mark.parametrize("package", PACKAGES)
def test_unknown_name_is_an_attribute_error(package):
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=rf"module '{package}' has no attribute"):
        module.no_such_name  # noqa: B018


def test_the_top_level_names_are_the_metrics_objects():
    import skirm.metrics

    assert skirm.ndcg_score is skirm.metrics.ndcg_score
    assert "__version__" in skirm.__all__


def _modules_after(statement):
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_import_skirm_loads_no_metric():
    loaded = _modules_after("import skirm")
    assert "skirm.metrics" not in loaded
    assert "numpy" not in loaded


@pytest.mark.parametrize(
    "statement",
    ["import skirm.trec", "import skirm._cli", "import skirm.metrics"],
)
def test_evaluation_imports_no_heavy_dependency(statement):
    # scikit-learn, scipy.stats, pandas and matplotlib load only when a call
    # needs them (scorers, statistics, frames, figures).
    loaded = _modules_after(statement)
    for heavy in ("sklearn", "scipy.stats", "pandas", "matplotlib", "joblib"):
        assert heavy not in loaded, (statement, heavy)


def test_registry_records_are_whole_in_a_fresh_process():
    # Regression: with names loaded on first use, the C/W/L specs came
    # without their public functions until someone imported them.
    code = (
        "from skirm.metrics._registry import SPECS; "
        "print([s.name for s in SPECS if s.function is None])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
