"""FusionRanker: fusion as an estimator, tuned by scikit-learn's searches
over folds of whole queries.

GridSearchCV and the halving searches with QueryGroupKFold and skirm's
scorers, metadata routing on and off (the same numbers); every fold's
score recomputed from a refitted clone with the slow reference of NDCG; a
recording estimator proving no held-out query's labels reach ``fit``; the
weight search inside each training fold; scikit-learn's estimator checks
that apply.
"""

import pickle

import numpy as np
import pytest
import sklearn
from _fusion import reference_fuse
from _reference import reference_score
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV

import skirm
from skirm._query_ids import n_rows
from skirm.fusion import fuse_scores
from skirm.metrics import make_ranking_scorer
from skirm.model_selection import QueryGroupKFold, QueryHalvingGridSearchCV
from skirm.ranker import FusionRanker

GRID = {"method": ["rrf", "combsum", "combmnz"], "k": [1.0, 60.0]}


def _data(n_queries=24, seed=0):
    """Three retrievers of different quality over 6 to 9 documents a query,
    each missing some; every row returned by one retriever at least."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(6, 10, n_queries)
    groups = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    y = rng.integers(0, 3, groups.shape[0])
    X = np.column_stack(
        [y + rng.normal(scale=s, size=y.shape[0]) for s in (0.8, 1.5, 3.0)]
    )
    X[rng.random(X.shape) < 0.3] = np.nan
    X[np.isnan(X).all(axis=1), 0] = 0.0
    return X, y, groups


def _frame(X, groups):
    pd = pytest.importorskip("pandas")
    index = pd.Index(groups, name="qid")
    return pd.DataFrame(X, columns=["bm25", "dense", "splade"], index=index)


def test_predict_is_fuse_scores_with_the_fitted_weights():
    X, _y, groups = _data()
    model = FusionRanker("combmnz", norm="zscore", weights=[1, 2, 0.5]).fit(X)
    want = fuse_scores(
        X, groups=groups, method="combmnz", norm="zscore", weights=[1, 2, 0.5]
    )
    np.testing.assert_array_equal(model.predict(X, groups=groups), want)
    frame = _frame(X, groups)
    np.testing.assert_array_equal(model.fit(frame).predict(frame), want)
    assert model.feature_names_in_.tolist() == ["bm25", "dense", "splade"]


def _search(search_cls, routing, **kwargs):
    X, y, groups = _data()
    scorer = make_ranking_scorer("ndcg@10")
    search = search_cls(FusionRanker(), GRID, cv=QueryGroupKFold(3), **kwargs)
    search.set_params(scoring=scorer)
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            search.fit(X, y, groups=groups)
        else:
            search.fit(_frame(X, groups), y)
    return search


def test_grid_search_routing_on_equals_off():
    on = _search(GridSearchCV, True)
    off = _search(GridSearchCV, False)
    for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
        np.testing.assert_array_equal(on.cv_results_[key], off.cv_results_[key])
    assert on.best_params_ == off.best_params_


@pytest.mark.parametrize("routing", [True, False])
def test_every_fold_score_is_a_refitted_clones_reference_ndcg(routing):
    X, y, groups = _data()
    search = _search(GridSearchCV, routing)
    splits = list(QueryGroupKFold(3).split(X, y, groups=groups))
    for i, params in enumerate(search.cv_results_["params"]):
        for s, (train, test) in enumerate(splits):
            model = clone(FusionRanker()).set_params(**params)
            model.fit(X[train], y[train], groups=groups[train])
            scores = model.predict(X[test], groups=groups[test])
            # the fused scores are the reference's, and their NDCG@10 too
            want = reference_score("ndcg", y[test], scores, groups[test], k=10)
            got = search.cv_results_[f"split{s}_test_score"][i]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


class RecordingFusion(FusionRanker):
    """FusionRanker that records the queries and labels each fit sees."""

    fits: list = []  # noqa: RUF012 - shared across the clones on purpose

    def fit(self, X, y=None, groups=None, sample_weight=None):
        resolved = self._groups(X, groups)
        RecordingFusion.fits.append((np.unique(resolved), np.asarray(y).copy()))
        return super().fit(X, y, groups=groups, sample_weight=sample_weight)


@pytest.mark.parametrize("routing", [True, False])
def test_no_held_out_query_reaches_fit(routing):
    X, y, groups = _data()
    RecordingFusion.fits = []
    search = GridSearchCV(
        RecordingFusion(weights="search", weight_step=0.5),
        {"method": ["rrf", "combsum"]},
        cv=QueryGroupKFold(3),
        scoring=make_ranking_scorer("ndcg@10"),
        refit=False,
    )
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            search.fit(X, y, groups=groups)
        else:
            search.fit(_frame(X, groups), y)
    folds = [groups[test] for _, test in QueryGroupKFold(3).split(X, groups=groups)]
    assert len(RecordingFusion.fits) == 2 * 3
    for seen, labels in RecordingFusion.fits:
        held_out = [f for f in folds if not np.isin(f, seen).any()]
        assert len(held_out) == 1  # exactly one fold never seen
        train = ~np.isin(groups, held_out[0])
        np.testing.assert_array_equal(np.sort(seen), np.unique(groups[train]))
        np.testing.assert_array_equal(labels, y[train])


def test_the_weight_search_is_the_best_of_the_grid_on_the_training_queries():
    X, y, groups = _data(seed=3)
    model = FusionRanker("combsum", weights="search", weight_step=0.25)
    model.fit(X, y, groups=groups)
    assert model.search_weights_.shape == (15, 3)
    for weights, score in zip(model.search_weights_, model.search_scores_, strict=True):
        fused = fuse_scores(X, groups=groups, method="combsum", weights=weights)
        assert score == pytest.approx(
            reference_score("ndcg", y, fused, groups, k=10), rel=1e-12
        )
    assert model.best_score_ == model.search_scores_.max()
    np.testing.assert_array_equal(
        model.weights_, model.search_weights_[np.argmax(model.search_scores_)]
    )
    # the best retriever gets the largest weight
    assert np.argmax(model.weights_) == 0


def test_weights_searched_inside_each_training_fold_of_a_search():
    X, y, groups = _data(seed=4)
    search = GridSearchCV(
        FusionRanker(weights="search", weight_step=0.5),
        {"method": ["rrf", "combsum"]},
        cv=QueryGroupKFold(3),
        scoring=make_ranking_scorer("ndcg@10"),
    )
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=groups)
    best = search.best_estimator_
    alone = clone(best).fit(X, y, groups=groups)
    np.testing.assert_array_equal(best.weights_, alone.weights_)


def test_the_reference_fusion_matches_predict():
    X, _y, groups = _data(seed=5)
    runs = [
        {
            str(q): {str(i): X[i, j] for i in np.flatnonzero(groups == q)}
            for q in np.unique(groups)
        }
        for j in range(3)
    ]
    runs = [
        {q: {d: s for d, s in docs.items() if not np.isnan(s)} for q, docs in r.items()}
        for r in runs
    ]
    model = FusionRanker("isr", weights=[2.0, 1.0, 0.0]).fit(X)
    got = model.predict(X, groups=groups)
    want = reference_fuse(runs, "isr", weights=[2.0, 1.0, 0.0])
    for i in range(X.shape[0]):
        expected = want.get(str(groups[i]), {}).get(str(i), -np.inf)
        assert got[i] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("halving", ["queries", "max_queries"])
def test_halving_searches_over_whole_queries_routing_on_equals_off(halving):
    X, y, groups = _data(n_queries=36)
    kwargs = {"factor": 2, "min_resources": 12, "random_state": 0}
    estimator = FusionRanker(weights="search", weight_step=0.5, random_state=0)
    grid = {"method": ["rrf", "combsum", "combmnz", "isr"]}
    if halving == "queries":
        cls, extra = QueryHalvingGridSearchCV, {}
    else:
        cls = HalvingGridSearchCV
        extra = {"resource": "max_queries", "max_resources": 36}
    found = {}
    for routing in (True, False):
        search = cls(
            estimator,
            grid,
            cv=QueryGroupKFold(3),
            scoring=make_ranking_scorer("ndcg@10"),
            **kwargs,
            **extra,
        )
        with sklearn.config_context(enable_metadata_routing=routing):
            if routing:
                search.fit(X, y, groups=groups)
            else:
                search.fit(_frame(X, groups), y)
        assert search.n_resources_[0] == 12
        assert set(search.cv_results_["param_method"]) == set(grid["method"])
        assert search.best_params_["method"] in grid["method"]
        found[routing] = search
    on, off = found[True], found[False]
    assert on.n_resources_ == off.n_resources_
    assert on.best_params_ == off.best_params_
    for key in ("iter", "n_resources", "mean_test_score", "split1_test_score"):
        np.testing.assert_array_equal(on.cv_results_[key], off.cv_results_[key])


def test_get_set_params_clone_pickle():
    X, y, groups = _data()
    model = FusionRanker("rbc", phi=0.5, weights="search", weight_step=0.5)
    assert model.get_params()["phi"] == 0.5
    model.set_params(method="rrf", k=10.0)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert repr(copy) == (
        "FusionRanker(k=10.0, phi=0.5, weight_step=0.5, weights='search')"
    )
    fitted = model.fit(X, y, groups=groups)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(
        again.predict(X, groups=groups), fitted.predict(X, groups=groups)
    )


def test_score_is_the_metric_of_the_fused_scores():
    X, y, groups = _data()
    model = FusionRanker(metric="map@5").fit(X)
    fused = model.predict(X, groups=groups)
    assert model.score(X, y, groups=groups) == pytest.approx(
        reference_score("map", y, fused, groups, k=5), rel=1e-12
    )
    frame = _frame(X, groups)
    on_frame = FusionRanker(metric="map@5").fit(frame)
    assert on_frame.score(frame, y) == model.score(X, y, groups=groups)


@pytest.mark.parametrize(
    ("model", "kwargs", "error", "match"),
    [
        (FusionRanker(weights="search"), {}, skirm.InvalidParameterError, "pass `y`"),
        (
            FusionRanker(weights=[1.0, 2.0]),
            {"y": [0, 1, 0]},
            skirm.InvalidParameterError,
            r"^`weights` must hold one weight per retriever \(3\)",
        ),
        (
            FusionRanker(weights="heavy"),
            {},
            skirm.InvalidParameterError,
            r"^`weights` must be None, 'search' or",
        ),
        (FusionRanker("comb"), {}, skirm.InvalidParameterError, r"^`method` must be"),
        (
            FusionRanker(weights="search", weight_step=0.3),
            {"y": [0, 1, 0]},
            skirm.InvalidParameterError,
            r"^`weight_step` must be",
        ),
        (FusionRanker(metric="ndgc@10"), {}, skirm.InvalidParameterError, "did you"),
    ],
)
def test_fit_errors(model, kwargs, error, match):
    X = np.array([[1.0, 2.0, np.nan], [0.5, np.nan, 1.0], [0.1, 0.2, 0.3]])
    with pytest.raises(error, match=match):
        model.fit(X, groups=[0, 0, 0], **kwargs)


def test_predict_needs_the_queries_and_the_fitted_retrievers():
    X, _, groups = _data()
    model = FusionRanker().fit(X)
    with pytest.raises(skirm.InvalidParameterError, match="needs the query of each"):
        model.predict(X)
    with pytest.raises(ValueError, match="3 features"):
        model.predict(X[:, :2], groups=groups)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        model.predict(np.where(np.isnan(X), np.inf, X), groups=groups)


# SkipTestWarning: check_estimator skips its array-API check without
# SCIPY_ARRAY_API; that skip is scikit-learn's, not ours.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
def test_check_estimator_fails_only_where_predict_gets_no_queries():
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(FusionRanker(), on_fail=None)
    failed = [r for r in results if r["status"] == "failed"]
    # each failure is a check calling predict (or score) on a numpy X
    # without groups: a fused score needs the other rows of its query.
    for r in failed:
        assert "needs the query of each row" in str(r["exception"]), r["check_name"]
    assert sum(r["status"] == "passed" for r in results) >= 30


class OneQuery(FusionRanker):
    """FusionRanker reading an X without query ids as one query: the
    estimator checks that need no queries then reach the fusion itself."""

    def _groups(self, X, groups, *, required=True):
        found = super()._groups(X, groups, required=False)
        return np.zeros(n_rows(X), dtype=int) if found is None else found


#: The check that compares predictions of a subset of the rows with those
#: of all rows: a fused score depends on the other rows of the query, so it
#: cannot apply.
OTHER_ROWS = {"check_methods_subset_invariance"}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
@pytest.mark.parametrize("method", ["rrf", "combmnz"])
def test_check_estimator_passes_every_check_that_applies(method):
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(OneQuery(method, norm="zscore"), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed == OTHER_ROWS, failed
    assert sum(r["status"] == "passed" for r in results) >= 40
