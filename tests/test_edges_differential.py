"""A differential campaign over the edges of issue 51's doors.

Generated cases, varying one dimension at a time from a base case, each
compared with an independent reference:

- weighted validation sets: ``make_eval_metric`` under
  ``conventions="lightgbm"``/``"xgboost"`` against LightGBM's and XGBoost's
  own ndcg@k and map@k, round by round (query sizes, cutoffs, weight
  spreads, constant or varying weights per query, queries without relevant
  rows);
- odd query ids: ``evaluate`` with ids near the ends of int64 and uint64,
  negative, as objects, against the same rows with the ids replaced by
  small integers (the engine's other encodings);
- batches: ``MetricAccumulator`` with random batch boundaries, empty
  batches of every dtype, and the same odd ids, against ``evaluate`` on the
  rows at once, bit for bit;
- meta-analysis: ``meta_analysis`` against statsmodels' ``combine_effects``
  down to the smallest variances statsmodels answers for;
- query labels of agreement: ``label_agreement`` with ``groups`` in several
  containers against the krippendorff package, query by query.

The torchmetrics preset's campaign is in ``tests/metrics/test_presets.py``
(the torch job runs it). CI runs a fixed set of seeds; a longer campaign
sets ``SKIRM_EDGE_CASES`` (cases per door and dimension), e.g.
``SKIRM_EDGE_CASES=40 python -m pytest tests/test_edges_differential.py``.
"""

from __future__ import annotations

import os
import warnings

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb

from skirm.metrics import MetricAccumulator, evaluate
from skirm.ranker import make_eval_metric
from skirm.stats import label_agreement, meta_analysis

pytestmark = [pytest.mark.usefixtures("one_thread")]

CASES = max(2, int(os.environ.get("SKIRM_EDGE_CASES", "0") or 0))
SEEDS = range(CASES)

# -- weighted validation sets ----------------------------------------------

BASE = {"n_queries": 30, "sizes": (2, 20), "k": 5, "spread": 4.0, "constant": False}
VARIED = [
    ("n_queries", 8),
    ("n_queries", 80),
    ("sizes", (1, 4)),
    ("sizes", (20, 60)),
    ("k", 1),
    ("k", 30),
    ("spread", 1.01),
    ("spread", 1000.0),
    ("constant", True),
]
WEIGHT_CASES = [dict(BASE)] + [{**BASE, key: value} for key, value in VARIED]
WEIGHT_IDS = ["base"] + [f"{key}={value}" for key, value in VARIED]


def _ranking_data(seed, n_queries, sizes, empty_share=0.25):
    """Training and validation rows grouped by query, labels 0-3, a share
    of validation queries without relevant rows."""
    rng = np.random.default_rng(seed)
    out = []
    for n in (40, n_queries):
        size = rng.integers(sizes[0], sizes[1] + 1, n)
        qid = np.repeat(np.arange(n), size)
        X = rng.normal(size=(qid.shape[0], 5))
        y = np.clip(np.round(X[:, 0] + rng.normal(0, 1, qid.shape[0])), 0, 3)
        y[np.isin(qid, np.flatnonzero(rng.random(n) < empty_share))] = 0
        out.append((X, y, size))
    return out


def _weights(seed, size, spread, constant):
    rng = np.random.default_rng(seed + 1000)
    low, high = 1.0 / np.sqrt(spread), np.sqrt(spread)
    if constant:
        return np.repeat(rng.uniform(low, high, size.shape[0]), size)
    return rng.uniform(low, high, size.sum())


@pytest.mark.oracle
@pytest.mark.parametrize("case", WEIGHT_CASES, ids=WEIGHT_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_lightgbm_weighted_rounds(seed, case):
    (X, y, size), (Xv, yv, size_v) = _ranking_data(
        seed, case["n_queries"], case["sizes"]
    )
    w = _weights(seed, size_v, case["spread"], case["constant"])
    k = case["k"]
    for metric in ("ndcg", "map"):
        custom = make_eval_metric(f"{metric}@{k}", "lightgbm", conventions="lightgbm")
        histories = []
        for feval in (None, custom):
            params = {
                "objective": "lambdarank",
                "metric": "None" if feval else metric,
                "eval_at": [k],
                "verbose": -1,
                "num_threads": 1,
                "min_data_in_leaf": 3,
                "seed": seed,
            }
            train = lgb.Dataset(X, y, group=size)
            valid = lgb.Dataset(Xv, yv, group=size_v, weight=w, reference=train)
            history = {}
            lgb.train(
                params,
                train,
                num_boost_round=4,
                valid_sets=[valid],
                valid_names=["v"],
                feval=feval,
                callbacks=[lgb.record_evaluation(history)],
            )
            histories.append(np.asarray(history["v"][f"{metric}@{k}"]))
        np.testing.assert_allclose(histories[1], histories[0], rtol=0, atol=1e-9)


@pytest.mark.oracle
@pytest.mark.parametrize("case", WEIGHT_CASES, ids=WEIGHT_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_xgboost_weighted_rounds(seed, case):
    (X, y, size), (Xv, yv, size_v) = _ranking_data(
        seed, case["n_queries"], case["sizes"]
    )
    rng = np.random.default_rng(seed + 2000)
    spread = case["spread"]
    w = rng.uniform(1 / np.sqrt(spread), np.sqrt(spread), size_v.shape[0])
    k = case["k"]
    for metric in ("ndcg", "map"):
        yt, yvt = (y, yv) if metric == "ndcg" else ((y > 0) * 1, (yv > 0) * 1)
        train = xgb.DMatrix(X, yt, qid=np.repeat(np.arange(size.shape[0]), size))
        valid = xgb.DMatrix(Xv, yvt, qid=np.repeat(np.arange(size_v.shape[0]), size_v))
        valid.set_weight(w)
        custom = make_eval_metric(f"{metric}@{k}", "xgboost", conventions="xgboost")
        histories = []
        for own in (True, False):
            params = {
                "objective": "rank:ndcg",
                "nthread": 1,
                "seed": seed,
                "disable_default_eval_metric": 1,
            }
            if own:
                params["eval_metric"] = f"{metric}@{k}"
            history = {}
            try:
                xgb.train(
                    params,
                    train,
                    num_boost_round=4,
                    evals=[(valid, "v")],
                    evals_result=history,
                    custom_metric=None if own else custom,
                    verbose_eval=False,
                )
            except xgb.core.XGBoostError as exc:
                # XGBoost refuses its own weighted mean above 1 ("invalid
                # query group weight"): only its ndcg's rule for a query
                # without relevant rows gives one, with light queries.
                assert own and "Invalid output score" in str(exc)
                return
            histories.append(np.asarray(history["v"][f"{metric}@{k}"]))
        np.testing.assert_allclose(histories[1], histories[0], rtol=0, atol=1e-6)


# -- odd query ids -----------------------------------------------------------

TOP, BOTTOM = np.iinfo(np.int64).max, np.iinfo(np.int64).min
ID_KINDS = {
    "int64 top": lambda n: TOP - np.arange(n, dtype=np.int64)[::-1],
    "int64 top, gaps": lambda n: TOP - 2 * np.arange(n, dtype=np.int64)[::-1],
    "int64 bottom": lambda n: BOTTOM + np.arange(n, dtype=np.int64),
    "int64 around 0": lambda n: np.arange(n, dtype=np.int64) - n // 2,
    "uint64 top": lambda n: np.uint64(2**64 - 1) - np.arange(n, dtype=np.uint64),
    "uint64 past int64": lambda n: np.uint64(2**63) + np.arange(n, dtype=np.uint64),
    "above 2**53, one apart": lambda n: 2**53 + np.arange(n, dtype=np.int64),
    "objects": lambda n: np.array([int(TOP) - i for i in range(n)], dtype=object),
}
METRICS = ["ndcg@5", "map", "mrr", "err@10", "precision@3"]


def _rows(seed, n_queries=25):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_queries, 400)
    codes[:n_queries] = np.arange(n_queries)  # every query present
    y = rng.integers(0, 3, 400)
    s = rng.normal(size=400).round(1)
    return y, s, codes


@pytest.mark.parametrize("kind", list(ID_KINDS))
@pytest.mark.parametrize("seed", SEEDS)
def test_odd_ids_equal_small_ids(seed, kind):
    y, s, codes = _rows(seed)
    ids = ID_KINDS[kind](25)
    want = evaluate(y, s, groups=codes, metrics=METRICS)
    got = evaluate(y, s, groups=ids[codes], metrics=METRICS)
    order = np.argsort(ids, kind="stable")  # the result's queries, sorted
    assert got.group_ids.tolist() == ids[order].tolist()
    for name in METRICS:
        np.testing.assert_array_equal(got.per_query[name], want.per_query[name][order])
        assert got[name] == pytest.approx(want[name], rel=1e-15)


@pytest.mark.parametrize("kind", list(ID_KINDS))
@pytest.mark.parametrize("seed", SEEDS)
def test_batches_with_empty_ones_equal_evaluate(seed, kind):
    y, s, codes = _rows(seed + 500)
    g = ID_KINDS[kind](25)[codes]
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, y.shape[0] + 1, rng.integers(1, 30)))
    empties = [[], np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype="<U2")]
    acc = MetricAccumulator(METRICS)
    for i, rows in enumerate(np.split(np.arange(y.shape[0]), cuts)):
        if rng.random() < 0.3:
            empty = empties[i % len(empties)]
            acc.update(empty, empty, empty)
        acc.update(y[rows], s[rows], g[rows])
    got, want = acc.compute(), evaluate(y, s, groups=g, metrics=METRICS)
    assert got.group_ids.dtype == want.group_ids.dtype
    assert got.group_ids.tolist() == want.group_ids.tolist()
    for name in METRICS:
        assert got.per_query[name].tobytes() == want.per_query[name].tobytes()
        assert np.float64(got[name]).tobytes() == np.float64(want[name]).tobytes()


# -- meta-analysis -------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("scale", [1.0, 1e-30, 1e-90, 1e-140])
@pytest.mark.parametrize("k", [2, 5, 30])
@pytest.mark.parametrize("seed", SEEDS)
def test_meta_analysis_against_statsmodels(seed, k, scale):
    from statsmodels.stats.meta_analysis import combine_effects

    rng = np.random.default_rng(seed)
    v = rng.uniform(1e-4, 3e-3, k) * scale
    y = rng.normal(0.02, 0.05, k) * np.sqrt(scale) + rng.normal(0, np.sqrt(v))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sm = combine_effects(y, v, method_re="dl")
    fixed = meta_analysis(y, v, method="fixed")
    assert fixed.effect == pytest.approx(sm.mean_effect_fe, rel=1e-10)
    assert fixed.standard_error == pytest.approx(sm.sd_eff_w_fe, rel=1e-10)
    assert fixed.q == pytest.approx(sm.q, rel=1e-10)
    dl = meta_analysis(y, v)
    assert dl.i2 == pytest.approx(max(0.0, sm.i2), abs=1e-10)
    if sm.tau2 > 0:  # statsmodels keeps a negative estimate; skirm takes 0
        assert dl.tau2 == pytest.approx(sm.tau2, rel=1e-10)
        assert dl.effect == pytest.approx(sm.mean_effect_re, rel=1e-10)
        assert dl.standard_error == pytest.approx(sm.sd_eff_w_re, rel=1e-10)


# -- query labels of label agreement ------------------------------------------

CONTAINERS = {
    "ints": lambda q: q,
    "floats": lambda q: q.astype(float) + 0.5,
    "strings": lambda q: np.array([f"q{i}" for i in q]),
    "objects": lambda q: np.array([f"q{i}" for i in q], dtype=object),
    "negative ints": lambda q: -q - 1,
    "a list": lambda q: q.tolist(),
}


@pytest.mark.oracle
@pytest.mark.parametrize("container", list(CONTAINERS))
@pytest.mark.parametrize("seed", SEEDS)
def test_agreement_per_query_against_krippendorff(seed, container):
    import krippendorff

    rng = np.random.default_rng(seed)
    n_queries = 6
    size = rng.integers(4, 10, n_queries)
    q = np.repeat(np.arange(n_queries), size)[rng.permutation(size.sum())]
    truth = rng.integers(0, 3, q.shape[0])
    labels = np.clip(truth[:, None] + rng.integers(-1, 2, (q.shape[0], 3)), 0, 2)
    labels = labels.astype(float)
    groups = CONTAINERS[container](q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = label_agreement(
            labels, groups=groups, method="krippendorff", n_resamples=20, random_state=0
        )
        order = np.unique(np.asarray(groups), return_inverse=True)[1]
        for code in range(n_queries):
            rows = order == code
            try:
                want = float(
                    krippendorff.alpha(labels[rows].T, level_of_measurement="nominal")
                )
            except (ValueError, ZeroDivisionError):
                want = np.nan
            got = result.per_query[code]
            assert got == pytest.approx(want, abs=1e-12, nan_ok=True)
