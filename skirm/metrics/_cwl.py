"""The C/W/L framework: one user model behind INST, INSQ, BPM, NERR, SDCG.

A user reads the ranking from the top. After the item at rank ``i`` they
go on to rank ``i + 1`` with probability ``C_i``, the *continuation*; every
C/W/L measure is a rule for ``C_i`` (Moffat, Bailey, Scholer & Thomas 2017;
Azzopardi, Thomas & Moffat 2019). From ``C`` alone follow

* ``P_i = C_1 ... C_(i-1)``, the probability of reaching rank ``i``;
* ``W_i = P_i / sum(P)``, the share of attention rank ``i`` gets;
* ``L_i = P_i (1 - C_i)``, the probability of stopping at rank ``i``;

and the five numbers cwl_eval reports: the expected utility per item
``EU = sum W_i g_i`` (the measure's value), the expected total utility
``ETU = sum L_i (g_1 + ... + g_i)``, the expected cost per item ``EC``, the
expected total cost ``ETC`` (unit costs: ``sum L_i i``) and the expected
number of items read ``EI = sum P_i``.

Conventions are cwl_eval's (as ir_measures runs it): a label becomes a gain
in [0, 1] as ``(clip(label, min_rel, max_rel) - min_rel) / (max_rel -
min_rel)``; the ranking is read to a fixed ``depth`` (1,000), shorter
rankings padded with gain 0 and longer ones cut; every item costs 1. The
*residuals* are the same numbers when every unjudged row and every padded
rank has gain 1 instead of 0, minus the numbers above.

Under ``ties="average"`` the measures whose continuation ignores the gains
(INSQ, SDCG) are linear in the gains, so each tied row is read at its tie
block's mean gain: the exact mean over the orderings. The continuation of
the adaptive measures (INST, BPM, NERR) depends on the gains read so far:
their mean over tied orderings has no closed form, and ``ties="average"``
refuses tied scores for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import check_input, rank
from skirm._errors import InvalidParameterError
from skirm._measures import _table as table
from skirm._measures._options import OPTIONS
from skirm._params import K, OneOf, Param
from skirm.metrics._result import EvaluationResult
from skirm.metrics._spec import average, fill_doc, refuse_average_ties, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import Ties, Unjudged
    from skirm.metrics._label_types import Labels

#: How far cwl_eval reads every ranking.
CWL_DEPTH = 1000
#: Cells of the (queries x depth) matrices built at once.
_CELLS = 1 << 16

#: What cwl_eval reports per query, in its order.
REPORT = (
    "expected_utility",
    "expected_total_utility",
    "expected_cost",
    "expected_total_cost",
    "expected_items",
)


def _inst(gain, rank, k, T, p):
    # ((rank + T + left - 1) / (rank + T + left)) ** 2, left = T - the gain
    # read so far (the gain still wanted after rank i), in two matrices
    base = np.cumsum(gain, axis=1)
    np.subtract(T, base, out=base)
    np.add(rank + T, base, out=base)
    step = np.subtract(base, 1.0)
    np.divide(step, base, out=step)
    return np.square(step, out=step)


def _insq(gain, rank, k, T, p):
    return np.broadcast_to(((rank + 2.0 * T - 1.0) / (rank + 2.0 * T)) ** 2, gain.shape)


def _nerr11(gain, rank, k, T, p):
    missed = np.subtract(1.0, gain)
    return np.multiply(
        ((rank + 2.0 * T - 1.0) / (rank + 2.0 * T)) ** 2, missed, out=missed
    )


def _nerr10(gain, rank, k, T, p):
    missed = np.subtract(1.0, gain)
    return np.multiply(p, missed, out=missed)


def _nerr8(gain, rank, k, T, p):
    within = rank < k  # ranks 1 .. k - 1 may continue
    return np.where(within, 1.0 - gain, 0.0)


def _nerr9(gain, rank, k, T, p):
    return np.where(rank < k, rank / (rank + 1.0) * (1.0 - gain), 0.0)


def _bpm(gain, rank, k, T, p):
    # Static Bejeweled player: goes on while both the gain gathered is
    # short of T and the (unit) cost spent is short of k.
    return ((rank < k) & (np.cumsum(gain, axis=1) < T)).astype(np.float64)


def _sdcg(gain, rank, k, T, p):
    # The DCG discount 1 / log2(i + 1) as a continuation, to rank k.
    log2 = np.log(2.0)
    step = (np.log(rank + 1.0) / log2) / (np.log(rank + 2.0) / log2)
    return np.broadcast_to(np.where(rank < k, step, 0.0), gain.shape)


#: Each C/W/L measure's continuation ``C(gain, rank, k, T, p)``, for each
#: cell of ``gain`` (queries x depth); ``rank`` counts from 1.
CONTINUATIONS = {
    table.INST: _inst,
    table.INSQ: _insq,
    table.BPM: _bpm,
    table.NERR8: _nerr8,
    table.NERR9: _nerr9,
    table.NERR10: _nerr10,
    table.NERR11: _nerr11,
    table.SDCG: _sdcg,
}
#: Measures whose continuation does not depend on the gains.
STATIC = (table.INSQ, table.SDCG)
#: Measures whose continuation is 0 from rank ``k`` on: no user reads past
#: rank ``k``, and only its first ``k`` ranks are computed.
STOPS_AT_K = (table.BPM, table.NERR8, table.NERR9, table.SDCG)
#: The C/W/L measures by skirm's name, for :func:`cwl_report`.
_BY_NAME = {measure.name: measure for measure in CONTINUATIONS}
MEASURE = Param("measure", OneOf(*_BY_NAME))


def _model(continuation, gain, rank, utility_only=False, padded=None, read=None):
    """The five C/W/L numbers per line of ``gain`` (only the expected
    utility, the same bits, with ``utility_only``). With ``padded`` (the
    depth, and a dict of zero matrices that wide, by memory order), the
    lines are the first ranks of the depth, past which no user reads (every
    number there is 0): each sum is taken over the lines written into
    zeros as wide as the depth, laid out as the lines, so that numpy sums
    them as it sums lines computed to the depth (the same bits). With
    ``read`` (and no ``padded``), every gain past the first ``read`` ranks
    is 0: the expected utility is summed over those ranks the same way."""

    def total(x, padded=padded):
        if padded is None or x.shape[1] == padded[0]:
            return x.sum(axis=1)
        depth, zeros = padded
        order = _layout(x)
        if order not in zeros:
            zeros[order] = np.zeros((x.shape[0], depth), order=order)
        full = zeros[order]
        full[:, : x.shape[1]] = x
        return full.sum(axis=1)

    reach = np.empty_like(continuation)
    reach[:, 0] = 1.0
    np.cumprod(continuation[:, :-1], axis=1, out=reach[:, 1:])
    items = total(reach)
    if utility_only and padded is None and read is not None and read < gain.shape[1]:
        # past rank `read` the gain is 0 and so is attention * gain, unless
        # the attention is not finite (then so is `items`)
        if np.isfinite(items).all():
            # laid out as attention * gain would be: F only if both are
            order = "F" if _layout(reach) == _layout(gain) == "F" else "C"
            attention = reach[:, :read] / items[:, None]
            seen = np.multiply(attention, gain[:, :read], order=order)
            return (total(seen, (gain.shape[1], {})),)
    attention = reach / items[:, None]
    if utility_only:
        return (total(attention * gain),)
    stop = reach * (1.0 - continuation)
    return (
        total(attention * gain),
        total(stop * np.cumsum(gain, axis=1)),
        total(attention),
        total(stop * rank),
        items,
    )


def _layout(x):
    """``"F"`` for a matrix laid out column by column only, else ``"C"``."""
    return "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"


def check_gain_range(ranking, min_rel, max_rel):
    """``(min_rel, max_rel)`` with ``max_rel=None`` read from the labels."""
    if max_rel is None:
        top = float(ranking.labels.max()) if ranking.n_rows else 0.0
        # Labels all at most min_rel have gain 0 whatever max_rel is.
        return min_rel, top if top > min_rel else min_rel + 1.0
    if max_rel <= min_rel:
        raise InvalidParameterError(
            f"`max_rel` must be greater than `min_rel` ({min_rel:g}), got {max_rel:g}"
        )
    return min_rel, max_rel


def cwl_lines(
    ranking,
    measure,
    k=None,
    *,
    T=1.0,
    p=0.9,
    min_rel=0.0,
    max_rel=None,
    depth=CWL_DEPTH,
    residuals=False,
    utility_only=False,
):
    """Per query, the five C/W/L numbers (a dict of arrays, :data:`REPORT`),
    and with ``residuals=True`` also ``residual_<name>`` for each; with
    ``utility_only=True`` the expected utility alone (a kernel's value).

    The (queries x depth) matrices are built for a slice of the queries at a
    time, so memory stays bounded whatever the number of queries.
    """
    averaged = ranking.ties == "average" and ranking.has_ties
    if measure not in STATIC:
        refuse_average_ties(
            ranking,
            f"the C/W/L measure {measure.name!r}",
            "its continuation depends on the gains already read",
            first="input order, as cwl_eval reads a run",
        )
    min_rel, max_rel = check_gain_range(ranking, min_rel, max_rel)
    if k is not None and int(k) > depth:
        # cwl_eval reads the ranking to `depth`: with a cutoff past it, its
        # stopping probabilities sum to less than 1, and its expected total
        # utility and cost are then of no user model.
        raise InvalidParameterError(
            f"`k` must be at most `depth` ({depth}) for the C/W/L measure "
            f"{measure.name!r}: the user model stops at the depth, so a cutoff "
            f"past it is no model's; got k={int(k)}. Raise `depth` to at least k"
        )
    k = depth if k is None else int(k)
    gain = (np.clip(ranking.labels, min_rel, max_rel) - min_rel) / (max_rel - min_rel)
    best = None  # the gains of the best case, for the residuals
    if residuals and ranking.judged is not None:
        best = np.where(ranking.judged, gain, 1.0)
    if averaged:
        # A static continuation makes every number linear in the gains: the
        # mean over tied orderings reads each row at its block's mean gain.
        gain = ranking.block_mean(gain)
        best = None if best is None else ranking.block_mean(best)
    top = ranking.top(depth)
    # to rank k only where the continuation stops there (then the ranks
    # past it are zeros, written once, in the sums of ``_model``)
    width = max(k, 1) if measure in STOPS_AT_K and k < depth else depth
    rank = np.arange(1.0, width + 1.0)
    cases = [("", 0.0)] + ([("residual_", 1.0)] if residuals else [])
    names = REPORT[:1] if utility_only else REPORT
    out = {
        prefix + name: np.zeros(ranking.n_groups)
        for prefix, _ in cases
        for name in names
    }
    step = max(1, _CELLS // depth)
    for first in range(0, ranking.n_groups, step):  # slices of queries, not queries
        last = min(first + step, ranking.n_groups)
        lo, hi = np.searchsorted(top.codes, (first, last))  # the codes are sorted
        rows = np.arange(lo, hi)
        if width < depth:
            rows = rows[top.position[lo:hi] < width]
        codes, position = top.codes[rows] - first, top.position[rows]
        padded = None if width == depth else (depth, {})
        for prefix, pad in cases:
            lines = np.full((last - first, width), pad)
            source = best if pad and best is not None else gain
            lines[codes, position] = source[top.index[rows]]
            continuation = CONTINUATIONS[measure](lines, rank, k, T, p)
            read = None if pad else int(position.max(initial=-1)) + 1
            numbers = _model(continuation, lines, rank, utility_only, padded, read)
            for name, values in zip(names, numbers, strict=True):
                out[prefix + name][first:last] = values
    if residuals:
        for name in names:
            out["residual_" + name] -= out[name]
    return out


def cwl_kernel(measure):
    """The registry kernel of one C/W/L measure (a row of the measure
    table): its expected utility."""

    def kernel(ranking, k=None, **params):
        if k is not None and np.ndim(k):
            values = np.column_stack(
                [
                    cwl_lines(ranking, measure, int(c), utility_only=True, **params)[
                        REPORT[0]
                    ]
                    for c in k
                ]
            )
        else:
            values = cwl_lines(ranking, measure, k, utility_only=True, **params)[
                REPORT[0]
            ]
        return values, ranking.n_relevant() == 0

    kernel.__name__ = f"_{measure.name}"
    return kernel


# --------------------------------------------------------------------------
# Registry records
# --------------------------------------------------------------------------

_GAINS = {"min_rel": 0.0, "max_rel": None, "depth": 1000}


# --------------------------------------------------------------------------
# Public: every number cwl_eval reports
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def cwl_report(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    measure: str,
    groups: ArrayLike | None = None,
    k: int | None = None,
    T: float = 1.0,
    p: float = 0.9,
    min_rel: float = 0.0,
    max_rel: float | None = None,
    depth: int = CWL_DEPTH,
    residuals: bool = True,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "first",
    unjudged: Unjudged = "nonrelevant",
) -> EvaluationResult:
    """Every number cwl_eval reports for one C/W/L measure, per query.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        Relevance labels; NaN marks an unjudged row, of gain 0 in the
        measure and of gain 1 in the residuals' best case.

    y_score : array-like of the same shape as ``y_true``
        Scores; higher ranks first.

    measure : {"inst", "insq", "bpm", "nerr8", "nerr9", "nerr10", "nerr11", \
"sdcg"}
        The continuation rule (see :ref:`cwl`).

    %(groups)s

    k : int, default=None
        The cutoff of ``bpm`` (its cost budget), ``nerr8``, ``nerr9`` and
        ``sdcg``; ignored by the others.

    T : float, default=1.0
        The gain wanted by ``inst``, ``insq``, ``bpm`` and ``nerr11``.

    p : float in [0, 1], default=0.9
        The patience of ``nerr10``.

    %(cwl)s

    residuals : bool, default=True
        Also report each number's residual: its value when every unjudged
        row and every rank past the ranking has gain 1, minus its value.

    %(sample_weight)s

    ties : {"first", "optimistic", "pessimistic", "average"}, default="first"
        How tied scores are ordered; ``"first"`` (input order) is how
        cwl_eval reads a run.

    unjudged : {"nonrelevant", "condensed", "raise"}, default="nonrelevant"
        What a NaN label means (see :func:`evaluate`).

    Returns
    -------
    report : EvaluationResult
        ``per_query`` and ``means`` hold ``expected_utility`` (the
        measure's value), ``expected_total_utility``, ``expected_cost``,
        ``expected_total_cost``, ``expected_items`` and, with residuals,
        ``residual_expected_utility`` and so on.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.metrics import cwl_report
    >>> report = cwl_report([1, np.nan, 2], [3, 2, 1], groups=[0, 0, 0],
    ...                     measure="inst", T=2.0)
    >>> round(report["expected_utility"], 4), round(report["expected_items"], 4)
    (0.2489, 3.6364)
    >>> round(report["residual_expected_utility"], 4)
    0.5536
    """
    row = _BY_NAME[MEASURE(measure)]
    options = {
        "T": OPTIONS["T"](T),
        "p": OPTIONS["p"](p),
        "min_rel": OPTIONS["min_rel"](min_rel),
        "max_rel": OPTIONS["max_rel"](max_rel),
        "depth": OPTIONS["depth"](depth),
    }
    k = K(k)
    if not row.takes_k:
        k = None  # a measure without a cutoff reads the ranking to `depth`
    ranking = rank(
        check_input(
            y_true,
            y_score,
            groups=groups,
            sample_weight=sample_weight,
            ties=ties,
            unjudged=unjudged,
        )
    )
    per_query = cwl_lines(ranking, row, k, residuals=residuals, **options)
    means = {
        name: average(values, ranking.group_weights, name)
        for name, values in per_query.items()
    }
    return EvaluationResult(ranking.group_ids, per_query, means, ranking.group_weights)
