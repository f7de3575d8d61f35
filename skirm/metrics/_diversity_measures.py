"""The diversity measures on arrays: a subtopic label matrix, one column per
subtopic, and the public functions.

``y_true`` has shape (n_samples, n_subtopics): the judgment of each row for
each subtopic (the columns are shared by all queries; a query uses those its
rows are relevant to). This keeps one row per document, as every other skirm
metric, so scores, ``groups`` and ``sample_weight`` are the same arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import check_input, rank
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures import _table as table
from skirm._params import NO_RELEVANT, RELEVANCE_THRESHOLD
from skirm._validation import as_numeric_array
from skirm.metrics._diversity import (
    NDEVAL_KS,
    Pairs,
    cells,
    check_alpha_beta,
    check_ks,
    diversity_table,
)
from skirm.metrics._spec import mean_over_queries, refuse_average_ties

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

    from skirm._typing import NoRelevant, Ties, Unjudged

__all__ = [
    "alpha_dcg_score",
    "alpha_ndcg_score",
    "diversity_report",
    "err_ia_score",
    "map_ia_score",
    "nerr_ia_score",
    "nnrbp_score",
    "nrbp_score",
    "precision_ia_score",
    "subtopic_recall_score",
]


def _subtopic_matrix(y_true, n_rows):
    arr = as_numeric_array(y_true, "y_true")
    if arr.ndim != 2:
        raise InvalidInputError(
            "`y_true` of a diversity measure must be 2-D, shape (n_samples, "
            f"n_subtopics): one column per subtopic; got shape {arr.shape}"
        )
    if arr.shape[0] != n_rows or arr.shape[1] == 0:
        raise InvalidInputError(
            f"`y_true` must have one row per score ({n_rows}) and at least one "
            f"subtopic column, got shape {arr.shape}"
        )
    values = arr[~np.isnan(arr)] if arr.dtype.kind == "f" else arr
    if values.size and (values.min() < 0 or not np.isfinite(values).all()):
        raise InvalidInputError(
            "`y_true` must hold finite, non-negative subtopic judgments "
            "(NaN marks an unjudged entry)"
        )
    return arr


def subtopic_ranking(
    y_true, y_score, *, groups, relevance_threshold, sample_weight, ties, unjudged
):
    """Rank the rows once: returns ``(ranking, run, ideal)``, the engine's
    ranking and the relevant pairs of the ranked rows and of the ideal's
    candidates (the same rows, later input rows first)."""
    scores = np.asarray(y_score)
    if scores.ndim != 1:
        raise InvalidInputError(
            f"`y_score` of a diversity measure must be 1-D, got shape {scores.shape}"
        )
    matrix = _subtopic_matrix(y_true, scores.shape[0])
    threshold = RELEVANCE_THRESHOLD(relevance_threshold)
    nan = np.isnan(matrix) if matrix.dtype.kind == "f" else None
    with np.errstate(invalid="ignore"):
        rel = matrix > 0 if threshold is None else matrix >= threshold
    # A row with no judgment at all is unjudged; NaN entries of a judged row
    # are subtopics it was not judged for, read as not relevant (ndeval).
    surrogate = rel.sum(axis=1).astype(np.float64)
    if nan is not None:
        surrogate[nan.all(axis=1)] = np.nan
    ranking = rank(
        check_input(
            surrogate,
            scores,
            groups=groups,
            sample_weight=sample_weight,
            ties=ties,
            unjudged=unjudged,
        )
    )
    refuse_average_ties(
        ranking,
        "the diversity measures",
        "a row's novelty depends on the rows above it",
    )
    rows = ranking.order
    if unjudged == "condensed" and nan is not None:
        rows = np.flatnonzero(~np.isnan(surrogate))[rows]
    r_row, r_sub = np.nonzero(rel[rows])
    cell = cells(ranking.codes[r_row], r_sub)
    n_cells = int(cell.max(initial=-1)) + 1
    run = Pairs(ranking.codes, ranking.position, r_row, cell, n_cells)
    # The ideal's candidates: the same rows, by query, later input rows
    # first; their pairs are the run's, renumbered and put in that order.
    ideal_order = np.lexsort((-rows, ranking.codes))
    ideal_row = np.empty_like(ideal_order)
    ideal_row[ideal_order] = np.arange(ideal_order.shape[0])
    by_row = np.lexsort((r_sub, ideal_row[r_row]))
    ideal = Pairs(
        ranking.codes[ideal_order],
        None,
        ideal_row[r_row][by_row],
        cell[by_row],
        n_cells,
    )
    return ranking, run, ideal


def _measure(measure, y_true, y_score, groups, k, alpha, beta, **kw):
    """Rank once, build the table, average one ``measure`` (a row of the
    measure table) over queries."""
    no_relevant = NO_RELEVANT(kw.pop("no_relevant"))
    alpha, beta = check_alpha_beta(alpha, beta)
    if measure is table.NNRBP and alpha == 0.0 and beta == 1.0:
        raise InvalidParameterError(
            "nnrbp is 0/0 for alpha=0 and beta=1 (NRBP's scale 1 - (1 - alpha) "
            "beta is 0); pass alpha > 0 or beta < 1"
        )
    ks = (1,) if k is None else check_ks(k)
    ranking, run, ideal = subtopic_ranking(y_true, y_score, groups=groups, **kw)
    found, n_sub = diversity_table(
        run, ideal, ranking.n_groups, alpha=alpha, beta=beta, ks=ks
    )
    values = found[measure]
    if values.ndim == 2:
        values = values[:, 0]
    return mean_over_queries(values, n_sub == 0, ranking, no_relevant, measure.name)[0]


_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_subtopics)
        The judgment of each row for each subtopic: relevant when above 0
        (or at least ``relevance_threshold``). A row of NaN is an unjudged
        row (see ``unjudged``); a NaN entry in a judged row is a subtopic it
        was not judged for, not relevant (ndeval's reading).

    y_score : array-like of shape (n_samples,)
        Scores; higher ranks first.

    groups : array-like of shape (n_samples,)
        The query of each row.
{k}{params}
    relevance_threshold : float, default=None
        A judgment counts when ``>= relevance_threshold`` (ndeval's and
        ir_measures' ``rel``); ``None`` means above 0.

    sample_weight : array-like of shape (n_samples,), default=None
        Query weights given per row, constant within each query.

    ties : {{"average", "first", "optimistic", "pessimistic"}}, default="average"
        How rows with equal scores are ordered. A row's novelty depends on
        the rows above it, so ``"average"`` is exact without ties and raises
        ValueError on tied scores; ``"first"`` keeps input order (ndeval and
        pyndeval order ties by docno).

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query none of whose rows is relevant to any subtopic.

    unjudged : {{"raise", "nonrelevant", "condensed"}}, default="raise"
        What a row of NaN means: an error, a row relevant to no subtopic
        (ndeval), or a row dropped before ranking (ir_measures'
        ``judged_only``).

    Returns
    -------
    score : float
        The mean over queries (weighted by ``sample_weight`` if given).
    """

_K_DOC = """
    k : int, default=20
        Only the top ``k`` rows count (ndeval reports 5, 10 and 20).
"""
_ALPHA_DOC = """
    alpha : float in [0, 1], default=0.5
        Redundancy intolerance: each earlier row relevant to a subtopic
        multiplies its gain by ``1 - alpha``.
"""
_BETA_DOC = """
    beta : float in [0, 1], default=0.5
        Patience: the user reads on to the next rank with probability beta.
"""


_EXAMPLE = """
    See the :ref:`diversity` guide for the model and its reference.

    Examples
    --------
    >>> from skirm.metrics import {name}
    >>> y_true = [[1, 0], [1, 1], [0, 0]]   # rows x subtopics
    >>> round({name}(y_true, [3, 2, 1], groups=[0, 0, 0]), 4)
    {value}
"""


def _docstring(name, title, value, *, cut, alpha=False, beta=False):
    """A diversity function's docstring: its title, the parameters and an
    example (``value``: what it prints)."""
    return (
        title
        + "\n"
        + _DOC.format(
            k=_K_DOC if cut else "",
            params=(_ALPHA_DOC if alpha else "") + (_BETA_DOC if beta else ""),
        )
        + _EXAMPLE.format(name=name, value=value)
    )


def _common(kw):
    return {
        "relevance_threshold": kw["relevance_threshold"],
        "sample_weight": kw["sample_weight"],
        "ties": kw["ties"],
        "unjudged": kw["unjudged"],
        "no_relevant": kw["no_relevant"],
    }


def alpha_dcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int = 20,
    alpha: float = 0.5,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.ALPHA_DCG, y_true, y_score, groups, k, alpha, 0.5, **kw)


def alpha_ndcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int = 20,
    alpha: float = 0.5,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.ALPHA_NDCG, y_true, y_score, groups, k, alpha, 0.5, **kw)


def err_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int = 20,
    alpha: float = 0.5,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.ERR_IA, y_true, y_score, groups, k, alpha, 0.5, **kw)


def nerr_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int = 20,
    alpha: float = 0.5,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.NERR_IA, y_true, y_score, groups, k, alpha, 0.5, **kw)


def nrbp_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    alpha: float = 0.5,
    beta: float = 0.5,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.NRBP, y_true, y_score, groups, None, alpha, beta, **kw)


def nnrbp_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    alpha: float = 0.5,
    beta: float = 0.5,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.NNRBP, y_true, y_score, groups, None, alpha, beta, **kw)


def map_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.MAP_IA, y_true, y_score, groups, None, 0.5, 0.5, **kw)


def precision_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int = 20,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.P_IA, y_true, y_score, groups, k, 0.5, 0.5, **kw)


def subtopic_recall_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int = 20,
    relevance_threshold: float | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    kw = _common(locals())
    return _measure(table.STREC, y_true, y_score, groups, k, 0.5, 0.5, **kw)


_TITLES = {
    alpha_dcg_score: (
        "0.6321",
        "alpha-DCG@k (Clarke et al. 2008) over ndeval's 'ideal ideal' list.",
        {"cut": True, "alpha": True},
    ),
    alpha_ndcg_score: (
        "0.8406",
        "alpha-nDCG@k (Clarke et al. 2008): alpha-DCG over the greedy ideal's.",
        {"cut": True, "alpha": True},
    ),
    err_ia_score: (
        "0.6312",
        "ERR-IA@k as ndeval reports it: novelty gain over rank, 'ideal ideal' "
        "normalised.",
        {"cut": True, "alpha": True},
    ),
    nerr_ia_score: (
        "0.7778",
        "nERR-IA@k: ERR-IA over the greedy ideal's.",
        {"cut": True, "alpha": True},
    ),
    nrbp_score: (
        "0.6562",
        "NRBP (Clarke et al. 2009): novelty- and rank-biased precision.",
        {"cut": False, "alpha": True, "beta": True},
    ),
    nnrbp_score: (
        "0.7778",
        "nNRBP: NRBP over the greedy ideal's.",
        {"cut": False, "alpha": True, "beta": True},
    ),
    map_ia_score: (
        "0.75",
        "MAP-IA (Agrawal et al. 2009): average precision per subtopic, averaged.",
        {"cut": False},
    ),
    precision_ia_score: (
        "0.075",
        "P-IA@k (Agrawal et al. 2009): precision at k per subtopic, averaged.",
        {"cut": True},
    ),
    subtopic_recall_score: (
        "1.0",
        "Subtopic recall at k (Zhai et al. 2003): share of subtopics covered.",
        {"cut": True},
    ),
}
for _function, (_value, _title, _flags) in _TITLES.items():
    _function.__doc__ = _docstring(_function.__name__, _title, _value, **_flags)


def diversity_report(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | Sequence[int] = NDEVAL_KS,
    alpha: float = 0.5,
    beta: float = 0.5,
    relevance_threshold: float | None = None,
    ties: Ties = "average",
    unjudged: Unjudged = "raise",
) -> dict[str, NDArray[Any]]:
    """Every diversity measure per query, as ndeval reports them.

    Parameters
    ----------
    y_true, y_score, groups, relevance_threshold, ties, unjudged
        As for :func:`alpha_ndcg_score`.

    k : int or tuple of int, default=(5, 10, 20)
        The cutoffs of the cutoff measures.

    alpha, beta : float, default=0.5
        Redundancy intolerance and patience.

    Returns
    -------
    report : dict
        ``"query_ids"``: the sorted distinct query labels; ``"n_subtopics"``:
        per query, the subtopics some row is relevant to; then one array per
        measure and cutoff, keyed as ndeval names them (``"alpha-nDCG@10"``,
        ``"NRBP"``, ``"MAP-IA"``, ...), 0 for a query with no subtopic (ndeval
        leaves nNRBP undefined there).

    Examples
    --------
    >>> from skirm.metrics import diversity_report
    >>> y_true = [[1, 0], [1, 1], [0, 0]]   # rows x subtopics
    >>> report = diversity_report(y_true, [3, 2, 1], groups=[0, 0, 0], k=5)
    >>> round(float(report["alpha-nDCG@5"][0]), 4)
    0.8406
    """
    alpha, beta = check_alpha_beta(alpha, beta)
    ks = check_ks(k)
    ranking, run, ideal = subtopic_ranking(
        y_true,
        y_score,
        groups=groups,
        relevance_threshold=relevance_threshold,
        sample_weight=None,
        ties=ties,
        unjudged=unjudged,
    )
    found, n_sub = diversity_table(
        run, ideal, ranking.n_groups, alpha=alpha, beta=beta, ks=ks
    )
    return report_of(found, n_sub, ranking.group_ids, ks)


def report_of(found, n_sub, query_ids, ks):
    """The per-query values of :func:`diversity_table` keyed by ndeval's
    column names, in its order."""
    report = {"query_ids": query_ids, "n_subtopics": n_sub.astype(np.int64)}
    for measure in table.DIVERSITY_MEASURES:
        name = measure.ndeval[0]
        if measure.takes_k:
            for j, k in enumerate(ks):
                report[f"{name}@{k}"] = found[measure][:, j]
        else:
            report[name] = found[measure]
    return report
