"""The scores of dicts of dicts, checked once for both dicts readers (the
evaluation's, :mod:`skirm.io._dict_rows`; the fusion's,
:mod:`skirm.io._dict_union`): the same scores taken as they are, the same
left to the general path, whose messages say what is wrong."""

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
    dicts, _ = plain_qrels({"q1": {"a": 1, "b": 0}})
    rows = read_run_dicts(DictIndex(dicts), run)
    union = union_rows([run])
    plain = case in ("floats", "ints", "bools", "numpy")
    assert (union is not None) is plain
    assert (rows is not NOT_PLAIN) is plain
    if plain:
        want = [float(s) for s in scores]
        assert rows.scores.tolist() == want
        assert union.X[:, 0].tolist() == want
