"""Query-group splitters: coverage, balance, reproducibility, errors."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from _data import shuffled_ranking
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from skirm.metrics import make_ranking_scorer
from skirm.model_selection import (
    QueryGroupKFold,
    QueryGroupShuffleSplit,
    RepeatedQueryGroupKFold,
    train_test_split_groups,
)


@pytest.fixture(scope="module")
def data():
    X, y, groups = shuffled_ranking(
        37, (1, 30), shuffle_seed=1, no_relevant_fraction=0.3
    )
    return X, y, groups.astype(str)  # unsorted string ids


def check_splits(cv, X, y, groups, *, partition):
    """The coverage checks: disjoint, whole queries, ascending, honest count."""
    splits = list(cv.split(X, y, groups))
    assert len(splits) == cv.get_n_splits(X, y, groups)
    n = len(groups)
    tested = np.zeros(n, dtype=int)
    for train, test in splits:
        assert train.dtype.kind == "i" and test.dtype.kind == "i"
        assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)
        assert np.intersect1d(train, test).size == 0
        assert np.intersect1d(groups[train], groups[test]).size == 0
        if partition:
            assert np.union1d(train, test).size == n
        tested[test] += 1
    return splits, tested


KFOLDS = [
    QueryGroupKFold(5),
    QueryGroupKFold(3, shuffle=True, random_state=0),
    QueryGroupKFold(4, stratify="has_relevant"),
    QueryGroupKFold(4, shuffle=True, random_state=2, stratify="has_relevant"),
    QueryGroupKFold(5, stratify="size"),
    QueryGroupKFold(5, shuffle=True, random_state=np.random.RandomState(0)),
]


@pytest.mark.parametrize("cv", KFOLDS, ids=repr)
def test_kfold_each_query_in_exactly_one_test_fold(cv, data):
    X, y, groups = data
    splits, tested = check_splits(cv, X, y, groups, partition=True)
    assert np.all(tested == 1)
    fold_of_group = {}
    for i, (_, test) in enumerate(splits):
        for g in np.unique(groups[test]):
            assert fold_of_group.setdefault(g, i) == i
    assert len(fold_of_group) == np.unique(groups).size


def test_repeated_kfold_coverage(data):
    X, y, groups = data
    cv = RepeatedQueryGroupKFold(4, n_repeats=3, random_state=0)
    splits, tested = check_splits(cv, X, y, groups, partition=True)
    assert np.all(tested == 3)
    assert cv.get_n_splits() == 12
    firsts = [splits[i][1] for i in (0, 4, 8)]
    assert not all(np.array_equal(firsts[0], f) for f in firsts[1:])
    # No state between calls: an int seed gives the same splits again.
    again = list(cv.split(X, y, groups))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again, strict=True))


@pytest.mark.parametrize(
    "cv",
    [
        QueryGroupShuffleSplit(4, random_state=0),
        QueryGroupShuffleSplit(3, test_size=0.3, train_size=0.5, random_state=1),
        QueryGroupShuffleSplit(2, test_size=5, random_state=2),
    ],
    ids=repr,
)
def test_shuffle_split_coverage(cv, data):
    X, y, groups = data
    splits, _ = check_splits(cv, X, y, groups, partition=cv.train_size is None)
    n_groups = np.unique(groups).size
    for train, test in splits:
        n_test = np.unique(groups[test]).size
        n_train = np.unique(groups[train]).size
        if cv.test_size is None:
            assert n_test == int(np.ceil(0.2 * n_groups))
        elif isinstance(cv.test_size, int):
            assert n_test == cv.test_size
        else:
            assert n_test == int(np.ceil(cv.test_size * n_groups))
            assert n_train == int(np.floor(cv.train_size * n_groups))
    assert not np.array_equal(splits[0][1], splits[1][1])


def test_kfold_without_shuffle_is_contiguous_blocks_of_sorted_queries():
    groups = np.repeat([5, 3, 9, 1, 7, 2], 2)
    folds = [
        np.unique(groups[test]).tolist()
        for _, test in QueryGroupKFold(3).split(groups, groups=groups)
    ]
    assert folds == [[1, 2], [3, 5], [7, 9]]


def test_shuffle_reproducible_and_seed_dependent(data):
    X, y, groups = data
    a = [
        t.tolist()
        for _, t in QueryGroupKFold(3, shuffle=True, random_state=0).split(X, y, groups)
    ]
    b = [
        t.tolist()
        for _, t in QueryGroupKFold(3, shuffle=True, random_state=0).split(X, y, groups)
    ]
    c = [
        t.tolist()
        for _, t in QueryGroupKFold(3, shuffle=True, random_state=1).split(X, y, groups)
    ]
    assert a == b and a != c


def test_stratify_has_relevant_balances_both_kinds(data):
    X, y, groups = data
    _, inverse = np.unique(groups, return_inverse=True)
    has_rel = np.bincount(inverse, weights=y > 0) > 0
    assert 0 < has_rel.sum() < has_rel.size
    for shuffle in (False, True):
        cv = QueryGroupKFold(
            4,
            shuffle=shuffle,
            random_state=0 if shuffle else None,
            stratify="has_relevant",
        )
        with_rel, without = [], []
        for _, test in cv.split(X, y, groups):
            q = np.unique(inverse[test])
            with_rel.append(int(has_rel[q].sum()))
            without.append(int((~has_rel[q]).sum()))
        assert max(with_rel) - min(with_rel) <= 1
        assert max(without) - min(without) <= 1
        totals = [a + b for a, b in zip(with_rel, without, strict=True)]
        assert max(totals) - min(totals) <= 1


def test_stratify_size_balances_rows(data):
    X, y, groups = data
    sizes = np.unique(groups, return_counts=True)[1]

    def spread(cv):
        rows = [t.size for _, t in cv.split(X, y, groups)]
        return max(rows) - min(rows)

    balanced = spread(QueryGroupKFold(5, stratify="size"))
    assert balanced <= sizes.max()
    assert balanced < spread(QueryGroupKFold(5))


def test_groups_from_index_level_equals_explicit_groups(data):
    X, y, groups = data
    frame = pd.DataFrame(X, index=pd.Index(groups, name="qid"))
    cv = QueryGroupKFold(3, shuffle=True, random_state=0)
    explicit = [t.tolist() for _, t in cv.split(X, y, groups)]
    from_index = [t.tolist() for _, t in cv.split(frame, y)]
    assert explicit == from_index
    other = QueryGroupKFold(3, shuffle=True, random_state=0, groups_from="query")
    renamed = frame.rename_axis("query")
    assert [t.tolist() for _, t in other.split(renamed, y)] == explicit
    shuffle = QueryGroupShuffleSplit(2, random_state=0)
    assert [t.tolist() for _, t in shuffle.split(frame)] == [
        t.tolist() for _, t in shuffle.split(X, groups=groups)
    ]


def test_request_groups_by_default_and_work_in_a_search(data):
    X, y, groups = data
    for cv in (QueryGroupKFold(), RepeatedQueryGroupKFold(), QueryGroupShuffleSplit()):
        with sklearn.config_context(enable_metadata_routing=True):
            assert cv.get_metadata_routing().split.requests == {"groups": True}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(),
            {"alpha": [1.0]},
            cv=QueryGroupKFold(3),
            scoring=make_ranking_scorer("ndcg@10"),
            error_score="raise",
        ).fit(X, y, groups=groups)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_train_test_split_groups(data):
    X, y, groups = data
    X_tr, _, y_tr, y_te, g_tr, g_te = train_test_split_groups(
        X, y, groups, groups=groups, test_size=0.25, random_state=0
    )
    assert np.intersect1d(g_tr, g_te).size == 0
    assert len(y_tr) + len(y_te) == len(y)
    assert np.unique(g_te).size == int(np.ceil(0.25 * np.unique(groups).size))
    train, test = next(
        QueryGroupShuffleSplit(1, test_size=0.25, random_state=0).split(
            X, groups=groups
        )
    )
    np.testing.assert_array_equal(X_tr, X[train])
    np.testing.assert_array_equal(y_te, y[test])
    # A DataFrame first: the groups come from its index, pandas slices stay pandas.
    frame = pd.DataFrame(X, index=pd.Index(groups, name="qid"))
    f_tr, f_te, _, l_te = train_test_split_groups(
        frame, list(y), test_size=0.25, random_state=0
    )
    assert isinstance(f_tr, pd.DataFrame) and isinstance(l_te, list)
    np.testing.assert_array_equal(f_te.to_numpy(), X[test])
    assert l_te == y[test].tolist()


def test_train_test_split_groups_takes_groups_positionally(data):
    # As with train_test_split(X, y, groups): the last array is the query ids.
    X, y, groups = data
    positional = train_test_split_groups(X, y, groups, test_size=0.3, random_state=0)
    keyword = train_test_split_groups(
        X, y, groups, groups=groups, test_size=0.3, random_state=0
    )
    assert len(positional) == 6
    for got, expected in zip(positional, keyword, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert np.intersect1d(positional[4], positional[5]).size == 0
    # Two arrays: the second is y, never mistaken for the query ids.
    with pytest.raises(ValueError, match="needs the query of each row"):
        train_test_split_groups(X, y, test_size=0.3)


@pytest.mark.parametrize(
    "make, call, error, match",
    [
        (lambda: QueryGroupKFold(50), {}, ValueError, "n_splits=50 greater than"),
        (lambda: QueryGroupKFold(1), {}, ValueError, "`n_splits` must be an integer"),
        (lambda: QueryGroupKFold(2.5), {}, TypeError, "`n_splits` must be an integer"),
        (lambda: QueryGroupKFold(shuffle="yes"), {}, TypeError, "`shuffle` must be"),
        (lambda: QueryGroupKFold(stratify="label"), {}, ValueError, "`stratify`"),
        (lambda: QueryGroupKFold(stratify=["size"]), {}, ValueError, "`stratify`"),
        (
            lambda: QueryGroupKFold(3, stratify="has_relevant"),
            {"y": None},
            ValueError,
            "needs `y`",
        ),
        (
            lambda: QueryGroupKFold(3, stratify="has_relevant"),
            {"y": np.zeros(3)},
            ValueError,
            "`y` must be 1-D with one label per row",
        ),
        (lambda: QueryGroupKFold(), {"groups": None}, ValueError, "level named 'qid'"),
        (
            lambda: QueryGroupKFold(),
            {"groups": np.zeros(4)},
            ValueError,
            "`groups` must have one label per row",
        ),
        (lambda: QueryGroupKFold(groups_from=""), {}, TypeError, "`groups_from`"),
        (
            lambda: RepeatedQueryGroupKFold(n_repeats=0),
            {},
            ValueError,
            "`n_repeats` must be an integer >= 1",
        ),
        (
            lambda: QueryGroupShuffleSplit(test_size=1.5),
            {},
            ValueError,
            "`test_size` must be None, a fraction",
        ),
        (
            lambda: QueryGroupShuffleSplit(train_size=0),
            {},
            ValueError,
            "`train_size` must be None",
        ),
        (
            lambda: QueryGroupShuffleSplit(test_size=0.6, train_size=0.6),
            {},
            ValueError,
            "each side needs at least one query",
        ),
        (
            lambda: QueryGroupShuffleSplit(test_size=37),
            {},
            ValueError,
            "0 train queries",
        ),
        (lambda: QueryGroupShuffleSplit(0), {}, ValueError, "`n_splits` must be"),
    ],
)
def test_errors(make, call, error, match, data):
    X, y, groups = data
    kwargs = {"y": y, "groups": groups, **call}
    with pytest.raises(error, match=match):
        list(make().split(X, **kwargs))


def test_get_n_splits_validates():
    with pytest.raises(ValueError, match="`n_splits` must be an integer >= 2"):
        QueryGroupKFold(0).get_n_splits()
    assert QueryGroupKFold(7).get_n_splits() == 7
    assert QueryGroupShuffleSplit(3).get_n_splits() == 3


def test_train_test_split_groups_needs_an_array():
    with pytest.raises(ValueError, match="at least one array"):
        train_test_split_groups(groups=[1, 2])
    with pytest.raises(ValueError, match=r"same number of rows, got lengths \[2, 3\]"):
        train_test_split_groups([1, 2], [1, 2, 3], groups=[1, 2])


def test_repr_lists_the_parameters():
    text = " ".join(repr(QueryGroupKFold(3, stratify="size")).split())
    assert text == (
        "QueryGroupKFold(groups_from='qid', n_splits=3, random_state=None, "
        "shuffle=False, stratify='size')"
    )
