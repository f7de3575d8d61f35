"""Conventions presets reproduce the libraries they are named after.

Oracles: the installed LightGBM and XGBoost (their own evaluation metrics
after a few boosting rounds, with the tied predictions that leaf values
produce), scikit-learn's ndcg_score / dcg_score, torchmetrics' retrieval
metrics, pytrec_eval (what BEIR runs) and a slow reference written from
Spark's documented RankingMetrics rules.
"""

import math
import os

import numpy as np
import pytest

from skirm.metrics import evaluate


def _data(seed, n_queries=60, max_size=25, binary=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size, size=n_queries)
    groups = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(groups.size, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=groups.size)), 0, 3)
    y[groups < 4] = 0  # queries without relevant rows
    if binary:
        y = (y > 1).astype(np.float64)
    return X, y, groups, sizes


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
def test_lightgbm_preset_reproduces_lightgbm(seed):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, groups, sizes = _data(seed)
    params = {
        "objective": "lambdarank",
        "metric": ["ndcg", "map"],
        "eval_at": [1, 3, 10],
        "num_leaves": 4,
        "verbose": -1,
    }
    data = lightgbm.Dataset(X, y, group=sizes)
    record = {}
    booster = lightgbm.train(
        params,
        data,
        num_boost_round=3,
        valid_sets=[data],
        valid_names=["train"],
        callbacks=[lightgbm.record_evaluation(record)],
    )
    pred = booster.predict(X)
    assert np.unique(pred).size < pred.size / 4  # many ties
    names = [f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 10)]
    got = evaluate(y, pred, groups=groups, metrics=names, conventions="lightgbm")
    for name in names:
        assert got[name] == pytest.approx(record["train"][name][-1], abs=1e-12)
    # The defaults differ: the preset is what makes them agree.
    plain = evaluate(y, pred, groups=groups, metrics=["ndcg@3"])
    assert abs(plain["ndcg@3"] - record["train"]["ndcg@3"][-1]) > 1e-3


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("binary", [False, True])
def test_xgboost_preset_reproduces_xgboost(seed, binary):
    xgboost = pytest.importorskip("xgboost")
    X, y, groups, _ = _data(seed, binary=binary)
    base = "map" if binary else "ndcg"  # XGBoost's MAP needs binary labels
    names = [f"{base}@{k}" for k in (1, 3, 10)] + [base]
    dmatrix = xgboost.DMatrix(X, y, qid=groups)
    record = {}
    params = {
        "objective": "rank:ndcg",
        "eval_metric": [*names, f"{base}@3-"],
        "max_depth": 2,
        "nthread": 1,
    }
    booster = xgboost.train(
        params,
        dmatrix,
        3,
        evals=[(dmatrix, "train")],
        evals_result=record,
        verbose_eval=False,
    )
    pred = booster.predict(dmatrix).astype(np.float64)
    assert np.unique(pred).size < pred.size / 4
    got = evaluate(y, pred, groups=groups, metrics=names, conventions="xgboost")
    for name in names:
        assert got[name] == pytest.approx(record["train"][name][-1], abs=1e-6)
    # XGBoost's "-" variants score 0 for a query without relevant rows: the
    # preset's options without the preset (no_relevant=0.0 is the default it
    # replaces).
    options = {"denominator": "min_k"} if binary else {"gain": "exponential"}
    minus = evaluate(
        y, pred, groups=groups, metrics=[f"{base}@3"], ties="first", **options
    )
    assert minus[f"{base}@3"] == pytest.approx(
        record["train"][f"{base}@3-"][-1], abs=1e-6
    )


@pytest.mark.oracle
def test_sklearn_preset_reproduces_sklearn():
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=(30, 8)).astype(float)
    y[0] = 0
    s = rng.integers(0, 4, size=(30, 8)).astype(float)  # many ties
    got = evaluate(y, s, metrics=["ndcg@3", "ndcg", "dcg@5"], conventions="sklearn")
    assert got["ndcg@3"] == pytest.approx(ndcg_score(y, s, k=3), abs=1e-12)
    assert got["ndcg"] == pytest.approx(ndcg_score(y, s), abs=1e-12)
    assert got["dcg@5"] == pytest.approx(dcg_score(y, s, k=5), abs=1e-12)


@pytest.mark.oracle
def test_torchmetrics_preset_reproduces_torchmetrics():
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    _, y, groups, _ = _data(5)
    rng = np.random.default_rng(5)
    # Positive scores exact in float32, some tied within a query.
    scores = (rng.integers(1, 200, size=y.size) / 8.0).astype(np.float64)
    index = torch.tensor(groups)
    pred = torch.tensor(scores)
    cases = {
        "ndcg@5": retrieval.RetrievalNormalizedDCG(top_k=5),
        "ndcg": retrieval.RetrievalNormalizedDCG(),
    }
    # The binary metrics follow torch's sort among ties: compare them on
    # distinct scores.
    distinct = (rng.permutation(y.size) + 1.0) / 4.0
    binary = {
        "map": retrieval.RetrievalMAP(),
        "mrr": retrieval.RetrievalMRR(),
        "p@5": retrieval.RetrievalPrecision(top_k=5),
        "recall@5": retrieval.RetrievalRecall(top_k=5),
        "hit_rate@3": retrieval.RetrievalHitRate(top_k=3),
        "r_precision": retrieval.RetrievalRPrecision(),
    }
    got = evaluate(
        y, scores, groups=groups, metrics=list(cases), conventions="torchmetrics"
    )
    for name, metric in cases.items():
        want = float(metric(pred, torch.tensor(y), indexes=index))
        assert got[name] == pytest.approx(want, abs=2e-6), name
    got = evaluate(
        y, distinct, groups=groups, metrics=list(binary), conventions="torchmetrics"
    )
    for name, metric in binary.items():
        want = float(metric(torch.tensor(distinct), torch.tensor(y > 0), indexes=index))
        assert got[name] == pytest.approx(want, abs=2e-6), name


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_torchmetrics_auroc_fallout_and_recall_at_precision_torch(seed):
    # RetrievalAUROC (ties averaged by its ROC curve), RetrievalFallOut and
    # RetrievalRecallAtFixedPrecision (torch's sort among ties: compared on
    # distinct scores).
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    from skirm.metrics import recall_at_fixed_precision

    _, y, groups, _ = _data(seed, binary=True)
    rng = np.random.default_rng(seed)
    # Probabilities: torchmetrics' AUROC puts scores outside [0, 1] through
    # a sigmoid, in float32, where large ones tie.
    tied = rng.integers(1, 6, size=y.size) / 8.0  # exact in float32
    distinct = (rng.permutation(y.size) + 1.0) / 1024.0
    index = torch.tensor(groups)
    target = torch.tensor(y > 0)
    for scores in (tied, distinct):
        got = evaluate(
            y, scores, groups=groups, metrics=["gauc"], conventions="torchmetrics"
        )["gauc"]
        auroc = retrieval.RetrievalAUROC()
        want = float(auroc(torch.tensor(scores), target, indexes=index))
        assert got == pytest.approx(want, abs=1e-6)
    pred = torch.tensor(distinct)
    for k in (1, 3, 10):
        want = float(retrieval.RetrievalFallOut(top_k=k)(pred, target, indexes=index))
        got = evaluate(
            y,
            distinct,
            groups=groups,
            metrics=[f"fallout@{k}"],
            conventions="torchmetrics",
        )[f"fallout@{k}"]
        assert got == pytest.approx(want, abs=1e-6), k
    for min_precision, max_k in ((0.0, None), (0.3, 10), (0.5, 5), (0.9, None)):
        metric = retrieval.RetrievalRecallAtFixedPrecision(
            min_precision=min_precision, max_k=max_k
        )
        want_recall, want_k = metric(pred, target, indexes=index)
        recall, k = recall_at_fixed_precision(
            y, distinct, groups=groups, min_precision=min_precision, max_k=max_k
        )
        assert recall == pytest.approx(float(want_recall), abs=1e-6)
        assert k == int(want_k)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
def test_ece_is_torchmetrics_binary_calibration_error_per_group_torch(seed):
    torch = pytest.importorskip("torch")
    classification = pytest.importorskip("torchmetrics.classification")
    _, y, groups, _ = _data(seed, binary=True)
    rng = np.random.default_rng(seed)
    scores = rng.integers(1, 256, size=y.size) / 256.0  # exact in float32
    result = evaluate(y, scores, groups=groups, metrics=["ece"], n_bins=15)
    for g, value in zip(result.group_ids, result.per_query["ece"], strict=True):
        at = groups == g
        metric = classification.BinaryCalibrationError(n_bins=15, norm="l1")
        want = float(metric(torch.tensor(scores[at]), torch.tensor(y[at]).long()))
        assert value == pytest.approx(want, abs=1e-6), g
    metric = classification.BinaryCalibrationError(n_bins=10, norm="l1")
    want = float(metric(torch.tensor(scores), torch.tensor(y).long()))
    got = evaluate(y, scores, groups=np.zeros(y.size), metrics=["ece"], n_bins=10)
    assert got["ece"] == pytest.approx(want, abs=1e-6)


def test_torchmetrics_preset_refuses_what_it_cannot_reproduce():
    y, g = [1, 0, 1], [0, 0, 0]
    with pytest.raises(ValueError, match=r"'err@5' has no torchmetrics counterpart"):
        evaluate(y, [3, 2, 1], groups=g, metrics=["err@5"], conventions="torchmetrics")


@pytest.mark.oracle
def test_beir_preset_reproduces_pytrec_eval_with_docid_ties():
    import pytrec_eval

    rng = np.random.default_rng(7)
    qrels, run, rows = {}, {}, []
    for q in range(25):
        n = int(rng.integers(1, 20))
        docs = [f"d{j:03d}" for j in rng.choice(500, size=n, replace=False)]
        labels = rng.choice(3, size=n, p=[0.6, 0.25, 0.15])
        scores = rng.integers(0, 4, size=n).astype(float)  # ties
        qrels[f"q{q}"] = dict(zip(docs, labels.tolist(), strict=True))
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        rows += [
            (f"q{q}", d, lab, s) for d, lab, s in zip(docs, labels, scores, strict=True)
        ]
    # trec_eval breaks ties by document id descending: give rows in that order.
    rows.sort(key=lambda r: r[1], reverse=True)
    groups, _, y, s = (np.array(c) for c in zip(*rows, strict=True))
    measures = {"ndcg_cut.10", "map_cut.10", "recall.10", "P.5"}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = evaluate(
        y.astype(float),
        s.astype(float),
        groups=groups,
        metrics=["ndcg@10", "map@10", "recall@10", "p@5"],
        conventions="beir",
    )
    for name, trec in [
        ("ndcg@10", "ndcg_cut_10"),
        ("map@10", "map_cut_10"),
        ("recall@10", "recall_10"),
        ("p@5", "P_5"),
    ]:
        expected = [want[q][trec] for q in got.group_ids]
        np.testing.assert_allclose(got.per_query[name], expected, atol=1e-12)


def _spark(pred, lab, rel, k):
    """Spark's RankingMetrics rules for one user: precisionAt, recallAt,
    meanAveragePrecision(At), ndcgAt (ideal DCG from the given label order)."""
    labset = set(lab)
    if not labset:
        return dict.fromkeys(("p", "r", "map", "mapk", "ndcg"), 0.0)
    top = pred[:k]
    hits = sum(p in labset for p in top)
    out = {"p": hits / k, "r": hits / len(labset)}
    for key, items, den in (
        ("map", pred, len(labset)),
        ("mapk", top, min(k, len(labset))),
    ):
        cnt, total = 0, 0.0
        for i, p in enumerate(items):
            if p in labset:
                cnt += 1
                total += cnt / (i + 1)
        out[key] = total / den
    relmap = dict(zip(lab, rel, strict=True)) if rel is not None else None
    dcg = ideal = 0.0
    for i in range(min(max(len(pred), len(labset)), k)):
        disc = 1.0 / math.log(i + 2)
        if relmap is None:
            dcg += disc if i < len(pred) and pred[i] in labset else 0.0
            ideal += disc if i < len(labset) else 0.0
        else:
            if i < len(pred):
                dcg += (2.0 ** relmap.get(pred[i], 0.0) - 1) * disc
            if i < len(labset):
                ideal += (2.0 ** relmap[lab[i]] - 1) * disc
    out["ndcg"] = dcg / ideal
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("graded", [False, True])
def test_spark_preset_reproduces_spark_ranking_metrics(graded):
    rng = np.random.default_rng(11)
    ranked, truth, labs, rels = [], [], [], []
    for _ in range(40):
        items = rng.choice(60, size=25, replace=False).tolist()
        ranked.append(items[: int(rng.integers(1, 15))])
        lab = [i for i in items if rng.random() < 0.3]
        rel = sorted(rng.integers(1, 4, size=len(lab)).tolist(), reverse=True)
        labs.append(lab)
        rels.append(rel if graded else None)
        truth.append(dict(zip(lab, rel, strict=True)) if graded else set(lab))
    k = 5
    names = {
        "p": "p@5",
        "r": "recall@5",
        "map": "map",
        "mapk": "map@5",
        "ndcg": "ndcg@5",
    }
    got = evaluate(truth, ranked, metrics=list(names.values()), conventions="spark")
    for q in range(len(ranked)):
        want = _spark(ranked[q], labs[q], rels[q], k)
        for key, name in names.items():
            assert got.per_query[name][q] == pytest.approx(want[key], abs=1e-12), (
                name,
                q,
            )


def test_preset_fills_defaults_and_yields_to_explicit_arguments():
    y, s, g = [0, 0, 1, 0], [1.0, 1.0, 0.5, 0.2], [0, 0, 0, 1]
    lgb = evaluate(y, s, groups=g, metrics=["ndcg"], conventions="lightgbm")
    # Query 1 has no relevant row: 1.0 under LightGBM's rule.
    assert lgb.per_query["ndcg"][1] == 1.0
    explicit = evaluate(
        y, s, groups=g, metrics=["ndcg"], conventions="lightgbm", no_relevant="skip"
    )
    assert np.isnan(explicit.per_query["ndcg"][1])
    y, s, g = [2, 1, 0], [1, 2, 3], [0, 0, 0]
    linear = evaluate(
        y, s, groups=g, metrics=["ndcg"], conventions="lightgbm", gain="linear"
    )
    expo = evaluate(y, s, groups=g, metrics=["ndcg"], conventions="lightgbm")
    assert linear["ndcg"] == evaluate(y, s, groups=g, metrics=["ndcg"])["ndcg"]
    assert expo["ndcg"] != linear["ndcg"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"conventions": "ranx"},
            r"`conventions` must be one of 'sklearn', .*got 'ranx'",
        ),
        (
            {"conventions": "sklearn", "metrics": ["mrr"]},
            r"conventions='sklearn' reproduces ndcg, dcg only; 'mrr' has no "
            r"sklearn counterpart",
        ),
        (
            {"conventions": "spark", "metrics": ["err@3"]},
            r"'err@3' has no spark counterpart",
        ),
    ],
)
def test_bad_presets(kwargs, message):
    kwargs = {"metrics": ["ndcg"], **kwargs}
    with pytest.raises(ValueError, match=message):
        evaluate([1, 0], [2, 1], groups=[0, 0], **kwargs)


def test_scorer_takes_the_preset():
    import pickle

    from sklearn.base import BaseEstimator, clone

    from skirm.metrics import make_ranking_scorer

    class Fixed(BaseEstimator):
        def predict(self, X):
            return np.asarray(X, dtype=float)[:, 0]

    X, y, groups, _ = _data(2)
    scores = np.round(X[:, :1], 1)  # ties
    scorer = make_ranking_scorer(["ndcg@5", "map@5"], conventions="lightgbm")
    assert repr(scorer) == (
        "make_ranking_scorer(['ndcg@5', 'map@5'], conventions='lightgbm')"
    )
    want = evaluate(
        y,
        scores[:, 0],
        groups=groups,
        metrics=["ndcg@5", "map@5"],
        conventions="lightgbm",
    ).means
    for candidate in (scorer, clone(scorer), pickle.loads(pickle.dumps(scorer))):
        assert candidate(Fixed(), scores, y, groups=groups) == want
    with pytest.raises(ValueError, match=r"'mrr' has no sklearn counterpart"):
        make_ranking_scorer("mrr", conventions="sklearn")


def _torchmetrics_case(seed, n=1500, n_queries=120, negative=0.3):
    """Distinct scores (torchmetrics orders ties by its sort), a share of
    them <= 0, including exact zeros, over interleaved queries."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_queries, n)
    y = (rng.random(n) < 0.3).astype(np.int64)
    scores = (rng.permutation(n) + 1.0) / 8.0
    scores -= np.quantile(scores, negative)  # this share <= 0
    scores[rng.random(n) < 0.02] = 0.0  # a few exact zeros (ties at 0)
    return y, scores, groups


#: Seeds of the torchmetrics campaign; a longer one sets SKIRM_EDGE_CASES.
TORCH_SEEDS = range(max(3, int(os.environ.get("SKIRM_EDGE_CASES", "0") or 0)))


@pytest.mark.oracle
@pytest.mark.parametrize("negative", [0.0, 0.3, 0.9, 1.0])
@pytest.mark.parametrize("seed", TORCH_SEEDS)
def test_torchmetrics_preset_takes_scores_below_zero_regression(seed, negative):
    """Issue 51, item 12: the preset refused scores <= 0, which torchmetrics
    takes (since 1.8 its MAP, MRR, precision and recall count such rows as
    not retrieved); and refused map@k, torchmetrics' RetrievalMAP(top_k=k)."""
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    y, scores, groups = _torchmetrics_case(seed, negative=negative)
    # rows tied at 0 across a cutoff: torch orders them by its sort
    untied = scores != 0.0
    y, scores, groups = y[untied], scores[untied], groups[untied]
    cases = {
        "map": retrieval.RetrievalMAP(),
        "map@5": retrieval.RetrievalMAP(top_k=5),
        "map@10": retrieval.RetrievalMAP(top_k=10),
        "mrr": retrieval.RetrievalMRR(),
        "p@5": retrieval.RetrievalPrecision(top_k=5),
        "recall@5": retrieval.RetrievalRecall(top_k=5),
        "recall": retrieval.RetrievalRecall(),
        "ndcg@5": retrieval.RetrievalNormalizedDCG(top_k=5),
        "hit_rate@3": retrieval.RetrievalHitRate(top_k=3),
        "r_precision": retrieval.RetrievalRPrecision(),
    }
    got = evaluate(
        y, scores, groups=groups, metrics=list(cases), conventions="torchmetrics"
    )
    index = torch.tensor(groups)
    for name, metric in cases.items():
        want = float(metric(torch.tensor(scores), torch.tensor(y > 0), indexes=index))
        assert got[name] == pytest.approx(want, abs=2e-6), name


def test_torchmetrics_preset_rows_at_or_below_zero_are_not_retrieved():
    """The rule, on a case worked by hand: the relevant row scored -1 is
    not retrieved; recall keeps it in R."""
    y, s, g = [1, 0, 1], [0.5, 0.2, -1.0], [0, 0, 0]
    got = evaluate(
        y,
        s,
        groups=g,
        metrics=["map", "mrr", "p@3", "recall@3", "ndcg@3"],
        conventions="torchmetrics",
    )
    assert got["map"] == 1.0  # 1/1 over the one relevant row retrieved
    assert got["mrr"] == 1.0
    assert got["p@3"] == pytest.approx(1 / 3)
    assert got["recall@3"] == 0.5  # one of the two relevant rows
    assert got["ndcg@3"] < 1.0  # NDCG ranks every row
    all_out = evaluate(
        [1, 0],
        [-0.5, 0.2],
        groups=[0, 0],
        metrics=["map", "recall@2"],
        conventions="torchmetrics",
        no_relevant="skip",
    )
    assert (all_out["map"], all_out["recall@2"]) == (0.0, 0.0)


def test_map_hits_denominator_refuses_ties_across_the_cutoff():
    with pytest.raises(ValueError, match=r"rows tied across the cutoff 2"):
        evaluate(
            [1, 0, 1, 0],
            [2, 1, 1, 0],
            groups=[0] * 4,
            metrics=["map@2"],
            conventions="torchmetrics",
        )
    got = evaluate(
        [1, 0, 1, 0],
        [2, 1, 1, 0],
        groups=[0] * 4,
        metrics=["map@3"],
        conventions="torchmetrics",
    )
    # the relevant tied row at rank 2 or 3, each with probability 1/2
    assert got["map@3"] == pytest.approx((1 + (2 / 2 + 2 / 3) / 2) / 2)


def test_torchmetrics_scorer_takes_negative_predictions():
    """A regressor's predictions below 0 reach the scorer as they do the
    evaluation: the same numbers, no refusal."""
    from sklearn.linear_model import Ridge

    from skirm.metrics import make_ranking_scorer

    y, scores, groups = _torchmetrics_case(4, n=300, n_queries=20)
    X = np.column_stack([scores, np.zeros_like(scores)])
    model = Ridge(alpha=1e-9, fit_intercept=False).fit(X, scores)  # predicts scores
    predicted = model.predict(X)
    assert (predicted <= 0).any()
    for name in ("map@5", "mrr", "recall@5"):
        scorer = make_ranking_scorer(name, conventions="torchmetrics")
        want = evaluate(
            y, predicted, groups=groups, metrics=[name], conventions="torchmetrics"
        )[name]
        assert scorer(model, X, y, groups=groups) == want
