"""Per-group AUC and its relatives: GAUC, fall-out, ordered pair accuracy,
average relevance position.

Each is a count of pairs or ranks per query, read off the one ranking:
GAUC the share of (clicked, not clicked) pairs a group orders correctly
(its ROC AUC, a tied pair counting 1/2 under ``ties="average"``, as
scikit-learn's ``roc_auc_score`` counts it), averaged over the groups with
weights (Zhou et al. 2018, DIN: by impressions); fall-out the share of the
non-relevant rows in the top k (torchmetrics' ``RetrievalFallOut``);
ordered pair accuracy the share of the pairs with different labels in the
right order (TF-Ranking's ``OPAMetric``); average relevance position the
label-weighted mean rank (TF-Ranking's ``ARPMetric``).

A group where the measure is undefined (one class of labels: no pair to
order) takes the ``one_class`` option: ``"skip"`` leaves it out of the mean
(NaN in the per-query values), a number is its value. ``no_relevant`` does
not apply to these measures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import sum_by
from skirm._measures import _table as table
from skirm.metrics._accuracy import non_relevant_above
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def undefined(values, where, one_class):
    """``values`` with ``one_class`` applied where the measure is undefined:
    NaN for ``"skip"``, else that number (a new array)."""
    out = np.array(values, dtype=np.float64)
    out[where] = np.nan if one_class == "skip" else one_class
    return out


def group_weights(weights, *, impressions, clicks, pairs):
    """The query weights a ``weights`` option names (None: ``"uniform"``)."""
    if weights == "uniform":
        return None
    chosen = {"impressions": impressions, "clicks": clicks, "pairs": pairs}[weights]
    return np.asarray(chosen, dtype=np.float64)


def _no_empty(ranking):
    return np.zeros(ranking.n_groups, dtype=bool)


# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------


def _gauc(ranking, relevance_threshold, weights, one_class):
    rel = ranking.relevant(relevance_threshold)
    above = non_relevant_above(ranking, rel)
    misordered = sum_by(ranking.codes[rel], above[rel], ranking.n_groups)
    n_rel = sum_by(ranking.codes, rel, ranking.n_groups)
    n_non = ranking.sizes - n_rel
    pairs = n_rel * n_non
    auc = np.ones(ranking.n_groups)
    np.subtract(1.0, misordered / np.maximum(pairs, 1.0), out=auc)
    values = undefined(auc, pairs == 0, one_class)
    w = group_weights(weights, impressions=ranking.sizes, clicks=n_rel, pairs=pairs)
    return values, _no_empty(ranking), w


def _fallout(ranking, k, relevance_threshold, one_class):
    non = (~ranking.relevant(relevance_threshold)).astype(np.float64)
    shown = ranking.group_sum(ranking.block_mean(non), k)
    n_non = sum_by(ranking.codes, non, ranking.n_groups)
    if shown.ndim == 2:
        n_non = n_non[:, None]
    share = np.minimum(shown / np.maximum(n_non, 1.0), 1.0)  # rounding of the sums
    return undefined(share, np.broadcast_to(n_non == 0, share.shape), one_class), (
        _no_empty(ranking)
    )


def _grade_codes(labels):
    """Each label's rank among the distinct labels, and their number."""
    distinct, inverse = np.unique(labels, return_inverse=True)
    return inverse.reshape(-1), distinct.shape[0]


def _opa(ranking, weights, one_class):
    grade, n_grades = _grade_codes(ranking.labels)
    codes, n_groups = ranking.codes, ranking.n_groups
    averaged = ranking.ties == "average" and ranking.has_ties
    # Pairs ranked with a lower label above a higher one (a tied pair 1/2):
    # one pass per distinct label, the rows below that label counted above
    # each row of it.
    misordered = np.zeros(n_groups)
    same = np.zeros(n_groups)  # pairs of equal labels (counted twice, and self)
    for g in range(n_grades):
        at = grade == g
        lower = (grade < g).astype(np.float64)
        if averaged:
            above = ranking.before_block(lower)
            above += 0.5 * ranking.block_sum(lower)
        else:
            above = ranking.before(lower)
        misordered += sum_by(codes[at], above[at], n_groups)
        count = sum_by(codes[at], None, n_groups)
        same += count * count
    sizes = ranking.sizes.astype(np.float64)
    pairs = 0.5 * (sizes * sizes - same)
    share = 1.0 - misordered / np.maximum(pairs, 1.0)
    values = undefined(share, pairs == 0, one_class)
    w = group_weights(
        weights,
        impressions=sizes,
        clicks=sum_by(codes, ranking.labels, n_groups),
        pairs=pairs,
    )
    return values, _no_empty(ranking), w


def _arp(ranking, weights, one_class):
    codes, n_groups, labels = ranking.codes, ranking.n_groups, ranking.labels
    # The expected rank of a row among the orderings of its tie block (its
    # rank without ties): the mean of the block's ranks.
    rank = ranking.block_mean(ranking.position + 1.0)
    total = sum_by(codes, labels, n_groups)
    mean_rank = sum_by(codes, labels * rank, n_groups) / np.maximum(total, 1e-300)
    values = undefined(mean_rank, total == 0, one_class)
    n_rel = sum_by(codes, labels > 0, n_groups)
    w = group_weights(
        weights,
        impressions=ranking.sizes,
        clicks=total,
        pairs=n_rel * (ranking.sizes - n_rel),
    )
    return values, _no_empty(ranking), w


# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def group_auc_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
    weights: str = "impressions",
    one_class: str | float = "skip",
) -> float:
    """Group AUC (GAUC): each group's ROC AUC, averaged over the groups.

    Per group (a request, a user), the share of its (relevant, non-relevant)
    pairs ranked with the relevant row above, a tied pair counting 1/2 with
    ``ties="average"``: the group's ROC AUC as scikit-learn's
    ``roc_auc_score`` computes it. The groups are averaged with weights by
    impressions and the groups of a single class left out, as Zhou et al.
    (2018, DIN) define GAUC; RecBole does the same. TorchRec's ``uAUC`` is
    the uniform mean (``weights="uniform"``) and its ``wuAUC`` this one;
    torchmetrics' ``RetrievalAUROC`` is the uniform mean with a one-class
    query scoring 0 (``conventions="torchmetrics"``). See :ref:`impressions`.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(sample_weight)s

    %(ties)s

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Not used: a group without relevant rows is a group of one class
        (see ``one_class``).

    %(unjudged)s

    %(relevance_threshold)s

    weights : {"impressions", "clicks", "uniform", "pairs"}, default="impressions"
        The weight of each group in the mean: its rows (DIN's GAUC, TorchRec's
        ``wuAUC``), its relevant rows, 1 (TorchRec's ``uAUC``,
        torchmetrics), or its (relevant, non-relevant) pairs (the share of
        every pair of every group, TF-Ranking's OPA on binary labels).

    one_class : "skip" or float in [0, 1], default="skip"
        What a group with only relevant or only non-relevant rows (whose AUC
        is undefined) contributes: ``"skip"`` leaves it out of the mean (NaN
        in the per-query values of :func:`evaluate`); a number is its value
        (torchmetrics: 0).

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import group_auc_score
    >>> y_true = [1, 0, 0, 0, 1, 1, 1]
    >>> y_score = [0.9, 0.5, 0.7, 0.4, 0.3, 0.8, 0.1]
    >>> groups = ["u1", "u1", "u1", "u2", "u2", "u3", "u3"]

    ``u1`` orders its two pairs right (AUC 1), ``u2`` its one pair wrong (0);
    ``u3`` has clicks only and is left out. Weighted by impressions:

    >>> group_auc_score(y_true, y_score, groups=groups)
    0.6
    >>> group_auc_score(y_true, y_score, groups=groups, weights="uniform")
    0.5
    >>> group_auc_score(y_true, y_score, groups=groups, one_class=0.5)
    0.5714...
    """
    return score(
        GAUC,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
        weights=weights,
        one_class=one_class,
    )


@fill_doc
@takes_frames
def fallout_loss(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
    one_class: str | float = 1.0,
) -> float:
    """Fall-out at k: the share of the non-relevant rows shown in the top k.

    Per query, (non-relevant rows in the top ``k``) / (non-relevant rows):
    lower is better (a scorer negates it). torchmetrics'
    ``RetrievalFallOut``; with ``ties="average"`` the expected share over
    the orderings of tied rows.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Not used: fall-out is defined on a query without relevant rows;
        ``one_class`` says what a query without non-relevant rows scores.

    %(unjudged)s

    %(relevance_threshold)s

    one_class : "skip" or float in [0, 1], default=1.0
        What a query without any non-relevant row (fall-out 0 / 0)
        contributes: torchmetrics' default ``empty_target_action="pos"`` is
        1; ``"skip"`` leaves it out of the mean.

    Returns
    -------
    loss : float
        The mean over queries (weighted by ``sample_weight`` if given).

    Examples
    --------
    >>> from skirm.metrics import fallout_loss
    >>> fallout_loss([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6], groups=[0] * 4, k=2)
    0.5
    """
    return score(
        FALLOUT,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
        one_class=one_class,
    )


@fill_doc
@takes_frames
def ordered_pair_accuracy_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    weights: str = "pairs",
    one_class: str | float = "skip",
) -> float:
    """Ordered pair accuracy (OPA): the share of pairs in the right order.

    Per query, over its pairs of rows with different labels, the share
    ranked with the higher label first (a tied pair counts 1/2 with
    ``ties="average"``; TF-Ranking counts it wrong: ``ties="pessimistic"``,
    as ``conventions="tf_ranking"`` sets); averaged with weights by those
    pairs, as TF-Ranking's ``OPAMetric`` does: the share of every pair of
    every query. On 0/1 labels, each query's value is its ROC AUC.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(sample_weight)s

    %(ties)s

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Not used: a query whose rows all have one label has no pair (see
        ``one_class``).

    %(unjudged)s

    weights : {"pairs", "impressions", "clicks", "uniform"}, default="pairs"
        The weight of each query in the mean: its pairs with different
        labels (TF-Ranking), its rows, the sum of its labels, or 1.

    one_class : "skip" or float in [0, 1], default="skip"
        What a query whose rows all carry one label (no pair to order)
        contributes: ``"skip"`` leaves it out (TF-Ranking weighs it 0).

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import ordered_pair_accuracy_score
    >>> ordered_pair_accuracy_score([0, 1, 2], [3, 1, 2], groups=[0, 0, 0])
    0.3333...
    """
    return score(
        OPA,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        weights=weights,
        one_class=one_class,
    )


@fill_doc
@takes_frames
def average_relevance_position_loss(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    weights: str = "clicks",
    one_class: str | float = "skip",
) -> float:
    """Average relevance position (ARP): the label-weighted mean rank.

    Per query, ``sum(label * rank) / sum(label)`` with ranks from 1: lower
    is better (a scorer negates it). Averaged with weights by the sum of
    labels, as TF-Ranking's ``ARPMetric`` does: the mean rank of every unit
    of relevance. TF-Ranking shuffles tied scores; ``ties="average"`` gives
    the expected value over those orderings.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(sample_weight)s

    %(ties)s

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Not used: a query without relevant rows has no position to average
        (see ``one_class``).

    %(unjudged)s

    weights : {"clicks", "impressions", "uniform", "pairs"}, default="clicks"
        The weight of each query in the mean: the sum of its labels
        (TF-Ranking), its rows, 1, or its (relevant, non-relevant) pairs.

    one_class : "skip" or float in [0, 1], default="skip"
        What a query whose labels are all 0 contributes: ``"skip"`` leaves it
        out (TF-Ranking weighs it 0).

    Returns
    -------
    loss : float
        The weighted mean over queries.

    Examples
    --------
    >>> from skirm.metrics import average_relevance_position_loss
    >>> average_relevance_position_loss([0, 1, 1], [3, 1, 2], groups=[0, 0, 0])
    2.5
    """
    return score(
        ARP,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        weights=weights,
        one_class=one_class,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

GAUC = MetricSpec(table.GAUC, _gauc, group_auc_score)
FALLOUT = MetricSpec(table.FALLOUT, _fallout, fallout_loss)
OPA = MetricSpec(table.OPA, _opa, ordered_pair_accuracy_score)
ARP = MetricSpec(table.ARP, _arp, average_relevance_position_loss)
