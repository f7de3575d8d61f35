"""The measures of impression logs: per-group AUC, calibration and entropy,
propensity-scored metrics.

Oracles: scikit-learn's ``roc_auc_score`` per group and ``log_loss``; a
slow reference from the definitions (``tests/_reference.py``:
``impression_reference``, every ordering of tied rows enumerated); pyxclib's
``psprecision`` and ``psndcg`` written out on dense matrices (pyxclib is
not on PyPI), Jain et al.'s formulas on worked examples; LensKit's
``IPSRBP`` written out from its source (lenskit 2026.4 needs a torch with
CUDA here, and the 2025 release Python 3.11 resolves has no IPS metrics);
unbiasedness of the IPS estimates by seeded simulation. torchmetrics'
``RetrievalAUROC``, ``RetrievalFallOut``, ``RetrievalRecallAtFixedPrecision``
and ``BinaryCalibrationError`` are the oracles of ``test_presets.py`` (the
tests named with ``torch``).
"""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from _reference import impression_reference

from skirm.metrics import (
    EvaluationResult,
    MetricAccumulator,
    evaluate,
    expected_calibration_error,
    get_metric,
    group_auc_score,
    ips_dcg_score,
    ips_rbp_score,
    item_counts,
    jain_propensity,
    make_ranking_scorer,
    normalized_entropy_loss,
    popularity_propensity,
    position_propensity,
    predicted_to_observed_ratio,
    propensity_scored_ndcg_score,
    propensity_scored_precision_score,
    recall_at_fixed_precision,
)

NEW = [
    "gauc",
    "fallout",
    "opa",
    "arp",
    "ne",
    "pcoc",
    "ece",
    "psp",
    "psndcg",
    "ips_precision",
    "ips_recall",
    "ips_dcg",
    "ips_rbp",
]
ORDER_FREE = {"ne", "pcoc"}


def _logs(seed, n_groups=8, max_rows=7, n_scores=None, graded=False, one_class=True):
    """Impressions: groups of 1..max_rows rows interleaved, clicks (or
    grades), probabilities as scores (``n_scores`` distinct values: ties),
    propensities in (0, 1]."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    n = groups.shape[0]
    y = rng.integers(0, 4 if graded else 2, size=n).astype(float)
    if not one_class:  # a click and a non-click in every group
        for g in range(n_groups):
            at = np.flatnonzero(groups == g)
            if at.shape[0] >= 2:
                y[at[0]], y[at[1]] = 1.0, 0.0
    if n_scores is None:
        s = rng.uniform(0.01, 0.99, size=n)
    else:
        s = (rng.integers(0, n_scores, size=n) + 0.5) / n_scores
    prop = rng.uniform(0.05, 1.0, size=n)
    perm = rng.permutation(n)
    return y[perm], s[perm], groups[perm], prop[perm]


def _options(name):
    """The options grid the reference is checked on, per metric."""
    w = [{"weights": x} for x in ("impressions", "clicks", "uniform", "pairs")]
    if name == "gauc":
        return [{**a, "one_class": c} for a in w for c in ("skip", 0.5)]
    if name == "fallout":
        return [{"one_class": 1.0}, {"one_class": "skip"}]
    if name == "opa":
        return [{**a, "one_class": "skip"} for a in w]
    if name == "arp":
        return [{"weights": "clicks", "one_class": "skip"}, {**w[2], "one_class": 0.0}]
    if name == "ne":
        return [
            {"base_rate": "overall", "weights": "impressions", "one_class": "skip"},
            {"base_rate": "group", "weights": "uniform", "one_class": "skip"},
            {"base_rate": 0.3, "weights": "clicks", "one_class": "skip"},
        ]
    if name == "pcoc":
        return [{**a, "one_class": "skip"} for a in w[:3]]
    if name == "ece":
        return [{"n_bins": 15, **w[0]}, {"n_bins": 4, **w[2]}]
    if name in ("psp", "psndcg"):
        return [{"average": "micro"}, {"average": "macro"}]
    if name in ("ips_dcg", "ips_rbp"):
        extra = {"p": 0.8} if name == "ips_rbp" else {}
        return [{**extra, "estimator": e} for e in ("ips", "snips")]
    return [{}]


def _binary(name):
    return get_metric(name).spec.kind == "binary"


@pytest.mark.oracle
@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("seed", range(4))
def test_matches_the_reference_on_generated_logs(name, seed):
    # Ties, one-class groups, interleaved rows, a group of one row: each
    # query's value and weight, and the weighted mean, against the slow
    # reference (every ordering of tied rows enumerated).
    y, s, groups, prop = _logs(
        seed, n_scores=3 if seed % 2 else None, graded=not _binary(name) or seed == 3
    )
    spec = get_metric(name).spec
    ks = (None, 1, 3) if spec.takes_k else (None,)
    policies = ("first",) if name in ORDER_FREE else ("average", "pessimistic")
    for options, k, ties in itertools.product(_options(name), ks, policies):
        if name == "ece" and ties == "average":
            ties = "first"  # ECE@k refuses averaged ties across the cutoff
        if seed == 3 and _binary(name):  # grades 0-3: relevant from 2 on
            options = {**options, "relevance_threshold": 2.0}
        given = {"propensity": prop} if name.startswith(("ps", "ips")) else {}
        full = {**dict(spec.params), **options}
        _, values, weights, mean = impression_reference(
            name, list(y), list(s), list(groups), k=k, ties=ties, **given, **full
        )
        label = name if k is None else f"{name}@{k}"
        result = evaluate(
            y, s, groups=groups, metrics=[label], ties=ties, **given, **options
        )
        context = (label, options, ties)
        np.testing.assert_allclose(
            result.per_query[label],
            values,
            rtol=1e-10,
            atol=1e-12,
            err_msg=str(context),
        )
        assert result[label] == pytest.approx(mean, rel=1e-10), context
        own = result.metric_weights.get(label)
        if own is not None:
            keep = ~np.isnan(values)
            np.testing.assert_allclose(
                own[keep], np.asarray(weights)[keep], rtol=1e-10, err_msg=str(context)
            )
        direct = spec.function(
            y,
            s,
            groups=groups,
            ties=ties,
            **given,
            **options,
            **({"k": k} if spec.takes_k else {}),
        )
        assert direct == pytest.approx(result[label], rel=1e-12), context


# --------------------------------------------------------------------------
# GAUC: scikit-learn's roc_auc_score per group
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_scores", [None, 2, 5])
def test_gauc_is_roc_auc_score_per_group_weighted_by_hand(seed, n_scores):
    from sklearn.metrics import roc_auc_score

    y, s, groups, _ = _logs(seed, n_groups=30, max_rows=12, n_scores=n_scores)
    auc, size, clicks = [], [], []
    for g in np.unique(groups):
        at = groups == g
        if 0 < y[at].sum() < at.sum():
            auc.append(roc_auc_score(y[at], s[at]))  # ties count 1/2
            size.append(at.sum())
            clicks.append(y[at].sum())
    auc, size, clicks = map(np.asarray, (auc, size, clicks))
    pairs = clicks * (size - clicks)
    for weights, w in [
        ("impressions", size),
        ("clicks", clicks),
        ("uniform", np.ones_like(auc)),
        ("pairs", pairs),
    ]:
        got = group_auc_score(y, s, groups=groups, weights=weights)
        assert got == pytest.approx(np.dot(w, auc) / w.sum(), rel=1e-12), weights


def test_gauc_of_a_one_class_group():
    y, s, g = [1, 0, 1, 1], [0.2, 0.4, 0.9, 0.1], ["a", "a", "b", "b"]
    result = evaluate(y, s, groups=g, metrics=["gauc"])
    assert result.per_query["gauc"][1] != result.per_query["gauc"][1]  # NaN
    assert result["gauc"] == 0.0
    assert group_auc_score(y, s, groups=g, one_class=0.5) == pytest.approx(0.25)
    with pytest.raises(ValueError, match=r"gauc: no query has a defined value"):
        group_auc_score([1, 1], [0.2, 0.3], groups=[0, 0])
    with pytest.raises(ValueError, match=r"gauc: no query has a defined value"):
        evaluate([1, 1], [0.2, 0.3], groups=[0, 0], metrics=["gauc", "mrr"])


# --------------------------------------------------------------------------
# NE, PCOC, ECE: log_loss and sums by hand
# --------------------------------------------------------------------------


def _entropy(p):
    return -(p * math.log(p) + (1 - p) * math.log(1 - p))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
def test_ne_is_log_loss_over_the_entropy_of_the_click_rate(seed):
    from sklearn.metrics import log_loss

    y, s, groups, _ = _logs(seed, n_groups=40, max_rows=15)
    want = log_loss(y, s) / _entropy(y.mean())
    assert normalized_entropy_loss(y, s, groups=groups) == pytest.approx(
        want, rel=1e-12
    )
    # One group: the same number, whatever the base rate option.
    one = np.zeros_like(groups)
    for base_rate in ("overall", "group"):
        got = normalized_entropy_loss(y, s, groups=one, base_rate=base_rate)
        assert got == pytest.approx(want, rel=1e-12)
    # Per group, its own base rate: TorchRec's segmented NE.
    result = evaluate(y, s, groups=groups, metrics=["ne"], base_rate="group")
    for g, value in zip(result.group_ids, result.per_query["ne"], strict=True):
        at = groups == g
        rate = y[at].mean()
        if rate in (0.0, 1.0):
            assert value != value
            continue
        expected = log_loss(y[at], s[at], labels=[0, 1]) / _entropy(rate)
        assert value == pytest.approx(expected, rel=1e-12)


def test_ne_and_pcoc_read_the_values_of_the_scores():
    y, s, g = [1, 0, 0, 1], [0.9, 0.2, 0.3, 0.6], [0, 0, 1, 1]
    a = normalized_entropy_loss(y, s, groups=g)
    b = normalized_entropy_loss(y, np.square(s), groups=g)  # same order
    assert a != pytest.approx(b)
    with pytest.raises(
        ValueError, match=r"`y_score` must hold probabilities in \[0, 1\] for ne"
    ):
        normalized_entropy_loss(y, [2.0, 0.2, 0.3, 0.6], groups=g)
    with pytest.raises(
        ValueError, match=r"probabilities in \[0, 1\] for pcoc.*got -0.5"
    ):
        predicted_to_observed_ratio(y, [0.9, -0.5, 0.3, 0.6], groups=g)
    with pytest.raises(
        ValueError, match=r"every row is not relevant, so the base rate"
    ):
        normalized_entropy_loss([0, 0], [0.1, 0.2], groups=[0, 0])
    with pytest.raises(ValueError, match=r"every row is relevant, so the base rate"):
        evaluate([1, 1], [0.1, 0.2], groups=[0, 1], metrics=["ne"])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_pcoc_is_the_ratio_of_sums_by_hand(seed):
    y, s, groups, _ = _logs(seed, n_groups=25)
    one = np.zeros_like(groups)
    assert predicted_to_observed_ratio(y, s, groups=one) == pytest.approx(
        s.sum() / y.sum(), rel=1e-12
    )
    clicked = np.isin(groups, np.unique(groups[y > 0]))
    assert predicted_to_observed_ratio(y, s, groups=groups) == pytest.approx(
        s[clicked].sum() / y.sum(), rel=1e-12
    )


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_ece_of_one_group_is_the_binned_gap_by_hand(seed):
    y, s, _, _ = _logs(seed, n_groups=30, max_rows=10)
    edges = np.linspace(0, 1, 11)
    bins = np.clip(np.searchsorted(edges, s, side="right") - 1, 0, 9)
    want = sum(abs(s[bins == b].sum() - y[bins == b].sum()) for b in range(10)) / y.size
    got = expected_calibration_error(y, s, groups=np.zeros(y.size), n_bins=10)
    assert got == pytest.approx(want, rel=1e-12)


def test_ece_refuses_averaged_ties_across_the_cutoff():
    y, s, g = [1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1], [0] * 4
    with pytest.raises(ValueError, match=r"ties='average' is not available for ece@k"):
        expected_calibration_error(y, s, groups=g, k=2)
    expected_calibration_error(y, s, groups=g, k=3)  # the tie is above the cutoff
    expected_calibration_error(y, s, groups=g, k=2, ties="first")


# --------------------------------------------------------------------------
# psP@k and psnDCG@k: Jain et al.'s formulas, pyxclib's computation
# --------------------------------------------------------------------------


def test_jain_propensity_on_worked_examples():
    # C = (ln N - 1)(B + 1)^A; p = 1 / (1 + C (N_l + B)^-A), by hand.
    N, A, B = 10_000, 0.55, 1.5
    C = (math.log(N) - 1) * (B + 1) ** A
    for freq in (0, 1, 10, 1000):
        want = 1 / (1 + C * (freq + B) ** -A)
        assert jain_propensity([freq], N)[0] == pytest.approx(want, rel=1e-14)
    assert jain_propensity([5], 500_000, a=0.5, b=0.4)[0] == pytest.approx(
        1 / (1 + (math.log(500_000) - 1) * 1.4**0.5 * 5.4**-0.5), rel=1e-14
    )
    assert popularity_propensity([2, 8], gamma=3.0).tolist() == [0.0625, 1.0]
    assert position_propensity([1, 3], eta=2.0).tolist() == pytest.approx([1.0, 1 / 9])
    assert item_counts([3, 1, 9], [1, 1, 3, 2]).tolist() == [1, 2, 0]
    with pytest.raises(ValueError, match=r"`positions` must hold positions >= 1"):
        position_propensity([0.5])
    with pytest.raises(
        ValueError, match=r"`frequencies` must hold finite, non-negative"
    ):
        jain_propensity([-1], 100)
    with pytest.raises(ValueError, match=r"`n_instances` must be an integer >= 3"):
        jain_propensity([1], 2)


def _pyxclib(scores, labels, inv_psp, k):
    """pyxclib's ``psprecision`` and ``psndcg`` at ``k`` on dense matrices,
    as its code computes them: the mean over instances of the scored
    gains of the top k, over that of the best top k of the true labels
    by ``inv_psp``, the nDCG's per-instance normaliser ``min(n, cumsum)``."""
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    weighted = labels * inv_psp
    best = np.argsort(-weighted, axis=1, kind="stable")[:, :k]
    flags = np.take_along_axis(weighted, top, 1)
    ps_flags = np.take_along_axis(weighted, best, 1)
    precision = flags.sum(1).mean() / k / (ps_flags.sum(1).mean() / k)
    disc = 1 / np.log2(np.arange(k) + 2)
    total = labels.sum(1).astype(int)
    cums = np.cumsum(1 / np.log2(np.arange(1, max(total.max(), k) + 1) + 1))
    n = cums[total - 1]  # pyxclib's index (an instance without labels reads the last)
    norm = np.minimum(n, cums[k - 1])
    dcg = ((flags * disc).sum(1) / norm).mean()
    ps_dcg = ((ps_flags * disc).sum(1) / norm).mean()
    return precision, dcg / ps_dcg


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(5))
def test_psp_and_psndcg_are_pyxclibs(seed):
    rng = np.random.default_rng(seed)
    n_inst, n_labels = 40, 12
    labels = (rng.random((n_inst, n_labels)) < 0.25).astype(float)
    labels[labels.sum(1) == 0, 0] = 1.0
    scores = rng.random((n_inst, n_labels))  # distinct: pyxclib breaks no ties
    freq = labels.sum(0)
    prop = jain_propensity(freq, n_inst)
    inv = np.broadcast_to(1 / prop, labels.shape)
    groups = np.repeat(np.arange(n_inst), n_labels)
    row_prop = np.tile(prop, n_inst)
    for k in (1, 3, 5):
        want_p, want_n = _pyxclib(scores, labels, inv, k)
        common = dict(groups=groups, k=k, propensity=row_prop)
        got_p = propensity_scored_precision_score(
            labels.ravel(), scores.ravel(), **common
        )
        got_n = propensity_scored_ndcg_score(labels.ravel(), scores.ravel(), **common)
        assert got_p == pytest.approx(want_p, rel=1e-12), k
        assert got_n == pytest.approx(want_n, rel=1e-12), k


def test_psp_on_a_worked_example():
    # One query: labels of propensity 0.9, 0.5 (shown) and 0.1 (not shown at k=2).
    y, s, p = [1, 1, 0, 1], [0.9, 0.8, 0.7, 0.6], [0.9, 0.5, 0.5, 0.1]
    want = (1 / 0.9 + 1 / 0.5) / (1 / 0.1 + 1 / 0.5)
    got = propensity_scored_precision_score(y, s, groups=[0] * 4, k=2, propensity=p)
    assert got == pytest.approx(want, rel=1e-14)
    # Without propensities, psP@k is the share of the best achievable hits.
    assert propensity_scored_precision_score(y, s, groups=[0] * 4, k=2) == 1.0


# --------------------------------------------------------------------------
# IPS and SNIPS: a direct per-row computation, LensKit's IPSRBP, simulation
# --------------------------------------------------------------------------


def _lenskit_ipsrbp(ranked_ids, test_ids, weights, n, patience, self_normalized):
    """LensKit's ``IPSRBP.measure_list``, written out from its source: the
    recommendation list cut at ``n``, each hit's rank weight ``patience^(r -
    1)`` over the series sum ``1 / (1 - patience)``, times its inverse
    propensity; divided by the sum of the test items' weights."""
    recs = ranked_ids[:n]
    gain = sum(
        weights[item] * patience**r for r, item in enumerate(recs) if item in test_ids
    ) * (1 - patience)
    if not self_normalized:
        return gain
    total = sum(weights[item] for item in test_ids)
    return gain / total


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(5))
def test_ips_rbp_is_lenskits_ipsrbp(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items = 20, 15
    rows = []
    for u in range(n_users):
        items = rng.permutation(n_items)[: rng.integers(3, n_items)]
        for rank, item in enumerate(items):
            rows.append((u, item, rank, rng.random() < 0.3))
    frame = pd.DataFrame(rows, columns=["user", "item", "rank", "click"])
    frame.loc[frame.groupby("user").head(1).index, "click"] = True
    item_prop = rng.uniform(0.1, 1.0, n_items)
    frame["propensity"] = item_prop[frame["item"]]
    frame["score"] = -frame["rank"].astype(float)
    for n, normalized in itertools.product((5, None), (True, False)):
        want = []
        for _, user in frame.groupby("user"):
            ranked = user.sort_values("rank")["item"].tolist()
            test = set(user.loc[user["click"], "item"])
            weights = {i: 1 / item_prop[i] for i in test}
            want.append(
                _lenskit_ipsrbp(
                    ranked, test, weights, n or len(ranked), 0.85, normalized
                )
            )
        got = evaluate(
            frame,
            ["ips_rbp" if n is None else f"ips_rbp@{n}"],
            y_true="click",
            y_score="score",
            groups="user",
            propensity="propensity",
            p=0.85,
            estimator="snips" if normalized else "ips",
        )
        assert got.means[got.metrics[0]] == pytest.approx(np.mean(want), rel=1e-12)
        if normalized:
            preset = evaluate(
                frame["click"],
                frame["score"],
                groups=frame["user"],
                propensity=frame["propensity"],
                metrics=[got.metrics[0]],
                conventions="lenskit",
            )
            assert preset.means[got.metrics[0]] == pytest.approx(
                np.mean(want), rel=1e-12
            )


def test_ips_dcg_is_a_per_row_sum():
    y = np.array([1, 0, 1, 1, 0])
    s = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    p = np.array([0.5, 1.0, 0.25, 0.8, 1.0])
    disc = 1 / np.log2(np.arange(5) + 2)
    assert ips_dcg_score(y, s, groups=[0] * 5, propensity=p) == pytest.approx(
        np.sum(y / p * disc), rel=1e-14
    )
    assert ips_dcg_score(y, s, groups=[0] * 5, propensity=p, k=2) == pytest.approx(
        np.sum((y / p * disc)[:2]), rel=1e-14
    )
    assert ips_dcg_score(y, s, groups=[0] * 5, propensity=p, estimator="snips") == (
        pytest.approx(np.sum(y / p * disc) / np.sum(y / p), rel=1e-14)
    )


def test_ips_dcg_averages_tied_rows_over_places_not_products():
    # Regression: the expected DCG of a tie block is the block's mean gain
    # times each place's discount, not the mean of gain * discount (which
    # depends on the order the sort left the tied rows in).
    y = np.array([1.0, 0.0, 1.0, 0.0])
    s = np.array([0.5, 0.5, 0.5, 0.1])
    p = np.array([0.5, 1.0, 0.25, 1.0])
    disc = 1 / np.log2(np.arange(3) + 2)
    want = np.mean(y[:3] / p[:3]) * disc.sum()
    for perm in itertools.permutations(range(4)):
        order = np.array(perm)
        got = ips_dcg_score(y[order], s[order], groups=[0] * 4, propensity=p[order])
        assert got == pytest.approx(want, rel=1e-12)
    got = propensity_scored_ndcg_score(y, s, groups=[0] * 4, propensity=p, k=2)
    reversed_ = propensity_scored_ndcg_score(
        y[::-1], s[::-1], groups=[0] * 4, propensity=p[::-1], k=2
    )
    assert got == pytest.approx(reversed_, rel=1e-12)


def _position_biased_log(rng, n_queries, n_docs, eta):
    """A logging ranker's lists with clicks that happen when a row is
    examined (chance ``(1/position)^eta``) and relevant: the true relevance
    is known, the examination propensity too."""
    relevance = (rng.random((n_queries, n_docs)) < 0.3).astype(float)
    logged = rng.random((n_queries, n_docs))  # the logging ranker's scores
    position = np.argsort(np.argsort(-logged, axis=1), axis=1) + 1.0
    examined = rng.random((n_queries, n_docs)) < position**-eta
    clicks = relevance * examined
    return relevance, clicks, position**-eta


@pytest.mark.parametrize("metric", ["ips_dcg@5", "ips_precision@5", "ips_rbp"])
def test_ips_is_unbiased_and_the_naive_metric_is_not(metric):
    # A new ranker's scores; its true metric (every relevant row observed)
    # is known. Over seeded simulations of position-biased clicks, the mean
    # of the IPS estimates lies within 3 standard errors of the truth; the
    # mean of the naive metric (clicks as labels) does not.
    rng = np.random.default_rng(50)
    n_queries, n_docs, n_sims = 200, 8, 60
    base = metric.partition("@")[0].removeprefix("ips_").replace("precision", "p")
    plain = {"dcg": "dcg", "p": "precision", "rbp": "rbp"}[base]
    suffix = metric[len(metric.partition("@")[0]) :]
    relevance, _, _ = _position_biased_log(rng, n_queries, n_docs, 1.0)
    scores = relevance + rng.normal(0, 0.8, relevance.shape)  # a decent ranker
    truth = evaluate(relevance, scores, metrics=[plain + suffix])[plain + suffix]
    ips, naive = [], []
    for _ in range(n_sims):
        examined = rng.random(relevance.shape)
        logged = rng.random(relevance.shape)
        position = np.argsort(np.argsort(-logged, axis=1), axis=1) + 1.0
        prop = 1.0 / position
        clicks = relevance * (examined < prop)
        ips.append(evaluate(clicks, scores, metrics=[metric], propensity=prop)[metric])
        naive.append(evaluate(clicks, scores, metrics=[plain + suffix])[plain + suffix])
    se = np.std(ips, ddof=1) / math.sqrt(n_sims)
    assert abs(np.mean(ips) - truth) < 3 * se
    assert abs(np.mean(naive) - truth) > 3 * np.std(naive, ddof=1) / math.sqrt(n_sims)


# --------------------------------------------------------------------------
# Every door of the registry: evaluate, blocks, accumulator, scorers,
# concat, statistics, pickling
# --------------------------------------------------------------------------


def test_large_inputs_in_blocks_give_the_numbers_of_one_ranking():
    # Past BLOCK_ROWS rows evaluate ranks blocks of whole queries: the
    # overall base rate, the per-metric weights and the propensities travel.
    y, s, groups, prop = _logs(7, n_groups=40_000, max_rows=7)
    metrics = ["gauc", "ne", "pcoc", "ece@3", "psp@3", "ips_dcg@3", "opa"]
    blocks = evaluate(y, s, groups=groups, metrics=metrics, propensity=prop, n_jobs=2)
    whole = evaluate(
        y,
        s,
        groups=groups,
        metrics=metrics,
        propensity=prop,
        unjudged="nonrelevant",
        label_samples=y[:, None],
    )  # one ranking
    for name in metrics:
        assert blocks[name] == pytest.approx(whole[name], rel=1e-12), name
        np.testing.assert_allclose(
            blocks.per_query[name], whole.per_query[name], rtol=1e-12
        )


def test_frames_name_the_propensity_column():
    y, s, groups, prop = _logs(1)
    frame = pd.DataFrame({"q": groups, "c": y, "p": s, "w": prop})
    by_name = evaluate(
        frame, ["psp@2", "ips_dcg"], y_true="c", y_score="p", groups="q", propensity="w"
    )
    by_array = evaluate(
        y, s, groups=groups, metrics=["psp@2", "ips_dcg"], propensity=prop
    )
    assert by_name.means == by_array.means
    assert (
        propensity_scored_precision_score(
            frame, y_true="c", y_score="p", groups="q", propensity="w", k=2
        )
        == by_array["psp@2"]
    )
    with pytest.raises(
        ValueError, match=r"`propensity` must name a column of the frame"
    ):
        evaluate(frame, ["psp@2"], y_true="c", y_score="p", groups="q", propensity="x")
    with pytest.raises(ValueError, match=r"`propensity` is a column name"):
        evaluate(y, s, groups=groups, metrics=["psp@2"], propensity="w")


@pytest.mark.parametrize(
    "propensity, message",
    [
        ([0.5, 0.0, 1.0], r"`propensity` must hold probabilities in \(0, 1\].*got 0.0"),
        ([0.5, 1.5, 1.0], r"`propensity` must hold probabilities in \(0, 1\].*got 1.5"),
        ([0.5, np.nan, 1.0], r"`propensity` must hold probabilities.*got nan"),
        ([0.5, 1.0], r"`propensity` must hold one propensity per row.*\(3,\), got"),
        (["a", "b", "c"], r"`propensity` must be an array-like of real numbers"),
    ],
)
def test_bad_propensities_are_refused(propensity, message):
    with pytest.raises(ValueError, match=message):
        evaluate(
            [1, 0, 1],
            [0.3, 0.2, 0.1],
            groups=[0, 0, 0],
            metrics=["psp@2"],
            propensity=propensity,
        )


def test_propensities_are_for_rows_not_ranked_lists():
    from skirm.metrics import from_lists

    lists = from_lists([["a", "b"]], [{"a"}])
    with pytest.raises(ValueError, match=r"`propensity` must be None for ranked lists"):
        evaluate(lists, None, metrics=["psp@1"], propensity=[0.5, 0.5])


def test_accumulator_concat_and_intervals_keep_the_metric_weights():
    from skirm.stats import compare, describe

    y, s, groups, prop = _logs(3, n_groups=60, one_class=False)
    metrics = ["gauc", "ips_dcg@3"]
    whole = evaluate(y, s, groups=groups, metrics=metrics, propensity=prop)
    acc = MetricAccumulator(metrics)
    half = groups < 30
    acc.update(y[half], s[half], groups[half], propensity=prop[half])
    acc.update(y[~half], s[~half], groups[~half], propensity=prop[~half])
    assert acc.compute().means == pytest.approx(whole.means, rel=1e-12)
    with pytest.raises(
        ValueError, match=r"`propensity` must be given with every batch"
    ):
        acc.update(y, s, groups)
    parts = [
        evaluate(y[m], s[m], groups=groups[m], metrics=metrics, propensity=prop[m])
        for m in (half, ~half)
    ]
    merged = EvaluationResult.concat(parts)
    uniform = evaluate(
        y[half],
        s[half],
        groups=groups[half],
        metrics=metrics,
        propensity=prop[half],
        weights="uniform",
    )
    with pytest.raises(ValueError, match=r"must weight the same metrics' queries"):
        EvaluationResult.concat([uniform, parts[1]])
    assert merged.means == pytest.approx(whole.means, rel=1e-12)
    np.testing.assert_array_equal(merged.weights_of("gauc"), whole.weights_of("gauc"))
    # The interval's mean is the metric's weighted mean.
    mean = describe(whole, method="t").loc["gauc", "mean"]
    assert mean == pytest.approx(whole["gauc"], rel=1e-12)
    other = evaluate(y, s[::-1], groups=groups, metrics=metrics, propensity=prop)
    table = compare(
        {"a": whole, "b": other}, metrics=["gauc"], missing="intersect"
    ).to_frame()
    assert table.loc[table.system == "a", "mean"].item() == pytest.approx(whole["gauc"])
    with pytest.raises(ValueError, match=r"weight their queries differently"):
        compare({"a": whole, "b": other}, missing="intersect")


def test_scorers_negate_losses_and_refuse_pcoc():
    from sklearn.dummy import DummyRegressor

    X = np.zeros((6, 1))
    y = np.array([1, 0, 0, 1, 0, 1])
    groups = np.array([0, 0, 0, 1, 1, 1])
    model = DummyRegressor().fit(X, y)  # predicts the click rate everywhere
    scores = make_ranking_scorer(["ne", "gauc", "fallout@1"])(
        model, X, y, groups=groups
    )
    assert scores["ne"] == pytest.approx(-1.0)
    assert scores["gauc"] == 0.5
    # Ties averaged: 2/3 of a non-relevant row over 2, 1/3 over 1.
    assert scores["fallout@1"] == pytest.approx(-(1 / 3 + 1 / 3) / 2)
    with pytest.raises(ValueError, match=r"'pcoc' is best at a value in between"):
        make_ranking_scorer("pcoc")


@pytest.mark.parametrize("name", NEW)
def test_metrics_pickle_with_their_options(name):
    options = {k: v for k, v in _options(name)[-1].items()}
    metric = get_metric(name, **options)
    assert pickle.loads(pickle.dumps(metric)) == metric


def test_presets_of_torchrec_tf_ranking_and_lenskit():
    y = [0, 1, 2, 1, 0, 1]
    s = [0.9, 0.5, 0.5, 0.4, 0.4, 0.1]
    g = [0, 0, 0, 1, 1, 1]
    # TF-Ranking counts a tied pair as misordered: the pessimistic order.
    tf = evaluate(y, s, groups=g, metrics=["opa"], conventions="tf_ranking")
    assert (
        tf["opa"]
        == evaluate(y, s, groups=g, metrics=["opa"], ties="pessimistic")["opa"]
    )
    clicks = [0, 1, 1, 1, 0, 0]
    torchrec = evaluate(clicks, s, groups=g, metrics=["gauc"], conventions="torchrec")
    assert torchrec["gauc"] == group_auc_score(clicks, s, groups=g, weights="uniform")
    with pytest.raises(ValueError, match=r"'ndcg' has no torchrec counterpart"):
        evaluate(y, s, groups=g, metrics=["ndcg"], conventions="torchrec")
    lenskit = evaluate(clicks, s, groups=g, metrics=["ips_rbp"], conventions="lenskit")
    assert lenskit["ips_rbp"] == ips_rbp_score(
        clicks, s, groups=g, estimator="snips", p=0.85, ties="first"
    )


def test_recall_at_fixed_precision_by_hand():
    y = [1, 0, 1, 0, 0, 1, 0, 1, 1, 0]
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.9, 0.8, 0.7, 0.6, 0.5]
    g = [0] * 5 + [1] * 5
    # Mean precision@k: 1, 0.5, 0.667, 0.5, 0.4 and 1, 0.5, 0.667, 0.75, 0.6;
    # mean recall@k: 0.5/0.333, 0.5/0.333, 1/0.667, 1/1, 1/1.
    assert recall_at_fixed_precision(y, s, groups=g, min_precision=0.6) == (
        pytest.approx((1.0 + 1.0) / 2),
        4,
    )
    assert recall_at_fixed_precision(y, s, groups=g, min_precision=0.95) == (
        pytest.approx((0.5 + 1 / 3) / 2),
        1,
    )
    assert recall_at_fixed_precision(y, s, groups=g, min_precision=1.0, max_k=3) == (
        pytest.approx((0.5 + 1 / 3) / 2),
        1,
    )
    with pytest.raises(
        ValueError, match=r"`min_precision` must be a number in \[0, 1\]"
    ):
        recall_at_fixed_precision(y, s, groups=g, min_precision=2.0)


def test_dask_gives_the_numbers_of_evaluate():
    dd = pytest.importorskip("dask.dataframe")
    from skirm.dask import evaluate as dask_evaluate, per_query_frame

    y, s, groups, prop = _logs(11, n_groups=50)
    frame = pd.DataFrame({"q": groups, "c": y, "p": s, "w": prop})
    rows = dd.from_pandas(frame, npartitions=3)  # queries split across partitions
    metrics = ["gauc", "ne", "pcoc", "psp@3", "ips_dcg@3"]
    want = evaluate(y, s, groups=groups, metrics=metrics, propensity=prop)
    got = dask_evaluate(
        rows, metrics, y_true="c", y_score="p", groups="q", propensity="w"
    )
    assert got.means == pytest.approx(want.means, rel=1e-12)
    np.testing.assert_array_equal(got.weights_of("gauc"), want.weights_of("gauc"))
    lazy = per_query_frame(
        rows["c"], rows["p"], groups=rows["q"], metrics=["gauc"], propensity=rows["w"]
    ).compute()
    assert "weight gauc" in lazy.columns


def test_the_peers_documented_values():
    # The examples of the peers' own documentation, with their numbers.
    # TF-Ranking's OPAMetric and ARPMetric (their ragged lists as groups):
    assert get_metric("opa")([0, 1, 2], [3, 1, 2], groups=[0, 0, 0]) == (
        pytest.approx(1 / 3)
    )
    y, s, g = [0, 1, 1, 2, 0], [2, 1, 2, 5, 4], [0, 0, 1, 1, 1]
    assert get_metric("opa")(y, s, groups=g, ties="pessimistic") == 0.5
    assert get_metric("arp")([0, 1, 1], [3, 1, 2], groups=[0, 0, 0]) == 2.5
    assert get_metric("arp")(y, s, groups=g) == 1.75
    # torchmetrics' RetrievalAUROC, RetrievalFallOut(top_k=2) and
    # RetrievalRecallAtFixedPrecision(min_precision=0.8):
    groups = [0, 0, 0, 1, 1, 1, 1]
    preds = [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2]
    target = [0, 0, 1, 0, 1, 0, 1]
    common = dict(groups=groups, conventions="torchmetrics")
    assert evaluate(target, preds, metrics=["gauc"], **common)["gauc"] == 0.75
    assert evaluate(target, preds, metrics=["fallout@2"], **common)["fallout@2"] == 0.5
    assert recall_at_fixed_precision(
        [1, 0, 0, 1, 1, 0, 1],
        [0.4, 0.01, 0.5, 0.6, 0.2, 0.3, 0.5],
        groups=[0, 0, 0, 0, 1, 1, 1],
        min_precision=0.8,
    ) == (0.5, 1)


def test_a_grid_search_routes_propensities_to_the_scorer():
    from sklearn import config_context
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    y, s, groups, prop = _logs(5, n_groups=40, max_rows=8)
    X = np.column_stack([s, np.random.default_rng(0).normal(size=s.size)])
    scorer = make_ranking_scorer("ips_dcg@3").set_score_request(propensity=True)
    with config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(), {"alpha": [0.1, 10.0]}, scoring=scorer, cv=GroupKFold(2)
        ).fit(X, y, groups=groups, propensity=prop)
        plain = GridSearchCV(
            Ridge(),
            {"alpha": [0.1, 10.0]},
            scoring=scorer.set_score_request(propensity=False),
            cv=GroupKFold(2),
        ).fit(X, y, groups=groups)
    # Weighting the clicks by 1 / propensity moves the scores.
    assert not np.allclose(
        search.cv_results_["mean_test_score"], plain.cv_results_["mean_test_score"]
    )
