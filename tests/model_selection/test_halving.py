"""Successive halving over whole queries, and the row-subsampling trap.

scikit-learn's halving searches with ``resource="n_samples"`` fit on a random
fraction of the rows of each fold; the tests measure the queries that cuts
apart, check that skirm's splitters refuse to be subsampled that way, and
that skirm's halving searches only ever fit whole queries, with fold scores
recomputed by hand.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from _data import shuffled_ranking
from lightgbm import LGBMRanker
from scipy.stats import randint
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, HalvingGridSearchCV

from skirm.metrics import make_ranking_scorer, ndcg_score
from skirm.model_selection import (
    QueryGroupKFold,
    QueryGroupShuffleSplit,
    QueryHalvingGridSearchCV,
    QueryHalvingRandomSearchCV,
    RepeatedQueryGroupKFold,
)
from skirm.ranker import QueryRanker

#: (query ids, LightGBM-style group sizes) of every fit of the recorder.
FITS = []


class _SizesRecorder(RegressorMixin, BaseEstimator):
    """Takes LightGBM's ``group=`` sizes; column 0 of X is the query id."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y, group=None):
        FITS.append((np.asarray(X)[:, 0].copy(), group))
        self.ridge_ = Ridge(alpha=self.alpha).fit(np.asarray(X)[:, 1:], y)
        return self

    def predict(self, X):
        return self.ridge_.predict(np.asarray(X)[:, 1:])


def _data():
    X, y, qid = shuffled_ranking(60)
    return np.column_stack([qid.astype(float), X]), y, qid


def _cut_queries(qid):
    """How many fitted queries had fewer rows than the query has."""
    full = dict(zip(*np.unique(qid, return_counts=True), strict=True))
    cut = 0
    for seen, _ in FITS:
        ids, counts = np.unique(seen.astype(qid.dtype), return_counts=True)
        cut += sum(counts[i] < full[q] for i, q in enumerate(ids))
    return cut


GRID = {"estimator__alpha": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]}


def test_sklearn_halving_on_rows_cuts_queries_silently():
    """The problem: with GroupKFold nothing complains, yet queries are cut."""
    X, y, qid = _data()
    FITS.clear()
    with sklearn.config_context(enable_metadata_routing=True):
        HalvingGridSearchCV(
            QueryRanker(_SizesRecorder(), library="lightgbm"),
            GRID,
            cv=GroupKFold(3),
            scoring=make_ranking_scorer("ndcg@10"),
            min_resources=200,
            random_state=0,
            error_score="raise",
        ).fit(X, y, groups=qid)
    assert _cut_queries(qid) > 50


@pytest.mark.parametrize(
    "cv",
    [
        QueryGroupKFold(3),
        RepeatedQueryGroupKFold(3, n_repeats=2, random_state=0),
        QueryGroupShuffleSplit(3, random_state=0),
    ],
)
def test_sklearn_halving_on_rows_with_skirm_splitter_raises(cv):
    X, y, qid = _data()
    search = HalvingGridSearchCV(
        QueryRanker(Ridge()),
        GRID,
        cv=cv,
        scoring=make_ranking_scorer("ndcg@10"),
        random_state=0,
    )
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=r"cuts queries apart.*QueryHalving"):
            search.fit(X, y, groups=qid)
    # Called directly (or by any other search) the splitter works as before.
    assert len(list(cv.split(X, y, qid))) == cv.get_n_splits()


def _halving(estimator, **kwargs):
    return QueryHalvingGridSearchCV(
        estimator,
        GRID,
        cv=QueryGroupKFold(3, shuffle=True, random_state=0),
        scoring=make_ranking_scorer("ndcg@10"),
        factor=2,
        error_score="raise",
        **kwargs,
    )


@pytest.mark.oracle
def test_query_halving_fits_whole_queries_routing_on_off_and_by_hand():
    X, y, qid = _data()
    model = QueryRanker(_SizesRecorder(), library="lightgbm", random_state=0)
    FITS.clear()
    with sklearn.config_context(enable_metadata_routing=True):
        on = _halving(model).fit(X, y, groups=qid)
    assert len(FITS) > 20 and _cut_queries(qid) == 0
    # The refit (the last fit) saw every query, like a row search's refit.
    assert np.unique(FITS[-1][0]).size == 60
    assert on.best_estimator_.max_queries is None
    assert on.best_params_["max_queries"] == 60 and on.refit_time_ > 0
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    FITS.clear()
    off = _halving(model).fit(frame, y)
    assert np.unique(FITS[-1][0]).size == 60 and off.refit is True
    for key, value in on.cv_results_.items():
        if "time" not in key:
            np.testing.assert_array_equal(value, off.cv_results_[key], err_msg=key)
    assert on.max_resources_ == 60  # the queries of X
    assert on.n_resources_ == [15, 30, 60]
    assert on.n_candidates_ == [6, 3, 2]
    assert on.max_resources == "auto" and on.cv.n_splits == 3  # params restored
    # Every fold of every iteration recomputed from a refitted clone: the
    # fit used max_queries whole queries of the training fold.
    cv = QueryGroupKFold(3, shuffle=True, random_state=0)
    for c, params in enumerate(on.cv_results_["params"]):
        for i, (train, test) in enumerate(cv.split(X, y, qid)):
            FITS.clear()
            est = clone(model).set_params(**params).fit(X[train], y[train], qid[train])
            n_queries = np.unique(FITS[0][0]).size
            assert n_queries == min(params["max_queries"], np.unique(qid[train]).size)
            expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
            got = on.cv_results_[f"split{i}_test_score"][c]
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_query_halving_is_deterministic_and_grows_nested_query_sets():
    X, y, qid = _data()
    model = QueryRanker(_SizesRecorder(), library="lightgbm", random_state=3)
    with sklearn.config_context(enable_metadata_routing=True):
        a = _halving(model).fit(X, y, groups=qid)
        b = _halving(model).fit(X, y, groups=qid)
    for key, value in a.cv_results_.items():
        if "time" not in key:
            np.testing.assert_array_equal(value, b.cv_results_[key], err_msg=key)
    # With a seeded ranker a larger budget keeps the smaller budget's queries.
    seen = {}
    for budget in (7, 14, 28):
        FITS.clear()
        clone(model).set_params(max_queries=budget).fit(X, y, qid)
        seen[budget] = set(FITS[0][0].tolist())
    assert seen[7] < seen[14] < seen[28]


def test_query_halving_refits_on_every_query_even_with_a_smaller_budget():
    X, y, qid = _data()
    model = QueryRanker(_SizesRecorder(), library="lightgbm", random_state=0)
    search = QueryHalvingRandomSearchCV(
        model,
        {"estimator__alpha": [0.01, 0.1, 1.0, 10.0]},
        n_candidates=4,
        min_resources=10,
        factor=2,
        cv=3,
        scoring=make_ranking_scorer("ndcg@10"),
        random_state=0,
        error_score="raise",
    )
    FITS.clear()
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=qid)
    assert search.n_resources_ == [10, 20, 40]
    assert search.best_params_["max_queries"] == 40  # the deciding budget
    assert np.unique(FITS[-1][0]).size == 60  # the refit: every query
    expected = clone(model).set_params(**{**search.best_params_, "max_queries": None})
    expected.fit(X, y, groups=qid)
    np.testing.assert_array_equal(search.predict(X), expected.predict(X))
    # A callable refit is scikit-learn's: the best parameters, budget included.
    FITS.clear()
    search.set_params(refit=lambda results: 0)
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=qid)
    assert search.best_estimator_.max_queries == 40
    assert np.unique(FITS[-1][0]).size == 40


def test_query_halving_random_search_over_boosting_rounds():
    X, y, qid = _data()
    X = X[:, 1:]
    model = QueryRanker(LGBMRanker(num_leaves=7, n_jobs=1, verbose=-1))
    search = QueryHalvingRandomSearchCV(
        model,
        {"estimator__num_leaves": randint(3, 15)},
        n_candidates=4,
        resource="estimator__n_estimators",
        min_resources=5,
        max_resources=20,
        factor=2,
        cv=3,
        scoring=make_ranking_scorer("ndcg@10"),
        random_state=0,
        error_score="raise",
    )
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=qid)
    assert search.n_resources_ == [5, 10, 20]
    assert search.best_estimator_.estimator_.n_estimators == 20
    assert isinstance(search.cv, int)  # the int cv is restored after fit


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"resource": "n_samples"}, "does not subsample rows"),
        ({"resource": "max_queries", "estimator": Ridge()}, "Cannot use resource"),
    ],
)
def test_query_halving_errors(kwargs, match):
    X, y, qid = _data()
    estimator = kwargs.pop("estimator", QueryRanker(Ridge()))
    search = QueryHalvingGridSearchCV(estimator, {"alpha": [1.0, 2.0]}, **kwargs)
    with pytest.raises(ValueError, match=match):
        search.fit(X, y, groups=qid)
