"""Calibration and entropy per group: normalized entropy, PCOC, expected
calibration error at k.

These measures read ``y_score`` as each row's predicted click probability
(in [0, 1]), not only its order: a strictly increasing transform of the
scores changes them. A row is a click when it is relevant (``y_true > 0``,
or ``>= relevance_threshold``).

Normalized entropy (He et al. 2014) divides the log loss by the entropy of
the base rate, the loss of always predicting the click rate: below 1 the
model knows more than the rate. Each group's value is its mean log loss over
the entropy of the base rate of every row (``base_rate="overall"``), so that
their mean weighted by impressions is the normalized entropy of the whole
log (TorchRec's ``NEMetric``); ``base_rate="group"`` takes each group's own
rate (TorchRec's ``SegmentedNEMetric``). Predictions are clipped to [1e-12,
1 - 1e-12] as TorchRec does (a certain, wrong prediction costs 27.6 nats,
not an infinity).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import sum_by
from skirm._errors import InvalidInputError
from skirm._measures import _table as table
from skirm.metrics._auc import group_weights, undefined
from skirm.metrics._spec import (
    MetricSpec,
    fill_doc,
    refuse_average_ties,
    score,
    takes_frames,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels

#: Predictions are clipped to [ETA, 1 - ETA] in the log loss (TorchRec's eta).
ETA = 1e-12


def probabilities(ranking, name):
    """The scores of a ranking, checked to be probabilities in [0, 1]."""
    scores = ranking.scores
    bad = ~((scores >= 0.0) & (scores <= 1.0))
    if bad.any():
        raise InvalidInputError(
            f"`y_score` must hold probabilities in [0, 1] for {name} (each row's "
            "predicted click probability: its values are read, not only their "
            f"order), got {float(scores[int(np.argmax(bad))])!r}"
        )
    return scores


def _entropy(rate):
    """The entropy (nats) of a click rate, 0 at 0 and 1."""
    rate = np.asarray(rate, dtype=np.float64)
    out = np.zeros(rate.shape)
    inside = (rate > 0) & (rate < 1)
    p = rate[inside]
    out[inside] = -(p * np.log(p) + (1.0 - p) * np.log1p(-p))
    return out


def _ne(ranking, relevance_threshold, base_rate, weights, one_class):
    p = np.clip(probabilities(ranking, table.NE.name), ETA, 1.0 - ETA)
    click = ranking.relevant(relevance_threshold)
    codes, n_groups = ranking.codes, ranking.n_groups
    loss = -np.where(click, np.log(p), np.log1p(-p))
    sizes = ranking.sizes.astype(np.float64)
    clicks = sum_by(codes, click, n_groups)
    mean_loss = sum_by(codes, loss, n_groups) / np.maximum(sizes, 1.0)
    if base_rate == "group":
        entropy = _entropy(clicks / np.maximum(sizes, 1.0))
        values = undefined(
            mean_loss / np.maximum(entropy, 1e-300), entropy == 0, one_class
        )
    else:
        if base_rate == "overall":  # all the rows are this ranking's
            w = ranking.group_weights
            if w is None or not w.any():  # no weights (or none: the mean says so)
                w = np.ones(n_groups)
            rate = float(np.dot(w, clicks) / max(float(np.dot(w, sizes)), 1e-300))
            if not 0.0 < rate < 1.0:
                raise InvalidInputError(
                    f"ne: every row is {'relevant' if rate else 'not relevant'}, so "
                    "the base rate's entropy is 0 and the normalized entropy is "
                    "undefined"
                )
        else:
            rate = base_rate
        values = mean_loss / float(_entropy(rate))
    w = group_weights(
        weights, impressions=sizes, clicks=clicks, pairs=clicks * (sizes - clicks)
    )
    return values, np.zeros(n_groups, dtype=bool), w


def _pcoc(ranking, relevance_threshold, weights, one_class):
    p = probabilities(ranking, table.PCOC.name)
    codes, n_groups = ranking.codes, ranking.n_groups
    clicks = sum_by(codes, ranking.relevant(relevance_threshold), n_groups)
    predicted = sum_by(codes, p, n_groups)
    values = undefined(predicted / np.maximum(clicks, 1.0), clicks == 0, one_class)
    sizes = ranking.sizes.astype(np.float64)
    w = group_weights(
        weights, impressions=sizes, clicks=clicks, pairs=clicks * (sizes - clicks)
    )
    return values, np.zeros(n_groups, dtype=bool), w


def _ece(ranking, k, relevance_threshold, n_bins, weights):
    if k is not None and np.ndim(k):
        parts = [_ece(ranking, int(c), relevance_threshold, n_bins, weights) for c in k]
        w = None if parts[0][2] is None else np.column_stack([x[2] for x in parts])
        return np.column_stack([x[0] for x in parts]), parts[0][1], w
    p = probabilities(ranking, table.ECE.name)
    codes, n_groups = ranking.codes, ranking.n_groups
    click = ranking.relevant(relevance_threshold)
    if k is None or k >= ranking.max_size:
        rows = np.arange(ranking.n_rows)
    else:
        if ranking.ties == "average" and ranking.has_ties:
            start = ranking.position - ranking.block_offset
            if ((start < k) & (start + ranking.block_size > k)).any():
                refuse_average_ties(
                    ranking,
                    "ece@k",
                    "which tied rows are shown at the cutoff changes the bins",
                )
        rows = ranking.top(k).index
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.clip(np.searchsorted(edges, p[rows], side="right") - 1, 0, n_bins - 1)
    cell = codes[rows] * n_bins + bins
    gap = np.bincount(
        cell, weights=p[rows] - click[rows], minlength=n_groups * n_bins
    ).reshape(n_groups, n_bins)
    shown = sum_by(codes[rows], None, n_groups)
    shown_clicks = sum_by(codes[rows], click[rows], n_groups)
    values = np.abs(gap).sum(axis=1) / np.maximum(shown, 1.0)
    w = group_weights(
        weights,
        impressions=shown,
        clicks=shown_clicks,
        pairs=shown_clicks * (shown - shown_clicks),
    )
    return values, shown == 0, w


@fill_doc
@takes_frames
def normalized_entropy_loss(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
    base_rate: str | float = "overall",
    weights: str = "impressions",
    one_class: str | float = "skip",
) -> float:
    """Normalized entropy (NE): the log loss over the entropy of the base rate.

    Per group, the mean log loss of the predicted click probabilities,
    divided by the entropy of the base rate ``p``, ``-p log p - (1 - p) log(1
    - p)`` (He et al. 2014): lower is better, 1 is no better than predicting
    the click rate (a scorer negates it). With the defaults the groups'
    mean weighted by impressions is the NE of every row: scikit-learn's
    ``log_loss`` over the entropy of the click rate, TorchRec's ``NE``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        The clicks: a row is a click when ``y_true > 0`` (or ``>=
        relevance_threshold``).

    y_score : array-like of the same shape as ``y_true``
        Each row's predicted click probability, in [0, 1]. Its values are
        read, not only their order: a strictly increasing transform of the
        scores changes NE. Clipped to [1e-12, 1 - 1e-12] in the log loss.

    %(groups)s

    %(sample_weight)s

    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        Not used: NE does not depend on the order of the rows.

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Not used: NE is defined on a group without clicks (see
        ``one_class`` for ``base_rate="group"``).

    %(unjudged)s

    %(relevance_threshold)s

    base_rate : "overall", "group" or float in (0, 1), default="overall"
        The click rate whose entropy divides: that of every row (He et al.,
        TorchRec's ``NE``; each group's rows weighted by its
        ``sample_weight``), each group's own (TorchRec's
        ``SegmentedNE``), or a given rate.

    weights : {"impressions", "clicks", "uniform", "pairs"}, default="impressions"
        The weight of each group in the mean: its rows (the NE of every row,
        with ``base_rate="overall"``), its clicks, 1, or its (click, no
        click) pairs.

    one_class : "skip" or float in [0, 1], default="skip"
        With ``base_rate="group"``, what a group of only clicks or only
        non-clicks (base-rate entropy 0) contributes: ``"skip"`` leaves it
        out; a number is its value.

    Returns
    -------
    loss : float
        The weighted mean over groups.

    Examples
    --------
    >>> from skirm.metrics import normalized_entropy_loss
    >>> y_true = [1, 0, 0, 1, 0, 0]
    >>> y_score = [0.8, 0.3, 0.1, 0.6, 0.2, 0.4]
    >>> groups = [0, 0, 0, 1, 1, 1]
    >>> round(normalized_entropy_loss(y_true, y_score, groups=groups), 4)
    0.5053

    A model that predicts the click rate, 1/3, everywhere scores 1:

    >>> round(normalized_entropy_loss(y_true, [1 / 3] * 6, groups=groups), 12)
    1.0
    """
    return score(
        NE,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
        base_rate=base_rate,
        weights=weights,
        one_class=one_class,
    )


@fill_doc
@takes_frames
def predicted_to_observed_ratio(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
    weights: str = "clicks",
    one_class: str | float = "skip",
) -> float:
    """PCOC: predicted clicks over observed clicks, per group.

    Per group, the sum of the predicted click probabilities over the number
    of clicks: 1 is calibrated, above 1 over-predicts. Weighted by clicks,
    the groups' mean is the ratio of the sums over the groups with a click
    (TorchRec's ``CalibrationMetric``, over every row when ``groups`` puts
    all rows in one group). Best at 1, neither higher nor lower: a scorer
    refuses it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        The clicks: a row is a click when ``y_true > 0`` (or ``>=
        relevance_threshold``).

    y_score : array-like of the same shape as ``y_true``
        Each row's predicted click probability, in [0, 1]. Its values are
        read, not only their order.

    %(groups)s

    %(sample_weight)s

    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        Not used: PCOC does not depend on the order of the rows.

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Not used: a group without clicks follows ``one_class``.

    %(unjudged)s

    %(relevance_threshold)s

    weights : {"clicks", "impressions", "uniform", "pairs"}, default="clicks"
        The weight of each group in the mean: its clicks (the ratio of the
        sums), its rows, 1, or its (click, no click) pairs.

    one_class : "skip" or float in [0, 1], default="skip"
        What a group without clicks (a ratio over 0) contributes:
        ``"skip"`` leaves it out, its predictions with it.

    Returns
    -------
    ratio : float
        The weighted mean over groups.

    Examples
    --------
    >>> from skirm.metrics import predicted_to_observed_ratio
    >>> predicted_to_observed_ratio([1, 0, 0, 1], [0.6, 0.3, 0.3, 0.4],
    ...                             groups=[0, 0, 1, 1])
    0.7999...
    """
    return score(
        PCOC,
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
def expected_calibration_error(
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
    n_bins: int = 15,
    weights: str = "impressions",
) -> float:
    """Expected calibration error (ECE) of each group's top k rows.

    Per group, its top ``k`` rows are put in ``n_bins`` equal-width bins of
    predicted probability (``[j / n, (j + 1) / n)``, the last one closed);
    the value is ``sum over bins |predicted - observed clicks| / rows``, the
    L1 calibration error of torchmetrics' ``BinaryCalibrationError``. Lower
    is better (a scorer negates it). Weighted by the rows shown, the mean is
    the ECE of every shown row with the groups' bins kept apart; with every
    row in one group and ``k=None``, torchmetrics' number.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        The clicks: a row is a click when ``y_true > 0`` (or ``>=
        relevance_threshold``).

    y_score : array-like of the same shape as ``y_true``
        Each row's predicted click probability, in [0, 1]. Its values are
        read, not only their order.

    %(groups)s

    %(k)s

    %(sample_weight)s

    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        Which tied rows are shown when a tie straddles the cutoff:
        ``"average"`` has no closed form there and raises ValueError.

    %(no_relevant)s

    %(unjudged)s

    %(relevance_threshold)s

    n_bins : int, default=15
        The number of equal-width probability bins (torchmetrics' default).

    weights : {"impressions", "clicks", "uniform", "pairs"}, default="impressions"
        The weight of each group in the mean: the rows it shows, its clicks
        among them, 1, or its (click, no click) pairs among them.

    Returns
    -------
    error : float
        The weighted mean over groups.

    Examples
    --------
    >>> from skirm.metrics import expected_calibration_error
    >>> expected_calibration_error([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.2],
    ...                            groups=[0, 0, 0, 0], n_bins=2)
    0.3
    """
    return score(
        ECE,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
        n_bins=n_bins,
        weights=weights,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

NE = MetricSpec(table.NE, _ne, normalized_entropy_loss)
PCOC = MetricSpec(table.PCOC, _pcoc, predicted_to_observed_ratio)
ECE = MetricSpec(table.ECE, _ece, expected_calibration_error)
