"""compare(), Comparison reports, EvaluationResult.ci/describe/compare, CV helper."""

import re

import numpy as np
import pytest
from scipy import stats

from skirm.metrics import EvaluationResult, evaluate
from skirm.stats import (
    adjust_pvalues,
    compare,
    confidence_intervals,
    cross_val_evaluate,
    describe,
    paired_test,
    tukey_hsd,
)

METRICS = ["ndcg@5", "map", "mrr"]


def _results(n_groups=40, noises=(3.0, 1.5, 0.8, 0.5), seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 8)
    y = rng.choice(3, size=groups.size, p=[0.75, 0.2, 0.05])
    return {
        f"s{i}": evaluate(
            y,
            y + rng.normal(0, noise, y.size),
            groups=groups,
            metrics=METRICS,
            **kwargs,
        )
        for i, noise in enumerate(noises)
    }


def _result(ids, values, weights=None):
    return EvaluationResult(
        np.asarray(ids),
        {"m": np.asarray(values, float)},
        {"m": float(np.mean(values))},
        weights,
    )


SYSTEM_COLUMNS = [
    "system",
    "metric",
    "mean",
    "ci_low",
    "ci_high",
    "delta",
    "delta_ci_low",
    "delta_ci_high",
    "effect_size",
    "statistic",
    "p_value",
    "p_adjusted",
    "significant",
    "wins",
    "ties",
    "losses",
    "better_than",
]


def test_frame_with_baseline_matches_paired_tests_and_holm():
    results = _results()
    cmp = compare(results, baseline="s2")
    assert cmp.systems == ["s2", "s0", "s1", "s3"] and cmp.baseline == "s2"
    assert cmp.correction == "holm" and cmp.metrics == METRICS
    frame = cmp.to_frame()
    assert list(frame.columns) == SYSTEM_COLUMNS
    assert len(frame) == 4 * 3
    for metric in METRICS:
        base = results["s2"].per_query[metric]
        pvalues = []
        for system in ["s0", "s1", "s3"]:
            ref = paired_test(results[system].per_query[metric], base)
            row = frame[(frame.system == system) & (frame.metric == metric)].iloc[0]
            assert row.p_value == pytest.approx(ref.pvalue, abs=1e-12)
            assert row.delta == pytest.approx(ref.mean_difference, abs=1e-15)
            assert (row.wins, row.ties, row.losses) == (ref.wins, ref.ties, ref.losses)
            assert row.delta_ci_low == pytest.approx(ref.confidence_interval[0])
            assert row["mean"] == pytest.approx(results[system].means[metric])
            low, high = stats.t.interval(
                0.95,
                39,
                loc=results[system].means[metric],
                scale=stats.sem(results[system].per_query[metric]),
            )
            assert (row.ci_low, row.ci_high) == pytest.approx((low, high))
            pvalues.append(ref.pvalue)
        rows = frame[(frame.metric == metric) & (frame.system != "s2")]
        np.testing.assert_allclose(
            rows.p_adjusted, adjust_pvalues(pvalues, "holm"), atol=1e-12
        )
        assert (rows.significant == (rows.p_adjusted <= 0.05)).all()
    baseline_rows = frame[frame.system == "s2"]
    assert (baseline_rows.delta == 0).all() and baseline_rows.p_value.isna().all()
    assert (baseline_rows.ties == 40).all()


def test_all_pairs_frame_and_per_query():
    results = _results(noises=(3.0, 1.0, 0.9))
    cmp = compare(results, correction="bonferroni", alpha=0.01)
    assert cmp.baseline is None
    assert cmp.pairs == [("s0", "s1"), ("s0", "s2"), ("s1", "s2")]
    pairs = cmp.to_frame("pairs")
    assert len(pairs) == 3 * 3 and list(pairs.columns[:3]) == [
        "system",
        "other",
        "metric",
    ]
    first = pairs.iloc[0]
    a, b = results["s0"].per_query["ndcg@5"], results["s1"].per_query["ndcg@5"]
    assert first.p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=1e-12)
    assert first.p_adjusted == pytest.approx(min(1, 3 * first.p_value))
    np.testing.assert_array_equal(
        cmp.per_query["s1"]["map"], results["s1"].per_query["map"]
    )
    systems = cmp.to_frame()
    assert systems.delta.isna().all() and systems.wins.isna().all()
    best = systems[systems.metric == "ndcg@5"].set_index("system").better_than
    assert "s0" in best["s1"] and best["s0"] == ()


def test_queries_aligned_by_id_not_position():
    a = _result(["q1", "q2", "q3", "q4"], [0.1, 0.5, 0.2, 0.9])
    b = _result(["q4", "q3", "q2", "q1"], [0.8, 0.1, 0.4, 0.0])  # other order
    cmp = compare({"a": a, "b": b}, baseline="b", test="randomization")
    assert cmp.group_ids.tolist() == ["q1", "q2", "q3", "q4"]
    np.testing.assert_allclose(cmp.per_query["b"]["m"], [0.0, 0.4, 0.1, 0.8])
    assert cmp.to_frame().delta.iloc[1] == pytest.approx(0.1)


def test_missing_policies():
    a = _result(["q1", "q2", "q3", "q4"], [0.1, 0.5, 0.2, 0.9])
    b = _result(["q1", "q2", "q4", "q5"], [0.2, 0.4, 0.9, 0.3])
    with pytest.raises(ValueError, match=r"2 of 5 queries lack a value.*missing="):
        compare({"a": a, "b": b})
    inter = compare({"a": a, "b": b}, missing="intersect")
    assert inter.group_ids.tolist() == ["q1", "q2", "q4"]
    zero = compare({"a": a, "b": b}, missing="zero")
    assert zero.n_queries == 5
    np.testing.assert_allclose(zero.per_query["b"]["m"], [0.2, 0.4, 0.0, 0.9, 0.3])


def test_nan_values_are_missing():
    a = _result(["q1", "q2", "q3"], [0.1, np.nan, 0.2])
    b = _result(["q1", "q2", "q3"], [0.2, 0.4, 0.9])
    with pytest.raises(ValueError, match="query 'q2' in 'a'"):
        compare({"a": a, "b": b})
    assert compare({"a": a, "b": b}, missing="intersect").n_queries == 2


def test_weights_carry_through():
    w = np.array([1.0, 2.0, 3.0, 1.0, 5.0])
    a = _result(list("vwxyz"), [0.1, 0.5, 0.2, 0.9, 0.4], w)
    b = _result(list("vwxyz"), [0.2, 0.3, 0.1, 0.5, 0.35], w)
    cmp = compare({"a": a, "b": b}, baseline="b", test="randomization")
    ref = paired_test(
        a.per_query["m"], b.per_query["m"], test="randomization", sample_weight=w
    )
    row = cmp.to_frame().iloc[1]
    assert row.p_value == pytest.approx(ref.pvalue) and row.delta == pytest.approx(
        ref.mean_difference
    )
    assert cmp.means["a"]["m"] == pytest.approx(np.average(a.per_query["m"], weights=w))
    c = _result(list("vwxyz"), [0.2, 0.3, 0.1, 0.5, 0.35], w * 2)
    with pytest.raises(ValueError, match="query weights differ"):
        compare({"a": a, "c": c})
    d = _result(list("vwxyz"), [0.2, 0.3, 0.1, 0.5, 0.35])
    with pytest.raises(ValueError, match="some results carry query weights"):
        compare({"a": a, "d": d})


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "randomized_tukey_hsd"])
def test_resampling_is_seeded(test):
    results = _results(n_groups=30)
    one = compare(results, test=test, random_state=1, n_resamples=500).to_frame("pairs")
    two = compare(results, test=test, random_state=1, n_resamples=500).to_frame("pairs")
    assert one.equals(two)
    cmp = compare(results, test=test, n_resamples=500)
    assert isinstance(cmp.random_state, int)
    assert f"seed {cmp.random_state}" in cmp.to_latex()


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_one_draw_matrix_for_every_pair_and_metric(test):
    """Each pair's p-value equals paired_test's with the same seed.

    Four systems: the draws are applied to the 12 system rows and combined
    into the 18 differences, where paired_test applies them to the one
    difference; the p-values agree exactly.
    """
    results = _results(n_groups=30, noises=(2.0, 1.5, 1.2, 1.1))
    cmp = compare(results, test=test, random_state=4, n_resamples=2000, correction=None)
    pairs = cmp.to_frame("pairs")
    assert len(pairs) == 18
    for row in pairs.itertuples():
        ref = paired_test(
            results[row.system].per_query[row.metric],
            results[row.other].per_query[row.metric],
            test=test,
            random_state=4,
            n_resamples=2000,
        )
        assert row.p_value == ref.pvalue
        assert row.ci_low == pytest.approx(ref.confidence_interval[0], abs=1e-12)


@pytest.mark.oracle
def test_randomization_with_few_nonzero_differences():
    """Three queries differ: the null has 8 values, often equal to the observed.

    Whether summed over the differences or combined from the systems'
    sums, those equalities must be counted: the Monte Carlo p-value is
    within three standard errors of the exact 2/8 (from the 8 sign patterns).
    """
    rng = np.random.default_rng(0)
    n = 400
    base = np.round(rng.random(n), 2)
    other = base.copy()
    other[[5, 50, 300]] += [0.3, 0.2, 0.4]
    noise = np.round(rng.random((2, n)), 2)
    results = {
        name: _result(np.arange(n), v)
        for name, v in [("a", base), ("b", other), ("c", noise[0]), ("d", noise[1])]
    }
    B = 4000
    cmp = compare(
        results,
        test="randomization",
        n_resamples=B,
        random_state=1,
        correction=None,
        metrics=["m"],
    )
    assert len(cmp.pairs) > 4  # more differences than systems: combined sums
    p = cmp.to_frame("pairs").set_index(["system", "other"]).p_value
    exact = 2 / 8  # |mean| >= observed: all three signs equal
    assert abs(p["a", "b"] - exact) <= 3 * np.sqrt(exact * (1 - exact) / B) + 1 / B
    direct = paired_test(
        other, base, test="randomization", n_resamples=B, random_state=1
    )
    assert abs(direct.pvalue - exact) <= 3 * np.sqrt(exact * (1 - exact) / B) + 1 / B


@pytest.mark.oracle
def test_system_intervals_share_scipys_bootstrap_draws():
    """interval="percentile": every system's interval is scipy's, same seed."""
    results = _results(n_groups=35, noises=(2.0, 1.0, 0.5))
    cmp = compare(
        results, interval="percentile", n_resamples=3000, random_state=8, confidence=0.9
    )
    frame = cmp.to_frame()
    for row in frame.itertuples():
        x = results[row.system].per_query[row.metric]
        ref = stats.bootstrap(
            (x,),
            np.mean,
            method="percentile",
            n_resamples=3000,
            confidence_level=0.9,
            rng=np.random.default_rng(8),
        )
        low, high = ref.confidence_interval
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high), abs=1e-12)
    assert "90% bootstrap percentile intervals" in cmp.describe_method()


def test_tukey_in_compare():
    results = _results(noises=(2.0, 1.9, 0.5))
    cmp = compare(results, test="tukey_hsd")
    assert cmp.correction is None
    pairs = cmp.to_frame("pairs")
    assert (pairs.p_adjusted == pairs.p_value).all()
    with pytest.raises(ValueError, match="controls the familywise error itself"):
        compare(results, test="tukey_hsd", correction="holm")
    with pytest.raises(ValueError, match="two-sided"):
        compare(results, test="tukey_hsd", alternative="greater")


def test_reports():
    results = _results(noises=(3.0, 0.5))
    results = {"bm_25": results["s0"], "LambdaMART & co": results["s1"]}
    cmp = compare(
        results, baseline="bm_25", random_state=0, test="bootstrap", n_resamples=1000
    )
    latex = cmp.to_latex()
    assert r"\toprule" in latex and r"\bottomrule" in latex and r"\midrule" in latex
    assert r"bm\_25" in latex and r"LambdaMART \& co" in latex
    assert r"\textbf{" in latex and "$^{a}$" in latex
    assert "bootstrap test" in latex and "seed 0" in latex and "alpha" not in latex
    assert "p <= 0.05" in latex
    md = cmp.to_markdown()
    assert md.startswith("| | System | ndcg@5 | map | mrr |") and "<sup>a</sup>" in md
    text = str(cmp)
    assert "ndcg@5: LambdaMART & co - bm_25 = +" in text
    assert repr(cmp).startswith("Comparison(systems=['bm_25', 'LambdaMART & co']")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"results": [1, 2]}, TypeError, "`results` must map system names"),
        ({"results": {"a": None}}, ValueError, "at least 2 systems"),
        ({"baseline": "zz"}, ValueError, "`baseline` must be one of"),
        ({"metrics": ["ndcg@10"]}, ValueError, "does not hold"),
        ({"test": "anova"}, ValueError, "`test` must be one of"),
        ({"correction": "hommel"}, ValueError, "`correction` must be one of"),
        ({"alpha": 0}, ValueError, r"`alpha` must be a number in \(0, 1\)"),
        ({"missing": "drop"}, ValueError, "`missing` must be one of"),
        ({"test": "sign", "interval": "x"}, ValueError, "`interval` must be one"),
    ],
)
def test_compare_bad_input(kwargs, error, match):
    args = {"results": _results(n_groups=10, noises=(1.0, 2.0)), **kwargs}
    with pytest.raises(error, match=match):
        compare(args.pop("results"), **args)


def test_compare_rejects_non_results():
    with pytest.raises(
        TypeError, match=r"`results\['a'\]` must be an EvaluationResult"
    ):
        compare({"a": 1, "b": 2})


def test_query_ids_of_different_kinds():
    a = _result([1, 2, 3], [0.1, 0.5, 0.2])
    b = _result(["1", "2", "3"], [0.2, 0.4, 0.9])
    with pytest.raises(ValueError, match="numbers in some results and strings"):
        compare({"a": a, "b": b})


@pytest.mark.filterwarnings("ignore:the bootstrap test is too liberal")
def test_compare_does_not_modify_the_results():
    results = _results(n_groups=20, noises=(2.0, 1.0))
    before = {
        n: {m: v.copy() for m, v in r.per_query.items()} for n, r in results.items()
    }
    cmp = compare(results, test="bootstrap", n_resamples=200, random_state=0)
    for name, result in results.items():
        for metric, values in result.per_query.items():
            np.testing.assert_array_equal(values, before[name][metric])
    cmp.per_query["s0"]["map"][0] = -1.0  # the comparison holds its own copy
    assert results["s0"].per_query["map"][0] == before["s0"]["map"][0]


def test_too_few_shared_queries():
    a = _result(["q1", "q2"], [0.1, 0.5])
    b = _result(["q2", "q3"], [0.2, 0.4])
    with pytest.raises(ValueError, match="share 1 queries"):
        compare({"a": a, "b": b}, missing="intersect")


# --------------------------------------------------------------------------
# ranx: same conclusions on the same per-query values
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.slow
def test_same_conclusions_as_ranx():
    pytest.importorskip("ranx")
    from ranx.statistical_tests import compute_statistical_significance

    results = _results(n_groups=60, noises=(2.0, 1.6, 1.5, 0.7), seed=3)
    names = list(results)
    scores = {n: {m: results[n].per_query[m] for m in METRICS} for n in names}
    B = 2000
    ranx_fisher = compute_statistical_significance(
        names, scores, stat_test="fisher", n_permutations=B, max_p=0.01
    )
    ranx_t = compute_statistical_significance(
        names, scores, stat_test="student", max_p=0.01
    )
    ours_r = compare(
        results,
        test="randomization",
        correction=None,
        alpha=0.01,
        n_resamples=B,
        random_state=0,
    ).to_frame("pairs")
    ours_t = compare(results, test="t", correction=None, alpha=0.01).to_frame("pairs")
    checked = 0
    for _, (row_r, row_t) in enumerate(
        zip(ours_r.itertuples(), ours_t.itertuples(), strict=True)
    ):
        key = frozenset([row_r.system, row_r.other])
        ref = ranx_fisher[key][row_r.metric]
        # ranx draws its permutations in numba's parallel threads, whose
        # generators its seed does not reach: both p-values are estimates,
        # each with its own error.
        se = np.sqrt(max(ref["p_value"], 1 / B) * (1 - ref["p_value"]) / B)
        bound = 5 * np.sqrt(2) * se + 2 / B
        assert abs(row_r.p_value - ref["p_value"]) <= bound
        if abs(ref["p_value"] - 0.01) > bound:
            assert row_r.significant == ref["significant"]
            checked += 1
        ref_t = ranx_t[key][row_t.metric]
        assert row_t.p_value == pytest.approx(ref_t["p_value"], abs=1e-12)
        assert row_t.significant == ref_t["significant"]
    assert checked >= 12


# --------------------------------------------------------------------------
# confidence_intervals / describe / compare of EvaluationResults
# --------------------------------------------------------------------------


@pytest.mark.oracle
def test_result_ci_equals_scipy():
    result = _results(n_groups=30)["s1"]
    assert result.per_query["ndcg@5"].std() > 0
    for metric, (low, high) in confidence_intervals(result, confidence=0.9).items():
        x = result.per_query[metric]
        if x.std() == 0:  # scipy warns on a zero standard error
            assert low == high == x[0]
            continue
        ref = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
        assert (low, high) == pytest.approx(ref, abs=1e-12)
    boot = confidence_intervals(result, "percentile", n_resamples=3000, random_state=2)
    for metric, interval in boot.items():
        x = result.per_query[metric]
        ref = stats.bootstrap(
            (x,),
            np.mean,
            method="percentile",
            n_resamples=3000,
            rng=np.random.default_rng(2),
        ).confidence_interval
        assert interval == pytest.approx(tuple(ref), abs=1e-12)
    # BCa on values without ties (with ties, scipy's bias term depends on
    # rounding: a draw can equal the estimate exactly or not).
    x = np.random.default_rng(3).random(50)
    continuous = EvaluationResult(np.arange(50), {"m": x}, {"m": x.mean()})
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=3000, rng=np.random.default_rng(2)
    ).confidence_interval
    got = confidence_intervals(
        continuous, "bootstrap", n_resamples=3000, random_state=2
    )["m"]
    assert got == pytest.approx(tuple(ref), abs=1e-12)


def test_result_describe_and_skip():
    y = [1, 0, 0, 0, 1, 0, 0, 1]
    result = evaluate(
        y,
        [2, 1, 2, 1, 1, 2, 1, 2],
        groups=[1, 1, 2, 2, 3, 3, 4, 4],
        metrics=["mrr"],
        no_relevant="skip",
    )
    frame = describe(result)
    assert frame.loc["mrr", "n"] == 3  # query 2 has no relevant row
    assert frame.loc["mrr", "mean"] == pytest.approx(np.mean([1, 0.5, 1]))
    assert frame.loc["mrr", "std"] == pytest.approx(np.std([1, 0.5, 1], ddof=1))
    with pytest.raises(ValueError, match="`method` must be one of"):
        confidence_intervals(result, "normal")


def test_compare_of_two_results_uses_the_baseline():
    results = _results(n_groups=20, noises=(2.0, 0.5))
    cmp = compare({"this": results["s1"], "other": results["s0"]}, baseline="other")
    assert cmp.systems == ["other", "this"] and cmp.baseline == "other"
    assert cmp.to_frame().delta.iloc[3] > 0  # "this" on ndcg@5


@pytest.mark.parametrize(
    "method, where",
    [
        ("ci", "skirm.stats.confidence_intervals"),
        ("describe", "skirm.stats.describe"),
        ("compare", "skirm.stats.compare"),
    ],
)
def test_result_methods_of_earlier_releases_say_where_they_moved(method, where):
    result = _results(n_groups=5)["s1"]
    with pytest.raises(AttributeError, match=re.escape(where)):
        getattr(result, method)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        result.nope  # noqa: B018 - other names raise the usual error
    assert not hasattr(result, "run_id")


# --------------------------------------------------------------------------
# Cross-validation helper
# --------------------------------------------------------------------------


def test_cross_val_evaluate_shares_the_folds():
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge

    from skirm.datasets import make_ranking
    from skirm.model_selection import QueryGroupKFold
    from skirm.ranker import QueryRanker

    X, y, groups = make_ranking(n_groups=40, random_state=0)
    cv = QueryGroupKFold(4, shuffle=True, random_state=0)
    results = cross_val_evaluate(
        {"dummy": DummyRegressor(), "ridge": QueryRanker(Ridge())},
        X,
        y,
        groups=groups,
        cv=cv,
        metrics=["ndcg@10", "map"],
    )
    # Each query's value is that of the model fitted on the other folds.
    for train, test in cv.split(X, y, groups):
        model = Ridge().fit(X[train], y[train])
        fold = evaluate(
            y[test], model.predict(X[test]), groups=groups[test], metrics=["ndcg@10"]
        )
        where = np.searchsorted(results["ridge"].group_ids, fold.group_ids)
        np.testing.assert_allclose(
            results["ridge"].per_query["ndcg@10"][where], fold.per_query["ndcg@10"]
        )
    assert compare(results, baseline="dummy").to_frame().significant.iloc[2]
    with pytest.raises(TypeError, match="`estimators` must be a non-empty dict"):
        cross_val_evaluate([Ridge()], X, y, groups=groups)
    with pytest.raises(TypeError, match="`cv` must be an int or a splitter"):
        cross_val_evaluate({"r": Ridge()}, X, y, groups=groups, cv=object())


# Regression (constant differences): b = a + 0.1 differs from a by 0.1 in
# every query up to the last bit; the t test read that rounding as a variance
# and reported t = -7e15, p = 6e-48 without a word.
CONSTANT_A = np.array([0.5, 0.2, 0.9, 0.4])


def test_t_test_on_differences_constant_up_to_rounding():
    with pytest.warns(RuntimeWarning, match="constant up to rounding"):
        res = paired_test(CONSTANT_A, CONSTANT_A + 0.1, test="t")
    assert res.statistic == -np.inf and res.pvalue == 0.0
    low, high = res.confidence_interval
    assert low == high == pytest.approx(-0.1)
    assert np.isnan(res.effect_size)


def test_t_test_on_differences_zero_up_to_rounding_is_undefined():
    b = CONSTANT_A * (1 + 2 * np.finfo(float).eps)  # equal but for the last bits
    assert np.any(b != CONSTANT_A)
    res = paired_test(CONSTANT_A, b, test="t")
    assert np.isnan(res.statistic) and res.pvalue == 1.0


def test_compare_and_tukey_on_constant_differences():
    a = _result(["q1", "q2", "q3", "q4"], CONSTANT_A)
    b = _result(["q1", "q2", "q3", "q4"], CONSTANT_A + 0.1)
    with pytest.warns(RuntimeWarning, match="constant up to rounding"):
        frame = compare({"a": a, "b": b}, baseline="a").to_frame()
    row = frame[frame.system == "b"].iloc[0]
    assert row.statistic == np.inf and row.p_value == 0.0
    with pytest.warns(RuntimeWarning, match="constant per query"):
        res = tukey_hsd(np.stack([CONSTANT_A, CONSTANT_A + 0.1]))
    assert res.statistic[0, 1] == np.inf and res.pvalue[0, 1] == 0.0
    assert res.pvalue[0, 0] == 1.0


def test_t_interval_of_values_constant_up_to_rounding():
    values = np.array([0.1, 0.2, 0.3]) + np.array([0.2, 0.1, 0.0])  # 0.3 each
    assert np.ptp(values) > 0
    res = _result(["q1", "q2", "q3"], values)
    with pytest.warns(RuntimeWarning, match="constant up to rounding"):
        low, high = confidence_intervals(res)["m"]
    assert low == high == pytest.approx(0.3)
