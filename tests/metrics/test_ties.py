"""Tie policies, confirmed by brute force.

``ties="average"`` must be the exact mean of the metric over every ordering of
the rows with equal scores within a query. Here each such ordering is built
explicitly, by permuting the input rows within each (query, score) block
(``itertools.permutations`` per block, ``itertools.product`` over blocks), and
scored with ``ties="first"``, which keeps input order among ties. The mean of
those values must equal the ``ties="average"`` value, for every registered
metric, with several queries, and with ``k`` cutting through a tie block.
"""

import itertools
import math

import numpy as np
import pytest
from _impressions import IMPRESSIONS, PROBABILITY, defined, scores_for
from _reference import expected_query_value

import skirm
from skirm.metrics._registry import SPECS, get_metric, not_held

pytestmark = pytest.mark.oracle

SPEC_IDS = [spec.name for spec in SPECS]
#: Metrics without a closed form over tied orderings: ties="average" raises.
REFUSES_AVERAGE = not_held("average_ties")
AVERAGED_IDS = [name for name in SPEC_IDS if name not in REFUSES_AVERAGE]


def _option_sets(spec):
    """Option dicts worth trying for a metric (gains, thresholds, ...)."""
    if "gain" in spec.params:
        sets = [{"gain": "linear"}, {"gain": "exponential"}]
        if "log_base" in spec.params:
            sets.append({"gain": "linear", "log_base": 10})
        return sets
    if "denominator" in spec.params:
        return [{}, {"denominator": "min_k"}, {"relevance_threshold": 2}]
    if "p" in spec.params:
        return [{}, {"p": 0.5}]
    if "max_grade" in spec.params:
        return [{}, {"max_grade": 4}]
    if "relevance_threshold" not in spec.params:
        return [{}]
    return [{}, {"relevance_threshold": 2}]


def _metric_names(spec, ks):
    if not spec.takes_k:
        return [spec.name]
    return [spec.name if k is None else f"{spec.name}@{k}" for k in ks]


def _tie_orderings(y_score, groups):
    """Every row order that differs from the input only among tied rows."""
    blocks = {}
    for i, key in enumerate(zip(groups.tolist(), y_score.tolist(), strict=True)):
        blocks.setdefault(key, []).append(i)
    blocks = list(blocks.values())
    for choice in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield np.concatenate([np.array(p, dtype=np.intp) for p in choice])


def _brute_force_mean(metric, y_true, y_score, groups):
    values = [
        metric(y_true[o], y_score[o], groups=groups[o], ties="first")
        for o in _tie_orderings(y_score, groups)
    ]
    return float(np.mean(values)), len(values)


def _random_case(rng, n_groups, max_rows, n_scores=2, n_labels=4):
    sizes = rng.integers(1, max_rows + 1, size=n_groups)
    groups = np.repeat(np.array([f"q{i}" for i in range(n_groups)]), sizes)
    perm = rng.permutation(groups.shape[0])  # interleave the queries
    groups = groups[perm]
    y_true = rng.integers(0, n_labels, size=groups.shape[0]).astype(float)
    y_score = rng.integers(0, n_scores, size=groups.shape[0]).astype(float)
    return y_true, y_score, groups


def _n_orderings(y_score, groups):
    counts = {}
    for key in zip(groups.tolist(), y_score.tolist(), strict=True):
        counts[key] = counts.get(key, 0) + 1
    return math.prod(math.factorial(c) for c in counts.values())


def _cases():
    rng = np.random.default_rng(20080330)
    cases = []
    # A few hand-built cases: k cuts through a tie block, a block holding
    # every relevant row, a query that is one big block, a mix of blocks.
    cases.append(
        (
            np.array([0, 2, 1, 0, 3, 0], dtype=float),
            np.array([5, 3, 3, 3, 3, 1], dtype=float),
            np.zeros(6, dtype=int),
        )
    )
    cases.append(
        (
            np.array([1, 0, 1, 0, 0, 2, 0], dtype=float),
            np.array([1, 1, 1, 1, 1, 0, 0], dtype=float),
            np.array([7, 7, 7, 7, 7, 3, 3]),
        )
    )
    cases.append(
        (
            np.array([0, 3, 1, 0, 2], dtype=float),
            np.array([2, 2, 2, 2, 2], dtype=float),
            np.zeros(5, dtype=int),
        )
    )
    while len(cases) < 14:
        case = _random_case(rng, n_groups=int(rng.integers(1, 4)), max_rows=5)
        if 1 < _n_orderings(case[1], case[2]) <= 120:
            cases.append(case)
    return cases


CASES = _cases()


@pytest.mark.parametrize(
    "name", sorted(set(REFUSES_AVERAGE) - set(not_held("average_ties_across_cutoff")))
)
def test_average_is_refused_on_ties_where_it_has_no_closed_form(name):
    spec = next(s for s in SPECS if s.name == name)
    for y_true, y_score, groups in CASES:
        pairs = set(zip(groups.tolist(), y_score.tolist(), strict=True))
        tied = len(pairs) < len(y_score)
        for label in _metric_names(spec, (None, 3)):
            metric = get_metric(label)
            if tied:
                with pytest.raises(ValueError, match=r"no closed form; pass ties="):
                    metric(y_true, y_score, groups=groups, ties="average")
            else:
                assert metric(y_true, y_score, groups=groups) == metric(
                    y_true, y_score, groups=groups, ties="first"
                )


@pytest.mark.parametrize("name", AVERAGED_IDS)
@pytest.mark.slow
def test_average_equals_mean_over_tied_orderings(name):
    spec = next(s for s in SPECS if s.name == name)
    n_checked = 0
    for y_true, y_score, groups in CASES:
        for options in _option_sets(spec):
            for label in _metric_names(spec, (None, 1, 2, 4)):
                metric = get_metric(defined(label), **options)
                scores = scores_for(label, y_score)
                expected, n = _brute_force_mean(metric, y_true, scores, groups)
                got = metric(y_true, scores, groups=groups, ties="average")
                assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (
                    label,
                    options,
                    y_true,
                    y_score,
                    groups,
                )
                n_checked += n > 1
    assert n_checked > 0


@pytest.mark.parametrize("name", [n for n in AVERAGED_IDS if n not in IMPRESSIONS])
def test_average_with_large_tie_block_and_cut(name):
    # One query of 7 tied rows (5040 orderings), k cutting the block anywhere,
    # checked against the reference's enumeration of the block's orderings.
    spec = next(s for s in SPECS if s.name == name)
    y_true = np.array([0, 3, 1, 0, 2, 1, 0], dtype=float)
    y_score = np.zeros(7)
    groups = np.zeros(7, dtype=int)
    for options in _option_sets(spec):
        for k in (1, 2, 3, 6, None) if spec.takes_k else (None,):
            metric = get_metric(
                spec.name if k is None else f"{spec.name}@{k}", **options
            )
            params = dict(options)
            if spec.name == "err" and "max_grade" not in params:
                params["max_grade"] = 3.0
            expected = expected_query_value(
                spec.name, list(y_true), list(y_score), "average", k, **params
            )
            got = metric(y_true, y_score, groups=groups)
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (k, options)


# Hand-computed expectations over tied orderings.
@pytest.mark.parametrize(
    "function, y_true, kwargs, expected",
    [
        # One relevant row among three tied, one slot above the cut.
        (skirm.hit_rate_at_k_score, [0, 1, 0], {"k": 1}, 1 / 3),
        (skirm.hit_rate_at_k_score, [0, 1, 0], {"k": 2}, 2 / 3),
        # Its rank is 1, 2 or 3 with equal probability.
        (skirm.mean_reciprocal_rank_score, [0, 1, 0], {}, (1 + 1 / 2 + 1 / 3) / 3),
        (skirm.mean_reciprocal_rank_score, [0, 1, 0], {"k": 2}, (1 + 1 / 2) / 3),
        # Two relevant of three: relevant ranks {1,2}, {1,3}, {2,3} -> AP 1,
        # 5/6, 7/12, each with probability 1/3.
        (skirm.mean_average_precision_score, [1, 1, 0], {}, 29 / 36),
        (skirm.precision_at_k_score, [1, 1, 0], {"k": 1}, 2 / 3),
        (skirm.r_precision_score, [1, 1, 0], {}, 2 / 3),
        # DCG of [1, 0] and [0, 1], averaged.
        (skirm.dcg_score, [1, 0], {}, (1 + 1 / math.log2(3)) / 2),
        (skirm.ndcg_score, [1, 0], {}, (1 + 1 / math.log2(3)) / 2),
        # ERR with max grade 2: orders [2, 0] -> 3/4 and [0, 2] -> 3/8.
        (skirm.expected_reciprocal_rank_score, [2, 0], {}, (0.75 + 0.375) / 2),
        # RBP, p = 0.5: the relevant row sits at rank 1 or 2.
        (skirm.rank_biased_precision_score, [1, 0], {"p": 0.5}, (0.5 + 0.25) / 2),
    ],
)
def test_hand_computed_tie_expectations(function, y_true, kwargs, expected):
    n = len(y_true)
    got = function(y_true, np.ones(n), groups=np.zeros(n), **kwargs)
    assert got == pytest.approx(expected, rel=1e-12)


def test_ndcg_of_tied_equal_labels_is_exactly_one():
    # The mean of three labels of 0.1 is 0.30000000000000004 / 3, one ulp
    # above 0.1 (and that of seven labels of 0.7 one ulp above 0.7): the DCG
    # of the tied rows exceeds the ideal DCG in its last bit, and NDCG is
    # held at 1.
    for label, n in ((0.1, 3), (0.7, 7)):
        y_true, groups = np.full(n, label), np.zeros(n)
        tied = skirm.dcg_score(y_true, np.ones(n), groups=groups)
        ideal = skirm.dcg_score(y_true, -np.arange(n), groups=groups)
        assert tied > ideal
        assert skirm.ndcg_score(y_true, np.ones(n), groups=groups) == 1.0


def _rank_scores(y_score, key):
    """Distinct scores that rank rows like the tie policy ``key`` does."""
    order = np.lexsort((key, -y_score))  # the last key is the primary one
    distinct = np.empty(y_score.shape[0])
    distinct[order] = -np.arange(y_score.shape[0], dtype=float)
    return distinct


# The metrics of probabilities read the scores' values, which the explicit
# orders below replace: their orders are checked in test_impressions.py.
@pytest.mark.parametrize("name", [n for n in SPEC_IDS if n not in PROBABILITY])
def test_first_optimistic_pessimistic_are_explicit_orders(name):
    spec = next(s for s in SPECS if s.name == name)
    for y_true, y_score, groups in CASES:
        n = y_true.shape[0]
        position = np.arange(n)
        expected_orders = {
            "first": position,  # input order among ties
            "optimistic": -y_true,  # higher labels first
            "pessimistic": y_true,  # lower labels first
        }
        for options in _option_sets(spec):
            for label in _metric_names(spec, (None, 1, 3)):
                metric = get_metric(defined(label), **options)
                for ties, key in expected_orders.items():
                    # Within a tie block, labels equal under the key may sit in
                    # any order: they do not change the value.
                    distinct = _rank_scores(y_score, key)
                    expected = metric(y_true, distinct, groups=groups, ties="first")
                    got = metric(y_true, y_score, groups=groups, ties=ties)
                    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), (
                        label,
                        ties,
                    )
                if name in REFUSES_AVERAGE or name in not_held("optimistic_is_best"):
                    # No mean over tied orderings, and "higher labels first"
                    # need not be the best order for an adaptive user.
                    continue
                best = metric(y_true, y_score, groups=groups, ties="optimistic")
                mean = metric(y_true, y_score, groups=groups, ties="average")
                worst = metric(y_true, y_score, groups=groups, ties="pessimistic")
                if spec.measure.better == "lower":  # the best order scores least
                    best, worst = worst, best
                assert worst - 1e-12 <= mean <= best + 1e-12, label


def test_first_follows_input_order_and_average_does_not():
    y_true = np.array([0, 1, 0, 1])
    y_score = np.ones(4)
    groups = np.zeros(4, dtype=int)
    flipped = y_true[::-1].copy()
    first = skirm.mean_reciprocal_rank_score(
        y_true, y_score, groups=groups, ties="first"
    )
    first_flipped = skirm.mean_reciprocal_rank_score(
        flipped, y_score, groups=groups, ties="first"
    )
    assert (first, first_flipped) == (0.5, 1.0)
    assert skirm.mean_reciprocal_rank_score(
        y_true, y_score, groups=groups
    ) == skirm.mean_reciprocal_rank_score(flipped, y_score, groups=groups)


def test_ties_are_exact_equality_of_scores():
    # Scores that differ by one ulp are not tied.
    y_score = np.array([1.0, np.nextafter(1.0, 2.0)])
    got = skirm.mean_reciprocal_rank_score([1, 0], y_score, groups=[0, 0])
    assert got == 0.5
    tied = skirm.mean_reciprocal_rank_score([1, 0], [1.0, 1.0], groups=[0, 0])
    assert tied == 0.75


def test_infinite_scores_tie_with_each_other():
    y_score = np.array([np.inf, np.inf, -np.inf, -np.inf])
    got = skirm.precision_at_k_score([0, 1, 1, 0], y_score, groups=[0] * 4, k=1)
    assert got == 0.5
