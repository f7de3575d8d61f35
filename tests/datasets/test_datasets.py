"""skirm.datasets.make_ranking: shapes, seeding, labels, empty queries, errors."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

import skirm
from skirm.datasets import make_ranking


def test_shapes_and_types():
    X, y, groups = make_ranking(
        n_groups=30, group_size=(2, 9), n_features=7, random_state=0
    )
    n = X.shape[0]
    assert X.shape == (n, 7) and y.shape == (n,) and groups.shape == (n,)
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert groups.dtype.kind in "iu"
    # Rows are sorted by query; query ids are 0 .. n_groups - 1.
    assert np.all(np.diff(groups) >= 0)
    np.testing.assert_array_equal(np.unique(groups), np.arange(30))
    assert np.isfinite(X).all()


def test_defaults():
    X, y, groups = make_ranking(random_state=1)
    sizes = np.bincount(groups)
    assert sizes.shape == (100,)
    assert sizes.min() >= 5 and sizes.max() <= 50
    assert X.shape[1] == 10
    assert y.max() <= 4


def test_fixed_group_size():
    _, y, groups = make_ranking(n_groups=12, group_size=6, random_state=2)
    np.testing.assert_array_equal(np.bincount(groups), np.full(12, 6))
    assert y.shape == (72,)


def test_group_size_range_is_inclusive():
    _, _, groups = make_ranking(n_groups=400, group_size=(3, 5), random_state=3)
    assert set(np.bincount(groups).tolist()) == {3, 4, 5}
    _, _, groups = make_ranking(n_groups=5, group_size=(4, 4), random_state=3)
    np.testing.assert_array_equal(np.bincount(groups), np.full(5, 4))


def test_same_seed_same_data_other_seed_other_data():
    a = make_ranking(n_groups=20, random_state=42)
    b = make_ranking(n_groups=20, random_state=42)
    c = make_ranking(n_groups=20, random_state=43)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert a[0].shape != c[0].shape or not np.array_equal(a[0], c[0])


def test_random_state_instance_is_accepted_and_advanced():
    rs = np.random.RandomState(7)
    first = make_ranking(n_groups=5, random_state=rs)
    second = make_ranking(n_groups=5, random_state=rs)
    again = make_ranking(n_groups=5, random_state=np.random.RandomState(7))
    np.testing.assert_array_equal(first[0], again[0])
    assert first[0].shape != second[0].shape or not np.array_equal(first[0], second[0])


@pytest.mark.parametrize("n_levels", [2, 3, 5, 8])
def test_label_range(n_levels):
    _, y, _ = make_ranking(
        n_groups=300,
        n_relevance_levels=n_levels,
        no_relevant_fraction=0.0,
        random_state=4,
    )
    assert y.min() == 0 and y.max() == n_levels - 1
    counts = np.bincount(y, minlength=n_levels)
    assert counts.shape == (n_levels,) and (counts > 0).all()
    # Most rows are non-relevant, and higher grades are rarer.
    assert counts[0] > y.shape[0] / 2
    assert counts[1] >= counts[-1]


def _empty_fraction(y, groups):
    has_relevant = np.bincount(groups, weights=y > 0) > 0
    return 1.0 - has_relevant.mean()


def test_no_relevant_fraction():
    kwargs = dict(n_groups=2000, group_size=40, random_state=5)
    _, y, groups = make_ranking(no_relevant_fraction=0.3, **kwargs)
    assert _empty_fraction(y, groups) == pytest.approx(0.3, abs=0.04)
    _, y, groups = make_ranking(no_relevant_fraction=0.0, **kwargs)
    assert _empty_fraction(y, groups) < 0.01
    _, y, groups = make_ranking(no_relevant_fraction=1.0, **kwargs)
    assert (y == 0).all()


def test_features_carry_the_relevance():
    X, y, groups = make_ranking(n_groups=150, noise=0.1, random_state=6)
    model = LinearRegression().fit(X, y)
    fitted = skirm.ndcg_score(y, model.predict(X), groups=groups, k=10)
    noise = np.random.default_rng(6).normal(size=y.shape[0])
    random = skirm.ndcg_score(y, noise, groups=groups, k=10)
    assert fitted > random + 0.2


def test_less_noise_ranks_better():
    scores = []
    for noise in (0.0, 2.0):
        X, y, groups = make_ranking(n_groups=200, noise=noise, random_state=8)
        model = LinearRegression().fit(X, y)
        scores.append(skirm.ndcg_score(y, model.predict(X), groups=groups, k=10))
    assert scores[0] > scores[1]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_groups=0), r"`n_groups` must be an integer >= 1, got 0"),
        (dict(n_groups=2.5), r"`n_groups` must be an integer >= 1, got 2.5"),
        (dict(n_groups=True), r"`n_groups` must be an integer >= 1, got True"),
        (dict(n_features=0), r"`n_features` must be an integer >= 1, got 0"),
        (dict(n_relevance_levels=1), r"`n_relevance_levels` must be an integer >= 2"),
        (dict(group_size=0), r"`group_size` must be an integer >= 1, got 0"),
        (dict(group_size=(0, 3)), r"`group_size\[0\]` must be an integer >= 1, got 0"),
        (dict(group_size=(5, 2)), r"`group_size\[1\]` must be an integer >= 5, got 2"),
        (dict(group_size=(1, 2, 3)), r"`group_size` must be a positive integer or a"),
        (dict(group_size="big"), r"`group_size` must be a positive integer or a"),
        (dict(group_size=2.5), r"`group_size` must be a positive integer or a"),
        (dict(noise=-0.1), r"`noise` must be a non-negative number, got -0.1"),
        (dict(noise=float("nan")), r"`noise` must be a non-negative number, got nan"),
        (dict(noise="low"), r"`noise` must be a non-negative number"),
        (dict(no_relevant_fraction=1.5), r"`no_relevant_fraction` must be a number in"),
        (dict(no_relevant_fraction=-0.1), r"`no_relevant_fraction` must be a number"),
        (dict(random_state="seed"), r"cannot be used to seed"),
    ],
)
def test_bad_arguments_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_ranking(**kwargs)
