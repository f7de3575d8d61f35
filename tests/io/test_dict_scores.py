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
