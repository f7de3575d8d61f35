"""Agreement between judges: :func:`label_agreement`.

Every coefficient is computed from sums that add over items: a confusion
matrix (Cohen), the items' observed agreement and the category counts
(Fleiss, Gwet), a coincidence matrix (Krippendorff). The sums are made once
per query with one ``bincount``; the per-query values, the pooled value (the
sums over all queries) and the bootstrap draws (the sums weighted by how
often each query is drawn, one matrix product per chunk of draws) all come
from the same function of the sums, vectorised over its rows. No Python loop
runs over queries or items.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import skirm.stats._resampling as rs
from skirm._engine import check_groups, encode_groups
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import NONE, OneOf, Param, checked
from skirm._validation import as_numeric_array
from skirm.stats._paired import CONFIDENCE
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed

#: The agreement coefficients of :func:`label_agreement`.
AGREEMENT_METHODS = ("cohen", "fleiss", "krippendorff", "gwet")
AGREEMENT_METHOD = Param("method", OneOf(*AGREEMENT_METHODS))
#: Krippendorff's levels of measurement.
LEVELS = ("nominal", "ordinal", "interval", "ratio")
LEVEL = Param("level", OneOf(*LEVELS), NONE)
#: Partial credit for near misses (Cohen's weighted kappa, Gwet's AC2).
AGREEMENT_WEIGHTS = Param("weights", OneOf("linear", "quadratic"), NONE)


# --------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------


def _codes(labels):
    """``(codes, categories)``: each judgement's category index (-1 where a
    judge gave none) and the sorted categories seen."""
    arr = as_numeric_array(labels, "labels")
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise InvalidInputError(
            "`labels` must be a 2-D array of shape (n_items, n_judges) with at "
            f"least two judges (NaN where a judge gave no label), got shape {arr.shape}"
        )
    if np.isinf(arr).any():
        raise InvalidInputError("`labels` must hold finite labels or NaN, got inf")
    judged = ~np.isnan(arr)
    categories = np.unique(arr[judged])
    if categories.size < 2:
        raise InvalidInputError(
            "`labels` must hold at least two distinct categories for agreement to "
            f"be defined, got {categories.size} ({categories.tolist()})"
        )
    codes = np.full(arr.shape, -1, dtype=np.int64)
    codes[judged] = np.searchsorted(categories, arr[judged])
    return codes, categories


def _query_codes(groups, n_items):
    """``(query_ids, code of each item)``; every item its own unit for None.

    The labels are checked as every query label in skirm is: a missing one
    (None, NaN, NaT, a null) is refused naming ``groups``, not sorted as a
    query of its own.
    """
    if groups is None:
        return None, np.arange(n_items)
    shape = np.shape(groups)
    if shape != (n_items,):
        raise InvalidInputError(
            f"`groups` must hold one query label per item ({n_items}), got shape "
            f"{shape}"
        )
    inverse, ids = encode_groups(check_groups(groups, n_items))
    return ids, np.asarray(inverse).ravel()


# --------------------------------------------------------------------------
# Sums per query (rows: queries; columns: the sums of one coefficient)
# --------------------------------------------------------------------------


def _pair_sums(codes, query, n_queries, q, pairs, weight):
    """Sum per query of ``weight`` over judge pairs: shape (n_queries, q*q),
    entry ``c*q + k`` for a pair (judge giving c, judge giving k)."""
    total = np.zeros(n_queries * q * q)
    for j1, j2 in pairs:  # a loop over pairs of judges, not over items
        a, b = codes[:, j1], codes[:, j2]
        both = (a >= 0) & (b >= 0)
        index = (query[both] * q + a[both]) * q + b[both]
        w = None if weight is None else weight[both]
        total += np.bincount(index, weights=w, minlength=total.size)
    return total.reshape(n_queries, q * q)


def _category_counts(codes, q):
    """Judgements of each item in each category, shape (n_items, q)."""
    n_items = codes.shape[0]
    judged = codes >= 0
    item = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)[judged]
    index = item * q + codes[judged]
    return np.bincount(index, minlength=n_items * q).reshape(n_items, q).astype(float)


def _by_query(rows, query, n_queries):
    """Column sums of ``rows`` per query, shape (n_queries, n_columns)."""
    if n_queries == rows.shape[0] and (query == np.arange(n_queries)).all():
        return rows.astype(float)  # every item its own unit, in order
    return np.column_stack(
        [np.bincount(query, weights=col, minlength=n_queries) for col in rows.T]
    )


def _cohen_sums(codes, query, n_queries, q):
    return _pair_sums(codes, query, n_queries, q, [(0, 1)], None)


def _krippendorff_sums(codes, query, n_queries, q):
    counts = (codes >= 0).sum(axis=1)
    weight = 1.0 / np.maximum(counts - 1, 1)
    judges = range(codes.shape[1])
    pairs = [(j1, j2) for j1 in judges for j2 in judges if j1 != j2]
    return _pair_sums(codes, query, n_queries, q, pairs, weight)


def _fleiss_sums(codes, query, n_queries, q):
    """Columns: sum of the items' agreement P_i, the items, category totals
    (items judged at least twice)."""
    counts = _category_counts(codes, q)
    n = counts.sum(axis=1)
    keep = n >= 2
    agree = np.zeros(len(n))
    agree[keep] = ((counts[keep] ** 2).sum(axis=1) - n[keep]) / (
        n[keep] * (n[keep] - 1)
    )
    rows = np.column_stack([agree, keep, counts * keep[:, None]])
    return _by_query(rows, query, n_queries)


def _gwet_sums(codes, query, n_queries, q, w):
    """Columns: sum of the items' weighted agreement (items judged at least
    twice), those items, the items judged at least once, and the sum over
    them of each category's share of the item's judgements (Gwet 2014, 4.1)."""
    counts = _category_counts(codes, q)
    n = counts.sum(axis=1)
    pairable = n >= 2
    agree = np.einsum("ik,ik->i", counts, counts @ w.T) - n
    agree /= np.maximum(n * (n - 1), 1.0)
    share = counts / np.maximum(n, 1.0)[:, None]
    rows = np.empty((n.size, q + 3))
    rows[:, 0] = agree
    rows[:, 1] = pairable
    rows[:, 2] = n >= 1
    rows[:, 3:] = share
    return _by_query(rows, query, n_queries)


# --------------------------------------------------------------------------
# Coefficients from the sums, vectorised over rows (NaN where undefined)
# --------------------------------------------------------------------------


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _cohen_value(sums, w):
    q = w.shape[0]
    confusion = sums.reshape(-1, q, q)
    n = confusion.sum(axis=(1, 2))
    rows, cols = confusion.sum(axis=2), confusion.sum(axis=1)
    expected = rows[:, :, None] * cols[:, None, :]
    observed = (confusion * w).sum(axis=(1, 2)) * n
    chance = (expected * w).sum(axis=(1, 2))
    value = 1.0 - _ratio(observed, chance)
    return np.where(n > 0, value, np.nan)


def _fleiss_value(sums):
    items = sums[:, 1]
    p_mean = _ratio(sums[:, 0], items)
    totals = sums[:, 2:]
    share = totals / np.maximum(totals.sum(axis=1, keepdims=True), 1.0)
    p_exp = (share**2).sum(axis=1)
    return _ratio(p_mean - p_exp, 1.0 - p_exp)


def _gwet_value(sums, w):
    q = w.shape[0]
    pa = _ratio(sums[:, 0], sums[:, 1])
    pi = sums[:, 3:] / np.maximum(sums[:, 2], 1.0)[:, None]
    pe = w.sum() / (q * (q - 1)) * (pi * (1.0 - pi)).sum(axis=1)
    return np.where(sums[:, 1] > 0, _ratio(pa - pe, 1.0 - pe), np.nan)


def _krippendorff_distance(level, values, n_v):
    """Squared distances between categories, shape (rows, q, q)."""
    q = values.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(q), (n_v.shape[0], q, q))
    if level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
        return np.broadcast_to(d, (n_v.shape[0], q, q))
    if level == "ratio":
        total = values[:, None] + values[None, :]
        diff = values[:, None] - values[None, :]
        d = np.divide(diff, total, out=np.zeros((q, q)), where=total != 0) ** 2
        return np.broadcast_to(d, (n_v.shape[0], q, q))
    index = np.arange(q)
    low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
    cum = np.concatenate([np.zeros((n_v.shape[0], 1)), np.cumsum(n_v, axis=1)], axis=1)
    between = cum[:, high + 1] - cum[:, low]
    return (between - (n_v[:, low] + n_v[:, high]) / 2.0) ** 2


def _krippendorff_value(sums, values, level):
    q = values.size
    o = sums.reshape(-1, q, q)
    n_v = o.sum(axis=1)
    n = n_v.sum(axis=1)
    d = _krippendorff_distance(level, values, n_v)
    e = n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(q)
    observed = (o * d).sum(axis=(1, 2)) * (n - 1)
    chance = (e * d).sum(axis=(1, 2))
    return np.where(n > 1, 1.0 - _ratio(observed, chance), np.nan)


def _weight_matrix(weights, x, *, by_index):
    """Agreement credit between categories: 1 on the diagonal; linear or
    quadratic in the distance scaled to the range (Gwet), or in the index
    distance as a disagreement weight (Cohen, as scikit-learn)."""
    q = x.size
    if by_index:
        i = np.arange(q, dtype=float)
        dist = np.abs(i[:, None] - i[None, :])
        if weights is None:
            return 1.0 - np.eye(q)
        return dist if weights == "linear" else dist**2
    if weights is None:
        return np.eye(q)
    dist = np.abs(x[:, None] - x[None, :]) / (x.max() - x.min())
    return 1.0 - (dist if weights == "linear" else dist**2)


# --------------------------------------------------------------------------
# Public
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AgreementResult:
    """The outcome of :func:`label_agreement`.

    Attributes
    ----------
    method : str
        ``"cohen"``, ``"fleiss"``, ``"krippendorff"`` or ``"gwet"``.
    level : str or None
        Krippendorff's level of measurement (None for other methods).
    weights : str or None
        ``"linear"``, ``"quadratic"`` or None (Cohen, Gwet).
    value : float
        The coefficient over all items (pooled over queries).
    per_query : ndarray or None
        One value per query, in the order of ``query_ids`` (None without
        ``groups``); NaN where agreement is undefined in that query.
    query_ids : ndarray or None
        The sorted distinct query labels of ``groups``.
    confidence_interval : tuple of float
        Percentile bootstrap interval of ``value``, queries (items without
        ``groups``) drawn with replacement.
    confidence : float
        The level of the interval.
    n_resamples : int
        Bootstrap draws.
    random_state : int or None
        The seed of the draws (None for a generator passed in).
    categories : ndarray
        The categories seen, sorted.
    n_items, n_judges : int
        The shape of ``labels``.
    n_undefined : int
        Queries whose value is NaN.
    """

    method: str
    level: str | None
    weights: str | None
    value: float
    per_query: np.ndarray | None
    query_ids: np.ndarray | None
    confidence_interval: tuple
    confidence: float
    n_resamples: int
    random_state: int | None
    categories: np.ndarray
    n_items: int
    n_judges: int
    n_undefined: int

    def __str__(self):
        low, high = self.confidence_interval
        name = {
            "cohen": "Cohen's kappa",
            "fleiss": "Fleiss' kappa",
            "krippendorff": f"Krippendorff's alpha ({self.level})",
            "gwet": "Gwet's AC1" if self.weights is None else "Gwet's AC2",
        }[self.method]
        if self.weights is not None:
            name += f", {self.weights} weights"
        lines = [
            f"{name}: {self.value:.4f}, {self.confidence:.0%} CI "
            f"[{low:.4f}, {high:.4f}]",
            f"{self.n_items} items, {self.n_judges} judges, "
            f"{self.categories.size} categories",
        ]
        if self.per_query is not None:
            lines.append(f"{self.per_query.size} queries, {self.n_undefined} undefined")
        return "\n".join(lines)


def _bootstrap(sums, value, n_resamples, rng):
    """The coefficient on ``n_resamples`` draws of the rows of ``sums``."""
    n_units, width = sums.shape
    parts = []
    for rows in rs._chunk_sizes(n_resamples, max(n_units, width)):
        counts = rs._bootstrap_counts(rng, rows, n_units)
        parts.append(value(counts @ sums))
    return np.concatenate(parts)


def _setup(method, level, weights, codes, categories):
    """``(sums function, value function)`` of a method, its options checked."""
    if level is not None and method != "krippendorff":
        raise InvalidParameterError(
            f"`level` applies to method='krippendorff' only, got level={level!r} "
            f"with method={method!r}"
        )
    if weights is not None and method in ("fleiss", "krippendorff"):
        raise InvalidParameterError(
            f"`weights` applies to method='cohen' or 'gwet', got weights={weights!r} "
            f"with method={method!r}"
        )
    if method == "cohen":
        if codes.shape[1] != 2:
            raise InvalidInputError(
                "method='cohen' compares two judges: `labels` must have 2 columns, "
                f"got {codes.shape[1]}; use 'fleiss', 'krippendorff' or 'gwet'"
            )
        w = _weight_matrix(weights, categories, by_index=True)
        return _cohen_sums, lambda s: _cohen_value(s, w)
    if method == "fleiss":
        return _fleiss_sums, _fleiss_value
    if method == "gwet":
        w = _weight_matrix(weights, categories, by_index=False)
        return (
            lambda c, g, n, q: _gwet_sums(c, g, n, q, w),
            lambda s: _gwet_value(s, w),
        )
    level = level or "nominal"
    return _krippendorff_sums, lambda s: _krippendorff_value(s, categories, level)


@checked(
    method=AGREEMENT_METHOD,
    level=LEVEL,
    weights=AGREEMENT_WEIGHTS,
    confidence=CONFIDENCE,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
)
def label_agreement(
    labels: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    method: Literal["cohen", "fleiss", "krippendorff", "gwet"] = "krippendorff",
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    weights: Literal["linear", "quadratic"] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    random_state: Seed = None,
) -> AgreementResult:
    """Agreement between judges' labels, pooled and per query.

    Parameters
    ----------
    labels : array-like of shape (n_items, n_judges)
        One column per judge, NaN where a judge gave no label: the shape of
        :func:`~skirm.metrics.evaluate`'s ``label_samples`` (several samples
        of one judge are several columns), or two columns for two label sets.
        The categories are the distinct values seen, sorted; they are the
        same for every query.
    groups : array-like of shape (n_items,), default=None
        The query of each item. With it, ``per_query`` holds one value per
        query and the bootstrap draws queries; without it, the bootstrap
        draws items.
    method : {"cohen", "fleiss", "krippendorff", "gwet"}, default="krippendorff"
        - ``"cohen"``: Cohen's kappa of two judges (two columns), on the
          items both judged; equal to
          :func:`sklearn.metrics.cohen_kappa_score` with ``labels`` the
          categories of the whole array.
        - ``"fleiss"``: Fleiss' kappa, equal to statsmodels'
          ``fleiss_kappa`` when every item has the same number of labels.
          With missing labels, each item's agreement uses its own number of
          labels, and items with fewer than two are left out.
        - ``"krippendorff"``: Krippendorff's alpha at ``level``, any number
          of judges, missing labels; equal to the ``krippendorff`` package's
          ``alpha``.
        - ``"gwet"``: Gwet's AC1 (AC2 with ``weights``), any number of
          judges, missing labels (Gwet 2014, chapters 2 and 4). Less
          sensitive than kappa and alpha to skewed labels (the paradox of
          high agreement and a low kappa).
    level : {"nominal", "ordinal", "interval", "ratio"} or None, default=None
        Krippendorff's level of measurement (None is ``"nominal"``); only
        for ``method="krippendorff"``.
    weights : {"linear", "quadratic"} or None, default=None
        Partial credit for near misses (``"cohen"``, ``"gwet"`` only). Cohen's
        weights grow with the distance between the categories' positions (as
        scikit-learn); Gwet's with the distance between their values, scaled
        to the range of the categories.
    confidence : float, default=0.95
        The level of the bootstrap interval.
    n_resamples : int, default=1000
        Bootstrap draws.
    random_state : int, numpy Generator or None, default=None
        Seed of the draws.

    Returns
    -------
    result : AgreementResult
        ``value`` (pooled), ``per_query``, ``confidence_interval``, ...

    Raises
    ------
    skirm.InvalidInputError
        If ``labels`` has one category, fewer than two judges, no item judged
        by two judges (no overlap), or two judges whose pooled chance
        agreement is complete; if ``groups`` is misaligned.
    skirm.InvalidParameterError
        If ``level`` or ``weights`` is given to a method that does not take it.

    Warns
    -----
    RuntimeWarning
        When agreement is undefined in some queries (no item judged twice, or
        a chance agreement of 1: every label of the query in one category,
        for kappa and alpha). Those queries' ``per_query`` values are NaN;
        they still count in the pooled value. A bootstrap draw whose pooled
        value is undefined is left out of the interval.

    Notes
    -----
    Each coefficient is computed from sums over items: the pooled value is
    the coefficient of all items, not a mean of the queries' values.

    Examples
    --------
    Two judges on six items of two queries; judge 2 missed one item:

    >>> import numpy as np
    >>> from skirm.stats import label_agreement
    >>> labels = [[0, 0], [1, 1], [2, 1], [0, 0], [1, np.nan], [2, 2]]
    >>> res = label_agreement(labels, groups=[1, 1, 1, 2, 2, 2], method="cohen",
    ...                       random_state=0)
    >>> print(res)
    Cohen's kappa: 0.7059, 95% CI [0.5000, 1.0000]
    6 items, 2 judges, 3 categories
    2 queries, 0 undefined
    >>> res.per_query
    array([0.5, 1. ])
    >>> round(label_agreement(labels, method="gwet", random_state=0).value, 4)
    0.7031
    """
    codes, categories = _codes(labels)
    query_ids, query = _query_codes(groups, codes.shape[0])
    sums_of, value_of = _setup(method, level, weights, codes, categories)
    n_units = int(query.max()) + 1
    sums = sums_of(codes, query, n_units, categories.size)
    judged = (codes >= 0).sum(axis=1)
    pairable = (codes >= 0).all(axis=1) if method == "cohen" else judged >= 2
    if not pairable.any():
        raise InvalidInputError(
            "`labels` has no item labelled by two judges (the judges do not "
            f"overlap): agreement is undefined for method={method!r}"
        )
    pooled = value_of(sums.sum(axis=0, keepdims=True))[0]
    if not np.isfinite(pooled):
        raise InvalidInputError(
            "agreement is undefined for these `labels`: the judges' chance "
            "agreement is complete (each labelled every item it shares alike)"
        )
    per_query, n_undefined = None, 0
    if query_ids is not None:
        per_query = value_of(sums)
        n_undefined = int(np.isnan(per_query).sum())
        if n_undefined:
            warnings.warn(
                f"agreement is undefined in {n_undefined} of {per_query.size} "
                "queries (no item labelled twice, or a chance agreement of 1); "
                "their per_query values are NaN",
                RuntimeWarning,
                stacklevel=3,
            )
    seed, rng = rs.seed_and_rng(random_state)
    draws = _bootstrap(sums, value_of, n_resamples, rng)
    draws = np.sort(draws[np.isfinite(draws)])[None, :]
    alpha = (1.0 - confidence) / 2.0
    if draws.size:
        low, high = (float(rs.quantiles(draws, p)[0]) for p in (alpha, 1 - alpha))
    else:  # pragma: no cover - the pooled value is defined, so draws are
        low = high = float("nan")
    return AgreementResult(
        method=method,
        level=(level or "nominal") if method == "krippendorff" else None,
        weights=weights,
        value=float(pooled),
        per_query=per_query,
        query_ids=query_ids,
        confidence_interval=(low, high),
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=seed,
        categories=categories,
        n_items=codes.shape[0],
        n_judges=codes.shape[1],
        n_undefined=n_undefined,
    )
