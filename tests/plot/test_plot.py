"""Ranking displays: the drawn data equal the metric values, not pixels."""

import subprocess
import sys

import matplotlib
import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_validate

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from skirm.datasets import make_ranking
from skirm.metrics import evaluate
from skirm.model_selection import QueryGroupKFold
from skirm.plot import (
    MetricAtKDisplay,
    PerQueryDisplay,
    PrecisionRecallDisplay,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    X, y, groups = make_ranking(n_groups=40, random_state=0)
    return X, y, groups


# --------------------------------------------------------------------------
# MetricAtKDisplay
# --------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["ndcg", "precision", "map", "err", "hit_rate"])
def test_metric_at_k_line_equals_evaluate(data, metric):
    X, y, groups = data
    display = MetricAtKDisplay.from_predictions(
        y, X[:, 0], groups=groups, metric=metric, k=[1, 3, 5, 10], name="f0"
    )
    expected = [
        evaluate(y, X[:, 0], groups=groups, metrics=[f"{metric}@{k}"]).means[
            f"{metric}@{k}"
        ]
        for k in [1, 3, 5, 10]
    ]
    np.testing.assert_array_equal(display.line_.get_xdata(), [1, 3, 5, 10])
    np.testing.assert_allclose(display.line_.get_ydata(), expected, rtol=1e-13)
    assert display.ax_.get_xlabel() == "cutoff k"
    assert metric in display.ax_.get_ylabel()
    assert display.line_.get_label() == "f0"
    assert display.band_ is None


def test_metric_at_k_ranks_once(data, monkeypatch):
    import skirm._engine._blocks as engine

    calls = []
    original = engine.rank

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "rank", counting)
    X, y, groups = data
    MetricAtKDisplay.from_predictions(y, X[:, 0], groups=groups, k=range(1, 51))
    assert len(calls) == 1


def test_metric_at_k_confidence_band_is_a_t_interval(data):
    X, y, groups = data
    k = [1, 5, 10]
    display = MetricAtKDisplay.from_predictions(
        y, X[:, 1], groups=groups, k=k, confidence=0.9
    )
    result = evaluate(y, X[:, 1], groups=groups, metrics=[f"ndcg@{v}" for v in k])
    for j, v in enumerate(k):
        values = result.per_query[f"ndcg@{v}"]
        low, high = stats.t.interval(
            0.9, values.size - 1, loc=values.mean(), scale=stats.sem(values)
        )
        assert display.ci_low[j] == pytest.approx(low, rel=1e-12)
        assert display.ci_high[j] == pytest.approx(high, rel=1e-12)
    path = display.band_.get_paths()[0].vertices
    assert path[:, 1].min() == pytest.approx(min(display.ci_low))


def test_several_systems_share_one_axes(data):
    X, y, groups = data
    first = MetricAtKDisplay.from_predictions(
        y, X[:, 0], groups=groups, k=range(1, 11), name="a"
    )
    second = MetricAtKDisplay.from_predictions(
        y, X[:, 1], groups=groups, k=range(1, 11), name="b", ax=first.ax_
    )
    assert second.ax_ is first.ax_ and second.figure_ is first.figure_
    assert len(first.ax_.get_lines()) == 2
    legend = [t.get_text() for t in first.ax_.get_legend().get_texts()]
    assert legend == ["a", "b"]
    # plot() draws again, elsewhere, under another name.
    again = first.plot(name="renamed")
    assert again is first and first.ax_ is not second.ax_
    assert first.line_.get_label() == "renamed"


def test_from_estimator_uses_the_models_scores(data):
    X, y, groups = data
    model = Ridge().fit(X, y)
    display = MetricAtKDisplay.from_estimator(model, X, y, groups=groups, k=[2, 4])
    expected = MetricAtKDisplay.from_predictions(
        y, model.predict(X), groups=groups, k=[2, 4]
    )
    np.testing.assert_array_equal(display.values, expected.values)
    assert display.line_.get_label() == "Ridge"


def test_from_cv_results_one_line_per_fold_and_the_mean(data):
    X, y, groups = data
    cv = QueryGroupKFold(3)
    results = cross_validate(
        Ridge(),
        X,
        y,
        groups=groups,
        cv=cv,
        return_estimator=True,
        return_indices=True,
        scoring=None,
    )
    display = MetricAtKDisplay.from_cv_results(
        results, X, y, groups=groups, metric="map", k=[1, 5, 10]
    )
    assert len(display.fold_lines_) == 3
    for fold, (estimator, test) in enumerate(
        zip(results["estimator"], results["indices"]["test"], strict=True)
    ):
        expected = [
            evaluate(
                y[test], estimator.predict(X[test]), groups=groups[test], metrics=[m]
            )[m]
            for m in ["map@1", "map@5", "map@10"]
        ]
        np.testing.assert_allclose(display.fold_lines_[fold].get_ydata(), expected)
    np.testing.assert_allclose(
        display.line_.get_ydata(), display.fold_values.mean(axis=0)
    )
    with pytest.raises(ValueError, match="return_estimator=True, return_indices=True"):
        MetricAtKDisplay.from_cv_results({"test_score": [1.0]}, X, y, groups=groups)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(metric="r_precision"), ValueError, "'r_precision' takes no cutoff"),
        (dict(metric="ndcg@10"), ValueError, "base name of a metric with a cutoff"),
        (dict(metric="nope"), ValueError, "unknown measure 'nope"),
        (dict(k=[0, 1]), ValueError, "`k` must be a positive integer"),
        (dict(k=[]), ValueError, "`k` must hold at least one positive integer"),
        (dict(k=5), TypeError, "`k` must be an iterable of positive integers"),
        (dict(confidence=1.5), ValueError, "strictly between 0 and 1"),
    ],
)
def test_metric_at_k_bad_input(data, kwargs, error, match):
    X, y, groups = data
    with pytest.raises(error, match=match):
        MetricAtKDisplay.from_predictions(y, X[:, 0], groups=groups, **kwargs)


def test_from_evaluation_needs_the_metric_at_some_k(data):
    X, y, groups = data
    result = evaluate(y, X[:, 0], groups=groups, metrics=["map", "ndcg@3", "ndcg@1"])
    display = MetricAtKDisplay.from_evaluation(result, metric="ndcg")
    np.testing.assert_array_equal(display.k, [1, 3])
    with pytest.raises(ValueError, match=r"holds no precision@k values"):
        MetricAtKDisplay.from_evaluation(result, metric="precision")


# --------------------------------------------------------------------------
# PerQueryDisplay
# --------------------------------------------------------------------------


def test_per_query_bars_are_the_sorted_differences(data):
    X, y, groups = data
    new = evaluate(y, X[:, 0], groups=groups, metrics=["ndcg@10"])
    old = evaluate(y, X[:, 1], groups=groups, metrics=["ndcg@10"])
    display = PerQueryDisplay.from_evaluations(
        new, old, metric="ndcg@10", name="new", baseline_name="old", top_n=2
    )
    diff = new.per_query["ndcg@10"] - old.per_query["ndcg@10"]
    heights = np.array([bar.get_height() for bar in display.bars_])
    np.testing.assert_allclose(heights, np.sort(diff)[::-1])
    assert display.wins == int((diff > 0).sum())
    assert display.losses == int((diff < 0).sum())
    assert display.wins + display.ties + display.losses == diff.size
    assert display.mean_difference == pytest.approx(diff.mean())
    (legend,) = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert legend.startswith(f"new: {display.wins} wins, {display.ties} ties")
    assert f"mean {diff.mean():+.4f}" in legend
    labelled = {text.get_text() for text in display.labels_}
    order = np.argsort(-diff, kind="stable")
    assert {str(new.group_ids[order[0]]), str(new.group_ids[order[-1]])} <= labelled
    assert display.ax_.get_ylabel() == "ndcg@10: new - old"


def test_per_query_from_predictions_and_skipped_queries():
    y = [1, 0, 0, 0, 1, 0]
    groups = ["a", "a", "b", "b", "c", "c"]
    display = PerQueryDisplay.from_predictions(
        y,
        [2, 1, 2, 1, 1, 2],
        [1, 2, 2, 1, 2, 1],
        groups=groups,
        metric="mrr",
        no_relevant="skip",
    )
    # Query "b" has no relevant row: skipped, not drawn.
    assert display.group_ids.tolist() == ["a", "c"]
    assert [float(bar.get_height()) for bar in display.bars_] == [0.5, -0.5]


def test_per_query_needs_the_same_queries(data):
    X, y, groups = data
    new = evaluate(y, X[:, 0], groups=groups, metrics=["map"])
    keep = groups != groups[0]
    old = evaluate(y[keep], X[keep, 1], groups=groups[keep], metrics=["map"])
    with pytest.raises(ValueError, match="evaluated on the same queries"):
        PerQueryDisplay.from_evaluations(new, old, metric="map")
    with pytest.raises(ValueError, match=r"`metric` 'ndcg' is not in the result"):
        PerQueryDisplay.from_evaluations(new, new, metric="ndcg")
    with pytest.raises(ValueError, match="`top_n` must be a non-negative integer"):
        PerQueryDisplay.from_evaluations(new, new, metric="map", top_n=-1)


# --------------------------------------------------------------------------
# PrecisionRecallDisplay
# --------------------------------------------------------------------------


def _slow_interpolated(y_true, y_score, groups, levels):
    """trec_eval 10.0's iprec_at_recall, one query at a time."""
    out = []
    for g in np.unique(groups):
        mask = groups == g
        order = np.argsort(-y_score[mask], kind="stable")
        rel = (y_true[mask][order] > 0).astype(float)
        R = rel.sum()
        if R == 0:
            out.append(np.zeros(len(levels)))
            continue
        hits = np.cumsum(rel)
        precision = hits / np.arange(1, rel.size + 1)
        row = []
        for r in levels:
            c = max(int(np.floor(r * R + 0.5)), 1)
            if c > hits[-1]:
                row.append(0.0)
                continue
            start = int(np.argmax(hits >= c))
            row.append(precision[start:].max())
        out.append(row)
    return np.mean(out, axis=0)


@pytest.mark.parametrize("seed", range(5))
def test_interpolated_curve_equals_a_slow_reference(seed):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(30), rng.integers(1, 40, 30))
    y = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.4)
    score = rng.random(groups.size)
    display = PrecisionRecallDisplay.from_predictions(y, score, groups=groups)
    levels = np.arange(11) / 10
    np.testing.assert_allclose(
        display.line_.get_ydata(), _slow_interpolated(y, score, groups, levels)
    )
    np.testing.assert_allclose(display.line_.get_xdata(), levels)


@pytest.mark.oracle
def test_interpolated_curve_equals_evaluate_run(tmp_path):
    # Qrels that judge exactly the retrieved documents: R agrees on both paths.
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(12), rng.integers(2, 60, 12))
    y = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.5)
    score = rng.permutation(groups.size).astype(float)
    docs = [f"d{i}" for i in range(groups.size)]
    (tmp_path / "qrels").write_text(
        "".join(f"q{g} 0 {d} {v}\n" for g, d, v in zip(groups, docs, y, strict=True))
    )
    (tmp_path / "run").write_text(
        "".join(
            f"q{g} Q0 {d} 0 {s} r\n"
            for g, d, s in zip(groups, docs, score, strict=True)
        )
    )
    arrays = PrecisionRecallDisplay.from_predictions(y, score, groups=groups)
    run = PrecisionRecallDisplay.from_run(tmp_path / "qrels", tmp_path / "run")
    np.testing.assert_allclose(run.precision, arrays.precision, atol=1e-12)
    assert run.line_.get_label() == "run"


def test_cutoff_curve_is_mean_precision_against_mean_recall(data):
    X, y, groups = data
    display = PrecisionRecallDisplay.from_predictions(
        y, X[:, 0], groups=groups, kind="cutoff", k=[1, 2, 5], ties="average"
    )
    result = evaluate(
        y,
        X[:, 0],
        groups=groups,
        metrics=[
            "precision@1",
            "precision@2",
            "precision@5",
            "recall@1",
            "recall@2",
            "recall@5",
        ],
    )
    np.testing.assert_allclose(
        display.line_.get_xdata(), [result[f"recall@{k}"] for k in [1, 2, 5]]
    )
    np.testing.assert_allclose(
        display.line_.get_ydata(), [result[f"precision@{k}"] for k in [1, 2, 5]]
    )


def test_interpolated_curve_refuses_averaged_ties(data):
    X, y, groups = data
    with pytest.raises(ValueError, match="ties='average' is not available"):
        PrecisionRecallDisplay.from_predictions(
            y, X[:, 0], groups=groups, ties="average"
        )
    with pytest.raises(ValueError, match="`kind` must be one of"):
        PrecisionRecallDisplay.from_predictions(y, X[:, 0], groups=groups, kind="roc")


# --------------------------------------------------------------------------
# matplotlib stays optional
# --------------------------------------------------------------------------


def test_without_matplotlib_the_error_names_the_extra():
    code = (
        "import sys; sys.modules['matplotlib'] = None; "
        "sys.modules['matplotlib.pyplot'] = None\n"
        "import skirm, skirm.plot\n"
        "from skirm.plot import MetricAtKDisplay\n"
        "try:\n"
        "    MetricAtKDisplay.from_predictions([1, 0], [1, 0], groups=[0, 0], k=[1])\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "pip install skirm[plot]" in out.stdout


# --------------------------------------------------------------------------
# ComparisonDisplay
# --------------------------------------------------------------------------


def test_comparison_display_draws_the_comparison(data):
    from skirm.plot import ComparisonDisplay
    from skirm.stats import compare

    X, y, groups = data
    results = {
        f"f{j}": evaluate(y, X[:, j], groups=groups, metrics=["ndcg@10", "map"])
        for j in range(4)
    }
    comparison = compare(results, baseline="f0", metrics=["ndcg@10", "map"])
    display = ComparisonDisplay.from_comparison(comparison, metric="map")
    rows = [r for r in comparison.to_records() if r["metric"] == "map"]
    assert display.systems == [r["system"] for r in rows]
    np.testing.assert_allclose(display.means, [r["mean"] for r in rows])
    # The error bars span each system's interval; the first system on top.
    segments = display.errorbar_.lines[2][0].get_segments()
    for segment, row, y_pos in zip(segments, rows, [3, 2, 1, 0], strict=True):
        (x0, y0), (x1, y1) = segment
        assert (x0, x1) == pytest.approx((row["ci_low"], row["ci_high"]))
        assert y0 == y1 == y_pos
    labels = [t.get_text() for t in display.ax_.get_yticklabels()]
    assert labels[0] == "f0 (baseline)"
    for row, label in zip(rows[1:], labels[1:], strict=True):
        assert label.endswith(" *") == row["significant"]
    (baseline_line,) = [
        line for line in display.ax_.get_lines() if line.get_linestyle() == "--"
    ]
    assert baseline_line.get_xdata()[0] == pytest.approx(rows[0]["mean"])
    assert display.ax_.get_xlabel() == "map, mean over queries"
    with pytest.raises(ValueError, match="`metric` 'mrr' is not among"):
        ComparisonDisplay.from_comparison(comparison, metric="mrr")


def test_comparison_display_without_baseline_lists_the_beaten(data):
    from skirm.plot import ComparisonDisplay

    X, y, groups = data
    perfect = y + 0.01 * np.arange(y.size) / y.size  # labels as scores: best
    results = {
        "oracle": evaluate(y, perfect, groups=groups, metrics=["ndcg@10"]),
        "f0": evaluate(y, X[:, 0], groups=groups, metrics=["ndcg@10"]),
    }
    display = ComparisonDisplay.from_evaluations(results, metric="ndcg@10")
    labels = [t.get_text() for t in display.ax_.get_yticklabels()]
    assert labels[0] == "oracle > f0"
    assert "holm" in display.caption or "None" in display.caption
