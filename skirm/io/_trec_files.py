"""TREC qrels and run files: vectorised readers and a writer.

A qrels line is ``qid iter docno rel``; a run line is
``qid iter docno rank score run_id [ignored...]``. Blank lines are skipped,
and so are comment lines as trec_eval 10.0 reads them: in a run, a line whose
first non-blank character is ``#``; in qrels, a line starting with ``#``
(a ``#`` inside a docno is kept). A docno may appear twice for a query: as in
trec_eval, that is an error only where the query is evaluated (see
:func:`skirm.trec.evaluate_run`). The readers tokenise the whole file with a
few vectorised passes over its bytes and parse plain decimal numbers with
numpy as well: no Python object is created per line, and id strings are
built only when asked for.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError
from skirm._params import NONE, Interval, Param, Satisfies, checked
from skirm.io._qrels_file import read_qrels_rows
from skirm.io._records import Qrels, Run
from skirm.io._run_blocks import run_block, run_table
from skirm.io._sources import is_path
from skirm.io._text import empty_or_spaced, read_bytes

if TYPE_CHECKING:
    from typing import IO

    from numpy.typing import ArrayLike

    from skirm._typing import PathOrFile

__all__ = ["read_qrels", "read_run", "write_run"]

#: The run id written in the last column: one word.
WRITTEN_RUN_ID = Param(
    "run_id",
    Satisfies(
        lambda run_id: (
            isinstance(run_id, str)
            and run_id != ""
            and not any(c.isspace() for c in run_id)
        ),
        "a non-empty word",
        rejected=("", "my run", 3),
    ),
)
#: The documents written per query (None: all).
MAX_DOCS = Param(
    "max_docs",
    Interval(int, 1, closed="left"),
    NONE,
)
#: Where a run is written: a path, or an open text file.
OUTPUT = Param(
    "file",
    Satisfies(
        lambda file: is_path(file) or hasattr(file, "write"),
        "a path or an open text file",
        rejected=(3,),
    ),
)


def read_qrels(source: PathOrFile) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel`` per line).

    Parameters
    ----------
    source : str, path-like or file
        A path (``.gz`` is decompressed transparently) or an open file (text
        or binary).

    Returns
    -------
    qrels : Qrels
        Column arrays ``query_ids``, ``doc_ids`` (strings) and ``labels``
        (int64); ``qrels.to_frame()`` gives a pandas DataFrame.

    Raises
    ------
    TrecFormatError
        For a malformed line: a message ``file:line: ...`` with the offending
        text and what was expected (four fields, an integer label). A label
        may be written as a decimal with a zero fraction (``1.0``). A docno
        twice in a query is an error only when that query is evaluated (see
        :func:`skirm.trec.evaluate_run`).

    Examples
    --------
    >>> import io
    >>> from skirm.io import read_qrels
    >>> qrels = read_qrels(io.StringIO("# topic 1\\n1 0 d1 2\\n1 0 d2 0\\n"))
    >>> qrels.doc_ids.tolist(), qrels.labels.tolist()
    (['d1', 'd2'], [2, 0])
    """
    return read_qrels_rows(source)


def read_run(source: PathOrFile) -> Run:
    """Read a TREC run file (``qid iter docno rank score run_id`` per line).

    The ``iter`` and ``rank`` columns are ignored (documents are ranked by
    score) and so is anything after ``run_id``. The run id is taken from the
    last line, as trec_eval does.

    Parameters
    ----------
    source : str, path-like or file
        A path (``.gz`` is decompressed transparently) or an open file (text
        or binary).

    Returns
    -------
    run : Run
        Column arrays ``query_ids``, ``doc_ids`` (strings), ``scores``
        (float64) and the ``run_id``; ``run.to_frame()`` gives a DataFrame.

    Raises
    ------
    TrecFormatError
        For a malformed line: a message ``file:line: ...`` with the offending
        text and what was expected (at least six fields, a numeric score).

    Examples
    --------
    >>> import io
    >>> from skirm.io import read_run
    >>> run = read_run(io.StringIO("1 Q0 d1 1 2.5 bm25\\n1 Q0 d2 2 1.0 bm25\\n"))
    >>> run.run_id, run.scores.tolist()
    ('bm25', [2.5, 1.0])
    """
    return run_of_bytes(*read_bytes(source))


def run_of_bytes(data, n, name) -> Run:
    """The run of a whole file's bytes (see :func:`~skirm.io._text.read_bytes`)."""
    run = run_block(run_table(data, n, name, 0), name)
    if run.run_id is None:  # no line
        run.run_id = ""
    return run


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


@checked(file=OUTPUT, run_id=WRITTEN_RUN_ID, max_docs=MAX_DOCS)
def write_run(
    file: str | os.PathLike[str] | IO[str],
    query_ids: ArrayLike,
    doc_ids: ArrayLike,
    scores: ArrayLike,
    *,
    run_id: str = "skirm",
    max_docs: int | None = None,
) -> None:
    """Write scored documents as a TREC run, ranked by score within each query.

    Rows are sorted by query id, then score descending, then docno descending
    (trec_eval's tie order), and given ranks 1, 2, ... per query.

    Parameters
    ----------
    file : str, path-like or file
        Output path (``.gz`` is compressed) or an open text file.
    query_ids, doc_ids : array-like of shape (n,)
        Query and document id of each row (e.g. a model's ``groups`` and the
        ids of ``X``'s rows). Converted to strings.
    scores : array-like of shape (n,)
        Scores, e.g. ``model.predict(X)``.
    run_id : str, default="skirm"
        The run id written in the last column. Must not contain whitespace.
    max_docs : int, default=None
        Keep only the top ``max_docs`` documents of each query.

    Examples
    --------
    >>> import io
    >>> from skirm.io import write_run
    >>> out = io.StringIO()
    >>> write_run(out, ["q1", "q1", "q2"], ["d1", "d2", "d7"], [0.2, 0.9, 0.5])
    >>> print(out.getvalue(), end="")
    q1 Q0 d2 1 0.9 skirm
    q1 Q0 d1 2 0.2 skirm
    q2 Q0 d7 1 0.5 skirm
    """
    run = Run(query_ids, doc_ids, scores, run_id=run_id)
    for name in ("query_ids", "doc_ids"):
        values = getattr(run, name)
        bad = empty_or_spaced(values)
        if bad.any():
            raise InvalidInputError(
                f"`{name}` must be non-empty strings without whitespace, got "
                f"{str(values[np.argmax(bad)])!r}"
            )
    _, q_codes = _factorize(run.query_ids)
    _, d_codes = _factorize(run.doc_ids)
    order = np.lexsort((-d_codes, -run.scores, q_codes))
    q = q_codes[order]
    new = np.ones(q.shape[0], dtype=bool)
    new[1:] = q[1:] != q[:-1]
    starts = np.flatnonzero(new)
    ranks = (
        np.arange(q.shape[0])
        - np.repeat(starts, np.diff(np.append(starts, q.shape[0])))
        + 1
    )
    if max_docs is not None:
        keep = ranks <= max_docs
        order, ranks = order[keep], ranks[keep]
    qs = run.query_ids[order].tolist()
    ds = run.doc_ids[order].tolist()
    ss = [repr(s) for s in run.scores[order].tolist()]
    rs = ranks.tolist()
    text = "".join(
        f"{a} Q0 {b} {r} {s} {run_id}\n"
        for a, b, r, s in zip(qs, ds, rs, ss, strict=True)
    )
    if is_path(file):
        path = os.fspath(file)
        if path.endswith(".gz"):
            import gzip  # for a .gz path only

            with gzip.open(path, "wt", encoding="utf-8") as fh:
                fh.write(text)
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
    else:  # an open text file
        file.write(text)


def _factorize(values):
    """Sorted unique values and the code of each value."""
    if values.shape[0] == 0:
        return values, np.zeros(0, dtype=np.intp)
    uniques, codes = np.unique(values, return_inverse=True)
    return uniques, codes.reshape(-1)
