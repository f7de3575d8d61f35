"""The forest plot of a meta-analysis across collections, from
:func:`skirm.stats.meta_analysis`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as _stats

from skirm.plot._plumbing import axes_and_figure

if TYPE_CHECKING:
    from typing import Any

    from matplotlib.axes import Axes
    from matplotlib.typing import ColorType
    from typing_extensions import Self

    from skirm.stats import MetaAnalysisResult


class MetaAnalysisDisplay:
    """Forest plot: each collection's effect and the pooled effect.

    One row per collection, its effect with its confidence interval, the
    marker's area proportional to its weight in the pooled effect; a diamond
    for the pooled effect and its interval, the prediction interval as a
    thin line through it; a dashed line at 0.

    Build one with :meth:`from_meta_analysis`.

    Parameters
    ----------
    result : MetaAnalysisResult
        From :func:`skirm.stats.meta_analysis`.

    Attributes
    ----------
    errorbar_ : matplotlib ErrorbarContainer
        The collections' intervals.
    pooled_ : matplotlib Polygon
        The pooled effect's diamond.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skirm.plot import MetaAnalysisDisplay
    >>> from skirm.stats import meta_analysis
    >>> result = meta_analysis([0.02, 0.05, -0.01, 0.04],
    ...                        [0.0001, 0.0004, 0.0002, 0.0003])
    >>> display = MetaAnalysisDisplay.from_meta_analysis(result)
    >>> [t.get_text() for t in display.ax_.get_yticklabels()]
    ['0', '1', '2', '3', 'dl pooled']
    """

    def __init__(self, *, result: MetaAnalysisResult) -> None:
        self.result = result

    def plot(
        self, ax: Axes | None = None, *, color: ColorType = "tab:blue", **kwargs: Any
    ) -> Self:
        """Draw the forest plot.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        color : color, default="tab:blue"
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.errorbar`.

        Returns
        -------
        self : MetaAnalysisDisplay
        """
        r = self.result
        ax, figure = axes_and_figure(type(self).__name__, ax)
        k = len(r.names)
        rows = np.arange(k)[::-1] + 1.0  # the first collection on top
        half = _stats.norm.isf((1 - r.confidence) / 2) * np.sqrt(r.variances)
        kwargs.setdefault("fmt", "none")
        kwargs.setdefault("capsize", 2)
        self.errorbar_ = ax.errorbar(r.effects, rows, xerr=half, color=color, **kwargs)
        ax.scatter(
            r.effects, rows, s=40 + 400 * r.weights, marker="s", color=color, zorder=3
        )
        low, high = r.confidence_interval
        diamond = [(low, 0), (r.effect, 0.25), (high, 0), (r.effect, -0.25)]
        patches: list[Any] = ax.fill(*zip(*diamond, strict=True), color="black")
        self.pooled_ = patches[0]
        if np.isfinite(r.prediction_interval[0]):
            ax.hlines(0, *r.prediction_interval, color="black", linewidth=1)
        ax.axvline(0, color="grey", linestyle="--", linewidth=1)
        ax.set_yticks([*rows, 0], [*map(str, r.names), f"{r.method} pooled"])
        ax.set_xlabel("effect")
        if not ax.get_title():
            ax.set_title(
                f"tau^2 {r.tau2:.3g}, I^2 {r.i2:.0%}, "
                f"{r.confidence:.0%} intervals (prediction interval: line)"
            )
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    def from_meta_analysis(
        cls, result: MetaAnalysisResult, *, ax: Axes | None = None, **kwargs: Any
    ) -> Self:
        """Draw a :class:`skirm.stats.MetaAnalysisResult`.

        Parameters
        ----------
        result : MetaAnalysisResult
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetaAnalysisDisplay
        """
        return cls(result=result).plot(ax=ax, **kwargs)
