"""Registry-driven common tests: every registered metric, the same checks.

Invariances (row permutation, group relabelling, strictly increasing score
transforms), bounds, the ideal ranking, ``k`` beyond every query, the return
type, untouched inputs, agreement of the three entry points (function,
``get_metric``, ``evaluate``), the registry's classification and name parsing,
and every bad input of the specification raising with a message that names
the argument.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from _reference import query_value

from skirm.metrics import evaluate, get_metric, metric_names
from skirm.metrics._registry import SPECS, not_held

SPEC_IDS = [spec.name for spec in SPECS]
BOUNDED = [spec for spec in SPECS if spec.bounded]
TIES = ("average", "first", "optimistic", "pessimistic")
NO_RELEVANT = (0.0, 1.0, 0.5, "skip")


def _ties(spec, policies=TIES):
    """The tie policies ``spec`` computes on tied scores (see not_held)."""
    if spec.name in not_held("average_ties"):
        return tuple(p for p in policies if p != "average")
    return policies


def _spec(name):
    return next(spec for spec in SPECS if spec.name == name)


#: Metrics that read y_score as probabilities in [0, 1] (NE, PCOC, ECE).
PROBABILITY = not_held("score_transform")


def _scored(spec, y_score):
    """Scores the metric reads: for a metric of probabilities, the scores
    mapped into (0, 1) by a strictly increasing map (ties kept); the others
    as they are."""
    y_score = np.asarray(y_score, dtype=float)
    if spec.name not in PROBABILITY:
        return y_score
    low, high = np.min(y_score), np.max(y_score)
    return (y_score - low + 1.0) / (high - low + 2.0)


def _names(spec, ks=(None, 1, 3)):
    if not spec.takes_k:
        return [spec.name]
    return [spec.name if k is None else f"{spec.name}@{k}" for k in ks]


def _data(seed=0, n_groups=6, max_rows=9, n_scores=4, empty_query=True):
    """Interleaved queries with frequent ties; one query without relevant rows."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    y_true = rng.integers(0, 4, size=groups.shape[0]).astype(float)
    y_true[groups == 0] = 0.0 if empty_query else 1.0
    y_true[groups == 1] = np.maximum(y_true[groups == 1], 1.0)
    y_score = rng.integers(0, n_scores, size=groups.shape[0]).astype(float)
    perm = rng.permutation(groups.shape[0])
    return y_true[perm], y_score[perm], groups[perm]


# --------------------------------------------------------------------------
# Classification and names
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", SPEC_IDS)
def test_every_spec_is_classified(name):
    spec = _spec(name)
    assert spec.kind in ("binary", "graded", "judgement")
    assert isinstance(spec.takes_k, bool)
    assert isinstance(spec.bounded, bool)
    assert isinstance(spec.definition, str) and spec.definition.strip()
    assert callable(spec.function) and callable(spec.kernel)
    assert spec.function.__doc__ and "Examples" in spec.function.__doc__
    # Binary metrics take a relevance threshold, graded ones do not.
    assert ("relevance_threshold" in spec.params) == (spec.kind == "binary")
    for alias in spec.names:
        assert get_metric(alias).spec is spec
        assert alias in metric_names()
        if spec.takes_k:
            assert f"{alias}@k" in metric_names()
            assert get_metric(f"{alias}@7").k == 7
        else:
            assert f"{alias}@k" not in metric_names()


def test_registry_names_are_unique_and_complete():
    names = [n for spec in SPECS for n in spec.names]
    assert len(names) == len(set(names))
    assert {s.name for s in SPECS} == {
        "ndcg",
        "dcg",
        "cg",
        "precision",
        "recall",
        "r_cap",
        "f1",
        "hit_rate",
        "r_precision",
        "mrr",
        "map",
        "judged",
        "err",
        "rbp",
        "accuracy",
        "compat",
        "inst",
        "insq",
        "bpm",
        "nerr8",
        "nerr9",
        "nerr10",
        "nerr11",
        "sdcg",
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
    }
    assert metric_names() == sorted(metric_names())
    for alias, canonical in [
        ("p", "precision"),
        ("r", "recall"),
        ("success", "hit_rate"),
        ("rprec", "r_precision"),
        ("NDCG", "ndcg"),
        ("P@5", "precision"),
    ]:
        assert get_metric(alias).spec.name == canonical


def test_unknown_metric_lists_valid_names():
    with pytest.raises(ValueError, match=r"unknown measure.*valid names:.*ndcg@k"):
        get_metric("ndgc@10")
    with pytest.raises(ValueError, match=r"unknown measure.*rprec"):
        get_metric("auc")


def test_cutoff_on_metric_without_k_is_rejected():
    with pytest.raises(ValueError, match=r"'r_precision' takes no cutoff"):
        get_metric("r_precision@5")
    with pytest.raises(ValueError, match=r"takes no cutoff"):
        get_metric("rprec@1")


@pytest.mark.parametrize(
    "name",
    [
        "ndcg@0",
        "ndcg@",
        "ndcg@-1",
        "ndcg@01",
        "@5",
        "ndcg@5.0",
        " ndcg",
        "ndcg@5@3",
        "ndcg@k",
        "",
        "ndcg 10",
        "5ndcg",
    ],
)
def test_malformed_metric_names_are_rejected(name):
    with pytest.raises(ValueError, match=r"malformed measure name"):
        get_metric(name)


def test_metric_name_must_be_a_string():
    with pytest.raises(TypeError, match=r"metric name must be a string"):
        get_metric(10)


def test_unknown_option_for_a_metric():
    with pytest.raises(TypeError, match=r"ndcg got unexpected option\(s\) \['p'\]"):
        get_metric("ndcg@5", p=0.5)


# --------------------------------------------------------------------------
# Invariances
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", SPEC_IDS)
def test_row_permutation_invariance(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(1)
    y_score = _scored(spec, y_score)
    perm = np.random.default_rng(2).permutation(y_true.shape[0])
    for label in _names(spec):
        metric = get_metric(label)
        # "first" depends on the input order among ties, by definition.
        for ties in _ties(spec, ("average", "optimistic", "pessimistic")):
            for no_relevant in NO_RELEVANT:
                a = metric(
                    y_true, y_score, groups=groups, ties=ties, no_relevant=no_relevant
                )
                b = metric(
                    y_true[perm],
                    y_score[perm],
                    groups=groups[perm],
                    ties=ties,
                    no_relevant=no_relevant,
                )
                assert a == pytest.approx(b, rel=1e-12, abs=1e-15), (label, ties)


def _relabellings(groups):
    """Other label sets for the same partition of the rows."""
    ids = np.unique(groups)
    yield "strings", np.array([f"query {g}" for g in groups])
    yield "non_contiguous", groups * 1000 - 7
    yield "negative", -groups - 1
    yield "reversed_order", (ids.max() - groups)
    yield "large_ints", groups.astype(np.int64) * (2**40) + 3
    yield "uint8", groups.astype(np.uint8)
    yield "floats", groups * 0.5 + 0.25
    yield "objects", np.array([f"o{g}" for g in groups], dtype=object)
    yield "list", [int(g) for g in groups]
    yield (
        "series",
        pd.Series([f"s{g}" for g in groups], index=np.arange(len(groups))[::-1]),
    )
    yield "categorical", pd.Categorical([f"c{g}" for g in groups])
    yield "categorical_series", pd.Series(pd.Categorical(groups % 7 * 10 + groups))


@pytest.mark.parametrize("name", SPEC_IDS)
def test_group_relabelling_invariance(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(3)
    y_score = _scored(spec, y_score)
    for label in _names(spec):
        metric = get_metric(label)
        for ties in _ties(spec):
            expected = metric(y_true, y_score, groups=groups, ties=ties)
            for kind, relabelled in _relabellings(groups):
                got = metric(y_true, y_score, groups=relabelled, ties=ties)
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), (
                    label,
                    ties,
                    kind,
                )


@pytest.mark.parametrize("name", SPEC_IDS)
def test_contiguous_and_interleaved_layouts_agree(name):
    # The same queries, rows sorted by query or interleaved across queries.
    spec = _spec(name)
    y_true, y_score, groups = _data(4)
    y_score = _scored(spec, y_score)
    order = np.argsort(groups, kind="stable")
    for label in _names(spec):
        metric = get_metric(label)
        for ties in _ties(spec):  # a stable sort keeps input order among ties
            a = metric(y_true, y_score, groups=groups, ties=ties)
            b = metric(y_true[order], y_score[order], groups=groups[order], ties=ties)
            assert a == pytest.approx(b, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", [n for n in SPEC_IDS if n not in PROBABILITY])
def test_strictly_increasing_score_transform_invariance(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(5)
    y_score = y_score + np.random.default_rng(6).integers(0, 2, y_score.shape) * 0.25
    transforms = [
        lambda s: 3.0 * s - 11.0,
        lambda s: np.exp(s / 2.0),
        lambda s: s**3,
        lambda s: np.where(s == s.max(), np.inf, s),  # the top score becomes inf
        lambda s: np.where(s == s.min(), -np.inf, s),
    ]
    for label in _names(spec):
        metric = get_metric(label)
        for ties in _ties(spec):
            expected = metric(y_true, y_score, groups=groups, ties=ties)
            for transform in transforms:
                got = metric(y_true, transform(y_score), groups=groups, ties=ties)
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), label


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", [s.name for s in BOUNDED])
def test_bounded_metrics_lie_in_unit_interval(name):
    spec = _spec(name)
    for seed in range(8):
        y_true, y_score, groups = _data(10 + seed, n_scores=2 + seed % 3)
        y_score = _scored(spec, y_score)
        for label in _names(spec, (None, 1, 2, 5, 50)):
            metric = get_metric(label)
            for ties in _ties(spec):
                for no_relevant in NO_RELEVANT:
                    value = metric(
                        y_true,
                        y_score,
                        groups=groups,
                        ties=ties,
                        no_relevant=no_relevant,
                    )
                    assert 0.0 <= value <= 1.0, (label, ties, no_relevant)
                # Per query too.
                result = evaluate(
                    y_true, y_score, groups=groups, metrics=[label], ties=ties
                )
                values = result.per_query[label]
                values = values[~np.isnan(values)]  # queries left out
                assert np.all((values >= 0) & (values <= 1))


def _ideal_value(spec, k, labels):
    """What the ideal ordering of one query scores, by the metric's definition."""
    R = int(np.sum(labels > 0))
    n = labels.shape[0]
    depth = n if k is None else k
    if spec.name == "precision":
        return min(R, depth) / depth
    if spec.name == "f1":
        return 2.0 * min(R, depth) / (depth + R)
    if spec.name in ("recall", "ips_recall"):
        return min(R, depth) / R
    if spec.name == "map":
        return min(R, depth) / R
    if spec.name == "rbp":
        return 1.0 - 0.8 ** min(R, depth)
    if spec.name == "err":
        return query_value("err", sorted(labels, reverse=True), k, max_grade=3.0)
    # Normalised metrics: the ideal ordering scores exactly 1.
    return 1.0


@pytest.mark.parametrize(
    "name", [s.name for s in BOUNDED if s.name not in not_held("ideal_is_one")]
)
def test_ideal_ranking(name):
    # Scores equal to the labels rank every query ideally (ties among equal
    # labels change nothing). Normalised metrics (ndcg, r_cap, hit_rate,
    # r_precision, mrr) score 1 at every k; the others reach their ideal value.
    spec = _spec(name)
    y_true, _, groups = _data(20, empty_query=False)
    y_true[0] = 3.0  # the largest grade occurs, for ERR's default max_grade
    ids = np.unique(groups)
    assert all((y_true[groups == g] > 0).any() for g in ids)
    for label in _names(spec, (None, 1, 2, 4, 20)):
        metric = get_metric(label)
        expected = np.mean(
            [_ideal_value(spec, metric.k, y_true[groups == g]) for g in ids]
        )
        for ties in _ties(spec):
            got = metric(y_true, y_true, groups=groups, ties=ties)
            assert got == pytest.approx(expected, rel=1e-12), (label, ties)
            if spec.name in ("ndcg", "r_cap", "hit_rate", "r_precision", "mrr"):
                assert got == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize(
    "name", [s.name for s in BOUNDED if s.name not in not_held("ideal_is_best")]
)
def test_ideal_ranking_is_best_ordering(name):
    # No ordering of a query beats the ideal one (brute force over orderings).
    spec = _spec(name)
    sign = -1.0 if spec.measure.better == "lower" else 1.0
    labels = np.array([0, 2, 1, 0, 3, 1], dtype=float)
    groups = np.zeros(6, dtype=int)
    ties = _ties(spec)[0]
    for label in _names(spec, (None, 1, 2, 4)):
        metric = get_metric(label, **({"max_grade": 3} if name == "err" else {}))
        ideal = metric(labels, labels, groups=groups, ties=ties)
        for perm in itertools.permutations(range(6)):
            scores = -np.array(perm, dtype=float)
            got = metric(labels, scores, groups=groups)
            assert sign * got <= sign * ideal + 1e-12


@pytest.mark.parametrize(
    "name",
    [s.name for s in SPECS if s.takes_k and s.name not in not_held("k_beyond_is_no_k")],
)
def test_k_beyond_every_query_equals_k_none(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(30)
    y_score = _scored(spec, y_score)
    longest = int(np.max(np.bincount(groups)))
    for ties in _ties(spec):
        for no_relevant in NO_RELEVANT:
            common = dict(groups=groups, ties=ties, no_relevant=no_relevant)
            whole = spec.function(y_true, y_score, k=None, **common)
            for k in (longest, longest + 1, 1000):
                beyond = spec.function(y_true, y_score, k=k, **common)
                if name not in ("precision", "f1", "ips_precision"):
                    assert beyond == pytest.approx(whole, rel=1e-12, abs=1e-15)
    # precision@k divides by k even for shorter queries (trec_eval), while
    # k=None divides by the query's size; f1 follows precision. So with k
    # beyond every query they equal the k=None value rescaled per query.
    result = evaluate(y_true, y_score, groups=groups, metrics=[name, f"{name}@1000"])
    sizes = np.bincount(groups)
    R = np.bincount(groups, weights=y_true > 0)
    per_none, per_k = result.per_query[name], result.per_query[f"{name}@1000"]
    if name in ("precision", "ips_precision"):
        np.testing.assert_allclose(per_k, per_none * sizes / 1000, rtol=1e-12)
    elif name == "f1":
        hits_none = per_none * (sizes + R) / 2
        np.testing.assert_allclose(per_k, 2 * hits_none / (1000 + R), rtol=1e-12)
    else:
        np.testing.assert_allclose(per_k, per_none, rtol=1e-12)


@pytest.mark.parametrize("name", SPEC_IDS)
def test_returns_python_float(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(40)
    y_score = _scored(spec, y_score)
    ties = _ties(spec)[0]
    values = [
        spec.function(y_true, y_score, groups=groups, ties=ties),
        spec.function(
            y_true.tolist(), y_score.tolist(), groups=groups.tolist(), ties=ties
        ),
        spec.function(
            y_true.astype(np.float32),
            y_score.astype(np.float32),
            groups=groups,
            ties=ties,
        ),
        spec.function(
            y_true.astype(int), y_score.astype(int), groups=groups, ties=ties
        ),
        spec.function(y_true.reshape(1, -1), y_score.reshape(1, -1), ties=ties),
        get_metric(spec.name)(y_true, y_score, groups=groups, ties=ties),
    ]
    for value in values:
        assert type(value) is float


@pytest.mark.parametrize("name", SPEC_IDS)
def test_inputs_are_not_modified(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(41)
    y_score = _scored(spec, y_score)
    weights = np.array([1.0 + g for g in groups])
    variants = {
        "numpy": (y_true.copy(), y_score.copy(), groups.copy(), weights.copy()),
        "lists": (y_true.tolist(), y_score.tolist(), groups.tolist(), weights.tolist()),
        "pandas": (
            pd.Series(y_true, index=np.arange(len(y_true))[::-1]),
            pd.Series(y_score),
            pd.Series(groups).astype("category"),
            pd.Series(weights),
        ),
        "float32_readonly": tuple(
            a.astype(np.float32) if a.dtype.kind == "f" else a.copy()
            for a in (y_true, y_score, groups, weights)
        ),
    }
    for a in variants["float32_readonly"]:
        a.flags.writeable = False
    for kind, (yt, ys, g, w) in variants.items():
        before = [
            x.copy(deep=True) if isinstance(x, pd.Series) else np.array(x, copy=True)
            for x in (yt, ys, g, w)
        ]
        for ties in _ties(spec):
            spec.function(
                yt, ys, groups=g, sample_weight=w, ties=ties, no_relevant="skip"
            )
        evaluate(
            yt, ys, groups=g, metrics=_names(spec), sample_weight=w, ties=_ties(spec)[0]
        )
        for old, new in zip(before, (yt, ys, g, w), strict=True):
            if isinstance(old, pd.Series):
                pd.testing.assert_series_equal(old, new)
            else:
                np.testing.assert_array_equal(old, np.asarray(new), err_msg=kind)


@pytest.mark.parametrize("name", SPEC_IDS)
def test_function_get_metric_and_evaluate_agree(name):
    spec = _spec(name)
    y_true, y_score, groups = _data(50)
    y_score = _scored(spec, y_score)
    weights = 1.0 + (groups % 3)
    labels = _names(spec, (None, 1, 3))
    for ties in _ties(spec):
        for no_relevant in NO_RELEVANT:
            for sample_weight in (None, weights):
                common = dict(
                    groups=groups,
                    ties=ties,
                    no_relevant=no_relevant,
                    sample_weight=sample_weight,
                )
                result = evaluate(y_true, y_score, metrics=labels, **common)
                for label in labels:
                    metric = get_metric(label)
                    kwargs = {"k": metric.k} if spec.takes_k else {}
                    direct = spec.function(y_true, y_score, **kwargs, **common)
                    assert metric(y_true, y_score, **common) == direct
                    assert result.means[label] == pytest.approx(direct, rel=1e-12)


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------

Y_TRUE = [1.0, 0.0, 2.0, 0.0]
Y_SCORE = [0.4, 0.3, 0.2, 0.1]
GROUPS = ["a", "a", "b", "b"]

# (description, changes to the call, exception, message pattern)
BAD_INPUTS = [
    (
        "lengths",
        dict(y_score=[0.4, 0.3, 0.2]),
        ValueError,
        r"`y_true` and `y_score` must have the same shape",
    ),
    (
        "groups_length",
        dict(groups=["a", "a", "b"]),
        ValueError,
        r"`groups` must have one label per row: expected length 4, got 3",
    ),
    (
        "empty",
        dict(y_true=[], y_score=[], groups=[]),
        ValueError,
        r"`y_true` must not be empty",
    ),
    (
        "empty_2d",
        dict(y_true=np.zeros((0, 3)), y_score=np.zeros((0, 3)), groups=None),
        ValueError,
        r"must not be empty",
    ),
    (
        "nan_score",
        dict(y_score=[0.4, np.nan, 0.2, 0.1]),
        ValueError,
        r"`y_score` must not contain NaN",
    ),
    (
        "nan_true",
        dict(y_true=[1.0, np.nan, 0.0, 0.0]),
        ValueError,
        r"`y_true` must hold finite relevance labels, got (np\.float64\()?nan",
    ),
    (
        "inf_true",
        dict(y_true=[1.0, np.inf, 0.0, 0.0]),
        ValueError,
        r"`y_true` must hold finite relevance labels, got (np\.float64\()?inf",
    ),
    (
        "negative_true",
        dict(y_true=[1.0, -1.0, 0.0, 0.0]),
        ValueError,
        r"`y_true` must hold non-negative relevance labels, got (np\.float64\()?-1",
    ),
    (
        "string_true",
        dict(y_true=["1", "0", "2", "0"]),
        TypeError,
        r"`y_true` must be an array-like of real numbers",
    ),
    (
        "object_true",
        dict(y_true=[1, "x", 0, 0]),
        TypeError,
        r"`y_true` must be an array-like of real numbers",
    ),
    (
        "none_true",
        dict(y_true=None),
        TypeError,
        r"`y_true` must be an array-like of numbers, got None",
    ),
    (
        "string_score",
        dict(y_score=["a", "b", "c", "d"]),
        TypeError,
        r"`y_score` must be an array-like of real numbers",
    ),
    (
        "complex_score",
        dict(y_score=np.ones(4) * 1j),
        TypeError,
        r"`y_score` must be an array-like of real numbers",
    ),
    (
        "3d",
        dict(y_true=np.zeros((1, 2, 2)), y_score=np.zeros((1, 2, 2)), groups=None),
        ValueError,
        r"`y_true` must be 1-D or 2-D, got shape \(1, 2, 2\)",
    ),
    (
        "ragged_2d",
        dict(y_true=[[1, 0], [1]], y_score=[[0.5, 0.2], [0.1]], groups=None),
        ValueError,
        r"`y_true` must be a 1-D array or a 2-D array of equal-length rows "
        r"\(one row per query\), got rows of lengths \[1, 2\]",
    ),
    (
        "scalar",
        dict(y_true=1.0, y_score=1.0, groups=None),
        ValueError,
        r"`y_true` must be 1-D or 2-D, got shape \(\)",
    ),
    (
        "ties",
        dict(ties="random"),
        ValueError,
        r"`ties` must be one of 'average', 'first', .*'pessimistic', got 'random'",
    ),
    ("ties_none", dict(ties=None), ValueError, r"`ties` must be one of .* got None"),
    (
        "no_relevant_word",
        dict(no_relevant="ignore"),
        ValueError,
        r"`no_relevant` must be a number in \[0, 1\], 'skip' or 'raise', got 'ignore'",
    ),
    (
        "no_relevant_big",
        dict(no_relevant=2.0),
        ValueError,
        r"`no_relevant` must be a number in \[0, 1\].*got 2.0",
    ),
    (
        "no_relevant_negative",
        dict(no_relevant=-0.5),
        ValueError,
        r"`no_relevant` must be .*got -0.5",
    ),
    (
        "no_relevant_bool",
        dict(no_relevant=True),
        ValueError,
        r"`no_relevant` must be .*got True",
    ),
    (
        "no_relevant_nan",
        dict(no_relevant=np.nan),
        ValueError,
        r"`no_relevant` must be .*got nan",
    ),
    (
        "groups_2d",
        dict(groups=np.array([["a", "a"], ["b", "b"]])),
        ValueError,
        r"`groups` must be 1-D \(one query label per row\), got shape \(2, 2\)",
    ),
    (
        "groups_none_value",
        dict(groups=["a", None, "b", "b"]),
        ValueError,
        r"`groups` must not contain missing values, got None at index 1",
    ),
    (
        "groups_nan",
        dict(groups=[1.0, 1.0, np.nan, 2.0]),
        ValueError,
        r"`groups` must not contain missing values, got NaN at index 2",
    ),
    (
        "groups_object_nan",
        dict(groups=np.array(["a", "a", float("nan"), "b"], dtype=object)),
        ValueError,
        r"`groups` must not contain missing values.*index 2",
    ),
    (
        "groups_pandas_na",
        dict(groups=pd.Series([1, 1, pd.NA, 2], dtype="Int64")),
        ValueError,
        r"`groups` must not contain missing values.*index 2",
    ),
    (
        "groups_series_none",
        dict(groups=pd.Series(["a", None, "b", "b"])),
        ValueError,
        r"`groups` must not contain missing values.*index 1",
    ),
    (
        "groups_categorical_nan",
        dict(groups=pd.Categorical(["a", "a", np.nan, "b"])),
        ValueError,
        r"`groups` must not contain missing values, got a missing category at index 2",
    ),
    (
        "groups_categorical_series",
        dict(groups=pd.Series(pd.Categorical(["a", np.nan, "b", "b"]))),
        ValueError,
        r"`groups` must not contain missing values, got a missing category at index 1",
    ),
    (
        "groups_mixed",
        dict(groups=np.array([1, "a", 1, "a"], dtype=object)),
        TypeError,
        r"`groups` labels must be mutually comparable",
    ),
    (
        "groups_with_2d",
        dict(y_true=[[1, 0], [2, 0]], y_score=[[1, 2], [3, 4]], groups=[0, 1]),
        ValueError,
        r"`groups` must be None when `y_true` and `y_score` are 2-D",
    ),
    (
        "no_groups_1d",
        dict(groups=None),
        ValueError,
        r"`groups` is required for 1-D `y_true`.*single query.*groups=np.zeros\(",
    ),
    (
        "shape_2d_vs_1d",
        dict(y_true=[[1, 0, 2, 0]], groups=None),
        ValueError,
        r"must have the same shape, got \(1, 4\) and \(4,\)",
    ),
    (
        "weight_varies",
        dict(sample_weight=[1.0, 1.0, 2.0, 3.0]),
        ValueError,
        r"`sample_weight` must be constant within .*query (np\.str_\()?'b'",
    ),
    (
        "weight_length",
        dict(sample_weight=[1.0, 1.0]),
        ValueError,
        r"`sample_weight` must be 1-D with one weight per row \(length 4\), got",
    ),
    (
        "weight_negative",
        dict(sample_weight=[-1.0, -1.0, 1.0, 1.0]),
        ValueError,
        r"`sample_weight` must hold finite, non-negative numbers",
    ),
    (
        "weight_nan",
        dict(sample_weight=[np.nan] * 4),
        ValueError,
        r"`sample_weight` must hold finite, non-negative numbers",
    ),
    (
        "weight_zero",
        dict(sample_weight=[0.0] * 4),
        ValueError,
        r"query weights \(`sample_weight`\) of the scored queries sum to zero",
    ),
    (
        "raise_empty_query",
        dict(y_true=[1.0, 0.0, 0.0, 0.0], no_relevant="raise"),
        ValueError,
        r"query (np\.str_\()?'b'\)? has no relevant row \(no_relevant='raise'\)",
    ),
    (
        "skip_all_empty",
        dict(y_true=[0.0] * 4, no_relevant="skip"),
        ValueError,
        r"every query has no relevant row, so with no_relevant='skip' there is",
    ),
]

BAD_K = [
    (0, ValueError, r"`k` must be a positive integer or None, got 0"),
    (-3, ValueError, r"`k` must be a positive integer or None, got -3"),
    (2.5, TypeError, r"`k` must be a positive integer or None, got 2.5 \(float\)"),
    (3.0, TypeError, r"`k` must be a positive integer or None, got 3.0 \(float\)"),
    (True, TypeError, r"`k` must be a positive integer or None, got True \(bool\)"),
    ("3", TypeError, r"`k` must be a positive integer or None, got '3' \(str\)"),
    (np.float64(2.0), TypeError, r"`k` must be a positive integer or None"),
]

BAD_OPTIONS = [
    ("T", 0, ValueError, r"`T` must be a number > 0, got 0"),
    ("T", "1", ValueError, r"`T` must be a number > 0, got '1'"),
    ("min_rel", np.nan, ValueError, r"`min_rel` must be a finite number, got nan"),
    ("max_rel", -2, ValueError, r"`max_rel` must be None or a number > 0, got -2"),
    ("depth", 0, ValueError, r"`depth` must be a positive integer, got 0"),
    ("depth", 2.5, ValueError, r"`depth` must be a positive integer, got 2.5"),
    (
        "gain",
        "log",
        ValueError,
        r"`gain` must be one of 'linear', 'exponential', got 'log'",
    ),
    ("log_base", 1, ValueError, r"`log_base` must be a number > 1, got 1"),
    ("log_base", "e", ValueError, r"`log_base` must be a number > 1"),
    (
        "relevance_threshold",
        0,
        ValueError,
        r"`relevance_threshold` must be None or a positive number, got 0",
    ),
    (
        "relevance_threshold",
        -1.0,
        ValueError,
        r"`relevance_threshold` must be None or a positive number",
    ),
    (
        "relevance_threshold",
        "2",
        ValueError,
        r"`relevance_threshold` must be None or a positive number",
    ),
    ("p", 1.0, ValueError, r"`p` must be a number in \(0, 1\), got 1.0"),
    ("p", 0, ValueError, r"`p` must be a number in \(0, 1\)"),
    ("p", "0.5", ValueError, r"`p` must be a number in \(0, 1\), got '0.5' \(str\)"),
    ("max_grade", -1, ValueError, r"`max_grade` must be None or a non-negative number"),
    (
        "max_grade",
        1,
        ValueError,
        r"`max_grade` must be at least the largest label \(2\), got 1",
    ),
    (
        "denominator",
        "k",
        ValueError,
        r"`denominator` must be one of 'R', 'min_k', 'hits', got 'k'",
    ),
    ("ignore_ties", "yes", TypeError, r"`ignore_ties` must be True or False"),
    (
        "weights",
        "queries",
        ValueError,
        r"`weights` must be one of 'impressions', 'clicks', 'uniform', 'pairs'",
    ),
    ("one_class", "drop", ValueError, r"`one_class` must be 'skip' or a number in"),
    ("one_class", 1.5, ValueError, r"`one_class` must be 'skip' or a number in"),
    ("base_rate", 1.0, ValueError, r"`base_rate` must be 'overall', 'group' or a"),
    ("base_rate", "all", ValueError, r"`base_rate` must be 'overall', 'group' or a"),
    ("n_bins", 0, ValueError, r"`n_bins` must be a positive integer, got 0"),
    ("estimator", "dr", ValueError, r"`estimator` must be one of 'ips', 'snips'"),
    ("average", "mean", ValueError, r"`average` must be one of 'micro', 'macro'"),
]


def _call(spec, **changes):
    kwargs = dict(y_true=Y_TRUE, y_score=Y_SCORE, groups=GROUPS)
    kwargs.update(changes)
    y_true = kwargs.pop("y_true")
    y_score = kwargs.pop("y_score")
    return spec.function(y_true, y_score, **kwargs)


def test_the_good_call_works():
    for spec in SPECS:
        assert isinstance(_call(spec), float)


#: Inputs judged@k accepts by design: NaN labels are what it measures, and
#: it has no relevant rows to miss (only a query without rows is "empty").
JUDGED_ACCEPTS = {"nan_true", "raise_empty_query", "skip_all_empty"}
#: Inputs the metrics that no_relevant does not apply to accept (their
#: undefined queries take one_class; see NOT_HELD["no_relevant"]).
OWN_UNDEFINED = {"raise_empty_query", "skip_all_empty"}


def _bad_input_applies(name, case):
    if name == "judged" and case in JUDGED_ACCEPTS:
        return False
    return not (name in not_held("no_relevant") and case in OWN_UNDEFINED)


@pytest.mark.parametrize(
    "name, changes, error, match",
    [
        (name, *case[1:])
        for case in BAD_INPUTS
        for name in SPEC_IDS
        if _bad_input_applies(name, case[0])
    ],
    ids=[
        f"{case[0]}-{name}"
        for case in BAD_INPUTS
        for name in SPEC_IDS
        if _bad_input_applies(name, case[0])
    ],
)
def test_bad_input_raises(name, changes, error, match):
    spec = _spec(name)
    with pytest.raises(error, match=match):
        _call(spec, **changes)


@pytest.mark.parametrize("name", SPEC_IDS)
@pytest.mark.parametrize("k, error, match", BAD_K, ids=[repr(c[0]) for c in BAD_K])
def test_bad_k_raises(name, k, error, match):
    spec = _spec(name)
    if not spec.takes_k:
        with pytest.raises(TypeError, match=r"unexpected keyword argument 'k'"):
            _call(spec, k=3)
        return
    with pytest.raises(error, match=match):
        _call(spec, k=k)


@pytest.mark.parametrize("name", SPEC_IDS)
def test_bad_metric_options_raise(name):
    spec = _spec(name)
    checked = 0
    for option, value, error, match in BAD_OPTIONS:
        if option not in spec.params:
            continue
        with pytest.raises(error, match=match):
            _call(spec, **{option: value})
        with pytest.raises(error, match=match):
            get_metric(spec.name, **{option: value})(Y_TRUE, Y_SCORE, groups=GROUPS)
        checked += 1
    assert checked > 0 or not spec.params


def test_long_values_are_cut_to_60_characters_in_messages():
    # A repr of 60 characters is shown whole; a longer one is cut to 57 and "...".
    for length, shown in ((58, "'" + "x" * 58 + "'"), (59, "'" + "x" * 56 + "...")):
        with pytest.raises(ValueError) as info:
            _call(_spec("ndcg"), ties="x" * length)
        assert str(info.value).endswith(f", got {shown} (str)")


def test_pandas_string_na_in_groups_is_named():
    groups = pd.Series(["a", "a", None, "b"], dtype="string")
    with pytest.raises(ValueError, match=r"`groups` must not contain missing values"):
        _call(_spec("ndcg"), groups=groups)


def test_nat_in_groups_is_rejected():
    groups = np.array(["2020-01-01", "2020-01-01", "NaT", "NaT"], dtype="datetime64[D]")
    with pytest.raises(ValueError, match=r"`groups` must not contain missing values"):
        _call(_spec("ndcg"), groups=groups)


@pytest.mark.parametrize(
    "groups",
    [
        np.array(["2020-01-01", "2020-01-01", "NaT", "2020-01-02"], dtype="M8[D]"),
        np.array([1, 1, "NaT", 2], dtype="m8[s]"),
        pd.Series(np.array(["2020-01-01", "2020-01-01", "NaT", "2020-01-02"], "M8[s]")),
        np.array([1, 1, np.timedelta64("NaT", "s"), 2], dtype=object),
    ],
    ids=["datetime64", "timedelta64", "datetime Series", "objects"],
)
def test_nat_in_groups_is_shown_as_nat(groups):
    with pytest.raises(ValueError) as info:
        _call(_spec("ndcg"), groups=groups)
    assert str(info.value) == (
        "`groups` must not contain missing values, got NaT at index 2"
    )


@pytest.mark.parametrize(
    "y_score, message",
    [
        (np.zeros((1, 2, 2)), "`y_score` must be 1-D or 2-D, got shape (1, 2, 2)"),
        ([], "`y_score` must not be empty, got shape (0,)"),
        (
            [0.4, 0.3, 0.2, np.nan],
            "`y_score` must not contain NaN, got NaN at flat index 3",
        ),
    ],
)
def test_bad_scores_give_the_whole_message(y_score, message):
    # The labels are good: the scores' own checks speak.
    with pytest.raises(ValueError) as info:
        _call(_spec("ndcg"), y_score=y_score)
    assert str(info.value) == message


def test_ragged_rows_give_the_whole_message():
    with pytest.raises(ValueError) as info:
        _call(_spec("ndcg"), y_true=[[1, 0, 2], [1]], y_score=[[3, 2, 1], [1]])
    assert str(info.value) == (
        "`y_true` must be a 1-D array or a 2-D array of equal-length rows (one row "
        "per query), got rows of lengths [1, 3]; for queries of different sizes "
        "pass flat arrays with groups=<query of each row>"
    )


def test_object_arrays_of_numbers_are_read_as_floats():
    as_objects = {name: np.array(value, dtype=object) for name, value in (
        ("y_true", Y_TRUE), ("y_score", Y_SCORE), ("sample_weight", [1, 1, 2, 2])
    )}  # fmt: skip
    for spec in SPECS:
        expected = _call(spec, sample_weight=[1.0, 1.0, 2.0, 2.0])
        assert _call(spec, **as_objects) == expected


def test_labels_that_are_not_numbers_give_the_whole_message():
    with pytest.raises(TypeError) as info:
        _call(_spec("ndcg"), y_true=["1", "0", "2", "0"])
    assert str(info.value) == (
        "`y_true` must be an array-like of real numbers, got an array of dtype <U1 "
        "and shape (4,)"
    )


def test_groups_of_unhashable_kinds_give_the_whole_message():
    with pytest.raises(TypeError) as info:
        _call(_spec("ndcg"), groups=np.array([1, 1, 2, 2]) * 1j)
    assert str(info.value) == (
        "`groups` must hold hashable query labels (ints or strings), got an array "
        "of dtype complex128 and shape (4,)"
    )


@pytest.mark.parametrize(
    "sample_weight, error, message",
    [
        (
            ["a", "b", "c", "d"],
            TypeError,
            "`sample_weight` must be an array-like of real numbers, got an array "
            "of dtype <U1 and shape (4,)",
        ),
        (
            [1.0, 1.0, -1.0, -1.0],
            ValueError,
            "`sample_weight` must hold finite, non-negative numbers",
        ),
        (
            [1.0, 1.0, np.inf, np.inf],
            ValueError,
            "`sample_weight` must hold finite, non-negative numbers",
        ),
    ],
)
def test_bad_sample_weight_gives_the_whole_message(sample_weight, error, message):
    with pytest.raises(error) as info:
        _call(_spec("ndcg"), sample_weight=sample_weight)
    assert str(info.value) == message


def test_datetime_groups_without_missing_values_work():
    groups = np.array(["2020-01-01"] * 2 + ["2020-01-03"] * 2, dtype="datetime64[D]")
    assert _call(_spec("mrr"), groups=groups) == _call(_spec("mrr"))


@pytest.mark.parametrize("name", [n for n in SPEC_IDS if n not in PROBABILITY])
def test_infinite_scores_are_ordered_naturally(name):
    spec = _spec(name)
    y_true = [0.0, 2.0, 1.0, 0.0, 3.0, 0.0]
    groups = [0, 0, 0, 1, 1, 1]
    finite = [-1e300, 1e300, 0.0, 5.0, 7.0, -5.0]
    infinite = [-np.inf, np.inf, 0.0, 5.0, np.inf, -np.inf]
    for label in _names(spec):
        metric = get_metric(label)
        for ties in _ties(spec):
            assert metric(y_true, infinite, groups=groups, ties=ties) == pytest.approx(
                metric(y_true, finite, groups=groups, ties=ties), rel=1e-12
            )
