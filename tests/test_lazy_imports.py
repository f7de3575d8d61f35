"""Public names load on first use: each public package writes its names once
(the re-exports under ``TYPE_CHECKING`` that type checkers read), the lazy
table is read from them, and a plain import pulls in no more than it needs."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import skirm
from skirm._measures._table import MEASURES

PACKAGES = [
    "skirm",
    *sorted(
        f"skirm.{path.parent.name}"
        for path in Path(skirm.__file__).parent.glob("*/__init__.py")
        if not path.parent.name.startswith("_")
    ),
]


def test_every_public_package_is_checked():
    assert "skirm.stats" in PACKAGES and "skirm.plot" in PACKAGES
    assert len(PACKAGES) == 13


def _package_file(package):
    """The statements of the package's ``__init__.py``."""
    path = Path(importlib.import_module(package).__file__)
    return ast.parse(path.read_text()).body


@pytest.mark.parametrize("package", PACKAGES)
def test_each_public_name_is_written_once(package):
    # The package file holds its docstring, the future import, the lazy
    # machinery and the block type checkers read; each name of the block is
    # an explicit re-export (`name as name`), written once, and no other
    # statement names a public name.
    body = _package_file(package)
    block = [
        node
        for node in body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    ]
    assert len(block) == 1
    names = [alias for stmt in block[0].body for alias in stmt.names]
    assert all(alias.asname == alias.name for alias in names)
    written = [alias.name for alias in names]
    assert len(written) == len(set(written))
    rest = [n for n in body[1:] if n not in block]  # after the docstring
    # but the map of renamed names (old -> new: the new one is public)
    renamed = [n for n in rest if getattr(n, "targets", [None])[0] is not None
               and getattr(n.targets[0], "id", "") == "_RENAMED"]  # fmt: skip
    for statement in renamed:
        new = {c.value for c in statement.value.values}
        assert new <= set(written)
        assert not {c.value for c in statement.value.keys} & set(written)
    rest = [n for n in rest if n not in renamed]
    named = {
        getattr(node, "id", None) or getattr(node, "name", None) or node.value
        for statement in rest
        for node in ast.walk(statement)
        if isinstance(node, (ast.Name, ast.alias))
        or (isinstance(node, ast.Constant) and isinstance(node.value, str))
    }
    assert not named & set(written)
    module = importlib.import_module(package)
    assert set(module.__all__) - {"__version__"} == set(written)


@pytest.mark.parametrize("package", PACKAGES)
def test_lazy_names_are_the_objects_of_their_modules(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None
        assert name in dir(module)


def test_star_import_reads_the_derived_all():
    namespace = {}
    exec("from skirm.stats import *", namespace)
    assert "paired_test" in namespace and "lazy_exports" not in namespace


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


def test_the_family_table_names_every_registered_metric():
    # The registry loads a family module on the first use of one of its
    # measures: its table must name, for every MetricSpec of the package,
    # the module that holds it.
    from skirm.metrics import _registry
    from skirm.metrics._spec import MetricSpec

    specs = {}
    for path in sorted(Path(_registry.__file__).parent.glob("_*.py")):
        module = importlib.import_module(f"skirm.metrics.{path.stem}")
        for value in vars(module).values():
            if isinstance(value, MetricSpec):
                specs.setdefault(value.measure, set()).add(value)
    assert set(specs) == set(_registry.FAMILIES)
    for measure, name in _registry.FAMILIES.items():
        spec = _registry.record(measure)
        assert specs[measure] == {spec}
        assert spec in vars(importlib.import_module(f"skirm.metrics.{name}")).values()
    assert [spec.measure for spec in _registry.SPECS] == [
        measure for measure in MEASURES if measure in _registry.FAMILIES
    ]


def test_a_measure_loads_its_family_only():
    loaded = _modules_after(
        "from skirm.metrics import evaluate; "
        "evaluate([1, 0, 1], [0.3, 0.2, 0.1], groups=[0, 0, 0], metrics=['ndcg@2'])"
    )
    assert "skirm.metrics._dcg" in loaded
    for family in ("_counts", "_positions", "_err", "_cwl_measures", "_accuracy"):
        assert f"skirm.metrics.{family}" not in loaded


def test_frames_of_other_libraries_are_recognised_without_importing_them():
    # polars and pyarrow load only when the object passed is one of theirs
    # (or a polars frame is asked for). pandas itself may load pyarrow
    # (pandas >= 3 does when it is installed): what skirm adds is checked.
    frame = (
        "pd.DataFrame({'query_id': ['q1', 'q1', 'q2'], 'doc_id': ['a', 'b', 'a'], "
        "'score': [1.0, 2.0, 0.5], 'label': [1, 0, 1]})"
    )
    code = (
        "import sys; import pandas as pd; "
        f"frame = {frame}; frame['query_id'].isna(); frame['query_id'].to_numpy(); "
        "before = set(sys.modules); "
        "from skirm.io import as_qrels, as_run; "
        "from skirm.metrics import evaluate, from_lists; "
        "from skirm.trec import evaluate_run; "
        "run = as_run(frame); run.to_frame(); "
        "evaluate_run(as_qrels(frame, relevance='label'), frame, 'map').to_frame(); "
        "evaluate(frame['label'], frame['score'], groups=frame['query_id']); "
        "from_lists(pd.Series([['a'], ['b']]), [{'a'}, {'c'}]); "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    added = done.stdout.split()
    assert "skirm.io._convert" in added
    assert not [m for m in added if m.split(".")[0] in ("polars", "pyarrow")]
    loaded = _modules_after(
        "from skirm.io import as_run; from skirm.metrics import evaluate; "
        "as_run({'q': {'d': 1.0}}); evaluate([1, 0], [0.5, 0.2], groups=[1, 1])"
    )
    assert not [m for m in loaded if m.split(".")[0] in ("polars", "pyarrow")]


def test_a_plain_skirm_eval_loads_only_what_it_needs():
    # `skirm eval -m all_trec` on plain qrels: no statistics, scikit-learn,
    # pandas or figures, and none of the diversity, preference or compare
    # machinery (each loaded by the request that names it).
    data = Path(__file__).parent / "data" / "trec_eval"
    statement = (
        "import contextlib, io; from skirm._cli import main; "
        "out = io.StringIO(); "
        "stack = contextlib.redirect_stdout(out); stack.__enter__(); "
        f"status = main(['eval', '-m', 'all_trec', {str(data / 'qrels.test')!r}, "
        f"{str(data / 'results.test')!r}]); stack.__exit__(None, None, None); "
        "assert status == 0 and 'map' in out.getvalue(), status"
    )
    loaded = _modules_after(statement)
    for unneeded in (
        "sklearn",
        "scipy",
        "pandas",
        "matplotlib",
        "skirm.stats",
        "skirm._cli._compare_command",
        "skirm.trec._diversity_run",
        "skirm.trec._ndeval_report",
        "skirm.metrics._diversity",
        "skirm.trec._preferences",
        "json",
        "csv",
        "numpy.ma",  # a plain np.unique or np.setdiff1d imports it
        "tempfile",  # for a figure (--plot) or a large output only
        "concurrent.futures",  # for a run of several blocks only
        "logging",
        "difflib",  # for an unknown measure name only
        # metric families trec_eval's measures are not computed with
        "skirm.metrics._accuracy",
        "skirm.metrics._compat",
        "skirm.metrics._cwl",
        "skirm.metrics._cwl_measures",
        "skirm.metrics._err",
        "skirm.metrics._judged",
        "skirm.metrics._evaluate",  # for skirm's metric names only
        "skirm.metrics._conventions",
        "shutil",  # argparse's help formatter sizes itself with it
        "numpy.strings",  # a block's few query ids are made tokens by Python
        "gzip",  # for a gzip file only
        "skirm._cli._ndeval_command",  # `skirm eval` builds its own parser only
        "skirm._cli._plots",  # for --plot only
        "skirm.trec._dicts",  # for runs held as dicts only
    ):
        assert unneeded not in loaded, unneeded


def test_an_evaluation_with_tied_scores_imports_no_scipy():
    """The expected value over tied orderings (the first relevant row's
    probability in a tie block) needs log binomials: they come from a table
    of the C library's lgamma, not from scipy.special, whose import cost a
    first call with ties three times the steady state."""
    loaded = _modules_after(
        "import skirm._engine._blocks as blocks; blocks.BLOCK_ROWS = 2; "
        "from skirm.metrics import evaluate; "
        "evaluate([1, 0, 1, 0, 2], [1, 1, 1, 0, 0], groups=[0, 0, 0, 1, 1], "
        "metrics=['mrr', 'ndcg@2', 'map', 'err@3', 'rbp', 'precision@2'])"
    )
    assert "scipy" not in loaded
    # nor numpy.ma, which a plain np.unique of the block edges imported
    assert "numpy.ma" not in loaded
