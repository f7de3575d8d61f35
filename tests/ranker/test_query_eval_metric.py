"""QueryRanker(eval_metric=<a skirm metric>): early stopping on skirm's metric.

Each library's history holds skirm's metric under its skirm name; the best
round is the first best value of that history, and the model predicts with
it: ``best_score_`` equals :func:`~skirm.metrics.evaluate` of the fitted
model's scores on the validation rows.
"""

import pickle

import numpy as np
import pytest
import sklearn
from _data import shuffled_ranking
from catboost import CatBoostRanker
from lightgbm import LGBMRanker
from sklearn.model_selection import GridSearchCV
from xgboost import XGBRanker

from skirm.metrics import evaluate, get_metric
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import QueryRanker

pytestmark = pytest.mark.usefixtures("one_thread")

ROUNDS = 30

RANKERS = {
    "lightgbm": lambda: LGBMRanker(
        n_estimators=ROUNDS, num_leaves=7, learning_rate=0.3, n_jobs=1, verbose=-1
    ),
    "xgboost": lambda: XGBRanker(
        n_estimators=ROUNDS, max_depth=3, learning_rate=0.3, n_jobs=1
    ),
    "catboost": lambda: CatBoostRanker(
        iterations=ROUNDS,
        depth=3,
        learning_rate=0.3,
        thread_count=1,
        verbose=0,
        allow_writing_files=False,
        random_seed=0,
    ),
}


@pytest.fixture(scope="module")
def data():
    return shuffled_ranking(60, (3, 20), seed=7)


@pytest.mark.parametrize("library", list(RANKERS))
@pytest.mark.parametrize("metric", ["map@10", "err@20"])
def test_stops_on_skirm_metric(library, metric, data):
    X, y, qid = data
    model = QueryRanker(
        RANKERS[library](),
        validation_fraction=0.3,
        early_stopping_rounds=3,
        eval_metric=metric,
        random_state=0,
    ).fit(X, y, groups=qid)
    assert model.eval_metric_ == metric
    history = model.evals_result_[metric]
    assert history.shape[0] <= ROUNDS
    best = model.best_iteration_
    assert best == int(np.argmax(history))  # the first best round
    assert history.shape[0] in (best + 4, ROUNDS)  # stopped 3 rounds after
    rows = np.isin(qid, model.validation_groups_)
    expected = evaluate(
        y[rows], model.predict(X[rows]), groups=qid[rows], metrics=[metric]
    )[metric]
    assert model.best_score_ == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("library", list(RANKERS))
def test_a_metric_object_gives_skirms_ndcg(library, data):
    X, y, qid = data
    metric = get_metric("ndcg@10")  # tie-averaged, linear gain: not the library's
    model = QueryRanker(
        RANKERS[library](),
        validation_fraction=0.3,
        early_stopping_rounds=3,
        eval_metric=metric,
        random_state=0,
    ).fit(X, y, groups=qid)
    assert model.eval_metric_ == "ndcg@10"
    rows = np.isin(qid, model.validation_groups_)
    expected = evaluate(y[rows], model.predict(X[rows]), groups=qid[rows])
    assert model.best_score_ == pytest.approx(expected["ndcg@10"], abs=1e-12)
    clone = pickle.loads(pickle.dumps(model))  # no callback nor data left behind
    np.testing.assert_array_equal(clone.predict(X[:20]), model.predict(X[:20]))


@pytest.mark.parametrize("library", list(RANKERS))
def test_in_grid_search(library, data):
    X, y, qid = data
    ranker = QueryRanker(
        RANKERS[library](),
        validation_fraction=0.3,
        early_stopping_rounds=3,
        eval_metric="map@10",
        random_state=0,
    )
    grid = {"estimator__learning_rate": [0.1, 0.3]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(ranker, grid, cv=QueryGroupKFold(2), error_score="raise")
        search.fit(X, y, groups=qid)
    best = search.best_estimator_
    assert best.eval_metric_ == "map@10"
    assert best.best_iteration_ == int(np.argmax(best.evals_result_["map@10"]))
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
