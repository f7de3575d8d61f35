"""The engine's row layout: query codes, query starts, top rows, the ideal DCG.

The fast paths of the engine (sorted integer query ids encoded from their
change points, query starts found by bisection, top rows from a padded
matrix, the ideal DCG from per-query label counts, the query ids encoded in
a second thread) are each compared with a plain reference on generated
layouts, and must give the very same numbers as the general paths. The
threads that share the blocks out are tested at the end; the checks of the
labels are in ``test_label_checks.py``.
"""

import threading

import numpy as np
import pytest

import skirm._engine._blocks
import skirm._engine._check
import skirm._engine._ideal
import skirm._engine._rank
import skirm._engine._ranking
import skirm._engine._threads
from skirm._engine import check_input, encode_grouped, rank
from skirm._engine._rank import rank_rows
from skirm.metrics import evaluate

METRICS = ["ndcg@3", "ndcg", "map", "mrr", "precision@2", "err@4", "dcg@5", "rbp"]


def _layouts():
    """Query-id arrays, one layout dimension varied at a time (seeded)."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 6, size=40)
    dense = np.repeat(np.arange(40), sizes)
    return {
        "sorted from 0": dense,
        "sorted from 7": dense + 7,
        "sorted, negative": dense - 20,
        "sorted with holes": np.repeat(
            np.sort(rng.choice(500, 40, replace=False)), sizes
        ),
        "sorted, uint8": dense.astype(np.uint8),
        "one query": np.zeros(9, dtype=np.int64),
        "one row": np.array([4]),
        "contiguous, not sorted": np.repeat(rng.permutation(40), sizes),
        "interleaved": rng.permutation(dense),
        "descending": dense[::-1].copy(),
        "strings": np.array([f"q{g:02d}" for g in dense]),
    }


@pytest.mark.parametrize("name", list(_layouts()))
def test_encode_grouped_matches_unique(name):
    groups = _layouts()[name]
    before = groups.copy()
    codes, uniques, starts = encode_grouped(groups)
    expected_uniques, expected_codes = np.unique(groups, return_inverse=True)
    np.testing.assert_array_equal(uniques, expected_uniques)
    assert uniques.dtype == groups.dtype
    np.testing.assert_array_equal(codes, expected_codes.ravel())
    np.testing.assert_array_equal(groups, before)
    grouped = np.all(np.diff(codes) >= 0)
    if starts is None:
        assert name in (
            "contiguous, not sorted",
            "interleaved",
            "descending",
            "strings",
        )
    else:
        assert grouped
        expected = np.searchsorted(codes, np.arange(uniques.shape[0] + 1))
        np.testing.assert_array_equal(starts, expected)
    if np.shares_memory(codes, groups):
        assert not codes.flags.writeable  # the caller's array is never handed out


@pytest.mark.parametrize(
    "name", ["sorted from 0", "sorted with holes", "strings", "interleaved"]
)
@pytest.mark.parametrize("ties", ["average", "first", "pessimistic"])
def test_any_block_size_and_thread_count_gives_the_same_values(monkeypatch, name, ties):
    groups = _layouts()[name]
    rng = np.random.default_rng(1)
    y_true = rng.integers(0, 4, groups.shape[0]).astype(float)
    y_score = rng.integers(0, 5, groups.shape[0]).astype(float)  # ties
    kwargs = dict(groups=groups, metrics=METRICS, ties=ties)
    monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", 10**9)
    whole = evaluate(y_true, y_score, **kwargs)
    monkeypatch.setattr(skirm._engine._check, "_ASIDE_ROWS", 1)  # encode in a thread
    for block_rows in (5, 17, 64):
        monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", block_rows)
        for n_jobs in (None, 2):
            result = evaluate(y_true, y_score, n_jobs=n_jobs, **kwargs)
            for metric in METRICS:
                np.testing.assert_array_equal(
                    result.per_query[metric], whole.per_query[metric]
                )
                assert result[metric] == whole[metric]


@pytest.mark.parametrize("layout", ["sorted", "interleaved"])
def test_pandas_string_queries_in_blocks_give_the_one_block_values(monkeypatch, layout):
    """A pandas column of strings is encoded by pandas, which tells no query
    starts: :func:`in_appearance_order` finds them when each query's rows are
    together, and the blocks sort the rows when they are not."""
    pd = pytest.importorskip("pandas")
    dense = _layouts()["sorted from 0"]
    if layout == "interleaved":
        dense = np.random.default_rng(2).permutation(dense)
    groups = pd.Series([f"q{g:02d}" for g in dense])
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 4, dense.shape[0]).astype(float)
    y_score = rng.integers(0, 5, dense.shape[0]).astype(float)  # ties
    kwargs = dict(groups=groups, metrics=METRICS, ties="average")
    whole = evaluate(y_true, y_score, groups=dense, metrics=METRICS)
    for block_rows in (5, 17):
        monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", block_rows)
        result = evaluate(y_true, y_score, **kwargs)
        for metric in METRICS:
            np.testing.assert_array_equal(
                result.per_query[metric], whole.per_query[metric]
            )


def _bad_inputs():
    y_true = np.array([1.0, 0.0, 2.0, 0.0])
    y_score = np.array([0.5, 0.1, 0.3, 0.2])
    groups = np.array([1, 1, 2, 2])
    nan = np.array([1.0, np.nan, 2.0, 0.0])
    return {
        "y_true and groups": (nan, y_score, groups[:3]),
        "y_score and groups": (y_true, nan, groups[:3]),
        "y_true and y_score": (-y_true - 1, nan, groups),
        "groups": (y_true, y_score, groups[:3]),
        "groups of None": (y_true, y_score, np.array([1, None, 2, 2], dtype=object)),
        "2-D with groups": (y_true.reshape(2, 2), y_score.reshape(2, 2), groups[:1]),
        "shapes and groups": (y_true, y_score[:3], groups[:3]),
        "no groups": (y_true, y_score, None),
    }


@pytest.mark.parametrize("case", list(_bad_inputs()))
def test_encoding_in_a_thread_raises_the_same_first_error(monkeypatch, case):
    y_true, y_score, groups = _bad_inputs()[case]
    with pytest.raises((ValueError, TypeError)) as serial:
        check_input(y_true, y_score, groups=groups)
    monkeypatch.setattr(skirm._engine._check, "_ASIDE_ROWS", 1)
    with pytest.raises(type(serial.value), match="^" + str(serial.value)[:40]) as aside:
        check_input(y_true, y_score, groups=groups, n_jobs=2)
    assert str(aside.value) == str(serial.value)


def test_encoding_in_a_thread_gives_the_same_checked_input(monkeypatch):
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(30) + 100, rng.integers(1, 8, 30))
    y_true = rng.integers(0, 3, groups.shape[0])
    y_score = rng.normal(size=groups.shape[0])
    serial = check_input(y_true, y_score, groups=groups)
    monkeypatch.setattr(skirm._engine._check, "_ASIDE_ROWS", 1)
    aside = check_input(y_true, y_score, groups=groups, n_jobs=2)
    for got, expected in zip(aside, serial, strict=True):
        if isinstance(expected, np.ndarray):
            np.testing.assert_array_equal(got, expected)
        else:
            assert got == expected


def test_two_dimensional_rows_are_never_encoded_in_a_thread(monkeypatch):
    y_true = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])
    y_score = np.array([[0.5, 0.1, 0.3], [0.2, 0.2, 0.9]])
    serial = check_input(y_true, y_score)
    monkeypatch.setattr(skirm._engine._check, "_ASIDE_ROWS", 1)
    aside = check_input(y_true, y_score, n_jobs=2)
    np.testing.assert_array_equal(aside.codes, [0, 0, 0, 1, 1, 1])
    for got, expected in zip(aside, serial, strict=True):
        if isinstance(expected, np.ndarray):
            np.testing.assert_array_equal(got, expected)
        else:
            assert got == expected


@pytest.mark.parametrize("labels", [["a", "b", "a"], ["b"]])
def test_a_pandas_string_column_of_another_length_is_refused(labels):
    # pandas' own encoding of strings is taken only for one label per row.
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError) as info:
        check_input([1.0, 0.0], [0.5, 0.2], groups=pd.Series(labels, dtype=object))
    assert str(info.value) == (
        f"`groups` must have one label per row: expected length 2, got {len(labels)}"
    )


def test_checked_input_keeps_the_tie_policy_by_default():
    checked = check_input([1.0, 0.0], [0.5, 0.5], groups=[0, 0])
    assert (checked.ties, checked.tiebreak, checked.missing) == ("average", None, None)
    assert checked.unjudged == "raise"


def test_integer_labels_take_an_unjudged_policy():
    # Integer labels cannot be NaN: every row is judged.
    checked = check_input(
        np.array([2, 0, 1]), [0.3, 0.2, 0.1], groups=[0, 0, 0], unjudged="condensed"
    )
    np.testing.assert_array_equal(checked.y_true, [2.0, 0.0, 1.0])
    assert checked.missing is None


@pytest.mark.parametrize("unjudged", ["nonrelevant", "condensed"])
def test_float_labels_without_nan_take_an_unjudged_policy(unjudged):
    # Float labels with no NaN: every row is judged, the labels as given.
    checked = check_input(
        np.array([2.0, 0.5, 1.0]), [0.3, 0.2, 0.1], groups=[0, 0, 0], unjudged=unjudged
    )
    np.testing.assert_array_equal(checked.y_true, [2.0, 0.5, 1.0])
    assert checked.missing is None


@pytest.mark.parametrize(
    "arguments, message",
    [
        (
            dict(y_true=[[1, 0]], y_score=[[0.2, 0.1]], groups=[0]),
            "`groups` must be None when `y_true` and `y_score` are 2-D (each row "
            "is a query), got 2-D arrays of shape (1, 2) and groups; pass flat "
            "1-D arrays to use groups",
        ),
        (
            dict(y_true=[1, 0], y_score=[0.2, 0.1]),
            "`groups` is required for 1-D `y_true` and `y_score`: pass one query "
            "label per row (e.g. groups=query_ids). To score a single query, pass "
            "groups=np.zeros(len(y_true)); for one query per row of a matrix, "
            "pass 2-D arrays",
        ),
    ],
)
def test_query_label_errors_say_what_to_pass(arguments, message):
    with pytest.raises(ValueError) as error:
        check_input(**arguments)
    assert str(error.value) == message


def _reference_top(sizes, k):
    codes, position = [], []
    for q, size in enumerate(sizes):
        for p in range(min(size, k)):
            codes.append(q)
            position.append(p)
    return np.array(codes, dtype=np.intp), np.array(position, dtype=np.intp)


@pytest.mark.parametrize(
    "sizes",
    [[3, 1, 4, 1, 5], [1] * 50 + [400], [2, 2, 2], [7]],
    ids=["similar sizes", "one long query", "equal sizes", "one query"],
)
@pytest.mark.parametrize("k", [1, 2, 5, 1000])
def test_top_rows_match_the_reference(sizes, k):
    # "one long query" pads too much for the matrix: the other path.
    codes = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(3)
    scores = rng.normal(size=codes.shape[0])
    ranking = rank_rows(np.zeros(codes.shape[0]), scores, codes, np.arange(len(sizes)))
    rows = ranking.top(k)
    ref_codes, ref_position = _reference_top(sizes, k)
    np.testing.assert_array_equal(rows.codes, ref_codes)
    np.testing.assert_array_equal(rows.position, ref_position)
    np.testing.assert_array_equal(rows.index, ranking.starts[ref_codes] + ref_position)


def _reference_ideal_dcg(y_true, groups, gain, k):
    """Per query: the labels sorted descending, gains times 1/log2(p + 2)
    added one position after the other (the order of the engine's sums)."""
    out = []
    for g in np.unique(groups):
        labels = np.sort(y_true[groups == g])[::-1][:k]
        total = 0.0
        for p, label in enumerate(labels):
            total += gain(np.array([label]))[0] * (
                1.0 / (np.log(p + 2.0) / np.log(2.0))
            )
        out.append(total)
    return np.array(out)


#: Labels of the ideal DCG tests: small integer grades (counted per level),
#: and fractional or large ones (sorted along padded lines).
_IDEAL_LABELS = {
    "binary": lambda rng, n: rng.integers(0, 2, n).astype(float),
    "graded": lambda rng, n: rng.integers(0, 5, n).astype(float),
    "40 grades": lambda rng, n: rng.integers(0, 40, n).astype(float),
    "halves": lambda rng, n: rng.integers(0, 7, n) / 2,
    "continuous": lambda rng, n: np.where(rng.random(n) < 0.4, 0.0, rng.random(n)),
    "past 255": lambda rng, n: rng.integers(0, 1000, n).astype(float),
}


@pytest.mark.parametrize("labels", list(_IDEAL_LABELS))
@pytest.mark.parametrize("k", [None, 1, 3, 10])
@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("padding", ["lines", "no lines"])
def test_ideal_dcg_equals_the_ordered_sum(monkeypatch, labels, k, gain, padding):
    if padding == "no lines":  # the general path: one sort of every row
        monkeypatch.setattr(skirm._engine._ideal, "_MAX_SORTED_PADDING", 0)
    rng = np.random.default_rng(4)
    groups = np.repeat(np.arange(25), rng.integers(1, 12, 25))
    y_true = _IDEAL_LABELS[labels](rng, groups.shape[0])
    y_true[groups == 3] = 0.0  # a query without relevant rows
    f = (lambda x: np.exp2(x) - 1.0) if gain == "exponential" else (lambda x: x)
    ranking = rank(check_input(y_true, rng.normal(size=groups.shape[0]), groups=groups))
    got = ranking.ideal_dcg(f, k)
    np.testing.assert_array_equal(got, _reference_ideal_dcg(y_true, groups, f, k))
    ks = np.array([1, 2, 3, 7, 100])
    many = ranking.ideal_dcg(f, ks)
    for j, cut in enumerate(ks):
        np.testing.assert_array_equal(many[:, j], ranking.ideal_dcg(f, int(cut)))


@pytest.mark.parametrize("k", [None, 3, np.array([1, 5])])
def test_the_ideal_dcg_of_a_ranking_without_queries_is_empty(k):
    empty = np.zeros(0, dtype=np.intp)
    ranking = skirm._engine._ranking.Ranking(
        empty, empty, np.zeros(0), np.zeros(0), np.zeros(0), "average"
    )
    for gain in (lambda x: x, lambda x: np.exp2(x) - 1.0):
        got = ranking.ideal_dcg(gain, k)
        assert got.shape == ((0,) if np.ndim(k) == 0 else (0, 2))


@pytest.mark.parametrize("weighted", [False, True])
def test_batched_cutoffs_give_the_means_of_single_cutoffs(weighted):
    # The per-query values of a batch are made contiguous: a weighted mean
    # (a dot product) of a strided column can round differently.
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(3000), rng.integers(1, 30, 3000))
    y_true = rng.integers(0, 4, groups.shape[0]).astype(float)
    y_score = rng.normal(size=groups.shape[0])
    weight = rng.uniform(0.1, 3.0, 3000)[groups] if weighted else None
    names = [f"{m}@{k}" for m in ("ndcg", "err", "precision") for k in range(1, 21)]
    batched = evaluate(
        y_true, y_score, groups=groups, metrics=names, sample_weight=weight
    )
    for name in names:
        alone = evaluate(
            y_true, y_score, groups=groups, metrics=[name], sample_weight=weight
        )
        np.testing.assert_array_equal(batched.per_query[name], alone.per_query[name])
        assert batched.per_query[name].flags.c_contiguous
        assert batched[name] == alone[name], name


@pytest.mark.parametrize("levels", [2, 5])
@pytest.mark.parametrize("sizes", ["similar", "one long query"])
def test_dcg_and_err_paths_give_the_same_numbers(monkeypatch, levels, sizes):
    # ERR from the relevant rows, from lines of the top rows, and from the
    # top rows themselves; DCG from lines and from rows: bit for bit.
    import skirm.metrics._err as graded

    rng = np.random.default_rng(6)
    n_groups = 200
    size = rng.integers(1, 40, n_groups)
    if sizes == "one long query":
        size[7] = 3000
    groups = np.repeat(np.arange(n_groups), size)
    y_true = rng.integers(0, levels, groups.shape[0]).astype(float)
    y_score = rng.normal(size=groups.shape[0])
    names = [f"{m}@{k}" for m in ("err", "ndcg", "dcg") for k in (1, 3, 10, 25)]

    def run():
        result = evaluate(y_true, y_score, groups=groups, metrics=names, ties="first")
        for alone in ("err@7", "ndcg@7"):  # a single cutoff: the one-k paths
            result.per_query[alone] = evaluate(
                y_true, y_score, groups=groups, metrics=[alone], ties="first"
            ).per_query[alone]
        return result

    fast = run()
    monkeypatch.setattr(graded, "_err_relevant", lambda *args: None)
    lines = run()
    monkeypatch.setattr(
        skirm._engine._ranking.Ranking, "top_lines", lambda self, depth: None
    )
    rows = run()
    for name in [*names, "err@7", "ndcg@7"]:
        np.testing.assert_array_equal(fast.per_query[name], rows.per_query[name])
        np.testing.assert_array_equal(lines.per_query[name], rows.per_query[name])


def test_dcg_at_k_of_one_long_query_among_many_short_ones():
    # A 200-row query among 1000 one-row queries: the top rows are taken
    # without padding and summed per query in blocks of queries.
    rng = np.random.default_rng(7)
    sizes = np.ones(1001, dtype=int)
    sizes[500] = 200
    groups = np.repeat(np.arange(1001), sizes)
    y_true = rng.integers(0, 4, groups.shape[0]).astype(float)
    y_score = rng.normal(size=groups.shape[0])
    for k in (100, [5, 100]):
        names = [f"dcg@{c}" for c in np.atleast_1d(k)]
        got = evaluate(y_true, y_score, groups=groups, metrics=names)
        for name, cut in zip(names, np.atleast_1d(k), strict=True):
            expected = []
            for g in range(1001):
                labels = y_true[groups == g][np.argsort(-y_score[groups == g])]
                top = labels[:cut]
                expected.append(np.sum(top / np.log2(np.arange(top.shape[0]) + 2)))
            np.testing.assert_allclose(got.per_query[name], expected, rtol=1e-12)


# -- threads: tasks shared out, properties computed per ranking -----------------


@pytest.mark.parametrize("n_threads", [2, 3])
@pytest.mark.parametrize("n_tasks", [1, 2, 7, 50])
def test_share_out_runs_each_task_once_and_keeps_their_order(n_threads, n_tasks):
    calls = []

    def task(i):
        calls.append(i)
        return i * i

    results = skirm._engine._threads.share_out(task, n_tasks, n_threads)
    assert results == [i * i for i in range(n_tasks)]
    assert sorted(calls) == list(range(n_tasks))


@pytest.mark.parametrize("n_threads", [1, 2, 3])
@pytest.mark.parametrize("failing", [(0,), (3,), (3, 4, 9), (9,)])
def test_share_out_raises_the_error_of_the_first_failing_task(n_threads, failing):
    ran = set()

    def task(i):
        ran.add(i)
        if i in failing:
            raise ValueError(f"task {i} failed")
        return i

    first = min(failing)
    with pytest.raises(ValueError, match=f"^task {first} failed$"):
        skirm._engine._threads.share_out(task, 10, n_threads)
    assert set(range(first + 1)) <= ran  # every task before it ran


def test_rankings_compute_their_properties_in_parallel():
    # Before Python 3.12, functools.cached_property holds one lock for every
    # instance: a second thread could not compute the property of another
    # ranking until the first had finished. Both threads must be inside the
    # property at once here.
    meet = threading.Barrier(2)

    class Slow:
        @skirm._engine._ranking.cached_property
        def value(self):
            meet.wait(timeout=10)
            return id(self)

    a, b = Slow(), Slow()
    results = skirm._engine._threads.share_out(lambda i: (a, b)[i].value, 2, 2)
    assert results == [id(a), id(b)]
    assert a.value == id(a) and "value" in vars(a)  # computed once, then kept


# -- queries together, out of code order ---------------------------------------


def _out_of_order_layouts():
    """Query ids whose queries' rows are together but not in code order, as
    ints, strings (narrow and wide) and objects; and one interleaved."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 7, size=50)
    ints = np.repeat(rng.permutation(50) * 3 - 20, sizes)
    narrow = np.array([f"q{g}" for g in ints])  # "q10" before "q9"
    return {
        "ints, not sorted": ints,
        "strings, not in label order": narrow,
        "wide strings": narrow.astype("U40"),
        "objects": narrow.astype(object),
        "descending": np.repeat(np.arange(50)[::-1], sizes),
        "interleaved": rng.permutation(ints),
    }


@pytest.mark.parametrize("name", list(_out_of_order_layouts()))
def test_in_appearance_order_recodes_the_rows_as_they_lie(name):
    groups = _out_of_order_layouts()[name]
    checked = check_input(
        np.zeros(groups.shape[0]), np.zeros(groups.shape[0]), groups=groups
    )
    found = skirm._engine._blocks.in_appearance_order(checked)
    if name == "interleaved":
        assert found is None
        return
    regrouped, order = found
    # every row keeps its place and its query; codes count the queries as met
    first = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    np.testing.assert_array_equal(regrouped.group_ids, groups[first])
    np.testing.assert_array_equal(regrouped.group_ids[regrouped.codes], groups)
    np.testing.assert_array_equal(regrouped.starts, np.r_[first, groups.shape[0]])
    np.testing.assert_array_equal(regrouped.group_ids[order], checked.group_ids)
    assert regrouped.y_true is checked.y_true and regrouped.y_score is checked.y_score


def test_in_appearance_order_leaves_rows_in_code_order_alone():
    groups = _layouts()["sorted with holes"]
    rows = np.zeros(groups.shape[0])
    checked = check_input(rows, rows, groups=groups)
    assert checked.starts is not None
    assert skirm._engine._blocks.in_appearance_order(checked) is None


@pytest.mark.parametrize("name", list(_out_of_order_layouts()))
@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("weighted", [False, True])
def test_queries_out_of_order_give_the_sorting_path_values_bit_for_bit(
    monkeypatch, name, ties, weighted
):
    """Measured as they lie, or sorted by code first (the path without
    :func:`in_appearance_order`): the very same per-query values, weights and
    means, for any block size and thread count, with no_relevant="skip"."""
    import skirm.metrics._evaluate

    groups = _out_of_order_layouts()[name]
    rng = np.random.default_rng(6)
    n = groups.shape[0]
    y_true = rng.choice([0.0, 0.0, 0.0, 1.0, 3.0], n)
    y_score = rng.integers(0, 4, n).astype(float)  # ties
    query = np.unique(groups, return_inverse=True)[1].ravel()
    weight = (rng.random(n) + 0.5)[query] if weighted else None  # one per query
    kwargs = dict(
        groups=groups,
        metrics=METRICS,
        ties=ties,
        sample_weight=weight,
        no_relevant="skip",
    )
    calls = []
    real = skirm.metrics._evaluate.in_appearance_order
    monkeypatch.setattr(
        skirm.metrics._evaluate,
        "in_appearance_order",
        lambda checked: calls.append(real(checked)) or calls[-1],
    )
    sorting = []
    for block_rows in (10**9, 7, 40):
        monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", block_rows)
        for n_jobs in (None, 2):
            as_they_lie = evaluate(y_true, y_score, n_jobs=n_jobs, **kwargs)
            assert (calls[-1] is None) == (name == "interleaved")
            with monkeypatch.context() as m:
                m.setattr(
                    skirm.metrics._evaluate, "in_appearance_order", lambda c: None
                )
                sorting.append(evaluate(y_true, y_score, n_jobs=n_jobs, **kwargs))
            expected = sorting[0]  # one block, one thread, sorted by code
            np.testing.assert_array_equal(as_they_lie.group_ids, expected.group_ids)
            if weighted:
                np.testing.assert_array_equal(as_they_lie.weights, expected.weights)
            for metric in METRICS:
                np.testing.assert_array_equal(
                    as_they_lie.per_query[metric], expected.per_query[metric]
                )
                assert as_they_lie[metric] == expected[metric]
