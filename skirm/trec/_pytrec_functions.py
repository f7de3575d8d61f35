"""pytrec_eval's module functions: its readers of qrels and run lines and
its summary of per-query values, beside :class:`RelevanceEvaluator`."""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable
from itertools import islice, repeat
from operator import methodcaller

import numpy as np

from skirm._errors import DuplicateDocnoError, InvalidInputError, InvalidParameterError
from skirm._measures._names import TREC_NAMES
from skirm._measures._unknown import unknown_measure
from skirm.io._sources import is_path_or_file
from skirm.io._text import str_spaced
from skirm.io._tokens import Tokens, first_duplicate
from skirm.io._trec_files import read_qrels, read_run
from skirm.trec._pytrec import _split

__all__ = ["compute_aggregated_measure", "parse_qrel", "parse_run"]


def parse_qrel(f_qrel: Iterable[str]) -> defaultdict[str, dict[str, int]]:
    """Qrels lines as ``{qid: {docid: relevance}}``, as ``pytrec_eval.parse_qrel``.

    Parameters
    ----------
    f_qrel : iterable of str, open file or path
        The lines of a TREC qrels file (``qid iter docno relevance``), an
        open file, or a path (``.gz`` read transparently).

    Returns
    -------
    qrels : collections.defaultdict of dict
        The queries in the order they first appear, each query's documents
        in file order, relevance levels as ints.

    Raises
    ------
    TrecFormatError
        For a malformed line (naming its line number).
    DuplicateDocnoError
        For a document judged twice in one query (pytrec_eval's
        AssertionError).

    Notes
    -----
    The lines are read by skirm's qrels reader (no Python statement per
    line): unlike pytrec_eval, blank lines and ``#`` comments are skipped and
    a level written ``1.0`` is 1. Lines and text files are split into
    fields where pytrec_eval's ``line.split()`` splits them (at any
    whitespace character, a no-break space or the control bytes 28-31
    included); a path or a binary file where trec_eval splits them.

    Examples
    --------
    >>> from skirm.trec import parse_qrel
    >>> parse_qrel(["q1 0 d1 1", "q1 0 d2 0", "q2 0 d7 2"])
    defaultdict(<class 'dict'>, {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d7': 2}})
    """
    qrels = read_qrels(_lines(f_qrel, "f_qrel"))
    return _nested(qrels.query_ids, qrels.doc_ids, qrels.labels, "f_qrel")


def parse_run(f_run: Iterable[str]) -> defaultdict[str, dict[str, float]]:
    """Run lines as ``{qid: {docid: score}}``, as ``pytrec_eval.parse_run``.

    Parameters
    ----------
    f_run : iterable of str, open file or path
        The lines of a TREC run file (``qid Q0 docno rank score run_id``),
        an open file, or a path (``.gz`` read transparently).

    Returns
    -------
    run : collections.defaultdict of dict
        The queries in the order they first appear, each query's documents
        in file order, scores as floats (the rank column is not read).

    Raises
    ------
    TrecFormatError
        For a malformed line (naming its line number).
    DuplicateDocnoError
        For a document listed twice in one query (pytrec_eval's
        AssertionError).

    Notes
    -----
    Lines and text files are split into fields where pytrec_eval's
    ``line.split()`` splits them (at any whitespace character, a no-break
    space or the control bytes 28-31 included); a path or a binary file
    where trec_eval splits them.

    Examples
    --------
    >>> from skirm.trec import parse_run
    >>> parse_run(["q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25"])
    defaultdict(<class 'dict'>, {'q1': {'d1': 2.5, 'd2': 1.5}})
    """
    run = read_run(_lines(f_run, "f_run"))
    return _nested(run.query_ids, run.doc_ids, run.scores, "f_run")


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """The summary of a measure's per-query values, as
    ``pytrec_eval.compute_aggregated_measure``.

    The sum for the counts (``num_ret``, ``num_rel``, ``num_q``, ...), the
    geometric mean for ``gm_map`` and ``gm_bpref`` (whose per-query values,
    as :meth:`RelevanceEvaluator.evaluate` gives them, are logarithms: the
    exponential of their mean), the mean for every other measure: the
    summary the measure table gives each measure (pytrec_eval decides by the
    ``num_`` and ``gm_`` prefixes, which agree).

    Parameters
    ----------
    measure : str
        A name :meth:`RelevanceEvaluator.evaluate` returns (``"map"``,
        ``"P_5"``, ``"gm_map"``, ``"num_ret"``).
    values : iterable of float
        Its per-query values.

    Returns
    -------
    value : float

    Examples
    --------
    >>> from skirm.trec import RelevanceEvaluator, compute_aggregated_measure
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    >>> run = {"q1": {"d1": 1.0, "d3": 0.5}, "q2": {"d3": 1.0, "d2": 0.5}}
    >>> results = RelevanceEvaluator(qrels, {"map", "num_ret"}).evaluate(run)
    >>> compute_aggregated_measure("map", [q["map"] for q in results.values()])
    0.75
    >>> compute_aggregated_measure("num_ret", [q["num_ret"] for q in results.values()])
    4.0
    """
    if not isinstance(measure, str):
        raise InvalidParameterError(
            f"`measure` must be a measure name (a str), got {type(measure).__name__}"
        )
    split = _split(measure)
    if split is None:
        raise unknown_measure(measure, "pytrec_eval")
    summary = TREC_NAMES[split[0]][1].summary
    try:
        array = np.asarray(list(values), dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`values` must be per-query values of {measure!r} (numbers), got "
            f"{values!r}"
        ) from None
    if array.ndim != 1 or not array.shape[0]:
        raise InvalidInputError(
            f"`values` must hold the per-query values of {measure!r} (at least "
            f"one number), got {values!r}"
        )
    if summary in ("sum", "count"):
        return float(np.sum(array))
    if summary == "gm":  # the logarithms' mean, back
        return float(np.exp(np.sum(array) / array.shape[0]))
    return float(np.mean(array))


def _lines(lines, name):
    """What a reader reads of ``lines``: a path or a binary file as it is
    (read as trec_eval reads files); the text of a text file or the lines of
    an iterable (joined in one C pass) with pytrec_eval's separators made
    spaces, as a stream named after the argument, so that a message reads
    ``f_qrel:2: ...``."""
    if isinstance(lines, io.TextIOBase):
        text = lines.read()
    elif is_path_or_file(lines):
        return lines
    elif not isinstance(lines, Iterable):
        raise InvalidParameterError(
            f"`{name}` must be an iterable of lines, an open file or a path, got "
            f"{type(lines).__name__}"
        )
    else:
        try:
            text = "\n".join(map(methodcaller("rstrip", "\r\n"), lines))
        except (AttributeError, TypeError):
            raise InvalidInputError(
                f"`{name}` must hold lines of text (str), got another kind of item"
            ) from None
    stream = io.BytesIO(str_spaced(text).encode())
    stream.name = name
    return stream


def _nested(query_ids, doc_ids, values, name):
    """``{qid: {docid: value}}`` of parallel columns, the queries in the order
    they first appear and each query's rows in order (a dict per query, its
    rows placed by C iterators); a docno twice in a query is refused."""
    out: defaultdict[str, dict] = defaultdict(dict)
    n = query_ids.shape[0]
    if not n:
        return out
    uniques, first, inverse = np.unique(
        query_ids, return_index=True, return_inverse=True
    )
    appearance = np.empty(uniques.shape[0], dtype=np.intp)
    appearance[np.argsort(first, kind="stable")] = np.arange(uniques.shape[0])
    key = appearance[inverse.reshape(-1)]
    rows = np.argsort(key, kind="stable")
    sizes = np.bincount(key, minlength=uniques.shape[0])
    pairs = zip(doc_ids[rows].tolist(), values[rows].tolist(), strict=True)
    queries = uniques[np.argsort(first, kind="stable")].tolist()
    dicts = map(dict, map(islice, repeat(pairs), sizes.tolist()))
    out.update(zip(queries, dicts, strict=True))
    if sum(map(len, out.values())) != n:  # a docno twice in a query
        pair = first_duplicate(inverse.reshape(-1), Tokens.from_strings(doc_ids))
        at = pair[1]
        raise DuplicateDocnoError(
            f"`{name}`: duplicate docno {str(doc_ids[at])!r} for query "
            f"{str(query_ids[at])!r}; expected each docno once per query"
        )
    return out
