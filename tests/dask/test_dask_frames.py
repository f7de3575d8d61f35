"""``skirm.dask.evaluate(rows, metrics, y_true="label", ...)``: a Dask
DataFrame passed first, its columns named; the numbers of the columns
passed as Dask Series, and errors that list the frame's columns."""

import numpy as np
import pytest

from skirm import InvalidParameterError

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

import skirm.dask  # noqa: E402

METRICS = ["ndcg@10", "map", "mrr"]


def _rows(seed=0, n=400):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "qid": rng.integers(0, 30, n).astype(str),
            "label": rng.integers(0, 3, n),
            "score": rng.random(n),
        }
    )
    return dd.from_pandas(frame, npartitions=3)


def test_dask_frame_with_column_names_equals_its_series():
    rows = _rows()
    want = skirm.dask.evaluate(
        rows["label"], rows["score"], groups=rows["qid"], metrics=METRICS
    )
    got = skirm.dask.evaluate(
        rows, METRICS, y_true="label", y_score="score", groups="qid"
    )
    assert got.means == want.means
    for name in METRICS:
        np.testing.assert_array_equal(got.per_query[name], want.per_query[name])


def test_dask_frame_unknown_column_lists_the_columns():
    with pytest.raises(
        InvalidParameterError,
        match=r"^`groups` must name a column .*got 'query'; its columns: "
        r"\['qid', 'label', 'score'\]",
    ):
        skirm.dask.evaluate(
            _rows(), METRICS, y_true="label", y_score="score", groups="query"
        )


def test_dask_frame_without_groups_is_refused():
    with pytest.raises(InvalidParameterError, match=r"^`groups` is required"):
        skirm.dask.evaluate(_rows(), METRICS, y_true="label", y_score="score")
