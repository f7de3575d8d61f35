"""Ranked id lists and relevant sets: the whole message of each refusal.

Each names the argument, what was expected and what came, for Python lists,
2-D arrays, list columns and the lists object handed to a metric.
"""

import numpy as np
import pytest

from skirm.metrics import from_lists, ndcg_score

# Whole messages: each names the argument, what was expected and what came.
WHOLE_MESSAGES = [
    (
        None,
        [{1}],
        {},
        TypeError,
        "`y_pred` must be a sequence of ranked id lists, got None",
    ),
    (
        [[], []],
        [{1}, {2}],
        {},
        ValueError,
        "`y_pred` must hold at least one id: every list is empty",
    ),
    ([], [], {}, ValueError, "`y_pred` must hold at least one ranked list, got none"),
    (
        np.empty((0, 3), dtype=np.int64),
        [],
        {},
        ValueError,
        "`y_pred` must hold at least one ranked list, got none",
    ),
    (
        np.empty((2, 0), dtype=np.int64),
        [{1}, {2}],
        {},
        ValueError,
        "`y_pred` must hold at least one id: every list is empty",
    ),
    (
        [[1]],
        [{1}],
        {"padding": -1},
        ValueError,
        "`padding` is only for a 2-D array `y_pred`, got [[1]] (list) with padding=-1",
    ),
    (
        "abc",
        [{1}],
        {},
        TypeError,
        "`y_pred` must be a sequence of ranked id lists (one per query), got "
        "'abc' (str)",
    ),
    (
        [[1], {2, 3}],
        [{1}, {2}],
        {},
        TypeError,
        "`y_pred` must hold one ranked list (a sequence of ids) per query; "
        "item 1 is {2, 3} (set) (a set has no order)",
    ),
    (
        [[1], 5],
        [{1}, {2}],
        {},
        TypeError,
        "`y_pred` must hold one ranked list (a sequence of ids) per query; "
        "item 1 is 5 (int)",
    ),
    (
        np.array([[1, 2, -1], [3, -1, 4]]),
        [{1}, {3}],
        {"padding": -1},
        ValueError,
        "`y_pred` row 1 has an id after the padding -1: padding must only fill "
        "the end of a shorter list",
    ),
    (
        np.array([[1.0, 2.5]]),
        [{1}],
        {},
        TypeError,
        "`y_pred` ids must be ints or strings, got the float 2.5; for a padded "
        "2-D array pass `padding`",
    ),
    (
        [[1.0, 2.5]],
        [{1}],
        {},
        TypeError,
        "`y_pred` ids must be ints or strings, got the float 2.5; for a padded "
        "2-D array pass `padding`",
    ),
    (
        [[[1, 2]]],
        [{1}],
        {},
        TypeError,
        "`y_pred` ids must be numbers or strings (hashable scalars), got nested "
        "sequences",
    ),
    (
        [[1j]],
        [{1}],
        {},
        TypeError,
        "`y_pred` ids must be ints or strings, got an array of dtype complex128 "
        "and shape (1,)",
    ),
    (
        [[1]],
        [{2.5}],
        {},
        TypeError,
        "`y_true` ids must be ints or strings, got the float 2.5; for a padded "
        "2-D array pass `padding`",
    ),
    (
        [[1]],
        {1},
        {},
        TypeError,
        "`y_true` must be a sequence with one set of relevant ids or one "
        "{id: grade} dict per query, got {1} (set)",
    ),
    (
        [[1]],
        [5],
        {},
        TypeError,
        "`y_true` item 0 must be a set of relevant ids or an {id: grade} dict, "
        "got 5 (int)",
    ),
    (
        [[1]],
        ["ab"],
        {},
        TypeError,
        "`y_true` item 0 must be a set of relevant ids or an {id: grade} dict, "
        "got 'ab' (str)",
    ),
    (
        [[1], [2], [3]],
        [{1: 1}, {2: 1}, {3}],
        {},
        TypeError,
        "`y_true` must hold only sets (or lists) of relevant ids or only "
        "{id: grade} dicts, got a mix: item 0 is dict, item 2 is set",
    ),
    (
        [[1], [2]],
        [{1}, {2: 1}],
        {},
        TypeError,
        "`y_true` must hold only sets (or lists) of relevant ids or only "
        "{id: grade} dicts, got a mix: item 0 is set, item 1 is dict",
    ),
    (
        [[1]],
        [{1: "a"}],
        {},
        TypeError,
        "the grades of `y_true` ({id: grade} dicts) must be real numbers",
    ),
    (
        [[1]],
        [{1: 1, 2: -1}],
        {},
        ValueError,
        "the grades of `y_true` must be finite and non-negative, got -1.0",
    ),
    (
        [[1, "a"]],
        [{1}],
        {},
        TypeError,
        "item ids must be mutually comparable (all ints or all strings) across "
        "`y_pred` and `y_true`; `y_pred` mixes them",
    ),
    (
        [["a", "b"]],
        [{"a", 2}],
        {},
        TypeError,
        "item ids must be mutually comparable (all ints or all strings) across "
        "`y_pred` and `y_true`; `y_true` mixes them",
    ),
    (
        [["a"]],
        [{1}],
        {},
        TypeError,
        "item ids must be mutually comparable (all ints or all strings) across "
        "`y_pred` and `y_true`",
    ),
    (
        [["1"]],
        [{1}],
        {},
        TypeError,
        "item ids must be mutually comparable (all ints or all strings) across "
        "`y_pred` and `y_true`",
    ),
    (
        [[1]],
        [{"a"}],
        {},
        TypeError,
        "item ids must be mutually comparable (all ints or all strings) across "
        "`y_pred` and `y_true`",
    ),
    (
        [[1], [2], [3]],
        [{1}, {2}, {3}],
        {"groups": ["a", "b", "b"]},
        ValueError,
        "`groups` must hold one distinct label per query, got 'b' twice",
    ),
    (
        [[1], [2], [3]],
        [{1}, {2}, {3}],
        {"groups": ["a", "b"]},
        ValueError,
        "`groups` must have one label per row: expected length 3, got 2",
    ),
    (
        [[1], [2]],
        [[4, 4], [3]],
        {},
        ValueError,
        "`y_true` ground truth 0 names the same id twice",
    ),
    (
        [[1]],
        [[1, 5, 5]],
        {},
        ValueError,
        "`y_true` ground truth 0 names the same id twice",
    ),
    (
        [[1]],
        [[1, 1]],
        {},
        ValueError,
        "`y_true` ground truth 0 names the same id twice",
    ),
    (
        [[1], [2], [3]],
        [[1], [2], [3, 3]],
        {},
        ValueError,
        "`y_true` ground truth 2 names the same id twice",
    ),
    (
        [[1], [2]],
        [[1], [1, 1]],
        {},
        ValueError,
        "`y_true` ground truth 1 names the same id twice",
    ),
    (
        [[1, 5, 7, 5]],
        [{1}],
        {},
        ValueError,
        "`y_pred` ranked list 0 names the same id twice",
    ),
]


@pytest.mark.parametrize("y_pred, y_true, kwargs, error, message", WHOLE_MESSAGES)
def test_bad_lists_give_the_whole_message(y_pred, y_true, kwargs, error, message):
    with pytest.raises(error) as info:
        from_lists(y_pred, y_true, **kwargs)
    assert str(info.value) == message


def test_mixed_ground_truth_in_a_series_names_its_items_by_position():
    pd = pytest.importorskip("pandas")
    truth = pd.Series([{1}, {2: 1}], index=[10, 11])
    with pytest.raises(TypeError) as info:
        from_lists([[1], [2]], truth)
    assert str(info.value).endswith("got a mix: item 0 is set, item 1 is dict")


def test_list_columns_name_the_argument():
    pl = pytest.importorskip("polars")
    cases = [
        (
            pl.Series([], dtype=pl.List(pl.Int64)),
            [],
            ValueError,
            "`y_pred` must hold at least one ranked list, got none",
        ),
        (
            [[1]],
            pl.Series([[1], [2]]),
            ValueError,
            "`y_true` must hold one ground truth per ranked list: expected 1, got 2",
        ),
        (
            pl.Series([[1.5]]),
            [{1}],
            TypeError,
            "`y_pred` ids must be ints or strings, got the float 1.5; for a "
            "padded 2-D array pass `padding`",
        ),
        (
            [[1]],
            pl.Series([[1.5]]),
            TypeError,
            "`y_true` ids must be ints or strings, got the float 1.5; for a "
            "padded 2-D array pass `padding`",
        ),
    ]
    for y_pred, y_true, error, message in cases:
        with pytest.raises(error) as info:
            from_lists(y_pred, y_true)
        assert str(info.value) == message


def test_lists_object_messages_name_what_came():
    lists = from_lists([[1]], [{1}])
    with pytest.raises(ValueError) as info:
        ndcg_score(lists, [1.0], groups=[0])
    assert str(info.value) == (
        "with `y_true` from from_lists(), `y_score` and `groups` must be None, "
        "got y_score=[1.0] (list), groups=[0] (list)"
    )
    with pytest.raises(TypeError) as info:
        ndcg_score([{1}], None)
    assert str(info.value) == (
        "`y_score` must hold the ranked id lists when `y_true` holds relevant "
        "sets or {id: grade} dicts, got None"
    )
