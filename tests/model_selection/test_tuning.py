"""Tuning rankers: early stopping inside CV, CatBoost, XGBoost's qid column.

The validation history each library reports is recomputed with skirm's
metrics on the validation rows (the options that make them equal are the
user guide's table), every fold of a search is recomputed from a refitted
clone, and the validation queries are checked against the rows each library
was trained on.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from _data import mq2008_vali, shuffled_ranking
from catboost import CatBoostRanker
from lightgbm import LGBMRanker
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV
from xgboost import XGBRanker

from skirm.metrics import make_ranking_scorer, ndcg_score
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import QueryRanker

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def mq2008(shared_data):
    return mq2008_vali(shared_data, 80, shuffle_seed=0)  # rows unsorted


def _synthetic(n_groups=45, seed=0):
    return shuffled_ranking(n_groups, seed=seed)


def _lightgbm(**params):
    return LGBMRanker(
        **{"n_estimators": 40, "num_leaves": 7, "n_jobs": 1, "verbose": -1, **params}
    )


def _xgboost(**params):
    return XGBRanker(
        **{"n_estimators": 40, "max_depth": 3, "n_jobs": 1, "tree_method": "hist"}
        | params
    )


def _catboost(loss="YetiRank", **params):
    return CatBoostRanker(
        **{
            "loss_function": loss,
            "iterations": 40,
            "depth": 3,
            "thread_count": 1,
            "verbose": 0,
            "allow_writing_files": False,
            "random_seed": 0,
        }
        | params
    )


#: How skirm's ndcg equals each library's own NDCG@k (the user guide's table):
#: exponential gain, a query without relevant rows scores 1, and ties broken
#: by row order (LightGBM, XGBoost) or pessimistically (CatBoost).
LIBRARY_NDCG = {
    "lightgbm": {"gain": "exponential", "no_relevant": 1.0, "ties": "first"},
    "xgboost": {"gain": "exponential", "no_relevant": 1.0, "ties": "first"},
    "catboost": {"gain": "exponential", "no_relevant": 1.0, "ties": "pessimistic"},
}

RANKERS = {
    "lightgbm": _lightgbm,
    "xgboost": _xgboost,
    "catboost-YetiRank": lambda: _catboost("YetiRank"),
    "catboost-QueryRMSE": lambda: _catboost("QueryRMSE"),
    "catboost-PairLogit": lambda: _catboost("PairLogit"),
}


def _library(name):
    return name.split("-")[0]


# --------------------------------------------------------------------------
# Early stopping: the library's history equals skirm's metric
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(RANKERS))
def test_early_stopping_history_equals_skirm_metric(name, mq2008):
    X, y, qid = mq2008
    model = QueryRanker(
        RANKERS[name](),
        validation_fraction=0.3,
        early_stopping_rounds=3,
        eval_metric="ndcg@10",
        random_state=0,
    ).fit(X, y, groups=qid)
    val = np.isin(qid, model.validation_groups_)
    assert np.unique(qid[val]).size == 24  # ceil(0.3 * 80) whole queries
    history = model.evals_result_[model.eval_metric_]
    assert model.best_score_ == history[model.best_iteration_]
    # The model predicts with its best round: its validation NDCG@10 is the
    # library's best score, recomputed by skirm with the library's options.
    options = LIBRARY_NDCG[_library(name)]
    ours = ndcg_score(y[val], model.predict(X[val]), groups=qid[val], k=10, **options)
    assert ours == pytest.approx(model.best_score_, abs=1e-6)
    # Early stopping stopped: the history ends rounds after the best round.
    assert history.shape[0] <= model.best_iteration_ + 1 + 3
    assert history.shape[0] < 40 or model.best_iteration_ >= 36


@pytest.mark.oracle
@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_library_ndcg_equals_skirm_only_with_its_options(library, mq2008):
    """The table's options matter: a neighbouring option gives another value."""
    X, y, qid = mq2008
    model = QueryRanker(
        RANKERS[library if library != "catboost" else "catboost-YetiRank"](),
        validation_fraction=0.3,
        eval_metric="ndcg@5",
        random_state=1,
    ).fit(X, y, groups=qid)
    val = np.isin(qid, model.validation_groups_)
    pred = model.predict(X[val])
    options = LIBRARY_NDCG[library]
    last = model.evals_result_[model.eval_metric_][-1]
    assert model.best_iteration_ == 39  # no early stopping: the last round
    assert ndcg_score(y[val], pred, groups=qid[val], k=5, **options) == pytest.approx(
        last, abs=1e-6
    )
    for change in ({"gain": "linear"}, {"no_relevant": 0.0}):
        other = ndcg_score(y[val], pred, groups=qid[val], k=5, **{**options, **change})
        assert other != pytest.approx(last, abs=1e-4), change


# --------------------------------------------------------------------------
# No validation query among the training rows
# --------------------------------------------------------------------------


def _recording(cls):
    """A subclass (same library) that keeps what its fit received."""

    def fit(self, X, y, **kwargs):
        self.seen_ = {"X": np.asarray(X), **kwargs}
        return cls.fit(self, X, y, **kwargs)

    return type(cls.__name__, (cls,), {"fit": fit, "__module__": cls.__module__})


def _validation_rows(library, seen):
    if library == "lightgbm":  # eval_X from 4.7, eval_set before
        if "eval_X" in seen:
            return np.asarray(seen["eval_X"][0])
        return np.asarray(seen["eval_set"][0][0])
    if library == "xgboost":
        return np.asarray(seen["eval_set"][0][0])
    return np.asarray(seen["eval_set"].get_features())


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
@pytest.mark.parametrize("fraction", [0.2, 3])
def test_validation_queries_never_trained_on(library, fraction):
    X, y, qid = _synthetic()
    X = np.column_stack([qid.astype(float), X])  # column 0 names the query
    base = {"lightgbm": _lightgbm, "xgboost": _xgboost, "catboost": _catboost}[
        library
    ]()
    estimator = _recording(type(base))(**base.get_params())
    model = QueryRanker(
        estimator, validation_fraction=fraction, early_stopping_rounds=2, random_state=0
    ).fit(X, y, groups=qid)
    seen = model.estimator_.seen_
    trained = np.unique(seen["X"][:, 0])
    validated = np.unique(_validation_rows(library, seen)[:, 0])
    assert np.intersect1d(trained, validated).size == 0
    np.testing.assert_array_equal(validated, model.validation_groups_)
    expected = int(np.ceil(fraction * 45)) if isinstance(fraction, float) else fraction
    assert validated.size == expected
    # Every query lies whole on one side.
    np.testing.assert_array_equal(np.union1d(trained, validated), np.unique(qid))
    assert seen["X"].shape[0] + np.isin(qid, validated).sum() == y.shape[0]


def test_validation_split_is_seeded():
    X, y, qid = _synthetic()

    def fit(seed):
        return QueryRanker(
            _lightgbm(), validation_fraction=0.25, random_state=seed
        ).fit(X, y, groups=qid)

    a, b, c = fit(0), fit(0), fit(1)
    np.testing.assert_array_equal(a.validation_groups_, b.validation_groups_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert not np.array_equal(a.validation_groups_, c.validation_groups_)


# --------------------------------------------------------------------------
# Early stopping inside GridSearchCV
# --------------------------------------------------------------------------


#: A small grid per library.
GRIDS = {
    "lightgbm": {"estimator__num_leaves": [3, 7]},
    "xgboost": {"estimator__max_depth": [2, 3]},
    "catboost": {"estimator__depth": [2, 3]},
}


def _es_search(model, **kwargs):
    library = type(model.estimator).__module__.split(".")[0]
    return GridSearchCV(
        model,
        GRIDS[library],
        cv=QueryGroupKFold(3, shuffle=True, random_state=0),
        scoring=make_ranking_scorer(["ndcg@10", "map"]),
        refit="ndcg@10",
        error_score="raise",
        **kwargs,
    )


def _results(search):
    return {
        key: value
        for key, value in search.cv_results_.items()
        if "time" not in key and key != "params"
    }


@pytest.mark.oracle
@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_grid_search_with_early_stopping_routing_on_off_and_by_hand(library):
    X, y, qid = _synthetic()
    build = {"lightgbm": _lightgbm, "xgboost": _xgboost, "catboost": _catboost}
    model = QueryRanker(
        build[library](),
        validation_fraction=0.25,
        early_stopping_rounds=3,
        eval_metric="ndcg@10",
        random_state=0,
    )
    with sklearn.config_context(enable_metadata_routing=True):
        on = _es_search(model).fit(X, y, groups=qid)
        again = _es_search(model).fit(X, y, groups=qid)
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    off = _es_search(model).fit(frame, y)
    for other in (again, off):  # determinism, and routing on = off
        for key, value in _results(on).items():
            np.testing.assert_array_equal(value, _results(other)[key], err_msg=key)
    # Every fold recomputed from a refitted clone.
    cv = QueryGroupKFold(3, shuffle=True, random_state=0)
    stopped = []
    for c, params in enumerate(on.cv_results_["params"]):
        for i, (train, test) in enumerate(cv.split(X, y, qid)):
            est = clone(model).set_params(**params).fit(X[train], y[train], qid[train])
            # The validation queries came out of the training fold.
            assert np.isin(est.validation_groups_, qid[train]).all()
            assert not np.isin(est.validation_groups_, qid[test]).any()
            stopped.append(est.best_iteration_)
            expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
            got = on.cv_results_[f"split{i}_test_ndcg@10"][c]
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert min(stopped) < 39  # early stopping did stop some fits
    assert on.best_estimator_.best_iteration_ >= 0


def test_user_eval_set_in_grid_search_routing_on_and_off():
    X, y, qid = _synthetic(seed=0)
    X_val, y_val, qid_val = _synthetic(n_groups=15, seed=1)
    qid_val = qid_val + 1000  # other queries than the training ones
    model = QueryRanker(_lightgbm(), early_stopping_rounds=3, eval_metric="ndcg@10")
    eval_set = (X_val, y_val, qid_val)
    with sklearn.config_context(enable_metadata_routing=True):
        on = _es_search(model).fit(X, y, groups=qid, eval_set=eval_set)
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    off = _es_search(model).fit(frame, y, eval_set=eval_set)
    for key, value in _results(on).items():
        np.testing.assert_array_equal(value, _results(off)[key], err_msg=key)
    best = on.best_estimator_
    np.testing.assert_array_equal(best.validation_groups_, np.unique(qid_val))
    ours = ndcg_score(
        y_val, best.predict(X_val), groups=qid_val, k=10, **LIBRARY_NDCG["lightgbm"]
    )
    assert ours == pytest.approx(best.best_score_, abs=1e-6)


def test_user_eval_set_from_a_frame_index():
    X, y, qid = _synthetic(seed=0)
    X_val, y_val, qid_val = _synthetic(n_groups=10, seed=2)
    frame = pd.DataFrame(X, index=pd.Index(qid, name="qid"))
    val_frame = pd.DataFrame(X_val, index=pd.Index(qid_val + 500, name="qid"))
    model = QueryRanker(_xgboost(), early_stopping_rounds=2).fit(
        X, y, groups=qid, eval_set=(X_val, y_val, qid_val + 500)
    )
    framed = QueryRanker(_xgboost(), early_stopping_rounds=2).fit(
        frame, y, eval_set=(val_frame, y_val, None)
    )
    assert framed.eval_metric_ == model.eval_metric_ == "ndcg@32"  # XGBoost's own
    np.testing.assert_array_equal(
        framed.evals_result_["ndcg@32"], model.evals_result_["ndcg@32"]
    )


def test_fitted_attributes_follow_the_last_fit():
    X, y, qid = _synthetic()
    model = QueryRanker(_lightgbm(), validation_fraction=0.2, random_state=0)
    model.fit(X, y, groups=qid)
    assert hasattr(model, "best_iteration_")
    model.set_params(validation_fraction=None).fit(X, y, groups=qid)
    assert not hasattr(model, "best_iteration_")
    assert not hasattr(model, "evals_result_")


@pytest.mark.parametrize(
    "model, kwargs, error, match",
    [
        (
            QueryRanker(_lightgbm(), early_stopping_rounds=5),
            {},
            ValueError,
            "`early_stopping_rounds` needs a validation set",
        ),
        (
            QueryRanker(_lightgbm(), eval_metric="ndcg@5"),
            {},
            ValueError,
            "`eval_metric` needs a validation set",
        ),
        (
            QueryRanker(HistGradientBoostingRegressor(), validation_fraction=0.2),
            {},
            ValueError,
            "fitted pointwise",
        ),
        (
            QueryRanker(_lightgbm(), validation_fraction=0.2),
            {"eval_set": "EVAL"},
            ValueError,
            "either `validation_fraction`",
        ),
        (
            QueryRanker(_lightgbm(), validation_fraction=0.2, eval_metric=5),
            {},
            ValueError,
            "`eval_metric` must be None .* a registered metric name",
        ),
        (
            QueryRanker(_lightgbm(), validation_fraction=0.2, eval_metric="nap@5"),
            {},
            ValueError,
            "unknown measure 'nap@5'",
        ),
        (
            QueryRanker(_lightgbm(), validation_fraction=1.5),
            {},
            ValueError,
            "`validation_fraction` must be None, a fraction",
        ),
        (
            QueryRanker(_lightgbm(), validation_fraction=45),
            {},
            ValueError,
            "holds out 45 of the 45 training queries",
        ),
        (
            QueryRanker(_lightgbm(), early_stopping_rounds=0),
            {},
            ValueError,
            "`early_stopping_rounds` must be None or a positive integer, got 0",
        ),
        (
            QueryRanker(_lightgbm(), max_queries=2.5),
            {},
            TypeError,
            "`max_queries` must be None or a positive integer",
        ),
        (
            QueryRanker(_lightgbm()),
            {"eval_set": (np.zeros((2, 2)), [0, 1])},
            TypeError,
            r"`eval_set` must be a tuple \(X_val, y_val, groups_val\)",
        ),
        (
            QueryRanker(_lightgbm()),
            {"eval_set": "EVAL-SAME"},
            ValueError,
            "its queries also appear in `groups`",
        ),
        (
            QueryRanker(_lightgbm()),
            {"eval_set": "EVAL-BADY"},
            ValueError,
            "`y_val` must be 1-D with one label per row",
        ),
    ],
)
def test_early_stopping_errors(model, kwargs, error, match):
    X, y, qid = _synthetic()
    if kwargs.get("eval_set") == "EVAL":
        kwargs = {"eval_set": (X[:5], y[:5], qid[:5] + 1000)}
    elif kwargs.get("eval_set") == "EVAL-SAME":
        kwargs = {"eval_set": (X[:5], y[:5], qid[:5])}
    elif kwargs.get("eval_set") == "EVAL-BADY":
        kwargs = {"eval_set": (X[:5], y[:4], qid[:5] + 1000)}
    with pytest.raises(error, match=match):
        model.fit(X, y, groups=qid, **kwargs)


# --------------------------------------------------------------------------
# CatBoost, for real
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("loss", ["YetiRank", "QueryRMSE", "PairLogit"])
def test_catboost_unsorted_input_equals_grouped_direct_fit(loss):
    X, y, qid = _synthetic()
    model = QueryRanker(_catboost(loss, iterations=8)).fit(X, y, groups=qid)
    assert model.library_ == "catboost"
    order = np.argsort(qid, kind="stable")
    direct = _catboost(loss, iterations=8).fit(X[order], y[order], group_id=qid[order])
    np.testing.assert_allclose(model.predict(X), direct.predict(X), rtol=1e-12)
    # CatBoost's own NDCG of the training data equals skirm's with its options.
    own = direct.score(X[order], y[order], group_id=qid[order], top=10, type="Exp")
    ours = ndcg_score(y, model.predict(X), groups=qid, k=10, **LIBRARY_NDCG["catboost"])
    assert ours == pytest.approx(own, abs=1e-9)


@pytest.mark.oracle
def test_catboost_in_grid_search_routing_on_off_and_by_hand():
    X, y, qid = _synthetic()
    model = QueryRanker(_catboost("YetiRank", iterations=6))
    search = lambda: GridSearchCV(  # noqa: E731
        model,
        {"estimator__depth": [2, 4]},
        cv=QueryGroupKFold(3, shuffle=True, random_state=0),
        scoring=make_ranking_scorer("ndcg@10"),
        error_score="raise",
    )
    with sklearn.config_context(enable_metadata_routing=True):
        on = search().fit(X, y, groups=qid)
    off = search().fit(pd.DataFrame(X, index=pd.Index(qid, name="qid")), y)
    for key, value in _results(on).items():
        np.testing.assert_array_equal(value, _results(off)[key], err_msg=key)
    cv = QueryGroupKFold(3, shuffle=True, random_state=0)
    for c, params in enumerate(on.cv_results_["params"]):
        for i, (train, test) in enumerate(cv.split(X, y, qid)):
            est = clone(model).set_params(**params).fit(X[train], y[train], qid[train])
            expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
            assert on.cv_results_[f"split{i}_test_score"][c] == pytest.approx(
                expected, rel=1e-12
            )


# --------------------------------------------------------------------------
# XGBoost's own qid column
# --------------------------------------------------------------------------


def test_xgboost_qid_column_is_the_query_not_a_feature():
    X, y, qid = _synthetic()
    columns = [f"f{i}" for i in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns).assign(qid=qid)
    # Called directly, XGBoost refuses the column together with qid=.
    order = np.argsort(qid, kind="stable")
    with pytest.raises(ValueError, match="Found both the special column `qid`"):
        _xgboost().fit(frame.iloc[order], y[order], qid=qid[order])
    # QueryRanker reads the column as the queries (groups_from="qid") and
    # passes the ids once, as qid=, whether or not groups is also given.
    from_column = QueryRanker(_xgboost()).fit(frame, y)
    with_groups = QueryRanker(_xgboost()).fit(frame, y, groups=qid)
    plain = QueryRanker(_xgboost()).fit(frame[columns], y, groups=qid)
    assert list(from_column.feature_names_in_) == columns
    for model in (from_column, with_groups):
        np.testing.assert_array_equal(
            model.predict(frame), plain.predict(frame[columns])
        )
    # In a search without routing the column carries the queries everywhere.
    search = GridSearchCV(
        QueryRanker(_xgboost(n_estimators=5)),
        {"estimator__max_depth": [2, 3]},
        cv=QueryGroupKFold(3),
        scoring=make_ranking_scorer("ndcg@10"),
        error_score="raise",
    ).fit(frame, y)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GridSearchCV(
            QueryRanker(_xgboost(n_estimators=5)),
            {"estimator__max_depth": [2, 3]},
            cv=QueryGroupKFold(3),
            scoring=make_ranking_scorer("ndcg@10"),
            error_score="raise",
        ).fit(frame[columns], y, groups=qid)
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_score"], routed.cv_results_["mean_test_score"]
    )
