"""Multiple-comparison corrections of p-values, vectorised over the last axis."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError
from skirm._params import NONE, OneOf, Param, checked

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import FloatArray

#: The multiple-comparison corrections (None, where accepted, is none).
CORRECTIONS = ("holm", "bonferroni", "fdr_bh")
#: The method of :func:`adjust_pvalues`.
CORRECTION_METHOD = Param("method", OneOf(*CORRECTIONS), NONE)
#: The correction of :func:`~skirm.stats.compare`: ``"auto"`` picks one for
#: the test and the number of pairs.
CORRECTION = Param(
    "correction", OneOf("auto", *CORRECTIONS), NONE, option="--correction"
)


def _holm(ordered, m):
    factors = m - np.arange(m)
    return np.maximum.accumulate(ordered * factors, axis=-1)


def _fdr_bh(ordered, m):
    scaled = ordered * (m / np.arange(1, m + 1))
    return np.minimum.accumulate(scaled[..., ::-1], axis=-1)[..., ::-1]


@checked(method=CORRECTION_METHOD)
def adjust_pvalues(
    pvalues: ArrayLike, method: Literal["holm", "bonferroni", "fdr_bh"] | None = "holm"
) -> FloatArray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like
        p-values; every 1-D slice along the last axis is one family of
        comparisons, adjusted on its own.
    method : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        - ``"holm"``: Holm's step-down method, controls the familywise error
          rate and is never less powerful than Bonferroni's.
        - ``"bonferroni"``: ``min(1, m * p)``.
        - ``"fdr_bh"``: Benjamini and Hochberg's step-up method, controls
          the false discovery rate (for independent or positively dependent
          tests).
        - None: no adjustment.

        The adjusted values equal those of R's ``p.adjust`` with methods
        ``"holm"``, ``"bonferroni"`` and ``"BH"``.

    Returns
    -------
    adjusted : ndarray
        Adjusted p-values, same shape as ``pvalues``; reject where
        ``adjusted <= alpha``.

    Examples
    --------
    >>> from skirm.stats import adjust_pvalues
    >>> p = [0.01, 0.04, 0.03, 0.005]
    >>> adjust_pvalues(p, "holm")
    array([0.03, 0.06, 0.06, 0.02])
    >>> adjust_pvalues(p, "fdr_bh")
    array([0.02, 0.04, 0.04, 0.02])
    >>> adjust_pvalues(p, "bonferroni")
    array([0.04, 0.16, 0.12, 0.02])
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim == 0:
        raise InvalidInputError(
            "`pvalues` must hold at least one p-value, got a scalar"
        )
    if p.size and (np.isnan(p).any() or (p < 0).any() or (p > 1).any()):
        raise InvalidInputError(
            "`pvalues` must hold numbers in [0, 1], got NaN or out of range"
        )
    m = p.shape[-1]
    if method is None or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, axis=-1, kind="stable")
    ordered = np.take_along_axis(p, order, axis=-1)
    adjusted = (_holm if method == "holm" else _fdr_bh)(ordered, m)
    out = np.empty_like(p)
    np.put_along_axis(out, order, np.minimum(1.0, adjusted), axis=-1)
    return out
