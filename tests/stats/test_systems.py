"""system_agreement: the orderings' correlations against scipy and the
recsys functions, and each pair's status against two calls of compare."""

import re

import numpy as np
import pytest
from scipy import stats

from skirm import InvalidInputError, InvalidParameterError
from skirm.metrics import evaluate
from skirm.recsys import tau_ap
from skirm.stats import compare, system_agreement


def _label_sets(seed, n_systems=6, flip=0.4):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(30), 10)
    human = rng.choice(3, size=groups.size, p=[0.6, 0.25, 0.15])
    noisy = np.where(
        rng.random(human.size) < flip, rng.integers(0, 3, human.size), human
    )
    scores = {
        f"s{i}": human + rng.normal(0, 0.4 + 0.35 * i, human.size)
        for i in range(n_systems)
    }
    a = {
        s: evaluate(human, x, groups=groups, metrics=["ndcg@10", "p@5"])
        for s, x in scores.items()
    }
    b = {
        s: evaluate(noisy, x, groups=groups, metrics=["ndcg@10", "p@5"])
        for s, x in scores.items()
    }
    return a, b


@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon"])
@pytest.mark.parametrize("seed", range(3))
def test_pairs_and_correlations_follow_compare(seed, test):
    a, b = _label_sets(seed)
    res = system_agreement(
        a, b, metric="ndcg@10", test=test, n_resamples=500, random_state=seed
    )
    means_a = np.array([a[s].per_query["ndcg@10"].mean() for s in a])
    means_b = np.array([b[s].per_query["ndcg@10"].mean() for s in a])
    np.testing.assert_allclose(res.means_a, means_a, rtol=1e-12)
    assert res.kendall_tau == pytest.approx(
        stats.kendalltau(means_b, means_a).statistic
    )
    assert res.tau_ap == pytest.approx(tau_ap(means_b, means_a))
    ca = compare(a, metrics=["ndcg@10"], test=test, n_resamples=500, random_state=seed)
    cb = compare(b, metrics=["ndcg@10"], test=test, n_resamples=500, random_state=seed)
    assert len(res.pairs) == 15
    swaps = 0
    for row, ra, rb in zip(
        res.pairs, ca.to_records("pairs"), cb.to_records("pairs"), strict=True
    ):
        assert (row["system"], row["other"]) == (ra["system"], ra["other"])
        assert row["p_adjusted_a"] == ra["p_adjusted"]
        assert row["p_adjusted_b"] == rb["p_adjusted"]
        sa, sb = ra["significant"], rb["significant"]
        same = np.sign(ra["delta"]) == np.sign(rb["delta"])
        expected = (
            ("both" if same else "reversed")
            if sa and sb
            else "only_a"
            if sa
            else "only_b"
            if sb
            else "neither"
        )
        assert row["status"] == expected
        swaps += expected in ("only_a", "only_b", "reversed")
    assert res.n_swaps == swaps
    assert sum(res.counts().values()) == 15


def test_identical_label_sets_agree_fully():
    a, _ = _label_sets(0)
    res = system_agreement(a, a, metric="p@5", random_state=0)
    assert res.kendall_tau == pytest.approx(1.0)
    assert res.n_swaps == 0
    # tied means (p@5 takes few values) leave tau_AP undefined: NaN, said in
    # its documentation
    means = res.means_a
    assert np.isnan(res.tau_ap) == (np.unique(means).size < means.size)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"metric": "map"},
            InvalidParameterError,
            "`metric` must be a metric of every result, got 'map'",
        ),
        ({"metric": "ndcg@10", "alpha": 2.0}, InvalidParameterError, "`alpha` must be"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    a, b = _label_sets(0, n_systems=3)
    with pytest.raises(error, match=re.escape(message)):
        system_agreement(a, b, random_state=0, **kwargs)


def test_bad_systems():
    a, b = _label_sets(0, n_systems=3)
    with pytest.raises(InvalidInputError, match="must hold the same systems"):
        system_agreement(a, {**b, "extra": b["s0"]}, metric="ndcg@10")
    with pytest.raises(InvalidInputError, match="at least 3 systems"):
        two = {s: a[s] for s in ["s0", "s1"]}
        system_agreement(two, two, metric="ndcg@10")
    with pytest.raises(InvalidParameterError, match="`results_b` must map"):
        system_agreement(a, [1, 2], metric="ndcg@10")
