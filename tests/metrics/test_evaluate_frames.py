"""``evaluate(frame, metrics, y_true="rel", y_score="score", groups="qid")``:
a frame passed first, its columns named, for pandas, polars (eager and
lazy) and pyarrow; the same numbers as the arrays, and errors that name the
column and list the frame's columns. scikit-learn's positional form, and
the arrays given by keyword, keep working."""

import numpy as np
import pytest

from skirm import InvalidParameterError
from skirm.metrics import evaluate

METRICS = ["ndcg@10", "map", "mrr", "P@5"]


def _rows(seed=0, n=300, ties=True):
    rng = np.random.default_rng(seed)
    return {
        "qid": rng.integers(0, 25, n).astype(str),
        "rel": rng.integers(0, 3, n),
        "score": rng.random(n).round(2 if ties else 12),
        "weight": np.ones(n),
    }


def _frames(rows):
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    return {
        "pandas": pd.DataFrame(rows),
        "polars": pl.DataFrame(rows),
        "polars lazy": pl.DataFrame(rows).lazy(),
        "pyarrow": pa.table(rows),
    }


def test_frames_with_column_names_give_the_numbers_of_the_arrays():
    rows = _rows()
    want = evaluate(rows["rel"], rows["score"], groups=rows["qid"], metrics=METRICS)
    for library, frame in _frames(rows).items():
        got = evaluate(frame, METRICS, y_true="rel", y_score="score", groups="qid")
        assert got.means == want.means, library
        np.testing.assert_array_equal(got.group_ids, want.group_ids)
        for name in METRICS:
            np.testing.assert_array_equal(got.per_query[name], want.per_query[name])
        by_keyword = evaluate(
            frame,
            y_true="rel",
            y_score="score",
            groups="qid",
            sample_weight="weight",
            metrics=METRICS,
            ties="first",
        )
        first = evaluate(
            rows["rel"], rows["score"], groups=rows["qid"], metrics=METRICS,
            ties="first", sample_weight=rows["weight"],
        )  # fmt: skip
        assert by_keyword.means == first.means, library


def test_arrays_by_keyword_still_work():
    rows = _rows(1)
    want = evaluate(rows["rel"], rows["score"], groups=rows["qid"])
    got = evaluate(y_true=rows["rel"], y_score=rows["score"], groups=rows["qid"])
    assert got.means == want.means


def test_a_2d_frame_of_labels_is_still_a_matrix():
    import pandas as pd

    y_true = pd.DataFrame([[2, 0, 1], [0, 1, 0]])
    y_score = pd.DataFrame([[0.9, 0.8, 0.1], [0.3, 0.2, 0.1]])
    want = evaluate(y_true.to_numpy(), y_score.to_numpy(), metrics=["ndcg"])
    assert evaluate(y_true, y_score, metrics=["ndcg"]).means == want.means


def test_unknown_column_is_named_with_the_frames_columns():
    frame = _frames(_rows())["polars"]
    with pytest.raises(
        InvalidParameterError,
        match=r"^`y_score` must name a column .*got 'scores'; its columns: "
        r"\['qid', 'rel', 'score', 'weight'\]",
    ):
        evaluate(frame, ["map"], y_true="rel", y_score="scores", groups="qid")


def test_frame_with_array_arguments_is_refused():
    rows = _rows()
    frame = _frames(rows)["pandas"]
    with pytest.raises(InvalidParameterError, match=r"^`y_true` must name a column"):
        evaluate(frame, ["map"], y_true=rows["rel"], y_score="score", groups="qid")
    with pytest.raises(
        InvalidParameterError, match=r"^`groups` must name a column.*got numpy"
    ):
        evaluate(frame, ["map"], y_true="rel", y_score="score", groups=rows["qid"])


def test_frame_without_column_names_says_how_to_name_them():
    frame = _frames(_rows())["pyarrow"]
    with pytest.raises(InvalidParameterError, match=r"needs its columns named: y_tr"):
        evaluate(frame, ["map"])


def test_column_names_without_a_frame_say_to_pass_it():
    with pytest.raises(InvalidParameterError, match=r"pass the frame that holds it"):
        evaluate(y_true="rel", y_score="score", groups="qid")


def test_arguments_given_twice_are_refused():
    rows = _rows()
    with pytest.raises(InvalidParameterError, match=r"^`y_true` given twice"):
        evaluate(rows["rel"], rows["score"], y_true=rows["rel"], groups=rows["qid"])
    frame = _frames(rows)["pandas"]
    with pytest.raises(InvalidParameterError, match=r"^`metrics` given twice"):
        evaluate(
            frame, ["map"], y_true="rel", y_score="score", groups="qid", metrics="mrr"
        )
    with pytest.raises(InvalidParameterError, match=r"^`y_score` must name the scores"):
        evaluate(frame, ["map"], y_true="rel", groups="qid")


def test_every_metric_function_takes_a_frame_with_column_names():
    from skirm.metrics._registry import SPECS

    rows = _rows(2, ties=False)  # compat refuses average ties
    frames = _frames(rows)
    checked = 0
    for spec in SPECS:
        function = spec.function
        want = function(rows["rel"], rows["score"], groups=rows["qid"])
        for library in ("pandas", "pyarrow"):
            got = function(frames[library], y_true="rel", y_score="score", groups="qid")
            assert got == want or (np.isnan(got) and np.isnan(want)), spec.name
            checked += 1
    assert checked == 2 * len(SPECS) > 40


def test_metric_function_with_a_frame_refuses_a_second_positional():
    from skirm.metrics import ndcg_score

    frame = _frames(_rows())["pandas"]
    with pytest.raises(InvalidParameterError, match=r"^ndcg_score\(\) takes the fr"):
        ndcg_score(frame, "score", y_true="rel", groups="qid")
    with pytest.raises(InvalidParameterError, match=r"its columns: \['qid', 'rel'"):
        ndcg_score(frame, y_true="rel", y_score="s", groups="qid", k=3)
