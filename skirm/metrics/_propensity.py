"""Propensity-scored measures: psP@k and psnDCG@k, inverse-propensity
estimates of precision, recall, DCG and RBP.

Each row carries a propensity ``p``: the probability that it was observed
(its label could be logged at all). A relevant row then counts ``1 / p``
times, so that rows rarely observed are not undercounted. With every
propensity 1 (``propensity=None``), each measure is its plain counterpart.

psP@k and psnDCG@k follow Jain et al. (2016) as pyxclib computes them: the
propensity-weighted gains of the top k over those of the best ranking (the
relevant rows by ``1 / p``), each sum added over queries before dividing
(``average="micro"``); ``"macro"`` averages each query's ratio. The IPS
estimates follow Yang et al. (2018): ``sum over relevant rows of c(rank) /
p``, an unbiased estimate of the measure had every relevant row been
observed; ``estimator="snips"`` divides by ``sum 1 / p`` (LensKit's
``IPSRBP``): the mean ``c`` per relevant row, invariant to the scale of
the propensities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import prefix_sums, sum_by
from skirm._measures import _table as table
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def weighted_relevance(ranking, threshold):
    """Per ranked row, ``relevant / propensity`` (``relevant`` without
    propensities)."""
    rel = ranking.relevant(threshold).astype(np.float64)
    if ranking.propensity is None:
        return rel
    return rel / ranking.propensity


def _top(ranking, values, k, by_place=None):
    """Per query, the expected sum over the top ``k`` of ``values`` (one per
    ranked row) times ``by_place`` (a weight of each ranked place: a
    discount), the orderings of tied rows averaged."""
    expected = ranking.block_mean(values)
    if by_place is not None:
        expected = expected * by_place
    return ranking.group_sum(expected, k)


def _best(ranking, values, k, discount=False):
    """Per query, the sum of its ``k`` largest ``values`` (times the log2
    discount of their places with ``discount``): the best ranking's."""
    codes, n_groups = ranking.codes, ranking.n_groups
    order = np.lexsort((-values, codes))
    ordered = values[order]
    place = np.arange(ranking.n_rows) - ranking.starts[codes]
    if discount:
        ordered = ordered / np.log2(place + 2.0)
    if k is not None and np.ndim(k):
        deep = place < int(np.max(k))
        return prefix_sums(codes[deep], place[deep], ordered[deep], k, n_groups)
    if k is None:
        return sum_by(codes, ordered, n_groups)
    top = place < k
    return sum_by(codes[top], ordered[top], n_groups)


def _ratio(num, den):
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _binary_ideal_dcg(ranking, k, threshold):
    """Per query, the DCG@k of its relevant rows ranked first, each of gain 1."""
    R = ranking.n_relevant(threshold).astype(np.intp)
    width = int(R.max()) if R.shape[0] else 0
    table_ = np.zeros(width + 1)
    np.cumsum(1.0 / np.log2(np.arange(2.0, width + 2.0)), out=table_[1:])
    if k is None:
        return table_[R]
    if np.ndim(k):
        return table_[np.minimum(R[:, None], k)]
    return table_[np.minimum(R, k)]


def _psp(ranking, k, relevance_threshold, average):
    v = weighted_relevance(ranking, relevance_threshold)
    best = _best(ranking, v, k)
    empty = ranking.n_relevant(relevance_threshold) == 0
    value = np.minimum(_ratio(_top(ranking, v, k), best), 1.0)
    return value, empty, best if average == "micro" else None


def _psndcg(ranking, k, relevance_threshold, average):
    v = weighted_relevance(ranking, relevance_threshold)
    dcg = _top(ranking, v, k, ranking.discount())
    best = _best(ranking, v, k, discount=True)
    empty = ranking.n_relevant(relevance_threshold) == 0
    weights = None
    if average == "micro":
        weights = _ratio(best, _binary_ideal_dcg(ranking, k, relevance_threshold))
    return np.minimum(_ratio(dcg, best), 1.0), empty, weights


def _snips(values, ranking, v, estimator):
    if estimator == "ips":
        return values
    total = sum_by(ranking.codes, v, ranking.n_groups)
    return _ratio(values, total[:, None] if values.ndim == 2 else total)


def _ips_precision(ranking, k, relevance_threshold):
    v = weighted_relevance(ranking, relevance_threshold)
    depth = ranking.sizes if k is None else k
    values = _ratio(_top(ranking, v, k), np.asarray(depth, dtype=np.float64))
    return values, ranking.n_relevant(relevance_threshold) == 0


def _ips_recall(ranking, k, relevance_threshold):
    v = weighted_relevance(ranking, relevance_threshold)
    values = _snips(_top(ranking, v, k), ranking, v, "snips")
    return values, ranking.n_relevant(relevance_threshold) == 0


def _ips_dcg(ranking, k, relevance_threshold, estimator):
    v = weighted_relevance(ranking, relevance_threshold)
    values = _snips(_top(ranking, v, k, ranking.discount()), ranking, v, estimator)
    return values, ranking.n_relevant(relevance_threshold) == 0


def _ips_rbp(ranking, k, relevance_threshold, p, estimator):
    v = weighted_relevance(ranking, relevance_threshold)
    patience = (1.0 - p) * np.power(p, ranking.position.astype(np.float64))
    values = _snips(_top(ranking, v, k, patience), ranking, v, estimator)
    return values, ranking.n_relevant(relevance_threshold) == 0


# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def propensity_scored_precision_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    propensity: ArrayLike | str | None = None,
    relevance_threshold: float | None = None,
    average: str = "micro",
) -> float:
    """Propensity-scored precision at k (psP@k, Jain et al. 2016).

    Per query, ``sum over the top k of rel / p`` over the same sum for the
    best ranking (the relevant rows by ``1 / p``, descending), ``p`` each
    row's propensity; the sums added over queries before dividing, as
    pyxclib's ``psprecision`` (``average="micro"``). Rare labels (small
    propensity) count more: a model that only finds popular items scores
    low. :func:`jain_propensity` gives Jain et al.'s propensities.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(propensity)s

    %(relevance_threshold)s

    average : {"micro", "macro"}, default="micro"
        ``"micro"``: the queries' sums added before dividing (pyxclib; each
        query weighted by its best achievable sum); ``"macro"``: the mean
        of each query's ratio.

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import propensity_scored_precision_score
    >>> y_true = [1, 1, 0, 1]
    >>> y_score = [0.9, 0.8, 0.7, 0.6]
    >>> propensity = [0.9, 0.5, 0.5, 0.1]   # the last label is rare

    The top 2 hold ``1/0.9 + 1/0.5``; the best 2 would be ``1/0.1 + 1/0.5``:

    >>> round(propensity_scored_precision_score(
    ...     y_true, y_score, groups=[0] * 4, k=2, propensity=propensity), 4)
    0.2593
    """
    return score(
        PSP,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        propensity=propensity,
        relevance_threshold=relevance_threshold,
        average=average,
    )


@fill_doc
@takes_frames
def propensity_scored_ndcg_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    propensity: ArrayLike | str | None = None,
    relevance_threshold: float | None = None,
    average: str = "micro",
) -> float:
    """Propensity-scored nDCG at k (psnDCG@k, Jain et al. 2016).

    Per query, the DCG@k of ``rel / p`` (log2 discount) divided by the
    binary ideal DCG@k ``sum over i <= min(k, R) of 1 / log2(i + 1)``
    (Jain et al.'s psnDCG), then normalised by the same for the best
    ranking (the relevant rows by ``1 / p``): the queries' values added
    before dividing, as pyxclib's ``psndcg`` (``average="micro"``).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(propensity)s

    %(relevance_threshold)s

    average : {"micro", "macro"}, default="micro"
        ``"micro"``: added over queries before dividing (pyxclib);
        ``"macro"``: the mean of each query's psDCG@k over its best.

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import propensity_scored_ndcg_score
    >>> round(propensity_scored_ndcg_score(
    ...     [1, 1, 0, 1], [0.9, 0.8, 0.7, 0.6], groups=[0] * 4, k=2,
    ...     propensity=[0.9, 0.5, 0.5, 0.1]), 4)
    0.2107
    """
    return score(
        PSNDCG,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        propensity=propensity,
        relevance_threshold=relevance_threshold,
        average=average,
    )


@fill_doc
@takes_frames
def ips_precision_at_k_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    propensity: ArrayLike | str | None = None,
    relevance_threshold: float | None = None,
) -> float:
    """Inverse-propensity estimate of precision at k.

    Per query, ``sum over the top k of rel / p``, divided by ``k`` (by the
    query's rows without ``k``, as :func:`precision_at_k_score`): with
    ``rel`` the logged clicks and ``p`` the chance each row was observed,
    its expectation is the precision@k of the true relevance (Yang et al.
    2018). It is not bounded by 1.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(propensity)s

    %(relevance_threshold)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import ips_precision_at_k_score
    >>> ips_precision_at_k_score([1, 0, 1, 0], [4, 3, 2, 1], groups=[0] * 4,
    ...                          k=2, propensity=[0.5, 1.0, 0.25, 1.0])
    1.0
    """
    return score(
        IPS_PRECISION,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        propensity=propensity,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def ips_recall_at_k_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    propensity: ArrayLike | str | None = None,
    relevance_threshold: float | None = None,
) -> float:
    """Inverse-propensity (self-normalised) estimate of recall at k.

    Per query, ``sum over the top k of rel / p`` over ``sum over all rows
    of rel / p``: the share of the (estimated) relevant rows found in the
    top k (Yang et al. 2018's SNIPS recall; the number of relevant rows is
    itself estimated by ``sum rel / p``).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(propensity)s

    %(relevance_threshold)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import ips_recall_at_k_score
    >>> ips_recall_at_k_score([1, 0, 1, 0], [4, 3, 2, 1], groups=[0] * 4,
    ...                       k=2, propensity=[0.5, 1.0, 0.25, 1.0])
    0.3333...
    """
    return score(
        IPS_RECALL,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        propensity=propensity,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def ips_dcg_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    propensity: ArrayLike | str | None = None,
    relevance_threshold: float | None = None,
    estimator: str = "ips",
) -> float:
    """Inverse-propensity estimate of DCG at k.

    Per query, ``sum over ranks i <= k of (rel_i / p_i) / log2(i + 1)``:
    with position-biased clicks ``rel`` and each row's examination
    probability ``p`` (:func:`position_propensity`), an unbiased estimate of
    the DCG of the true relevance (Joachims et al. 2017; Yang et al. 2018).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(propensity)s

    %(relevance_threshold)s

    estimator : {"ips", "snips"}, default="ips"
        ``"ips"``: the sum above; ``"snips"``: divided by ``sum over the
        relevant rows of 1 / p``, the DCG per relevant row (self-normalised:
        lower variance, the propensities' scale cancels).

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import ips_dcg_score
    >>> ips_dcg_score([1, 0, 1], [3, 2, 1], groups=[0, 0, 0],
    ...               propensity=[1.0, 0.5, 0.5])
    2.0
    """
    return score(
        IPS_DCG,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        propensity=propensity,
        relevance_threshold=relevance_threshold,
        estimator=estimator,
    )


@fill_doc
@takes_frames
def ips_rbp_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    propensity: ArrayLike | str | None = None,
    relevance_threshold: float | None = None,
    p: float = 0.8,
    estimator: str = "ips",
) -> float:
    """Inverse-propensity estimate of rank-biased precision.

    Per query, ``(1 - p) * sum over ranks i <= k of (rel_i / q_i) * p^(i -
    1)``, ``q`` each row's propensity (Yang et al. 2018).
    ``estimator="snips"`` divides by ``sum 1 / q`` over the relevant rows:
    LensKit's ``IPSRBP`` (``conventions="lenskit"`` also sets its patience,
    0.85).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(propensity)s

    %(relevance_threshold)s

    p : float in (0, 1), default=0.8
        The patience: the chance the user reads on after each row.

    estimator : {"ips", "snips"}, default="ips"
        ``"ips"``: the sum above; ``"snips"``: divided by the sum of ``1 /
        q`` over the query's relevant rows (LensKit's default).

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import ips_rbp_score
    >>> round(ips_rbp_score([1, 0, 1], [3, 2, 1], groups=[0, 0, 0],
    ...                     propensity=[1.0, 0.5, 0.5], p=0.5), 4)
    0.75
    """
    return score(
        IPS_RBP,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        propensity=propensity,
        relevance_threshold=relevance_threshold,
        p=p,
        estimator=estimator,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

PSP = MetricSpec(table.PSP, _psp, propensity_scored_precision_score)
PSNDCG = MetricSpec(table.PSNDCG, _psndcg, propensity_scored_ndcg_score)
IPS_PRECISION = MetricSpec(
    table.IPS_PRECISION, _ips_precision, ips_precision_at_k_score
)
IPS_RECALL = MetricSpec(table.IPS_RECALL, _ips_recall, ips_recall_at_k_score)
IPS_DCG = MetricSpec(table.IPS_DCG, _ips_dcg, ips_dcg_score)
IPS_RBP = MetricSpec(table.IPS_RBP, _ips_rbp, ips_rbp_score)
