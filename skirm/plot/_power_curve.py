"""Power curves: the power of a comparison against the number of queries or
against the effect size, from :func:`skirm.stats.power`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidParameterError
from skirm.plot._plumbing import axes_and_figure

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from matplotlib.axes import Axes
    from matplotlib.typing import ColorType
    from numpy.typing import ArrayLike
    from typing_extensions import Self


def _grid(values, name, kind):
    try:
        grid = [kind(v) for v in values]
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"`{name}` must be a sequence of numbers, got {values!r}"
        ) from None
    if len(grid) < 2:
        raise InvalidParameterError(
            f"`{name}` must hold at least 2 values for a curve, got {len(grid)}"
        )
    return grid


class PowerCurveDisplay:
    """Power against the number of queries, or against the effect size.

    A line of the power at each point; for a simulated test, a band of two
    Monte Carlo standard errors around it; a dashed line at the target
    power. Build one with :meth:`from_n_queries` (power against queries at
    one effect size) or :meth:`from_effect_sizes` (power against effect size
    at one number of queries).

    Parameters
    ----------
    x : ndarray
        The numbers of queries or the effect sizes.
    power, standard_error : ndarray
        The power at each ``x`` and its Monte Carlo standard error (0 when
        analytic).
    x_name : {"n_queries", "effect_size"}
    label : str
        The test, for the legend.
    target : float, default=0.8
        The power marked by a dashed line (None: none).

    Attributes
    ----------
    line_ : matplotlib Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skirm.plot import PowerCurveDisplay
    >>> display = PowerCurveDisplay.from_n_queries([10, 25, 50, 100], effect_size=0.3)
    >>> display.power.round(3)
    array([0.136, 0.302, 0.548, 0.844])
    """

    def __init__(
        self,
        *,
        x: ArrayLike,
        power: ArrayLike,
        standard_error: ArrayLike,
        x_name: str,
        label: str,
        target: float | None = 0.8,
    ) -> None:
        self.x = np.asarray(x, dtype=np.float64)
        self.power = np.asarray(power, dtype=np.float64)
        self.standard_error = np.asarray(standard_error, dtype=np.float64)
        self.x_name, self.label, self.target = x_name, label, target

    def plot(
        self, ax: Axes | None = None, *, color: ColorType | None = None, **kwargs: Any
    ) -> Self:
        """Draw the curve (on ``ax`` to overlay several tests).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        color : color, default=None
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        self : PowerCurveDisplay
        """
        ax, figure = axes_and_figure(type(self).__name__, ax)
        kwargs.setdefault("label", self.label)
        lines: list[Any] = ax.plot(
            self.x, self.power, color=color, marker="o", **kwargs
        )
        self.line_ = lines[0]
        if self.standard_error.any():
            ax.fill_between(
                self.x,
                np.clip(self.power - 2 * self.standard_error, 0, 1),
                np.clip(self.power + 2 * self.standard_error, 0, 1),
                color=self.line_.get_color(),
                alpha=0.2,
            )
        if self.target is not None:
            ax.axhline(self.target, color="grey", linestyle="--", linewidth=1)
        ax.set_xlabel("queries" if self.x_name == "n_queries" else "effect size d_z")
        ax.set_ylabel("power")
        ax.set_ylim(0, 1.02)
        ax.legend(loc="lower right")
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    def _from(cls, points, x, x_name, target, ax, color):
        results = list(points)
        first = results[0]
        label = f"{first.test} test" + (
            " (simulated)" if first.method == "simulation" else ""
        )
        return cls(
            x=x,
            power=[r.power for r in results],
            standard_error=[r.standard_error for r in results],
            x_name=x_name,
            label=label,
            target=target,
        ).plot(ax=ax, color=color)

    @classmethod
    def from_n_queries(
        cls,
        n_queries: Sequence[int],
        *,
        effect_size: float | None = None,
        target: float | None = 0.8,
        ax: Axes | None = None,
        color: ColorType | None = None,
        **kwargs: Any,
    ) -> Self:
        """Power against the number of queries at one effect size.

        Parameters
        ----------
        n_queries : sequence of int
            The numbers of queries of the curve.
        effect_size : float, default=None
            As in :func:`skirm.stats.power` (None: from ``differences=``).
        target : float, default=0.8
        ax : matplotlib Axes, default=None
        color : color, default=None
        **kwargs
            Passed to :func:`skirm.stats.power` (``test``, ``alpha``,
            ``differences``, ``random_state``, ...).

        Returns
        -------
        display : PowerCurveDisplay
        """
        from skirm.stats import power

        grid = _grid(n_queries, "n_queries", int)
        points = (power(effect_size, n_queries=n, **kwargs) for n in grid)
        return cls._from(points, grid, "n_queries", target, ax, color)

    @classmethod
    def from_effect_sizes(
        cls,
        effect_sizes: Sequence[float],
        *,
        n_queries: int,
        target: float | None = 0.8,
        ax: Axes | None = None,
        color: ColorType | None = None,
        **kwargs: Any,
    ) -> Self:
        """Power against the effect size at one number of queries.

        Parameters
        ----------
        effect_sizes : sequence of float
        n_queries : int
        target : float, default=0.8
        ax : matplotlib Axes, default=None
        color : color, default=None
        **kwargs
            Passed to :func:`skirm.stats.power`.

        Returns
        -------
        display : PowerCurveDisplay
        """
        from skirm.stats import power

        grid = _grid(effect_sizes, "effect_sizes", float)
        points = (power(d, n_queries=n_queries, **kwargs) for d in grid)
        return cls._from(points, grid, "effect_size", target, ax, color)
