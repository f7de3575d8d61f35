"""make_eval_metric: skirm's metrics as the libraries' validation metrics.

Under ``conventions="lightgbm"``/``"xgboost"`` skirm's ndcg@k and map@k are
held to the library's own metric on every boosting round, and early
stopping to the same round.
"""

import inspect
import pickle

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from _data import mq2008_vali, shuffled_ranking
from catboost import CatBoostRanker, Pool

from skirm import InvalidInputError, InvalidParameterError
from skirm.metrics import evaluate, get_metric
from skirm.ranker import make_eval_metric

pytestmark = [pytest.mark.usefixtures("one_thread")]


def _sorted(X, y, qid):
    order = np.argsort(qid, kind="stable")
    return X[order], y[order], qid[order]


def _sizes(qid):
    return np.unique(qid, return_counts=True)[1]


@pytest.fixture(scope="module")
def generated():
    X, y, qid = _sorted(*shuffled_ranking(160, (2, 30), seed=3))
    train = qid < np.unique(qid)[110]
    return (X[train], y[train], qid[train]), (X[~train], y[~train], qid[~train])


@pytest.fixture(scope="module")
def mq2008(shared_data):
    X, y, qid = mq2008_vali(shared_data, 150)  # rows grouped by query
    train = qid < np.unique(qid)[110]
    return (X[train], y[train], qid[train]), (X[~train], y[~train], qid[~train])


def _lightgbm_histories(data, metric, k, custom, rounds=25, stop=4):
    """The validation history and best round of LightGBM's own metric, and
    of the custom one (with LightGBM's metric off)."""
    (X, y, qid), (Xv, yv, qv) = data
    out = []
    for own in (True, False):
        params = {
            "objective": "lambdarank",
            "metric": metric if own else "None",
            "eval_at": [k],
            "verbose": -1,
            "num_threads": 1,
            "min_data_in_leaf": 5,
            "learning_rate": 0.3,
            "seed": 0,
        }
        train = lgb.Dataset(X, y, group=_sizes(qid))
        valid = lgb.Dataset(Xv, yv, group=_sizes(qv), reference=train)
        history = {}
        booster = lgb.train(
            params,
            train,
            num_boost_round=rounds,
            valid_sets=[valid],
            valid_names=["v"],
            feval=None if own else custom,
            callbacks=[
                lgb.record_evaluation(history),
                lgb.early_stopping(stop, verbose=False),
            ],
        )
        out.append((np.asarray(history["v"][f"{metric}@{k}"]), booster.best_iteration))
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("source", ["generated", "mq2008"])
@pytest.mark.parametrize("metric", ["ndcg", "map"])
def test_lightgbm_train_rounds_equal_own_metric(source, metric, request):
    data = request.getfixturevalue(source)
    custom = make_eval_metric(f"{metric}@10", "lightgbm", conventions="lightgbm")
    (own, own_best), (ours, our_best) = _lightgbm_histories(data, metric, 10, custom)
    assert own.shape == ours.shape and own.shape[0] > 3
    np.testing.assert_allclose(ours, own, rtol=0, atol=1e-9)
    assert our_best == own_best


@pytest.mark.oracle
@pytest.mark.parametrize("weighted", [False, True])
def test_lightgbm_sklearn_eval_metric_equals_own(generated, weighted):
    """With ``eval_sample_weight`` too: LightGBM passes the row weights and
    weighs each query by their mean (issue 51)."""
    (X, y, qid), (Xv, yv, qv) = generated
    weights = {}
    if weighted:
        rng = np.random.default_rng(3)
        weights["eval_sample_weight"] = [rng.uniform(0.05, 4.0, yv.shape[0])]
    histories, best = [], []
    for own in (True, False):
        model = lgb.LGBMRanker(
            n_estimators=20,
            learning_rate=0.3,
            min_child_samples=5,
            metric="ndcg" if own else "None",
            verbose=-1,
            n_jobs=1,
            random_state=0,
        )
        # LightGBM 4.7 names the validation set eval_X/eval_y; 4.6 eval_set
        if "eval_X" in inspect.signature(lgb.LGBMRanker.fit).parameters:
            validation = {"eval_X": (Xv,), "eval_y": (yv,)}
        else:
            validation = {"eval_set": [(Xv, yv)]}
        model.fit(
            X,
            y,
            group=_sizes(qid),
            **validation,
            **weights,
            eval_group=[_sizes(qv)],
            eval_at=[5],
            eval_metric=None
            if own
            else make_eval_metric("ndcg@5", "lightgbm", conventions="lightgbm"),
            callbacks=[lgb.early_stopping(3, verbose=False)],
        )
        histories.append(np.asarray(model.evals_result_["valid_0"]["ndcg@5"]))
        best.append(model.best_iteration_)
    np.testing.assert_allclose(histories[1], histories[0], rtol=0, atol=1e-9)
    assert best[0] == best[1]


def _xgboost_histories(data, metric, k, custom, rounds=25, stop=4):
    (X, y, qid), (Xv, yv, qv) = data
    if metric == "map":  # XGBoost's map takes binary labels only
        y, yv = (y > 0).astype(np.int64), (yv > 0).astype(np.int64)
    train = xgb.DMatrix(X, y, qid=qid)
    valid = xgb.DMatrix(Xv, yv, qid=qv)
    out = []
    for own in (True, False):
        params = {
            "objective": "rank:ndcg",
            "eta": 0.3,
            "nthread": 1,
            "seed": 0,
            "disable_default_eval_metric": 1,
        }
        if own:
            params["eval_metric"] = f"{metric}@{k}"
        history = {}
        booster = xgb.train(
            params,
            train,
            num_boost_round=rounds,
            evals=[(valid, "v")],
            evals_result=history,
            custom_metric=None if own else custom,
            maximize=True,
            early_stopping_rounds=stop,
            verbose_eval=False,
        )
        out.append((np.asarray(history["v"][f"{metric}@{k}"]), booster.best_iteration))
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("source", ["generated", "mq2008"])
@pytest.mark.parametrize("metric", ["ndcg", "map"])
def test_xgboost_train_rounds_equal_own_metric(source, metric, request):
    data = request.getfixturevalue(source)
    custom = make_eval_metric(f"{metric}@10", "xgboost", conventions="xgboost")
    (own, own_best), (ours, our_best) = _xgboost_histories(data, metric, 10, custom)
    assert own.shape == ours.shape and own.shape[0] > 3
    # XGBoost prints its metric in float32 (about 7 digits).
    np.testing.assert_allclose(ours, own, rtol=0, atol=1e-6)
    assert our_best == own_best


def test_value_equals_evaluate_and_structure_is_kept():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 300)
    qid = np.repeat(np.arange(30), 10)
    m = make_eval_metric("err@20", "lightgbm")
    for _ in range(3):
        scores = rng.normal(size=300).round(1)  # ties
        name, value, higher = m(y, scores, None, np.full(30, 10))
        assert (name, higher) == ("err@20", True)
        assert value == evaluate(y, scores, groups=qid, metrics=["err@20"])["err@20"]
    assert len(m._fixed) == 1  # one validation set, prepared once


def test_catboost_history_named_and_best_round():
    (X, y, qid), (Xv, yv, qv) = _sorted_split(seed=4)
    custom = make_eval_metric("map@10", "catboost", groups=qv)
    model = CatBoostRanker(
        iterations=15,
        eval_metric=custom,
        verbose=False,
        thread_count=1,
        random_seed=0,
        allow_writing_files=False,
    )
    model.fit(
        X,
        y,
        group_id=qid,
        eval_set=Pool(Xv, yv, group_id=qv),
        early_stopping_rounds=3,
        use_best_model=False,  # keep every tree, to replay the rounds
    )
    history = np.asarray(model.get_evals_result()["validation"]["map@10"])
    expected = [
        evaluate(yv, scores, groups=qv, metrics=["map@10"])["map@10"]
        for scores in model.staged_predict(Xv, ntree_end=history.shape[0])
    ]
    np.testing.assert_allclose(history, expected, rtol=0, atol=1e-6)
    assert model.get_best_iteration() == int(np.argmax(history))


def _sorted_split(seed):
    X, y, qid = _sorted(*shuffled_ranking(60, (3, 15), seed=seed))
    train = qid < np.unique(qid)[40]
    return (X[train], y[train], qid[train]), (X[~train], y[~train], qid[~train])


def test_pickle_and_repr():
    m = make_eval_metric("ndcg@5", "catboost", groups=[0, 0, 1], gain="linear")
    copy = pickle.loads(pickle.dumps(m))
    assert repr(copy) == repr(m)
    assert "gain='linear'" in repr(m)
    assert type(copy).__name__ == "ndcg@5"
    assert copy.metric == get_metric("ndcg@5", gain="linear")


def test_errors():
    with pytest.raises(InvalidParameterError, match="`library` must be one of"):
        make_eval_metric("ndcg@10", "sklearn")
    with pytest.raises(InvalidParameterError, match="has no lightgbm counterpart"):
        make_eval_metric("err@10", "lightgbm", conventions="lightgbm")
    m = make_eval_metric("ndcg@10", "xgboost")
    with pytest.raises(InvalidInputError, match="one query at a time"):
        m(np.array([1.0, 0.0]), np.array([0.2, 0.1]))
    cb = make_eval_metric("ndcg@10", "catboost", groups=[0, 0, 1])
    assert cb.evaluate([np.zeros(5)], np.zeros(5), None) == (0.0, 1.0)  # other rows
    with pytest.raises(InvalidInputError, match="bind the validation rows"):
        make_eval_metric("ndcg@10", "lightgbm")(np.zeros(3), np.zeros(3), None, None)
