"""Systems side by side: mean and confidence interval per system (a forest
plot), from a comparison of :mod:`skirm.stats`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidParameterError
from skirm.plot._plumbing import axes_and_figure

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from matplotlib.axes import Axes
    from matplotlib.typing import ColorType
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from skirm.metrics import EvaluationResult
    from skirm.stats import Comparison


class ComparisonDisplay:
    """Mean and confidence interval of one metric per system.

    One row per system: the mean over queries with its confidence interval
    as a horizontal bar, the baseline marked with a dashed line, and the
    systems that differ significantly from it (after the comparison's
    multiple-comparison correction) drawn filled and starred. Without a
    baseline, each system's label lists the systems it beats significantly.

    Build one with :meth:`from_comparison` or :meth:`from_evaluations`.

    Parameters
    ----------
    systems : list of str
        System names, top to bottom.
    means, ci_low, ci_high : ndarray of shape (n_systems,)
        The means and their interval.
    significant : ndarray of bool of shape (n_systems,)
        Whether the system differs significantly from the baseline.
    metric : str
    baseline : str, default=None
    better_than : list of tuple of str, default=None
        Per system, the systems it beats significantly.
    caption : str, default=None
        How the intervals and tests were made; drawn under the axes.

    Attributes
    ----------
    errorbar_ : matplotlib ErrorbarContainer
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skirm.datasets import make_ranking
    >>> from skirm.metrics import evaluate
    >>> from skirm.plot import ComparisonDisplay
    >>> X, y, groups = make_ranking(n_groups=40, random_state=0)
    >>> results = {
    ...     f"feature {j}": evaluate(y, X[:, j], groups=groups, metrics=["ndcg@10"])
    ...     for j in range(3)
    ... }
    >>> display = ComparisonDisplay.from_evaluations(
    ...     results, metric="ndcg@10", baseline="feature 0"
    ... )
    >>> display.systems
    ['feature 0', 'feature 1', 'feature 2']
    >>> [label.get_text() for label in display.ax_.get_yticklabels()][0]
    'feature 0 (baseline)'
    """

    def __init__(
        self,
        *,
        systems: Sequence[str],
        means: ArrayLike,
        ci_low: ArrayLike,
        ci_high: ArrayLike,
        significant: ArrayLike,
        metric: str,
        baseline: str | None = None,
        better_than: Sequence[Sequence[str]] | None = None,
        caption: str | None = None,
    ) -> None:
        self.systems = list(systems)
        self.means = np.asarray(means, dtype=np.float64)
        self.ci_low = np.asarray(ci_low, dtype=np.float64)
        self.ci_high = np.asarray(ci_high, dtype=np.float64)
        self.significant = np.asarray(significant, dtype=bool)
        self.metric = metric
        self.baseline = baseline
        self.better_than = better_than
        self.caption = caption

    def _labels(self):
        labels = []
        for i, system in enumerate(self.systems):
            if system == self.baseline:
                labels.append(f"{system} (baseline)")
            elif self.baseline is None and self.better_than and self.better_than[i]:
                labels.append(f"{system} > {', '.join(self.better_than[i])}")
            elif self.significant[i]:
                labels.append(f"{system} *")
            else:
                labels.append(system)
        return labels

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
        self : ComparisonDisplay
        """
        ax, figure = axes_and_figure(type(self).__name__, ax)
        rows = np.arange(len(self.systems))[::-1]  # the first system on top
        error = np.vstack([self.means - self.ci_low, self.ci_high - self.means])
        kwargs.setdefault("fmt", "none")
        kwargs.setdefault("capsize", 3)
        self.errorbar_ = ax.errorbar(
            self.means, rows, xerr=error, color=color, **kwargs
        )
        filled = self.significant | np.array([s == self.baseline for s in self.systems])
        ax.scatter(self.means[filled], rows[filled], color=color, zorder=3)
        ax.scatter(
            self.means[~filled],
            rows[~filled],
            facecolors="white",
            edgecolors=color,
            zorder=3,
        )
        if self.baseline is not None:
            base = self.means[self.systems.index(self.baseline)]
            ax.axvline(base, color="grey", linestyle="--", linewidth=1)
        ax.set_yticks(rows, self._labels())
        ax.set_xlabel(f"{self.metric}, mean over queries")
        if not ax.get_title():
            ax.set_title(f"{self.metric}: mean and confidence interval per system")
        if self.caption:
            ax.annotate(
                self.caption,
                (0, 0),
                xycoords="axes fraction",
                xytext=(0, -32),
                textcoords="offset points",
                va="top",
                fontsize="x-small",
                wrap=True,
            )
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    def from_comparison(
        cls,
        comparison: Comparison,
        *,
        metric: str | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw one metric of a :class:`skirm.stats.Comparison`.

        Parameters
        ----------
        comparison : Comparison
            From :func:`skirm.stats.compare`.
        metric : str, default=None
            One of ``comparison.metrics``; the first when None.
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : ComparisonDisplay
        """
        if metric is None:
            metric = comparison.metrics[0]
        if metric not in comparison.metrics:
            raise InvalidParameterError(
                f"`metric` {metric!r} is not among the comparison's metrics "
                f"{comparison.metrics}"
            )
        rows = [r for r in comparison.to_records("systems") if r["metric"] == metric]
        caption = (
            f"{comparison.confidence:.0%} intervals ({comparison.interval}); "
            f"{comparison.test} test, correction: {comparison.correction}, "
            f"alpha={comparison.alpha:g}, {comparison.n_queries} queries"
        )
        return cls(
            systems=[r["system"] for r in rows],
            means=[r["mean"] for r in rows],
            ci_low=[r["ci_low"] for r in rows],
            ci_high=[r["ci_high"] for r in rows],
            significant=[r["significant"] for r in rows],
            metric=metric,
            baseline=comparison.baseline,
            better_than=[r["better_than"] for r in rows],
            caption=caption,
        ).plot(ax=ax, **kwargs)

    @classmethod
    def from_evaluations(
        cls,
        results: Mapping[str, EvaluationResult],
        *,
        metric: str,
        baseline: str | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Compare evaluations with :func:`skirm.stats.compare`, then draw.

        Parameters
        ----------
        results : dict of str to EvaluationResult
            The systems, evaluated on the same queries.
        metric : str
        baseline : str, default=None
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :func:`skirm.stats.compare` (``test``, ``correction``,
            ``alpha``, ``confidence``, ``random_state``, ...).

        Returns
        -------
        display : ComparisonDisplay
        """
        from skirm.stats import compare

        comparison = compare(results, baseline=baseline, metrics=[metric], **kwargs)
        return cls.from_comparison(comparison, metric=metric, ax=ax)
