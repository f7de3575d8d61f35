"""Judgment groups and preferences keyed by their ids' tokens.

:class:`~skirm.io.QrelsJG` and :class:`~skirm.io.Prefs` find a docno
repeated within a group (or sub-group) by the codes of their rows' ids
(:func:`skirm.io._prefs.row_codes`, dense byte ranks combined column by
column) and the docnos' hashes (the one duplicate finder), and a judgment
group file keeps its ids as tokens until they are asked for as strings. The
oracle: the same rows keyed by their strings (``np.unique`` of the joined
ids, ``first_repeat`` of the string columns), as they were keyed before.
Seeded inputs vary one dimension at a time: id lengths across the 8-byte
words, charsets, how many ids repeat, where the repeat falls, the rows'
order.
"""

import io

import numpy as np
import pytest
from _data import ALPHABETS, random_ids

from skirm._errors import InvalidInputError, TrecFormatError
from skirm._validation import first_repeat
from skirm.io import Prefs, QrelsJG, read_qrels_jg
from skirm.io._prefs import SEP, row_codes
from skirm.io._tokens import Tokens
from skirm.trec import evaluate_diversity


def _ids(rng, n, alphabet, lo=1, hi=40):
    """``n`` seeded non-empty ids (a str array)."""
    return np.array(random_ids(rng, n, alphabet, lo, hi))


def _pool(rng, n, alphabet, distinct, lo=1, hi=40):
    """``n`` ids drawn from ``distinct`` seeded ones: repeats on purpose."""
    return rng.choice(_ids(rng, distinct, alphabet, lo, hi), n)


def _same_partition(codes, *columns):
    """Rows have equal codes exactly when their ids are equal in every
    column (the ids joined by a byte no id holds)."""
    joined = columns[0]
    for column in columns[1:]:
        joined = np.char.add(np.char.add(joined, SEP), column)
    _, expected = np.unique(joined, return_inverse=True)
    expected = expected.reshape(-1)
    # one code per distinct joined id, and one joined id per code
    pairs = np.unique(np.stack([codes, expected]), axis=1)
    assert pairs.shape[1] == np.unique(codes).shape[0] == np.unique(expected).shape[0]
    assert codes.min(initial=0) == 0
    assert codes.max(initial=-1) + 1 == np.unique(codes).shape[0]  # dense


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("hi", [1, 7, 8, 9, 16, 17, 40])
def test_row_codes_partition_rows_as_their_strings_do(alphabet, hi):
    rng = np.random.default_rng(hi)
    n = 600
    columns = [_pool(rng, n, alphabet, distinct, 1, hi) for distinct in (5, 40, 300)]
    codes = row_codes(*(Tokens.from_strings(c) for c in columns))
    _same_partition(codes, *columns)
    for k in (1, 2):
        codes = row_codes(*(Tokens.from_strings(c) for c in columns[:k]))
        _same_partition(codes, *columns[:k])


def test_row_codes_of_no_rows_and_of_one_row():
    empty = Tokens.from_strings(np.zeros(0, dtype=str))
    assert row_codes(empty, empty).shape == (0,)
    one = Tokens.from_strings(np.array(["q"]))
    assert row_codes(one, one).tolist() == [0]


def _planted(rng, n, alphabet, at):
    """Judgment-group rows, each docno once per (query, group) but repeated
    across groups; then row ``at`` made a copy of an earlier row's (query,
    group, docno), if ``at`` is not None."""
    q = _pool(rng, n, alphabet, 6, 1, 12)
    g = _pool(rng, n, "123", 3, 1, 2)
    d = _pool(rng, n, alphabet, n, 1, 30)
    _, first = np.unique(
        np.char.add(np.char.add(np.char.add(q, SEP), g), SEP + d), return_index=True
    )
    keep = np.sort(first)
    q, g, d = q[keep], g[keep], d[keep]
    if at is not None:
        at = min(at, q.shape[0] - 1)
        src = int(rng.integers(0, at)) if at else 0
        q[at], g[at], d[at] = q[src], g[src], d[src]
    return q, g, d


def _expected_message(q, g, d):
    pair = first_repeat(np.char.add(np.char.add(q, SEP), g), d)
    if pair is None:
        return None
    dup = pair[1]
    return str(d[dup]), str(g[dup]), str(q[dup])


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("where", [None, 1, 50, 199, 10_000])
def test_a_repeat_in_a_group_is_found_where_the_strings_find_it(alphabet, where):
    rng = np.random.default_rng(len(alphabet) * 7 + (where or 0))
    q, g, d = _planted(rng, 400, alphabet, where)
    labels = rng.integers(0, 3, q.shape[0])
    expected = _expected_message(q, g, d)
    if expected is None:
        qrels = QrelsJG(q, g, d, labels)
        assert (
            qrels._n_topics() == np.unique(np.char.add(np.char.add(q, SEP), g)).shape[0]
        )
        return
    doc, group, query = expected
    with pytest.raises(InvalidInputError, match="duplicate docno") as info:
        QrelsJG(q, g, d, labels)
    assert str(info.value) == (
        f"duplicate docno {doc!r} in group {group!r} of query {query!r}; "
        "expected each docno once per query and group"
    )


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("seed", range(3))
def test_a_repeat_in_a_sub_group_is_found_where_the_strings_find_it(alphabet, seed):
    rng = np.random.default_rng(seed)
    n = 300
    q = _pool(rng, n, alphabet, 3, 1, 9)
    g = _pool(rng, n, "uv", 2, 1, 2)
    s = _pool(rng, n, "st", 2, 1, 3)
    d = _pool(rng, n, alphabet, 60, 1, 17)
    levels = rng.integers(0, 3, n).astype(float)
    unit = np.char.add(np.char.add(np.char.add(np.char.add(q, SEP), g), SEP), s)
    pair = first_repeat(unit, d)
    assert pair is not None  # 300 rows of 60 docnos in 12 sub-groups repeat
    dup = pair[1]
    with pytest.raises(InvalidInputError, match="duplicate docno") as info:
        Prefs(q, g, s, d, levels)
    assert str(info.value).startswith(
        f"duplicate docno {str(d[dup])!r} in sub-group {str(s[dup])!r} of group "
        f"{str(g[dup])!r} of query {str(q[dup])!r};"
    )
    _, once = np.unique(np.char.add(np.char.add(unit, SEP), d), return_index=True)
    once = np.sort(once)
    prefs = Prefs(q[once], g[once], s[once], d[once], levels[once])
    assert len(prefs) == once.shape[0]


def _file(q, g, d, labels):
    lines = (f"{a} {b} {c} {e}\n" for a, b, c, e in zip(q, g, d, labels, strict=True))
    return "".join(lines)


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
def test_a_judgment_group_file_reads_as_its_columns_do(alphabet):
    rng = np.random.default_rng(len(alphabet))
    q, g, d = _planted(rng, 500, alphabet, None)
    labels = rng.integers(-1, 3, q.shape[0])
    read = read_qrels_jg(io.StringIO(_file(q, g, d, labels)))
    built = QrelsJG(q, g, d, labels)
    assert read.query_ids.tolist() == q.tolist()
    assert read.groups.tolist() == g.tolist()
    assert read.doc_ids.tolist() == d.tolist()
    assert read.labels.tobytes() == built.labels.tobytes()
    assert repr(read) == repr(built)
    assert read.topics().tolist() == built.topics().tolist()
    graded = read._graded()
    assert graded is read._graded()  # kept: one index of the judgements
    assert graded.query_ids.tolist() == q.tolist()
    assert graded.doc_ids.tolist() == d.tolist()


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
def test_a_repeat_in_a_judgment_group_file_names_the_file(alphabet):
    rng = np.random.default_rng(3)
    q, g, d = _planted(rng, 200, alphabet, 120)
    labels = rng.integers(0, 2, q.shape[0])
    doc, group, query = _expected_message(q, g, d)
    with pytest.raises(TrecFormatError, match="duplicate docno") as info:
        read_qrels_jg(io.StringIO(_file(q, g, d, labels)))
    assert f"duplicate docno {doc!r} in group {group!r} of query {query!r}" in str(
        info.value
    )


def _run_file(rng, q, d):
    scores = np.round(rng.random(q.shape[0]), 2)  # ties
    lines = (
        f"{a} Q0 {b} {i} {s} r\n"
        for i, (a, b, s) in enumerate(zip(q, d, scores, strict=True))
    )
    return "".join(lines)


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
def test_the_diversity_report_of_a_file_is_that_of_its_columns(alphabet):
    rng = np.random.default_rng(11)
    q, g, d = _planted(rng, 600, alphabet, None)
    labels = rng.integers(0, 3, q.shape[0])
    text = _file(q, g, d, labels)
    # the run retrieves some judged documents and others
    rq = np.concatenate([q, _pool(rng, 200, alphabet, 6, 1, 12)])
    rd = np.concatenate([d, _ids(rng, 200, alphabet)])
    _, once = np.unique(np.char.add(np.char.add(rq, SEP), rd), return_index=True)
    run = _run_file(rng, rq[np.sort(once)], rd[np.sort(once)])
    from_file = evaluate_diversity(io.StringIO(text), io.StringIO(run))
    from_columns = evaluate_diversity(QrelsJG(q, g, d, labels), io.StringIO(run))
    assert sorted(from_file) == sorted(from_columns)
    for key, value in from_file.items():
        other = from_columns[key]
        if isinstance(value, np.ndarray):
            assert value.tolist() == other.tolist(), key
        else:
            assert value == other, key
