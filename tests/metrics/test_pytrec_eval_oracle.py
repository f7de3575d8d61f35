"""Agreement with trec_eval (through pytrec_eval) on inputs without score ties.

trec_eval breaks score ties by document id, which flat arrays do not carry, so
every input here has distinct scores within each query. pytrec_eval's bundled
trec_eval keeps scores as float32: the scores are rounded to float32 and
checked to be distinct at that precision, and skirm gets the same rounded
values. The qrels list every row of a query, label 0 included, so R and the
ideal DCG are the same on both sides and no query is dropped; queries without
relevant rows score 0 in trec_eval, which is skirm's default
``no_relevant=0.0``.

Measures compared (skirm name: trec_eval name): precision@k: P_k, recall@k:
recall_k, map: map, map@k: map_cut_k, ndcg: ndcg, ndcg@k: ndcg_cut_k, mrr:
recip_rank, r_precision: Rprec, hit_rate@k: success_k.
"""

import numpy as np
import pytest
import pytrec_eval
from _data import trec_dicts
from sklearn.datasets import load_svmlight_file

import skirm
from skirm.metrics import evaluate

pytestmark = pytest.mark.oracle

CUTOFFS = (1, 3, 5, 10, 20)
TREC_MEASURES = {
    "P." + ",".join(map(str, CUTOFFS)),
    "recall." + ",".join(map(str, CUTOFFS)),
    "map",
    "map_cut." + ",".join(map(str, CUTOFFS)),
    "ndcg",
    "ndcg_cut." + ",".join(map(str, CUTOFFS)),
    "recip_rank",
    "Rprec",
    "success." + ",".join(map(str, CUTOFFS)),
}
#: skirm metric name -> trec_eval measure name.
NAMES = {"map": "map", "ndcg": "ndcg", "mrr": "recip_rank", "r_precision": "Rprec"}
for _k in CUTOFFS:
    NAMES[f"precision@{_k}"] = f"P_{_k}"
    NAMES[f"recall@{_k}"] = f"recall_{_k}"
    NAMES[f"map@{_k}"] = f"map_cut_{_k}"
    NAMES[f"ndcg@{_k}"] = f"ndcg_cut_{_k}"
    NAMES[f"hit_rate@{_k}"] = f"success_{_k}"
#: Binary measures, the ones trec_eval's relevance level affects.
BINARY = [name for name in NAMES if not name.startswith("ndcg")]


def _assert_no_float32_ties(y_score, groups):
    assert y_score.dtype == np.float32
    for g in np.unique(groups):
        scores = y_score[groups == g]
        assert np.unique(scores).shape[0] == scores.shape[0], g


def _compare(y_true, y_score32, groups, relevance_level=1):
    _assert_no_float32_ties(y_score32, groups)
    y_score = y_score32.astype(np.float64)  # the float32 values, exactly
    qrels, run = trec_dicts(y_true, y_score32, groups)
    trec = pytrec_eval.RelevanceEvaluator(
        qrels, TREC_MEASURES, relevance_level=relevance_level
    ).evaluate(run)
    assert len(trec) == np.unique(groups).shape[0]
    threshold = None if relevance_level == 1 else relevance_level
    names = list(NAMES) if threshold is None else BINARY
    options = {} if threshold is None else {"relevance_threshold": threshold}
    result = evaluate(y_true, y_score, groups=groups, metrics=names, **options)
    ids = [str(g) for g in result.group_ids]
    for name in names:
        expected = np.array([trec[q][NAMES[name]] for q in ids])
        np.testing.assert_allclose(
            result.per_query[name], expected, rtol=0, atol=1e-9, err_msg=name
        )
        metric = skirm.get_metric(name, **options)
        assert metric(y_true, y_score, groups=groups) == pytest.approx(
            expected.mean(), abs=1e-9
        ), name
    return trec


@pytest.fixture(scope="module")
def mq2008(shared_data):
    X, y, qid = load_svmlight_file(
        str(shared_data / "mq2008" / "test.txt"), query_id=True
    )
    return X.toarray(), y, qid


def _jittered(feature, groups, seed):
    """The feature plus a tiny seeded jitter: distinct within each query."""
    rng = np.random.default_rng(seed)
    jitter = np.empty(feature.shape[0])
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        jitter[rows] = rng.permutation(rows.shape[0]) * 2e-7
    return (feature + jitter).astype(np.float32)


@pytest.mark.parametrize("column", [0, 24, 39])
def test_mq2008_feature_scores_match_trec_eval(mq2008, column):
    X, y, qid = mq2008
    y_score = _jittered(X[:, column], qid, seed=column)
    trec = _compare(y, y_score, qid)
    # The data has queries without any relevant row; they score 0 there too.
    empty = [g for g in np.unique(qid) if not (y[qid == g] > 0).any()]
    assert empty and all(trec[str(g)]["ndcg"] == 0.0 for g in empty)


def test_mq2008_relevance_level_2_matches_threshold(mq2008):
    X, y, qid = mq2008
    y_score = _jittered(X[:, 0], qid, seed=1)
    _compare(y, y_score, qid, relevance_level=2)


def test_mq2008_shuffled_rows_match_trec_eval(mq2008):
    # Rows of the queries interleaved: the result must not change.
    X, y, qid = mq2008
    y_score = _jittered(X[:, 14], qid, seed=14)
    perm = np.random.default_rng(5).permutation(y.shape[0])
    _compare(y[perm], y_score[perm], qid[perm])


@pytest.mark.parametrize("seed", range(6))
def test_random_data_matches_trec_eval(seed):
    rng = np.random.default_rng(seed)
    n_queries = 40
    sizes = rng.integers(1, 30, size=n_queries)
    groups = np.repeat(rng.choice(10_000, size=n_queries, replace=False), sizes)
    groups = groups[rng.permutation(groups.shape[0])]
    n = groups.shape[0]
    # Labels 0-3, mostly 0; some queries with no relevant row at all.
    y_true = np.minimum(rng.geometric(0.55, size=n) - 1, 3).astype(float)
    y_true[np.isin(groups, groups[:3])] = 0.0
    # Distinct float32 scores: a random permutation of well-spaced values.
    y_score = (rng.permutation(n) * 0.37 - 50.0).astype(np.float32)
    _compare(y_true, y_score, groups)
    _compare(y_true, y_score, groups, relevance_level=2)
