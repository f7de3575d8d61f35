"""trec_eval ``-Z``'s z-scores file, read: :class:`ZScores` and its reader.

A z-scores file holds, per query and measure, the mean and standard
deviation of that measure over a reference set of runs (``qid measure mean
stddev`` per line). :func:`skirm.trec.evaluate_run` turns each per-query
value ``v`` into ``(v - mean) / stddev`` before the summary is taken, so the
summary of a mean measure is the mean z-score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm.io._text import Table, read_bytes

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

    from skirm._typing import PathOrFile

__all__ = ["MISSING_ZSCORE", "ZScores", "read_zscores"]

#: trec_eval's value for a query or measure missing from the z-scores file.
MISSING_ZSCORE = -1000000.0


class ZScores:
    """Reference means and standard deviations per (query, measure).

    Parameters
    ----------
    query_ids, measures : array-like of str, shape (n,)
        The query and the trec_eval output name (``map``, ``P_10``,
        ``iprec_at_recall_0.10`` ...) of each line.
    means, stddevs : array-like of float, shape (n,)
        The reference mean and standard deviation.

    Examples
    --------
    >>> from skirm.trec import ZScores
    >>> z = ZScores(["q1", "q1"], ["map", "P_10"], [0.25, 0.3], [0.1, 0.0])
    >>> z.convert(["q1", "q2"], "map", [0.45, 0.45]).tolist()
    [2.0, -1000000.0]
    """

    def __init__(
        self,
        query_ids: ArrayLike,
        measures: ArrayLike,
        means: ArrayLike,
        stddevs: ArrayLike,
    ) -> None:
        columns: dict[str, NDArray[Any]] = {}
        for name, values in (("query_ids", query_ids), ("measures", measures)):
            arr = np.asarray(values)
            if arr.ndim != 1 or arr.dtype.kind not in "UO":
                raise InvalidParameterError(
                    f"`{name}` must be a 1-D sequence of str, got "
                    f"{type(values).__name__} with shape {arr.shape}"
                )
            columns[name] = arr.astype(str)
        for name, values in (("means", means), ("stddevs", stddevs)):
            arr = np.asarray(values)
            if arr.ndim != 1 or arr.dtype.kind not in "biuf":
                raise InvalidParameterError(
                    f"`{name}` must be a 1-D sequence of numbers, got dtype "
                    f"{arr.dtype} with shape {arr.shape}"
                )
            columns[name] = arr.astype(np.float64)
        lengths = {name: col.shape[0] for name, col in columns.items()}
        if len(set(lengths.values())) > 1:
            raise InvalidInputError(f"columns must have the same length, got {lengths}")
        order = np.lexsort((columns["query_ids"], columns["measures"]))
        self.measures = columns["measures"][order]
        self.query_ids = columns["query_ids"][order]
        self.means = columns["means"][order]
        self.stddevs = columns["stddevs"][order]
        same = (self.measures[1:] == self.measures[:-1]) & (
            self.query_ids[1:] == self.query_ids[:-1]
        )
        if same.any():
            i = int(np.argmax(same))
            raise InvalidInputError(
                "each (query, measure) must appear once in the z-scores, got "
                f"{str(self.query_ids[i])!r} {str(self.measures[i])!r} twice"
            )

    def __len__(self) -> int:
        return self.measures.shape[0]

    def __repr__(self) -> str:
        return (
            f"ZScores(n_lines={len(self)}, "
            f"n_queries={np.unique(self.query_ids).shape[0]})"
        )

    def convert(
        self, query_ids: ArrayLike, measure: str, values: ArrayLike
    ) -> NDArray[np.float64]:
        """The z-scores of one measure's per-query values.

        A query absent from the file, or a measure absent for that query,
        gives ``MISSING_ZSCORE`` (-1000000), as trec_eval does; so does a
        zero standard deviation unless the value equals the mean (then 0).

        Parameters
        ----------
        query_ids : array-like of str, shape (n_queries,)
        measure : str
            The output name, e.g. ``"P_10"``.
        values : array-like of float, shape (n_queries,)

        Returns
        -------
        z : ndarray of float64, shape (n_queries,)
        """
        query_ids = np.asarray(query_ids).astype(str)
        values = np.asarray(values, dtype=np.float64)
        lo = np.searchsorted(self.measures, measure, side="left")
        hi = np.searchsorted(self.measures, measure, side="right")
        qids = self.query_ids[lo:hi]
        out = np.full(values.shape[0], MISSING_ZSCORE)
        if hi == lo:
            return out
        pos = np.minimum(np.searchsorted(qids, query_ids), qids.shape[0] - 1)
        found = qids[pos] == query_ids
        mean = self.means[lo:hi][pos]
        sd = self.stddevs[lo:hi][pos]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd != 0, (values - mean) / np.where(sd != 0, sd, 1.0), 0.0)
        ok = found & ((sd != 0) | (values == mean))
        out[ok] = z[ok]
        return out


# Public as skirm.trec.ZScores (the evaluation's -Z), where users meet it.
ZScores.__module__ = "skirm.trec"


def read_zscores(source: PathOrFile) -> ZScores:
    """Read a trec_eval z-scores file (``qid measure mean stddev`` per line).

    Parameters
    ----------
    source : str, path-like or file
        A path (``.gz`` is decompressed transparently) or an open file.

    Returns
    -------
    zscores : ZScores

    Raises
    ------
    TrecFormatError
        For a malformed line (``file:line: ...``).
    InvalidInputError
        For a (query, measure) pair given twice (both are ``ValueError``).

    Examples
    --------
    >>> import io
    >>> from skirm.trec import read_zscores
    >>> z = read_zscores(io.StringIO("301 map 0.1212 0.1545\\n301 P_10 0.4 0.3\\n"))
    >>> z
    ZScores(n_lines=2, n_queries=1)
    """
    data, n, name = read_bytes(source)
    table = Table(data, n, name, (0, 1, 2, 3))
    table.check_counts(4, 4, "4 fields: qid measure mean stddev")
    means = table.numbers(2, np.float64, "expected a numeric mean")
    stddevs = table.numbers(3, np.float64, "expected a numeric standard deviation")
    return ZScores(table.tokens(0).strings(), table.tokens(1).strings(), means, stddevs)
