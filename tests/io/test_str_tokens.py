"""Ids given as Python str (rows, dicts, object columns) read as tokens of
their joined bytes where the reader takes tokens (``as_qrels``, ``as_run``,
``as_qrels_jg`` and the evaluations through them): ids the tokens cannot
hold as numpy's strings do (not ASCII, a NUL) stay str arrays; equal ids in
runs share their bytes; a run or qrels read either way evaluates to the same
values, and subtopic judgments are those (or the message) of their str
arrays. The tokens of generated columns are checked against numpy's strings
in ``test_id_runs.py``."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from _token_shapes import DIMENSIONS, id_values

import skirm.io._convert as convert
from skirm.io import Qrels, Run
from skirm.io._tokens import Tokens
from skirm.trec import evaluate_run


@pytest.mark.parametrize(
    "items",
    [
        ["ab\0", "ab", "cd"],  # numpy drops trailing NULs
        ["a\0b", "ab"],  # a NUL inside
        ["ab", "é"],  # not ASCII
    ],
    ids=["trailing NUL", "inner NUL", "not ASCII"],
)
def test_ids_tokens_cannot_hold_stay_strings(items):
    assert convert._str_tokens(items) is None
    got = convert._ids(items, "run", "doc ids", tokens=True)
    np.testing.assert_array_equal(got, np.array(items, dtype=str))


def test_ids_in_runs_share_their_bytes(monkeypatch):
    """A run of equal ids is the bytes of its first id, taken again."""
    items = [f"q{i // 50}" for i in range(10_000)]
    got = convert._ids(items, "run", "query ids", tokens=True)
    assert isinstance(got, Tokens)
    assert got.buf.shape[0] - convert.PAD == sum(len(f"q{i}") for i in range(200))
    assert got.strings().tolist() == items


Row = namedtuple("Row", "query_id doc_id score")
Judgment = namedtuple("Judgment", "query_id doc_id relevance")


def _shapes(rows, value):
    """The same rows as plain tuples, named tuples, a dict of dicts and
    str arrays (the reference: no tokens from Python str)."""
    q, d, v = (list(c) for c in zip(*rows, strict=True))
    named = Row if value == "score" else Judgment
    dicts = {}
    for a, b, c in rows:
        dicts.setdefault(a, {})[b] = c
    return {
        "tuples": rows,
        "named": [named(*r) for r in rows],
        "dicts": dicts,
    }, (np.array(q, dtype=str), np.array(d, dtype=str), np.array(v))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_evaluations_of_str_ids_as_tokens(dimension, seed):
    """``evaluate_run`` of rows, named tuples and dicts whose ids are read
    as tokens equals its values on the same ids as str arrays."""
    rng = np.random.default_rng([DIMENSIONS.index(dimension), seed, 11])
    queries = id_values(rng, dimension, 6)[:5] or ["q"]
    docs = id_values(np.random.default_rng(seed), dimension, 40)
    run, qrels = [], []
    for q in dict.fromkeys(queries):
        picked = rng.choice(len(docs), int(rng.integers(1, 25)), replace=False)
        scores = rng.integers(0, 5, picked.size) / 2  # ties
        run += [(q, docs[i], float(s)) for i, s in zip(picked, scores, strict=True)]
        judged = rng.choice(len(docs), int(rng.integers(1, 15)), replace=False)
        qrels += [(q, docs[i], int(rng.integers(-1, 3))) for i in judged]
    runs, (rq, rd, rs) = _shapes(run, "score")
    judgements, (jq, jd, jl) = _shapes(qrels, "relevance")
    reference = evaluate_run(
        Qrels(jq, jd, jl), Run(rq, rd, rs), ["official", "ndcg_cut.5"]
    )
    for kind in runs:
        got = evaluate_run(judgements[kind], runs[kind], ["official", "ndcg_cut.5"])
        np.testing.assert_array_equal(got.group_ids, reference.group_ids)
        for name, values in reference.per_query.items():
            np.testing.assert_array_equal(got.per_query[name], values, err_msg=name)
        assert got.means == reference.means


def _jg_outcome(make):
    from skirm import InvalidInputError

    try:
        jg = make()
    except InvalidInputError as exc:
        return str(exc).removeprefix("`qrels`: ")
    ids = [x.tolist() for x in (jg.query_ids, jg.groups, jg.doc_ids)]
    return [*ids, jg.labels.tolist(), jg.labels.dtype]


@pytest.mark.parametrize(
    "bad", ["d 1", "", "d\t1", "d\x0b", "é", "x\0", "fine", "twice"]
)
@pytest.mark.parametrize("column", [0, 1, 2])
def test_subtopic_judgments_of_str_ids_as_tokens(bad, column):
    """Subtopic judgments given as tuples, their str ids read as tokens,
    are the judgments (or the message) the constructor gives of the same
    ids as str arrays: ids empty or holding whitespace refused alike, ids
    not ASCII or with a NUL, a docno twice in a subtopic."""
    from skirm.io import QrelsJG, as_qrels_jg

    rows = [["q1", "1", "d1", 1], ["q1", "2", "d1", 0], ["q2", "1", "d2", 2]]
    if bad == "twice":
        rows[1] = ["q1", "1", "d1", 0]
    else:
        rows[1][column] = bad
    columns = [np.array([r[i] for r in rows], dtype=str) for i in range(3)]
    labels = [r[3] for r in rows]
    want = _jg_outcome(lambda: QrelsJG(*columns, labels))
    got = _jg_outcome(lambda: as_qrels_jg([tuple(r) for r in rows]))
    assert got == want
