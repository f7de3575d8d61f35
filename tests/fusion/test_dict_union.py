"""Runs held as plain dicts, read straight into the union of their rows
(skirm.io._dict_union), against the general path: the same runs converted
to skirm.io.Run records first. Seeded generated runs vary one dimension at a
time; the aligned rows (as a set), the fused run (ids, order, the bits of
every score) and the errors must be the same."""

from __future__ import annotations

import numpy as np
import pytest

from skirm.fusion._align import align_dicts, align_runs
from skirm.fusion._rules import METHODS, NORMS, RANK_METHODS
from skirm.io import Run, _dict_union, as_run
from skirm.io._convert import convert_run
from skirm.trec import fuse, tune_fusion

ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/"
#: Characters of each charset docnos are drawn from.
CHARSETS = {
    "ascii": ASCII,
    "non_ascii": "aZ9éß漢字😀Ω-",
    # lone surrogates of surrogateescape's range: bytes that are not UTF-8
    "escaped": "ab\udc80\udcff\udce9",
}


def make_runs(seed, **given):
    """Runs as ``{qid: {docno: score}}``, varying one dimension of these
    defaults: 3 runs, 15 queries, each run's documents for a query a random
    part (0 to 25) of a pool of 30 docnos of 1 to 12 ASCII characters,
    scores normal; ``missing``: the share of (query, run) absent, ``empty``:
    the share present with an empty dict; ``ties``: scores from 4 values;
    ``kind``: the type of the scores."""
    o = {
        "n_runs": 3,
        "n_queries": 15,
        "pool": 30,
        "lengths": (1, 12),
        "charset": "ascii",
        "missing": 0.1,
        "empty": 0.0,
        "ties": False,
        "kind": "float",
    }
    o.update(given)
    rng = np.random.default_rng(seed)
    chars = list(CHARSETS[o["charset"]])
    lo, hi = o["lengths"]
    runs = [{} for _ in range(o["n_runs"])]
    for q in range(o["n_queries"]):
        qid = f"q{q}" if o["charset"] == "ascii" else f"q{q}{chars[q % len(chars)]}"
        pool = {}
        while len(pool) < o["pool"]:
            n = int(rng.integers(lo, hi + 1))
            pool["".join(rng.choice(chars, n))] = None
        pool = list(pool)
        for run in runs:
            u = rng.random()
            if u < o["missing"]:
                continue
            if u < o["missing"] + o["empty"]:
                run[qid] = {}
                continue
            size = int(rng.integers(0, min(26, len(pool) + 1)))
            docs = rng.permutation(len(pool))[:size]
            scores = rng.standard_normal(size)
            if o["ties"]:
                scores = rng.choice([0.5, 1.0, 1.5, 2.0], size)
            run[qid] = dict(
                zip([pool[d] for d in docs], _kind(scores, o["kind"], rng), strict=True)
            )
    return runs


def _kind(scores, kind, rng):
    if kind == "float":
        return scores.tolist()
    if kind == "int":
        return np.round(scores * 3).astype(int).tolist()
    if kind == "bool":
        return (scores > 0).tolist()
    if kind == "float32":
        return list(scores.astype(np.float32))
    if kind == "int64":
        return list(np.round(scores * 3).astype(np.int64))
    # a mix of Python floats, ints, bools and numpy scalars
    out = scores.tolist()
    for i in range(len(out)):
        pick = int(rng.integers(0, 4))
        if pick == 1:
            out[i] = round(out[i] * 3)
        elif pick == 2:
            out[i] = np.float32(out[i])
        elif pick == 3:
            out[i] = out[i] > 0
    return out


def _general(runs):
    return align_runs([convert_run(run, f"runs[{i}]") for i, run in enumerate(runs)])


def _canonical(aligned):
    """The aligned rows as a set: sorted by query code, then docno."""
    docs = aligned.docs.strings()
    order = np.lexsort((docs, aligned.codes))
    return aligned.X[order], aligned.codes[order], docs[order]


def _bits(x):
    return np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)


def assert_same_rows(runs):
    fast = align_dicts(runs)
    assert fast is not None, "the plain dicts must take the dict path"
    want = _general(runs)
    np.testing.assert_array_equal(fast.query_ids, want.query_ids)
    X, codes, docs = _canonical(fast)
    X0, codes0, docs0 = _canonical(want)
    np.testing.assert_array_equal(codes, codes0)
    np.testing.assert_array_equal(docs, docs0)
    np.testing.assert_array_equal(_bits(X), _bits(X0))
    # each query's rows are consecutive, in code order
    assert np.all(np.diff(fast.codes) >= 0)


def assert_same_run(runs, **settings):
    got = fuse(runs, **settings)
    want = fuse([as_run(run) for run in runs], **settings)
    assert got.run_id == want.run_id
    np.testing.assert_array_equal(got.query_ids, want.query_ids)
    np.testing.assert_array_equal(got.doc_ids, want.doc_ids)
    np.testing.assert_array_equal(_bits(got.scores), _bits(want.scores))


#: One dimension varied at a time from :func:`make_runs`'s defaults.
CASES = {
    "plain": {},
    "missing_queries": {"missing": 0.5},
    "empty_dicts": {"empty": 0.4},
    "one_run": {"n_runs": 1},
    "two_runs": {"n_runs": 2},
    "five_runs": {"n_runs": 5},
    "lengths_0_to_40": {"lengths": (0, 40)},
    "lengths_7_to_9": {"lengths": (7, 9)},
    "lengths_15_to_17": {"lengths": (15, 17)},
    "lengths_empty": {"lengths": (0, 1), "pool": 20, "charset": "ascii"},
    "non_ascii": {"charset": "non_ascii", "lengths": (0, 40)},
    "escaped_bytes": {"charset": "escaped", "lengths": (0, 20)},
    "score_ties": {"ties": True},
    "int_scores": {"kind": "int"},
    "bool_scores": {"kind": "bool"},
    "float32_scores": {"kind": "float32"},
    "int64_scores": {"kind": "int64"},
    "mixed_scores": {"kind": "mixed"},
    "many_queries": {"n_queries": 200, "pool": 8},
}


@pytest.mark.parametrize("block", [None, 1, 37], ids=["one_block", "1", "37"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("case", list(CASES))
def test_dict_rows_are_the_general_rows(case, seed, block, monkeypatch):
    """The rows of every case, read in one block of queries and in blocks of
    about 1 and 37 entries (a query a block; a few queries a block)."""
    if block is not None:
        monkeypatch.setattr(_dict_union, "BLOCK_ROWS", block)
    assert_same_rows(make_runs(seed, **CASES[case]))


@pytest.mark.parametrize(
    "bad",
    [{"a\0": 1.0}, {5: 1.0}, {"a": "1.5"}, {"a": float("nan")}, {"a": None}],
    ids=["nul", "int_docno", "str_score", "nan", "none"],
)
@pytest.mark.parametrize("which", [0, 2])
def test_bad_input_in_a_later_block_takes_the_general_path(bad, which, monkeypatch):
    """A docno or score that only the general path takes (or refuses), in
    the last query of one run, read a query a block: the runs are not read
    as dicts at all, as in one block."""
    monkeypatch.setattr(_dict_union, "BLOCK_ROWS", 1)
    runs = make_runs(4, missing=0.0)
    last = sorted(runs[which])[-1]
    runs[which][last] = {**runs[which][last], **bad}
    assert _falls_back(runs)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("method", METHODS)
def test_fused_run_is_the_general_run(case, method):
    runs = make_runs(7, **CASES[case])
    if method in RANK_METHODS:
        assert_same_run(runs, method=method, k=3.0)
    else:
        for norm in NORMS:
            if norm == "max":  # needs positive scores: shifted
                runs = [
                    {q: {d: abs(float(s)) + 1.0 for d, s in docs.items()}
                     for q, docs in run.items()}
                    for run in runs
                ]  # fmt: skip
            assert_same_run(runs, method=method, norm=norm)


@pytest.mark.parametrize("case", ["plain", "score_ties", "empty_dicts", "one_run"])
def test_weights_and_run_id(case):
    runs = make_runs(3, **CASES[case])
    weights = np.arange(1, len(runs) + 1) / 2
    assert_same_run(runs, method="combsum", weights=weights, run_id="mine")
    weights[0] = 0.0
    if len(runs) > 1:
        assert_same_run(runs, method="rrf", weights=weights)


def test_fused_score_ties_are_broken_by_docno():
    # RRF ties a lot: one document at rank r in one run, another at rank r
    # in the other, and many permutations of the same ranks
    runs = make_runs(11, n_queries=40, missing=0.0, pool=30)
    assert_same_run(runs, method="rrf")
    assert_same_run(runs, method="borda")


def test_union_order_run_0_first():
    a = {"q1": {"x": 1.0, "b": 2.0}, "q0": {"m": 0.5}}
    b = {"q1": {"y": 3.0, "x": 4.0}, "q2": {}}
    aligned = align_dicts([a, b])
    assert aligned.query_ids.tolist() == ["q0", "q1"]
    assert aligned.docs.strings().tolist() == ["m", "x", "b", "y"]
    assert aligned.codes.tolist() == [0, 1, 1, 1]
    np.testing.assert_array_equal(
        aligned.X, [[0.5, np.nan], [1.0, 4.0], [2.0, np.nan], [np.nan, 3.0]]
    )


# -- the runs the dict path leaves to the general path -----------------------


def _falls_back(runs):
    return align_dicts(runs) is None


@pytest.mark.parametrize(
    "docno", ["a\0b", "ab\0", "\0", "\0ab"], ids=["inside", "end", "only", "start"]
)
def test_docno_with_nul_takes_the_general_path(docno):
    runs = [{"q": {docno: 1.0, "c": 2.0}}, {"q": {"c": 1.0}}]
    assert _falls_back(runs)
    # the general path's rows: numpy drops trailing NULs of ids
    got = fuse(runs)
    want = fuse([as_run(run) for run in runs])
    np.testing.assert_array_equal(got.doc_ids, want.doc_ids)
    np.testing.assert_array_equal(_bits(got.scores), _bits(want.scores))


def test_docnos_that_collide_without_a_nul_are_a_duplicate():
    runs = [{"q": {"ab\0": 1.0, "ab": 2.0}}]
    assert _falls_back(runs)
    with pytest.raises(ValueError, match="duplicate docno 'ab'"):
        fuse(runs)


@pytest.mark.parametrize(
    "score, message",
    [
        (float("nan"), "must not be NaN, got NaN for query 'q', document 'a'"),
        ("1.5", "must be numbers, got '1.5' for query 'q', document 'a'"),
        (None, "must be numbers, got None for query 'q', document 'a'"),
    ],
    ids=["nan", "str", "none"],
)
@pytest.mark.parametrize("which", [0, 1])
def test_bad_scores_take_the_general_path(score, message, which):
    runs = [{"q": {"b": 2.0}}, {"q": {"b": 1.0}}]
    runs[which]["q"]["a"] = score
    assert _falls_back(runs)
    with pytest.raises(ValueError, match=f"runs\\[{which}\\]`: score values {message}"):
        fuse(runs)


def test_reals_are_read_as_their_double():
    """A ``Fraction`` score: the dicts' path reads it as its double, as the
    general path and every door do, beside floats and beside numpy's
    scalars."""
    from fractions import Fraction

    runs = [{"q": {"a": 1.0, "b": Fraction(1, 3)}}, {"q": {"a": 0.25}}]
    assert_same_rows(runs)
    assert_same_run(runs, method="combsum", norm="none")
    assert fuse(runs, method="combsum", norm="none").scores.tolist() == [1.25, 1 / 3]
    runs[0]["q"]["c"] = np.float32(0.25)
    assert_same_rows(runs)
    assert_same_run(runs, method="combsum", norm="none")


def test_exotic_numbers_take_the_general_path():
    """A ``Decimal`` score (not a real of Python's numbers): the general
    path says it is not a number."""
    from decimal import Decimal

    runs = [{"q": {"a": 1.0, "b": Decimal("0.5")}}]
    assert _falls_back(runs)
    with pytest.raises(ValueError, match="must be numbers, got Decimal"):
        fuse(runs)


def test_huge_int_scores():
    runs = [{"q": {"a": 2**63 + 1, "b": -(2**70), "c": 1}}, {"q": {"a": 1.5}}]
    assert_same_rows(runs)
    assert_same_run(runs, method="combsum", norm="none")
    with pytest.raises(ValueError, match="must fit in a double, got an integer"):
        fuse([{"q": {"a": 10**400}}])


@pytest.mark.parametrize(
    "runs",
    [
        [{"q": {1: 1.0}}],  # an int docno
        [{"q": {"a": 1.0}}, {1: {"a": 1.0}}],  # an int query id
        [{"q\0": {"a": 1.0}}],  # a NUL in a query id
        [{"q": {"\ud800": 1.0}}],  # a surrogate that does not encode
        [{"q": {}}, {}],  # no rows
        [{"q": [("a", 1.0)]}],  # not a dict of dicts
    ],
    ids=["int_docno", "int_qid", "nul_qid", "surrogate", "no_rows", "not_dicts"],
)
def test_other_shapes_take_the_general_path(runs):
    assert _falls_back(runs)


def test_mixed_shapes_take_the_general_path():
    runs = make_runs(5)
    mixed = [runs[0], as_run(runs[1]), runs[2]]
    assert _falls_back(mixed)
    assert_same_run(runs)
    want = fuse([as_run(run) for run in runs])
    got = fuse(mixed)
    np.testing.assert_array_equal(got.doc_ids, want.doc_ids)


def test_the_dicts_are_not_modified():
    runs = make_runs(2, empty=0.3)
    copies = [{q: dict(docs) for q, docs in run.items()} for run in runs]
    fuse(runs, method="combmnz")
    assert runs == copies
    assert [list(run) for run in runs] == [list(run) for run in copies]
    assert all(
        list(run[q]) == list(copy[q])
        for run, copy in zip(runs, copies, strict=True)
        for q in run
    )


def test_tune_fusion_on_dicts_is_tune_fusion_on_records():
    runs = make_runs(4, n_queries=30, missing=0.0)
    qrels = {
        q: {d: int(i % 3 == 0) for i, d in enumerate(docs)}
        for q, docs in runs[0].items()
    }
    got = tune_fusion(qrels, runs, "ndcg@10", folds=3, weight_step=0.5)
    want = tune_fusion(
        qrels, [as_run(run) for run in runs], "ndcg@10", folds=3, weight_step=0.5
    )
    assert got.run_ids == want.run_ids == ["skirm"] * 3
    np.testing.assert_array_equal(got.weights, want.weights)
    np.testing.assert_array_equal(got.train_scores, want.train_scores)
    np.testing.assert_array_equal(got.run.doc_ids, want.run.doc_ids)
    np.testing.assert_array_equal(_bits(got.run.scores), _bits(want.run.scores))
    assert list(got.results) == list(want.results)
    for name in got.results:
        for measure, values in got.results[name].per_query.items():
            np.testing.assert_array_equal(values, want.results[name].per_query[measure])


def test_a_run_object_is_a_record():
    run = Run(["q"], ["a"], [1.0])
    assert _falls_back([run])
