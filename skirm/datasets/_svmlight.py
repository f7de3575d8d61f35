"""Load learning-to-rank data in the SVMlight / LETOR text format."""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
from typing import TYPE_CHECKING, overload

import numpy as np
from sklearn.utils import Bunch

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import BOOLEAN, Instance, Param, Satisfies, checked, describe

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import DTypeLike, NDArray
    from scipy.sparse import csr_matrix

    from skirm._typing import FloatArray, PathOrFile

_DOCID = re.compile(rb"docid\s*=\s*(\S+)")

#: Where data is read from: a path, or a file opened for reading.
SOURCE = Param(
    "f",
    Instance((str, os.PathLike), "a path"),
    Satisfies(lambda source: hasattr(source, "read"), "a file", rejected=(3,)),
    expected="a path or a file opened for reading",
)
#: Whether the arrays are returned as a tuple rather than a Bunch.
RETURN_X_Y = Param("return_X_y", BOOLEAN)


def _read_bytes(source, name):
    """The raw bytes of a path (``.gz``/``.bz2`` opened transparently) or file."""
    SOURCE(source, name)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        opener = {".gz": gzip.open, ".bz2": bz2.open}.get(
            os.path.splitext(path)[1], open
        )
        try:
            with opener(path, "rb") as handle:
                return handle.read(), path
        except FileNotFoundError:
            raise FileNotFoundError(f"`{name}`: no such file {path!r}") from None
    data = source.read()
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes):
        raise InvalidParameterError(
            f"`{name}` must be a path or a file opened for reading, got a file "
            f"whose read() returned {describe(data)}"
        )
    return data, getattr(source, "name", f"<{name}>")


def _data_lines(data):
    """The lines that hold a row: what is left after '#' is not blank."""
    lines = data.splitlines()
    return [line for line in lines if line.split(b"#", 1)[0].strip()]


def _doc_ids(lines):
    """``docid = ...`` from each row's comment, or None if no row has one."""
    found = [_DOCID.search(line.partition(b"#")[2]) for line in lines]
    if not any(found):
        return None
    missing = [i for i, match in enumerate(found) if match is None]
    if missing:
        raise InvalidInputError(
            f"some rows carry a '#docid = ...' comment and others do not: the "
            f"row {missing[0] + 1} (counting data rows from 1) has none"
        )
    return np.array([match.group(1).decode("utf-8") for match in found], dtype=object)


def _read_query_sizes(source, n_samples):
    """Group sizes from a LightGBM ``.query`` file: one positive integer a line."""
    data, label = _read_bytes(source, "query_file")
    sizes = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        try:
            size = int(text)
        except ValueError:
            size = -1
        if size < 1:
            raise InvalidInputError(
                f"{label}:{number}: expected a positive integer group size, got "
                f"{text!r}"
            )
        sizes.append(size)
    sizes = np.asarray(sizes, dtype=np.int64)
    if int(sizes.sum()) != n_samples:
        raise InvalidInputError(
            f"{label}: the group sizes sum to {int(sizes.sum())} but the data file "
            f"has {n_samples} rows"
        )
    return np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)


@overload
def load_svmlight_ranking(
    f: PathOrFile,
    *,
    query_file: PathOrFile | None = ...,
    n_features: int | None = ...,
    zero_based: bool | Literal["auto"] = ...,
    dtype: DTypeLike = ...,
    return_X_y: Literal[False] = ...,
) -> Bunch: ...


@overload
def load_svmlight_ranking(
    f: PathOrFile,
    *,
    query_file: PathOrFile | None = ...,
    n_features: int | None = ...,
    zero_based: bool | Literal["auto"] = ...,
    dtype: DTypeLike = ...,
    return_X_y: Literal[True],
) -> tuple[csr_matrix, FloatArray, NDArray[Any]]: ...


@overload
def load_svmlight_ranking(
    f: PathOrFile,
    *,
    query_file: PathOrFile | None = ...,
    n_features: int | None = ...,
    zero_based: bool | Literal["auto"] = ...,
    dtype: DTypeLike = ...,
    return_X_y: bool,
) -> Bunch | tuple[csr_matrix, FloatArray, NDArray[Any]]: ...


@checked(f=SOURCE, return_X_y=RETURN_X_Y)
def load_svmlight_ranking(
    f: PathOrFile,
    *,
    query_file: PathOrFile | None = "auto",
    n_features: int | None = None,
    zero_based: bool | Literal["auto"] = "auto",
    dtype: DTypeLike = np.float64,
    return_X_y: bool = False,
) -> Bunch | tuple[csr_matrix, FloatArray, NDArray[Any]]:
    """Load a learning-to-rank data set in SVMlight / LETOR format.

    Reads files whose rows look like ``label qid:Q 1:v 2:v ... #docid = D``
    (LETOR, MSLR-WEB, Yahoo! LTR, the SVMrank and XGBoost ranking demos) and
    LightGBM's files without ``qid:``, whose queries come from a separate
    ``.query`` file of group *sizes*, one per line, in row order. Either way
    the queries are returned as ``groups``, one query label per row: the form
    every skirm function, scorer and splitter takes.

    Parameters
    ----------
    f : str, path-like or file object
        The data file. Paths ending in ``.gz`` or ``.bz2`` are decompressed.
    query_file : "auto", str, path-like, file object or None, default="auto"
        LightGBM-style group sizes. ``"auto"`` reads ``<f>.query`` (the name
        LightGBM looks for) when the data file has no ``qid:`` and that file
        exists. ``None`` never reads one. Giving a query file for data that
        carries ``qid:`` raises ValueError.
    n_features : int, default=None
        Number of features; inferred from the file if None. Pass it when a
        training and a test file must have the same width.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0, as in
        :func:`sklearn.datasets.load_svmlight_file`.
    dtype : numpy dtype, default=np.float64
        The dtype of ``X``.
    return_X_y : bool, default=False
        If True, return ``(X, y, groups)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With attributes

        - ``data``: scipy.sparse CSR matrix of shape (n_samples, n_features),
          the features (call ``.toarray()`` for a dense array);
        - ``target``: ndarray of shape (n_samples,), the relevance labels;
        - ``groups``: ndarray of shape (n_samples,), the query of each row
          (the ``qid`` values, or ``0, 1, ...`` numbering the groups of a
          ``.query`` file);
        - ``doc_ids``: ndarray of str objects of shape (n_samples,), the
          ``#docid = ...`` of each row, or None when the file has none.

    (X, y, groups) : tuple
        If ``return_X_y`` is True.

    Raises
    ------
    InvalidInputError
        For a malformed row, a data file without queries (no ``qid:`` and no
        query file), group sizes that do not add up to the number of rows, or
        ``#docid`` comments on some rows only (a ``ValueError``).

    See Also
    --------
    sklearn.datasets.load_svmlight_file : The reader underneath.
    make_ranking : Synthetic data of the same shape.

    Examples
    --------
    >>> import io
    >>> from skirm.datasets import load_svmlight_ranking
    >>> text = b'''2 qid:10 1:0.5 2:1.0 #docid = d1
    ... 0 qid:10 1:0.1 2:0.0 #docid = d2
    ... 1 qid:11 1:0.9 2:0.3 #docid = d3
    ... '''
    >>> data = load_svmlight_ranking(io.BytesIO(text))
    >>> data.data.shape, data.target.tolist(), data.groups.tolist()
    ((3, 2), [2.0, 0.0, 1.0], [10, 10, 11])
    >>> data.doc_ids.tolist()
    ['d1', 'd2', 'd3']

    A LightGBM-style file: no ``qid:``, group sizes in a separate file.

    >>> sizes = io.BytesIO(b"2\\n1\\n")
    >>> X, y, groups = load_svmlight_ranking(
    ...     io.BytesIO(b"1 1:3\\n0 2:1\\n1 1:2\\n"), query_file=sizes,
    ...     return_X_y=True)
    >>> groups.tolist()
    [0, 0, 1]
    """
    from sklearn.datasets import load_svmlight_file

    data, label = _read_bytes(f, "f")
    try:
        X, y, qid = load_svmlight_file(
            io.BytesIO(data),
            n_features=n_features,
            dtype=dtype,
            zero_based=zero_based,
            query_id=True,
        )
    except ValueError as exc:
        raise InvalidInputError(f"{label}: not a valid SVMlight file: {exc}") from exc
    n_samples = X.shape[0]
    if n_samples == 0:
        raise InvalidInputError(f"{label}: the file holds no data rows")
    lines = _data_lines(data)
    if len(lines) != n_samples:  # pragma: no cover - guards a parser mismatch
        raise InvalidInputError(
            f"{label}: found {len(lines)} data lines but the parser read "
            f"{n_samples} rows"
        )
    has_qid = qid.shape[0] == n_samples
    if qid.shape[0] not in (0, n_samples):  # pragma: no cover - parser-dependent
        raise InvalidInputError(f"{label}: only some rows carry a 'qid:'")

    if isinstance(query_file, str) and query_file == "auto":
        candidate = (
            os.fspath(f) + ".query" if isinstance(f, (str, os.PathLike)) else None
        )
        query_file = (
            candidate
            if not has_qid and candidate is not None and os.path.isfile(candidate)
            else None
        )
    elif has_qid and query_file is not None:
        raise InvalidParameterError(
            f"`query_file` must be None or 'auto' for data with 'qid:' columns "
            f"({label}), got {describe(query_file)}"
        )

    if has_qid:
        groups = qid
    elif query_file is not None:
        groups = _read_query_sizes(query_file, n_samples)
    else:
        raise InvalidParameterError(
            f"{label}: the rows carry no 'qid:' and no `query_file` was found; pass "
            "`query_file` (LightGBM-style group sizes, one per line)"
        )
    doc_ids = _doc_ids(lines)
    if return_X_y:
        return X, y, groups
    return Bunch(data=X, target=y, groups=groups, doc_ids=doc_ids)
