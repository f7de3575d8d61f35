"""Beyond-accuracy metrics and ranking agreement, against slow references.

Every reference below is a plain Python loop written from the published
definition (sets for coverage and overlap, the mean absolute difference for
the Gini index, explicit pairs for diversity and tau-AP). The ``rbo``
package pins numpy < 2 and recmetrics pulls plotting stacks, so neither is
used as an oracle here.
"""

import itertools
import math

import numpy as np
import pytest

from skirm.recsys import (
    average_popularity,
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    kendall_tau,
    novelty,
    rank_biased_overlap,
    tau_ap,
)


def _recs(seed, n_users=40, n_items=60, depth=15):
    rng = np.random.default_rng(seed)
    pop = rng.zipf(1.6, size=n_items).clip(1, n_users)
    probs = pop / pop.sum()
    lists = [
        rng.choice(
            n_items, size=int(rng.integers(0, depth)), replace=False, p=probs
        ).tolist()
        for _ in range(n_users)
    ]
    lists[0] = lists[0] or [0, 1]
    features = rng.normal(size=(n_items, 5))
    return lists, dict(enumerate(pop.tolist())), dict(enumerate(features)), n_users


def _top(lists, k):
    return [items if k is None else items[:k] for items in lists]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 1, 5])
def test_beyond_accuracy_metrics_match_slow_references(seed, k):
    lists, pop, features, n_users = _recs(seed)
    top = _top(lists, k)
    catalog = [*range(60), 100, 101]
    shown = {i for items in top for i in items}
    assert catalog_coverage(lists, catalog=catalog, k=k) == pytest.approx(
        len(shown) / len(catalog), abs=1e-15
    )
    exposure = [sum(i in items for items in top) for i in catalog]
    n, mean = len(exposure), np.mean(exposure)
    mad = sum(abs(a - b) for a in exposure for b in exposure)
    assert gini_index(lists, catalog=catalog, k=k) == pytest.approx(
        mad / (2 * n * n * mean), abs=1e-12
    )
    used = [items for items in top if items]
    want = np.mean([np.mean([math.log2(n_users / pop[i]) for i in it]) for it in used])
    got = novelty(lists, item_popularity=pop, n_users=n_users, k=k)
    assert got == pytest.approx(want, abs=1e-12)
    want = np.mean([np.mean([pop[i] for i in items]) for items in used])
    assert average_popularity(lists, item_popularity=pop, k=k) == pytest.approx(want)
    pairs = []
    for items in top:
        if len(items) < 2:
            continue
        dist = [
            1
            - np.dot(features[a], features[b])
            / (np.linalg.norm(features[a]) * np.linalg.norm(features[b]))
            for a, b in itertools.combinations(items, 2)
        ]
        pairs.append(np.mean(dist))
    if k == 1:  # no list of one item has a pair
        with pytest.raises(ValueError, match=r"no list has two items"):
            intra_list_diversity(lists, item_features=features, k=k)
        return
    got = intra_list_diversity(lists, item_features=features, k=k)
    assert got == pytest.approx(np.mean(pairs), abs=1e-12)


def test_item_tables_in_every_form():
    pd = pytest.importorskip("pandas")
    lists = [["a", "b"], ["c"]]
    pop = {"a": 3, "b": 1, "c": 2}
    series = pd.Series(pop)
    pair = (np.array(list(pop)), np.array(list(pop.values())))
    values = {
        average_popularity(lists, item_popularity=table)
        for table in (pop, series, pair)
    }
    assert values == {2.0}
    padded = np.array([[1, 2], [3, -1]])
    assert catalog_coverage(padded, catalog=[1, 2, 3, 4], padding=-1) == 0.75
    frame = pd.DataFrame({"x": [1.0, 0.0], "y": [0.0, 1.0]}, index=["a", "b"])
    assert intra_list_diversity([["a", "b"]], item_features=frame) == 1.0


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: catalog_coverage([["z"]], catalog=["a"]),
            ValueError,
            r"item 'z' of `y_pred` is missing from `catalog`",
        ),
        (
            lambda: catalog_coverage([["a"]], catalog=["a", "a"]),
            ValueError,
            r"`catalog` names an item twice",
        ),
        (lambda: gini_index([[]], catalog=["a"]), ValueError, r"every list is empty"),
        (
            lambda: novelty([["a"]], item_popularity={"a": 0}, n_users=3),
            ValueError,
            r"counts of recommended items must be in \[1, n_users=3\], got 0",
        ),
        (
            lambda: novelty([["a"]], item_popularity={"a": 1}, n_users=0),
            ValueError,
            r"`n_users` must be a positive integer",
        ),
        (
            lambda: average_popularity([["a"]], item_popularity=[1]),
            TypeError,
            r"`item_popularity` must be a dict",
        ),
        (
            lambda: average_popularity([["a"]], item_popularity={"a": "x"}),
            TypeError,
            r"values must be real numbers",
        ),
        (
            lambda: intra_list_diversity(
                [["a", "b"]], item_features={"a": [0, 0], "b": [1, 0]}
            ),
            ValueError,
            r"item 'a' is the zero vector",
        ),
        (
            lambda: intra_list_diversity([["a"]], item_features={"a": [1, 0]}),
            ValueError,
            r"no list has two items",
        ),
        (
            lambda: intra_list_diversity([["a"]], item_features={"a": 1.0}),
            ValueError,
            r"one vector per item",
        ),
        (
            lambda: catalog_coverage([["a"]], catalog=["a"], k=0),
            ValueError,
            r"`k` must be a positive integer or None, got 0",
        ),
        (
            lambda: catalog_coverage([[1]], catalog=["a"]),
            TypeError,
            r"mutually comparable",
        ),
    ],
)
def test_recsys_errors_name_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def _rbo_reference(a, b, p, extrapolate):
    """Webber et al. (2010) eqs. 30 and 32, with prefix sets."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, n = len(short), len(long_)

    def x(d):
        return len(set(short[: min(d, s)]) & set(long_[:d]))

    if not extrapolate:
        return (1 - p) * sum(p ** (d - 1) * x(d) / d for d in range(1, n + 1))
    if s == 0:
        return 0.0
    total = sum(x(d) / d * p**d for d in range(1, n + 1))
    total += sum(x(s) * (d - s) / (s * d) * p**d for d in range(s + 1, n + 1))
    return (1 - p) / p * total + ((x(n) - x(s)) / n + x(s) / s) * p**n


@pytest.mark.parametrize("seed", range(20))
def test_rank_biased_overlap_matches_the_paper(seed):
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(30)]
    a = rng.permutation(items)[: rng.integers(0, 25)].tolist()
    b = rng.permutation(items)[: rng.integers(1, 25)].tolist()
    for p in (0.5, 0.9, 0.98):
        for extrapolate in (True, False):
            got = rank_biased_overlap(a, b, p=p, extrapolate=extrapolate)
            want = _rbo_reference(a, b, p, extrapolate)
            assert got == pytest.approx(want, abs=1e-12)
            assert rank_biased_overlap(b, a, p=p, extrapolate=extrapolate) == got


def test_rank_biased_overlap_bounds():
    assert rank_biased_overlap([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert rank_biased_overlap([1, 2, 3], [4, 5, 6]) == 0.0
    # The observed part of RBO on identical lists is 1 - p^l.
    assert rank_biased_overlap([1, 2], [1, 2], p=0.5, extrapolate=False) == 0.75
    with pytest.raises(ValueError, match=r"`a` names an item twice"):
        rank_biased_overlap([1, 1], [1, 2])
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\), got 1"):
        rank_biased_overlap([1], [1], p=1)
    with pytest.raises(ValueError, match=r"must not both be empty"):
        rank_biased_overlap([], [])


def _kendall_reference(x, y):
    conc = disc = tx = ty = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tx += 1
        elif dy == 0:
            ty += 1
        elif dx == dy:
            conc += 1
        else:
            disc += 1
    return (conc - disc) / math.sqrt((conc + disc + tx) * (conc + disc + ty))


def _tau_ap_reference(x, y):
    order = sorted(range(len(x)), key=lambda i: -x[i])
    total = 0.0
    for pos in range(1, len(order)):
        here = order[pos]
        correct = sum(y[order[j]] > y[here] for j in range(pos))
        total += correct / pos
    return 2 * total / (len(x) - 1) - 1


@pytest.mark.parametrize("seed", range(10))
def test_kendall_tau_and_tau_ap_match_slow_references(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    x = rng.permutation(n).astype(float)
    y = x + rng.normal(scale=n / 4, size=n)
    ties = np.round(y / 3)
    assert kendall_tau(x, ties) == pytest.approx(_kendall_reference(x, ties), abs=1e-12)
    assert tau_ap(x, y) == pytest.approx(_tau_ap_reference(x, y), abs=1e-12)
    sym = (_tau_ap_reference(x, y) + _tau_ap_reference(y, x)) / 2
    assert tau_ap(x, y, symmetric=True) == pytest.approx(sym, abs=1e-12)
    assert tau_ap(x, x) == 1.0 and tau_ap(x, -x) == pytest.approx(-1.0)


def test_agreement_errors():
    with pytest.raises(ValueError, match=r"`y` must score the same systems as `x`"):
        kendall_tau([1, 2, 3], [1, 2])
    with pytest.raises(
        ValueError, match=r"`x` must order the systems without ties, got 2.0 twice"
    ):
        tau_ap([1, 2, 2], [1, 2, 3])
    with pytest.raises(TypeError, match=r"`x` must be a 1-D array of numbers"):
        tau_ap(["a", "b"], [1, 2])
    with pytest.raises(ValueError, match=r"at least 2 systems"):
        kendall_tau([1], [1])
