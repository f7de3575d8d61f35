"""Runs in, a run out: :func:`fuse`, and :func:`tune_fusion`, its weights
chosen per fold of queries on trec_eval's measures.

A door: the runs are read or converted by :mod:`skirm.io`, aligned and
fused by :mod:`skirm.fusion`, scored by :func:`evaluate_run`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import Interval, Param, checked
from skirm._validation import type_name
from skirm.fusion._align import align_dicts, align_runs, fused_run
from skirm.fusion._combine import Fusion
from skirm.fusion._rules import (
    METHOD,
    NORM,
    PHI,
    RRF_K,
    WEIGHT_STEP,
    WEIGHTS,
    check_weights,
)
from skirm.fusion._search import best_weights, weight_grid
from skirm.io._convert import convert_qrels, convert_run
from skirm.io._records import Qrels, Run
from skirm.io._tokens import Tokens
from skirm.io._trec_files import WRITTEN_RUN_ID
from skirm.model_selection._split import QueryGroupKFold
from skirm.trec._evaluate_run import evaluate_run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from skirm._typing import FusionMethod, FusionNorm, RandomState
    from skirm.io._input_types import QrelsLike, RunLike

__all__ = ["TunedFusion", "fuse", "tune_fusion"]

#: The folds of queries of a tuning.
FOLDS = Param("folds", Interval(int, 2, closed="left"), option="--folds")


#: The run id of a run held as dicts (:func:`skirm.io.as_run`'s).
_DICT_RUN_ID = "skirm"


def _fusion(runs, method, norm, k, phi):
    """``(aligned rows, Fusion, run ids, records)`` of the runs to fuse:
    runs held as plain dicts read straight into the aligned rows (records
    None: a dict can be read again), any others each read (or converted)
    once, into the :class:`skirm.io.Run` returned."""
    if isinstance(runs, (str, bytes, dict)) or not isinstance(runs, (list, tuple)):
        raise InvalidParameterError(
            "`runs` must be a list of runs (paths, open files, dicts, frames, "
            f"skirm.io.Run or ranx Run objects), got {type_name(runs)}"
        )
    if not runs:
        raise InvalidParameterError("`runs` must hold at least one run, got none")
    aligned, records = align_dicts(runs), None
    if aligned is None:
        records = [convert_run(run, f"runs[{i}]") for i, run in enumerate(runs)]
        aligned = align_runs(records)
        names = [record.run_id for record in records]
    else:
        names = [_DICT_RUN_ID] * len(runs)

    def where(j, code):
        return f"query {str(aligned.query_ids[code])!r} of run {j} ({names[j]!r})"

    fusion = Fusion(
        aligned.X,
        aligned.codes,
        aligned.query_ids.shape[0],
        method=method,
        norm=norm,
        k=k,
        phi=phi,
        where=where,
    )
    return aligned, fusion, names, records


_SETTINGS = {"method": METHOD, "norm": NORM, "k": RRF_K, "phi": PHI}


@checked(**_SETTINGS, weights=WEIGHTS, run_id=WRITTEN_RUN_ID)
def fuse(
    runs: Sequence[RunLike],
    *,
    method: FusionMethod = "rrf",
    norm: FusionNorm = "min-max",
    k: float = 60.0,
    phi: float = 0.8,
    weights: ArrayLike | None = None,
    run_id: str = "fused",
) -> Run:
    """Fuse TREC runs into one run.

    Each query's documents are the union of those the runs returned; each is
    scored by :func:`skirm.fusion.fuse_scores` on the runs' scores of it
    (formulas, ties and missing documents in the user guide).

    Parameters
    ----------
    runs : list of runs
        Two or more runs (one is accepted: its scores are normalised or
        ranked), each in any shape :func:`skirm.io.as_run` takes: a path or
        open file in TREC format, a dict of dicts ``{qid: {docid: score}}``,
        a DataFrame, a :class:`skirm.io.Run`, a ranx ``Run``. A query missing
        from a run counts as one it returned nothing for.
    method, norm, k, phi, weights
        As for :func:`skirm.fusion.fuse_scores`; ``weights`` one per run.
    run_id : str, default="fused"
        The run id of the fused run.

    Returns
    -------
    run : skirm.io.Run
        The fused run, its rows ranked: by query id, then fused score
        descending, then docno descending. Documents only runs of weight 0
        returned are left out.

    Raises
    ------
    DuplicateDocnoError
        When a run holds a docno twice for a query.

    See Also
    --------
    tune_fusion : The weights chosen per fold of queries.
    skirm.ranker.FusionRanker : The fusion as an estimator.

    Examples
    --------
    >>> from skirm.trec import fuse
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.1}}
    >>> dense = {"q1": {"d2": 0.83, "d4": 0.80}}
    >>> run = fuse([bm25, dense], method="rrf", k=60)
    >>> run.doc_ids.tolist()
    ['d2', 'd1', 'd4', 'd3']
    >>> run.scores.round(5).tolist()
    [0.03252, 0.01639, 0.01613, 0.01587]
    """
    aligned, fusion, _, _ = _fusion(runs, method, norm, k, phi)
    fused = fusion.fuse(check_weights(weights, fusion.n_retrievers))
    return fused_run(aligned, fused, run_id)


@dataclass(frozen=True, repr=False)
class TunedFusion:
    """What :func:`tune_fusion` returns.

    Attributes
    ----------
    run : skirm.io.Run
        The fused run of held-out scores: each query fused with the weights
        chosen on the other folds' queries.
    weights : ndarray of shape (n_folds, n_runs)
        The weights chosen for each fold (on the queries of the others).
    folds : list of ndarray of str
        The query ids of each fold.
    train_scores : ndarray of shape (n_folds,)
        The training ``metric`` of each fold's weights.
    run_ids : list of str
        The run id of each input run.
    metric : str
        The measure maximised.
    results : dict of str to EvaluationResult
        ``metric`` of the held-out run (under its ``run_id``) and of each
        input run (under its run id; ``run1``, ``run2``, ... where two share
        one), on every judged query of the runs, a run without documents for
        a query scoring 0 there: ``skirm.stats.compare(tuned.results,
        baseline=run_id)`` tests whether fusion helped.
    """

    run: Run
    weights: np.ndarray
    folds: list
    train_scores: np.ndarray
    run_ids: list
    metric: str
    results: dict

    def __repr__(self):
        return (
            f"TunedFusion(metric={self.metric!r}, n_folds={len(self.folds)}, "
            f"run_ids={self.run_ids!r})"
        )


def _judged(qrels, aligned):
    """The judgements of the runs' queries: each query some run holds and
    the qrels judge is evaluated, a run without documents for it scoring 0
    (trec_eval -c), and no other."""
    keep = np.isin(qrels.query_ids, aligned.query_ids)
    if keep.all():
        return qrels
    return Qrels(qrels.query_ids[keep], qrels.doc_ids[keep], qrels.labels[keep])


def _evaluation(qrels, run, metric):
    result = evaluate_run(qrels, run, metric, all_queries=True)
    if len(result.per_query) != 1:
        raise InvalidParameterError(
            f"`metric` must name one measure with per-query values, got "
            f"{metric!r} ({len(result.per_query)} outputs)"
        )
    return result


def _per_query(qrels, aligned, fused, metric, queries):
    """The ``metric`` of each query code (NaN where not judged)."""
    keep = np.flatnonzero(fused > -np.inf)
    run = Run._from_tokens(
        queries.take(aligned.codes[keep]),
        aligned.docs.take(keep),
        fused[keep],
        None,
        "<fused>",
        run_id="fused",
    )
    result = _evaluation(qrels, run, metric)
    values = np.full(aligned.query_ids.shape[0], np.nan)
    at = np.searchsorted(aligned.query_ids, result.group_ids)
    values[at] = next(iter(result.per_query.values()))
    return values


def _names(run_ids, fused_id):
    """The names of the input runs in :attr:`TunedFusion.results`."""
    if len(set(run_ids)) == len(run_ids) and fused_id not in run_ids:
        return list(run_ids)
    return [f"run{i + 1}" for i in range(len(run_ids))]


@checked(**_SETTINGS, folds=FOLDS, weight_step=WEIGHT_STEP, run_id=WRITTEN_RUN_ID)
def tune_fusion(
    qrels: QrelsLike,
    runs: Sequence[RunLike],
    metric: str = "ndcg@10",
    *,
    method: FusionMethod = "rrf",
    norm: FusionNorm = "min-max",
    k: float = 60.0,
    phi: float = 0.8,
    folds: int = 5,
    weight_step: float = 0.1,
    random_state: RandomState = None,
    run_id: str = "fused",
) -> TunedFusion:
    """Fuse runs with weights chosen on other queries: a held-out fused run.

    The queries are cut into ``folds`` folds. For each fold, every vector of
    weights on the grid of ``weight_step`` (multiples summing to 1) is scored
    by ``metric`` (trec_eval's, through :func:`evaluate_run`) on the judged
    queries of the *other* folds (a query the weights leave without
    documents scoring 0); the best (the nearest to equal weights among
    equals) fuses the fold's queries. Every query's fused scores thus come
    from weights chosen without it: compare the run returned with each input
    run (``skirm.stats.compare(tuned.results, baseline=run_id)``) to know
    whether fusion helps.

    Parameters
    ----------
    qrels : qrels
        Judgements, in any shape :func:`skirm.io.as_qrels` takes.
    runs : list of runs
        As for :func:`fuse`.
    metric : str, default="ndcg@10"
        One measure with per-query values, in skirm's or trec_eval's names
        (``"ndcg@10"``, ``"ndcg_cut_10"``, ``"map"``, ``"P_10"``).
    method, norm, k, phi
        As for :func:`fuse`.
    folds : int, default=5
        Folds of queries (at least 2, at most the number of queries).
    weight_step : float, default=0.1
        The spacing of the weights searched.
    random_state : int, RandomState instance or None, default=None
        Shuffle the queries into folds with this seed; None cuts them in
        order of their ids.
    run_id : str, default="fused"

    Returns
    -------
    tuned : TunedFusion
        ``tuned.run`` the held-out fused run, ``tuned.weights`` the weights
        of each fold.

    Examples
    --------
    >>> from skirm.trec import tune_fusion
    >>> qrels = {f"q{i}": {"good": 1} for i in range(4)}
    >>> lexical = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(4)}
    >>> dense = {f"q{i}": {"bad": 0.9, "other": 0.5, "good": 0.1} for i in range(4)}
    >>> tuned = tune_fusion(qrels, [lexical, dense], "ndcg@10", folds=2,
    ...                     weight_step=0.5)
    >>> tuned.weights.tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    >>> tuned.run.doc_ids[:2].tolist()
    ['good', 'bad']
    """
    aligned, fusion, names, records = _fusion(runs, method, norm, k, phi)
    qrels = convert_qrels(qrels, "qrels")
    n_queries = aligned.query_ids.shape[0]
    if folds > n_queries:
        raise InvalidInputError(
            f"`folds`={folds} is more than the {n_queries} queries of the runs"
        )
    qrels = _judged(qrels, aligned)
    queries = Tokens.from_strings(aligned.query_ids)
    grid = weight_grid(fusion.n_retrievers, weight_step)
    values = np.stack(
        [_per_query(qrels, aligned, fusion.fuse(v), metric, queries) for v in grid]
    )
    cv = QueryGroupKFold(
        folds, shuffle=random_state is not None, random_state=random_state
    )
    codes = np.arange(n_queries)
    splits = list(cv.split(codes[:, None], groups=codes))
    judged = ~np.isnan(values[0])
    train_scores = np.full((grid.shape[0], folds), np.nan)
    for f, (train, _) in enumerate(splits):
        train = train[judged[train]]
        if train.shape[0]:
            train_scores[:, f] = values[:, train].mean(axis=1)
    best = best_weights(grid, train_scores)
    held_out = np.full(aligned.X.shape[0], -np.inf)
    fold_of = np.empty(n_queries, dtype=np.int64)
    for f, (_, test) in enumerate(splits):
        fold_of[test] = f
    for f in range(folds):
        rows = fold_of[aligned.codes] == f
        held_out[rows] = fusion.fuse(grid[best[f]])[rows]
    run = fused_run(aligned, held_out, run_id)
    results = {run_id: _evaluation(qrels, run, metric)}
    # the records read once: an open file or an iterator is not read again;
    # runs held as dicts (read straight into the rows) are converted now
    if records is None:
        records = [convert_run(run, f"runs[{i}]") for i, run in enumerate(runs)]
    for name, record in zip(_names(names, run_id), records, strict=True):
        results[name] = _evaluation(qrels, record, metric)
    return TunedFusion(
        run=run,
        weights=grid[best],
        folds=[aligned.query_ids[test] for _, test in splits],
        train_scores=train_scores[best, np.arange(folds)],
        run_ids=names,
        metric=metric,
        results=results,
    )
