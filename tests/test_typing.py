"""The public API is annotated for type checkers and editors.

A user-like script type-checks clean with mypy (and runs), a script with
wrong arguments gets one error per wrong call, and every public callable
carries annotations on all its parameters and its return, so a new one
cannot land unannotated.
"""

from __future__ import annotations

import importlib
import inspect
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import skirm

#: The packages whose public names must be annotated.
PACKAGES = [
    "skirm.metrics",
    "skirm.model_selection",
    "skirm.ranker",
    "skirm.datasets",
    "skirm.inspection",
    "skirm.recsys",
    "skirm.stats",
    "skirm.io",
    "skirm.plot",
    "skirm.trec",
    "skirm.dask",
]

#: Public names not (yet) annotated, and why.
EXEMPT: dict[str, str] = {
    "skirm.trec.supported_measures": "a frozenset, as pytrec_eval's",
    "skirm.trec.supported_nicknames": "a read-only mapping, as pytrec_eval's dict",
}

# --------------------------------------------------------------------------
# Every public callable is annotated
# --------------------------------------------------------------------------


def _public_callables():
    """``(qualified name, function)`` of every public function, and of every
    class's ``__init__``, ``__call__`` and public methods (class and static
    methods included) defined by the class itself."""
    found = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            qualified = f"{package}.{name}"
            if qualified in EXEMPT:
                continue
            obj = getattr(module, name)
            if not inspect.isclass(obj):
                found.append((qualified, obj))
                continue
            for attr, value in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__call__"):
                    continue
                if isinstance(value, (classmethod, staticmethod)):
                    value = value.__func__
                if inspect.isfunction(value):
                    found.append((f"{qualified}.{attr}", value))
    return found


def _unannotated(function):
    signature = inspect.signature(function)
    missing = [
        name
        for name, parameter in signature.parameters.items()
        if name not in ("self", "cls") and parameter.annotation is parameter.empty
    ]
    if signature.return_annotation is signature.empty:
        missing.append("return")
    return missing


def test_every_public_callable_is_annotated():
    callables = _public_callables()
    assert len(callables) > 100  # the walk reaches the methods too
    missing = {name: m for name, function in callables if (m := _unannotated(function))}
    assert missing == {}


def test_the_check_sees_a_missing_annotation():
    def half(x: int, y) -> int:
        return x

    def whole(x: int) -> int:
        return x

    def no_return(x: int):
        return x

    assert _unannotated(half) == ["y"]
    assert _unannotated(whole) == []
    assert _unannotated(no_return) == ["return"]


def test_the_walk_reaches_every_package():
    # trec's names are loaded lazily, and the classes' methods are walked.
    names = {name for name, _ in _public_callables()}
    for expected in (
        "skirm.trec.evaluate_run",
        "skirm.trec.RelevanceEvaluator.evaluate",
        "skirm.trec.ZScores.convert",
        "skirm.dask.per_query_frame",
        "skirm.metrics.EvaluationResult.concat",
        "skirm.metrics.RankedLists.to_rows",
        "skirm.stats.Comparison.to_latex",
        "skirm.io.as_run",
    ):
        assert expected in names


def test_exemptions_are_public_names():
    for qualified in EXEMPT:
        package, name = qualified.rsplit(".", 1)
        assert name in importlib.import_module(package).__all__, qualified


@pytest.mark.slow
def test_typing_costs_no_import():
    # The aliases are read by type checkers only: loading the whole public
    # API does not import them.
    code = (
        "import sys, skirm, skirm.metrics as m\n"
        "import skirm.datasets, skirm.inspection, skirm.io, skirm.model_selection\n"
        "import skirm.plot, skirm.ranker, skirm.recsys, skirm.stats\n"
        "import skirm.dask, skirm.trec as t\n"
        "for package in (skirm, skirm.datasets, skirm.inspection, skirm.io,\n"
        "                skirm.model_selection, skirm.plot, skirm.ranker,\n"
        "                skirm.recsys, skirm.stats, skirm.dask, m, t):\n"
        "    [getattr(package, name) for name in package.__all__]\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert "skirm.metrics._scorer" in loaded  # the API was loaded
    assert "skirm.trec._pytrec" in loaded
    assert "skirm.dask._run_partitions" in loaded
    assert "dask" not in loaded  # skirm.dask imports it when called
    for aliases in (
        "skirm._typing",
        "skirm.metrics._label_types",
        "skirm.io._input_types",
    ):
        assert aliases not in loaded
    # ... and the aliases themselves import cleanly.
    importlib.import_module("skirm._typing")
    importlib.import_module("skirm.metrics._label_types")
    importlib.import_module("skirm.io._input_types")


# --------------------------------------------------------------------------
# mypy on a user's script
# --------------------------------------------------------------------------

GOOD = """\
import io
from typing import Any

import dask.array as da
import dask.dataframe as dd
import matplotlib
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from numpy.typing import NDArray
from typing_extensions import assert_type

matplotlib.use("Agg")

from skirm.dask import evaluate as dask_evaluate
from skirm.dask import evaluate_run as dask_evaluate_run
from skirm.dask import per_query_frame
from skirm.datasets import make_ranking
from skirm.inspection import permutation_importance
from skirm.io import Qrels, Run, as_qrels, as_run, read_run, write_run
from skirm.metrics import (
    EvaluationResult,
    Metric,
    RankedLists,
    RankingScorer,
    alpha_ndcg_score,
    cwl_report,
    evaluate,
    from_lists,
    get_metric,
    get_scorer,
    make_ranking_scorer,
    mean_average_precision_score,
    metric_names,
    ndcg_score,
    precision_at_k_score,
)
from skirm.model_selection import QueryGroupKFold, train_test_split_groups
from skirm.plot import MetricAtKDisplay, PerQueryDisplay
from skirm.ranker import PairwiseRanker
from skirm.recsys import catalog_coverage, rank_biased_overlap
from skirm.stats import Comparison, compare, confidence_intervals, paired_test
from skirm.trec import (
    RelevanceEvaluator,
    ZScores,
    evaluate_diversity,
    evaluate_run,
    format_ndeval,
    read_zscores,
    trec_measure_names,
)

X, y, groups = make_ranking(n_groups=20, random_state=0)
assert_type(X, NDArray[np.float64])
score = X[:, 0]
assert_type(ndcg_score(y, score, groups=groups, k=10), float)
assert_type(ndcg_score(y.tolist(), score.tolist(), groups=list(groups)), float)
mean_average_precision_score(
    y, score, groups=groups, ties="first", no_relevant="skip", denominator="min_k"
)
ndcg_score(y, score, groups=groups, gain="exponential", no_relevant=1.0)
lists = from_lists([["a", "b"], ["c"]], [{"a": 1}, {"c": 2, "d": 1}])
assert_type(lists, RankedLists)
assert_type(precision_at_k_score(lists, None, k=1), float)
from_lists(
    np.array([[3, 1, -1], [2, 5, 4]]), [{1}, {4, 6}], groups=["u", "v"], padding=-1
)
list_rows = lists.to_rows()
precision_at_k_score([{"a"}, {"c"}], [["a", "b"], ["c"]], k=1)
alpha_ndcg_score([[1, 0], [0, 1]], [2.0, 1.0], groups=[0, 0], k=5)

result = evaluate(y, score, groups=groups, metrics=["ndcg@5", get_metric("map")])
assert_type(result, EvaluationResult)
assert_type(result.per_query["map"], NDArray[Any])
assert_type(result.n_unjudged, NDArray[np.intp] | None)
by_query: dict[Any, dict[str, float]] = result.to_dict()
result.to_frame(tidy=True)
merged = EvaluationResult.concat([result])
assert_type(merged["map"], float)
evaluate(y, score, groups=groups, metrics="map", conventions="lightgbm", n_jobs=2)
cwl_report(y, score, groups=groups, measure="inst", T=2.0)
metric: Metric = get_metric("ndcg@10", gain="exponential")
assert_type(metric(y, score, groups=groups), float)
names: list[str] = metric_names()

scorer = make_ranking_scorer(["ndcg@10", "map"], response_method="predict")
assert_type(scorer, RankingScorer)
make_ranking_scorer(ndcg_score, k=5, ties="first")
make_ranking_scorer({"n": "ndcg@10", "m": metric})
get_scorer("ndcg@10").set_score_request(sample_weight=True)

cv = QueryGroupKFold(n_splits=3, shuffle=True, random_state=0, stratify="size")
for train, test in cv.split(X, y, groups):
    assert_type(train, NDArray[np.intp])
X_train, X_test, y_train, y_test = train_test_split_groups(
    X, y, groups=groups, test_size=0.25, random_state=0
)
model = PairwiseRanker(random_state=0).fit(X, y, groups=groups)
assert_type(model, PairwiseRanker)
assert_type(model.predict(X), NDArray[np.float64])
importance = permutation_importance(
    LinearRegression().fit(X, y), X, y, groups=groups, n_repeats=2, random_state=0
)
per_metric = permutation_importance(
    LinearRegression().fit(X, y), X, y, groups=groups, scoring=["ndcg@10", "map"],
    n_repeats=2, random_state=0,
)

low, high = confidence_intervals(result)["ndcg@5"]
other = evaluate(y, X[:, 1], groups=groups, metrics=["ndcg@5", "map"])
comparison = compare(
    {"model": result, "feature": other}, baseline="feature", test="randomization",
    correction="holm", n_resamples=200, missing="intersect", random_state=0,
)
assert_type(comparison, Comparison)
markdown: str = comparison.to_markdown()
comparison.to_latex(caption="Two systems", label=None)
pair_records = comparison.to_records("pairs")
compare({"a": result, "b": other}, test="tukey_hsd", correction=None, exact=True)
paired = paired_test(result.per_query["ndcg@5"], result.per_query["map"])
assert_type(paired.pvalue, float)
catalog_coverage([["a", "b"], ["c"]], catalog=["a", "b", "c", "d"], k=1)
rank_biased_overlap(["a", "b", "c"], ["b", "a"], p=0.9)

out = io.StringIO()
write_run(out, ["q1", "q1"], ["d1", "d2"], [0.5, 0.2], run_id="bm25")
run = read_run(io.StringIO(out.getvalue()))
assert_type(run, Run)
Qrels(["q1"], ["d1"], [1])

qrels = as_qrels({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}})
assert_type(qrels, Qrels)
trec_run = as_run(
    [("q1", "d1", 0.5), ("q1", "d2", 0.7), ("q2", "d3", 0.1)], run_id="bm25"
)
as_qrels([("q1", "d1", 1)], query_id=None)
trec = evaluate_run(qrels, trec_run, ["map", "P_5", "ndcg@10"], compat="9.0")
assert_type(trec, EvaluationResult)
assert_type(trec.run_id, str)
evaluate_run(
    {"q1": {"d1": 1}}, {"q1": {"d1": 0.3}}, "official", relevance_level=1,
    max_docs=100, all_queries=True, rel_format="qrels",
)
measure_names: list[str] = trec_measure_names()
zscores = ZScores(["q1", "q2"], ["map", "map"], [0.3, 0.2], [0.1, 0.1])
evaluate_run(qrels, trec_run, "map", zscores=zscores)
read_zscores(io.StringIO("q1 map 0.3 0.1\\n"))
assert_type(zscores.convert(["q1"], "map", [0.5]), NDArray[np.float64])
evaluator = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1,3"})
pytrec: dict[str, dict[str, float]] = evaluator.evaluate({"q1": {"d1": 0.5}})
report = evaluate_diversity(
    io.StringIO("1 1 d1 1\\n1 2 d2 1\\n"),
    io.StringIO("1 Q0 d1 1 3 s\\n1 Q0 d2 2 2 s\\n"),
    ["alpha_nDCG@5", "ERR_IA@10"],
    alpha=0.5,
)
ndeval: str = format_ndeval(evaluate_diversity(
    io.StringIO("1 1 d1 1\\n1 2 d1 0\\n"), io.StringIO("1 Q0 d1 1 3 s\\n"),
    k=(5, 10),
))

rows = dd.from_pandas(
    pd.DataFrame({"qid": groups, "label": y, "score": score}), npartitions=2
)
dask_result = dask_evaluate(
    rows["label"], rows["score"], groups=rows["qid"], metrics=["ndcg@10"],
    ties="optimistic", no_relevant="skip",
)
assert_type(dask_result, EvaluationResult)
dask_evaluate(
    da.from_array(y, chunks=100), da.from_array(score, chunks=100),
    groups=da.from_array(groups, chunks=100), metrics="map", verbose=0,
)
per_query_frame(
    rows["label"], rows["score"], groups=rows["qid"], gain="exponential"
).compute()
dask_trec = dask_evaluate_run(
    qrels, dd.from_pandas(trec_run.to_frame(), npartitions=1), ["map"], compat="9.0"
)
assert_type(dask_trec, EvaluationResult)

display = MetricAtKDisplay.from_predictions(y, score, groups=groups, k=range(1, 11))
assert_type(display, MetricAtKDisplay)
MetricAtKDisplay.from_predictions(y, X[:, 1], groups=groups, ax=display.ax_)
PerQueryDisplay.from_predictions(y, score, X[:, 1], groups=groups, top_n=2)
"""

#: Each line ending in ``# error`` must give one mypy error; no other line.
BAD = """\
import dask.array as da
import numpy as np

from skirm.dask import evaluate as dask_evaluate
from skirm.dask import evaluate_run as dask_evaluate_run
from skirm.io import as_qrels, as_run
from skirm.metrics import evaluate, from_lists, make_ranking_scorer, ndcg_score
from skirm.model_selection import QueryGroupKFold
from skirm.plot import MetricAtKDisplay
from skirm.stats import compare, paired_test
from skirm.trec import RelevanceEvaluator, evaluate_diversity, evaluate_run

y = np.array([1, 0, 2, 0])
s = np.array([0.4, 0.3, 0.2, 0.1])
g = np.array([0, 0, 1, 1])
ndcg_score(y, s, groups=g, k="10")  # error
ndcg_score(y, s, groups=g, ties="avg")  # error
ndcg_score(y, s, groups=g, no_relevant="ignore")  # error
ndcg_score(y, s, groups=g, gain="exp")  # error
value: str = ndcg_score(y, s, groups=g)  # error
evaluate(y, s, groups=g, conventions="lightgbmm")  # error
total: float = evaluate(y, s, groups=g)  # error
make_ranking_scorer("ndcg@10", response_method="predict_probability")  # error
QueryGroupKFold(n_splits="5")  # error
paired_test(s, s, test="ttest")  # error
MetricAtKDisplay.from_predictions(y, s, groups=g, ties="avg")  # error
q = {"q1": {"d1": 1}}
r = {"q1": {"d1": 0.5}}
evaluate_run(q, r, compat=9.0)  # error
evaluate_run(q, r, "map", rel_format="jg")  # error
evaluate_run(q, 42)  # error
RelevanceEvaluator(q, {"map"}).evaluate(r)["q1"]["map"].upper()  # error
evaluate_diversity("qrels.txt", "run.txt", k="10")  # error
as_qrels(q, relevance=2)  # error
as_run(r, run_id=None)  # error
c = da.from_array(s)
dask_evaluate(c, c, groups=c, ties="avg")  # error
dask_evaluate_run(q, "runs/*.txt", compat="9")  # error
result = evaluate(y, s, groups=g)
result.ci()  # error
result.to_frame(backend="spark")  # error
compare({"a": result, "b": result}, correction="bh")  # error
from_lists([["a"]], [{"a"}], padding=[0])  # error
"""


def _mypy(tmp_path, monkeypatch, files):
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extra")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    # Read the skirm under test (not an installed copy), without reporting
    # its own errors: CI runs mypy on the package with its configuration.
    monkeypatch.setenv("MYPYPATH", str(Path(skirm.__file__).resolve().parents[1]))
    monkeypatch.chdir(tmp_path)
    stdout, stderr, status = api.run(
        [
            *files,
            "--follow-imports=silent",
            "--ignore-missing-imports",
            "--no-error-summary",
            "--show-error-codes",
            "--config-file=",
            f"--cache-dir={tmp_path / 'mypy_cache'}",
        ]
    )
    assert stderr == ""
    errors = {}
    for line in stdout.splitlines():
        match = re.match(r"(\w+\.py):(\d+): error: (.*)", line)
        if match:
            errors.setdefault(match[1], {})[int(match[2])] = match[3]
    return errors, status, stdout


@pytest.mark.slow
def test_mypy_passes_correct_calls_and_reports_wrong_ones(tmp_path, monkeypatch):
    errors, status, stdout = _mypy(
        tmp_path, monkeypatch, {"user_ok.py": GOOD, "user_bad.py": BAD}
    )
    assert "user_ok.py" not in errors, stdout
    expected = {
        number
        for number, line in enumerate(BAD.splitlines(), start=1)
        if line.endswith("# error")
    }
    assert set(errors.get("user_bad.py", {})) == expected, stdout
    assert status == 1
    reported = errors["user_bad.py"]
    assert "Literal" in reported[min(expected) + 1]  # ties="avg" against the Literal
    assert '"int | None"' in reported[min(expected)]  # k="10"


def test_the_correct_script_runs(tmp_path, monkeypatch):
    # What the type checker accepts is also what skirm accepts.
    pytest.importorskip("matplotlib")
    pytest.importorskip("typing_extensions")
    import matplotlib.pyplot as plt

    path = tmp_path / "user_ok.py"
    path.write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    try:
        namespace = runpy.run_path(str(path))
    finally:
        plt.close("all")
    assert 0.0 <= namespace["low"] <= namespace["high"]
    assert set(namespace["per_metric"]) == {"ndcg@10", "map"}
