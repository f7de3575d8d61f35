"""Subtopic judgments in every shape users hold: dicts of dicts of dicts,
4-column frames (pandas, polars, pyarrow), ir_measures' ``Qrel`` named
tuples with ``iteration``, plain 4-tuples; each gives the numbers of the
file form (and ir_measures' own, through pyndeval). Ordinary qrels given to
a diversity measure warn in the library and are refused by ``skirm eval``.
"""

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from skirm._cli import main
from skirm.io import QrelsJG, as_qrels_jg, read_qrels_jg
from skirm.trec import OneSubtopicWarning, evaluate_diversity, evaluate_run

NAMES = ["alpha_nDCG@10", "ERR_IA@20", "NRBP", "P_IA@5", "StRecall@10", "AP_IA"]


def _judgments(seed):
    """``(rows, run)``: subtopic judgment rows ``(qid, subtopic, docid,
    rel)`` (two subtopics at least per query) and a run without ties."""
    rng = np.random.default_rng(seed)
    rows, run = [], {}
    for topic in range(1, 7):
        qid = str(topic)
        docs = [f"D{topic}-{i}" for i in range(int(rng.integers(3, 25)))]
        n_sub = int(rng.integers(2, 5))
        for d in docs:
            for j in range(1, n_sub + 1):
                if rng.random() < 0.6:
                    rows.append((qid, str(j), d, int(rng.integers(0, 3))))
        scores = rng.permutation(len(docs)).astype(float)
        run[qid] = {d: s for d, s in zip(docs, scores, strict=True) if s > 1}
    return rows, run


def _file(rows, tmp_path):
    path = tmp_path / "subtopics.qrels"
    path.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in rows))
    return path


def _nested(rows):
    out = {}
    for q, s, d, r in rows:
        out.setdefault(q, {}).setdefault(s, {})[d] = r
    return out


def _columns(rows):
    q, s, d, r = zip(*rows, strict=True)
    return {"query_id": q, "subtopic": s, "doc_id": d, "relevance": r}


def _rows_of(jg):
    """The judgments as a sorted list of rows (a dict has its own order)."""
    columns = (jg.query_ids, jg.groups, jg.doc_ids, jg.labels)
    return sorted(zip(*(c.tolist() for c in columns), strict=True))


def _shapes(rows):
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    from ir_measures import Qrel

    columns = _columns(rows)
    names = ["qid", "iteration", "docno", "rel"]
    renamed = dict(zip(names, columns.values(), strict=True))
    return {
        "dict of dicts of dicts": _nested(rows),
        "pandas": pd.DataFrame(columns),
        "pandas with ranx's names": pd.DataFrame(renamed),
        "polars": pl.DataFrame(columns),
        "pyarrow": pa.table(columns),
        "ir_measures Qrel": [Qrel(q, d, r, s) for q, s, d, r in rows],
        "4-tuples": list(rows),
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_subtopic_shapes_give_the_numbers_of_the_file(tmp_path, seed):
    rows, run = _judgments(seed)
    path = _file(rows, tmp_path)
    want = evaluate_run(path, run, NAMES)
    report = evaluate_diversity(path, run, NAMES)
    expected = _rows_of(read_qrels_jg(path))
    for shape, qrels in _shapes(rows).items():
        assert _rows_of(as_qrels_jg(qrels)) == expected, shape
        got = evaluate_run(qrels, run, NAMES)
        assert got.means == want.means, shape
        for name in NAMES:
            np.testing.assert_array_equal(got.per_query[name], want.per_query[name])
        assert evaluate_diversity(qrels, run, NAMES)["mean"] == report["mean"], shape


@pytest.mark.oracle
def test_subtopic_shapes_equal_ir_measures(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    rows, run = _judgments(2)
    names = ["alpha_nDCG@10", "alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@10"]
    measures = [ir_measures.parse_measure(name) for name in names]
    qrels = [ir_measures.Qrel(q, d, r, s) for q, s, d, r in rows]
    want = ir_measures.calc_aggregate(measures, qrels, run)
    checked = 0
    for shape, given in _shapes(rows).items():
        got = evaluate_run(given, run, names)
        for name, measure in zip(names, measures, strict=True):
            assert got.means[name] == pytest.approx(want[measure], abs=1e-12), shape
            checked += 1
    assert checked == len(names) * 7


def test_ordinary_dict_of_dicts_warns_naming_the_subtopic():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.4}, "q2": {"d3": 1.0}}
    with pytest.warns(OneSubtopicWarning, match=r"only 1 subtopic.*iteration"):
        result = evaluate_run(qrels, run, ["alpha_nDCG@20"])
    assert result.group_ids.tolist() == ["q1", "q2"]
    with pytest.warns(OneSubtopicWarning, match="only 1 subtopic"):
        evaluate_diversity(qrels, run, ["alpha_nDCG@20"])


def test_ordinary_qrels_namedtuples_warn():
    from ir_measures import Qrel

    qrels = [Qrel("q1", "d1", 1), Qrel("q1", "d2", 1)]  # iteration "0"
    with pytest.warns(OneSubtopicWarning, match="only 1 subtopic"):
        evaluate_run(qrels, {"q1": {"d1": 1.0, "d2": 0.5}}, ["alpha_nDCG@20"])


def test_ordinary_qrels_frame_reads_one_subtopic_per_query():
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "rel": [1, 0]})
    jg = as_qrels_jg(frame)
    assert jg.groups.tolist() == ["0", "0"]


def test_subtopic_column_named_and_unknown_column_listed():
    import pandas as pd

    frame = pd.DataFrame(
        {"topic": [1, 1], "aspect": ["a", "b"], "doc": ["x", "x"], "grade": [1, 1]}
    )
    jg = as_qrels_jg(
        frame, query_id="topic", subtopic="aspect", doc_id="doc", relevance="grade"
    )
    assert isinstance(jg, QrelsJG) and jg.groups.tolist() == ["a", "b"]
    with pytest.raises(ValueError, match=r"no column 'facet' \(its columns: \["):
        as_qrels_jg(frame, query_id="topic", subtopic="facet", doc_id="doc")


def test_subtopic_dict_with_a_bad_level_names_it():
    with pytest.raises(ValueError, match=r"subtopic '1' of query 'q2' is a int"):
        as_qrels_jg({"q1": {"1": {"d1": 1}, "2": {"d2": 1}}, "q2": {"1": 3}})
    with pytest.raises(TypeError, match=r"dict of dicts of dicts.*got float"):
        as_qrels_jg(1.5)


def test_a_document_twice_in_a_subtopic_is_refused():
    rows = [("q1", "1", "d1", 1), ("q1", "1", "d1", 0), ("q1", "2", "d1", 1)]
    with pytest.raises(ValueError, match="duplicate docno 'd1' in group '1'"):
        as_qrels_jg(rows)


def test_cli_eval_refuses_ordinary_qrels_for_diversity_names(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    run.write_text("1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n2 Q0 d3 1 1 r\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["eval", "-m", "alpha_nDCG@20", str(qrels), str(run)])
    assert status == 2 and out.getvalue() == ""
    message = err.getvalue()
    assert "alpha_nDCG@20" in message and "only 1 subtopic" in message
    assert "second field of `topic subtopic docno judgment` lines" in message
    # the same files with a subtopic per judgment are evaluated
    qrels.write_text("1 1 d1 1\n1 2 d2 1\n2 1 d3 1\n")
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["eval", "-m", "alpha_nDCG@20", str(qrels), str(run)]) == 0
