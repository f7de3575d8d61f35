"""What every ranking display shares: the lazy matplotlib import, the axes
set-up, the confidence band of a mean over queries, and the scores of a
fitted estimator."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import (
    InvalidInputError,
    InvalidParameterError,
    MissingDependencyError,
)
from skirm._params import NONE, Interval, K, Param, describe
from skirm._query_ids import resolve_groups
from skirm.io._sources import is_path
from skirm.metrics._response import check_response_method, response

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def import_pyplot(owner: str):
    """``matplotlib.pyplot``, or a MissingDependencyError naming the extra to
    install."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingDependencyError(
            f"{owner} needs matplotlib; install it with `pip install skirm[plot]`"
        ) from exc
    return plt


def estimator_scores(
    owner: str, X, groups, groups_from, response_method
) -> tuple[np.ndarray, Callable[[Any, Any], np.ndarray]]:
    """What a display drawn from a fitted estimator needs of the data:
    ``(groups, scores)``, the query of each row of ``X`` (``groups``, else
    read from ``X``'s ``groups_from`` index level or column), and
    ``scores(estimator, rows)``, the estimator's one score per row of
    ``rows``, by ``response_method`` as the ranking scorers take it."""
    groups = resolve_groups(owner, X, groups, groups_from)
    methods = check_response_method(response_method)
    return groups, lambda estimator, rows: response(estimator, rows, methods)


def axes_and_figure(owner: str, ax):
    """The axes to draw on (a new figure's when ``ax`` is None) and its figure."""
    plt = import_pyplot(owner)
    if ax is None:
        _, ax = plt.subplots()
    return ax, ax.figure


#: The level of a confidence band (None: no band).
CONFIDENCE = Param(
    "confidence",
    NONE,
    Interval(float, 0, 1, closed="neither"),
    expected="None or a number strictly between 0 and 1",
)


def check_cutoffs(k):
    """Distinct positive cutoffs, sorted."""
    try:
        values = list(k)
    except TypeError:
        raise InvalidParameterError(
            f"`k` must be an iterable of positive integers, got {describe(k)}"
        ) from None
    cutoffs = [K(value) for value in values]
    if not cutoffs or None in cutoffs:
        raise InvalidParameterError(
            f"`k` must hold at least one positive integer, got {k!r}"
        )
    return sorted(set(cutoffs))


def t_interval(per_query, confidence):
    """Student-t confidence interval of the mean over queries, per column.

    ``per_query`` has one row per query (NaN rows, queries left out by
    ``no_relevant="skip"``, are dropped per column). Returns ``(low, high)``.
    """
    from scipy import stats

    values = np.asarray(per_query, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n = np.count_nonzero(~np.isnan(values), axis=0)
    if (n < 2).any():
        raise InvalidInputError(
            "a confidence band needs at least 2 scored queries per point, got "
            f"{int(n.min())}"
        )
    mean = np.nanmean(values, axis=0)
    sem = np.nanstd(values, axis=0, ddof=1) / np.sqrt(n)
    half = stats.t.ppf(0.5 + confidence / 2.0, n - 1) * sem
    return mean - half, mean + half


def run_name(run):
    """A legend name for a run given as a path: its file name; else None."""
    if is_path(run):
        return Path(run).name
    return None
