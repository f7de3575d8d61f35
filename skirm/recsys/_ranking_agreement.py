"""Agreement between two rankings: rank-biased overlap, Kendall's tau, tau-AP.

Rank-biased overlap compares two ranked lists of ids that may hold different
items (two systems' results for one query, two recommenders' lists for one
user). Kendall's tau and tau-AP compare two orderings of the same systems,
for example the order of systems under two sets of judgements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from skirm._engine import id_array
from skirm._errors import InvalidInputError
from skirm._params import BOOLEAN, Interval, Param, as_python, checked, describe

if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence

    from numpy.typing import ArrayLike

__all__ = ["kendall_tau", "rank_biased_overlap", "tau_ap"]

#: RBO's persistence: the probability of looking at the next item.
PERSISTENCE = Param("p", Interval(float, 0, 1, closed="neither"))
#: Whether RBO extrapolates beyond the lists.
EXTRAPOLATE = Param("extrapolate", BOOLEAN)
#: Whether tau-AP averages its two directions.
SYMMETRIC = Param("symmetric", BOOLEAN)


@checked(p=PERSISTENCE, extrapolate=EXTRAPOLATE)
def rank_biased_overlap(
    a: Sequence[Hashable] | ArrayLike,
    b: Sequence[Hashable] | ArrayLike,
    *,
    p: float = 0.9,
    extrapolate: bool = True,
) -> float:
    """Rank-biased overlap of two ranked lists (Webber, Moffat and Zobel 2010).

    With :math:`X_d` the number of items the two lists share in their top
    :math:`d`, the agreement at depth :math:`d` is :math:`A_d = X_d / d`
    (for a list shorter than :math:`d`, its whole list). RBO weighs depth
    :math:`d` by :math:`(1 - p) p^{d - 1}`: a user who looks at the next item
    with probability ``p``.

    * ``extrapolate=True``: :math:`\\mathrm{RBO}_{ext}`, the point estimate
      that assumes the agreement seen at the end of the lists goes on
      (Webber et al. eq. 30, and eq. 32 for lists of different lengths).
    * ``extrapolate=False``: the observed part only,
      :math:`(1 - p) \\sum_{d=1}^{l} p^{d-1} A_d` up to the longer length
      :math:`l`, a lower bound.

    Parameters
    ----------
    a, b : sequence of ids
        Two ranked lists, best first; ids unique within each list.
    p : float in (0, 1), default=0.9
        Persistence: the expected depth looked at is :math:`1 / (1 - p)`.
    extrapolate : bool, default=True
        Extrapolate beyond the lists (``RBO_ext``) or not.

    Returns
    -------
    rbo : float
        In [0, 1]; 1 for identical lists with ``extrapolate=True``.

    Examples
    --------
    >>> from skirm.recsys import rank_biased_overlap
    >>> rank_biased_overlap(["a", "b", "c"], ["a", "b", "c"])
    1.0
    >>> round(rank_biased_overlap(["a", "b", "c", "d"], ["b", "a", "d", "c"]), 4)
    0.873
    >>> round(rank_biased_overlap(["a", "b", "c"], ["a", "b", "c"],
    ...                           extrapolate=False), 4)
    0.271
    """
    a, b = _ranked(a, "a"), _ranked(b, "b")
    if a.shape[0] > b.shape[0]:
        a, b = b, a  # a is the shorter list
    s, n_long = a.shape[0], b.shape[0]
    if n_long == 0:
        raise InvalidInputError("`a` and `b` must not both be empty")
    overlap = _overlap(a, b)  # X_d for d = 1 .. n_long
    d = np.arange(1, n_long + 1, dtype=np.float64)
    weights = p**d
    if not extrapolate:
        return float((1 - p) / p * np.sum(overlap / d * weights))
    if s == 0:
        return 0.0
    x_s, x_l = overlap[s - 1], overlap[n_long - 1]
    tail = d > s
    total = np.sum(overlap / d * weights)
    total += np.sum(x_s * (d[tail] - s) / (s * d[tail]) * weights[tail])
    return float((1 - p) / p * total + ((x_l - x_s) / n_long + x_s / s) * p**n_long)


def _ranked(values, name) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InvalidInputError(
            f"`{name}` must be a ranked list of ids, got {describe(values)}"
        )
    ids = id_array(list(values) if not isinstance(values, np.ndarray) else values, name)
    if np.unique(ids).shape[0] != ids.shape[0]:
        raise InvalidInputError(f"`{name}` names an item twice")
    return ids


def _overlap(a, b):
    """``X_d``: items in both top-d prefixes, for d = 1 .. len(b)."""
    both = np.concatenate([a.astype(object), b.astype(object)])
    try:
        _, codes = np.unique(both, return_inverse=True)
    except TypeError:
        raise InvalidInputError(
            "the ids of `a` and `b` must be mutually comparable (all ints or all "
            "strings)"
        ) from None
    codes = codes.reshape(-1)
    n_long = b.shape[0]
    rank_a = np.full(codes.max() + 1, n_long, dtype=np.intp)
    rank_b = np.full(codes.max() + 1, n_long, dtype=np.intp)
    rank_a[codes[: a.shape[0]]] = np.arange(a.shape[0])
    rank_b[codes[a.shape[0] :]] = np.arange(n_long)
    deepest = np.maximum(rank_a, rank_b)
    return np.cumsum(np.bincount(deepest[deepest < n_long], minlength=n_long))


def _scores(x, name, n=None) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf" or arr.ndim != 1:
        raise InvalidInputError(
            f"`{name}` must be a 1-D array of numbers (one per system), got "
            f"{describe(arr)}"
        )
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise InvalidInputError(f"`{name}` must hold finite numbers")
    if n is not None and arr.shape[0] != n:
        raise InvalidInputError(
            f"`{name}` must score the same systems as `x`: expected {n} values, "
            f"got {arr.shape[0]}"
        )
    if arr.shape[0] < 2:
        raise InvalidInputError(
            f"`{name}` must score at least 2 systems, got {arr.shape[0]}"
        )
    return arr


def kendall_tau(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's tau-b between two scorings of the same systems.

    Parameters
    ----------
    x, y : array-like of shape (n_systems,)
        Two scores per system (e.g. MAP under two sets of judgements).

    Returns
    -------
    tau : float
        In [-1, 1] (NaN when one scoring is constant).

    Examples
    --------
    >>> from skirm.recsys import kendall_tau
    >>> kendall_tau([0.3, 0.2, 0.1], [0.25, 0.2, 0.22])
    0.333...
    """
    x = _scores(x, "x")
    y = _scores(y, "y", x.shape[0])
    return float(stats.kendalltau(x, y).statistic)


@checked(symmetric=SYMMETRIC)
def tau_ap(x: ArrayLike, y: ArrayLike, *, symmetric: bool = False) -> float:
    """AP rank correlation of ``x`` against the reference ``y``.

    Yilmaz, Aslam and Robertson (2008): order the systems by ``x``,
    descending; for the system at rank :math:`i \\ge 2`, :math:`C(i)` counts
    the systems above it that ``y`` also puts above it. Then
    :math:`\\tau_{AP} = \\frac{2}{N - 1} \\sum_{i=2}^{N} \\frac{C(i)}{i - 1} - 1`.
    Swaps near the top cost more than with Kendall's tau. ``symmetric=True``
    averages the two directions.

    Parameters
    ----------
    x : array-like of shape (n_systems,)
        The scores whose order is judged; no ties.
    y : array-like of shape (n_systems,)
        The reference scores; no ties.
    symmetric : bool, default=False
        Average ``tau_ap(x, y)`` and ``tau_ap(y, x)``.

    Returns
    -------
    tau_ap : float
        In [-1, 1].

    Examples
    --------
    >>> from skirm.recsys import tau_ap
    >>> tau_ap([4, 3, 2, 1], [4, 3, 1, 2])  # a swap at the bottom
    0.777...
    >>> tau_ap([4, 3, 2, 1], [3, 4, 2, 1])  # the same swap at the top
    0.333...
    """
    x = _scores(x, "x")
    y = _scores(y, "y", x.shape[0])
    for name, values in (("x", x), ("y", y)):
        if np.unique(values).shape[0] != values.shape[0]:
            tied = as_python(values[np.argmax(np.diff(np.sort(values)) == 0)])
            raise InvalidInputError(
                f"`{name}` must order the systems without ties, got {tied!r} twice"
            )
    one = _tau_ap(x, y)
    return float((one + _tau_ap(y, x)) / 2) if symmetric else float(one)


def _tau_ap(x, y):
    order = np.argsort(-x, kind="stable")
    ref = y[order]
    n = ref.shape[0]
    above = np.tril(ref[None, :] > ref[:, None], k=-1)  # above[i, j]: j < i, y_j > y_i
    correct = above.sum(axis=1)[1:]
    return 2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0
