"""make_eval_metric on weighted validation sets, and CatBoost's two data sets.

LightGBM's and XGBoost's ndcg@k and map@k are query-weighted means: LightGBM
weighs a query by the mean of its rows' weights (summed in float32, as its
``Metadata`` does), XGBoost takes one weight per query (``DMatrix.set_weight``
with ranking groups). Under ``conventions="lightgbm"``/``"xgboost"`` skirm's
metric is held to the library's own, round by round, with and without
weights (issue 51, item 3). CatBoost evaluates the training set too; it is
told apart from the validation set by its labels, not by its row count alone
(item 4).
"""

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from _data import shuffled_ranking
from catboost import CatBoostError, CatBoostRanker, Pool

from skirm import InvalidInputError, InvalidParameterError
from skirm.metrics import evaluate
from skirm.ranker import QueryRanker, make_eval_metric

pytestmark = [pytest.mark.usefixtures("one_thread")]


def _sorted(X, y, qid):
    order = np.argsort(qid, kind="stable")
    return X[order], y[order], qid[order]


def _sizes(qid):
    return np.unique(qid, return_counts=True)[1]


def _split(seed, n_groups=80, n_train=50, group_size=(2, 30)):
    X, y, qid = _sorted(*shuffled_ranking(n_groups, group_size, seed=seed))
    train = qid < np.unique(qid)[n_train]
    return (X[train], y[train], qid[train]), (X[~train], y[~train], qid[~train])


def _row_weights(qid, seed, within="varies"):
    """Per-row weights: varying within each query, or one per query."""
    rng = np.random.default_rng(seed)
    if within == "varies":
        return rng.uniform(0.05, 4.0, qid.shape[0])
    per_query = rng.uniform(0.05, 4.0, np.unique(qid).shape[0])
    return per_query[np.unique(qid, return_inverse=True)[1]]


def _lightgbm_rounds(data, weight, metric, k, custom, rounds=12):
    (X, y, qid), (Xv, yv, qv) = data
    params = {
        "objective": "lambdarank",
        "metric": metric if custom is None else "None",
        "eval_at": [k],
        "verbose": -1,
        "num_threads": 1,
        "min_data_in_leaf": 5,
        "learning_rate": 0.3,
        "seed": 0,
    }
    train = lgb.Dataset(X, y, group=_sizes(qid))
    valid = lgb.Dataset(Xv, yv, group=_sizes(qv), weight=weight, reference=train)
    history = {}
    lgb.train(
        params,
        train,
        num_boost_round=rounds,
        valid_sets=[valid],
        valid_names=["v"],
        feval=custom,
        callbacks=[lgb.record_evaluation(history)],
    )
    return np.asarray(history["v"][f"{metric}@{k}"])


@pytest.mark.oracle
@pytest.mark.parametrize("within", ["varies", "per_query", None])
@pytest.mark.parametrize("metric", ["ndcg", "map"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lightgbm_weighted_validation_equals_own_metric(seed, metric, within):
    data = _split(seed)
    qv = data[1][2]
    weight = None if within is None else _row_weights(qv, seed, within)
    custom = make_eval_metric(f"{metric}@5", "lightgbm", conventions="lightgbm")
    own = _lightgbm_rounds(data, weight, metric, 5, None)
    ours = _lightgbm_rounds(data, weight, metric, 5, custom)
    np.testing.assert_allclose(ours, own, rtol=0, atol=1e-9)


def test_lightgbm_weighted_validation_round_zero_regression():
    """Issue 51, item 3: LightGBM weighs queries by their rows' mean weight;
    the unweighted mean (skirm before the fix) is another number."""
    data = _split(7, n_groups=40, n_train=25)
    qv = data[1][2]
    weight = _row_weights(qv, 7)
    custom = make_eval_metric("ndcg@10", "lightgbm", conventions="lightgbm")
    own = _lightgbm_rounds(data, weight, "ndcg", 10, None, rounds=1)
    unweighted = _lightgbm_rounds(data, None, "ndcg", 10, None, rounds=1)
    ours = _lightgbm_rounds(data, weight, "ndcg", 10, custom, rounds=1)
    assert abs(own[0] - unweighted[0]) > 1e-3  # the weights matter here
    np.testing.assert_allclose(ours, own, rtol=0, atol=1e-9)


def _xgboost_rounds(data, weight, metric, k, custom, rounds=12):
    (X, y, qid), (Xv, yv, qv) = data
    if metric == "map":  # XGBoost's map takes binary labels only
        y, yv = (y > 0).astype(np.int64), (yv > 0).astype(np.int64)
    train = xgb.DMatrix(X, y, qid=qid)
    valid = xgb.DMatrix(Xv, yv, qid=qv)
    if weight is not None:
        valid.set_weight(weight)
    params = {
        "objective": "rank:ndcg",
        "eta": 0.3,
        "nthread": 1,
        "seed": 0,
        "disable_default_eval_metric": 1,
    }
    if custom is None:
        params["eval_metric"] = f"{metric}@{k}"
    history = {}
    xgb.train(
        params,
        train,
        num_boost_round=rounds,
        evals=[(valid, "v")],
        evals_result=history,
        custom_metric=custom,
        maximize=True,
        verbose_eval=False,
    )
    return np.asarray(history["v"][f"{metric}@{k}"])


@pytest.mark.oracle
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("metric", ["ndcg", "map"])
@pytest.mark.parametrize("seed", [0, 1])
def test_xgboost_weighted_validation_equals_own_metric(seed, metric, weighted):
    data = _split(seed)
    n_queries = np.unique(data[1][2]).shape[0]
    rng = np.random.default_rng(seed + 10)
    weight = rng.uniform(0.05, 4.0, n_queries) if weighted else None
    custom = make_eval_metric(f"{metric}@5", "xgboost", conventions="xgboost")
    own = _xgboost_rounds(data, weight, metric, 5, None)
    ours = _xgboost_rounds(data, weight, metric, 5, custom)
    np.testing.assert_allclose(ours, own, rtol=0, atol=1e-6)  # float32 output


def test_xgboost_weighted_validation_round_zero_regression():
    """Issue 51, item 3: XGBoost's per-query weights enter its mean."""
    data = _split(8, n_groups=40, n_train=25)
    rng = np.random.default_rng(8)
    weight = rng.uniform(0.05, 4.0, np.unique(data[1][2]).shape[0])
    custom = make_eval_metric("ndcg@10", "xgboost", conventions="xgboost")
    own = _xgboost_rounds(data, weight, "ndcg", 10, None, rounds=1)
    unweighted = _xgboost_rounds(data, None, "ndcg", 10, None, rounds=1)
    ours = _xgboost_rounds(data, weight, "ndcg", 10, custom, rounds=1)
    assert abs(own[0] - unweighted[0]) > 1e-3
    np.testing.assert_allclose(ours, own, rtol=0, atol=1e-6)


def test_weights_without_conventions_weigh_skirm_metric():
    """Without a preset the library's weights still weigh the queries."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 120)
    scores = rng.normal(size=120)
    sizes = np.full(12, 10)
    qid = np.repeat(np.arange(12), 10)
    w = rng.uniform(0.1, 3.0, 12)
    m = make_eval_metric("err@20", "lightgbm")
    _, value, _ = m(y, scores, np.repeat(w, 10), sizes)
    expected = evaluate(
        y, scores, groups=qid, sample_weight=np.repeat(w, 10), metrics=["err@20"]
    )["err@20"]
    assert value == pytest.approx(expected, rel=1e-6)
    _, plain, _ = m(y, scores, None, sizes)
    assert plain == evaluate(y, scores, groups=qid, metrics=["err@20"])["err@20"]
    assert plain != value


def test_xgboost_weights_must_be_one_per_query():
    m = make_eval_metric("ndcg@10", "xgboost")

    class Matrix:  # a DMatrix's interface
        def get_label(self):
            return np.array([1.0, 0.0, 0.0, 1.0])

        def get_uint_info(self, name):
            return np.array([0, 2, 4], dtype=np.uint32)

        def get_weight(self):
            return np.array([1.0, 2.0, 3.0], dtype=np.float32)

    with pytest.raises(InvalidInputError, match="one weight per query"):
        m(np.zeros(4), Matrix())


# -- CatBoost: the training and the validation set -------------------------


def _catboost_histories(data, custom, weighted=False):
    (X, y, qid), (Xv, yv, qv) = data
    extra = {}
    if weighted:
        rng = np.random.default_rng(0)
        per_query = rng.uniform(0.2, 3.0, np.unique(qv).shape[0])
        extra["group_weight"] = per_query[np.unique(qv, return_inverse=True)[1]]
    model = CatBoostRanker(
        iterations=6,
        eval_metric=custom,
        custom_metric=["NDCG:top=5;type=Exp"],
        verbose=False,
        thread_count=1,
        random_seed=0,
        allow_writing_files=False,
    )
    model.fit(
        Pool(X, y, group_id=qid),
        eval_set=Pool(Xv, yv, group_id=qv, **extra),
        use_best_model=False,
    )
    return model


def _same_size_split(seed):
    """A training and a validation set of the same number of rows."""
    X, y, qid = _sorted(*shuffled_ranking(40, (5, 5), seed=seed))
    train = qid < np.unique(qid)[20]
    return (X[train], y[train], qid[train]), (X[~train], y[~train], qid[~train])


def test_catboost_learn_history_with_equal_row_counts_regression():
    """Issue 51, item 4: a training pool with the validation pool's row count
    was evaluated with the validation query ids; bound labels tell them apart."""
    data = _same_size_split(4)
    (_, y, _), (_, yv, qv) = data
    assert y.shape == yv.shape and not np.array_equal(y, yv)
    custom = make_eval_metric("map@10", "catboost", groups=qv, y_true=yv)
    model = _catboost_histories(data, custom)
    history = model.get_evals_result()
    assert np.all(np.asarray(history["learn"]["map@10"]) == 0.0)
    expected = [
        evaluate(yv, scores, groups=qv, metrics=["map@10"])["map@10"]
        for scores in model.staged_predict(data[1][0], ntree_end=6)
    ]
    np.testing.assert_allclose(history["validation"]["map@10"], expected, atol=1e-6)


def test_catboost_two_sets_of_one_size_without_labels_refused():
    """Without bound labels, two data sets of the validation's row count
    cannot be told apart: refused, not evaluated with the wrong ids."""
    data = _same_size_split(5)
    qv = data[1][2]
    custom = make_eval_metric("map@10", "catboost", groups=qv)
    # CatBoost re-raises the metric's error as its own, the message kept
    with pytest.raises(CatBoostError, match=r"cannot tell them apart.*y_true="):
        _catboost_histories(data, custom)


def test_catboost_validation_only_same_size_without_labels():
    m = make_eval_metric("map@10", "catboost", groups=[0, 0, 1, 1])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    for _ in range(3):  # the same rows each round: the validation set
        value, weight = m.evaluate([np.array([0.3, 0.1, 0.2, 0.9])], y, None)
    assert (value, weight) == (1.0, 1.0)


@pytest.mark.oracle
def test_catboost_group_weights_weigh_queries():
    """CatBoost passes its group weights per row; its own NDCG weighs queries
    by them, and so does skirm's metric (object weights, which vary within a
    query, CatBoost's ranking metrics ignore, as skirm does)."""
    data = _split(6, n_groups=50, n_train=30)
    (_, _, _), (Xv, yv, qv) = data
    custom = make_eval_metric(
        "ndcg@5",
        "catboost",
        groups=qv,
        y_true=yv,
        ties="first",
        gain="exponential",
        no_relevant=1.0,  # CatBoost's NDCG of a query without relevant rows
    )
    model = _catboost_histories(data, custom, weighted=True)
    history = model.get_evals_result()["validation"]
    # CatBoost orders tied scores its own way: the rounds where ties do not
    # move the number
    untied = [
        evaluate(yv, s, groups=qv, metrics="ndcg@5", ties="optimistic")["ndcg@5"]
        == evaluate(yv, s, groups=qv, metrics="ndcg@5", ties="pessimistic")["ndcg@5"]
        for s in model.staged_predict(Xv, ntree_end=6)
    ]
    assert sum(untied) >= 3
    np.testing.assert_allclose(
        np.asarray(history["ndcg@5"])[untied],
        np.asarray(history["NDCG:top=5;type=Exp"])[untied],
        rtol=0,
        atol=1e-6,
    )


def test_y_true_is_catboost_s_and_checked():
    with pytest.raises(InvalidParameterError, match="`y_true` binds"):
        make_eval_metric("ndcg@10", "lightgbm", groups=[0, 1], y_true=[1, 0])
    with pytest.raises(InvalidParameterError, match="`y_true` needs `groups`"):
        make_eval_metric("ndcg@10", "catboost", y_true=[1, 0])
    with pytest.raises(InvalidInputError, match="one label per validation row"):
        make_eval_metric("ndcg@10", "catboost", groups=[0, 1], y_true=[1, 0, 1])


def test_query_ranker_catboost_learn_history_is_zero():
    """QueryRanker binds the validation labels: a training set held to the
    validation's size is never evaluated with the validation ids."""
    X, y, qid = shuffled_ranking(40, (5, 5), seed=9)
    model = QueryRanker(
        CatBoostRanker(
            iterations=4,
            verbose=False,
            thread_count=1,
            random_seed=0,
            allow_writing_files=False,
        ),
        validation_fraction=0.5,
        eval_metric="map@10",
        random_state=0,
    ).fit(X, y, groups=qid)
    learn = model.estimator_.get_evals_result()["learn"]["map@10"]
    assert np.all(np.asarray(learn) == 0.0)
