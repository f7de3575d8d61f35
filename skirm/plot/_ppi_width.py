"""The half-width of a prediction-powered interval against the number of
gold queries, from a :class:`~skirm.stats.PPIResult`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidParameterError
from skirm._params import NONE, Interval, Param, checked, describe
from skirm.plot._plumbing import axes_and_figure

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from skirm.stats import PPIResult

#: A half-width to mark.
TARGET = Param("target", Interval(float, 0, closed="neither"), NONE)


class PPIWidthDisplay:
    """Interval half-width against the number of gold queries, with the
    judge and without it.

    Two curves: the expected half-width of the PPI++ interval (the judge
    corrected by the gold queries) and of the gold queries' own interval,
    planned from a pilot's standard deviation and judge-gold correlation;
    the pilot's own half-widths as points; a dashed line at a target
    half-width. Build one with :meth:`from_result`.

    Parameters
    ----------
    n_gold : array-like of int
        The numbers of gold queries.
    ppi, gold : array-like of float
        The expected half-widths at each, with the judge and without.
    metric : str
        The metric, for the title.
    observed : tuple of (int, float, float), default=None
        The pilot's ``(n_gold, PPI++ half-width, gold half-width)``.
    target : float, default=None
        A half-width to mark.

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skirm.plot import PPIWidthDisplay
    >>> from skirm.stats import ppi_mean
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.beta(2, 3, size=500)
    >>> judge = truth + 0.1 + rng.normal(0, 0.1, size=500)
    >>> gold = np.where(rng.random(500) < 0.08, truth, np.nan)
    >>> display = PPIWidthDisplay.from_result(ppi_mean(judge, gold),
    ...                                       n_gold=[10, 20, 40, 80])
    >>> display.ppi.round(3), display.gold.round(3)
    (array([0.042, 0.03 , 0.023, 0.019]), array([0.122, 0.08 , 0.055, 0.038]))
    """

    def __init__(
        self,
        *,
        n_gold: ArrayLike,
        ppi: ArrayLike,
        gold: ArrayLike,
        metric: str,
        observed: tuple[int, float, float] | None = None,
        target: float | None = None,
    ) -> None:
        self.n_gold = np.asarray(n_gold)
        self.ppi = np.asarray(ppi, dtype=np.float64)
        self.gold = np.asarray(gold, dtype=np.float64)
        self.metric, self.observed, self.target = metric, observed, target

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Self:
        """Draw the two curves (on ``ax`` to overlay several metrics).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot` for both curves.

        Returns
        -------
        self : PPIWidthDisplay
        """
        ax, figure = axes_and_figure(type(self).__name__, ax)
        judged = ax.plot(self.n_gold, self.ppi, label="with the judge (PPI++)",
                         **kwargs)[0]  # fmt: skip
        alone = ax.plot(self.n_gold, self.gold, linestyle="--",
                        label="gold queries alone", **kwargs)[0]  # fmt: skip
        self.lines_ = [judged, alone]
        if self.observed is not None:
            n, ppi, gold = self.observed
            ax.plot([n], [ppi], "o", color=judged.get_color())
            ax.plot([n], [gold], "o", color=alone.get_color(), fillstyle="none")
        if self.target is not None:
            ax.axhline(self.target, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("gold queries")
        ax.set_ylabel(f"half-width of the interval of {self.metric}")
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper right")
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    @checked(target=TARGET)
    def from_result(
        cls,
        result: PPIResult,
        *,
        metric: str | None = None,
        n_gold: Sequence[int] | None = None,
        target: float | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """The half-widths planned from a result of
        :func:`~skirm.stats.ppi_mean` (see :meth:`PPIResult.half_widths
        <skirm.stats.PPIResult.half_widths>`), its own as points.

        Parameters
        ----------
        result : PPIResult
        metric : str, default=None
            The metric (None: the result's first).
        n_gold : sequence of int, default=None
            The numbers of gold queries; None for 20 points from 5 to ten
            times the result's, below its number of queries.
        target : float, default=None
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PPIWidthDisplay
        """
        if not hasattr(result, "half_widths"):
            raise InvalidParameterError(
                f"`result` must be a PPIResult, got {describe(result)}"
            )
        name = result.metrics[0] if metric is None else metric
        if n_gold is None:
            n = result.n_gold.get(name, result.n_queries)
            top = min(result.n_queries - 1, 10 * n)
            grid = np.unique(np.geomspace(min(5, top), top, 20).astype(int))
        else:
            grid = np.asarray(n_gold)
        widths = result.half_widths(grid.tolist(), metric)  # checks `metric`
        records = {
            r["estimator"]: r["half_width"]
            for r in result.to_records()
            if r["metric"] == name
        }
        return cls(
            n_gold=grid,
            ppi=widths["ppi++"],
            gold=widths["gold"],
            metric=name,
            observed=(result.n_gold[name], records["ppi++"], records["gold"]),
            target=target,
        ).plot(ax=ax, **kwargs)
