"""Diversity measures named in evaluate_run and ``skirm eval``.

The values are evaluate_diversity's (itself equal to ndeval, see
test_diversity.py); these tests check the door: the same numbers per query
and in the summary, on the same queries as trec_eval's measures, mixed with
them in one request, and the options that do not apply refused by name.
"""

import io
from contextlib import redirect_stdout

import numpy as np
import pytest

from skirm._cli import main
from skirm.io import Qrels, QrelsJG, read_qrels_jg, read_run
from skirm.stats import compare
from skirm.trec import DuplicateDocnoError, evaluate_diversity, evaluate_run
from skirm.trec._request import parse_measures

NAMES = [
    "alpha_nDCG@10",
    "alpha-DCG@5",
    "ERR_IA@20",
    "nERR_IA@10",
    "NRBP",
    "nNRBP",
    "AP_IA",
    "P_IA@5",
    "StRecall@10",
    "NRBP(alpha=0.3,beta=0.8)",
    "alpha_nDCG(rel=2)@10",
]


def _write(tmp_path, seed, *, ties=False, unjudged=False, missing=False, once=False):
    """Subtopic qrels and a run; ``once``: each document judged for one
    subtopic only, so that trec_eval's measures can read the same file."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, 10):
        docs = [f"D{topic}-{i}" for i in range(int(rng.integers(1, 40)))]
        n_sub = int(rng.integers(1, 6))
        for d in docs:
            if missing and topic == 3:
                continue
            subtopics = (
                [int(rng.integers(1, n_sub + 1))] if once else range(1, n_sub + 1)
            )
            for j in subtopics:
                if rng.random() < 0.6:
                    label = int(rng.random() < 0.4) * int(rng.integers(1, 3))
                    qrels.append(f"{topic} {j} {d} {label}")
        retrieved = [d for d in docs if rng.random() < 0.7] or docs[:1]
        retrieved += [
            f"U{topic}-{i}" for i in range(int(rng.integers(0, 9) * unjudged))
        ]
        rng.shuffle(retrieved)
        for rank, d in enumerate(retrieved):
            score = int(rng.integers(0, 4)) if ties else float(rng.normal())
            run.append(f"{topic} Q0 {d} {rank + 1} {score} sys{seed}")
    if missing:
        qrels.append("20 1 Dlonely 1")  # a judged topic the run lacks
    q, r = tmp_path / f"q{seed}", tmp_path / f"r{seed}"
    q.write_text("\n".join(qrels) + "\n")
    r.write_text("\n".join(run) + "\n")
    return q, r


DIMENSIONS = {
    "plain": {},
    "ties": {"ties": True},
    "unjudged_documents": {"unjudged": True},
    "missing_topics": {"missing": True},
}


@pytest.mark.parametrize("dimension", sorted(DIMENSIONS))
@pytest.mark.parametrize("all_queries", [False, True])
def test_evaluate_run_equals_evaluate_diversity(tmp_path, dimension, all_queries):
    for seed in range(3):
        q, r = _write(tmp_path, seed, **DIMENSIONS[dimension])
        result = evaluate_run(q, r, NAMES, all_queries=all_queries)
        report = evaluate_diversity(q, r, NAMES, all_queries=all_queries)
        judged = report["query_ids"][report["judged"]].tolist()
        qrels_topics = np.unique(read_qrels_jg(q).query_ids).tolist()
        expected_ids = sorted(qrels_topics if all_queries else judged)
        assert result.group_ids.tolist() == expected_ids
        values = {
            name: dict(zip(report["query_ids"].tolist(), report[name], strict=True))
            for name in NAMES
        }
        for name in NAMES:
            for qid, value in zip(expected_ids, result.per_query[name], strict=True):
                # a judged topic the run lacks counts 0, as ndeval -c counts it
                assert value == values[name].get(qid, 0.0), (name, qid)
            assert result.means[name] == report["mean"][name], name
        assert list(result.means) == NAMES


@pytest.mark.parametrize("all_queries", [False, True])
def test_mixed_request_equals_its_parts(tmp_path, all_queries):
    for seed in range(3):
        q, r = _write(tmp_path, seed, ties=True, missing=all_queries, once=True)
        trec = ["map", "P.5", "ndcg_cut.10", "ndcg@10", "recip_rank"]
        mixed = evaluate_run(
            q, r, [*trec, "alpha_nDCG@10", "NRBP"], all_queries=all_queries
        )
        jg = read_qrels_jg(q)
        plain = Qrels(jg.query_ids, jg.doc_ids, jg.labels)
        alone = evaluate_run(plain, r, trec, all_queries=all_queries)
        diversity = evaluate_run(
            q, r, ["alpha_nDCG@10", "NRBP"], all_queries=all_queries
        )
        np.testing.assert_array_equal(mixed.group_ids, alone.group_ids)
        np.testing.assert_array_equal(mixed.group_ids, diversity.group_ids)
        for name in alone.per_query:
            np.testing.assert_array_equal(mixed.per_query[name], alone.per_query[name])
            assert mixed.means[name] == alone.means[name]
        for name in diversity.per_query:
            np.testing.assert_array_equal(
                mixed.per_query[name], diversity.per_query[name]
            )
            assert mixed.means[name] == diversity.means[name]
        assert mixed.run_id == f"sys{seed}"


def test_objects_in_place_of_files(tmp_path):
    q, r = _write(tmp_path, 4)
    from_files = evaluate_run(q, r, NAMES)
    from_objects = evaluate_run(read_qrels_jg(q), read_run(r), NAMES)
    for name in NAMES:
        np.testing.assert_array_equal(
            from_files.per_query[name], from_objects.per_query[name]
        )
    with open(q, "rb") as qf, open(r, "rb") as rf:
        opened = evaluate_run(qf, rf, NAMES)
    assert opened.means == from_files.means


def test_the_summary_compares(tmp_path):
    q, r1 = _write(tmp_path, 5)
    _, r2 = _write(tmp_path, 6)
    a = evaluate_run(q, r1, ["alpha_nDCG@10", "ERR_IA@20"])
    b = evaluate_run(q, r2, ["alpha_nDCG@10", "ERR_IA@20"])
    table = compare({"A": a, "B": b}, metrics=["alpha_nDCG@10"]).to_frame()
    means = dict(zip(table["system"], table["mean"], strict=True))
    assert means == {"A": a.means["alpha_nDCG@10"], "B": b.means["alpha_nDCG@10"]}


def test_options_that_do_not_apply_are_named(tmp_path):
    q, r = _write(tmp_path, 7)
    with pytest.raises(ValueError, match=r"^max_docs does not apply .*alpha_nDCG@10"):
        evaluate_run(q, r, ["alpha_nDCG@10"], max_docs=5)
    with pytest.raises(ValueError, match=r"rel_format='prefs' does not apply"):
        evaluate_run(q, r, ["alpha_nDCG@10"], rel_format="prefs")
    with pytest.raises(TypeError, match=r"dict of dicts of dicts.*got int"):
        evaluate_run(7, r, ["alpha_nDCG@10"])
    with pytest.raises(ValueError, match="needs a positive cutoff"):
        evaluate_run(q, r, ["alpha_nDCG"])
    with pytest.raises(ValueError, match="takes no option 'p'"):
        evaluate_run(q, r, ["NRBP(p=0.5)"])


def test_plain_measures_on_subtopic_qrels_say_why_they_stop(tmp_path):
    q, r = _write(tmp_path, 8, missing=False)
    with pytest.raises(DuplicateDocnoError, match="once per subtopic"):
        evaluate_run(q, r, ["alpha_nDCG@10", "map"], all_queries=True)


def test_diversity_names_elsewhere_say_where_they_are_taken():
    with pytest.raises(ValueError, match=r"diversity measure.*evaluate_run"):
        parse_measures(["alpha_nDCG@20"])
    request = parse_measures(["map", "alpha_nDCG@20"], diversity=True)
    assert [o.name for o in request.outputs] == ["map"]
    assert [d.text for d in request.diversity] == ["alpha_nDCG@20"]


def _cli(*args):
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["eval", *map(str, args)])
    return status, out.getvalue()


def test_skirm_eval_prints_diversity_measures_as_trec_eval_lines(tmp_path):
    q, r = _write(tmp_path, 9, missing=True)
    status, text = _cli("-q", "-c", "-m", "alpha_nDCG@10", "-m", "NRBP", q, r)
    assert status == 0
    result = evaluate_run(q, r, ["alpha_nDCG@10", "NRBP"], all_queries=True)
    expected = []
    for i, qid in enumerate(result.group_ids.tolist()):
        for name in ("alpha_nDCG@10", "NRBP"):
            expected.append(f"{name:<22}\t{qid}\t{result.per_query[name][i]:6.4f}")
    for name in ("alpha_nDCG@10", "NRBP"):
        expected.append(f"{name:<22}\tall\t{result.means[name]:6.4f}")
    assert text.splitlines() == expected
    assert "20" in result.group_ids.tolist()  # the topic the run lacks, at 0


def test_skirm_eval_refuses_what_does_not_apply(tmp_path, capsys):
    q, r = _write(tmp_path, 10)
    assert main(["eval", "-M", "5", "-m", "alpha_nDCG@10", str(q), str(r)]) == 1
    assert "error: -M does not apply" in capsys.readouterr().err
    assert main(["eval", "-m", "alpha_nDCG", str(q), str(r)]) == 1
    assert "needs a positive cutoff" in capsys.readouterr().err


def test_qrelsjg_input_is_not_modified(tmp_path):
    q, r = _write(tmp_path, 11)
    jg = read_qrels_jg(q)
    before = [a.copy() for a in (jg.query_ids, jg.groups, jg.doc_ids, jg.labels)]
    evaluate_run(jg, r, ["alpha_nDCG@10"])
    after = (jg.query_ids, jg.groups, jg.doc_ids, jg.labels)
    for x, y in zip(before, after, strict=True):
        np.testing.assert_array_equal(x, y)
    assert isinstance(jg, QrelsJG)


SPELLINGS = [
    ("alpha_nDCG@10", "alpha-nDCG@10", "alpha_ndcg@10"),
    ("alpha_DCG@5", "alpha-DCG@5", "alpha_dcg@5"),
    ("ERR_IA@20", "ERR-IA@20", "err_ia@20"),
    ("nERR_IA@20", "nERR-IA@20", "nerr_ia@20"),
    ("NRBP", "NRBP", "nrbp"),
    ("nNRBP", "nNRBP", "nnrbp"),
    ("AP_IA", "MAP-IA", "map_ia"),
    ("P_IA@10", "P-IA@10", "precision_ia@10"),
    ("StRecall@10", "strec@10", "subtopic_recall@10"),
]


@pytest.mark.parametrize("spellings", SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_three_spellings_give_one_measure(tmp_path, spellings):
    # ir_measures', ndeval's and skirm's (the functions' names)
    q, r = _write(tmp_path, 12, ties=True)
    values = [evaluate_run(q, r, [name]).per_query[name] for name in spellings]
    for other in values[1:]:
        np.testing.assert_array_equal(values[0], other)
