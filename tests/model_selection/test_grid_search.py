"""End to end: GridSearchCV tunes rankers with skirm scorers and splitters.

Every search runs with metadata routing on (``fit(X, y, groups=qid)``) and off
(the query ids in a pandas index level, ``fit(X, y)``); both must give the same
``cv_results_``, and every fold's score is recomputed by hand with the metric
functions.
"""

import inspect

import numpy as np
import pandas as pd
import pytest
import sklearn
from _data import ROOT, mq2008_vali, shuffled_ranking
from lightgbm import LGBMRanker
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, cross_validate
from xgboost import XGBRanker

from skirm.datasets import make_ranking
from skirm.metrics import (
    get_scorer,
    make_ranking_scorer,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
)
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import PairwiseRanker, QueryRanker

pytestmark = pytest.mark.usefixtures("one_thread")

METRICS = ["ndcg@10", "map", "mrr@10"]


def _by_hand(name, y_true, y_score, groups):
    if name == "ndcg@10":
        return ndcg_score(y_true, y_score, groups=groups, k=10)
    if name == "map":
        return mean_average_precision_score(y_true, y_score, groups=groups)
    return mean_reciprocal_rank_score(y_true, y_score, groups=groups, k=10)


@pytest.fixture(scope="module")
def routing():
    """A context manager turning metadata routing on for one block."""
    return lambda: sklearn.config_context(enable_metadata_routing=True)


def _synthetic():
    return shuffled_ranking(45)  # rows unsorted


def _mq2008(shared_data):
    return mq2008_vali(shared_data, 60)  # 60 queries keep the test quick


def _frame(X, qid):
    columns = [f"f{i}" for i in range(X.shape[1])]
    return pd.DataFrame(X, columns=columns, index=pd.Index(qid, name="qid"))


MODELS = {
    "hgb": (
        HistGradientBoostingRegressor(max_iter=5, random_state=0),
        {"max_depth": [2, 3]},
    ),
    "pairwise": (
        PairwiseRanker(
            LogisticRegression(fit_intercept=False),
            max_pairs_per_group=30,
            random_state=0,
        ),
        {"estimator__C": [0.01, 1.0]},
    ),
    "lightgbm": (
        QueryRanker(LGBMRanker(n_estimators=5, n_jobs=1, verbose=-1)),
        {"estimator__num_leaves": [3, 7]},
    ),
    "xgboost": (
        QueryRanker(XGBRanker(n_estimators=4, n_jobs=1, tree_method="hist")),
        {"estimator__max_depth": [2, 3]},
    ),
}


def _search(model, grid, **kwargs):
    kwargs = {"scoring": make_ranking_scorer(METRICS), "refit": "ndcg@10", **kwargs}
    return GridSearchCV(
        clone(model),
        grid,
        cv=QueryGroupKFold(3, shuffle=True, random_state=0),
        error_score="raise",
        **kwargs,
    )


def _scores(search):
    return {
        key: value
        for key, value in search.cv_results_.items()
        if "test_" in key and not key.startswith("rank")
    }


@pytest.mark.oracle
@pytest.mark.parametrize("data", ["synthetic", "mq2008"])
@pytest.mark.parametrize("name", list(MODELS))
def test_grid_search_routing_on_off_and_by_hand(name, data, routing, shared_data):
    X, y, qid = _synthetic() if data == "synthetic" else _mq2008(shared_data)
    model, grid = MODELS[name]
    with routing():
        on = _search(model, grid).fit(X, y, groups=qid)
    off = _search(model, grid).fit(_frame(X, qid), y)

    on_scores, off_scores = _scores(on), _scores(off)
    assert on_scores.keys() == off_scores.keys()
    for key in on_scores:
        np.testing.assert_array_equal(on_scores[key], off_scores[key], err_msg=key)
    assert on.best_params_ == off.best_params_

    # Every fold's scores recomputed with the metric functions.
    splits = list(QueryGroupKFold(3, shuffle=True, random_state=0).split(X, y, qid))
    for c, params in enumerate(on.cv_results_["params"]):
        for i, (train, test) in enumerate(splits):
            est = clone(model).set_params(**params)
            if name == "hgb":
                est.fit(X[train], y[train])
            else:
                est.fit(X[train], y[train], groups=qid[train])
            pred = est.predict(X[test])
            for metric in METRICS:
                expected = _by_hand(metric, y[test], pred, qid[test])
                got = on.cv_results_[f"split{i}_test_{metric}"][c]
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # The refit saw every row and every query.
    assert on.best_estimator_.predict(X).shape == y.shape


@pytest.mark.oracle
def test_sklearn_make_scorer_with_skirm_metric_tunes_under_routing(routing):
    X, y, qid = _synthetic()
    model, grid = MODELS["lightgbm"]
    sk_scorer = make_scorer(ndcg_score, k=10)
    with routing():
        sk_scorer = sk_scorer.set_score_request(groups=True)
        plain = GridSearchCV(
            clone(model),
            grid,
            cv=QueryGroupKFold(3, shuffle=True, random_state=0),
            scoring=sk_scorer,
            error_score="raise",
        ).fit(X, y, groups=qid)
        ours = _search(model, grid).fit(X, y, groups=qid)
    np.testing.assert_array_equal(
        plain.cv_results_["mean_test_score"], ours.cv_results_["mean_test_ndcg@10"]
    )


def test_scoring_none_uses_the_ranker_score(routing):
    X, y, qid = _synthetic()
    model, grid = MODELS["lightgbm"]
    with routing():
        default = GridSearchCV(
            clone(model),
            grid,
            cv=QueryGroupKFold(3, shuffle=True, random_state=0),
            error_score="raise",
        ).fit(X, y, groups=qid)
        ours = _search(model, grid).fit(X, y, groups=qid)
    np.testing.assert_array_equal(
        default.cv_results_["mean_test_score"], ours.cv_results_["mean_test_ndcg@10"]
    )


def test_mixed_scoring_dict_with_sklearn_strings(routing):
    X, y, qid = _synthetic()
    scoring = {"ndcg": make_ranking_scorer("ndcg@10"), "r2": "r2"}
    kwargs = dict(
        cv=QueryGroupKFold(3), scoring=scoring, refit="ndcg", error_score="raise"
    )
    grid = {"max_depth": [2, 3]}
    model = MODELS["hgb"][0]
    with routing():
        on = GridSearchCV(clone(model), grid, **kwargs).fit(X, y, groups=qid)
    off = GridSearchCV(clone(model), grid, **kwargs).fit(_frame(X, qid), y)
    for key in ("mean_test_ndcg", "mean_test_r2"):
        np.testing.assert_array_equal(on.cv_results_[key], off.cv_results_[key])
    assert np.all(on.cv_results_["mean_test_ndcg"] > 0.5)


@pytest.mark.slow
# joblib's dask backend keeps its futures in a weak-key dict whose entries a
# weakref callback deletes (joblib/_dask.py, _WeakKeyDictionary); a callback
# that runs after the dict was cleared, or after its id was reused, raises a
# KeyError that Python reports as unraisable. It is joblib's bookkeeping at
# garbage collection, after the search, and seen once in many CI runs.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_parallel_loky_and_dask_give_serial_results(routing):
    from dask.distributed import Client, LocalCluster
    from joblib import parallel_config

    X, y, qid = _synthetic()
    model, grid = MODELS["lightgbm"]
    with routing():
        serial = _search(model, grid).fit(X, y, groups=qid)
        loky = _search(model, grid, n_jobs=2).fit(X, y, groups=qid)
        with (
            LocalCluster(
                n_workers=1,
                threads_per_worker=2,
                processes=False,
                dashboard_address=None,
            ) as cluster,
            Client(cluster),
            parallel_config(backend="dask"),
        ):
            dask = _search(model, grid, n_jobs=-1).fit(X, y, groups=qid)
    for other in (loky, dask):
        scores = _scores(other)
        for key, value in _scores(serial).items():
            np.testing.assert_array_equal(value, scores[key], err_msg=key)
        assert other.best_params_ == serial.best_params_
    # A ready scorer and a dict of them pickle to loky's processes as well.
    scoring = {"ndcg": get_scorer("ndcg@5"), "mrr": make_ranking_scorer("mrr")}
    with routing():
        serial, loky = (
            _search(model, grid, scoring=scoring, refit="ndcg", n_jobs=n_jobs).fit(
                X, y, groups=qid
            )
            for n_jobs in (1, 2)
        )
    for key, value in _scores(serial).items():
        np.testing.assert_array_equal(value, _scores(loky)[key], err_msg=key)


def test_cross_validate_routes_groups_through_params(routing):
    X, y, qid = _synthetic()
    model = QueryRanker(LGBMRanker(n_estimators=5, n_jobs=1, verbose=-1))
    cv = QueryGroupKFold(3, shuffle=True, random_state=1)
    scorer = make_ranking_scorer(["ndcg@10", "map"])
    with routing():
        result = cross_validate(
            model, X, y, cv=cv, scoring=scorer, params={"groups": qid}
        )
        with pytest.raises(ValueError, match="params"):
            cross_validate(model, X, y, cv=cv, scoring=scorer, groups=qid)
    for i, (train, test) in enumerate(cv.split(X, y, qid)):
        est = clone(model).fit(X[train], y[train], groups=qid[train])
        expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
        assert result["test_ndcg@10"][i] == pytest.approx(expected, rel=1e-12)


def test_randomized_search(routing):
    X, y, qid = _synthetic()
    model = QueryRanker(LGBMRanker(n_estimators=5, n_jobs=1, verbose=-1))
    kwargs = dict(
        n_iter=3,
        cv=QueryGroupKFold(3),
        scoring=make_ranking_scorer(METRICS),
        refit="map",
        random_state=0,
        error_score="raise",
    )
    space = {"estimator__num_leaves": [3, 5, 7, 15], "estimator__n_estimators": [3, 6]}
    with routing():
        on = RandomizedSearchCV(model, space, **kwargs).fit(X, y, groups=qid)
    off = RandomizedSearchCV(model, space, **kwargs).fit(_frame(X, qid), y)
    assert len(on.cv_results_["params"]) == 3
    np.testing.assert_array_equal(
        on.cv_results_["mean_test_map"], off.cv_results_["mean_test_map"]
    )
    assert on.best_params_ == off.best_params_


def test_permutation_importance_reads_the_index_level():
    X, y, qid = make_ranking(
        n_groups=40, n_features=6, noise=0.1, no_relevant_fraction=0.0, random_state=3
    )
    frame = _frame(X, qid)
    model = QueryRanker(LinearRegression()).fit(frame, y)
    scorer = make_ranking_scorer("ndcg@10")
    result = permutation_importance(
        model, frame, y, scoring=scorer, n_repeats=3, random_state=0
    )
    # make_ranking puts the signal in the first half of the features.
    informative = result.importances_mean[:3]
    noise = result.importances_mean[3:]
    assert informative.max() > 0.05
    assert np.abs(noise).max() < 0.02
    with pytest.raises(ValueError, match="index has a level named 'qid'"):
        permutation_importance(model, X, y, scoring=scorer, n_repeats=1)


@pytest.mark.oracle
@pytest.mark.parametrize("k", [5, 10])
def test_lightgbm_ndcg_reproduced(k, shared_data):
    X, y, qid = _mq2008(shared_data)
    sizes = np.unique(qid, return_counts=True)[1]
    model = LGBMRanker(n_estimators=5, num_leaves=7, n_jobs=1, verbose=-1)
    # LightGBM 4.7 takes eval_X/eval_y; older versions eval_set
    if "eval_X" in inspect.signature(LGBMRanker.fit).parameters:
        validation = {"eval_X": (X,), "eval_y": (y,)}
    else:
        validation = {"eval_set": [(X, y)]}
    model.fit(X, y, group=sizes, eval_group=[sizes], eval_at=[k], **validation)
    (lgb_value,) = [v[f"ndcg@{k}"][-1] for v in model.evals_result_.values()]
    # LightGBM breaks tied scores by row order (a stable sort): ties="first".
    scorer = make_ranking_scorer(
        f"ndcg@{k}", gain="exponential", no_relevant=1.0, ties="first"
    )
    assert scorer(model, X, y, groups=qid) == pytest.approx(lgb_value, abs=1e-12)
    # With averaged ties the value differs: the scorer's tie rule matters.
    averaged = make_ranking_scorer(f"ndcg@{k}", gain="exponential", no_relevant=1.0)
    assert averaged(model, X, y, groups=qid) != pytest.approx(lgb_value, abs=1e-9)


@pytest.mark.oracle
def test_xgboost_ndcg_and_ndcg_minus_reproduced(shared_data):
    X, y, qid = _mq2008(shared_data)
    names = ["ndcg@5", "ndcg@5-", "ndcg@10", "ndcg@10-"]
    model = XGBRanker(n_estimators=4, max_depth=3, n_jobs=1, eval_metric=names)
    model.fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid])
    values = model.evals_result()["validation_0"]
    for name in names:
        no_relevant = 0.0 if name.endswith("-") else 1.0
        scorer = make_ranking_scorer(
            name.rstrip("-"), gain="exponential", no_relevant=no_relevant, ties="first"
        )
        assert scorer(model, X, y, groups=qid) == pytest.approx(
            values[name][-1], abs=1e-12
        ), name
    assert values["ndcg@5"][-1] > values["ndcg@5-"][-1]  # queries without relevant


def test_routing_off_numpy_x_fails_with_both_fixes():
    X, y, qid = _synthetic()
    search = _search(*MODELS["hgb"])
    with pytest.raises(ValueError, match=r"enable metadata routing.*index has a level"):
        search.fit(X, y, groups=qid)


def test_pipeline_routes_groups_to_the_ranker(routing):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, qid = _synthetic()
    pipe = make_pipeline(StandardScaler(), PairwiseRanker(random_state=0))
    grid = {"pairwiseranker__max_pairs_per_group": [5, 50]}
    with routing():
        search = GridSearchCV(
            pipe,
            grid,
            cv=QueryGroupKFold(3),
            scoring=make_ranking_scorer("ndcg@10"),
            error_score="raise",
        ).fit(X, y, groups=qid)
    for c, params in enumerate(search.cv_results_["params"]):
        for i, (train, test) in enumerate(QueryGroupKFold(3).split(X, y, qid)):
            est = clone(pipe).set_params(**params)
            with routing():
                est.fit(X[train], y[train], groups=qid[train])
            expected = ndcg_score(y[test], est.predict(X[test]), groups=qid[test], k=10)
            assert search.cv_results_[f"split{i}_test_score"][c] == pytest.approx(
                expected, rel=1e-12
            )


def test_readme_story_runs():
    """The README's GridSearchCV section runs as written (with smaller models)."""
    import re

    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Tuning a ranker with GridSearchCV") :]
    end = section.find("\n## ", 3)  # the next section, if any
    if end != -1:
        section = section[:end]
    code = "\n".join(re.findall(r"```python\n(.*?)```", section, re.S))
    assert "search.fit(X, y, groups=qid)" in code and "search.fit(X_frame, y)" in code
    # small models, one thread: the README's own LGBMRanker takes minutes
    code, n = re.subn(r"LGBMRanker\(", "LGBMRanker(n_estimators=5, n_jobs=1, ", code)
    assert n == 1
    namespace = {"print": lambda *args: None}
    with sklearn.config_context():  # restores the routing flag the code sets
        exec(compile(code, "README.md", "exec"), namespace)
    search = namespace["search"]
    assert set(search.cv_results_) >= {"mean_test_ndcg@10", "mean_test_map"}
    assert np.isfinite(search.cv_results_["mean_test_mrr@10"]).all()
    assert not sklearn.get_config()["enable_metadata_routing"]
