"""The join of a run block by query (one sorted line of hashes per query,
:func:`skirm.io._join._lines_join`) against a dict of the qrels, and its
answer to whether a docno repeats against a set of the run's pairs.

Seeded inputs vary one dimension at a time: the docnos' lengths (across the
8-byte words and the hashed head), their charset, the queries' order
(sorted, not sorted as read, interleaved: the keys' join), queries without
judgements or absent from the qrels, a docno twice in a query (judged or
not), and hashes that collide (all docnos of one length share one).
"""

import numpy as np
import pytest
from _token_shapes import fake_hash

import skirm.io._join as join_module
from skirm.io import Qrels, Run
from skirm.io._join import QrelsIndex, join
from tests._data import ALPHABETS, random_ids


def _reference(q, d, qrels):
    """trec_eval's relevance value of every row whose query is judged, and
    whether a (query, docno) pair repeats among them."""
    level = dict(zip(zip(qrels[0], qrels[1], strict=True), qrels[2], strict=True))
    topics = set(qrels[0])
    kept = [i for i, query in enumerate(q) if query in topics]
    raw = [level.get((q[i], d[i])) for i in kept]
    raw = [-1 if v is None else -2 if v < 0 else v for v in raw]
    pairs = [(q[i], d[i]) for i in kept]
    return kept, raw, len(set(pairs)) < len(pairs)


def _generate(rng, *, lengths=(1, 20), alphabet="ascii", order="grouped",
              repeat=None, n_queries=30, one_size=False):  # fmt: skip
    """A run (q, d, scores) and qrels (q, d, labels) with one dimension
    changed from the default."""
    ids = [f"q{i}" for i in range(n_queries)]  # "q10" sorts before "q2"
    q, d, judged = [], [], ([], [], [])
    for k, query in enumerate(ids):
        size = int(rng.integers(1, 25))
        docs = list(dict.fromkeys(random_ids(rng, size, ALPHABETS[alphabet], *lengths)))
        if one_size:  # every query of the run the same number of rows
            docs = list(dict.fromkeys(docs + [f"{query}-{i}" for i in range(12)]))[:12]
        q += [query] * len(docs)
        d += docs
        if k % 7 == 3:
            continue  # a query the qrels do not judge
        for doc in docs + random_ids(rng, 3, ALPHABETS[alphabet], *lengths):
            if rng.random() < 0.4 and doc not in judged[1][-40:]:
                judged[0].append(query)
                judged[1].append(doc)
                judged[2].append(int(rng.integers(-2, 4)))
    judged[0].append("absent from the run")
    judged[1].append("x")
    judged[2].append(1)
    q, d = np.array(q, dtype=object), np.array(d, dtype=object)
    if repeat is not None:  # a docno twice in one query
        kind = np.isin(d, judged[1]) == (repeat == "judged")  # in q5 or later
        copy = np.flatnonzero(kind & (np.char.str_len(q.astype(str)) > 1))[5]
        at = np.flatnonzero(q == q[copy])
        q, d = np.insert(q, at[-1] + 1, q[copy]), np.insert(d, at[-1] + 1, d[copy])
    if order == "sorted":
        o = np.argsort(q, kind="stable")
        q, d = q[o], d[o]
    elif order == "interleaved":
        o = rng.permutation(q.shape[0])
        q, d = q[o], d[o]
    return q.tolist(), d.tolist(), judged


def _check(q, d, judged, monkeypatch, lines_expected, exact=True):
    calls = []
    real = join_module._lines_join

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(join_module, "_lines_join", spy)
    block = Run(q, d, np.arange(len(q), dtype=float))
    index = QrelsIndex(Qrels(*judged))
    joined = join(index, block)
    kept, raw, repeats = _reference(q, d, judged)
    np.testing.assert_array_equal(joined.keep, kept)
    np.testing.assert_array_equal(joined.raw, raw)
    np.testing.assert_array_equal(joined.eval_ids[joined.codes], [q[i] for i in kept])
    # True is verified later; False is sure (exact: no hashes collide)
    assert joined.repeats is repeats if exact else joined.repeats or not repeats
    if lines_expected is not None:
        assert calls == [lines_expected]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "lengths", [(1, 7), (8, 8), (1, 20), (15, 17), (120, 140)], ids=str
)
def test_lines_join_across_word_lengths(monkeypatch, seed, lengths):
    rng = np.random.default_rng(seed)
    _check(*_generate(rng, lengths=lengths), monkeypatch, True)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
def test_lines_join_across_charsets(monkeypatch, seed, alphabet):
    rng = np.random.default_rng(seed)
    _check(*_generate(rng, alphabet=alphabet), monkeypatch, True)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("order", ["grouped", "sorted", "interleaved"])
@pytest.mark.parametrize("one_size", [False, True])
def test_lines_join_in_any_order_of_the_queries(monkeypatch, seed, order, one_size):
    """Queries grouped in the order read or sorted: joined by query;
    interleaved: by the keys, with the same values. Queries of one size or
    of several."""
    rng = np.random.default_rng(seed)
    inputs = _generate(rng, order=order, one_size=one_size)
    _check(*inputs, monkeypatch, order != "interleaved")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("repeat", ["unjudged", "judged"])
def test_lines_join_with_a_docno_twice_in_a_query(monkeypatch, seed, repeat):
    """An unjudged docno twice: two rows of equal hashes, a repeat found by
    query; a judged one: three equal hashes in a line, left to the keys."""
    rng = np.random.default_rng(seed)
    _check(*_generate(rng, repeat=repeat), monkeypatch, repeat == "unjudged")


@pytest.mark.parametrize("seed", range(4))
def test_lines_join_when_every_query_is_judged_or_none(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    q, d, judged = _generate(rng, n_queries=1)
    _check(q, d, judged, monkeypatch, True)
    _check(q, d, (["other"], ["x"], [1]), monkeypatch, None)


def _hash_by_length(monkeypatch):
    """Every docno's hash made its length's: docnos of one length collide."""

    fake_hash(monkeypatch, lambda t: t.length.astype(np.uint64) << np.uint64(40))


def test_lines_join_a_hash_equal_by_chance_is_no_match(monkeypatch):
    """A run docno whose hash equals a judged docno's of its query (a
    collision the qrels alone do not show) is no match: the bytes differ.
    Two run docnos of equal hashes may repeat (and do not)."""
    _hash_by_length(monkeypatch)
    q = ["q2", "q2", "q1", "q1", "q1"]
    d = ["ab", "xyz", "cd", "efg", "h"]
    judged = (["q2", "q1", "q1"], ["zz", "ijk", "h"], [1, 2, 3])
    _check(q, d, judged, monkeypatch, True, exact=False)
    block = Run(q, d, np.ones(5))
    joined = join(QrelsIndex(Qrels(*judged)), block)
    assert joined.raw.tolist() == [-1, -1, -1, -1, 3]
    _check(["q1", "q1"], ["ab", "cd"], (["q1"], ["x"], [1]), monkeypatch, True, False)


@pytest.mark.parametrize("seed", range(4))
def test_lines_join_with_colliding_hashes(monkeypatch, seed):
    """Docnos of one length share a hash: groups of three or more equal
    hashes go to the keys' join (which decides on the strings where the
    qrels' own keys collide); the values stay the dict's."""
    _hash_by_length(monkeypatch)
    rng = np.random.default_rng(seed)
    _check(*_generate(rng, lengths=(1, 30), n_queries=5), monkeypatch, None, False)
