"""The prediction-powered estimate from labels and scores:
:func:`ppi_evaluate`.

The rows are evaluated through :func:`skirm.metrics.evaluate` under the
judge's labels (every query) and under the gold labels (the queries humans
judged), and the two results go to :func:`~skirm.stats.ppi_mean`. A gold
query whose humans judged only some of its documents is used as follows:

- documents chosen by the assessors (``document_sampling=None``: the top k
  of each ranking, say): the query is gold for a metric when its judged
  documents determine it (the value is the same whether every other
  document is given the lowest label or the highest: the top k checked for
  P@k or DCG@k), and an error names a query where they do not;
- documents drawn at random (``document_sampling="random"``), for a metric
  linear in its documents' gains on a fixed ranking (precision@k, dcg@k):
  the query's value is estimated from its judged documents, a simple random
  sample of the query's documents, as the judge's value plus the judged
  documents' corrections scaled by the inverse of the share judged
  (Horvitz and Thompson 1952). The estimate is unbiased for the query's
  value, and PPI over the queries stays valid: the variance over the gold
  queries of these two-stage estimates holds the documents' sampling noise
  too (the "ultimate cluster" variance). It is used even where a sample
  happens to determine the value: taking the value then would bias the
  estimate over the samples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import encode_groups
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures import _table as table
from skirm._params import NO_RELEVANT, NONE, OneOf, Param, checked
from skirm._validation import as_numeric_array
from skirm.metrics import EvaluationResult, evaluate, get_metric
from skirm.stats._paired import CONFIDENCE
from skirm.stats._ppi_inputs import check_scales
from skirm.stats._ppi_mean import PPI_INTERVAL, PPI_METHOD, ppi_mean

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Ties
    from skirm.stats._ppi_mean import PPIResult

#: How the judged rows of a partly judged query were chosen.
DOCUMENT_SAMPLING = Param("document_sampling", OneOf("random"), NONE)
#: The metrics linear in their documents' gains on a fixed ranking, whose
#: value a random sample of judged documents estimates without bias.
LINEAR = (table.PRECISION.name, table.DCG.name)


def _labels(y_true, gold, gold_mask):
    judge = as_numeric_array(y_true, "y_true")
    if judge.ndim not in (1, 2) or judge.shape[0] == 0:
        raise InvalidInputError(
            "`y_true` must hold the judge's labels, shape (n_samples,) or "
            f"(n_samples, n_draws), got shape {judge.shape}"
        )
    if not np.isfinite(judge).all() or (judge < 0).any():
        raise InvalidInputError(
            "`y_true` must hold the judge's label of every row: finite and non-negative"
        )
    human = as_numeric_array(gold, "gold")
    if human.shape != judge.shape[:1]:
        raise InvalidInputError(
            f"`gold` must hold one label per row ({judge.shape[0]}), NaN where no "
            f"human judged, got shape {human.shape}"
        )
    if gold_mask is not None:
        mask = np.asarray(gold_mask)
        if mask.dtype != bool or mask.shape != human.shape:
            raise InvalidInputError(
                f"`gold_mask` must be a boolean array of one value per row "
                f"({human.shape[0]}), got {mask.dtype} of shape {mask.shape}"
            )
        if not np.isfinite(human[mask]).all():
            raise InvalidInputError(
                "`gold` must hold a finite label wherever `gold_mask` is True"
            )
        human = np.where(mask, human, np.nan)
    judged = np.isfinite(human)
    if np.isinf(human).any() or (human[judged] < 0).any():
        raise InvalidInputError(
            "`gold` must hold non-negative labels, NaN where no human judged"
        )
    if not judged.any():
        raise InvalidInputError(
            "`gold` holds no label: no row judged by humans overlaps the judge's"
        )
    top_judge, top_gold = float(judge.max()), float(human[judged].max())
    check_scales(top_judge, top_gold, "`y_true`", "`gold`")
    return (judge if judge.ndim == 2 else judge[:, None]), human, judged


def _per_query(labels, y_score, groups, metrics, options):
    """Each metric's per-query values under ``labels`` (n_rows, n_draws):
    their mean over the draws."""
    if labels.shape[1] == 1:
        result = evaluate(labels[:, 0], y_score, groups=groups, metrics=metrics,
                          **options)  # fmt: skip
        return result, {m: result.per_query[m] for m in result.per_query}
    result = evaluate(labels[:, 0], y_score, groups=groups, metrics=metrics,
                      label_samples=labels, **options)  # fmt: skip
    return result, {m: v.mean(axis=1) for m, v in result.judge_per_query.items()}


def _undetermined(metric, ids, counts, sizes, where, sampling):
    q = ids[np.flatnonzero(where)[0]].item()
    head = (
        f"`gold` labels {int(counts[where][0])} of the {int(sizes[where][0])} "
        f"documents of query {q!r} ({np.count_nonzero(where)} such queries)"
    )
    linear = ", ".join(f"{name}@k" for name in LINEAR)
    if sampling is None:
        return InvalidInputError(
            f"{head}, which do not determine {metric!r}: label every document "
            "the metric reads (for a metric@k, the top k), or, for documents "
            f"drawn at random, pass document_sampling='random' ({linear})"
        )
    return InvalidInputError(
        f"{head}: document_sampling='random' estimates metrics linear in the "
        f"labels only ({linear}), not {metric!r}"
    )


def _gold_values(labels, judge_values, y_score, groups, metrics, options, sampling):
    """The gold value of each metric on each query (NaN where none), and the
    number of queries estimated from a sample of their documents. Only the
    rows of the queries humans judged are evaluated again."""
    judge, human, judged = labels
    codes, ids = encode_groups(np.asarray(groups))
    sizes = np.bincount(codes, minlength=ids.size)
    counts = np.bincount(codes, weights=judged, minlength=ids.size)
    touched = counts > 0
    partial = touched & (counts < sizes)
    rows = np.flatnonzero(touched[codes])
    scores, where = np.asarray(y_score)[rows], np.asarray(groups)[rows]
    human_rows, judged_rows = human[rows, None], judged[rows, None]
    low_label = min(float(judge.min()), float(human[judged].min()))
    high_label = max(float(judge.max()), float(human[judged].max()))

    def values_under(fill):
        """Each metric per touched query, the unjudged rows given ``fill``
        (a label, or the judge's labels: a column per draw)."""
        if np.ndim(fill) == 0:
            mixed = np.where(judged_rows, human_rows, fill)
        else:
            mixed = np.where(judged_rows, human_rows, fill[rows])
        result, values = _per_query(mixed, scores, where, metrics, options)
        if not np.array_equal(np.asarray(result.group_ids), ids[touched]):
            raise InvalidInputError(  # pragma: no cover - np.unique's order
                "`groups` must be sortable query labels"
            )
        return values

    low_values = values_under(low_label)
    out, sampled = {}, {}
    if sampling is None:
        high_values = values_under(high_label) if partial.any() else low_values
        for metric, lo in low_values.items():
            known = np.zeros(ids.size, dtype=bool)
            known[touched] = lo == high_values[metric]
            if (partial & ~known).any():
                raise _undetermined(metric, ids, counts, sizes, partial & ~known, None)
            values = np.full(ids.size, np.nan)
            values[touched] = lo
            out[metric] = np.where(known, values, np.nan)
            sampled[metric] = 0
        return ids, out, sampled
    mixed_values = None
    for metric, lo in low_values.items():
        values = np.full(ids.size, np.nan)
        values[touched] = lo  # exact where every row is judged
        sampled[metric] = int(np.count_nonzero(partial))
        if partial.any():
            if get_metric(metric).spec.name not in LINEAR:
                raise _undetermined(metric, ids, counts, sizes, partial, sampling)
            if mixed_values is None:
                mixed_values = values_under(judge)
            f = judge_values[metric][touched]
            scale = sizes[touched] / counts[touched]
            estimate = f + (mixed_values[metric] - f) * scale
            values[partial] = estimate[partial[touched]]
        out[metric] = values
    return ids, out, sampled


@checked(
    document_sampling=DOCUMENT_SAMPLING,
    method=PPI_METHOD,
    confidence=CONFIDENCE,
    interval=PPI_INTERVAL,
)
def ppi_evaluate(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    gold: ArrayLike,
    groups: ArrayLike,
    metrics: str | Sequence[str] = ("ndcg@10",),
    gold_mask: ArrayLike | None = None,
    document_sampling: Literal["random"] | None = None,
    method: Literal["ppi++", "ppi"] = "ppi++",
    confidence: float = 0.95,
    interval: Literal["t", "z"] = "t",
    strata: ArrayLike | Mapping[Any, Any] | None = None,
    ties: Ties = "average",
    no_relevant: float = 0.0,
    **params: Any,
) -> PPIResult:
    """A metric's mean from a judge's labels and humans' labels on some rows.

    Every row has the judge's label (``y_true``); humans judged some rows
    (``gold``, NaN elsewhere). Each metric is evaluated on every query under
    the judge's labels and on the gold queries under the humans', and the
    two are combined by :func:`ppi_mean`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_draws)
        The judge's label of every row; several draws of them (samples of
        an LLM judge, or grades drawn from its probabilities) as columns,
        the judge's value of a query then being its metric's mean over the
        draws: the expected metric under the judge.
    y_score : array-like of shape (n_samples,)
        The system's scores.
    gold : array-like of shape (n_samples,)
        The humans' labels, NaN where no human judged; on the judge's scale.
        A query is gold when its rows judged determine the metric (every
        row, or the top k for a metric@k linear in the labels), or, with
        ``document_sampling="random"``, when some of its rows are judged.
    groups : array-like of shape (n_samples,)
        The query of each row.
    metrics : str or list of str, default=("ndcg@10",)
        As in :func:`~skirm.metrics.evaluate`.
    gold_mask : array-like of bool of shape (n_samples,), default=None
        The rows humans judged, when ``gold`` holds a number everywhere.
    document_sampling : {"random"} or None, default=None
        How the judged rows of a query with some rows judged were chosen: by
        the assessors (None; the query is gold where they determine the
        metric, as the top k do for a metric@k linear in the labels), or at
        random (``"random"``; the query's value estimated from them, for
        precision@k and dcg@k; see Notes).
    method, confidence, interval, strata
        As in :func:`ppi_mean` (``strata`` per query, aligned to the sorted
        query ids, or as a mapping).
    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
    no_relevant : float in [0, 1], default=0.0
        The value of a query without relevant rows (not ``"skip"``: a gold
        query left out would bias the estimate).
    **params
        Metric options, as in :func:`~skirm.metrics.evaluate`.

    Returns
    -------
    result : PPIResult
        With ``judge_result`` and ``gold_result``, the per-query values.

    Raises
    ------
    skirm.InvalidInputError
        If ``gold`` holds no label (no overlap), labels fewer than 2 gold
        queries, or is on another scale than ``y_true`` (the largest labels
        more than 1.5 times apart); if a query's judged rows neither
        determine a metric nor allow the document-level estimate.

    Notes
    -----
    The document-level estimate of a query with ``m`` of its ``n`` rows
    judged is ``f + (n / m) * (f_mixed - f)``: ``f`` the judge's value,
    ``f_mixed`` the value with the judged rows' labels replaced by the
    humans'. For a metric linear in the rows' gains on a fixed ranking, and
    the judged rows a simple random sample of the query's rows, it is an
    unbiased estimate of the query's value under the human labels. To
    sample from the top of the ranking only, pass the top rows of each
    query: rows below the cutoff add nothing to a metric@k.

    Examples
    --------
    Humans checked the top 5 of 30 of the 200 queries; the judge marks
    too many documents relevant:

    >>> import numpy as np
    >>> from skirm.stats import ppi_evaluate
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(200), 20)
    >>> truth = rng.choice(3, size=groups.size, p=[0.6, 0.3, 0.1])
    >>> judge = np.clip(truth + (rng.random(groups.size) < 0.3), 0, 2)
    >>> scores = truth + rng.normal(0, 1.0, groups.size)
    >>> top = np.zeros(groups.size, dtype=bool)
    >>> for q in rng.choice(200, size=30, replace=False):
    ...     rows = np.flatnonzero(groups == q)
    ...     top[rows[np.argsort(-scores[rows])[:5]]] = True
    >>> gold = np.where(top, truth, np.nan)
    >>> result = ppi_evaluate(judge, scores, gold=gold, groups=groups,
    ...                       metrics=["precision@5", "dcg@5"])
    >>> print(result)
    PPI++ means over 200 queries judged, 95% t intervals
    precision@5: 30 gold queries, judge-gold correlation 0.675
      PPI++      0.7178 [0.6477, 0.7878]  lambda 0.762
      PPI        0.7129 [0.6409, 0.7850]
      gold only  0.7333 [0.6427, 0.8239]
      judge only 0.8360 [0.8122, 0.8598]  (the judge's own mean)
    dcg@5: 30 gold queries, judge-gold correlation 0.904
      PPI++      3.1435 [2.8801, 3.4070]  lambda 0.908
      PPI        3.1420 [2.8853, 3.3987]
      gold only  3.1586 [2.7011, 3.6161]
      judge only 3.8425 [3.7078, 3.9772]  (the judge's own mean)

    With every label known, the truth is 0.746 and 3.181.
    """
    if not NO_RELEVANT.accepts(no_relevant) or isinstance(no_relevant, str):
        raise InvalidParameterError(
            "`no_relevant` must be a number in [0, 1] (a query left out by "
            f"'skip' would bias the estimate), got {no_relevant!r}"
        )
    judge, human, judged = _labels(y_true, gold, gold_mask)
    options = {"ties": ties, "no_relevant": no_relevant, **params}
    judge_result, judge_values = _per_query(judge, y_score, groups, metrics, options)
    ids, gold_values, sampled = _gold_values(
        (judge, human, judged),
        judge_values,
        y_score,
        groups,
        metrics,
        options,
        document_sampling,
    )
    means = {
        m: float(v[np.isfinite(v)].mean()) if np.isfinite(v).any() else float("nan")
        for m, v in gold_values.items()
    }
    gold_result = EvaluationResult(ids, gold_values, means)
    result = ppi_mean(
        judge_result,
        gold_result,
        method=method,
        confidence=confidence,
        interval=interval,
        strata=strata,
    )
    result.n_sampled = sampled
    return result
