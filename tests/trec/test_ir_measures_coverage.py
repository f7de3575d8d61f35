"""Every measure name in ir_measures' registry, computed by skirm and equal
to ir_measures per query and in the mean, through whichever provider
ir_measures picks for it.

Plain judgments go to :func:`skirm.trec.evaluate_run` (trec_eval 9's
conventions, as pytrec_eval); subtopic judgments go to
:func:`skirm.trec.evaluate_diversity` (ndeval's, as pyndeval). The queries
are generated: a judged pool per query with a few relevant documents,
unjudged documents retrieved, judged ones missed, scores without ties (each
tool breaks ties its own way).
"""

from __future__ import annotations

import numpy as np
import pytest
from _ir_names import DIVERSITY, SPELLINGS

from skirm.io import QrelsJG, Run
from skirm.trec import evaluate_diversity, evaluate_run
from skirm.trec._request import parse_measures

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")


def test_every_registered_name_is_covered():
    assert set(ir_measures.measures.registry) == set(SPELLINGS)
    assert len(SPELLINGS) == 51


def _generate(seed, n_queries=25, n_subtopics=4):
    """Qrels (one row per (query, subtopic, document)) and a run."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for q in range(1, n_queries + 1):
        pool = [f"D{q}-{i}" for i in range(int(rng.integers(5, 40)))]
        for doc in pool:
            labels = rng.choice(4, size=n_subtopics, p=[0.7, 0.15, 0.1, 0.05])
            for sub, label in enumerate(labels):
                q_rows.append((str(q), str(sub + 1), doc, int(label)))
        retrieved = [d for d in pool if rng.random() < 0.8]
        retrieved += [f"U{q}-{i}" for i in range(int(rng.integers(0, 10)))]
        scores = rng.permutation(len(retrieved)) + rng.random()
        r_rows += [
            (str(q), d, float(s)) for d, s in zip(retrieved, scores, strict=True)
        ]
    return q_rows, r_rows


def _plain(q_rows):
    """One judgment per document: its grade for the first subtopic."""
    return [(q, d, g) for q, s, d, g in q_rows if s == "1"]


def _ir_measures(name, q_rows, r_rows):
    measure = ir_measures.parse_measure(name)
    if name.split("(")[0].split("@")[0] in DIVERSITY:
        qrels = pd.DataFrame(
            q_rows, columns=["query_id", "iteration", "doc_id", "relevance"]
        )
    else:
        qrels = pd.DataFrame(
            _plain(q_rows), columns=["query_id", "doc_id", "relevance"]
        )
    run = pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"])
    per_query = {
        m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)
    }
    return per_query, ir_measures.calc_aggregate([measure], qrels, run)[measure]


def _skirm(name, base, q_rows, r_rows):
    qids, docs, scores = (list(c) for c in zip(*r_rows, strict=True))
    run = Run(qids, docs, scores)
    if base in DIVERSITY:
        qrels = QrelsJG(*(list(c) for c in zip(*q_rows, strict=True)))
        report = evaluate_diversity(qrels, run, [name])
        per_query = dict(zip(report["query_ids"], report[name], strict=True))
        # the same name through evaluate_run: the run's judged queries
        result = evaluate_run(qrels, run, [name])
        judged = report["query_ids"][report["judged"]]
        assert sorted(result.group_ids.tolist()) == sorted(judged.tolist())
        for qid, value in zip(result.group_ids, result.per_query[name], strict=True):
            assert value == per_query[qid], (name, qid)
        assert result.means[name] == report["mean"][name]
        return per_query, report["mean"][name]
    qrels = {}
    for q, d, g in _plain(q_rows):
        qrels.setdefault(q, {})[d] = g
    result = evaluate_run(qrels, run, [name], compat="9.0")
    ids = result.group_ids.astype(str)
    return dict(zip(ids, result.per_query[name], strict=True)), result.means[name]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("base", sorted(SPELLINGS))
def test_equal_to_ir_measures_per_query_and_in_the_mean(base, seed):
    name = SPELLINGS[base]
    q_rows, r_rows = _generate(seed)
    want, aggregate = _ir_measures(name, q_rows, r_rows)
    got, summary = _skirm(name, base, q_rows, r_rows)
    # gdeval (ERR) prints five decimals.
    tol = 1e-5 if base == "ERR" else 1e-9
    # ir_measures leaves out queries a provider cannot score (Accuracy with
    # nothing to compare, gdeval without a relevant document); skirm scores
    # every query of the run and the qrels.
    assert want and set(want) <= set(got), name
    for qid, value in want.items():
        assert got[qid] == pytest.approx(float(value), abs=tol), (name, qid)
    if set(want) == set(got):
        # skirm's own summary: a mean, or a sum for the counts (NumQ, ...).
        assert summary == pytest.approx(float(aggregate), abs=tol), name
    else:
        mean = float(np.mean([got[qid] for qid in want]))
        assert mean == pytest.approx(float(aggregate), abs=tol), name


#: ir_measures' options of the measures its pytrec_eval provider computes
#: (rel=, judged_only=, gains=, the cutoff as an option): skirm applies each
#: per measure, as ir_measures has pytrec_eval evaluate each.
OPTION_SPELLINGS = [
    "NumRet(rel=1)",
    "NumRet(rel=2)",
    "NumRelRet(rel=2)",
    "Bpref(rel=2)",
    "infAP(rel=2)",
    "IPrec(rel=2)@0.1",
    "IPrec(judged_only=True)@0.2",
    "IPrec(recall=0.3)",
    "nDCG(judged_only=True)@10",
    "nDCG(judged_only=True)",
    "nDCG(gains={0:0,1:1,2:3,3:7})@5",
    "nDCG(gains={1:2,3:10})",
    "nDCG(cutoff=5)",
    "P(judged_only=True)@5",
    "P(rel=2,judged_only=True)@10",
    "P(cutoff=3)",
    "AP(judged_only=True)",
    "AP(rel=2)@20",
    "RR(judged_only=True)",
    "Rprec(judged_only=True)",
    "R(judged_only=True)@10",
    "Success(judged_only=True)@3",
    "SetP(judged_only=True)",
    "SetF(judged_only=True)",
    "SetAP(rel=2,judged_only=True)",
    "SetRelP(judged_only=True)",
]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", OPTION_SPELLINGS)
def test_options_of_trec_measures_equal_ir_measures(name, seed):
    q_rows, r_rows = _generate(seed)
    want, aggregate = _ir_measures(name, q_rows, r_rows)
    got, summary = _skirm(name, name, q_rows, r_rows)
    assert want and set(want) == set(got), name
    for qid, value in want.items():
        assert got[qid] == pytest.approx(float(value), abs=1e-12), (name, qid)
    assert summary == pytest.approx(float(aggregate), abs=1e-12), name


def test_options_of_several_measures_in_one_request_keep_their_order():
    # Each variant (relevance level, judged only, gains) is evaluated apart
    # and the outputs come back in the request's order, with the call's
    # own measures untouched.
    q_rows, r_rows = _generate(3)
    names = ["map", *OPTION_SPELLINGS, "P@10"]
    qids, docs, scores = (list(c) for c in zip(*r_rows, strict=True))
    qrels = {}
    for q, d, g in _plain(q_rows):
        qrels.setdefault(q, {})[d] = g
    together = evaluate_run(qrels, Run(qids, docs, scores), names, compat="9.0")
    for name in names:
        alone = evaluate_run(qrels, Run(qids, docs, scores), [name], compat="9.0")
        np.testing.assert_array_equal(together.group_ids, alone.group_ids)
        np.testing.assert_array_equal(together.per_query[name], alone.per_query[name])
        assert together.means[name] == alone.means[name]
    # trec_eval's print order (num_ret before map), then the others as given:
    # the order of the request, whatever the variants.
    printed = list(together.means)
    assert printed == [o.name for o in parse_measures(names, "9.0").outputs]
    assert printed.index("NumRet(rel=1)") < printed.index("map")
    assert printed[-2:] == ["SetP(judged_only=True)", "SetF(judged_only=True)"]
