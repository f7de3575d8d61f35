"""Propensity models: each row's probability of being observed, computed
from item frequencies or positions, for the propensity-scored metrics.

A propensity is the chance that a row's label could be logged at all: an
item shown low in a list is examined less (position bias), a rare item is
tagged less (missing labels). The metrics of :mod:`._propensity` weight each
relevant row by ``1 / propensity``; these functions give the propensities
the literature uses. Estimate them from data other than the rows measured
(training logs, a randomised experiment), as LensKit's documentation warns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError
from skirm._params import Interval, Param, checked
from skirm._validation import as_numeric_array

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "item_counts",
    "jain_propensity",
    "popularity_propensity",
    "position_propensity",
]

_A = Param("a", Interval(float, 0, closed="neither"))
_B = Param("b", Interval(float, 0, closed="left"))
_N = Param("n_instances", Interval(int, 3, closed="left"))
_GAMMA = Param("gamma", Interval(float, -1, closed="left"))
_ETA = Param("eta", Interval(float, 0, closed="left"))


def _counts(values, name, *, positive=False):
    arr = as_numeric_array(values, name)
    bad = ~np.isfinite(arr) | (arr <= 0 if positive else arr < 0)
    if bad.any():
        got = float(arr.ravel()[int(np.argmax(bad.ravel()))])
        kind = "positive" if positive else "non-negative"
        raise InvalidInputError(
            f"`{name}` must hold finite, {kind} numbers, got {got!r}"
        )
    return arr


@checked(n_instances=_N, a=_A, b=_B)
def jain_propensity(
    frequencies: ArrayLike, n_instances: int, *, a: float = 0.55, b: float = 1.5
) -> NDArray[np.float64]:
    """Jain et al.'s (2016) propensity of a label seen ``frequencies`` times.

    ``p = 1 / (1 + C (N_l + B)^-A)`` with ``C = (log N - 1) (B + 1)^A``,
    ``N_l`` the label's frequency among ``N = n_instances`` training
    instances: frequent labels are nearly always observed, rare ones much
    less. Jain et al.'s values: ``a=0.5, b=0.4`` for Wikipedia,
    ``a=0.6, b=2.6`` for Amazon, ``a=0.55, b=1.5`` otherwise.

    Parameters
    ----------
    frequencies : array-like of non-negative numbers
        Each row's label (item) frequency in the training data (see
        :func:`item_counts`).
    n_instances : int
        The number of training instances ``N`` (at least 3, so that ``log N
        > 1``).
    a, b : float, default=0.55 and 1.5
        Jain et al.'s ``A`` and ``B``.

    Returns
    -------
    propensity : ndarray of the shape of ``frequencies``
        Each in (0, 1).

    Examples
    --------
    >>> from skirm.metrics import jain_propensity
    >>> jain_propensity([0, 10, 1000], n_instances=10_000).round(4)
    array([0.0842, 0.2199, 0.7669])
    """
    counts = _counts(frequencies, "frequencies")
    c = (np.log(n_instances) - 1.0) * (b + 1.0) ** a
    return 1.0 / (1.0 + c * np.power(counts + b, -a))


@checked(gamma=_GAMMA)
def popularity_propensity(
    frequencies: ArrayLike, *, gamma: float
) -> NDArray[np.float64]:
    """Yang et al.'s (2018) popularity propensity of an item seen
    ``frequencies`` times.

    ``p = (n / n_max)^((gamma + 1) / 2)``: an item is observed when shown
    and then interacted with, shows following a power law in popularity of
    exponent ``gamma``. The most frequent item has propensity 1; an item
    never seen counts as seen once (as LensKit's ``PopularityPropensity``).

    Parameters
    ----------
    frequencies : array-like of non-negative numbers
        Each row's item frequency in the training data (see
        :func:`item_counts`).
    gamma : float >= -1
        The power-law exponent of presentation; ``-1`` gives uniform
        propensities. Reported values run from about 1.5 to 3.

    Returns
    -------
    propensity : ndarray of the shape of ``frequencies``
        Each in (0, 1].

    Examples
    --------
    >>> from skirm.metrics import popularity_propensity
    >>> popularity_propensity([1, 4, 16], gamma=1.0)
    array([0.0625, 0.25  , 1.    ])
    """
    counts = np.maximum(_counts(frequencies, "frequencies"), 1.0)
    if counts.size == 0:
        return counts
    return np.power(counts / counts.max(), (gamma + 1.0) / 2.0)


@checked(eta=_ETA)
def position_propensity(
    positions: ArrayLike, *, eta: float = 1.0
) -> NDArray[np.float64]:
    """The examination propensity of a row shown at ``positions``.

    ``p = (1 / position)^eta`` (Joachims et al. 2017's position-based model):
    the first row is examined for sure, lower rows less the larger ``eta``.
    For logs of ranked lists whose clicks are position-biased.

    Parameters
    ----------
    positions : array-like of numbers >= 1
        Each row's position (1 for the top) in the list that was shown.
    eta : float >= 0, default=1.0
        The severity of the position bias; 0 is none.

    Returns
    -------
    propensity : ndarray of the shape of ``positions``
        Each in (0, 1].

    Examples
    --------
    >>> from skirm.metrics import position_propensity
    >>> position_propensity([1, 2, 4], eta=1.0)
    array([1.  , 0.5 , 0.25])
    """
    arr = _counts(positions, "positions", positive=True)
    if (arr < 1).any():
        raise InvalidInputError(
            f"`positions` must hold positions >= 1 (1 for the top), got "
            f"{float(arr[arr < 1].ravel()[0])!r}"
        )
    return np.power(arr, -eta)


def item_counts(items: ArrayLike, reference: ArrayLike) -> NDArray[np.int64]:
    """How many times each of ``items`` occurs in ``reference``.

    The frequency of each row's item in training data, the input of
    :func:`jain_propensity` and :func:`popularity_propensity`; 0 for an item
    the reference lacks.

    Parameters
    ----------
    items : array-like of shape (n_samples,)
        Each row's item id (any sortable ids: ints, strings).
    reference : array-like
        The item ids of the training data, one per occurrence.

    Returns
    -------
    counts : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from skirm.metrics import item_counts
    >>> item_counts(["a", "b", "z"], ["a", "b", "a", "c"])
    array([2, 1, 0])
    """
    items_arr, ref = np.asarray(items), np.asarray(reference)
    if items_arr.ndim != 1 or ref.ndim != 1:
        raise InvalidInputError(
            "`items` and `reference` must be 1-D arrays of item ids, got shapes "
            f"{items_arr.shape} and {ref.shape}"
        )
    distinct, counts = np.unique(ref, return_counts=True)
    if distinct.shape[0] == 0:
        return np.zeros(items_arr.shape[0], dtype=np.int64)
    try:
        at = np.searchsorted(distinct, items_arr)
    except TypeError as exc:
        raise InvalidInputError(
            f"`items` and `reference` must hold ids of one comparable kind: {exc}"
        ) from None
    at = np.minimum(at, distinct.shape[0] - 1)
    found = distinct[at] == items_arr
    return np.where(found, counts[at], 0).astype(np.int64)
