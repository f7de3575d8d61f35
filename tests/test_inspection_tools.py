"""scikit-learn's inspection and curve tools with rankers and query ids.

``cross_val_predict``, ``validation_curve`` and ``learning_curve`` route
``groups`` (metadata routing, ``params={"groups": qid}``); each is checked
against a fold-by-fold computation. ``permutation_importance`` routes
nothing, so the queries travel in the index of ``X``.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from lightgbm import LGBMRanker
from sklearn.base import clone
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_predict, learning_curve, validation_curve

from skirm.datasets import make_ranking
from skirm.metrics import make_ranking_scorer, ndcg_score
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import QueryRanker

CV = QueryGroupKFold(3, shuffle=True, random_state=0)


@pytest.fixture(autouse=True)
def _one_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def _data():
    X, y, qid = make_ranking(n_groups=45, group_size=(4, 25), noise=0.2, random_state=0)
    perm = np.random.default_rng(0).permutation(y.shape[0])
    return X[perm], y[perm], qid[perm]


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
    X, y, qid = make_ranking(
        n_groups=40, n_features=4, noise=0.1, no_relevant_fraction=0.0, random_state=3
    )
    query_level = np.random.default_rng(0).normal(size=np.unique(qid).size)[qid]
    X = np.column_stack([X, query_level])
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
