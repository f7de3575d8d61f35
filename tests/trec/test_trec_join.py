"""The join of a run to its qrels, and the duplicate docno checks.

Run rows are matched to judgements on 64-bit hashes of (query, docno), and a
docno repeated in an evaluated query is found the same way; every conclusion
is verified on the bytes, or on the strings once two keys collide. These
tests force collisions (every key equal, or equal per query) and compare
with the join on distinct hashes, and pin which repeat the error names.
"""

import io

import numpy as np
import pytest

from skirm.io import Qrels, Run, read_qrels, read_run
from skirm.trec import evaluate_run


def _collide(monkeypatch, mix):
    """Every (query, docno) key computed by ``mix(hashes, codes)``."""
    import skirm.io._join
    import skirm.io._tokens

    monkeypatch.setattr(skirm.io._tokens, "mix", mix)
    monkeypatch.setattr(skirm.io._join, "mix", mix)


def _all_zero(h, codes):
    return np.zeros(h.shape[0], dtype=np.uint64)


JOIN_MEASURES = ["num_rel_ret", "num_rel", "map", "P_5", "bpref", "ndcg"]


@pytest.mark.parametrize(
    "qrels, run",
    [
        # topics not in file order: the docnos of a topic are not its rows
        (
            "q2 0 a 1\nq1 0 b 1\nq2 0 c 0\nq1 0 a 2\nq3 0 z 1\nq1 0 c -1\n",
            "q1 Q0 c 1 4 r\nq1 Q0 a 2 3 r\nq1 Q0 x 3 2 r\nq2 Q0 a 1 1 r\n"
            "q2 Q0 c 2 0 r\nq2 Q0 b 3 -1 r\n",
        ),
        # one docno in the run, the judged docnos sorting before and after it
        ("q1 0 a 1\nq1 0 m 1\nq1 0 z 0\n", "q1 Q0 m 1 1 r\n"),
        # one judgement found, a run docno sorting after it
        ("q1 0 a 1\nq1 0 b 0\n", "q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\n"),
        # no judgement found
        ("q1 0 a 1\nq1 0 b 0\n", "q1 Q0 x 1 2 r\nq1 Q0 y 2 1 r\n"),
    ],
)
def test_hash_collisions_join_as_the_hashes_do(monkeypatch, qrels, run):
    """With every key colliding, the join on the strings matches each run row
    to its judgement as the join on distinct hashes does."""

    def evaluate():
        return evaluate_run(
            read_qrels(io.StringIO(qrels)),
            read_run(io.StringIO(run)),
            JOIN_MEASURES,
            compat="9.0",  # q3 is not in the run
        )

    expected = evaluate()
    _collide(monkeypatch, _all_zero)
    got = evaluate()
    assert got.group_ids.tolist() == expected.group_ids.tolist()
    for name in JOIN_MEASURES:
        assert got.per_query[name].tolist() == expected.per_query[name].tolist()


def test_hash_collisions_in_the_qrels_are_no_duplicates(monkeypatch):
    """Two judgements sharing a key are a duplicate only if their query and
    docno are the same: checked on the strings."""
    _collide(monkeypatch, _all_zero)
    run = Run(["q1", "q2"], ["a", "a"], [1.0, 1.0])
    # two docnos of one query, and one docno in two queries
    for qrels in ["q1 0 a 1\nq1 0 b 0\n", "q1 0 a 1\nq2 0 a 1\n"]:
        got = evaluate_run(read_qrels(io.StringIO(qrels)), run, ["num_rel_ret"])
        assert got.means == {"num_rel_ret": 1.0 if "b" in qrels else 2.0}
    # a true duplicate among colliding keys
    qrels = read_qrels(io.StringIO("q1 0 a 1\nq1 0 b 0\nq1 0 c 0\nq1 0 b 1\n"))
    message = r"<file>:4: duplicate docno 'b' for query 'q1' \(first at line 2\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels, run, "map")


@pytest.mark.parametrize("seed", range(8))
def test_hash_collisions_report_a_docno_three_times_at_its_second_copy(
    monkeypatch, seed
):
    """On the strings too, the copies of a repeated judgement are taken in
    file order: the second copy is reported, with the first."""
    _collide(monkeypatch, _all_zero)
    rng = np.random.default_rng(seed)
    at = np.sort(rng.choice(153, size=3, replace=False))
    others = iter(range(150))
    text = "".join(
        f"q 0 {'dup' if i in at else f'd{next(others)}'} 1\nr 0 e{i} 1\n"
        for i in range(153)
    )
    first, second = 2 * at[:2] + 1  # 1-based lines
    message = rf"<file>:{second}: duplicate docno 'dup' .* \(first at line {first}\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(read_qrels(io.StringIO(text)), Run(["q"], ["x"], [1.0]), "map")


def test_a_key_equal_by_chance_is_no_match(monkeypatch):
    """A run row whose key equals a judgement's (a hash collision the qrels
    alone do not show) is matched only if its docno is the judged one."""
    _collide(monkeypatch, lambda h, codes: codes.astype(np.uint64))
    qrels = read_qrels(io.StringIO("q1 0 a 1\nq2 0 b 1\n"))
    run = read_run(io.StringIO("q1 Q0 x 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 y 1 1 r\n"))
    got = evaluate_run(qrels, run, ["num_rel_ret", "map", "P_1"])
    assert got.per_query["num_rel_ret"].tolist() == [1.0, 0.0]
    assert got.per_query["map"].tolist() == [0.5, 0.0]
    assert got.per_query["P_1"].tolist() == [0.0, 0.0]


QRELS_DUPLICATES = """\
b 0 x 1
b 0 x 0
a 0 y 1
a 0 z 1
a 0 y 0
a 0 z 0
c 0 w 1
"""


@pytest.mark.parametrize(
    "run_queries, line, first",
    [(["a", "b"], 2, 1), (["b"], 2, 1), (["a"], 5, 3), (["a", "c"], 5, 3)],
)
def test_qrels_duplicates_reported_at_the_first_repeat_of_the_evaluated_topics(
    run_queries, line, first
):
    """Among the duplicates of the evaluated topics, the one of the earliest
    line is reported, whichever topic sorts first."""
    qrels = read_qrels(io.StringIO(QRELS_DUPLICATES))
    run = Run(run_queries, ["v"] * len(run_queries), [1.0] * len(run_queries))
    with pytest.raises(
        ValueError,
        match=rf"<file>:{line}: duplicate docno .* \(first at line {first}\)",
    ):
        evaluate_run(qrels, run, "map", compat="9.0")
    only_c = evaluate_run(qrels, Run(["c"], ["w"], [1.0]), "map", compat="9.0")
    assert only_c.means == {"map": 1.0}


def test_qrels_duplicates_in_two_topics():
    qrels = read_qrels(io.StringIO("a 0 x 1\na 0 x 0\nb 0 y 1\nb 0 y 0\n"))
    with pytest.raises(
        ValueError, match=r"<file>:4: duplicate docno 'y' for query 'b'"
    ):
        evaluate_run(qrels, Run(["b"], ["y"], [1.0]), "map", compat="9.0")


def test_qrels_index_largest_label_and_relevant_count():
    from skirm.io._join import QrelsIndex

    cases = [
        ([2, -1, 0, 1, 2], 2.0, 3),
        ([0, 0], 0.0, 0),
        ([-2, -1], 0.0, 0),
        ([1], 1.0, 1),
    ]
    for labels, largest, relevant in cases:
        qrels = Qrels(
            ["q"] * len(labels), [f"d{i}" for i in range(len(labels))], labels
        )
        index = QrelsIndex(qrels)
        assert index.max_label() == largest
        assert index.n_relevant() == relevant


def test_a_run_of_two_rows_with_one_docno_twice():
    run = read_run(io.StringIO("q Q0 d1 1 2 r\nq Q0 d1 2 1 r\n"))
    message = r"<file>:2: duplicate docno 'd1' for query 'q' \(first at line 1\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["d1"], [1]), run, "map")


@pytest.mark.parametrize("collide", [False, True])
def test_run_duplicates_reported_at_the_earliest_repeat(monkeypatch, collide):
    """Ten docnos repeated in reverse order: the earliest repeat is the
    middle one, whatever the order of the keys (hashed or colliding)."""
    if collide:
        _collide(monkeypatch, _all_zero)
    docs = [f"x{i}" for i in range(10)]
    lines = [f"q Q0 {d} {i} {-i} r\n" for i, d in enumerate(docs + docs[::-1])]
    run = read_run(io.StringIO("a Q0 y 1 1 r\n" + "".join(lines)))
    message = r"<file>:12: duplicate docno 'x9' for query 'q' \(first at line 11\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q", "a"], ["x1", "y"], [1, 1]), run, "map")


@pytest.mark.parametrize("seed", range(8))
def test_hash_collisions_report_a_run_docno_three_times_at_its_second_copy(
    monkeypatch, seed
):
    _collide(monkeypatch, _all_zero)
    rng = np.random.default_rng(seed)
    at = np.sort(rng.choice(63, size=3, replace=False))
    others = iter(range(60))
    text = "".join(
        f"q Q0 {'dup' if i in at else f'd{next(others)}'} {i} {-i} r\n"
        for i in range(63)
    )
    first, second = at[:2] + 1  # 1-based lines
    message = rf"<file>:{second}: duplicate docno 'dup' .* \(first at line {first}\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["dup"], [1]), read_run(io.StringIO(text)), "map")


def test_hash_collisions_find_a_run_duplicate_after_the_smallest_key(monkeypatch):
    _collide(monkeypatch, _all_zero)
    run = read_run(io.StringIO("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 b 3 1 r\n"))
    message = r"<file>:3: duplicate docno 'b' for query 'q' \(first at line 2\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["a"], [1]), run, "map")


@pytest.mark.parametrize("seed", range(6))
def test_absent_topics_equal_a_set_difference(seed):
    """The qrels topics in none of the evaluated parts, against numpy's set
    difference: parts empty, overlapping, holding ids the qrels lack."""
    from skirm.io._join import QrelsIndex

    rng = np.random.default_rng(seed)
    topics = [
        f"t{t}" for t in rng.choice(40, size=int(rng.integers(1, 30)), replace=False)
    ]
    text = "".join(f"{t} 0 d 1\n" for t in topics)
    index = QrelsIndex(read_qrels(io.StringIO(text)))
    universe = np.array([f"t{t}" for t in range(50)])
    parts = [
        np.unique(rng.choice(universe, size=int(rng.integers(0, 20))))
        for _ in range(int(rng.integers(0, 4)))
    ]
    got = index.absent_topics(parts)
    present = np.concatenate(parts) if parts else np.zeros(0, dtype=str)
    assert got.tolist() == np.setdiff1d(np.array(topics), present).tolist()


def test_qrels_index_shares_the_qrels_columns_and_leaves_their_hashes():
    """The index keeps the qrels' labels and docnos (not copies), groups the
    rows by topic in qrels order, and does not change docno hashes a caller
    had cached."""
    from skirm.io._join import QrelsIndex

    qrels = Qrels(["b", "a", "b", "c", "a"], ["x", "y", "z", "x", "w"], [1, 0, 2, 1, 3])
    docs = qrels._tokens()[1]
    cached = docs.hash().copy()
    index = QrelsIndex(qrels)
    assert docs._hash.tolist() == cached.tolist()
    assert index.labels is qrels.labels and index.docs is docs
    assert index.topic_ids.tolist() == ["a", "b", "c"]
    got, which = index.judgments(np.array([2, 0]))
    assert got.tolist() == [3, 1, 4] and which.tolist() == [0, 1, 1]
    run = Run(["a", "b", "c"], ["w", "z", "y"], [1.0, 1.0, 1.0])
    result = evaluate_run(qrels, run, "map")
    assert result.per_query["map"].tolist() == [1.0, 0.5, 0.0]


@pytest.mark.parametrize("rows", [1, 3, 1 << 18])
def test_qrels_keys_mixed_a_range_of_rows_at_a_time_find_every_judgement(
    monkeypatch, rows
):
    """The qrels' keys (docno hash and topic code, mixed in place a range
    of ``HASH_ROWS`` rows at a time) are those the run's rows look up: a run
    that retrieves every judged docno finds each one's label, whatever the
    range size."""
    import skirm.io._tokens
    from skirm.io._join import QrelsIndex
    from skirm.io._tokens import mix, mix_into

    rng = np.random.default_rng(rows)
    monkeypatch.setattr(skirm.io._tokens, "HASH_ROWS", rows)
    h = rng.integers(0, 2**64 - 1, size=20, dtype=np.uint64, endpoint=True)
    codes = rng.integers(0, 4, size=20).astype(np.int32)
    mixed = h.copy()
    mix_into(mixed, codes)
    assert mixed.tolist() == mix(h, codes).tolist()
    lines = [f"t{i % 4} 0 d{i} {i % 3}" for i in range(23)]
    qrels = read_qrels(io.StringIO("\n".join(lines) + "\n"))
    index = QrelsIndex(qrels)
    run_lines = [f"t{i % 4} Q0 d{i} 1 {1 / (i + 1)} r" for i in range(23)]
    run = read_run(io.StringIO("\n".join(run_lines) + "\n"))
    result = evaluate_run(qrels, run, ["num_rel_ret", "num_rel"])
    relevant = [sum(1 for i in range(23) if i % 4 == t and i % 3) for t in range(4)]
    assert result.group_ids.tolist() == ["t0", "t1", "t2", "t3"]
    assert result.per_query["num_rel_ret"].tolist() == relevant
    assert result.per_query["num_rel"].tolist() == relevant
    assert index.n_topics == 4


@pytest.mark.parametrize("seed", range(16))
def test_a_docno_three_times_among_many_is_reported_at_its_second_copy(seed):
    """Among thousands of distinct docnos, one held three times is reported
    as its first and second copies (the earliest repeat), as a scan of the
    rows finds it: the rows of one key stay in row order."""
    from skirm.io._tokens import Tokens, first_duplicate

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1000, 3000))
    texts = [f"clueweb-{i:05d}" for i in rng.permutation(n)]
    a, b, c = np.sort(rng.choice(n, 3, replace=False)).tolist()
    texts[b] = texts[c] = texts[a]
    seen, expected = {}, None
    for i, t in enumerate(texts):
        if t in seen:
            expected = (seen[t], i)
            break
        seen[t] = i
    codes = np.zeros(n, dtype=np.int32)
    assert first_duplicate(codes, Tokens.from_strings(np.array(texts))) == expected
    rows = np.arange(n) * 2 + 5  # lines of the rows
    got = first_duplicate(codes, Tokens.from_strings(np.array(texts)), rows)
    assert got == (expected[0] * 2 + 5, expected[1] * 2 + 5)


def test_a_docno_in_two_queries_of_a_block_is_no_repeat(monkeypatch):
    """Repeats are looked for, in rank order, only when two rows of one
    query share a (query, docno) hash: a docno in two queries is none."""
    import skirm.trec._ranked

    looked = []
    check = skirm.trec._ranked._check_duplicates
    monkeypatch.setattr(
        skirm.trec._ranked,
        "_check_duplicates",
        lambda *a: looked.append(1) or check(*a),
    )
    qrels = Qrels(["q", "r"], ["d1", "d2"], [1, 1])
    run = read_run(io.StringIO("q Q0 d1 1 2 r\nq Q0 d2 2 1 r\nr Q0 d1 1 2 r\n"))
    assert evaluate_run(qrels, run, "map").means == {"map": 0.5}
    assert not looked
    run = read_run(io.StringIO("q Q0 d1 1 2 r\nr Q0 d2 2 1 r\nr Q0 d2 2 1 r\n"))
    with pytest.raises(ValueError, match=r"<file>:3: duplicate docno 'd2'"):
        evaluate_run(qrels, run, "map")
    assert looked


@pytest.mark.parametrize("max_docs", [None, 1, 2, 3])
def test_a_repeat_counts_within_max_docs_only(max_docs):
    # d1 at ranks 1 and 3: a repeat for -M 3 and without -M only
    run = read_run(io.StringIO("q Q0 d1 1 3 r\nq Q0 d2 2 2 r\nq Q0 d1 3 1 r\n"))
    qrels = Qrels(["q"], ["d1"], [1])
    if max_docs in (None, 3):
        with pytest.raises(ValueError, match=r"<file>:3: duplicate docno 'd1'"):
            evaluate_run(qrels, run, "map", max_docs=max_docs)
    else:
        assert evaluate_run(qrels, run, "map", max_docs=max_docs).means["map"] == 1.0


@pytest.mark.parametrize("join_rows", [3, 1 << 18])
@pytest.mark.parametrize("every", [True, False])
def test_joined_rows_match_a_lookup_of_the_qrels(monkeypatch, join_rows, every):
    """Each kept run row's relevance value, looked up JOIN_ROWS rows at a
    time, against a dict of the qrels; with every query of the run in the
    qrels (every row kept) or not."""
    import skirm.io._join
    from skirm.io._join import QrelsIndex, join

    monkeypatch.setattr(skirm.io._join, "JOIN_ROWS", join_rows)
    rng = np.random.default_rng(11)
    docs = [f"doc{i}" for i in range(40)]
    queries = ["q1", "q2", "q3"] + ([] if every else ["absent"])
    q, d = [], []
    for query in queries:
        chosen = rng.choice(docs, 25, replace=False).tolist()
        q += [query] * len(chosen)
        d += chosen
    judged = [
        (a, b)
        for a, b in zip(q, d, strict=True)
        if a != "absent" and rng.random() < 0.5
    ]
    labels = rng.integers(-2, 4, len(judged))
    qrels = Qrels([a for a, _ in judged], [b for _, b in judged], labels)
    judged += [("q1", "elsewhere")]  # a judgement the run did not retrieve
    block = Run(q, d, rng.random(len(q)))
    joined = join(QrelsIndex(qrels), block)
    level = dict(zip(judged, [*labels.tolist(), 1], strict=True))
    kept = [i for i, a in enumerate(q) if a != "absent"]
    np.testing.assert_array_equal(joined.keep, kept)
    expected = [
        -1
        if (q[i], d[i]) not in level
        else max(level[q[i], d[i]], 0)
        if level[q[i], d[i]] >= 0
        else -2
        for i in kept
    ]
    np.testing.assert_array_equal(joined.raw, expected)
    np.testing.assert_array_equal(joined.eval_ids[joined.codes], [q[i] for i in kept])
    assert joined.repeats is False


#: The largest level of the qrels at each bound of the types that hold
#: trec_eval's relevance values (the narrowest that holds the levels).
TOP_LEVELS = [1, 127, 128, 32767, 32768, 2**31 - 1, 2**31, 2**40]


@pytest.mark.parametrize("top", TOP_LEVELS)
def test_raw_type_holds_every_level(top):
    from skirm.io._join import raw_type

    labels = np.array([-(2**40), -3, 0, top], dtype=np.int64)
    kind = raw_type(labels)
    assert np.iinfo(kind).max >= top and np.iinfo(kind).min <= -2
    narrower = [
        k for k in (np.int8, np.int16, np.int32) if k().itemsize < kind().itemsize
    ]
    assert all(np.iinfo(k).max < top for k in narrower)


def _bound_case(top, tmp_path):
    """Qrels whose largest level is ``top``, with negative levels, and a
    run with unjudged rows and ties, as files and as dicts."""
    rng = np.random.default_rng(top % 1000)
    levels = [-3, -1, 0, 1, 2, top - 1, top]
    qrels, run = [], []
    for q in range(6):
        docs = [f"d{d}" for d in rng.choice(40, size=15, replace=False)]
        for d in docs[:10]:
            qrels.append(f"q{q} 0 {d} {levels[int(rng.integers(0, len(levels)))]}")
        scores = rng.integers(0, 5, len(docs) - 2) / 4
        run += [f"q{q} Q0 {d} 0 {s} r" for d, s in zip(docs[2:], scores, strict=True)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    q_dict, r_dict = {}, {}
    for line in qrels:
        q, _, d, g = line.split()
        q_dict.setdefault(q, {})[d] = int(g)
    for line in run:
        q, _, d, _, s, _ = line.split()
        r_dict.setdefault(q, {})[d] = float(s)
    return [str(tmp_path / "qrels"), str(tmp_path / "run")], q_dict, r_dict


@pytest.mark.oracle
@pytest.mark.parametrize("top", [t for t in TOP_LEVELS if t <= 128])
def test_levels_at_the_bounds_of_their_type_as_trec_eval(
    top, trec_eval_binary, tmp_path
):
    """Qrels whose largest level stands at a bound of the type that holds
    the ranked relevance values, with negative levels and unjudged rows:
    trec_eval 10.0's bytes for every measure (relstring included), with -J,
    -M and -l. (trec_eval loops and allocates by the largest level: it
    takes 14 s at 32,767 and gigabytes at 2**31; the 64-bit comparison
    below takes those.)"""
    from _trec_eval_side import compare

    files, _, _ = _bound_case(top, tmp_path)
    for flags in ([], ["-J"], ["-M", "5"], ["-l", str(top)]):
        for measures in (["-m", "all_trec"], ["-m", "relstring.10"]):
            failure, _ = compare(trec_eval_binary, [*flags, *measures, *files])
            assert failure is None, (flags, measures, failure)


@pytest.mark.parametrize("top", TOP_LEVELS)
def test_levels_at_the_bounds_of_their_type_as_in_64_bits(top, tmp_path, monkeypatch):
    """The same qrels evaluated with the relevance values held in 64 bits
    (as before they were narrowed): the same values for every measure, from
    files and from dicts, with -J and -M."""
    import skirm.io._join
    import skirm.trec._dicts
    import skirm.trec._ranked

    files, q_dict, r_dict = _bound_case(top, tmp_path)
    options = [{}, {"judged_only": True}, {"max_docs": 5}, {"relevance_level": top}]
    got = [
        evaluate_run(qrels, run, ["all_trec"], **o)
        for o in options
        for qrels, run in (files, (q_dict, r_dict))
    ]
    for module in (skirm.io._join, skirm.trec._dicts, skirm.trec._ranked):
        monkeypatch.setattr(module, "raw_type", lambda labels: np.int64)
    want = [
        evaluate_run(qrels, run, ["all_trec"], **o)
        for o in options
        for qrels, run in (files, (q_dict, r_dict))
    ]
    for a, b in zip(got, want, strict=True):
        for name in b.per_query:
            np.testing.assert_array_equal(a.per_query[name], b.per_query[name])
