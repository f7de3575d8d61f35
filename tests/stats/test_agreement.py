"""label_agreement against scikit-learn, statsmodels, the krippendorff
package and a slow per-item reference of Gwet's formulas, pooled and per
query, on generated cases that vary one dimension at a time."""

import re
import warnings

import numpy as np
import pytest

from skirm import InvalidInputError, InvalidParameterError
from skirm.stats import label_agreement

#: The base case; each generated case changes one of these.
BASE = {"n_judges": 3, "n_categories": 4, "missing": 0.0, "skew": 0.0, "single": 0.0}
VARIED = [
    ("n_judges", 2),
    ("n_judges", 5),
    ("n_categories", 2),
    ("n_categories", 7),
    ("missing", 0.3),
    ("skew", 0.85),
    ("single", 0.4),
]
CASES = [dict(BASE)] + [{**BASE, key: value} for key, value in VARIED]
CASE_IDS = ["base"] + [f"{key}={value}" for key, value in VARIED]


def _case(seed, n_judges, n_categories, missing, skew, single, n_queries=12):
    """Labels (items x judges) near a hidden truth, with NaN for missing
    judgements; ``skew``: share of items whose truth is category 0;
    ``single``: share of queries where every judge gives category 0."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, n_queries)
    groups = np.repeat(np.arange(n_queries), sizes)
    n = groups.size
    truth = rng.integers(0, n_categories, n)
    truth[rng.random(n) < skew] = 0
    noise = rng.integers(-1, 2, (n, n_judges)) * (rng.random((n, n_judges)) < 0.4)
    labels = np.clip(truth[:, None] + noise, 0, n_categories - 1).astype(float)
    labels[np.isin(groups, np.flatnonzero(rng.random(n_queries) < single))] = 0.0
    labels[rng.random(labels.shape) < missing] = np.nan
    labels[0, :2] = [0, n_categories - 1]  # every case holds two categories
    return labels, groups


def _quiet(function, *args, **kwargs):
    """An oracle's value, NaN where it warns or refuses (undefined)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(function(*args, **kwargs))
        except (ValueError, ZeroDivisionError):
            return np.nan


def _agreement(labels, **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "agreement is undefined", RuntimeWarning)
        return label_agreement(labels, n_resamples=50, random_state=0, **kwargs)


def _check_per_query(result, groups, oracle):
    expected = np.array([oracle(groups == q) for q in result.query_ids])
    np.testing.assert_allclose(result.per_query, expected, rtol=1e-10, atol=1e-12)
    return expected


# --------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cohen_equals_scikit_learn(case, weights):
    from sklearn.metrics import cohen_kappa_score

    labels, groups = _case(1, **case)
    labels = labels[:, :2]
    result = _agreement(labels, groups=groups, method="cohen", weights=weights)
    categories = np.unique(labels[~np.isnan(labels)])

    def oracle(rows):
        both = rows & ~np.isnan(labels).any(axis=1)
        if not both.any():
            return np.nan
        a, b = labels[both, 0], labels[both, 1]
        return _quiet(cohen_kappa_score, a, b, labels=categories, weights=weights)

    pooled = oracle(np.ones(len(groups), dtype=bool))
    assert result.value == pytest.approx(pooled, rel=1e-12)
    _check_per_query(result, groups, oracle)


@pytest.mark.oracle
@pytest.mark.parametrize("case", [c for c in CASES if c["missing"] == 0], ids=str)
def test_fleiss_equals_statsmodels(case):
    from statsmodels.stats.inter_rater import fleiss_kappa

    labels, groups = _case(2, **case)
    result = _agreement(labels, groups=groups, method="fleiss")
    categories = np.unique(labels)
    table = (labels[:, :, None] == categories).sum(axis=1)

    def oracle(rows):
        return _quiet(fleiss_kappa, table[rows])

    assert result.value == pytest.approx(oracle(slice(None)), rel=1e-12)
    _check_per_query(result, groups, oracle)


@pytest.mark.oracle
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_krippendorff_equals_the_package(case, level):
    import krippendorff

    labels, groups = _case(3, **{**case, "missing": max(case["missing"], 0.15)})
    labels = labels + 1.0  # ratio distances need no zero in the scale
    result = _agreement(labels, groups=groups, method="krippendorff", level=level)

    def oracle(rows):
        return _quiet(krippendorff.alpha, labels[rows].T, level_of_measurement=level)

    assert result.value == pytest.approx(oracle(slice(None)), rel=1e-10)
    _check_per_query(result, groups, oracle)


# --------------------------------------------------------------------------
# Gwet: a slow per-item reference written from Gwet (2014), section 4.1
# --------------------------------------------------------------------------


def _gwet_reference(labels, weights, x):
    """AC1 (AC2 with weights) of several raters with missing ratings, item by
    item, on the scale of categories ``x``."""
    q = len(x)
    span = x[-1] - x[0]
    power = {None: None, "linear": 1, "quadratic": 2}[weights]
    w = [
        [
            (1.0 if k == m else 0.0)
            if power is None
            else 1 - (abs(x[k] - x[m]) / span) ** power
            for m in range(q)
        ]
        for k in range(q)
    ]
    rows = [[v for v in row if not np.isnan(v)] for row in labels]
    pairable = [r for r in rows if len(r) >= 2]
    if not pairable:
        return np.nan
    pa = 0.0
    for r in pairable:
        counts = [r.count(x[k]) for k in range(q)]
        for k in range(q):
            star = sum(w[k][m] * counts[m] for m in range(q))
            pa += counts[k] * (star - 1) / (len(r) * (len(r) - 1))
    pa /= len(pairable)
    present = [r for r in rows if r]
    pi = [sum(r.count(x[k]) / len(r) for r in present) / len(present) for k in range(q)]
    pe = sum(map(sum, w)) / (q * (q - 1)) * sum(p * (1 - p) for p in pi)
    return (pa - pe) / (1 - pe)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_gwet_equals_the_per_item_reference(case, weights):
    labels, groups = _case(4, **{**case, "missing": max(case["missing"], 0.1)})
    result = _agreement(labels, groups=groups, method="gwet", weights=weights)
    x = list(np.unique(labels[~np.isnan(labels)]))
    assert result.value == pytest.approx(_gwet_reference(labels, weights, x), rel=1e-12)

    def oracle(rows):
        return _gwet_reference(labels[rows], weights, x)

    _check_per_query(result, groups, oracle)


# --------------------------------------------------------------------------
# Undefined queries, the interval, bad input
# --------------------------------------------------------------------------


def test_a_query_in_one_category_is_nan_with_a_warning():
    labels = np.array([[0, 0], [1, 1], [1, 0], [2, 2], [2, 2], [0, np.nan]])
    groups = [1, 1, 1, 2, 2, 3]
    with pytest.warns(RuntimeWarning, match=r"undefined in 2 of 3 queries"):
        result = label_agreement(labels, groups=groups, random_state=0)
    assert np.isnan(result.per_query[1:]).all()
    assert result.n_undefined == 2
    # Gwet's AC1 is defined (1) where every label agrees in one category
    gwet = label_agreement(labels[:5], groups=groups[:5], method="gwet", random_state=0)
    assert gwet.per_query[1] == 1.0


def test_skewed_labels_keep_ac1_high_where_kappa_drops():
    labels = np.array([[0, 0]] * 18 + [[1, 0], [0, 1]], dtype=float)
    kappa = label_agreement(labels, method="cohen", random_state=0).value
    ac1 = label_agreement(labels, method="gwet", random_state=0).value
    assert kappa == pytest.approx(-1 / 19)
    assert ac1 > 0.8


def test_the_interval_is_seeded_and_draws_queries():
    labels, groups = _case(5, **BASE)
    first = label_agreement(labels, groups=groups, random_state=7, n_resamples=200)
    again = label_agreement(labels, groups=groups, random_state=7, n_resamples=200)
    assert first.confidence_interval == again.confidence_interval
    low, high = first.confidence_interval
    assert low < first.value < high
    assert first.random_state == 7 and first.n_resamples == 200
    # the draws of queries: a per-item bootstrap gives another interval
    items = label_agreement(labels, random_state=7, n_resamples=200)
    assert items.value == first.value and items.per_query is None
    assert items.confidence_interval != first.confidence_interval
    assert "Krippendorff's alpha (nominal)" in str(first)


def test_the_interval_equals_a_loop_over_draws():
    labels, groups = _case(6, **BASE)
    result = label_agreement(
        labels, groups=groups, method="fleiss", n_resamples=30, random_state=3
    )
    rng = np.random.default_rng(3)
    draws = []
    for index in rng.integers(0, 12, size=(30, 12)):
        rows = np.concatenate([np.flatnonzero(groups == q) for q in index])
        drawn = label_agreement(labels[rows], method="fleiss", random_state=0)
        draws.append(drawn.value)
    expected = np.quantile(draws, [0.025, 0.975])
    np.testing.assert_allclose(result.confidence_interval, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("labels", "kwargs", "error", "message"),
    [
        ([[1, 1], [1, 1]], {}, InvalidInputError, "at least two distinct categories"),
        (
            [[0, np.nan], [np.nan, 1], [1, np.nan]],
            {},
            InvalidInputError,
            "no item labelled by two judges (the judges do not overlap)",
        ),
        ([0, 1, 1], {}, InvalidInputError, "`labels` must be a 2-D array"),
        ([[0, 1, 1], [1, 1, 0]], {"method": "cohen"}, InvalidInputError, "2 columns"),
        ([[0, 1], [1, 1]], {"groups": [1]}, InvalidInputError, "`groups` must hold"),
        ([[0, np.inf], [1, 1]], {}, InvalidInputError, "finite labels or NaN"),
        (
            [[0, 1], [1, 1]],
            {"method": "cohen", "level": "ordinal"},
            InvalidParameterError,
            "`level` applies to method='krippendorff' only",
        ),
        (
            [[0, 1], [1, 1]],
            {"method": "fleiss", "weights": "linear"},
            InvalidParameterError,
            "`weights` applies to method='cohen' or 'gwet'",
        ),
        (
            [[0, 0], [0, 0], [1, np.nan]],
            {"method": "cohen"},
            InvalidInputError,
            "chance agreement is complete",
        ),
        ([[0, 1]], {"method": "kappa"}, InvalidParameterError, "`method` must be"),
    ],
)
def test_bad_input_names_the_argument(labels, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        label_agreement(np.array(labels, dtype=float), random_state=0, **kwargs)


def _fleiss_reference(labels):
    """Fleiss' kappa item by item, each item with its own number of labels
    (items with fewer than two left out)."""
    rows = [[v for v in row if not np.isnan(v)] for row in labels]
    rows = [r for r in rows if len(r) >= 2]
    x = sorted({v for r in rows for v in r})
    agree = [
        (sum(r.count(c) ** 2 for c in x) - len(r)) / (len(r) * (len(r) - 1))
        for r in rows
    ]
    total = sum(len(r) for r in rows)
    shares = [sum(r.count(c) for r in rows) / total for c in x]
    chance = sum(p * p for p in shares)
    return (np.mean(agree) - chance) / (1 - chance)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_fleiss_with_missing_labels_equals_the_per_item_reference(case):
    labels, groups = _case(7, **{**case, "missing": max(case["missing"], 0.2)})
    result = _agreement(labels, groups=groups, method="fleiss")
    assert result.value == pytest.approx(_fleiss_reference(labels), rel=1e-12)


@pytest.mark.parametrize(
    ("groups", "shown"),
    [
        ([1, None, 1, 2, 2, 2], "None"),
        ([1.0, np.nan, 1.0, 2.0, 2.0, 2.0], "NaN"),
        (np.array(["a", None, "a", "b", "b", "b"], dtype=object), "None"),
    ],
)
def test_missing_group_ids_are_refused_regression(groups, shown):
    """Issue 51, item 10: None ended in numpy's "'<' not supported", and NaN
    became a query of its own; a missing query id is refused, naming
    ``groups``."""
    labels = np.array([[1, 1], [0, 1], [1, 0], [0, 0], [1, 1], [0, 0]])
    with pytest.raises(
        InvalidInputError,
        match=rf"`groups` must not contain missing values, got {shown} at index 1",
    ):
        label_agreement(labels, groups=groups, method="cohen")


def test_group_ids_of_any_container_name_the_same_queries():
    labels = np.array([[1, 1], [0, 1], [1, 0], [0, 0], [1, 1], [0, 0]])
    ids = [7, 7, 7, 9, 9, 9]
    want = label_agreement(labels, groups=ids, method="cohen")
    for groups in (np.array(ids), np.array(ids, dtype=object), tuple(ids)):
        got = label_agreement(labels, groups=groups, method="cohen")
        assert got.query_ids.tolist() == [7, 9]
        np.testing.assert_array_equal(got.per_query, want.per_query)
