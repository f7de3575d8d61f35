"""make_ranking_scorer, RankingScorer and get_scorer."""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.naive_bayes import GaussianNB

import skirm
from skirm.datasets import make_ranking
from skirm.metrics import (
    RankingScorer,
    evaluate,
    get_metric,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
    ndcg_score,
    precision_at_k_score,
)
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import QueryRanker

_SKLEARN_FORWARDS_WEIGHTS = tuple(
    int(part) for part in sklearn.__version__.split(".")[:2]
) >= (1, 7)


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_groups=25, random_state=0)
    model = Ridge().fit(X, y)
    return X, y, qid, model


class CountingRegressor(RegressorMixin, BaseEstimator):
    """Predicts the first feature and counts the calls."""

    def fit(self, X, y):
        self.calls_ = 0
        return self

    def predict(self, X):
        self.calls_ += 1
        return np.asarray(X)[:, 0]


class ProbaOnly(ClassifierMixin, BaseEstimator):
    """A classifier with predict and predict_proba but no decision_function."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-np.asarray(X)[:, 0]))
        return np.column_stack([1 - p, p])


class NoResponse(BaseEstimator):
    def fit(self, X, y):
        return self


class TwoColumns(RegressorMixin, BaseEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros((len(X), 2))


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


def test_single_metric_equals_the_metric_function(data):
    X, y, qid, model = data
    scorer = make_ranking_scorer("ndcg@10")
    assert scorer(model, X, y, groups=qid) == ndcg_score(
        y, model.predict(X), groups=qid, k=10
    )
    assert isinstance(scorer(model, X, y, groups=qid), float)


def test_multi_metric_predicts_once_and_matches_evaluate(data):
    X, y, qid, _ = data
    model = CountingRegressor().fit(X, y)
    names = ["ndcg@10", "map", "mrr@10", "precision@5", "err@10"]
    scores = make_ranking_scorer(names)(model, X, y, groups=qid)
    assert model.calls_ == 1
    expected = evaluate(y, X[:, 0], groups=qid, metrics=names).means
    assert scores == expected
    assert list(scores) == names


def test_options_reach_every_metric_that_takes_them(data):
    X, y, qid, model = data
    scorer = make_ranking_scorer(
        ["ndcg@5", "precision@5"],
        gain="exponential",
        relevance_threshold=2,
        no_relevant=1.0,
        ties="pessimistic",
    )
    scores = scorer(model, X, y, groups=qid)
    pred = model.predict(X)
    common = dict(groups=qid, no_relevant=1.0, ties="pessimistic")
    assert scores["ndcg@5"] == ndcg_score(y, pred, k=5, gain="exponential", **common)
    assert scores["precision@5"] == precision_at_k_score(
        y, pred, k=5, relevance_threshold=2, **common
    )
    assert scores["ndcg@5"] != make_ranking_scorer("ndcg@5")(model, X, y, groups=qid)


def test_metric_function_and_dict_forms(data):
    X, y, qid, model = data
    pred = model.predict(X)
    by_function = make_ranking_scorer(ndcg_score, k=3, gain="exponential")
    assert by_function(model, X, y, groups=qid) == ndcg_score(
        y, pred, groups=qid, k=3, gain="exponential"
    )
    named = make_ranking_scorer({"top": "ndcg@3", "all": get_metric("ndcg")})
    scores = named(model, X, y, groups=qid)
    assert scores == {
        "top": ndcg_score(y, pred, groups=qid, k=3),
        "all": ndcg_score(y, pred, groups=qid),
    }
    assert named.multimetric and not by_function.multimetric
    assert set(named.metrics) == {"top", "all"}
    # A one-element list still gives a dict (usable with refit=<name>).
    assert list(make_ranking_scorer(["map"])(model, X, y, groups=qid)) == ["map"]


def test_sample_weight_gives_the_weighted_mean(data):
    X, y, qid, model = data
    weights = (qid % 3 + 1).astype(float)
    scorer = make_ranking_scorer("ndcg@10")
    weighted = scorer(model, X, y, groups=qid, sample_weight=weights)
    pred = model.predict(X)
    assert weighted == ndcg_score(y, pred, groups=qid, k=10, sample_weight=weights)
    assert weighted != scorer(model, X, y, groups=qid)
    assert scorer._accept_sample_weight() is True


# --------------------------------------------------------------------------
# Response methods
# --------------------------------------------------------------------------


def test_classifier_uses_decision_function_not_labels(data):
    X, y, qid, _ = data
    clf = LogisticRegression().fit(X, (y > 0).astype(int))
    expected = ndcg_score(y, clf.decision_function(X), groups=qid)
    assert make_ranking_scorer("ndcg")(clf, X, y, groups=qid) == expected
    # predict_proba's last column ranks the same way.
    proba = make_ranking_scorer("ndcg", response_method="predict_proba")
    assert proba(clf, X, y, groups=qid) == pytest.approx(expected, rel=1e-12)
    labels = make_ranking_scorer("ndcg", response_method="predict")
    assert labels(clf, X, y, groups=qid) == ndcg_score(y, clf.predict(X), groups=qid)


def test_predict_proba_fallback(data):
    X, y, qid, _ = data
    clf = ProbaOnly().fit(X, y)
    expected = ndcg_score(y, clf.predict_proba(X)[:, -1], groups=qid)
    assert make_ranking_scorer("ndcg")(clf, X, y, groups=qid) == expected
    nb = GaussianNB().fit(X, (y > 0).astype(int))
    assert make_ranking_scorer("ndcg")(nb, X, y, groups=qid) == ndcg_score(
        y, nb.predict_proba(X)[:, -1], groups=qid
    )


def test_response_method_order_is_configurable(data):
    X, y, qid, _ = data
    clf = ProbaOnly().fit(X, y)
    scorer = make_ranking_scorer(
        "ndcg", response_method=["decision_function", "predict"]
    )
    assert scorer(clf, X, y, groups=qid) == ndcg_score(y, clf.predict(X), groups=qid)
    assert "response_method=['decision_function', 'predict']" in repr(scorer)


def test_response_errors(data):
    X, y, qid, _ = data
    with pytest.raises(TypeError, match="none of the response methods"):
        make_ranking_scorer("ndcg")(NoResponse().fit(X, y), X, y, groups=qid)
    with pytest.raises(ValueError, match="one score per row"):
        make_ranking_scorer("ndcg")(TwoColumns().fit(X, y), X, y, groups=qid)
    for bad in ["predict_log_proba", [], ("predict", 3), None]:
        with pytest.raises(ValueError, match="`response_method` must be"):
            make_ranking_scorer("ndcg", response_method=bad)


# --------------------------------------------------------------------------
# Where the query ids come from
# --------------------------------------------------------------------------


def test_groups_from_index_level_and_column(data):
    X, y, qid, model = data
    expected = make_ranking_scorer("ndcg@10")(model, X, y, groups=qid)
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    model_f = Ridge().fit(frame, y)
    assert make_ranking_scorer("ndcg@10")(model_f, frame, y) == expected
    # A MultiIndex level with another name.
    multi = pd.DataFrame(
        X,
        index=pd.MultiIndex.from_arrays([qid, np.arange(len(y))], names=["q", "doc"]),
    )
    assert make_ranking_scorer("ndcg@10", groups_from="q")(model_f, multi, y) == (
        expected
    )
    # A column: the scorer reads it, the model must ignore it.
    with_column = pd.DataFrame(X).assign(query=qid)

    class DropQuery(RegressorMixin, BaseEstimator):
        def predict(self, X):
            return model.predict(X.drop(columns="query").to_numpy())

    scorer = make_ranking_scorer("ndcg@10", groups_from="query")
    assert scorer(DropQuery(), with_column, y) == expected


def test_explicit_groups_win_over_the_index(data):
    X, y, qid, model = data
    frame = pd.DataFrame(X, index=pd.Index(np.zeros(len(y), int), name="qid"))
    model_f = Ridge().fit(frame, y)
    scorer = make_ranking_scorer("ndcg@10")
    assert scorer(model_f, frame, y, groups=qid) == scorer(model, X, y, groups=qid)


def test_missing_groups_names_both_fixes(data):
    X, y, qid, model = data
    scorer = make_ranking_scorer("ndcg@10")
    with pytest.raises(ValueError, match="enable_metadata_routing=True") as info:
        scorer(model, X, y)
    message = str(info.value)
    assert "index has a level named 'qid'" in message
    assert "error_score='raise'" in message
    frame = pd.DataFrame(X, index=pd.Index(qid, name="query"))
    with pytest.raises(ValueError, match="level named 'qid'"):
        scorer(model, frame, y)


def test_search_without_routing_and_numpy_x_is_not_silent(data):
    X, y, qid, _ = data
    search = GridSearchCV(
        Ridge(),
        {"alpha": [1.0]},
        cv=QueryGroupKFold(3),
        scoring=make_ranking_scorer("ndcg@10"),
        error_score="raise",
    )
    with pytest.raises(ValueError, match="needs the query of each row"):
        search.fit(X, y, groups=qid)


def test_cross_validate_without_routing_keeps_multimetric_keys(data):
    # scikit-learn replaces a failing callable scorer by one number, which
    # would rename test_ndcg@10 to test_score; the scorer keeps its keys.
    X, y, qid, _ = data
    scorer = make_ranking_scorer(["ndcg@10", "map"])
    with pytest.warns(UserWarning, match="Every metric of this scorer is set to NaN"):
        result = cross_validate(
            Ridge(), X, y, groups=qid, cv=QueryGroupKFold(3), scoring=scorer
        )
    assert np.isnan(result["test_ndcg@10"]).all()
    assert np.isnan(result["test_map"]).all()
    assert "test_score" not in result


# --------------------------------------------------------------------------
# Metadata routing
# --------------------------------------------------------------------------


def test_default_request_and_set_score_request():
    scorer = make_ranking_scorer("ndcg@10")
    routing = scorer.get_metadata_routing()
    assert routing.score.requests == {
        "groups": True,
        "sample_weight": None,
        "propensity": None,
    }
    assert scorer.set_score_request(sample_weight=True) is scorer
    assert scorer.get_metadata_routing().score.requests == {
        "groups": True,
        "sample_weight": True,
        "propensity": None,
    }
    scorer.set_score_request(groups="qid")
    assert scorer.get_metadata_routing().score.requests["groups"] == "qid"
    assert repr(scorer) == (
        "make_ranking_scorer('ndcg@10').set_score_request(groups='qid', "
        "sample_weight=True)"
    )
    with pytest.raises(ValueError, match="valid identifier"):
        scorer.set_score_request(groups="not an identifier")
    with pytest.raises(TypeError, match="unexpected keyword"):
        scorer.set_score_request(qid=True)


def test_routed_sample_weight_in_cross_validate(data):
    X, y, qid, _ = data
    weights = (qid % 2 + 1).astype(float)
    cv = QueryGroupKFold(3)
    scorer = make_ranking_scorer("ndcg@10").set_score_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True):
        model = Ridge().set_fit_request(sample_weight=False)
        result = cross_validate(
            model,
            X,
            y,
            cv=cv,
            scoring=scorer,
            params={"groups": qid, "sample_weight": weights},
        )
        unset = make_ranking_scorer("ndcg@10")
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            cross_validate(
                model,
                X,
                y,
                cv=cv,
                scoring=unset,
                params={"groups": qid, "sample_weight": weights},
            )
    for i, (train, test) in enumerate(cv.split(X, y, qid)):
        pred = Ridge().fit(X[train], y[train]).predict(X[test])
        expected = ndcg_score(
            y[test], pred, groups=qid[test], k=10, sample_weight=weights[test]
        )
        assert result["test_score"][i] == pytest.approx(expected, rel=1e-12)


def test_legacy_sample_weight_reaches_the_scorer(data):
    X, y, qid, _ = data
    weights = (qid % 2 + 1).astype(float)
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    search = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [1.0]},
        cv=QueryGroupKFold(3),
        scoring=make_ranking_scorer(["ndcg@10", "map"]),
        refit="ndcg@10",
        error_score="raise",
    ).fit(frame, y, sample_weight=weights)
    for i, (train, test) in enumerate(QueryGroupKFold(3).split(X, y, qid)):
        pred = Ridge().fit(X[train], y[train], sample_weight=weights[train])
        expected = ndcg_score(
            y[test],
            pred.predict(X[test]),
            groups=qid[test],
            k=10,
            # scikit-learn forwards fit's sample_weight to the scorer without
            # routing from 1.7 on; 1.6 scores unweighted
            sample_weight=weights[test] if _SKLEARN_FORWARDS_WEIGHTS else None,
        )
        got = search.cv_results_[f"split{i}_test_ndcg@10"][0]
        assert got == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------
# Object protocol: repr, pickle, clone, the ready scorers
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scorer, text",
    [
        (make_ranking_scorer("ndcg@10"), "make_ranking_scorer('ndcg@10')"),
        (
            make_ranking_scorer(
                ["ndcg@10", "map"], no_relevant=1.0, gain="exponential"
            ),
            "make_ranking_scorer(['ndcg@10', 'map'], no_relevant=1.0, "
            "gain='exponential')",
        ),
        (
            make_ranking_scorer(ndcg_score, k=5, ties="first", groups_from="q"),
            "make_ranking_scorer(ndcg_score, groups_from='q', ties='first', k=5)",
        ),
        (
            make_ranking_scorer({"a": "map", "b": get_metric("err@5")}),
            "make_ranking_scorer({'a': 'map', 'b': get_metric('err@5')})",
        ),
        (
            RankingScorer("mrr", response_method="predict_proba"),
            "make_ranking_scorer('mrr', response_method='predict_proba')",
        ),
    ],
)
def test_repr_reads_like_the_call(scorer, text):
    assert repr(scorer) == text


def test_pickle_clone_and_copy_round_trip(data):
    X, y, qid, model = data
    scorer = make_ranking_scorer(
        ["ndcg@10", "map"], gain="exponential", no_relevant="skip"
    ).set_score_request(sample_weight=True)
    expected = scorer(model, X, y, groups=qid)
    for other in (
        pickle.loads(pickle.dumps(scorer)),
        clone(scorer),
        copy.deepcopy(scorer),
    ):
        assert other is not scorer
        assert repr(other) == repr(scorer)
        assert other(model, X, y, groups=qid) == expected
        assert other.get_metadata_routing().score.requests == {
            "groups": True,
            "sample_weight": True,
            "propensity": None,
        }


def test_get_scorer_and_names(data):
    X, y, qid, model = data
    names = get_scorer_names()
    assert names == sorted(names) and "ndcg@10" in names and "map" in names
    for name in names:
        scorer = get_scorer(name)
        assert isinstance(scorer, RankingScorer)
        assert scorer(model, X, y, groups=qid) == get_metric(name)(
            y, model.predict(X), groups=qid
        )
    first = get_scorer("ndcg@10").set_score_request(sample_weight=True)
    assert (
        get_scorer("ndcg@10").get_metadata_routing().score.requests["sample_weight"]
        is None
    )
    assert get_scorer(first) is not first and repr(get_scorer(first)) == repr(first)
    assert repr(get_scorer("rbp")) == "make_ranking_scorer('rbp')"
    assert skirm.get_scorer is get_scorer
    with pytest.raises(ValueError, match="unknown measure 'ndcgg"):
        get_scorer("ndcgg@10")
    with pytest.raises(TypeError, match="`scoring` must be a metric name"):
        get_scorer(3)


# --------------------------------------------------------------------------
# Argument errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (("ndcg@10",), {"k": 5}, TypeError, r"put the cutoff in the name"),
        (("ndcg@10",), {"ignore_ties": True}, TypeError, "ties='first'"),
        (("ndcg@10",), {"foo": 1}, TypeError, "unexpected keyword argument 'foo'"),
        (("map",), {"gain": "exponential"}, TypeError, "taken by none"),
        (("ndcg",), {"gain": "square"}, ValueError, "`gain` must be one of"),
        (([],), {}, ValueError, "at least one metric"),
        ((["map", "map"],), {}, ValueError, "names 'map' twice"),
        (({1: "map"},), {}, TypeError, "keys of a `metric` dict must be strings"),
        (([ndcg_score],), {}, TypeError, "use a dict to name metric functions"),
        ((3,), {}, TypeError, "`metric` must be a metric name"),
        ((np.mean,), {}, ValueError, "sklearn.metrics.make_scorer"),
        ((precision_at_k_score,), {"k": 0}, ValueError, "`k` must be a positive"),
        (("rprec",), {"ties": "random"}, ValueError, "`ties` must be one of"),
        (("map",), {"no_relevant": 2}, ValueError, "`no_relevant` must be"),
        (("map",), {"groups_from": 0}, TypeError, "`groups_from` must be"),
        (("nope@3",), {}, ValueError, "unknown measure 'nope"),
        (({"a": 3},), {}, TypeError, "must be a metric name, a Metric"),
    ],
)
def test_argument_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        make_ranking_scorer(*args, **kwargs)


def test_metric_function_without_cutoff_rejects_k():
    from skirm.metrics import r_precision_score

    with pytest.raises(TypeError, match="takes no `k`"):
        make_ranking_scorer(r_precision_score, k=3)


def test_linear_regression_doctest_shape():
    # The scorer accepts lists and pandas objects for y.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = pd.Series([0, 1, 0, 1])
    model = LinearRegression().fit(X, [0, 1, 2, 3])
    value = make_ranking_scorer("mrr")(model, X, y, groups=[0, 0, 1, 1])
    assert value == 1.0
