"""Text input as bytes: sources, and the tokens of their lines.

A :class:`Source` reads a path (``.gz`` transparently) or an open file as
bytes, whole or block by block; a :class:`Table` finds the whitespace
separated fields of every line of a text block with a few vectorised passes
over its bytes, keeping only the offsets of the fields asked for, and reports
malformed lines as ``file:line``. Every TREC reader is built on the two.
"""

from __future__ import annotations

import io
import os
import stat

import numpy as np

from skirm._errors import InvalidParameterError, TrecFormatError
from skirm.io._decimals import parse_decimals
from skirm.io._keys import offset_dtype
from skirm.io._sources import is_path
from skirm.io._tokens import PAD, Tokens

#: How much of an offending line an error message shows.
_SHOWN = 200


def separators(codes):
    """Where the bytes (or code points) ``codes`` separate fields, as
    trec_eval reads its files: C's ``isspace()``, that is space, tab, LF,
    VT, FF and CR (9-13, found by one unsigned comparison). Any other
    control byte belongs to its field (Python's ``str.split`` would also
    split at 28-31)."""
    sep = np.subtract(codes, 9, dtype=codes.dtype) <= 4
    sep |= codes == 32
    return sep


#: The characters Python's ``str.split()`` splits at (``str.isspace``), LF
#: aside, each made a space: pytrec_eval's and ir_measures' readers split a
#: line by ``line.split()``, at more than trec_eval's separators (the
#: control bytes 28-31, no-break spaces, ...).
_STR_SPACES = dict.fromkeys(
    [*range(9, 10), *range(11, 14), *range(28, 33), 0x85, 0xA0, 0x1680,
     *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000],
    " ",
)  # fmt: skip


#: The bytes Python's ``str.split()`` splits at where trec_eval does not,
#: beside the multi-byte spaces of UTF-8 (every byte above 127 is looked at).
_STR_ONLY = b"\x1c\x1d\x1e\x1f"


def str_spaced(text):
    """``text`` with every character at which Python's ``str.split()``
    splits (LF aside) made a space, so that :func:`separators` split its
    lines into the fields ``line.split()`` gives. ASCII text without the
    bytes 28-31 (trec_eval's separators already) is returned as it is: one
    pass and four searches."""
    if text.isascii() and not any(map(text.__contains__, _STR_ONLY.decode())):
        return text
    return text.translate(_STR_SPACES)


def empty_or_spaced(values):
    """Per id of ``values`` (str), whether it is empty or holds a separator
    (:func:`separators`): such an id cannot be written to a TREC file and
    read back. One pass over the code points."""
    values = np.ascontiguousarray(values, dtype=np.str_)
    width = values.dtype.itemsize // 4
    if width == 0 or values.shape[0] == 0:
        return np.ones(values.shape[0], dtype=bool)
    points = values.view(np.uint32).reshape(values.shape[0], width)
    return separators(points).any(axis=1) | (points[:, 0] == 0)


class SplitsOtherwise(Exception):
    """Raised by the reader of a :class:`SplitChecked` file at the first
    block whose bytes may split otherwise where ``str.split()`` splits."""


class SplitChecked(os.PathLike):
    """The path of a regular file whose blocks are checked as a streaming
    reader reads them (:meth:`Source.check_split`): read as it is while its
    bytes split alike at trec_eval's separators and where ``str.split()``
    splits (:func:`_split_alike`), :class:`SplitsOtherwise` raised at the
    first block that may not, for the caller to read it as ``line.split()``
    does. One read of a file that splits alike, where a check read it
    first."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __fspath__(self):
        return self.path

    @classmethod
    def of(cls, path):
        """The checked path of a regular file; None for any other (a pipe is
        read once, whole; a missing file's reader says so)."""
        try:
            return cls(path) if stat.S_ISREG(os.stat(path).st_mode) else None
        except OSError:
            return None


class Source:
    """A path (``.gz`` transparently) or an open file, read as bytes."""

    def __init__(self, source):
        self.owned = None
        self.pending = b""
        self.regular = False
        self.split_checked = isinstance(source, SplitChecked)
        if is_path(source):
            self.name = os.fspath(source)
            fh = self.owned = open(self.name, "rb")
            status = os.fstat(fh.fileno())
            self.size = self.file_size = status.st_size
            self.regular = stat.S_ISREG(status.st_mode)  # not a pipe's 0
            magic = fh.read(2)
            if not fh.seekable():  # a pipe's path (<(zcat run.gz)): read on
                self.size = None
                fh, self.pending = _read_on(fh, magic)
            elif magic == b"\x1f\x8b":
                import gzip  # for a gzip file only

                fh.seek(0)
                fh = gzip.GzipFile(fileobj=fh, mode="rb")
                self.size = None
            else:
                fh.seek(0)
        elif hasattr(source, "read"):
            name = getattr(source, "name", None)
            self.name = name if isinstance(name, str) else "<file>"
            self.size = None
            fh, self.pending = _read_on(source, as_bytes(source.read(2)))
        else:
            raise InvalidParameterError(
                "expected a path or an open file, got "
                f"{type(source).__name__}: {source!r:.60}"
            )
        self.fh = fh
        self.binary = hasattr(fh, "readinto") and not isinstance(fh, io.TextIOBase)

    def position(self):
        """``(bytes of the file read, its size)`` of a path (a ``.gz`` one:
        its compressed bytes, read ahead a little), ``(None, None)`` for an
        open file."""
        if self.owned is None or not self.owned.seekable():
            return None, None
        return self.owned.tell(), self.file_size

    def fill(self, view):
        """Read into ``view`` until it is full or the input ends; the count."""
        try:
            return self._fill(view)
        except _gzip_errors() as exc:
            raise self.corrupt(exc) from None

    def check_split(self, data, n):
        """Raise :class:`SplitsOtherwise` if this is a :class:`SplitChecked`
        file and ``data[:n]`` (a bytearray) may not split alike."""
        if self.split_checked and not _split_alike(data, n):
            raise SplitsOtherwise(self.name)

    def corrupt(self, exc):
        """The error for a gzip stream that ends early or does not decode."""
        return TrecFormatError(
            f"{self.name}: the gzip stream is truncated or corrupt ({exc})"
        )

    def _fill(self, view):
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
                data = as_bytes(self.fh.read(len(view) - n))
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
            rest = self.pending + self._read_rest()
            self.pending = b""
            data = data[:n] + rest
        else:
            data = bytearray(self.pending + self._read_rest())
            self.pending = b""
        n = len(data)
        return data + bytearray(PAD), n

    def _read_rest(self):
        try:
            return as_bytes(self.fh.read())
        except _gzip_errors() as exc:
            raise self.corrupt(exc) from None

    def close(self):
        if self.owned is not None:
            self.owned.close()


def _read_on(fh, first):
    """``(stream, pending)`` of a file that cannot go back, whose first bytes
    ``first`` were read: a gzip stream is read whole and decompressed from
    memory; otherwise the bytes are pending, to be read first."""
    if first[:2] != b"\x1f\x8b":
        return fh, first
    import gzip  # for a gzip stream only

    return gzip.GzipFile(fileobj=io.BytesIO(first + as_bytes(fh.read()))), b""


def _gzip_errors():
    """The errors of a gzip stream that ends early or does not decode (read
    when an error is raised: :mod:`gzip` loads for gzip files only)."""
    import gzip
    import zlib

    return EOFError, gzip.BadGzipFile, zlib.error


def as_bytes(data):
    return data.encode("utf-8") if isinstance(data, str) else data


class Table:
    """The tokens of a text block (fields separated by whitespace), with line
    numbers, found by a few vectorised passes over the bytes.

    The block is processed in chunks of whole lines that fit in the CPU
    cache; only the start and end offsets of the ``fields`` asked for are
    kept. ``line0`` is the number of lines before the block in its file.
    """

    #: Bytes of a chunk: its byte masks and token edges (a few bytes of
    #: temporaries per byte) stay in a core's L2 cache. A 50,000-line run
    #: (2.3 MB) is read about a fifth faster than in chunks of 1 MiB.
    CHUNK = 1 << 18
    #: The offset of each line's first byte (grown as the block is read).
    line_starts: np.ndarray

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
        nul = data.find(b"\0", 0, n)
        if nul >= 0:  # no TREC file holds one; trec_eval would cut the line
            line = line0 + data.count(b"\n", 0, nul) + 1
            raise TrecFormatError(
                f"{name}:{line}: a NUL byte: this looks like a binary file, not "
                "a TREC text file"
            )
        self.buf = np.frombuffer(data, dtype=np.uint8)
        # int32 offsets and line numbers when the block allows: the per-line
        # arrays are most of a reader's memory
        self.dtype = offset_dtype(len(data))
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
            sep = separators(a)
            # Token boundaries: starts and ends alternate in ``edges``.
            change = np.empty(m + 1, dtype=bool)
            change[0] = not sep[0]
            np.not_equal(sep[1:], sep[:-1], out=change[1:m])
            change[m] = not sep[m - 1]
            edges = np.flatnonzero(change)
            first = _first_tokens(edges, line_starts)
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
            new = np.empty(size, dtype=self.dtype)
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
        where = f"{self.name}:{self.line0 + line + 1}"
        text = self.text(line)
        if len(text) > _SHOWN:
            return TrecFormatError(
                f"{where}: {expected}, got {text[:_SHOWN]!r}... (a line of "
                f"{len(text)} characters)"
            )
        return TrecFormatError(f"{where}: {expected}, got {text!r}")

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
            parse = parse_label if integer else float
            texts = tokens.strings(rows).tolist()
            parsed = []
            for row, text in zip(rows.tolist(), texts, strict=True):
                try:
                    if not text.isascii() or "_" in text:
                        # Python reads "1_0" as 10 and other scripts' digits
                        # ("１", "٢") as numbers; C's atof and atol do not
                        raise ValueError(text)
                    value = parse(text)
                except (ValueError, OverflowError):
                    raise self.error(row, expected) from None
                if integer and not -(2**63) <= value < 2**63:
                    raise self.error(row, f"{expected} from -2**63 to 2**63 - 1")
                parsed.append(value)
            values[rows] = parsed
        return values

    def file_lines(self):
        """The 0-based line number in the file of every data line."""
        end = self.line0 + self.line_starts.shape[0]
        return self.lines.astype(offset_dtype(end), copy=False) + self.line0


def _first_tokens(edges, line_starts):
    """The index of each line's first token (of the next line's, for a line
    without one), given the token ``edges`` (starts and ends alternate) and
    the lines' first bytes.

    A line starts on a token (a start edge) or inside a separator run (the
    next edge is a start): half the index of the first edge at or after its
    start is the token. Where every line holds the same number of tokens,
    ``k`` (a run's 6, a qrels file's 4), that index is ``k`` times the line's:
    it is, when the edges are ``2k`` per line and each line's ``k`` tokens
    start at or after its first byte and end before the next line's (no
    token crosses a newline), and then no search is needed.
    """
    n_lines = line_starts.shape[0]
    k, rest = divmod(edges.shape[0], 2 * n_lines)
    if k and not rest:
        step = 2 * k
        if (edges[::step] >= line_starts).all() and (
            edges[step - 1 :: step][:-1] < line_starts[1:]
        ).all():
            return np.arange(0, n_lines * k, k)
    return np.searchsorted(edges, line_starts) // 2


def read_bytes(source):
    """``(data, n, name)``: the whole input, then :data:`PAD` zero bytes."""
    src = Source(source)
    try:
        data, n = src.read_all()
    finally:
        src.close()
    return data, n, src.name


def _split_alike(data, n):
    """Whether the bytes ``data[:n]`` split alike at trec_eval's separators
    and where ``str.split()`` splits (ASCII, no byte of :data:`_STR_ONLY`):
    one pass and four searches, no copy."""
    return data.isascii() and all(data.find(c, 0, n) < 0 for c in _STR_ONLY)


def read_str_split(source):
    """:func:`read_bytes` of a file read as Python's ``line.split()`` reads
    its lines (ir_measures' ``read_trec_qrels`` and ``read_trec_run``): the
    text (UTF-8) through :func:`str_spaced`, decoded only where the bytes
    do not split alike (:func:`_split_alike`)."""
    data, n, name = read_bytes(source)
    if _split_alike(data, n):
        return data, n, name
    text = data[:n].decode("utf-8", "surrogateescape")
    data = bytearray(str_spaced(text).encode("utf-8", "surrogateescape"))
    n = len(data)
    return data + bytearray(PAD), n, name


def parse_label(text):
    """An integer label, also written as a decimal with a zero fraction
    (``1.0``, ``2.``, ``-1.00``), which trec_eval's ``atol`` reads alike.
    Other fractions (``0.5``) are errors: ``atol`` would truncate them."""
    head, dot, tail = text.partition(".")
    if dot and tail.strip("0") == "" and head not in ("", "+", "-"):
        text = head
    return int(text)
