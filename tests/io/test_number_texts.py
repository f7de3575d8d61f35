"""Scores and labels that Python's ``float`` and ``int`` read as numbers and
C's ``atof`` / ``atol`` (trec_eval's readers) do not: refused, naming the
line, rather than read as a number trec_eval would not give.

Regression: ``1_0`` was read as 10 (trec_eval: 1) and a full-width ``１`` as
1 (trec_eval: 0), silently (seen failing before the fix).
"""

import pytest

from skirm.io import TrecFormatError, read_qrels, read_run
from skirm.trec import evaluate_run

TEXTS = ["1_0", "1_000.5", "\uff11", "\u0661.5", "\u0968", "1e1_0"]


@pytest.mark.parametrize("text", TEXTS)
def test_score_texts_python_reads_and_atof_does_not(tmp_path, text):
    run = tmp_path / "run"
    run.write_text(f"q1 Q0 a 1 1.0 r\nq1 Q0 b 2 {text} r\n", encoding="utf-8")
    with pytest.raises(TrecFormatError, match=r"run:2: expected a numeric score"):
        read_run(run)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    with pytest.raises(TrecFormatError, match=r"run:2: expected a numeric score"):
        evaluate_run(qrels, run, ["map"])


@pytest.mark.parametrize("text", TEXTS[:1] + TEXTS[2:3] + TEXTS[4:])
def test_label_texts_python_reads_and_atol_does_not(tmp_path, text):
    qrels = tmp_path / "qrels"
    qrels.write_text(f"q1 0 a 1\nq1 0 b {text}\n", encoding="utf-8")
    with pytest.raises(
        TrecFormatError, match=r"qrels:2: expected an integer relevance label"
    ):
        read_qrels(qrels)


@pytest.mark.parametrize("text", ["+3", ".5", "5.", "1e-3", "-inf", "INF", "1e400"])
def test_texts_both_read_alike_still_read(tmp_path, text):
    run = tmp_path / "run"
    run.write_text(f"q1 Q0 a 1 {text} r\n", encoding="utf-8")
    assert read_run(run).scores.tolist() == [float(text)]
