"""Prediction-powered means and comparisons: the inputs they read (arrays,
EvaluationResults, rows with gold labels), what they report, their errors,
the label budget and the choice of the next gold queries."""

import itertools
import re

import numpy as np
import pandas as pd
import pytest

import skirm
from skirm.metrics import EvaluationResult, evaluate
from skirm.stats import (
    PPIComparison,
    PPIResult,
    paired_test,
    ppi_compare,
    ppi_evaluate,
    ppi_mean,
    ppi_sample_size,
    select_gold_queries,
)


def _arrays(seed=0, m=300, n=40, bias=0.1):
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 3, m)
    judge = truth + bias + rng.normal(0, 0.08, m)
    gold = np.full(m, np.nan)
    sample = rng.choice(m, n, replace=False)
    gold[sample] = truth[sample]
    return truth, judge, gold


def _rows(seed=0, n_queries=60, size=10, n_gold=15):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_queries), size)
    truth = rng.choice(3, size=groups.size, p=[0.6, 0.3, 0.1]).astype(float)
    judge = np.clip(truth + (rng.random(groups.size) < 0.3), 0, 2)
    scores = truth + rng.normal(0, 1.0, groups.size)
    gold_queries = rng.choice(n_queries, n_gold, replace=False)
    gold = np.where(np.isin(groups, gold_queries), truth, np.nan)
    return groups, truth, judge, scores, gold


# --------------------------------------------------------------------------
# Inputs: arrays and results give the same numbers
# --------------------------------------------------------------------------


def test_results_and_arrays_agree():
    _truth, judge, gold = _arrays()
    ids = np.array([f"q{i:03d}" for i in range(judge.size)])
    keep = np.isfinite(gold)
    judge_result = EvaluationResult(ids, {"ndcg@10": judge}, {"ndcg@10": judge.mean()})
    gold_result = EvaluationResult(
        ids[keep], {"ndcg@10": gold[keep]}, {"ndcg@10": gold[keep].mean()}
    )
    a = ppi_mean(judge_result, gold_result)
    b = ppi_mean(judge, gold, metrics="ndcg@10")
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert a.metrics == ["ndcg@10"] and a.n_gold == {"ndcg@10": 40}


def test_the_gold_result_may_list_its_queries_in_any_order():
    _truth, judge, gold = _arrays(1)
    ids = np.arange(judge.size) * 3
    keep = np.flatnonzero(np.isfinite(gold))[::-1]
    judge_result = EvaluationResult(ids, {"m": judge}, {"m": judge.mean()})
    gold_result = EvaluationResult(ids[keep], {"m": gold[keep]}, {"m": 0.0})
    a = ppi_mean(judge_result, gold_result).mean["m"]
    assert a == ppi_mean(judge, gold).mean["metric"]


def test_inputs_are_not_modified():
    _truth, judge, gold = _arrays(2)
    saved = judge.copy(), gold.copy()
    ppi_mean(judge, gold, strata=np.arange(judge.size) % 2)
    np.testing.assert_array_equal(judge, saved[0])
    np.testing.assert_array_equal(gold, saved[1])


def test_several_metrics_of_two_results():
    groups, _truth, judge, scores, gold = _rows()
    metrics = ["ndcg@5", "precision@5", "map"]
    result = ppi_evaluate(judge, scores, gold=gold, groups=groups, metrics=metrics)
    assert result.metrics == metrics
    again = ppi_mean(result.judge_result, result.gold_result, metrics=["map"])
    assert again.mean["map"] == result.mean["map"]


def test_draws_of_the_judge_give_the_expected_metric():
    # a judge giving samples: each query's judge value is the metric's mean
    # over the samples, as evaluate(..., label_samples=...) computes them
    groups, truth, _, scores, gold = _rows(3)
    rng = np.random.default_rng(3)
    draws = np.clip(truth[:, None] + (rng.random((truth.size, 5)) < 0.3), 0, 2)
    result = ppi_evaluate(draws, scores, gold=gold, groups=groups, metrics="ndcg@5")
    per_draw = np.column_stack(
        [
            evaluate(d, scores, groups=groups, metrics=["ndcg@5"]).per_query["ndcg@5"]
            for d in draws.T
        ]
    )
    expected = ppi_mean(per_draw, _gold_of(result), metrics="ndcg@5")
    assert result.n_draws == 5 and expected.n_draws == 5
    assert result.mean == pytest.approx(expected.mean, abs=1e-12)
    # and a result evaluated with label_samples reads the same draws
    judged = evaluate(draws[:, 0], scores, groups=groups, metrics=["ndcg@5"],
                      label_samples=draws)  # fmt: skip
    again = ppi_mean(judged, result.gold_result)
    assert again.mean == pytest.approx(result.mean, abs=1e-12)


def _gold_of(result):
    return result.gold_result.per_query[result.metrics[0]]


# --------------------------------------------------------------------------
# Document-level gold
# --------------------------------------------------------------------------


def test_the_top_k_judged_determines_a_cutoff_metric():
    # humans checked the top 5 of some queries: precision@5 and dcg@5 are
    # exact there; ndcg@5 reads every label (its ideal ordering) and is not
    groups, truth, judge, scores, _ = _rows(4)
    top = np.zeros(groups.size, dtype=bool)
    for q in range(0, 60, 4):
        rows = np.flatnonzero(groups == q)
        top[rows[np.argsort(-scores[rows])[:5]]] = True
    gold = np.where(top, truth, np.nan)
    result = ppi_evaluate(judge, scores, gold=gold, groups=groups,
                          metrics=["precision@5", "dcg@5"])  # fmt: skip
    true = evaluate(truth, scores, groups=groups, metrics=["precision@5", "dcg@5"])
    for metric in result.metrics:
        got = result.gold_result.per_query[metric]
        known = np.isfinite(got)
        assert np.count_nonzero(known) == 15
        np.testing.assert_allclose(got[known], true.per_query[metric][known])
    assert result.n_sampled == {"precision@5": 0, "dcg@5": 0}
    with pytest.raises(skirm.InvalidInputError, match=r"do not determine 'ndcg@5'"):
        ppi_evaluate(judge, scores, gold=gold, groups=groups, metrics="ndcg@5")


@pytest.mark.parametrize("metric", ["dcg@4", "precision@3", "dcg@6"])
def test_the_document_level_estimate_is_unbiased_over_every_sample(metric):
    # One query of 6 documents, 3 judged at random: over all 20 samples the
    # estimate's mean is the query's value under the human labels, exactly
    # (Horvitz-Thompson under simple random sampling).
    rng = np.random.default_rng(5)
    truth = np.array([2.0, 0, 1, 2, 0, 1])
    judge = np.array([1.0, 1, 1, 2, 2, 0])
    scores = rng.random(6)
    # other queries: fully judged, so that the estimate has gold company
    others = np.repeat([1, 2, 3], 6)
    o_truth = rng.integers(0, 3, 18).astype(float)
    o_judge = np.clip(o_truth + 1, 0, 2)
    groups = np.concatenate([np.zeros(6, int), others, [4] * 6])
    y = np.concatenate([judge, o_judge, judge])
    s = np.concatenate([scores, rng.random(18), scores])
    target = evaluate(truth, scores, groups=np.zeros(6), metrics=[metric])
    estimates = []
    for subset in itertools.combinations(range(6), 3):
        gold = np.full(y.size, np.nan)
        gold[list(subset)] = truth[list(subset)]
        gold[6:24] = o_truth
        result = ppi_evaluate(
            y, s, gold=gold, groups=groups, metrics=metric, document_sampling="random"
        )
        estimates.append(result.gold_result.per_query[metric][0])
        assert result.n_sampled[metric] == 1
    assert np.mean(estimates) == pytest.approx(target[metric], abs=1e-12)
    assert np.std(estimates) > 0  # an estimate, not the value itself


def test_gold_mask_marks_the_judged_rows():
    groups, truth, judge, scores, gold = _rows(6)
    mask = np.isfinite(gold)
    a = ppi_evaluate(judge, scores, gold=gold, groups=groups)
    b = ppi_evaluate(judge, scores, gold=truth, gold_mask=mask, groups=groups)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())


# --------------------------------------------------------------------------
# What a result says
# --------------------------------------------------------------------------


def test_repr_str_and_frame():
    _truth, judge, gold = _arrays(7)
    result = ppi_mean(judge, gold, metrics="ndcg@10")
    assert repr(result).startswith("PPIResult(method='ppi++', n_queries=300, n_gold=40")
    text = str(result)
    assert "PPI++ means over 300 queries judged, 95% t intervals" in text
    assert "(the judge's own mean)" in text
    frame = result.to_frame()
    assert list(frame["estimator"]) == ["ppi++", "ppi", "gold", "judge"]
    assert frame.columns.tolist() == [
        "metric", "estimator", "mean", "std_error", "ci_low", "ci_high",
        "half_width", "lam", "n_gold", "n_queries",
    ]  # fmt: skip
    polars = result.to_frame(backend="polars")
    assert polars.shape == frame.shape


def test_ppi_puts_its_own_estimate_first():
    _truth, judge, gold = _arrays(8)
    a = ppi_mean(judge, gold, method="ppi")
    b = ppi_mean(judge, gold)
    rows = {r["estimator"]: r for r in b.to_records()}
    assert a.mean["metric"] == rows["ppi"]["mean"] and a.lam["metric"] == 1.0
    assert str(a).splitlines()[2].lstrip().startswith("PPI ")


def test_a_constant_judge_weighs_nothing():
    # ppi_py divides by the judge's variance (NaN); skirm's weight is 0 and
    # PPI++ is the gold queries' own estimate
    truth, _, gold = _arrays(9)
    result = ppi_mean(np.full(truth.size, 0.5), gold)
    rows = {r["estimator"]: r for r in result.to_records()}
    assert result.lam["metric"] == 0.0
    assert rows["ppi++"]["mean"] == pytest.approx(rows["gold"]["mean"], abs=1e-15)


def test_the_t_interval_is_wider_than_the_z_interval_by_its_small_sample_terms():
    _truth, judge, gold = _arrays(10)
    t = ppi_mean(judge, gold).to_records()
    z = ppi_mean(judge, gold, interval="z").to_records()
    for a, b in zip(t, z, strict=True):
        assert a["mean"] == b["mean"] and a["half_width"] > b["half_width"]
    # the gold queries alone: Student's t interval of their mean
    gold_values = gold[np.isfinite(gold)]
    d = paired_test(gold_values, np.zeros(gold_values.size))
    assert (t[2]["ci_low"], t[2]["ci_high"]) == pytest.approx(d.confidence_interval)


def test_half_widths_follow_the_planning_formula():
    _truth, judge, gold = _arrays(11)
    result = ppi_mean(judge, gold)
    widths = result.half_widths([10, 40, 100])
    assert (widths["ppi++"] < widths["gold"]).all()
    # the simulated studies, with the t interval's small-sample terms (the
    # jackknife of the tuned weight), need more than the formula's 40
    budget = ppi_sample_size(result, half_width=float(widths["ppi++"][1]))
    assert budget.n_gold > 40
    assert budget.planned_half_width <= widths["ppi++"][1]
    with pytest.raises(skirm.InvalidParameterError, match=r"^`n_gold` must hold"):
        result.half_widths([1, 10])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`metric` must be one"):
        result.half_widths([10], metric="map")


# --------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------


def _systems(seed=12, m=300, n=50):
    rng = np.random.default_rng(seed)
    truth = {s: rng.beta(a, 3, m) for s, a in [("a", 2.0), ("b", 2.3), ("c", 2.6)]}
    judge = {s: v + 0.05 * i + rng.normal(0, 0.08, m)
             for i, (s, v) in enumerate(truth.items())}  # fmt: skip
    sample = rng.choice(m, n, replace=False)
    gold = {}
    for s, v in truth.items():
        gold[s] = np.full(m, np.nan)
        gold[s][sample] = v[sample]
    return truth, judge, gold


def test_a_pair_is_the_estimate_of_its_per_query_differences():
    truth, judge, gold = _systems()
    comparison = ppi_compare(judge, gold, baseline="a")
    assert comparison.pairs == [("b", "a"), ("c", "a")]
    for (system, other), row in zip(
        comparison.pairs, comparison.to_records("pairs"), strict=True
    ):
        direct = ppi_mean(judge[system] - judge[other], gold[system] - gold[other])
        assert row["delta"] == direct.mean["metric"]
        assert (row["ci_low"], row["ci_high"]) == direct.confidence_interval["metric"]
    for system in truth:
        alone = ppi_mean(judge[system], gold[system]).mean
        assert comparison.means[system] == pytest.approx(alone, rel=1e-15)


def test_the_correction_is_compare_s():
    _truth, judge, gold = _systems(13)
    rows = ppi_compare(judge, gold, correction=None).to_records("pairs")
    holm = ppi_compare(judge, gold).to_records("pairs")
    raw = np.array([r["p_value"] for r in rows])
    expected = skirm.stats.adjust_pvalues(raw, "holm")
    np.testing.assert_array_equal([r["p_adjusted"] for r in holm], expected)


def test_the_judge_s_order_and_the_corrected_one():
    truth, judge, gold = _systems(14)
    judge = {s: v + {"a": 0.3, "b": 0.1, "c": 0.0}[s] for s, v in judge.items()}
    comparison = ppi_compare(judge, gold)
    assert comparison.kendall_tau["metric"] == -1.0
    order = sorted(truth, key=lambda s: comparison.means[s]["metric"])
    assert order == ["a", "b", "c"]
    assert "Kendall's tau with the judge's own order -1.000" in str(comparison)
    assert repr(comparison).startswith("PPIComparison(systems=['a', 'b', 'c']")
    assert isinstance(comparison, PPIComparison)


def test_ppi_results_of_rows_compare_directly():
    groups, truth, judge, _scores, gold = _rows(15)
    rng = np.random.default_rng(15)
    results = {
        name: ppi_evaluate(judge, truth + rng.normal(0, noise, truth.size),
                           gold=gold, groups=groups, metrics="ndcg@5")
        for name, noise in [("good", 0.5), ("bad", 3.0)]
    }  # fmt: skip
    assert all(isinstance(r, PPIResult) for r in results.values())
    comparison = ppi_compare(results)
    assert comparison.means["good"] == pytest.approx(results["good"].mean, rel=1e-15)
    frame = comparison.to_frame()
    assert frame.shape[0] == 2 and "gold_mean" in frame


# --------------------------------------------------------------------------
# Errors, each naming the argument
# --------------------------------------------------------------------------


def test_gold_labels_with_no_overlap():
    truth, judge, _gold = _arrays()
    ids = np.arange(judge.size)
    judge_result = EvaluationResult(ids, {"m": judge}, {"m": 0.0})
    gold_result = EvaluationResult(ids + 1000, {"m": truth}, {"m": 0.0})
    match = r"`gold` shares no query with `judge` \(no overlap\)"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_mean(judge_result, gold_result)
    with pytest.raises(skirm.InvalidInputError, match=r"`gold` holds no gold value"):
        ppi_mean(judge, np.full(judge.size, np.nan))
    groups, truth, judge, scores, _ = _rows()
    with pytest.raises(skirm.InvalidInputError, match=r"^`gold` holds no label"):
        ppi_evaluate(judge, scores, gold=np.full(truth.size, np.nan), groups=groups)


def test_a_gold_subset_with_one_query():
    truth, judge, gold = _arrays()
    one = np.full(judge.size, np.nan)
    one[3] = truth[3]
    with pytest.raises(
        skirm.InvalidInputError, match=r"`gold` must hold gold values of 'metric' for "
        r"at least 2 queries \(an interval needs two\), got 1"
    ):  # fmt: skip
        ppi_mean(judge, one)
    groups, truth, judge, scores, _ = _rows()
    gold = np.where(groups == 7, truth, np.nan)
    with pytest.raises(
        skirm.InvalidInputError, match=r"`gold` must hold gold .* got 1"
    ):
        ppi_evaluate(judge, scores, gold=gold, groups=groups)


def test_labels_on_different_scales():
    groups, _truth, judge, scores, gold = _rows()
    with pytest.raises(
        skirm.InvalidInputError,
        match=r"^the labels are on different scales: `gold` goes up to 8 and "
        r"`y_true` \(the judge's\) up to 2",
    ):
        ppi_evaluate(judge, scores, gold=gold * 4, groups=groups)
    with pytest.raises(skirm.InvalidInputError, match=r"different scales: `gold`"):
        ppi_evaluate(judge / 2, scores, gold=gold, groups=groups)  # probabilities


@pytest.mark.parametrize(
    ("judge", "gold", "message"),
    [
        ([0.1, np.nan, 0.3], [0.1, 0.2, np.nan], r"`judge` must hold a finite value"),
        ([[[0.1, 0.2]]], [0.1], r"`judge` must hold per-query values of shape"),
        ([0.1, 0.2, 0.3], [[0.1, 0.2, 0.3]], r"`gold` must hold per-query values"),
        ([0.1, 0.2, 0.3], [0.1, 0.2, 0.3], r"every query has a gold value"),
        ([0.1, 0.2, np.inf], [0.1, 0.2, np.nan], r"`judge` must hold finite values"),
    ],
)
def test_arrays_that_cannot_be_estimated(judge, gold, message):
    with pytest.raises(skirm.InvalidInputError, match=message):
        ppi_mean(judge, gold)


def test_inputs_of_two_kinds_or_two_query_sets():
    truth, judge, gold = _arrays()
    ids = np.arange(judge.size)
    result = EvaluationResult(ids, {"m": judge}, {"m": 0.0})
    match = r"^`judge` and `gold` must both"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_mean(result, gold)
    with pytest.raises(skirm.InvalidParameterError, match=r"^`judge` must be an Eval"):
        ppi_mean({"a": 1}, gold)
    weighted = EvaluationResult(ids, {"m": judge}, {"m": 0.0}, np.ones(ids.size))
    with pytest.raises(
        skirm.InvalidInputError, match=r"^`judge` carries query weights"
    ):
        ppi_mean(weighted, result)
    lost = EvaluationResult(np.array([1, 2, 5000]), {"m": truth[:3]}, {"m": 0.0})
    match = r"`gold` has 1 queries that `judge` lacks \(first: 5000\)"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_mean(result, lost)
    with pytest.raises(skirm.InvalidParameterError, match=r"^`metrics` names 'map'"):
        ppi_mean(result, result, metrics="map")


def test_strata_errors():
    _truth, judge, gold = _arrays()
    match = r"^`strata` must hold one stratum"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_mean(judge, gold, strata=[1, 2])
    strata = np.where(np.isfinite(gold), 0, 1)  # stratum 1 has no gold query
    match = r"^`strata`: stratum 1 has 0 gold"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_mean(judge, gold, strata=strata)
    with pytest.raises(
        skirm.InvalidInputError, match=r"give a stratum for every query"
    ):
        ppi_mean(judge, gold, strata={0: "a"})


def test_comparison_errors():
    _truth, judge, gold = _systems()
    match = r"^`judge` must hold at least 2"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_compare({"a": judge["a"]}, {"a": gold["a"]})
    match = r"^`gold` must map the systems"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_compare(judge, {"a": gold["a"]})
    match = r"^`gold` must map the systems to"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_compare(judge)
    other = dict(gold)
    other["b"] = gold["b"].copy()
    other["b"][np.flatnonzero(np.isfinite(other["b"]))[0]] = np.nan
    match = r"in some systems and not in others"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_compare(judge, other)
    with pytest.raises(
        skirm.InvalidParameterError, match=r"^`baseline` must be one of"
    ):
        ppi_compare(judge, gold, baseline="z")


def test_rows_errors():
    groups, truth, judge, scores, gold = _rows()
    match = r"^`no_relevant` must be a number"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_evaluate(judge, scores, gold=gold, groups=groups, no_relevant="skip")
    match = r"^`gold` must hold one label per row"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_evaluate(judge, scores, gold=gold[:5], groups=groups)
    with pytest.raises(
        skirm.InvalidInputError, match=r"^`gold_mask` must be a boolean"
    ):
        ppi_evaluate(judge, scores, gold=truth, gold_mask=np.ones(3), groups=groups)
    match = r"^`y_true` must hold the judge's label"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_evaluate(
            np.where(groups == 0, np.nan, judge), scores, gold=gold, groups=groups
        )


# --------------------------------------------------------------------------
# The budget and the next queries
# --------------------------------------------------------------------------


def test_the_budget_follows_the_closed_form():
    # n = std^2 (1 - rho^2) / (h^2 / z^2 - std^2 rho^2 / M): the expected
    # half-width of the z interval, which the simulated studies reach
    budget = ppi_sample_size(
        half_width=0.02, correlation=0.8, std=0.25, n_queries=2000, interval="z"
    )
    z = 1.959963984540054
    exact = 0.25**2 * (1 - 0.64) / (0.02**2 / z**2 - 0.25**2 * 0.64 / 2000)
    assert budget.n_gold == pytest.approx(exact, rel=0.03)
    alone = (z * 0.25 / 0.02) ** 2
    assert budget.n_gold_without_judge == pytest.approx(alone, rel=0.03)
    assert budget.saving == budget.n_gold_without_judge - budget.n_gold
    assert budget.planned_half_width <= 0.02
    assert (budget.n_simulations, budget.random_state) == (1000, 0)
    # the seed is the studies': the same budget again
    again = ppi_sample_size(
        half_width=0.02, correlation=0.8, std=0.25, n_queries=2000, interval="z"
    )
    assert again == budget


def test_the_budget_of_a_difference():
    budget = ppi_sample_size(
        difference=0.05, power=0.8, correlation=0.0, std=0.2, n_queries=5000,
        interval="z",
    )  # fmt: skip
    # no judge help: the classical (z_a + z_b)^2 sd^2 / d^2
    expected = (1.959963984540054 + 0.8416212335729143) ** 2 * 0.2**2 / 0.05**2
    assert budget.n_gold == pytest.approx(expected, rel=0.05)
    assert budget.n_gold_without_judge == pytest.approx(expected, rel=0.05)
    assert "a difference of 0.05 at power 0.8" in str(budget)


def test_budget_errors():
    with pytest.raises(skirm.InvalidParameterError, match=r"^give one target"):
        ppi_sample_size(correlation=0.5, std=0.1, n_queries=100)
    match = r"^`n_queries` must be given"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_sample_size(correlation=0.5, std=0.1, half_width=0.1)
    with pytest.raises(skirm.InvalidParameterError, match=r"^give one pilot"):
        ppi_sample_size(half_width=0.1)
    with pytest.raises(skirm.InvalidParameterError, match=r"are given together"):
        ppi_sample_size(half_width=0.1, correlation=0.5, n_queries=100)
    with pytest.raises(skirm.InvalidParameterError, match=r"^`assurance` applies to"):
        ppi_sample_size(
            difference=0.1, correlation=0.5, std=0.1, assurance=0.9, n_queries=100
        )
    with pytest.raises(skirm.InvalidInputError, match=r"more gold queries than the 50"):
        ppi_sample_size(half_width=0.001, correlation=0.5, std=0.3, n_queries=50)
    match = r"^`gold` and `judge` must be paired"
    with pytest.raises(skirm.InvalidInputError, match=match):
        ppi_sample_size(gold=[0.1, 0.2], judge=[0.1], half_width=0.1, n_queries=9)
    match = r"^`pilot` must be a PPIResult"
    with pytest.raises(skirm.InvalidParameterError, match=match):
        ppi_sample_size("pilot", half_width=0.1)


def test_select_gold_queries_proportional_and_neyman():
    ids = np.array([f"q{i}" for i in range(200)])
    strata = np.where(np.arange(200) < 150, "head", "tail")
    picked = select_gold_queries(ids, 20, strata=strata, random_state=0)
    assert picked.size == 20 and set(picked) <= set(ids)
    assert np.count_nonzero(np.isin(ids[150:], picked)) == 5
    again = select_gold_queries(ids, 20, strata=strata, random_state=0)
    np.testing.assert_array_equal(picked, again)
    # Neyman: the tail three times as spread gets 3 * 50 / (150 + 150) of them
    std = {"head": 0.1, "tail": 0.3}
    picked = select_gold_queries(
        ids, 20, strata=strata, allocation="neyman", std=std, random_state=0
    )
    assert np.count_nonzero(np.isin(ids[150:], picked)) == 10
    # the queries already gold are not drawn again
    more = select_gold_queries(ids, 30, exclude=picked, random_state=1)
    assert not np.isin(more, picked).any()


def test_select_gold_queries_errors():
    ids = np.arange(10)
    with pytest.raises(skirm.InvalidInputError, match=r"^`n` must be at most the 10"):
        select_gold_queries(ids, 11)
    with pytest.raises(skirm.InvalidParameterError, match=r"needs `std`"):
        select_gold_queries(ids, 3, strata=ids % 2, allocation="neyman")
    match = r"^`query_ids` must be 1-D and distinct"
    with pytest.raises(skirm.InvalidInputError, match=match):
        select_gold_queries([1, 1, 2], 1)
    match = re.escape("`strata` must hold one stratum per query (10)")
    with pytest.raises(skirm.InvalidInputError, match=match):
        select_gold_queries(ids, 3, strata=[0, 1])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_the_jackknife_of_the_tuned_weight_against_a_loop(seed):
    # the t interval's variance: each gold query left out in turn, the
    # weight tuned anew (ppi_py's formula), the estimate made again
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(seed)
    n, big_n = int(rng.integers(3, 40)), int(rng.integers(2, 300))
    gold = rng.beta(2, 3, n)
    judge_gold = gold + rng.normal(0.1, 0.1, n)
    judge_rest = rng.beta(2, 3, big_n) + rng.normal(0.1, 0.1, big_n)
    estimates = [
        ppi_py.ppi_mean_pointestimate(
            np.delete(gold, i), np.delete(judge_gold, i), judge_rest
        )[0]
        for i in range(n)
    ]
    jackknife = (n - 1) / n * np.sum((np.array(estimates) - np.mean(estimates)) ** 2)
    result = ppi_mean(
        np.concatenate([judge_gold, judge_rest]),
        np.concatenate([gold, np.full(big_n, np.nan)]),
    )
    tuned = result.lam["metric"]
    rest = tuned**2 * judge_rest.var(ddof=1) / big_n
    assert result.std_error["metric"] ** 2 == pytest.approx(jackknife + rest, rel=1e-9)


def test_results_whose_ids_are_not_sorted():
    # results built by hand may list their queries in any order
    _truth, judge, gold = _arrays(16)
    ids = np.arange(judge.size)[::-1].copy()
    keep = np.isfinite(gold)
    judge_result = EvaluationResult(ids, {"m": judge}, {"m": 0.0})
    gold_result = EvaluationResult(ids[keep], {"m": gold[keep]}, {"m": 0.0})
    assert ppi_mean(judge_result, gold_result).mean["m"] == pytest.approx(
        ppi_mean(judge, gold).mean["metric"], rel=1e-15
    )


def test_a_stratum_judged_whole_by_humans():
    # every query of stratum "b" is gold: its mean is the gold mean, no
    # weight tuned (this divided by zero before)
    truth, judge, _ = _arrays(17, m=200)
    gold = np.full(200, np.nan)
    gold[:20], gold[150:] = truth[:20], truth[150:]
    strata = np.where(np.arange(200) < 150, "a", "b")
    result = ppi_mean(judge, gold, strata=strata)
    assert result.lam["metric"][1] == 0.0
    alone = ppi_mean(judge[:150], gold[:150])
    expected = 0.75 * alone.mean["metric"] + 0.25 * truth[150:].mean()
    assert result.mean["metric"] == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------
# ppi_evaluate against a query-by-query reference, one dimension at a time
# --------------------------------------------------------------------------

DIMENSIONS = {
    "base": {},
    "string ids": {"ids": "str"},
    "rows shuffled": {"shuffle": True},
    "tied scores": {"decimals": 0},
    "one-document queries": {"sizes": (1, 3)},
    "long queries": {"sizes": (50, 120)},
    "three draws": {"draws": 3},
    "top 3 judged": {"top": 3},
}


def _case_rows(seed, ids="int", shuffle=False, decimals=None, sizes=(5, 15),
               draws=1, top=None):  # fmt: skip
    rng = np.random.default_rng(seed)
    n_queries = 60
    size = rng.integers(sizes[0], sizes[1] + 1, n_queries)
    groups = np.repeat(np.arange(n_queries), size)
    truth = rng.choice(3, size=groups.size, p=[0.6, 0.3, 0.1]).astype(float)
    judge = np.clip(truth[:, None] + (rng.random((groups.size, draws)) < 0.3), 0, 2)
    scores = truth + rng.normal(0, 1.0, groups.size)
    if decimals is not None:
        scores = np.round(scores, decimals)
    gold_queries = rng.choice(n_queries, 12, replace=False)
    judged = np.isin(groups, gold_queries)
    if top is not None:  # the top `top` rows of each gold query, by score
        judged = np.zeros(groups.size, dtype=bool)
        for q in gold_queries:
            rows = np.flatnonzero(groups == q)
            judged[rows[np.argsort(-scores[rows], kind="stable")[:top]]] = True
    if ids == "str":
        groups = np.array([f"q{g:03d}" for g in groups])
    if shuffle:
        order = rng.permutation(groups.size)
        groups, truth, judge, scores, judged = (
            a[order] for a in (groups, truth, judge, scores, judged)
        )
    gold = np.where(judged, truth, np.nan)
    return groups, truth, judge if draws > 1 else judge[:, 0], scores, gold


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", list(DIMENSIONS))
def test_ppi_evaluate_against_a_query_by_query_reference(name, seed):
    metric = "precision@3" if DIMENSIONS[name].get("top") else "ndcg@5"
    groups, _truth, judge, scores, gold = _case_rows(seed, **DIMENSIONS[name])
    result = ppi_evaluate(judge, scores, gold=gold, groups=groups, metrics=metric)
    ids = np.unique(groups)
    draws = judge.reshape(judge.shape[0], -1)
    judge_values, gold_values = [], []
    for q in ids:  # the slow reference: one query at a time
        rows = groups == q
        one = np.zeros(np.count_nonzero(rows))
        per_draw = [
            evaluate(d[rows], scores[rows], groups=one, metrics=[metric])[metric]
            for d in draws.T
        ]
        judge_values.append(np.mean(per_draw))
        known = np.isfinite(gold[rows])
        if not known.any():
            gold_values.append(np.nan)
            continue
        # what the humans' labels say, the unjudged rows at 0 and at 2
        at = [np.where(known, gold[rows], fill) for fill in (0.0, 2.0)]
        low, high = (
            evaluate(a, scores[rows], groups=one, metrics=[metric])[metric] for a in at
        )
        assert low == high  # every gold query's judged rows determine it
        gold_values.append(low)
    expected = ppi_mean(np.array(judge_values), np.array(gold_values), metrics=metric)
    np.testing.assert_allclose(
        result.judge_result.per_query[metric]
        if draws.shape[1] == 1
        else result.judge_result.judge_per_query[metric].mean(axis=1),
        judge_values,
        rtol=1e-12,
    )
    for got, want in zip(result.to_records(), expected.to_records(), strict=True):
        for key in ("mean", "ci_low", "ci_high"):
            assert got[key] == pytest.approx(want[key], rel=1e-12), (key, got, want)
