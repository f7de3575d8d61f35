"""The C/W/L measures as registered metrics and public functions.

One user model (:mod:`skirm.metrics._cwl`) with one continuation rule each;
every function returns the expected utility per item, cwl_eval's headline
number, averaged over queries. :func:`cwl_report` gives all five numbers
and the residuals per query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._measures import _table as table
from skirm.metrics._cwl import cwl_kernel
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


@fill_doc
@takes_frames
def inst_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    T: float = 1.0,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """INST (Moffat et al. 2015): an adaptive user who wants ``T`` units of gain.

    The user reads on from rank ``i`` with probability ::

        C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - (g_1 + ... + g_i)

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``INST`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    T : float, default=1.0
        The gain the user wants, in units of a fully relevant row.

    %(cwl)s

    %(sample_weight)s

    %(cwl_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import inst_score
    >>> round(inst_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0]), 4)
    0.3558
    """
    return score(
        INST,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        T=T,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def insq_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    T: float = 1.0,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """INSQ (Moffat et al. 2012): INST's static form.

    The user reads on from rank ``i`` with probability ::

        C_i = ((i + 2T - 1) / (i + 2T))^2

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``INSQ`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    T : float, default=1.0
        The gain the user wants, in units of a fully relevant row.

    %(cwl)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import insq_score
    >>> round(insq_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0]), 4)
    0.2912
    """
    return score(
        INSQ,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        T=T,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def bpm_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    T: float = 1.0,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """Static BPM (Zhang et al. 2017): the Bejeweled player, a gain and a cost budget.

    The user reads on from rank ``i`` with probability ::

        C_i = 1 while g_1 + ... + g_i < T and i < k, else 0

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``BPM`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    T : float, default=1.0
        The gain the user wants, in units of a fully relevant row.

    %(cwl)s

    %(sample_weight)s

    %(cwl_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import bpm_score
    >>> round(bpm_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], k=3), 4)
    0.5
    """
    return score(
        BPM,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        T=T,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def nerr8_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """NERR (eq. 8, Azzopardi et al. 2021): ERR's C/W/L neighbour, to rank k.

    The user reads on from rank ``i`` with probability ::

        C_i = 1 - g_i for i < k, else 0

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``NERR8`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(cwl)s

    %(sample_weight)s

    %(cwl_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import nerr8_score
    >>> round(nerr8_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], k=3), 4)
    0.5
    """
    return score(
        NERR8,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def nerr9_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """NERR (eq. 9, Azzopardi et al. 2021): NERR8 with a rank-based impatience.

    The user reads on from rank ``i`` with probability ::

        C_i = i / (i + 1) * (1 - g_i) for i < k, else 0

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``NERR9`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(cwl)s

    %(sample_weight)s

    %(cwl_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import nerr9_score
    >>> round(nerr9_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], k=3), 4)
    0.4706
    """
    return score(
        NERR9,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def nerr10_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    p: float = 0.9,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """NERR (eq. 10, Azzopardi et al. 2021): RBP's patience, ERR's satisfaction.

    The user reads on from rank ``i`` with probability ::

        C_i = p (1 - g_i)

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``NERR10`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    p : float in [0, 1], default=0.9
        The patience: the continuation of a user who has found nothing.

    %(cwl)s

    %(sample_weight)s

    %(cwl_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import nerr10_score
    >>> round(nerr10_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0]), 4)
    0.4879
    """
    return score(
        NERR10,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        p=p,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def nerr11_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    T: float = 1.0,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """NERR (eq. 11, Azzopardi et al. 2021): INSQ's patience, ERR's satisfaction.

    The user reads on from rank ``i`` with probability ::

        C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``NERR11`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    T : float, default=1.0
        The gain the user wants, in units of a fully relevant row.

    %(cwl)s

    %(sample_weight)s

    %(cwl_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import nerr11_score
    >>> round(nerr11_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0]), 4)
    0.4639
    """
    return score(
        NERR11,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        T=T,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


@fill_doc
@takes_frames
def sdcg_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = 1000,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """Scaled DCG (C/W/L form of DCG@k): the DCG discount as attention, to rank k.

    The user reads on from rank ``i`` with probability ::

        C_i = log2(i + 1) / log2(i + 2) for i < k, else 0

    The value is the expected utility per item, as cwl_eval's and
    ir_measures' ``SDCG`` (:ref:`cwl`).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(cwl)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import sdcg_score
    >>> round(sdcg_score([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], k=3), 4)
    0.4693
    """
    return score(
        SDCG,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        min_rel=min_rel,
        max_rel=max_rel,
        depth=depth,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

INST = MetricSpec(table.INST, cwl_kernel(table.INST), inst_score)
INSQ = MetricSpec(table.INSQ, cwl_kernel(table.INSQ), insq_score)
BPM = MetricSpec(table.BPM, cwl_kernel(table.BPM), bpm_score)
NERR8 = MetricSpec(table.NERR8, cwl_kernel(table.NERR8), nerr8_score)
NERR9 = MetricSpec(table.NERR9, cwl_kernel(table.NERR9), nerr9_score)
NERR10 = MetricSpec(table.NERR10, cwl_kernel(table.NERR10), nerr10_score)
NERR11 = MetricSpec(table.NERR11, cwl_kernel(table.NERR11), nerr11_score)
SDCG = MetricSpec(table.SDCG, cwl_kernel(table.SDCG), sdcg_score)
