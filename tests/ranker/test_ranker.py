"""QueryRanker and PairwiseRanker."""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from _data import shuffled_ranking
from lightgbm import LGBMRanker
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from xgboost import XGBRanker

from skirm.datasets import make_ranking
from skirm.metrics import ndcg_score
from skirm.ranker import PairwiseRanker, QueryRanker
from skirm.ranker._pairwise import sample_pairs
from skirm.ranker._query import detect_library


@pytest.fixture(scope="module")
def data():
    return shuffled_ranking(30, (3, 20))  # unsorted rows


# --------------------------------------------------------------------------
# Stand-ins that record what fit receives
# --------------------------------------------------------------------------


class _Recorder(RegressorMixin, BaseEstimator):
    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class _LightGBMLike(_Recorder):
    def fit(self, X, y, group=None, sample_weight=None):
        self.fit_args_ = dict(X=X, y=y, group=group, sample_weight=sample_weight)
        return self


class _XGBoostLike(_Recorder):
    def fit(self, X, y, qid=None, sample_weight=None):
        self.fit_args_ = dict(X=X, y=y, qid=qid, sample_weight=sample_weight)
        return self


class _CatBoostLike(_Recorder):
    """Mimics CatBoostRanker.fit(X, y, group_id=..., sample_weight=...)."""

    def fit(self, X, y=None, group_id=None, sample_weight=None):
        if group_id is None:
            raise ValueError("group_id must be initialized")
        change = np.flatnonzero(np.diff(group_id) != 0) + 1
        blocks = np.split(np.asarray(group_id), change)
        if len({b[0] for b in blocks}) != len(blocks):
            raise ValueError("objects of a group must follow each other")
        self.fit_args_ = dict(X=X, y=y, group_id=group_id, sample_weight=sample_weight)
        return self


def _named(cls, name, module):
    return type(name, (cls,), {"__module__": module})


LGBMStandIn = _named(_LightGBMLike, "LGBMRanker", "lightgbm.sklearn")
XGBStandIn = _named(_XGBoostLike, "XGBRanker", "xgboost.sklearn")
CatBoostRanker = _named(_CatBoostLike, "CatBoostRanker", "catboost.core")


# --------------------------------------------------------------------------
# QueryRanker
# --------------------------------------------------------------------------


def test_detect_library_by_class():
    assert detect_library(LGBMRanker()) == "lightgbm"
    assert detect_library(XGBRanker()) == "xgboost"
    assert detect_library(CatBoostRanker()) == "catboost"
    assert detect_library(LGBMStandIn()) == "lightgbm"
    assert detect_library(Ridge()) == "pointwise"
    # A subclass keeps its library; the same name elsewhere does not count.
    assert detect_library(_named(LGBMStandIn, "Mine", "mypkg")()) == "lightgbm"
    assert detect_library(_named(_LightGBMLike, "LGBMRanker", "mypkg")()) == (
        "pointwise"
    )


@pytest.mark.parametrize(
    "estimator, key",
    [(LGBMStandIn(), "group"), (XGBStandIn(), "qid"), (CatBoostRanker(), "group_id")],
)
def test_rows_sorted_by_query_and_queries_passed(estimator, key, data):
    X, y, qid = data
    w = (qid % 4 + 1).astype(float)
    model = QueryRanker(estimator).fit(X, y, groups=qid, sample_weight=w)
    args = model.estimator_.fit_args_
    order = np.argsort(qid, kind="stable")
    np.testing.assert_array_equal(args["X"], X[order])
    np.testing.assert_array_equal(args["y"], y[order])
    sizes = np.unique(qid, return_counts=True)[1]
    if key == "group":
        np.testing.assert_array_equal(args["group"], sizes)
        np.testing.assert_array_equal(args["sample_weight"], w[order])
    elif key == "qid":
        assert np.all(np.diff(args["qid"]) >= 0)
        assert np.unique(args["qid"]).size == sizes.size
        # One weight per query (constant within each query here).
        np.testing.assert_array_equal(args["sample_weight"], np.unique(qid) % 4 + 1)
    else:
        assert np.unique(args["group_id"]).size == sizes.size
        np.testing.assert_array_equal(args["sample_weight"], w[order])
    # The caller's arrays are untouched; predict is in the caller's order.
    np.testing.assert_array_equal(model.predict(X), X[:, 0])


def test_xgboost_weights_are_averaged_per_query():
    X = np.arange(8.0).reshape(4, 2)
    model = QueryRanker(XGBStandIn()).fit(
        X, [0, 1, 0, 1], groups=["b", "a", "b", "a"], sample_weight=[1, 2, 3, 6]
    )
    np.testing.assert_array_equal(model.estimator_.fit_args_["sample_weight"], [4, 2])


def test_library_override_for_a_custom_class(data):
    X, y, qid = data

    class MyCatBoost(_CatBoostLike):
        pass

    assert detect_library(MyCatBoost()) == "pointwise"
    with pytest.raises(ValueError, match="group_id must be initialized"):
        # detected as pointwise: fit gets no group_id
        QueryRanker(MyCatBoost()).fit(X, y, groups=qid)
    model = QueryRanker(MyCatBoost(), library="catboost").fit(X, y, groups=qid)
    assert model.library_ == "catboost"
    assert model.estimator_.fit_args_["group_id"] is not None


@pytest.mark.oracle
def test_lightgbm_unsorted_input_equals_sorted_direct_fit(data):
    X, y, qid = data
    params = dict(n_estimators=5, num_leaves=7, n_jobs=1, verbose=-1)
    model = QueryRanker(LGBMRanker(**params)).fit(X, y, groups=qid)
    order = np.argsort(qid, kind="stable")
    sizes = np.unique(qid, return_counts=True)[1]
    direct = LGBMRanker(**params).fit(X[order], y[order], group=sizes)
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    # Feeding the unsorted rows with the same sizes trains a different model:
    # LightGBM trusts the sizes, so sorting is what makes it right.
    wrong = LGBMRanker(**params).fit(X, y, group=sizes)
    assert not np.array_equal(wrong.predict(X), direct.predict(X))
    assert ndcg_score(y, model.predict(X), groups=qid) > ndcg_score(
        y, wrong.predict(X), groups=qid
    )


@pytest.mark.oracle
def test_xgboost_unsorted_input_equals_sorted_direct_fit(data):
    X, y, qid = data
    params = dict(n_estimators=4, max_depth=3, n_jobs=1)
    model = QueryRanker(XGBRanker(**params)).fit(X, y, groups=qid)
    order = np.argsort(qid, kind="stable")
    direct = XGBRanker(**params).fit(X[order], y[order], qid=qid[order])
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    assert model.library_ == "xgboost"


def test_pointwise_is_the_plain_estimator(data):
    X, y, _ = data
    model = QueryRanker(Ridge(alpha=2.0)).fit(X, y)  # no groups needed
    np.testing.assert_array_equal(
        model.predict(X), Ridge(alpha=2.0).fit(X, y).predict(X)
    )
    assert model.n_features_in_ == X.shape[1]
    w = np.linspace(1, 2, y.shape[0])
    weighted = QueryRanker(Ridge()).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(
        weighted.predict(X), Ridge().fit(X, y, sample_weight=w).predict(X)
    )


def test_classifier_predicts_the_expected_label(data):
    X, y, qid = data
    model = QueryRanker(GaussianNB()).fit(X, y, groups=qid)
    nb = GaussianNB().fit(X, y)
    np.testing.assert_allclose(model.predict(X), nb.predict_proba(X) @ nb.classes_)
    text = QueryRanker(DecisionTreeClassifier(max_depth=2, random_state=0))
    text.fit(X, np.where(y > 0, "rel", "non"))
    assert set(text.predict(X)) <= {"rel", "non"}  # non-numeric classes: predict


def test_score_is_ndcg_at_10_and_configurable(data):
    X, y, qid = data
    model = QueryRanker(Ridge()).fit(X, y)
    pred = model.predict(X)
    assert model.score(X, y, groups=qid) == ndcg_score(y, pred, groups=qid, k=10)
    model.set_params(metric="map")
    from skirm.metrics import mean_average_precision_score

    assert model.score(X, y, groups=qid) == mean_average_precision_score(
        y, pred, groups=qid
    )
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    framed = QueryRanker(Ridge(), metric="map").fit(frame, y)
    assert framed.score(frame, y) == pytest.approx(model.score(X, y, groups=qid))


def test_index_level_feeds_fit(data):
    X, y, qid = data
    frame = pd.DataFrame(X, index=pd.Index(qid, name="query"))
    model = QueryRanker(LGBMStandIn(), groups_from="query").fit(frame, y)
    np.testing.assert_array_equal(
        model.estimator_.fit_args_["group"], np.unique(qid, return_counts=True)[1]
    )
    assert isinstance(model.estimator_.fit_args_["X"], pd.DataFrame)


def test_routing_requests_groups_for_fit_and_score():
    with sklearn.config_context(enable_metadata_routing=True):
        for model in (QueryRanker(Ridge()), PairwiseRanker()):
            routing = model.get_metadata_routing()
            assert routing.fit.requests["groups"] is True
            assert routing.score.requests["groups"] is True
            assert routing.fit.requests["sample_weight"] is None


def test_get_set_params_clone_pickle_repr(data):
    X, y, qid = data
    model = QueryRanker(LGBMRanker(n_estimators=3, verbose=-1, n_jobs=1))
    assert model.get_params()["estimator__n_estimators"] == 3
    model.set_params(estimator__num_leaves=5, metric="mrr")
    assert model.estimator.num_leaves == 5
    copy = clone(model)
    assert copy.estimator is not model.estimator
    assert copy.get_params()["estimator__num_leaves"] == 5
    assert repr(QueryRanker(Ridge(), library="pointwise")) == (
        "QueryRanker(estimator=Ridge(), library='pointwise')"
    )
    fitted = model.fit(X, y, groups=qid)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))


# SkipTestWarning: check_estimator skips its array-API check without
# SCIPY_ARRAY_API; that skip is scikit-learn's, not ours.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
def test_query_ranker_passes_check_estimator_except_score_without_groups():
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(QueryRanker(Ridge()), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    # These two call score(X, y) with numpy X and no groups: a ranking score
    # needs the queries, so they must fail, with skirm's error.
    assert failed == {"check_fit_score_takes_y", "check_pipeline_consistency"}
    for r in results:
        if r["status"] == "failed":
            assert "needs the query of each row" in str(r["exception"])
    assert sum(r["status"] == "passed" for r in results) >= 40


@pytest.mark.parametrize(
    "model, kwargs, error, match",
    [
        (QueryRanker(LGBMStandIn()), {}, ValueError, "enable metadata routing"),
        (QueryRanker(Ridge(), library="sklearn"), {}, ValueError, "`library` must"),
        (QueryRanker(None), {}, TypeError, "`estimator` must be an estimator"),
        (QueryRanker(Ridge(), metric="ndcgg"), {}, ValueError, "unknown measure"),
        (QueryRanker(Ridge()), {"y": np.zeros(3)}, ValueError, "`y` must be 1-D"),
        (
            QueryRanker(LGBMStandIn()),
            {"groups": np.zeros(3)},
            ValueError,
            "`groups` must have one label per row",
        ),
        (
            QueryRanker(Ridge()),
            {"sample_weight": np.ones(2)},
            ValueError,
            "`sample_weight` must be 1-D",
        ),
        (
            QueryRanker(LGBMStandIn(), groups_from=1),
            {},
            TypeError,
            "`groups_from` must be",
        ),
    ],
)
def test_query_ranker_errors(model, kwargs, error, match, data):
    X, y, _ = data
    args = {"y": y, **kwargs}
    with pytest.raises(error, match=match):
        model.fit(X, **args)


def test_score_without_groups_names_the_fixes(data):
    X, y, _ = data
    model = QueryRanker(Ridge()).fit(X, y)
    with pytest.raises(ValueError, match="level named 'qid'"):
        model.score(X, y)
    with pytest.raises(sklearn.exceptions.NotFittedError, match="not fitted"):
        QueryRanker(Ridge()).predict(X)


# --------------------------------------------------------------------------
# Pair sampling and PairwiseRanker
# --------------------------------------------------------------------------


def test_sample_pairs_enumerates_every_pair():
    codes = np.array([2, 0, 2, 1, 0, 2, 1, 2])
    a, b = sample_pairs(codes)
    pairs = {tuple(sorted(p)) for p in zip(a.tolist(), b.tolist(), strict=True)}
    expected = {
        (i, j)
        for i in range(len(codes))
        for j in range(i + 1, len(codes))
        if codes[i] == codes[j]
    }
    assert pairs == expected and len(a) == len(expected)


def test_sample_pairs_caps_each_query():
    rng = np.random.default_rng(0)
    codes = np.repeat(np.arange(50), rng.integers(1, 40, size=50))
    sizes = np.bincount(codes)
    a, b = sample_pairs(codes, 25, random_state=0)
    assert np.all(codes[a] == codes[b]) and np.all(a != b)
    per_query = np.bincount(codes[a], minlength=50)
    np.testing.assert_array_equal(per_query, np.minimum(sizes * (sizes - 1) // 2, 25))
    a2, _ = sample_pairs(codes, 25, random_state=0)
    np.testing.assert_array_equal(a, a2)


def test_sample_pairs_on_large_input():
    # Its speed is the benchmarks' business; here, 20,000 queries at once.
    codes = np.repeat(np.arange(20_000), 25)  # 500,000 rows
    a, b = sample_pairs(codes, 100, random_state=0)
    assert a.shape == (2_000_000,) and np.all(codes[a] == codes[b]) and np.all(a != b)
    assert np.array_equal(np.bincount(codes[a], minlength=20_000), np.full(20_000, 100))


def test_pairwise_ranker_learns_the_linear_signal():
    X, y, qid = make_ranking(
        n_groups=80, n_features=6, noise=0.05, no_relevant_fraction=0.0, random_state=1
    )
    model = PairwiseRanker(random_state=0).fit(X, y, groups=qid)
    assert model.n_pairs_ > 0
    assert model.score(X, y, groups=qid) > 0.9
    # It beats a random ranking by far.
    noise = np.random.default_rng(0).normal(size=y.shape[0])
    assert model.score(X, y, groups=qid) > ndcg_score(y, noise, groups=qid, k=10) + 0.2
    # predict is the linear decision function of the rows.
    np.testing.assert_allclose(model.predict(X), X @ model.estimator_.coef_.ravel())


def test_pairwise_ranker_inputs(data):
    X, y, qid = data
    base = PairwiseRanker(random_state=0).fit(X, y, groups=qid)
    # Same rows, index-level groups, sparse X: same model.
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    framed = PairwiseRanker(random_state=0).fit(frame, y)
    np.testing.assert_allclose(framed.predict(frame), base.predict(X))
    sparse = PairwiseRanker(random_state=0).fit(sp.csr_matrix(X), y, groups=qid)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), base.predict(X))
    # Weights change the fit; a classifier without decision_function works.
    w = (qid % 3 + 1).astype(float)
    weighted = PairwiseRanker(random_state=0).fit(X, y, groups=qid, sample_weight=w)
    assert not np.allclose(weighted.predict(X), base.predict(X))
    nb = PairwiseRanker(GaussianNB(), random_state=0).fit(X, y, groups=qid)
    assert nb.predict(X).shape == y.shape
    # The caller's arrays are not modified.
    assert np.array_equal(qid, data[2]) and X.flags.writeable


def test_pairwise_ranker_clone_and_params():
    model = PairwiseRanker(LogisticRegression(C=0.5), max_pairs_per_group=10)
    assert clone(model).get_params()["estimator__C"] == 0.5
    assert "max_pairs_per_group=10" in repr(model)


@pytest.mark.parametrize(
    "model, kwargs, error, match",
    [
        (PairwiseRanker(max_pairs_per_group=0), {}, ValueError, "max_pairs_per_group"),
        (PairwiseRanker(max_pairs_per_group=2.5), {}, ValueError, "positive integer"),
        (PairwiseRanker(), {"groups": None}, ValueError, "enable metadata routing"),
        (
            PairwiseRanker(),
            {"y": np.zeros(5)},
            ValueError,
            "`y` must be 1-D with one label per row",
        ),
        (PairwiseRanker(metric="x@1"), {}, ValueError, "unknown measure 'x@1'"),
    ],
)
def test_pairwise_ranker_errors(model, kwargs, error, match, data):
    X, y, qid = data
    args = {"y": y, "groups": qid, **kwargs}
    with pytest.raises(error, match=match):
        model.fit(X, **args)


def test_pairwise_ranker_needs_discordant_pairs():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match="no pair of rows within a query"):
        PairwiseRanker().fit(X, [1, 1, 0, 0, 2, 2], groups=[0, 0, 1, 1, 2, 2])
