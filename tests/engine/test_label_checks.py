"""Labels as the engine checks them: float64 labels in one pass, and integer
labels kept as they are and converted block by block when ranked.

Integer and boolean labels of every width must give the values of the same
labels as float64, bit for bit, whole and in blocks of queries, in one
thread and in two.
"""

import numpy as np
import pytest

import skirm._engine._blocks
import skirm._engine._check
from skirm._engine import check_input, rank
from skirm.metrics import evaluate

METRICS = ["ndcg@3", "ndcg", "map", "mrr", "precision@2", "err@4", "dcg@5", "rbp"]


# -- the one-pass check of float64 labels ---------------------------------------


@pytest.mark.parametrize(
    "labels",
    [
        [0.0, 1.0, 2.5],
        [-0.0, 3.0],
        [5e-324, 1.7976931348623157e308],
        np.arange(10.0)[::2],  # not contiguous: the two-reduction path
        np.arange(4.0).astype(">f8"),  # not native float64
        np.arange(4.0, dtype=np.float32),
    ],
)
def test_valid_labels_pass_the_check_unchanged(labels):
    from skirm._validation import check_y_true

    labels = np.asarray(labels)
    before = labels.copy()
    out = check_y_true(labels)
    np.testing.assert_array_equal(out, before)
    np.testing.assert_array_equal(labels, before)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.nan, "must hold finite relevance labels, got nan"),
        (np.inf, "must hold finite relevance labels, got inf"),
        (-np.inf, "must hold finite relevance labels, got -inf"),
        (-1.0, "must hold non-negative relevance labels, got -1.0"),
        (-5e-324, "must hold non-negative relevance labels, got -5e-324"),
    ],
)
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_bad_labels_fail_the_check(bad, message, layout):
    from skirm._validation import check_y_true

    labels = np.array([0.0, 2.0, bad, 1.0, 0.0, 0.0])
    if layout == "strided":
        labels = np.repeat(labels, 2)[::2]
    with pytest.raises(ValueError, match=f"`y_true` {message}"):
        check_y_true(labels)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (
            [0.0, np.nan, 1.0],
            "`y_true` must hold finite relevance labels, got nan at 1 (flat index); "
            "NaN marks an unjudged row: pass unjudged='nonrelevant' or 'condensed' "
            "(to the metric function, skirm.metrics.evaluate or make_ranking_scorer) "
            "to score such rows",
        ),
        (
            [0.0, 2.0, np.inf],
            "`y_true` must hold finite relevance labels, got inf at 2 (flat index)",
        ),
        (
            [[1.0, 0.0], [-np.inf, 0.0]],
            "`y_true` must hold finite relevance labels, got -inf at 2 (flat index)",
        ),
        (
            [0.0, 3.0, -2.0],
            "`y_true` must hold non-negative relevance labels, got -2.0 (treat "
            "unjudged rows as 0, or drop them)",
        ),
    ],
)
def test_bad_labels_give_the_whole_message(labels, message):
    from skirm._validation import check_y_true

    with pytest.raises(ValueError) as info:
        check_y_true(np.array(labels))
    assert str(info.value) == message


# -- integer labels, converted block by block -----------------------------------

_INTEGER_DTYPES = ["int8", "uint8", "int16", "int64", "uint64", "bool"]


@pytest.mark.parametrize("unjudged", ["raise", "nonrelevant", "condensed"])
@pytest.mark.parametrize("dtype", _INTEGER_DTYPES)
def test_integer_labels_are_checked_without_a_float64_copy(dtype, unjudged):
    labels = np.array([3, 0, 1, 2, 0, 1]).astype(dtype)
    before = labels.copy()
    checked = check_input(
        labels, np.arange(6.0), groups=[0, 0, 0, 1, 1, 1], unjudged=unjudged
    )
    assert checked.y_true is labels
    assert checked.missing is None
    np.testing.assert_array_equal(labels, before)
    assert (
        rank(check_input(labels, np.arange(6.0), groups=[0] * 6)).labels.dtype
        == np.float64
    )


@pytest.mark.parametrize("dtype", ["int8", "int64"])
def test_negative_integer_labels_are_refused_with_their_value(dtype):
    labels = np.array([2, -1, 0], dtype=dtype)
    with pytest.raises(ValueError, match=r"non-negative relevance labels, got -1 \("):
        check_input(labels, [0.3, 0.2, 0.1], groups=[0] * 3)


@pytest.mark.parametrize("dtype", _INTEGER_DTYPES)
@pytest.mark.parametrize("ties", ["average", "optimistic"])
def test_integer_labels_give_the_float64_values_bit_for_bit(monkeypatch, dtype, ties):
    rng = np.random.default_rng(7)
    groups = np.repeat(np.arange(60), rng.integers(1, 9, 60))
    n = groups.shape[0]
    high = 2 if dtype == "bool" else 5
    labels = rng.integers(0, high, n).astype(dtype)
    y_score = rng.integers(0, 4, n).astype(float)  # ties
    kwargs = dict(groups=groups, metrics=[*METRICS, "err@3"], ties=ties)
    expected = evaluate(labels.astype(np.float64), y_score, **kwargs)
    monkeypatch.setattr(skirm._engine._check, "_ASIDE_ROWS", 1)  # encode in a thread
    for block_rows in (10**9, 13):
        monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", block_rows)
        for n_jobs in (None, 2):
            result = evaluate(labels, y_score, n_jobs=n_jobs, **kwargs)
            for metric in kwargs["metrics"]:
                np.testing.assert_array_equal(
                    result.per_query[metric], expected.per_query[metric]
                )
