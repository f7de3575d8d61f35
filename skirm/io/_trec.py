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
import itertools
import os

import numpy as np

from skirm.io._tokens import PAD, Tokens, first_duplicate, parse_decimals

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
    _lines = None  # 0-based file line of each row, when read from a file
    _source = "<records>"

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

    def _tokens(self):
        """``(query tokens, docno tokens)``, built from the strings once."""
        if self._q is None:
            self._q = Tokens.from_strings(self._query_ids)
        if self._d is None:
            self._d = Tokens.from_strings(self._doc_ids)
        return self._q, self._d

    def __len__(self) -> int:
        q = self._query_ids if self._query_ids is not None else self._q
        return len(q)

    def _q_tokens(self):
        return self._tokens()[0]

    def _d_tokens(self):
        return self._tokens()[1]

    def _query_codes(self):
        """``(codes, ids)``: the sorted distinct query ids and each row's
        index into them (cached)."""
        cache = self.__dict__.get("_qcodes")
        if cache is None:
            cache = self.__dict__["_qcodes"] = self._tokens()[0].codes()
        return cache

    def _n_queries(self) -> int:
        return int(self._query_codes()[1].shape[0])

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
        return f"Qrels(n_judgments={len(self)}, n_queries={self._n_queries()})"


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
            f"n_queries={self._n_queries()})"
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
# Bytes
# --------------------------------------------------------------------------

#: Bytes read at a time when a run is streamed: a few times the CPU cache,
#: small next to the file.
BLOCK_BYTES = 1 << 22
#: Bytes of a run file per part when it is not grouped by query and is read
#: in parts (:func:`iter_run_parts`).
PART_BYTES = 1 << 27
#: Rows per block when a part is evaluated.
PART_BLOCK_ROWS = 1 << 17


class _Source:
    """A path (``.gz`` transparently) or an open file, read as bytes."""

    def __init__(self, source):
        self.owned = None
        self.pending = b""
        if isinstance(source, (str, os.PathLike)):
            self.name = os.fspath(source)
            fh = self.owned = open(self.name, "rb")
            self.size = os.fstat(fh.fileno()).st_size
            magic = fh.read(2)
            fh.seek(0)
            if magic == b"\x1f\x8b":
                fh = gzip.GzipFile(fileobj=fh, mode="rb")
                self.size = None
        elif hasattr(source, "read"):
            name = getattr(source, "name", None)
            self.name = name if isinstance(name, str) else "<file>"
            self.size = None
            fh = source
            first = _as_bytes(fh.read(2))
            if first[:2] == b"\x1f\x8b":
                fh = gzip.GzipFile(fileobj=io.BytesIO(first + _as_bytes(fh.read())))
            else:
                self.pending = first
        else:
            raise TypeError(
                "expected a path or an open file, got "
                f"{type(source).__name__}: {source!r:.60}"
            )
        self.fh = fh
        self.binary = hasattr(fh, "readinto") and not isinstance(fh, io.TextIOBase)

    def fill(self, view):
        """Read into ``view`` until it is full or the input ends; the count."""
        n = 0
        if self.pending:
            k = min(len(self.pending), len(view))
            view[:k] = self.pending[:k]
            self.pending = self.pending[k:]
            n = k
        while n < len(view):
            if self.binary:
                got = self.fh.readinto(view[n:])
            else:
                data = _as_bytes(self.fh.read(len(view) - n))
                got = min(len(data), len(view) - n)
                view[n : n + got] = data[:got]
                self.pending = data[got:]
            if not got:
                break
            n += got
        return n

    def read_all(self):
        """``(data, n)``: the rest of the input, then :data:`PAD` zero bytes."""
        if self.size is not None:
            size = self.size + 1  # one byte more tells whether it grew
            data = bytearray(size + PAD)
            n = self.fill(memoryview(data)[:size])
            if n < size:
                return data, n
            rest = self.pending + _as_bytes(self.fh.read())
            self.pending = b""
            data = data[:n] + rest
        else:
            data = bytearray(self.pending + _as_bytes(self.fh.read()))
            self.pending = b""
        n = len(data)
        return data + bytearray(PAD), n

    def close(self):
        if self.owned is not None:
            self.owned.close()


def _as_bytes(data):
    return data.encode("utf-8") if isinstance(data, str) else data


# --------------------------------------------------------------------------
# Tokens of lines
# --------------------------------------------------------------------------


class _Table:
    """The tokens of a text block (fields separated by whitespace), with line
    numbers, found by a few vectorised passes over the bytes.

    The block is processed in chunks of whole lines that fit in the CPU
    cache; only the start and end offsets of the ``fields`` asked for are
    kept. ``line0`` is the number of lines before the block in its file.
    """

    CHUNK = 1 << 20

    def __init__(
        self, data: bytearray, n: int, name: str, fields, line0=0, indented=False
    ):
        # ``indented``: a line whose first token starts with ``#`` is a
        # comment (trec_eval 10.0's rule for runs); otherwise only a ``#`` in
        # the line's first byte is (its rule for qrels).
        self.data = data  # n bytes of text, then PAD zero bytes
        self.n = n
        self.name = name
        self.line0 = line0
        self.fields = fields
        self.buf = np.frombuffer(data, dtype=np.uint8)
        # Room for a line per 16 bytes (untouched pages cost no memory);
        # grown if the lines are shorter.
        self._allocate(n // 16 + 2, fields)
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
        self.head(n_data)

    def head(self, m):
        """Keep the first ``m`` data lines only."""
        self.lines = self.lines[:m]
        self.counts = self.counts[:m]
        for f in self.fields:
            self.field_start[f] = self.field_start[f][:m]
            self.field_end[f] = self.field_end[f][:m]

    def _allocate(self, size, fields):
        """(Re)allocate the per-line arrays with room for ``size`` lines,
        keeping what they hold."""
        old = self.__dict__.get("line_starts")

        def grown(array):
            new = np.empty(size, dtype=np.int64)
            if array is not None:
                new[: array.shape[0]] = array
            return new

        self.line_starts = grown(old)
        self.lines = grown(self.__dict__.get("lines"))
        self.counts = grown(self.__dict__.get("counts"))
        starts = self.__dict__.get("field_start", {})
        ends = self.__dict__.get("field_end", {})
        self.field_start = {f: grown(starts.get(f)) for f in fields}
        self.field_end = {f: grown(ends.get(f)) for f in fields}

    def text(self, line):
        s = int(self.line_starts[line])
        e = self.data.find(b"\n", s, self.n)
        e = self.n if e < 0 else e
        return self.data[s:e].decode("utf-8", "replace").rstrip("\r")

    def error(self, row, expected):
        line = int(self.lines[row])
        return TrecFormatError(
            f"{self.name}:{self.line0 + line + 1}: {expected}, got {self.text(line)!r}"
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

    def file_lines(self):
        """The 0-based line number in the file of every data line."""
        return self.lines + self.line0


# --------------------------------------------------------------------------
# Run rows, read whole or block by block
# --------------------------------------------------------------------------

_RUN_FIELDS = (0, 2, 4, 5)
_RUN_SHAPE = "6 fields: qid iter docno rank score run_id"


class RunBlock:
    """Rows of a run: query and docno tokens, scores, and where they came
    from (file name and 0-based line of every row, for messages).

    A block from :func:`iter_run_blocks` holds every row of its queries.
    """

    __slots__ = ("_queries", "d", "lines", "name", "q", "run_id", "scores")

    def __init__(self, q, d, scores, lines, name, run_id):
        self.q, self.d, self.scores = q, d, scores
        self.lines, self.name, self.run_id = lines, name, run_id
        self._queries = None

    def queries(self):
        """``(codes, ids)``: sorted distinct query ids, each row's index."""
        if self._queries is None:
            self._queries = self.q.codes()
        return self._queries

    def __len__(self):
        return len(self.q)

    @classmethod
    def of_run(cls, run):
        """The rows of a :class:`Run` as one block."""
        q, d = run._tokens()
        return cls(q, d, run.scores, run._lines, run._source, run.run_id)


def _run_table(data, n, name, line0):
    """Tokens and scores of the run lines in ``data[:n]`` (checked)."""
    table = _Table(data, n, name, _RUN_FIELDS, line0, indented=True)
    table.check_counts(6, np.iinfo(np.intp).max, _RUN_SHAPE, swapped=(4,))
    return table


def _run_block(table, name):
    scores = table.numbers(4, np.float64, "expected a numeric score")
    if np.isnan(scores).any():
        raise table.error(int(np.argmax(np.isnan(scores))), "expected a numeric score")
    run_id = None
    if table.lines.shape[0]:
        s, e = table.field_start[5][-1], table.field_end[5][-1]
        run_id = table.data[s:e].decode("utf-8", "replace")
    return RunBlock(
        table.tokens(0), table.tokens(2), scores, table.file_lines(), name, run_id
    )


class RunNotGrouped(ValueError):
    """A streamed run whose rows of one query are not contiguous."""

    def __init__(self, name, line, query):
        self.name, self.line, self.query = name, line, query
        super().__init__(
            f"{name}:{line + 1}: query {query!r} appears again after other "
            "queries; a run streamed query by query must keep each query's "
            "lines together"
        )


class _Blocks:
    """Whole lines of a source, ``size`` bytes at a time.

    :meth:`read` returns a new buffer whose first ``end`` bytes are whole
    lines (the rest of the input at its end); the bytes after them come
    first in the next buffer, and :meth:`put_back` adds more of them.
    """

    def __init__(self, src, size):
        self.src, self.size = src, size
        self.carry, self.eof, self.line0 = b"", False, 0

    def read(self):
        carry = self.carry
        data = bytearray(len(carry) + self.size + PAD)
        data[: len(carry)] = carry
        got = self.src.fill(memoryview(data)[len(carry) : len(carry) + self.size])
        n = len(carry) + got
        self.eof = got < self.size
        end = n if self.eof else data.rfind(b"\n", 0, n) + 1
        self.data, self.n, self.carry = data, n, bytes(data[end:n])
        return data, end

    def put_back(self, start):
        """Read the bytes from ``start`` of the last buffer again."""
        self.carry = bytes(self.data[start : self.n])

    def table(self, data, end, name):
        """The run lines of ``data[:end]``, numbered from :attr:`line0`."""
        return _run_table(data, end, name, self.line0) if end else None


def iter_run_blocks(source, block_bytes=None):
    """Blocks of a run file, each holding every row of its queries.

    The file is read ``block_bytes`` at a time, so memory stays bounded
    whatever its size. The lines of the last query of a block go to the next
    block, so that no query is split; hence each query's lines must be
    contiguous (TREC runs are grouped by query): :class:`RunNotGrouped` is
    raised on the first query that appears again after another.
    """
    src = _Source(source)
    blocks, seen = _Blocks(src, block_bytes or BLOCK_BYTES), set()
    try:
        while True:
            data, end = blocks.read()
            table = blocks.table(data, end, src.name)
            rows = table.lines.shape[0] if table is not None else 0
            starts = table.tokens(0).run_starts() if rows else np.zeros(1, int)
            cut = rows if blocks.eof else int(starts[-1])  # the last query
            if not cut and not blocks.eof:  # one query (or line) fills it
                blocks.put_back(0)
                blocks.size *= 2
                continue
            if cut:
                if cut < rows:  # the last query goes to the next block
                    blocks.put_back(int(table.line_starts[table.lines[cut]]))
                    blocks.line0 += int(table.lines[cut])
                else:
                    blocks.line0 += table.line_starts.shape[0]
                table.head(cut)
                block = _run_block(table, src.name)
                block.q._runs = starts[starts < cut]  # its queries' first rows
                _check_grouped(block, seen)
                yield block
            if blocks.eof:
                return
    finally:
        src.close()


def _check_grouped(block, seen):
    """Each query of ``block`` in one run of rows and not in ``seen``."""
    starts = block.q.run_starts()
    ids = block.q.strings(starts).tolist()
    new = set(ids)
    if len(new) == len(ids) and seen.isdisjoint(new):
        seen.update(new)
        return
    earlier = set(seen)
    for start, query in zip(starts.tolist(), ids, strict=True):
        if query in earlier:
            raise RunNotGrouped(block.name, int(block.lines[start]), query)
        earlier.add(query)


def count_parts(path):
    """Parts of :data:`PART_BYTES` in the file at ``path`` (at least 1)."""
    return max(1, -(-os.path.getsize(path) // PART_BYTES))


def iter_run_parts(source, n_parts):
    """The run in ``n_parts`` blocks: a hash of the query id picks the block
    of each row, so every block holds all rows of its queries, in any order.

    The file is read ``n_parts`` times; each pass keeps a copy of its own
    rows only, so memory is bounded by the largest part.
    """
    for part in range(n_parts):
        src = _Source(source)
        try:
            block = _run_part(src, part, n_parts)
        finally:
            src.close()
        yield from _split_by_query(block, PART_BLOCK_ROWS)


def _split_by_query(block, n_rows):
    """``block`` in blocks of whole queries, about ``n_rows`` rows each."""
    codes, _ = block.queries()
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes))  # row count up to each query
    cuts = np.unique(np.searchsorted(ends, np.arange(n_rows, len(block), n_rows)))
    bounds = [0, *ends[cuts[cuts < ends.shape[0] - 1]].tolist(), len(block)]
    for lo, hi in itertools.pairwise(bounds):
        rows = order[lo:hi]
        yield RunBlock(
            block.q.take(rows),
            block.d.take(rows),
            block.scores[rows],
            block.lines[rows],
            block.name,
            block.run_id,
        )


def _run_part(src, part, n_parts):
    """The rows of ``part`` (by query hash) of the run read from ``src``."""
    blocks, kept, run_id = _Blocks(src, BLOCK_BYTES), [], None
    while True:
        data, end = blocks.read()
        table = blocks.table(data, end, src.name)
        if table is not None:
            blocks.line0 += table.line_starts.shape[0]
            block = _run_block(table, src.name)
            run_id = block.run_id if block.run_id is not None else run_id
            mine = np.flatnonzero(block.q.hash() % np.uint64(n_parts) == part)
            q, d = block.q.take(mine).compact(), block.d.take(mine).compact()
            kept.append((q, d, block.scores[mine], block.lines[mine]))
        if blocks.eof:
            break
    if not kept:
        zero = np.zeros(0, dtype=np.int64)
        empty = Tokens(np.zeros(PAD, dtype=np.uint8), zero, zero)
        return RunBlock(empty, empty, np.zeros(0), zero, src.name, run_id)
    q, d, scores, lines = zip(*kept, strict=True)
    return RunBlock(
        Tokens.concat(q),
        Tokens.concat(d),
        np.concatenate(scores),
        np.concatenate(lines),
        src.name,
        run_id,
    )


def find_duplicate(record, rows):
    """The first repeated (query, docno) among ``record``'s ``rows``:
    ``(first, second)`` rows of the record, or None."""
    rows = np.asarray(rows, dtype=np.int64)
    codes = record._query_codes()[0][rows]
    return first_duplicate(codes, record._tokens()[1].take(rows), rows)


def duplicate_error(record, pair, what):
    """The ValueError for a repeated docno found by :func:`find_duplicate`."""
    q, d = record._tokens()
    return duplicate_rows_error(q, d, pair, record._lines, record._source, what)


def _read_bytes(source):
    """``(data, n, name)``: the whole input, then :data:`PAD` zero bytes."""
    src = _Source(source)
    try:
        data, n = src.read_all()
    finally:
        src.close()
    return data, n, src.name


def _parse_label(text):
    """An integer label, also written as a decimal with a zero fraction
    (``1.0``, ``2.``, ``-1.00``), which trec_eval's ``atol`` reads alike.
    Other fractions (``0.5``) are errors: ``atol`` would truncate them."""
    head, dot, tail = text.partition(".")
    if dot and tail.strip("0") == "" and head not in ("", "+", "-"):
        text = head
    return int(text)


def duplicate_rows_error(q, d, pair, lines, name, what):
    """The ValueError for a docno repeated in a query: ``pair`` are the rows
    of both copies (see :func:`~skirm.io._tokens.first_duplicate`), ``lines``
    their 0-based file lines (None for records built from arrays)."""
    first, second = pair
    doc = str(d.strings(np.array([second]))[0])
    query = str(q.strings(np.array([second]))[0])
    if lines is not None:
        where = f"{name}:{int(lines[second]) + 1}: "
        at = f"line {int(lines[first]) + 1}"
    else:
        where, at = "", f"row {first}"
    return TrecFormatError(
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
    src = _Source(source)
    try:
        data, n = src.read_all()
    finally:
        src.close()
    table = _Table(data, n, src.name, (0, 2, 3))
    table.check_counts(4, 4, "4 fields: qid iter docno rel", swapped=(6,))
    qrels = Qrels.__new__(Qrels)
    qrels.labels = table.numbers(3, np.int64, "expected an integer relevance label")
    qrels._q = table.tokens(0)
    qrels._d = table.tokens(2)
    qrels._lines, qrels._source = table.file_lines(), src.name
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
    src = _Source(source)
    try:
        data, n = src.read_all()
    finally:
        src.close()
    block = _run_block(_run_table(data, n, src.name, 0), src.name)
    run = Run.__new__(Run)
    run.scores = block.scores
    run._q, run._d = block.q, block.d
    run.run_id = "" if block.run_id is None else block.run_id
    run._lines, run._source = block.lines, src.name
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
