"""The query-id column of ``X`` is never a feature (issue 51, item 6).

A pandas ``X`` may carry the query ids in a column named ``groups_from``
(``"qid"``): the splitters and scorers read them from it. The rule: the
column never reaches a model's features. skirm's rankers
(``QueryRanker`` for every library, ``PairwiseRanker``) drop it; a plain
scikit-learn estimator gets a one-line pipeline that drops it, and the
scorers warn, naming the column, when a scored model was trained on it.
Every fitted model of a search is checked, with metadata routing on and off.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from catboost import CatBoostRanker
from lightgbm import LGBMRanker
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from xgboost import XGBRanker

from skirm.datasets import make_ranking
from skirm.metrics import make_ranking_scorer
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import PairwiseRanker, QueryRanker

pytestmark = [pytest.mark.usefixtures("one_thread")]

N_FEATURES = 4


def _frame(seed=0, n_groups=24, id_name="qid"):
    """Features and the query ids as a column, rows interleaved."""
    X, y, qid = make_ranking(
        n_groups=n_groups, group_size=(6, 12), n_features=N_FEATURES, random_state=seed
    )
    order = np.random.default_rng(seed).permutation(y.shape[0])
    frame = pd.DataFrame(X[order], columns=[f"f{i}" for i in range(N_FEATURES)])
    frame[id_name] = qid[order] * 7 + 3  # ids that a model could learn from
    return frame, y[order], frame[id_name].to_numpy()


def _models(estimator):
    """Every fitted model inside a fitted estimator: itself and a wrapped
    ``estimator_``; for a pipeline, its last step (the others take the
    column in to transform it, which is how the pipeline drops it)."""
    steps = getattr(estimator, "steps", None)
    if steps:
        return _models(steps[-1][1])
    found = [estimator]
    inner = getattr(estimator, "estimator_", None)
    if inner is not None:
        found += _models(inner)
    return found


def _saw_ids(estimator, id_name="qid"):
    """Whether any fitted model inside trained on the id column: by name
    where it records names, by count where it records only that."""
    for model in _models(estimator):
        names = getattr(model, "feature_names_in_", None)
        if names is None:
            names = getattr(model, "feature_names_", None)  # CatBoost
        if names is not None and id_name in list(names):
            return True
        n = getattr(model, "n_features_in_", None)
        if n is not None and n > N_FEATURES:
            return True
    return False


class Recording:
    """A scorer that records, for each fitted model it scores, whether it
    was trained on the ids, then scores it with skirm's scorer (which reads
    the ids from X's column)."""

    def __init__(self):
        self.scorer = make_ranking_scorer("ndcg@5")
        self.saw = []

    def __call__(self, estimator, X, y):
        self.saw.append(_saw_ids(estimator))
        return self.scorer(estimator, X, y)


def _estimators():
    quiet = {"n_estimators": 5, "random_state": 0}
    return {
        "QueryRanker(Ridge)": (QueryRanker(Ridge()), {"estimator__alpha": [0.1, 1.0]}),
        "QueryRanker(LGBMRanker)": (
            QueryRanker(LGBMRanker(verbose=-1, n_jobs=1, min_child_samples=3, **quiet)),
            {"estimator__learning_rate": [0.1, 0.3]},
        ),
        "QueryRanker(XGBRanker)": (
            QueryRanker(XGBRanker(n_jobs=1, **quiet)),
            {"estimator__learning_rate": [0.1, 0.3]},
        ),
        "QueryRanker(CatBoostRanker)": (
            QueryRanker(
                CatBoostRanker(
                    iterations=5,
                    verbose=False,
                    thread_count=1,
                    random_seed=0,
                    allow_writing_files=False,
                )
            ),
            {"estimator__learning_rate": [0.1, 0.3]},
        ),
        "PairwiseRanker": (
            PairwiseRanker(LogisticRegression(), random_state=0),
            {"max_pairs_per_group": [5, 20]},
        ),
        "pipeline dropping the column": (
            make_pipeline(
                make_column_transformer(("drop", ["qid"]), remainder="passthrough"),
                Ridge(),
            ),
            {"ridge__alpha": [0.1, 1.0]},
        ),
    }


@pytest.mark.parametrize("routing", [False, True], ids=["routing off", "routing on"])
@pytest.mark.parametrize("name", list(_estimators()))
def test_no_fitted_model_of_a_search_saw_the_id_column_regression(name, routing):
    """``Ridge``, ``QueryRanker(LGBMRanker)`` and the others were trained on
    the ``qid`` column the splitter and the scorer read the ids from."""
    estimator, grid = _estimators()[name]
    X, y, qid = _frame()
    recording = Recording()
    search = GridSearchCV(estimator, grid, cv=QueryGroupKFold(3), scoring=recording)
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            search.fit(X, y, groups=qid)
        else:
            search.fit(X, y)
    assert len(recording.saw) == 2 * 3  # every candidate on every fold
    assert not any(recording.saw)
    assert not _saw_ids(search.best_estimator_)
    assert search.best_estimator_.predict(X).shape == y.shape


@pytest.mark.parametrize("routing", [False, True], ids=["routing off", "routing on"])
def test_a_model_trained_on_the_ids_is_named_by_the_scorer(routing):
    """A plain estimator given the column trains on it; skirm's scorers say
    so, naming the column and the fixes."""
    X, y, qid = _frame(1)
    kwargs = {"params": {"groups": qid}} if routing else {}
    with sklearn.config_context(enable_metadata_routing=routing):
        with pytest.warns(UserWarning, match=r"trained on the column 'qid' of X"):
            cross_validate(
                Ridge(),
                X,
                y,
                cv=QueryGroupKFold(3),
                scoring=make_ranking_scorer("ndcg@5"),
                **kwargs,
            )


def test_the_one_line_pipeline_and_the_index_level_give_no_warning():
    X, y, _ = _frame(2)
    scorer = make_ranking_scorer("ndcg@5")
    dropping = make_pipeline(
        make_column_transformer(("drop", ["qid"]), remainder="passthrough"), Ridge()
    )
    indexed = X.set_index("qid", append=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cross_validate(dropping, X, y, cv=QueryGroupKFold(3), scoring=scorer)
        cross_validate(Ridge(), indexed, y, cv=QueryGroupKFold(3), scoring=scorer)
        model = QueryRanker(Ridge()).fit(X, y)
        scorer(model, X, y)
    assert list(model.feature_names_in_) == [f"f{i}" for i in range(N_FEATURES)]


def test_another_groups_from_column_is_dropped_too():
    X, y, _ = _frame(3, id_name="query")
    model = QueryRanker(LGBMRanker(n_estimators=3, verbose=-1), groups_from="query")
    model.fit(X, y)
    assert "query" not in list(model.estimator_.feature_names_in_)
    assert model.n_features_in_ == N_FEATURES
    pairwise = PairwiseRanker(groups_from="query", random_state=0).fit(X, y)
    assert pairwise.n_features_in_ == N_FEATURES
    np.testing.assert_array_equal(
        pairwise.predict(X), pairwise.predict(X.drop(columns="query"))
    )


def test_polars_and_pyarrow_frames_lose_the_column():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    X, y, _ = _frame(4)
    for frame in (pl.from_pandas(X), pa.Table.from_pandas(X, preserve_index=False)):
        model = QueryRanker(Ridge()).fit(frame, y)
        assert model.n_features_in_ == N_FEATURES
