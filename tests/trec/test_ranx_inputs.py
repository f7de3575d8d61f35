"""ranx's ``Qrels`` and ``Run`` (and any object whose ``to_dict()`` gives a
dict of dicts) wherever qrels and runs are taken; messages that name the
received type with its module, so that skirm's ``Qrels`` and another
library's are not confused."""

import numpy as np
import pytest

from skirm.io import as_qrels, as_run
from skirm.trec import RelevanceEvaluator, evaluate_diversity, evaluate_run

# ranx's numba kernels warn of their own casts while they compile
pytestmark = pytest.mark.filterwarnings(
    "ignore:unsafe cast from uint64 to int64:Warning"
)


def _dicts(seed, n_queries=12):
    """Qrels and a run without ties, every query in both."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{q}-{i}" for i in range(int(rng.integers(5, 30)))]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[::2]}
        qrels[f"q{q}"][docs[0]] = 1  # one relevant document at least
        scores = rng.permutation(len(docs)) + 1.0
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
    return qrels, run


class ToDict:
    """Any object with a ``to_dict()`` of the right shape."""

    def __init__(self, dicts):
        self.dicts = dicts

    def to_dict(self):
        return self.dicts


class Qrels:
    """Another library's class named as skirm's, without ``to_dict()``."""


def test_evaluate_run_takes_ranx_qrels_and_run():
    ranx = pytest.importorskip("ranx")
    qrels, run = _dicts(0)
    names = ["ndcg_cut.10", "map", "P.5", "recip_rank"]
    want = evaluate_run(qrels, run, names)
    got = evaluate_run(ranx.Qrels(qrels), ranx.Run(run), names)
    assert got.means == want.means
    for name in want.per_query:
        np.testing.assert_array_equal(got.per_query[name], want.per_query[name])


@pytest.mark.oracle
@pytest.mark.slow  # ranx compiles its metrics with numba on first use (~40 s)
def test_ranx_objects_give_ranx_numbers():
    ranx = pytest.importorskip("ranx")
    # ranx's name: the output of the trec_eval measure asked for below
    pairs = {
        "ndcg@10": "ndcg_cut_10",
        "map": "map",
        "precision@5": "P_5",
        "recall@10": "recall_10",
        "mrr": "mrr",
    }
    checked = 0
    for seed in range(3):
        qrels, run = _dicts(seed)
        rq, rr = ranx.Qrels(qrels), ranx.Run(run)
        want = ranx.evaluate(rq, rr, list(pairs))
        got = evaluate_run(rq, rr, ["ndcg_cut.10", "map", "P.5", "recall.10", "mrr"])
        for theirs, ours in pairs.items():
            assert got.means[ours] == pytest.approx(want[theirs], abs=1e-12), theirs
            checked += 1
    assert checked == 15


def test_relevance_evaluator_takes_ranx_objects():
    ranx = pytest.importorskip("ranx")
    qrels, run = _dicts(1)
    want = RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(run)
    got = RelevanceEvaluator(ranx.Qrels(qrels), {"map", "ndcg"}).evaluate(ranx.Run(run))
    assert got == want


def test_evaluate_diversity_takes_a_ranx_run(tmp_path):
    ranx = pytest.importorskip("ranx")
    path = tmp_path / "qrels"
    path.write_text("q1 1 d1 1\nq1 2 d2 1\nq1 1 d3 1\n")
    run = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}}
    want = evaluate_diversity(path, run, ["alpha_nDCG@5"])
    got = evaluate_diversity(path, ranx.Run(run), ["alpha_nDCG@5"])
    assert got["mean"] == want["mean"]


def test_any_object_with_to_dict_is_taken():
    qrels, run = _dicts(2)
    want = evaluate_run(qrels, run, ["map", "ndcg"])
    got = evaluate_run(ToDict(qrels), ToDict(run), ["map", "ndcg"])
    assert got.means == want.means
    assert as_qrels(ToDict(qrels)).labels.tolist() == as_qrels(qrels).labels.tolist()
    assert as_run(ToDict(run)).scores.tolist() == as_run(run).scores.tolist()


def test_to_dict_of_another_shape_names_the_type():
    with pytest.raises(TypeError, match=r"ToDict\.to_dict\(\) must return a dict"):
        as_qrels(ToDict([("q1", "d1", 1)]))


def test_column_names_refused_for_an_object_with_to_dict():
    with pytest.raises(TypeError, match=r"has no columns to name.*query_id='q'"):
        as_qrels(ToDict({"q1": {"d1": 1}}), query_id="q")


def test_refusal_names_skirm_qrels_and_the_other_type_with_its_module():
    with pytest.raises(TypeError) as info:
        evaluate_run(Qrels(), {"q1": {"d1": 1.0}}, ["map"])
    message = str(info.value)
    assert "must be a skirm.io.Qrels" in message
    assert message.endswith(f"got {__name__}.Qrels")
    with pytest.raises(TypeError, match=r"must be a skirm\.io\.Run.*got int$"):
        evaluate_run({"q1": {"d1": 1}}, 3, ["map"])
