"""Which queries to send to humans next: :func:`select_gold_queries`, a
random sample, by stratum, split over the strata in proportion to their
sizes or by Neyman's allocation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import Interval, OneOf, Param, checked
from skirm.stats._resampling import RANDOM_STATE

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed

N_SELECT = Param("n", Interval(int, 1, closed="left"))
ALLOCATION = Param("allocation", OneOf("proportional", "neyman"))


def _allocate(n, sizes, weights):
    """``n`` split over strata in proportion to ``weights`` (largest
    remainders), no stratum given more than its ``sizes``."""
    alloc = np.zeros(sizes.size, dtype=np.int64)
    left = n
    open_ = sizes > 0
    while left > 0 and open_.any():
        w = np.where(open_, weights, 0.0)
        if w.sum() == 0:
            w = open_.astype(float)
        share = left * w / w.sum()
        step = np.floor(share).astype(np.int64)
        rest = left - step.sum()
        order = np.argsort(-(share - step), kind="stable")
        step[order[:rest]] += 1
        step = np.minimum(step, sizes - alloc)
        alloc += step
        left -= int(step.sum())
        open_ = alloc < sizes
        if step.sum() == 0:  # pragma: no cover - every open stratum full
            break
    return alloc


@checked(n=N_SELECT, allocation=ALLOCATION, random_state=RANDOM_STATE)
def select_gold_queries(
    query_ids: ArrayLike,
    n: int,
    *,
    strata: ArrayLike | None = None,
    allocation: Literal["proportional", "neyman"] = "proportional",
    std: Mapping[Any, float] | None = None,
    exclude: ArrayLike | None = None,
    random_state: Seed = None,
) -> np.ndarray:
    """The queries to send to humans next: a random sample, by stratum.

    Parameters
    ----------
    query_ids : array-like of shape (n_queries,)
        The queries the judge labelled (``result.group_ids``).
    n : int
        How many to draw.
    strata : array-like of shape (n_queries,), default=None
        The stratum of each query: ``n`` is split over the strata, and each
        stratum's queries drawn at random (for :func:`ppi_mean`'s
        ``strata``). None draws from all the queries.
    allocation : {"proportional", "neyman"}, default="proportional"
        How ``n`` is split: in proportion to the strata's sizes, or to their
        sizes times ``std`` (Neyman's allocation, the smallest variance when
        ``std`` is each stratum's standard deviation of the gold values
        less the judge's: ``Y - lam f`` in a pilot).
    std : mapping of stratum to float, default=None
        Each stratum's standard deviation, for ``"neyman"``.
    exclude : array-like, default=None
        Queries never drawn (those already gold); the allocation splits
        ``n`` over the queries left.
    random_state : int, numpy Generator or None, default=None
        Seed of the draw.

    Returns
    -------
    ids : ndarray
        The ``n`` queries drawn, in the order of ``query_ids``.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.stats import select_gold_queries
    >>> ids = np.arange(100)
    >>> strata = np.where(ids < 80, "head", "tail")
    >>> picked = select_gold_queries(ids, 10, strata=strata, random_state=0)
    >>> np.unique(strata[picked], return_counts=True)
    (array(['head', 'tail'], dtype='<U4'), array([8, 2]))
    """
    ids = np.asarray(query_ids)
    if ids.ndim != 1 or np.unique(ids).size != ids.size:
        raise InvalidInputError(
            f"`query_ids` must be 1-D and distinct, got shape {ids.shape}"
        )
    candidates = np.ones(ids.size, dtype=bool)
    if exclude is not None:
        candidates = ~np.isin(ids, np.asarray(exclude))
    if n > np.count_nonzero(candidates):
        raise InvalidInputError(
            f"`n` must be at most the {np.count_nonzero(candidates)} queries left "
            f"to draw from, got {n}"
        )
    _, rng = rs.seed_and_rng(random_state)
    if strata is None:
        if allocation != "proportional" or std is not None:
            raise InvalidParameterError(
                "`allocation` and `std` split `n` over `strata`, which is None"
            )
        codes = np.zeros(ids.size, dtype=np.int64)
        labels = np.array([0])
    else:
        labels, codes = np.unique(np.asarray(strata), return_inverse=True)
        codes = codes.ravel()
        if codes.size != ids.size:
            raise InvalidInputError(
                f"`strata` must hold one stratum per query ({ids.size}), got "
                f"{codes.size}"
            )
    sizes = np.bincount(codes[candidates], minlength=labels.size)
    weights = sizes.astype(float)
    if allocation == "neyman":
        if std is None or any(label.item() not in std for label in labels):
            raise InvalidParameterError(
                "allocation='neyman' needs `std`: a standard deviation for every "
                f"stratum {labels.tolist()}"
            )
        weights = weights * np.array([float(std[label.item()]) for label in labels])
    elif std is not None:
        raise InvalidParameterError("`std` applies to allocation='neyman'")
    alloc = _allocate(n, sizes, weights)
    chosen = np.zeros(ids.size, dtype=bool)
    keys = rng.random(ids.size)
    for code in np.flatnonzero(alloc):
        pool = np.flatnonzero(candidates & (codes == code))
        chosen[pool[np.argsort(keys[pool], kind="stable")[: alloc[code]]]] = True
    return ids[chosen]
