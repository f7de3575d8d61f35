"""The scores of dicts of dicts, checked once for both dicts readers (the
evaluation's, :mod:`skirm.io._dict_rows`; the fusion's,
:mod:`skirm.io._dict_union`): the same scores taken as they are, the same
left to the general path, whose messages say what is wrong."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

SCORES = {
    "floats": [2.5, 1.0],
    "ints": [3, 1],
    "bools": [True, False],
    "numpy": [np.float32(0.1), np.int64(7)],
    "str": ["1.5", 1.0],
    "nan": [float("nan"), 1.0],
    "past a double": [10**400, 1.0],
    "fraction": [Fraction(1, 3), 1.0],
    "fraction among numpy's": [Fraction(1, 3), np.float32(0.5)],
    "decimal": [Decimal("0.5"), 1.0],
    "0-d array": [np.array(0.5), 1.0],
    "complex": [1.0, 1 + 0j],
    "numpy, then a str": [np.float64(0.5), "1.5"],
    "none": [None, 1.0],
}


@pytest.mark.parametrize("case", sorted(SCORES))
def test_both_dict_readers_take_the_same_scores(case):
    """The dicts of a run read for evaluation (:mod:`skirm.io._dict_rows`)
    and for fusion (:mod:`skirm.io._dict_union`) take the same scores as
    they are, and leave the same others to the general path (None), by one
    check: the values, where taken, are ``float(x)`` of each."""
    from skirm.io._dict_rows import (
        NOT_PLAIN,
        DictIndex,
        plain_qrels,
        read_run_dicts,
    )
    from skirm.io._dict_union import union_rows

    scores = SCORES[case]
    run = {"q1": {"a": scores[0], "b": scores[1]}}
    dicts, _, _ = plain_qrels({"q1": {"a": 1, "b": 0}})
    rows = read_run_dicts(DictIndex(dicts), run)
    union = union_rows([run])
    plain = case in (
        "floats",
        "ints",
        "bools",
        "numpy",
        "fraction",
        "fraction among numpy's",
    )
    assert (union is not None) is plain
    assert (rows is not NOT_PLAIN) is plain
    if plain:
        want = [float(s) for s in scores]
        assert rows.scores.tolist() == want
        assert union.X[:, 0].tolist() == want


LABELS = {
    "ints": lambda rng: int(rng.integers(-2, 4)),
    "bools": lambda rng: bool(rng.integers(0, 2)),
    "mixed": lambda rng: [1, True, -1, 0, False][int(rng.integers(0, 5))],
    "wide": lambda rng: [2**63 - 1, -(2**63), 0][int(rng.integers(0, 3))],
}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("case", sorted(LABELS))
def test_labels_read_once_as_indexed(case, seed):
    """The labels :func:`plain_qrels` reads once, put in the sorted queries'
    order by :class:`DictIndex`, equal the labels read from the sorted
    dicts themselves: queries given in any order ("q10" before "q2"), dicts
    of several sizes, empty ones among them."""
    from skirm.io._dict_rows import DictIndex, plain_qrels

    rng = np.random.default_rng(seed)
    names = [f"q{i}" for i in range(int(rng.integers(1, 40)))]
    if seed % 2:
        rng.shuffle(names)
    qrels = {
        q: {f"d{j}": LABELS[case](rng) for j in range(int(rng.integers(0, 6)))}
        for q in names
    }
    if not any(qrels.values()):
        qrels[names[0]] = {"d0": 1}
    dicts, max_label, labels = plain_qrels(qrels)
    given = DictIndex(dicts, labels)
    read = DictIndex(dicts)
    assert given.labels.dtype == read.labels.dtype == np.int64
    np.testing.assert_array_equal(given.labels, read.labels)
    assert given.names == read.names == sorted(q for q in names if qrels[q])
    assert given.ids.tolist() == given.names
    values = [int(v) for d in qrels.values() for v in d.values()]
    assert max_label == max(float(max(values)), 0.0)


@pytest.mark.parametrize(
    "labels",
    [
        [2**63],
        [-(2**63) - 1],
        [1.0],
        ["1"],
        [None],
        [np.int64(1)],
        [1, 2**64],
        [1, Fraction(1, 1)],  # a sum of 2, but a Fraction
        [True, 2.0],
        [Decimal(1)],
    ],
    ids=repr,
)
def test_labels_not_plain(labels):
    """Labels past 64 bits or of other types leave the dicts to the general
    path (no dicts), whose messages say what is wrong."""
    from skirm.io._dict_rows import plain_qrels

    qrels = {"q1": {f"d{i}": v for i, v in enumerate(labels)}}
    assert plain_qrels(qrels).dicts is None


@pytest.mark.parametrize(
    "docno",
    [1, b"d1", None, ("d", 1), "d\x00", "d\x00e"],
    ids=repr,
)
def test_docnos_not_plain(docno):
    """Qrels whose docnos are not all str, or hold a NUL, leave the dicts
    to the general path (no dicts), whose messages say what is wrong."""
    from skirm.io._dict_rows import plain_qrels

    assert plain_qrels({"q1": {"d0": 1, docno: 0}}).dicts is None


@pytest.mark.parametrize("join_each", [0, 1000], ids=["each_dict", "all_at_once"])
@pytest.mark.parametrize(
    "docno",
    [1, b"d1", None, ("d", 1), "d\x00", "d\x00e"],
    ids=repr,
)
@pytest.mark.parametrize("where", [0, 1, 39])
def test_run_docnos_not_plain(docno, where, join_each, monkeypatch):
    """A run whose docnos are not all str, or hold a NUL, in any query of a
    block, and whether the block's docnos are joined dict by dict or all at
    once, is not read as dicts (the general path says what is wrong)."""
    from skirm.io import _dict_rows
    from skirm.io._dict_rows import NOT_PLAIN, DictIndex, read_run_dicts

    monkeypatch.setattr(_dict_rows, "JOIN_EACH", join_each)
    judged = {f"q{q}": {"d0": 1} for q in range(40)}
    run = {f"q{q}": {"d0": 0.5, "d1": 0.25} for q in range(40)}
    index = DictIndex(judged)
    assert read_run_dicts(index, run) is not NOT_PLAIN
    run[f"q{where}"] = {"d0": 0.5, docno: 0.25}
    assert read_run_dicts(index, run) is NOT_PLAIN


def test_docnos_of_a_str_type_are_read_as_str():
    """Docnos of a subclass of str (numpy's ``str_``) are read by the
    dicts' path, with the values of the same docnos as str."""
    from skirm.trec import RelevanceEvaluator

    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1}}
    run = {"q1": {"a": 0.5, "b": 0.7, "c": 0.1}, "q2": {"a": 1.0, "z": 2.0}}
    numpy_qrels = {q: {np.str_(d): g for d, g in j.items()} for q, j in qrels.items()}
    measures = {"ndcg_cut.10", "map", "P.1", "recip_rank"}
    want = RelevanceEvaluator(qrels, measures).evaluate(run)
    assert RelevanceEvaluator(numpy_qrels, measures).evaluate(run) == want


def _pooled_case(rng, n_queries, missing, once):
    """Run dicts and judged dicts of ``n_queries`` queries: the judged
    docnos of each among its run's (``missing``: the queries one of whose
    judged docnos is not retrieved; ``once``: the queries judged once)."""
    run, judged = [], []
    for q in range(n_queries):
        docs = [f"d{q}-{i}" for i in rng.permutation(int(rng.integers(2, 12)))]
        run.append(
            dict(zip(docs, rng.random(len(docs)).round(2).tolist(), strict=True))
        )
        size = 1 if q in once else int(rng.integers(2, len(docs) + 1))
        keys = rng.choice(docs, size=size, replace=False).tolist()
        if q in missing:  # one of them not retrieved, anywhere among them
            keys[int(rng.integers(0, size))] = f"gone{q}"
        judged.append(dict.fromkeys(keys, 1))
    return run, judged


def _read_one_by_one(run, judged):
    """The reference: each judged docno looked up alone, NaN if absent."""
    got = [d.get(k, np.nan) for d, j in zip(run, judged, strict=True) for k in j]
    return np.array(got, dtype=np.float64)


#: Which queries of 7 miss a judged docno, and which are judged once.
PLACES = {
    "none": (),
    "first": (0,),
    "middle": (3,),
    "last": (6,),
    "all": tuple(range(7)),
}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("once", sorted(PLACES))
@pytest.mark.parametrize("missing", sorted(PLACES))
def test_judged_scores_of_a_block_equal_each_lookup(missing, once, seed, monkeypatch):
    """The scores of the judged docnos of a block of queries, read a query
    at a time (a getter of all its judged docnos; a query judged once reads
    its docno twice, the second dropped) where every one is retrieved, else
    each by itself: the values and NaNs of one lookup per docno, wherever
    the queries judged once and the docnos not retrieved stand."""
    from skirm.io import _dict_rows
    from skirm.io._dict_rows import DictIndex, _judged_scores

    monkeypatch.setattr(_dict_rows, "GETTER_JUDGED", 0)  # getters for any block
    rng = np.random.default_rng([seed, len(missing), len(once)])
    run, judged = _pooled_case(rng, 7, set(PLACES[missing]), set(PLACES[once]))
    index = DictIndex({f"q{q}": j for q, j in enumerate(judged)}, many_runs=True)
    sizes = np.array([len(j) for j in judged])
    j_starts = np.concatenate([[0], np.cumsum(sizes)])
    getters = index.getters(np.arange(7))(0, 7)
    got, every = _judged_scores(run, judged, getters, j_starts)
    np.testing.assert_array_equal(got, _read_one_by_one(run, judged))
    assert every is (missing == "none")
    for lo, hi in [(0, 1), (2, 5), (6, 7)]:  # a part of the block
        part, every = _judged_scores(
            run[lo:hi],
            judged[lo:hi],
            getters[lo:hi],
            j_starts[lo : hi + 1] - j_starts[lo],
        )
        np.testing.assert_array_equal(part, _read_one_by_one(run[lo:hi], judged[lo:hi]))
        assert every is not bool(set(PLACES[missing]) & set(range(lo, hi)))


@pytest.mark.parametrize("many_runs", [True, False])
@pytest.mark.parametrize("block_rows", [1, 7, 30, 1 << 14])
@pytest.mark.parametrize("seed", range(4))
def test_judged_scores_read_in_blocks_equal_each_lookup(
    seed, block_rows, many_runs, monkeypatch
):
    """A run read in blocks of queries of about ``block_rows`` rows (some
    with every judged docno retrieved, some without), against every judged
    query and against some of them (the index's subset, in its order), by
    an index built for several runs (the getters) or for one: each
    judgement's score as one lookup gives it, NaN where not retrieved."""
    from skirm.io import _dict_rows
    from skirm.io._dict_rows import DictIndex, read_run_dicts

    monkeypatch.setattr(_dict_rows, "BLOCK_ROWS", block_rows)
    monkeypatch.setattr(_dict_rows, "GETTER_JUDGED", 0)  # getters for any block
    rng = np.random.default_rng(seed)
    n = 40
    # none missing among the first queries: a first block of few rows has
    # every judged docno retrieved (the getters asked for the run's blocks)
    missing = set(
        rng.choice(range(10, n), size=int(rng.integers(0, 8)), replace=False).tolist()
    )
    once = set(rng.choice(n, size=int(rng.integers(0, 20)), replace=False).tolist())
    run, judged = _pooled_case(rng, n, missing, once)
    names = [f"q{q:02d}" for q in range(n)]
    index = DictIndex(dict(zip(names, judged, strict=True)), many_runs=many_runs)
    assert (index.getters(np.arange(n)) is None) is not many_runs
    for kept in (range(n), sorted(rng.choice(n, size=15, replace=False).tolist())):
        rows = read_run_dicts(index, {names[q]: run[q] for q in kept})
        want = _read_one_by_one([run[q] for q in kept], [judged[q] for q in kept])
        np.testing.assert_array_equal(rows.j_scores, want)


@pytest.mark.parametrize("judged", [3, 12])
@pytest.mark.parametrize("first_missing", [True, False])
def test_getters_built_while_the_first_block_is_retrieved(
    first_missing, judged, monkeypatch
):
    """An index for several runs builds the getters of the blocks a run
    reads, where their queries hold 9 judgements or more on average (12
    here, not 3), while its first block has every judged docno retrieved,
    and keeps them for the next runs; a run whose first block does not looks
    each docno up by itself and builds no other (sparse judgements)."""
    from skirm.io import _dict_rows
    from skirm.io._dict_rows import DictIndex, read_run_dicts

    monkeypatch.setattr(_dict_rows, "BLOCK_ROWS", 40)
    rng = np.random.default_rng(3)
    run, judged_dicts = [], []
    for q in range(30):
        docs = [f"d{q}-{i}" for i in range(judged + 5)]
        run.append(
            dict(zip(docs, rng.random(len(docs)).round(2).tolist(), strict=True))
        )
        keys = docs[:judged]
        if q == (0 if first_missing else 20):
            keys[-1] = "not retrieved"
        judged_dicts.append(dict.fromkeys(keys, 1))
    names = [f"q{q:02d}" for q in range(30)]
    index = DictIndex(dict(zip(names, judged_dicts, strict=True)), many_runs=True)
    for _ in range(3):
        rows = read_run_dicts(index, dict(zip(names, run, strict=True)))
        want = _read_one_by_one(run, judged_dicts)
        np.testing.assert_array_equal(rows.j_scores, want)
        built = index._lookups[0]
        assert bool(built.all()) is (judged >= 9 and not first_missing)
        assert bool(built[0]) is (judged >= 9)  # the first block's, tried
        if first_missing:  # no block after the first one asked for
            assert not built[-1]
