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

import gzip
import io
import os

import numpy as np

from skirm.io._tokens import PAD, Tokens, equal_key_pairs, mix, parse_decimals

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_run"]


class TrecFormatError(ValueError):
    """Malformed TREC input; the message starts with ``file:line``."""


# --------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------


class _Records:
    _columns: tuple = ()
    _frame_columns: tuple = ()
    _query_ids = _doc_ids = _q = _d = None

    @property
    def query_ids(self):
        """Query id of each row (str)."""
        if self._query_ids is None:
            self._query_ids = self._q.strings()
        return self._query_ids

    @property
    def doc_ids(self):
        """Document id of each row (str)."""
        if self._doc_ids is None:
            self._doc_ids = self._d.strings()
        return self._doc_ids

    def _q_tokens(self):
        if self._q is None:
            self._q = Tokens.from_strings(self._query_ids)
        return self._q

    def _d_tokens(self):
        if self._d is None:
            self._d = Tokens.from_strings(self._doc_ids)
        return self._d

    def __len__(self) -> int:
        q = self._query_ids if self._query_ids is not None else self._q
        return len(q)

    def to_frame(self):
        """The records as a pandas DataFrame, one row per line.

        The columns have ir_measures' names, the first ones
        :func:`skirm.io.as_qrels` and :func:`skirm.io.as_run` look for:
        ``query_id``, ``doc_id``, then ``relevance`` (qrels) or ``score``
        and ``run_id`` (runs), so ``as_run(run.to_frame())`` gives the run
        back. Requires pandas (``pip install skirm[pandas]``).
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                f"{type(self).__name__}.to_frame requires pandas; install it with "
                "`pip install skirm[pandas]`"
            ) from exc
        return pd.DataFrame(
            {
                column: getattr(self, name)
                for name, column in zip(self._columns, self._frame_columns, strict=True)
            }
        )

    def _query_codes(self):
        """Cached ``(codes, ids)``: sorted distinct query ids and each row's
        index into them. Contiguous rows of a query are grouped with exact
        byte comparisons; only one id per block is turned into a string."""
        cache = self.__dict__.get("_qcodes")
        if cache is None:
            tok = self._q_tokens()
            n = len(tok)
            if n == 0:
                cache = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=str))
            else:
                same = tok.adjacent_equal()
                starts = np.flatnonzero(np.concatenate(([True], ~same)))
                ids, inverse = np.unique(tok.strings(starts), return_inverse=True)
                sizes = np.diff(np.append(starts, n))
                cache = (np.repeat(inverse.reshape(-1), sizes), ids)
            self.__dict__["_qcodes"] = cache
        return cache

    def _keys(self):
        """Cached 64-bit hash of each row's (query, docno). Equal keys are
        only candidates; callers verify them byte for byte."""
        key = self.__dict__.get("_keycache")
        if key is None:
            codes, _ = self._query_codes()
            key = mix(self._d_tokens().hash(), codes)
            self.__dict__["_keycache"] = key
        return key

    def _factorized(self):
        """Cached ``(query codes, query ids, doc codes, doc ids)``; ids sorted."""
        cache = self.__dict__.get("_factors")
        if cache is None:
            q_codes, q_ids = self._query_codes()
            d_ids, d_codes = _factorize(self.doc_ids)
            cache = (q_codes, q_ids, d_codes, d_ids)
            self.__dict__["_factors"] = cache
        return cache


class Qrels(_Records):
    """Relevance judgements: one row per ``(query, document)`` pair.

    Parameters
    ----------
    query_ids, doc_ids : array-like of str, shape (n,)
        Query and document ids.
    labels : array-like of int, shape (n,)
        Relevance levels. Negative values mean "judged non-relevant" (in the
        pool but without a usable judgement).

    Attributes
    ----------
    query_ids, doc_ids : ndarray of str
    labels : ndarray of int64

    Notes
    -----
    A docno may be listed twice for a query, as in a file; like trec_eval,
    :func:`skirm.trec.evaluate_run` then raises ValueError if that query is
    evaluated.

    Examples
    --------
    >>> from skirm.io import Qrels
    >>> qrels = Qrels(["q1", "q1"], ["d1", "d2"], [1, 0])
    >>> len(qrels), qrels.labels.tolist()
    (2, [1, 0])
    """

    _columns = ("query_ids", "doc_ids", "labels")
    _frame_columns = ("query_id", "doc_id", "relevance")

    def __init__(self, query_ids, doc_ids, labels):
        self._query_ids = _as_str_array(query_ids, "query_ids")
        self._doc_ids = _as_str_array(doc_ids, "doc_ids")
        labels = np.asarray(labels)
        if labels.dtype.kind == "f" and np.all(labels == np.round(labels)):
            labels = labels.astype(np.int64)
        if labels.dtype.kind not in "biu":
            raise TypeError(
                f"`labels` must hold integer relevance levels, got dtype {labels.dtype}"
            )
        self.labels = labels.astype(np.int64, copy=False).reshape(-1)
        _check_lengths(self, ("query_ids", "doc_ids", "labels"))

    def __repr__(self):
        return (
            f"Qrels(n_judgments={len(self)}, "
            f"n_queries={self._query_codes()[1].shape[0]})"
        )


class Run(_Records):
    """A ranked retrieval run: one scored document per row.

    Parameters
    ----------
    query_ids, doc_ids : array-like of str, shape (n,)
        Query and document ids.
    scores : array-like of float, shape (n,)
        Retrieval scores; higher ranks first.
    run_id : str, default="skirm"
        The run's name (the last column of a run file).

    Attributes
    ----------
    query_ids, doc_ids : ndarray of str
    scores : ndarray of float64
    run_id : str

    Notes
    -----
    A docno may be listed twice for a query, as in a file; like trec_eval,
    :func:`skirm.trec.evaluate_run` then raises ValueError if that query is
    evaluated and both copies are within its ``max_docs`` (it never counts a
    document twice).

    Examples
    --------
    >>> from skirm.io import Run
    >>> run = Run(["q1", "q1"], ["d1", "d2"], [0.5, 1.5], run_id="bm25")
    >>> run
    Run(run_id='bm25', n_rows=2, n_queries=1)
    """

    _columns = ("query_ids", "doc_ids", "scores")
    _frame_columns = ("query_id", "doc_id", "score")

    def __init__(self, query_ids, doc_ids, scores, run_id="skirm"):
        self._query_ids = _as_str_array(query_ids, "query_ids")
        self._doc_ids = _as_str_array(doc_ids, "doc_ids")
        scores = np.asarray(scores)
        if scores.dtype.kind not in "biuf":
            raise TypeError(f"`scores` must be real numbers, got dtype {scores.dtype}")
        self.scores = scores.astype(np.float64, copy=False).reshape(-1)
        if np.isnan(self.scores).any():
            raise ValueError("`scores` must not contain NaN")
        if not isinstance(run_id, str):
            raise TypeError(f"`run_id` must be a string, got {type(run_id).__name__}")
        self.run_id = run_id
        _check_lengths(self, ("query_ids", "doc_ids", "scores"))

    def to_frame(self):
        frame = super().to_frame()
        frame["run_id"] = self.run_id
        return frame

    to_frame.__doc__ = _Records.to_frame.__doc__

    def __repr__(self):
        return (
            f"Run(run_id={self.run_id!r}, n_rows={len(self)}, "
            f"n_queries={self._query_codes()[1].shape[0]})"
        )


def _as_str_array(values, name):
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind == "S":
        return np.char.decode(arr, "utf-8")
    if arr.dtype.kind != "U":
        arr = arr.astype(str)
    return arr


def _check_lengths(record, names):
    lengths = {name: len(getattr(record, name)) for name in names}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns must have the same length, got {lengths}")


def _factorize(values):
    """Sorted unique values and the code of each value."""
    if values.shape[0] == 0:
        return values, np.zeros(0, dtype=np.intp)
    uniques, codes = np.unique(values, return_inverse=True)
    return uniques, codes.reshape(-1)


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


def _read_bytes(source):
    """``(padded, n, name)``: the bytes of a path (``.gz`` transparently) or an
    open file in a bytearray of ``n + PAD`` bytes whose last ``PAD`` are 0."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        with open(name, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            padded = bytearray(size + PAD)
            view = memoryview(padded)
            n = 0
            while n < size:
                got = fh.readinto(view[n:size])
                if not got:
                    break
                n += got
            rest = fh.read()  # a file that grew while being read
        if rest:
            data = bytes(view[:n]) + rest
            padded, n = bytearray(data) + bytearray(PAD), len(data)
        view.release()
    elif hasattr(source, "read"):
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) else "<file>"
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        n = len(data)
        padded = bytearray(data) + bytearray(PAD)
    else:
        raise TypeError(
            "expected a path or an open file, got "
            f"{type(source).__name__}: {source!r:.60}"
        )
    if padded[:2] == b"\x1f\x8b":
        data = gzip.decompress(padded[:n])
        n = len(data)
        padded = bytearray(data) + bytearray(PAD)
    return padded, n, name


class _Table:
    """The tokens of a text file (fields separated by whitespace), with line
    numbers, found by a few vectorised passes over the bytes.

    The file is processed in chunks of whole lines that fit in the CPU cache;
    only the start and end offsets of the ``fields`` asked for are kept.
    """

    CHUNK = 1 << 20

    def __init__(self, data: bytearray, n: int, name: str, fields, indented=False):
        # ``indented``: a line whose first token starts with ``#`` is a
        # comment (trec_eval 10.0's rule for runs); otherwise only a ``#`` in
        # the line's first byte is (its rule for qrels).
        self.data = data  # n bytes of text, then PAD zero bytes
        self.n = n
        self.name = name
        self.buf = np.frombuffer(data, dtype=np.uint8)
        # Room for a line per 8 bytes (grown if a file has shorter lines).
        self._allocate(n // 8 + 2, fields)
        n_lines = n_data = 0
        c0 = 0
        while c0 < n:
            c1 = data.find(b"\n", min(c0 + self.CHUNK, n) - 1, n)
            c1 = n if c1 < 0 else c1 + 1
            a = self.buf[c0:c1]
            m = c1 - c0
            line_starts = np.flatnonzero(a[:-1] == 10) + 1
            line_starts = np.concatenate(([0], line_starts))
            sep = a <= 32  # space, tab, CR, LF and other control bytes separate
            # Token boundaries: starts and ends alternate in ``edges``.
            change = np.empty(m + 1, dtype=bool)
            change[0] = not sep[0]
            np.not_equal(sep[1:], sep[:-1], out=change[1:m])
            change[m] = not sep[m - 1]
            edges = np.flatnonzero(change)
            # A line starts on a token (a start edge) or inside a separator
            # run (the next edge is a start): half the edge index is the token.
            first = np.searchsorted(edges, line_starts) // 2
            counts = np.append(first[1:], edges.shape[0] // 2) - first
            last = edges.shape[0] - 2
            if indented and last >= 0:
                lead = a[edges[np.minimum(2 * first, last)]]
            else:
                lead = a[line_starts]
            data_line = (counts > 0) & (lead != ord("#"))
            keep = np.flatnonzero(data_line)
            first, counts = first[keep], counts[keep]
            if n_lines + line_starts.shape[0] > self.line_starts.shape[0]:
                self._allocate(2 * (n_lines + line_starts.shape[0]), fields)
            d0, d1 = n_data, n_data + keep.shape[0]
            for f in fields:
                at = np.minimum(2 * (first + f), last)  # short lines: checked later
                np.add(edges[at], c0, out=self.field_start[f][d0:d1])
                np.add(edges[at + 1], c0, out=self.field_end[f][d0:d1])
            np.add(
                line_starts, c0, out=self.line_starts[n_lines:][: line_starts.shape[0]]
            )
            np.add(keep, n_lines, out=self.lines[d0:d1])
            self.counts[d0:d1] = counts
            n_lines += line_starts.shape[0]
            n_data = d1
            c0 = c1
        self.line_starts = self.line_starts[:n_lines]
        self.lines = self.lines[:n_data]
        self.counts = self.counts[:n_data]
        for f in fields:
            self.field_start[f] = self.field_start[f][:n_data]
            self.field_end[f] = self.field_end[f][:n_data]

    def _allocate(self, size, fields):
        """(Re)allocate the per-line arrays with room for ``size`` lines."""
        old = getattr(self, "line_starts", None)
        arrays = {"line_starts": None, "lines": None, "counts": None}
        arrays.update({("start", f): None for f in fields})
        arrays.update({("end", f): None for f in fields})
        if old is None:
            self.field_start, self.field_end = {}, {}
        for key in arrays:
            new = np.empty(size, dtype=np.int64)
            if isinstance(key, tuple):
                target = self.field_start if key[0] == "start" else self.field_end
                if key[1] in target:
                    new[: target[key[1]].shape[0]] = target[key[1]]
                target[key[1]] = new
            else:
                if old is not None:
                    new[: getattr(self, key).shape[0]] = getattr(self, key)
                setattr(self, key, new)

    def text(self, line):
        s = int(self.line_starts[line])
        e = self.data.find(b"\n", s, self.n)
        e = self.n if e < 0 else e
        return self.data[s:e].decode("utf-8", "replace").rstrip("\r")

    def error(self, row, expected):
        line = int(self.lines[row])
        return TrecFormatError(
            f"{self.name}:{line + 1}: {expected}, got {self.text(line)!r}"
        )

    def check_counts(self, n_min, n_max, what, swapped=()):
        """Every line has ``n_min..n_max`` fields; a count in ``swapped`` (the
        other file's) suggests the qrels and the run were swapped."""
        bad = (self.counts < n_min) | (self.counts > n_max)
        if bad.any():
            row = int(np.argmax(bad))
            n = int(self.counts[row])
            few = "too few" if n < n_min else "too many"
            hint = " (did you swap QRELS and RUN?)" if n in swapped else ""
            raise self.error(row, f"{few} fields ({n}){hint}; expected {what}")

    def tokens(self, j) -> Tokens:
        """The j-th field of every data line."""
        return Tokens(self.buf, self.field_start[j], self.field_end[j])

    def numbers(self, j, dtype, expected):
        """The j-th field of every data line parsed as numbers: plain decimals
        by a vectorised parser, anything else (exponents, inf) by Python."""
        tokens = self.tokens(j)
        integer = dtype is np.int64
        values, ok = parse_decimals(tokens, integer=integer)
        rows = np.flatnonzero(~ok)
        if rows.shape[0]:
            parse = _parse_label if integer else float
            texts = tokens.strings(rows).tolist()
            parsed = []
            for row, text in zip(rows.tolist(), texts, strict=True):
                try:
                    parsed.append(parse(text))
                except (ValueError, OverflowError):
                    raise self.error(row, expected) from None
            values[rows] = parsed
        return values


def _parse_label(text):
    """An integer label, also written as a decimal with a zero fraction
    (``1.0``, ``2.``, ``-1.00``), which trec_eval's ``atol`` reads alike.
    Other fractions (``0.5``) are errors: ``atol`` would truncate them."""
    head, dot, tail = text.partition(".")
    if dot and tail.strip("0") == "" and head not in ("", "+", "-"):
        text = head
    return int(text)


def find_duplicate(record, rows):
    """The first repeated (query, docno) among ``record``'s ``rows``.

    Returns ``(first, second)`` row indices (``second`` the smallest row that
    repeats an earlier one) or None. Hashed, then verified byte for byte.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if rows.shape[0] < 2:
        return None
    every = rows.shape[0] == len(record)  # distinct rows: all of them
    codes = record._query_codes()[0]
    keys = record._keys()
    i, j = equal_key_pairs(keys if every else keys[rows])
    if not i.shape[0]:
        return None
    if not every:
        i, j = rows[i], rows[j]
    docs = record._d_tokens()
    truly = (codes[i] == codes[j]) & docs.equal(i, docs, j)
    if not truly.all():  # a hash collision: decide on the strings
        q_codes, _, d_codes, d_ids = record._factorized()
        key = q_codes[rows].astype(np.int64) * max(d_ids.shape[0], 1) + d_codes[rows]
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order[1:]] == key[order[:-1]])
        if not same.shape[0]:
            return None
        i, j = rows[order[same]], rows[order[same + 1]]
        truly = np.ones(i.shape[0], dtype=bool)
    first, second = np.minimum(i, j)[truly], np.maximum(i, j)[truly]
    k = int(np.argmin(second))
    return int(first[k]), int(second[k])


def duplicate_error(record, pair, what):
    """The ValueError for a repeated docno found by :func:`find_duplicate`."""
    first, second = pair
    doc = str(record._d_tokens().strings(np.array([second]))[0])
    query = str(record._q_tokens().strings(np.array([second]))[0])
    lines = record.__dict__.get("_lines")
    if lines is not None:
        where = f"{record._source}:{int(lines[second]) + 1}: "
        at = f"line {int(lines[first]) + 1}"
    else:
        where, at = "", f"row {first}"
    return ValueError(
        f"{where}duplicate docno {doc!r} for query {query!r} (first at {at}); "
        f"expected each docno once per evaluated query in {what}"
    )


def read_qrels(source) -> Qrels:
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
    ValueError
        For a malformed line: a message ``file:line: ...`` with the offending
        text and what was expected (four fields, an integer label). A label
        may be written as a decimal with a zero fraction (``1.0``).

    Examples
    --------
    >>> import io
    >>> from skirm.io import read_qrels
    >>> qrels = read_qrels(io.StringIO("# topic 1\\n1 0 d1 2\\n1 0 d2 0\\n"))
    >>> qrels.doc_ids.tolist(), qrels.labels.tolist()
    (['d1', 'd2'], [2, 0])
    """
    data, n, name = _read_bytes(source)
    table = _Table(data, n, name, (0, 2, 3))
    table.check_counts(4, 4, "4 fields: qid iter docno rel", swapped=(6,))
    qrels = Qrels.__new__(Qrels)
    qrels.labels = table.numbers(3, np.int64, "expected an integer relevance label")
    qrels._q = table.tokens(0)
    qrels._d = table.tokens(2)
    qrels._lines, qrels._source = table.lines, name
    return qrels


def read_run(source) -> Run:
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
    ValueError
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
    data, n, name = _read_bytes(source)
    table = _Table(data, n, name, (0, 2, 4, 5), indented=True)
    table.check_counts(
        6,
        np.iinfo(np.intp).max,
        "6 fields: qid iter docno rank score run_id",
        swapped=(4,),
    )
    scores = table.numbers(4, np.float64, "expected a numeric score")
    if np.isnan(scores).any():
        raise table.error(int(np.argmax(np.isnan(scores))), "expected a numeric score")
    run = Run.__new__(Run)
    run.scores = scores
    run._q = table.tokens(0)
    run._d = table.tokens(2)
    if table.lines.shape[0]:
        s, e = table.field_start[5][-1], table.field_end[5][-1]
        run.run_id = data[s:e].decode("utf-8", "replace")
    else:
        run.run_id = ""
    run._lines, run._source = table.lines, name
    return run


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def write_run(
    file, query_ids, doc_ids, scores, *, run_id="skirm", max_docs=None
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
    if not run_id or any(c.isspace() for c in run_id):
        raise ValueError(f"`run_id` must be a non-empty word, got {run_id!r}")
    if max_docs is not None and (
        isinstance(max_docs, bool)
        or not isinstance(max_docs, (int, np.integer))
        or max_docs < 1
    ):
        raise ValueError(
            f"`max_docs` must be a positive integer or None, got {max_docs!r}"
        )
    for name in ("query_ids", "doc_ids"):
        values = getattr(run, name)
        empty = (np.char.str_len(values) == 0).any()
        spaced = any((np.char.find(values, c) >= 0).any() for c in " \t\n\r")
        if empty or spaced:
            raise ValueError(
                f"`{name}` must be non-empty strings without whitespace, got "
                f"{values[np.argmax(np.char.str_len(values) == 0)]!r}"
                if empty
                else f"`{name}` must be non-empty strings without whitespace"
            )
    q_codes, _, d_codes, _ = run._factorized()
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
    if isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        if path.endswith(".gz"):
            with gzip.open(path, "wt", encoding="utf-8") as fh:
                fh.write(text)
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
    elif isinstance(file, io.TextIOBase) or hasattr(file, "write"):
        file.write(text)
    else:
        raise TypeError(
            f"`file` must be a path or an open text file, got {type(file).__name__}"
        )
