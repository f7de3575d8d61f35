"""scikit-learn's inspection and curve tools with rankers and query ids.

``cross_val_predict``, ``validation_curve`` and ``learning_curve`` route
``groups`` (metadata routing, ``params={"groups": qid}``); each is checked
against a fold-by-fold computation. ``permutation_importance`` routes
nothing, so the queries travel in the index of ``X``; skirm's
``permutation_importance`` takes them as an argument and permutes within
queries (or across, reproducing scikit-learn's numbers).
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from _data import shuffled_ranking
from lightgbm import LGBMRanker
from sklearn.base import clone
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_predict, learning_curve, validation_curve

from skirm.datasets import make_ranking
from skirm.inspection import permutation_importance as skirm_permutation_importance
from skirm.metrics import make_ranking_scorer, ndcg_score
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import QueryRanker

pytestmark = pytest.mark.usefixtures("one_thread")

CV = QueryGroupKFold(3, shuffle=True, random_state=0)


def _data():
    return shuffled_ranking(45, noise=0.2)


def _model(**params):
    return QueryRanker(
        LGBMRanker(n_estimators=8, num_leaves=7, n_jobs=1, verbose=-1), **params
    )


@pytest.mark.oracle
def test_cross_val_predict_with_routed_groups():
    X, y, qid = _data()
    with sklearn.config_context(enable_metadata_routing=True):
        pred = cross_val_predict(_model(), X, y, cv=CV, params={"groups": qid})
    expected = np.empty_like(pred)
    for train, test in CV.split(X, y, qid):
        est = _model().fit(X[train], y[train], groups=qid[train])
        expected[test] = est.predict(X[test])
    np.testing.assert_array_equal(pred, expected)
    # Without routing, the index level carries the queries.
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    np.testing.assert_array_equal(cross_val_predict(_model(), frame, y, cv=CV), pred)


@pytest.mark.oracle
def test_validation_curve_over_max_queries_is_a_learning_curve_by_queries():
    X, y, qid = _data()
    sizes = [5, 15, 30]
    model = _model(random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        _, test_scores = validation_curve(
            model,
            X,
            y,
            param_name="max_queries",
            param_range=sizes,
            cv=CV,
            scoring=make_ranking_scorer("ndcg@10"),
            params={"groups": qid},
            error_score="raise",
        )
    for j, size in enumerate(sizes):
        for i, (train, test) in enumerate(CV.split(X, y, qid)):
            est = clone(model).set_params(max_queries=size)
            est.fit(X[train], y[train], groups=qid[train])
            expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
            assert test_scores[j, i] == pytest.approx(expected, rel=1e-12)
    assert test_scores.mean(axis=1)[-1] > test_scores.mean(axis=1)[0]


@pytest.mark.oracle
def test_learning_curve_routes_groups_but_takes_rows():
    """learning_curve's train sizes are the first rows of each training fold.

    Routing gives the ranker each subset's own query ids, so nothing fails,
    but a subset may end in the middle of a query: that query is trained on
    partially. The scores are what a fold-by-fold computation gives.
    """
    X, y, qid = _data()
    order = np.argsort(qid, kind="stable")  # rows sorted: one cut per subset
    X, y, qid = X[order], y[order], qid[order]
    with sklearn.config_context(enable_metadata_routing=True):
        n_train, _, test_scores = learning_curve(
            _model(),
            X,
            y,
            train_sizes=[0.3, 1.0],
            cv=CV,
            scoring=make_ranking_scorer("ndcg@10"),
            params={"groups": qid},
            error_score="raise",
        )
    for j, n in enumerate(n_train):
        for i, (train, test) in enumerate(CV.split(X, y, qid)):
            rows = train[:n]
            est = _model().fit(X[rows], y[rows], groups=qid[rows])
            expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
            assert test_scores[j, i] == pytest.approx(expected, rel=1e-12)


def test_permutation_importance_permutes_across_queries_with_index_groups():
    """scikit-learn permutes a column over all rows, across queries.

    So a query-level feature (constant within each query) gets values from
    other queries; the importance is the NDCG lost to that. Checked against
    the same permutation done by hand.
    """
    X, y, qid = _importance_data(shuffle=False)
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    model = QueryRanker(LinearRegression()).fit(frame, y)
    result = permutation_importance(
        model,
        frame,
        y,
        scoring=make_ranking_scorer("ndcg@10"),
        n_repeats=3,
        random_state=0,
    )
    # Repeat 0 by hand: the same permutation of the column over all rows.
    rng = np.random.RandomState(
        np.random.RandomState(0).randint(np.iinfo(np.int32).max)
    )
    base = ndcg_score(y, model.predict(frame), groups=qid, k=10)
    shuffled = frame.copy()
    shuffled[0] = frame[0].to_numpy()[rng.permutation(y.shape[0])]
    expected = base - ndcg_score(y, model.predict(shuffled), groups=qid, k=10)
    assert result.importances[0, 0] == pytest.approx(expected, rel=1e-12)
    assert result.importances_mean[:2].max() > 0.05  # the informative features


# --------------------------------------------------------------------------
# skirm.inspection.permutation_importance
# --------------------------------------------------------------------------


def _importance_data(shuffle=True):
    """Four features and a query-level one (constant within each query)."""
    X, y, qid = make_ranking(
        n_groups=40, n_features=4, noise=0.1, no_relevant_fraction=0.0, random_state=3
    )
    query_level = np.random.default_rng(0).normal(size=np.unique(qid).size)[qid]
    X = np.column_stack([X, query_level])
    if not shuffle:
        return X, y, qid
    perm = np.random.default_rng(1).permutation(y.shape[0])  # queries interleaved
    return X[perm], y[perm], qid[perm]


@pytest.mark.oracle
@pytest.mark.parametrize("scoring", ["ndcg@10", ["ndcg@10", "map"]])
def test_permute_all_equals_sklearn(scoring):
    X, y, qid = _importance_data()
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    model = QueryRanker(LinearRegression()).fit(frame, y)
    ours = skirm_permutation_importance(
        model, frame, y, scoring=scoring, permute="all", n_repeats=4, random_state=7
    )
    theirs = permutation_importance(
        model,
        frame,
        y,
        scoring=make_ranking_scorer(scoring),
        n_repeats=4,
        random_state=7,
    )
    if isinstance(scoring, str):
        ours, theirs = {"score": ours}, {"score": theirs}
    assert ours.keys() == theirs.keys()
    for name in ours:
        np.testing.assert_array_equal(ours[name].importances, theirs[name].importances)
        np.testing.assert_array_equal(
            ours[name].importances_mean, theirs[name].importances_mean
        )


def test_permutations_stay_within_queries():
    from skirm.inspection._permutation import _permutations

    rng = np.random.default_rng(5)
    for trial in range(20):
        groups = rng.integers(0, rng.integers(1, 12), size=rng.integers(1, 60))
        n = groups.shape[0]
        for perm in _permutations(groups, n, 3, "query", trial):
            assert np.array_equal(np.sort(perm), np.arange(n))  # a permutation
            assert np.array_equal(groups[perm], groups)  # within each query
    # Queries with several rows do get shuffled.
    groups = np.repeat(np.arange(10), 8)
    (perm,) = _permutations(groups, 80, 1, "query", 0)
    assert (perm != np.arange(80)).mean() > 0.5


@pytest.mark.oracle
def test_permute_query_by_hand_and_query_level_feature_is_zero():
    from skirm.inspection._permutation import _permutations

    X, y, qid = _importance_data()
    model = QueryRanker(
        LGBMRanker(n_estimators=10, num_leaves=7, n_jobs=1, verbose=-1)
    ).fit(X, y, groups=qid)
    X_before = X.copy()
    result = skirm_permutation_importance(
        model, X, y, groups=qid, n_repeats=3, random_state=4
    )
    np.testing.assert_array_equal(X, X_before)  # input untouched
    # By hand: the seed scikit-learn's way, repeats applied one after another.
    seed = np.random.RandomState(4).randint(np.iinfo(np.int32).max + 1)
    perms = _permutations(qid, y.shape[0], 3, "query", seed)
    base = ndcg_score(y, model.predict(X), groups=qid, k=10)
    for j in range(X.shape[1]):
        column = X[:, j].copy()
        for r, perm in enumerate(perms):
            column = column[perm]
            X_perm = X.copy()
            X_perm[:, j] = column
            drop = base - ndcg_score(y, model.predict(X_perm), groups=qid, k=10)
            assert result.importances[j, r] == pytest.approx(drop, abs=1e-12)
    # The query-level feature never moves within a query: exactly 0, even for
    # trees; permuted across queries it does move, and matters.
    np.testing.assert_array_equal(result.importances[-1], 0.0)
    across = skirm_permutation_importance(
        model, X, y, groups=qid, n_repeats=3, permute="all", random_state=4
    )
    assert np.abs(across.importances[-1]).max() > 0
    assert result.importances_mean[:2].max() > 0.05  # the informative features


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"permute": "rows"}, ValueError, "`permute` must be one of"),
        ({"n_repeats": 0}, ValueError, "`n_repeats` must be a positive integer"),
        ({"n_repeats": 2.0}, TypeError, "`n_repeats` must be a positive integer"),
        ({"scoring": len}, TypeError, "`scoring` must be None, a metric name"),
        ({"groups": None}, ValueError, "needs the query of each row"),
        ({"X": "sparse"}, TypeError, "got a sparse matrix"),
    ],
)
def test_skirm_permutation_importance_errors(kwargs, error, match):
    import scipy.sparse as sp

    X, y, qid = _importance_data()
    model = QueryRanker(LinearRegression()).fit(X, y)
    args = {"groups": qid, **kwargs}
    if args.pop("X", None) == "sparse":
        X = sp.csr_matrix(X)
    with pytest.raises(error, match=match):
        skirm_permutation_importance(model, X, y, **args)
