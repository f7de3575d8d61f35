"""Diversity evaluation of a TREC run against subtopic qrels, as ndeval.

Subtopic qrels have trec_eval's qrels_jg layout, ``topic subtopic docno
judgment`` per line. The run is ranked as trec_eval (and ``ndeval
-traditional``) rank it: by score, ties by docno descending. The ideal of a
query is built from every document judged for it, ties in the greedy to the
larger docno, as ndeval. A retrieved document judged for no subtopic, or not
judged at all, gains nothing.

Queries: a run query without judgments is listed with zeros and left out of
the mean; the mean is over the queries of both (``all_queries=True``, ndeval
``-c``: over every judged query, those the run misses scoring 0).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from skirm._engine import dense_codes, rank_order
from skirm._errors import (
    DuplicateDocnoError,
    InvalidParameterError,
    NoCommonQueryError,
)
from skirm._measures import _table as table
from skirm._measures._grammar import DiversityName, parse_diversity
from skirm._measures._unknown import unknown_measure
from skirm.io import Run
from skirm.io._convert import convert_run
from skirm.io._join import block_repeat, index_of, judged_rows
from skirm.metrics._diversity import (
    NDEVAL_KS,
    Pairs,
    cells,
    check_alpha_beta,
    check_ks,
    diversity_table,
    pair_order,
)
from skirm.trec._inputs import SUBTOPICS, judgements
from skirm.trec._ranked import by_docno

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from skirm.io._input_types import QrelsJGLike, RunLike

__all__ = [
    "OneSubtopicWarning",
    "evaluate_diversity",
    "format_ndeval",
    "warn_one_subtopic",
]


class OneSubtopicWarning(UserWarning):
    """Judgments given to the diversity measures have one subtopic per
    query: ordinary qrels, most likely, whose second field (``0``) was read
    as the subtopic. The measures are then computed, but measure no
    diversity; ``skirm eval`` refuses such judgments.

    Examples
    --------
    >>> import warnings
    >>> from skirm.trec import OneSubtopicWarning
    >>> warnings.simplefilter("ignore", OneSubtopicWarning)  # doctest: +SKIP
    """


OneSubtopicWarning.__module__ = "skirm.trec"

#: How the warning tells where the subtopic comes from.
SUBTOPIC_SOURCES = (
    "the subtopic is the second field of a qrels line (`topic subtopic docno "
    "judgment`), the middle key of a dict {qid: {subtopic: {docid: rel}}}, a "
    "frame's subtopic (or iteration) column or the iteration field of "
    "ir_measures' Qrel"
)


def one_subtopic_message(qrels) -> str | None:
    """The warning's text when every query of ``qrels`` (a QrelsJG) has one
    subtopic, else None."""
    n_queries = qrels._graded()._n_queries()
    if n_queries == 0 or qrels._n_topics() > n_queries:
        return None
    return (
        "every query of `qrels` has only 1 subtopic: ordinary qrels read as "
        "subtopic judgments, for which the diversity measures measure no "
        f"diversity; {SUBTOPIC_SOURCES}"
    )


def warn_one_subtopic(qrels) -> None:
    """A :class:`OneSubtopicWarning` when every query has one subtopic."""
    message = one_subtopic_message(qrels)
    if message is not None:
        warnings.warn(message, OneSubtopicWarning, stacklevel=3)


def _codes(ids, order_ids):
    """Each id's position in ``order_ids`` (a permutation of its distinct
    values); -1 for an id not there."""
    lookup = np.argsort(order_ids, kind="stable")
    sorted_ids = order_ids[lookup]
    where = np.minimum(
        np.searchsorted(sorted_ids, ids), max(sorted_ids.shape[0] - 1, 0)
    )
    if sorted_ids.shape[0] == 0:
        return np.full(ids.shape[0], -1, dtype=np.intp)
    return np.where(sorted_ids[where] == ids, lookup[where], -1)


def _query_order(ids):
    """ndeval's topic order of sorted distinct ``ids``: numeric when every
    id is an integer."""
    if ids.size and np.strings.isdigit(ids).all():
        return ids[np.argsort(ids.astype(np.int64), kind="stable")]
    return ids


def evaluate_diversity(
    qrels: QrelsJGLike,
    run: RunLike,
    measures: Sequence[str] | None = None,
    *,
    k: int | Sequence[int] = NDEVAL_KS,
    alpha: float = 0.5,
    beta: float = 0.5,
    relevance_threshold: int = 1,
    judged_only: bool = False,
    all_queries: bool = False,
) -> dict[str, Any]:
    """Evaluate a run with ndeval's diversity measures.

    Parameters
    ----------
    qrels : QrelsJG, path, file, dict, DataFrame, iterable or dataset
        Subtopic judgments in any shape :func:`skirm.io.as_qrels_jg` takes:
        a file of ``topic subtopic docno judgment`` lines, a dict of dicts
        of dicts ``{qid: {subtopic: {docid: relevance}}}``, a frame with a
        subtopic column, ir_measures' ``Qrel`` tuples (the subtopic in
        ``iteration``). Ordinary qrels are read with one subtopic per query
        and warned of (:class:`OneSubtopicWarning`).
    run : Run, path, file, dict, DataFrame, iterable or dataset
        A run in any shape :func:`skirm.io.as_run` takes.
    measures : list of str, default=None
        Measure strings in ir_measures' spelling (``"alpha_nDCG@20"``,
        ``"ERR_IA(rel=2)@10"``, ``"NRBP(alpha=0.3,beta=0.8)"``, ``"AP_IA"``,
        ``"P_IA@5"``, ``"StRecall@10"``, ``"α_nDCG@5"``) or ndeval's column
        names (``"alpha-nDCG@10"``, ``"MAP-IA"``, ``"strec@20"``); the
        options in a name win over the keyword arguments. ``None``: every
        column ndeval prints, at the cutoffs ``k``.
    k : int or tuple of int, default=(5, 10, 20)
        The cutoffs of the cutoff measures when ``measures`` is None.
    alpha, beta : float, default=0.5
        Redundancy intolerance and patience (ndeval ``-alpha``, ``-beta``).
    relevance_threshold : int, default=1
        A judgment counts when at least this (ndeval reads judgments above 0
        as relevant; pyndeval's ``relevance_level``, ir_measures' ``rel``).
    judged_only : bool, default=False
        Drop the retrieved documents the qrels do not list for the query
        before ranking (ir_measures' ``judged_only``).
    all_queries : bool, default=False
        Average over every judged query (ndeval ``-c``).

    Returns
    -------
    report : dict
        ``"run_id"``, ``"query_ids"`` (the run's queries, in ndeval's
        order), ``"judged"`` (per query: whether it has judgments),
        ``"n_subtopics"``, one array per measure keyed by its name (ndeval's
        column names by default), and ``"mean"``: a dict of the means.

    Examples
    --------
    >>> import io
    >>> from skirm.trec import evaluate_diversity
    >>> qrels = io.StringIO("1 1 d1 1\\n1 2 d2 1\\n1 1 d3 1\\n")
    >>> run = io.StringIO("1 Q0 d1 1 3 s\\n1 Q0 d3 2 2 s\\n1 Q0 d2 3 1 s\\n")
    >>> report = evaluate_diversity(qrels, run)
    >>> round(report["mean"]["alpha-nDCG@5"], 4)
    0.9652
    """
    defaults = {
        "alpha": alpha,
        "beta": beta,
        "rel": relevance_threshold,
        "judged_only": judged_only,
    }
    requests = diversity_requests(measures, k, defaults)
    qrels = judgements(qrels, SUBTOPICS)
    warn_one_subtopic(qrels)
    if not isinstance(run, Run):
        run = convert_run(run, "run")
    return diversity_report(qrels, run, requests, all_queries)


def diversity_report(qrels, run, requests, all_queries, ties="docno"):
    """:func:`evaluate_diversity`'s report of the ``requests`` (see
    :func:`diversity_requests`) of a run (a :class:`~skirm.io.Run`) against
    subtopic judgments (a :class:`~skirm.io.QrelsJG`), tied scores ranked by
    docno descending (``ties="docno"``, ndeval's rule), ascending
    (``"docno_ascending"``, pyndeval's) or in the run's order
    (``"input"``)."""
    query_ids = _query_order(run._query_codes()[1])
    judged_ids = qrels._graded()._query_codes()[1]
    joined = _joined(qrels, run, query_ids)

    report = {"query_ids": query_ids}
    for (a, b, rel, dropped), items in requests.items():
        ks = tuple(sorted({c for _, _, c in items if c is not None})) or (1,)
        ranked, ideal = _pairs(qrels, run, joined, rel, dropped, ties)
        found, n_sub = diversity_table(
            ranked, ideal, query_ids.shape[0], alpha=a, beta=b, ks=ks
        )
        report.setdefault("n_subtopics", n_sub.astype(np.int64))
        for name, measure, cut in items:
            values = found[measure]
            report[name] = values if cut is None else values[:, ks.index(cut)]
    judged = _codes(query_ids, judged_ids) >= 0  # no np.isin: it loads numpy.ma
    report["judged"] = judged
    report["run_id"] = run.run_id
    n_mean = judged_ids.shape[0] if all_queries else int(judged.sum())
    if n_mean == 0:
        raise NoCommonQueryError(
            "no query of the run has subtopic judgments in the qrels; check "
            "that both files are of the same topics"
        )
    # Summed in query order, one after the other, as ndeval sums: a pairwise
    # sum can differ in the last bit, and then in ndeval's sixth decimal.
    report["mean"] = {
        name: float(np.cumsum(values[judged])[-1] / n_mean) if judged.any() else 0.0
        for name, values in report.items()
        if isinstance(values, np.ndarray) and values.dtype.kind == "f"
    }
    return report


def diversity_requests(measures, k, defaults):
    """The measures asked for, grouped by what their table depends on:
    ``{(alpha, beta, rel, judged_only): [(name, measure, cutoff), ...]}``."""
    if measures is None:
        ks = check_ks(k)
        names = [
            f"{m.ndeval[0]}@{c}" if m.takes_k else m.ndeval[0]
            for m in table.DIVERSITY_MEASURES
            for c in (ks if m.takes_k else ks[:1])
        ]
    elif isinstance(measures, str) or not all(
        isinstance(m, (str, DiversityName)) for m in measures
    ):
        raise InvalidParameterError(
            f"`measures` must be a list of measure names, got {measures!r}"
        )
    else:
        names = list(measures)
    requests = {}
    for name in names:
        parsed = name if isinstance(name, DiversityName) else parse_diversity(name)
        if parsed is None:
            raise unknown_measure(name, "diversity")
        options = {**defaults, **parsed.options}
        a, b = check_alpha_beta(options["alpha"], options["beta"])
        rel = options["rel"]
        if isinstance(rel, bool) or not isinstance(rel, int | np.integer):
            raise InvalidParameterError(
                f"`rel` of {parsed.text!r} must be an integer level, got {rel!r}"
            )
        key = (a, b, int(rel), bool(options["judged_only"]))
        requests.setdefault(key, []).append((parsed.text, parsed.measure, parsed.k))
    return requests


class _Joined(NamedTuple):
    """The run joined to the subtopic judgments, once for every table of a
    report: the run's rows of the judged queries (``keep``, their query's
    ``codes`` into the sorted ``eval_ids``, the first qrels row judging the
    docno of each or -1), each qrels row's first row with its query and
    docno, the report's row of each evaluated query (``place``) and of each
    qrels row's query (-1: not in the run)."""

    block: Run
    eval_ids: np.ndarray
    keep: np.ndarray
    codes: np.ndarray
    judged: np.ndarray
    first: np.ndarray
    place: np.ndarray
    q_place: np.ndarray


def _joined(qrels, run, query_ids):
    """The :class:`_Joined` rows of ``run`` against ``qrels`` (report rows
    ``query_ids``), by the one join of a run to its judgments."""
    block = run
    pair = None if block.__dict__.get(_NO_REPEAT) else block_repeat(block)
    if pair is not None:
        bad = pair[1]
        raise DuplicateDocnoError(
            f"run: docno {str(run.doc_ids[bad])!r} is listed twice for query "
            f"{str(run.query_ids[bad])!r}; ndeval takes each document once"
        )
    graded = qrels._graded()
    q_codes, q_ids = graded._query_codes()
    shared = qrels.__dict__.get("_judged_pairs")
    if shared is None:
        index = index_of(graded)
        eval_ids, keep, codes, judged = judged_rows(index, block)
        first = index.first_rows()
    else:  # the run joined to the judged pairs, each at its first row
        pairs, rows, first = shared
        eval_ids, keep, codes, judged = judged_rows(index_of(pairs), block)
        hit = judged >= 0
        judged[hit] = rows[judged[hit]]
    return _Joined(
        block,
        eval_ids,
        keep,
        codes,
        judged,
        first,
        _codes(eval_ids, query_ids),
        _codes(q_ids, query_ids)[q_codes],
    )


#: Set on a run whose (query, docno) pairs were found distinct already.
_NO_REPEAT = "_no_repeated_docno"


def no_repeat(run):
    """Tell :func:`_joined` that no docno of ``run`` (a
    :class:`~skirm.io.Run` the caller made) repeats in a query: it was
    checked when read, and is not looked for again."""
    run.__dict__[_NO_REPEAT] = True


def share_pairs(qrels, pairs, rows, first):
    """Join runs to ``pairs``, :class:`~skirm.io.Qrels` of the subtopic
    judgments ``qrels``' judged (query, document) pairs, rather than to
    ``qrels`` themselves: the judgments' ``rows`` of the pairs and the
    ``first`` row of each judgment's pair (the rows :func:`_joined` reads),
    so that an index of the pairs built for the other measures serves the
    diversity measures too."""
    qrels.__dict__["_judged_pairs"] = (pairs, rows, first)


def _pairs(qrels, run, joined, relevance_threshold, judged_only, ties):
    """The relevant pairs of the ranked run and of each query's ideal: the
    judged rows ranked by the engine (score descending, then the tie rule
    ``ties``), each relevant judgment's subtopic on its row."""
    keep, codes, judged = joined.keep, joined.codes, joined.judged
    if judged_only:
        kept = judged >= 0
        keep, codes, judged = keep[kept], codes[kept], judged[kept]
    if ties == "input":
        tiebreak = keep.take
    else:
        tiebreak = by_docno(joined.block._d, keep, ties == "docno")
    n_eval = int(joined.eval_ids.shape[0])
    if keep.shape[0]:
        ordered = rank_order(
            run.scores[keep], codes, n_eval, "first", tiebreak=tiebreak
        )
        order, ranked = ordered.order, ordered.codes
        position = np.arange(order.shape[0]) - ordered.starts[ranked]
    else:  # no query of the run is judged
        order = ranked = position = np.zeros(0, dtype=np.intp)
    ranked_codes = joined.place[ranked]

    # Judged relevant (query, subtopic, docno) triples of the run's queries.
    relevant = np.flatnonzero(
        (qrels.labels >= relevance_threshold) & (joined.q_place >= 0)
    )
    cell = _cells(qrels, joined, relevant)
    n_cells = int(cell.max(initial=-1)) + 1
    first = joined.first[relevant]  # the judged document of each triple

    # The ideal's candidates: judged relevant documents per query, docno
    # descending (in byte order).
    candidates, cand_of_pair = np.unique(first, return_inverse=True)
    cand_of_pair = cand_of_pair.reshape(-1)
    cand_codes = joined.q_place[candidates]
    docno_rank = qrels._d.order_key(candidates)
    cand_order = pair_order(cand_codes, -docno_rank)  # distinct pairs
    rank_in_ideal = np.empty_like(cand_order)
    rank_in_ideal[cand_order] = np.arange(cand_order.shape[0])
    i_row = rank_in_ideal[cand_of_pair]
    by_row = pair_order(i_row, cell)  # (row, subtopic): distinct
    ideal = Pairs(cand_codes[cand_order], None, i_row[by_row], cell[by_row], n_cells)

    # The run's pairs: each judged triple on the ranked row of its document.
    row_of = np.full(joined.first.shape[0], -1, dtype=np.int64)
    judged_ranked = judged[order]
    at = np.flatnonzero(judged_ranked >= 0)
    row_of[judged_ranked[at]] = at
    rows = row_of[first]
    hit = rows >= 0
    r_row = rows[hit]
    cell = cell[hit]
    by_row = pair_order(r_row, cell)
    ranked = Pairs(ranked_codes, position, r_row[by_row], cell[by_row], n_cells)
    return ranked, ideal


def _cells(qrels, joined, rows):
    """Dense ids of the (query, subtopic) cells of the judgments ``rows``:
    a query's cells in the order of its subtopics' strings (the order in
    which its measures sum them). Where the subtopics' buffer holds ASCII
    bytes only (a file's read whole: its other columns too), the
    judgments' own (query, subtopic) codes are taken, in byte order: the
    strings' order; otherwise the subtopics are sorted as strings."""
    subtopics = qrels._g
    if subtopics.buf.max(initial=0) < 128:
        return dense_codes(qrels._topic_codes[rows])
    j_sub, _ = subtopics.take(rows).codes()
    return cells(joined.q_place[rows], j_sub)


def format_ndeval(report: Mapping[str, Any]) -> str:
    """ndeval's CSV: a header, a line per run query, then ``amean``.

    Byte for byte ndeval's (``-traditional``) output, including its ``-nan``
    for nNRBP on a judged query without a relevant document, and in the mean
    then (``report`` holds 0 there).

    Parameters
    ----------
    report : dict
        What :func:`evaluate_diversity` returns.

    Returns
    -------
    text : str
        The CSV, lines ending with a newline.

    Examples
    --------
    >>> import io
    >>> from skirm.trec import evaluate_diversity, format_ndeval
    >>> qrels = io.StringIO("1 1 d1 1\\n1 2 d2 1\\n")
    >>> run = io.StringIO("1 Q0 d1 1 3.0 sys\\n1 Q0 d2 2 2.0 sys\\n")
    >>> text = format_ndeval(evaluate_diversity(qrels, run))
    >>> print(text.splitlines()[-1][:45])
    sys,amean,0.544629,0.541075,0.541011,1.000000
    """
    names = [
        name
        for name, values in report.items()
        if isinstance(values, np.ndarray) and values.dtype.kind == "f"
    ]
    run_id = report["run_id"]
    undefined = report["judged"] & (report["n_subtopics"] == 0)

    def cell(name, value, nan):
        return "-nan" if nan and name == table.NNRBP.ndeval[0] else f"{value:.6f}"

    lines = ["runid,topic," + ",".join(names)]
    for i, query in enumerate(report["query_ids"]):
        values = (cell(n, report[n][i], undefined[i]) for n in names)
        lines.append(f"{run_id},{query}," + ",".join(values))
    mean = report["mean"]
    values = (cell(n, mean[n], undefined.any()) for n in names)
    lines.append(f"{run_id},amean," + ",".join(values))
    return "\n".join(lines) + "\n"
