"""Per-query differences between a system and a baseline: wins and losses."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures._held import held_name
from skirm._params import Interval, Param, checked
from skirm.metrics._evaluate import evaluate
from skirm.plot._plumbing import axes_and_figure

if TYPE_CHECKING:
    from typing import Any

    from matplotlib.axes import Axes
    from matplotlib.typing import ColorType
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from skirm._typing import NoRelevant, Ties
    from skirm.metrics import EvaluationResult
    from skirm.metrics._label_types import Labels


#: The query ids written on the largest wins and losses.
TOP_N = Param("top_n", Interval(int, 0, closed="left"))


def _aligned(result, baseline, metric):
    """The two systems' per-query values of ``metric``, on the same queries."""
    for which, res in (("result", result), ("baseline", baseline)):
        if held_name(metric, res.per_query) is None:
            raise InvalidParameterError(
                f"`metric` {metric!r} is not in the {which}'s metrics "
                f"{list(res.per_query)}"
            )
    ids, other = np.asarray(result.group_ids), np.asarray(baseline.group_ids)
    if ids.shape != other.shape or not np.array_equal(ids, other):
        missing = np.setdiff1d(other, ids)[:5].tolist()
        extra = np.setdiff1d(ids, other)[:5].tolist()
        raise InvalidInputError(
            "the system and the baseline must be evaluated on the same queries; "
            f"missing from the system: {missing}, missing from the baseline: "
            f"{extra} (first few)"
        )
    return (
        ids,
        result.per_query[held_name(metric, result.per_query)],
        baseline.per_query[held_name(metric, baseline.per_query)],
    )


class PerQueryDisplay:
    """Per-query difference of a metric between a system and a baseline.

    The queries are sorted by difference and drawn as bars, wins above zero
    and losses below: the "wins and losses" plot of IR papers. The legend
    gives the counts of wins, ties and losses and the mean difference.
    Queries a system left out (``no_relevant="skip"``, NaN) are not drawn.

    Parameters
    ----------
    group_ids : ndarray of shape (n_queries,)
        The query ids, aligned to ``differences``.
    differences : ndarray of shape (n_queries,)
        ``system - baseline`` per query.
    metric : str
        The metric's name.
    name, baseline_name : str, default=None
        The two systems' names.

    Attributes
    ----------
    wins, ties, losses : int
        Queries where the system scores higher than, the same as, or lower
        than the baseline.
    mean_difference : float
        The mean of ``differences``.
    bars_ : matplotlib BarContainer
    labels_ : list of matplotlib Text
        The query ids written on the ``top_n`` largest differences.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skirm.metrics import evaluate
    >>> from skirm.plot import PerQueryDisplay
    >>> y = [1, 0, 0, 1, 0, 1, 0, 0]
    >>> groups = ["a", "a", "b", "b", "c", "c", "d", "d"]
    >>> new = evaluate(y, [2, 1, 1, 2, 1, 2, 1, 2], groups=groups, metrics=["mrr"])
    >>> old = evaluate(y, [1, 2, 2, 1, 1, 2, 1, 2], groups=groups, metrics=["mrr"])
    >>> display = PerQueryDisplay.from_evaluations(new, old, metric="mrr")
    >>> display.wins, display.ties, display.losses
    (2, 2, 0)
    >>> [float(bar.get_height()) for bar in display.bars_]
    [0.5, 0.5, 0.0, 0.0]
    """

    def __init__(
        self,
        *,
        group_ids: ArrayLike,
        differences: NDArray[np.float64],
        metric: str,
        name: str | None = None,
        baseline_name: str | None = None,
    ) -> None:
        keep = ~np.isnan(differences)
        order = np.argsort(-differences[keep], kind="stable")
        self.group_ids = np.asarray(group_ids)[keep][order]
        self.differences = np.asarray(differences, dtype=np.float64)[keep][order]
        self.metric = metric
        self.name = name
        self.baseline_name = baseline_name
        self.wins = int(np.count_nonzero(self.differences > 0))
        self.losses = int(np.count_nonzero(self.differences < 0))
        self.ties = int(self.differences.shape[0] - self.wins - self.losses)
        self.mean_difference = (
            float(self.differences.mean()) if self.differences.size else float("nan")
        )

    @checked(top_n=TOP_N)
    def plot(
        self,
        ax: Axes | None = None,
        *,
        name: str | None = None,
        top_n: int = 0,
        colors: tuple[ColorType, ColorType, ColorType] = (
            "tab:green",
            "tab:red",
            "tab:grey",
        ),
        **kwargs: Any,
    ) -> Self:
        """Draw the sorted per-query differences as bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        name : str, default=None
            The system's name in the legend; ``self.name`` when None.
        top_n : int, default=0
            Write the query id on the ``top_n`` largest wins and losses.
        colors : tuple of 3 colors, default=("tab:green", "tab:red", "tab:grey")
            Wins, losses, ties.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.bar`.

        Returns
        -------
        self : PerQueryDisplay
        """
        ax, figure = axes_and_figure(type(self).__name__, ax)
        name = self.name if name is None else name
        d = self.differences
        color = np.where(d > 0, colors[0], np.where(d < 0, colors[1], colors[2]))
        positions = np.arange(d.shape[0])
        label = (
            f"{name or 'system'}: {self.wins} wins, {self.ties} ties, "
            f"{self.losses} losses; mean {self.mean_difference:+.4f}"
        )
        kwargs.setdefault("width", 1.0)
        self.bars_ = ax.bar(positions, d, color=color, label=label, **kwargs)
        ax.axhline(0.0, color="black", linewidth=0.8)
        self.labels_ = []
        if top_n:
            picks = np.concatenate([positions[:top_n], positions[::-1][:top_n]])
            for i in np.unique(picks):
                if d[i] == 0:
                    continue
                self.labels_.append(
                    ax.annotate(
                        str(self.group_ids[i]),
                        (i, d[i]),
                        xytext=(0, 3 if d[i] > 0 else -3),
                        textcoords="offset points",
                        ha="center",
                        va="bottom" if d[i] > 0 else "top",
                        rotation=90,
                        fontsize="x-small",
                    )
                )
        if self.labels_:
            ax.margins(y=0.18)  # room for the query ids beyond the longest bars
        baseline = self.baseline_name or "baseline"
        ax.set_xlabel("queries, sorted by difference")
        ax.set_ylabel(f"{self.metric}: {name or 'system'} - {baseline}")
        if not ax.get_title():
            ax.set_title(f"Per-query {self.metric} against {baseline}")
        ax.set_xlim(-0.5, max(d.shape[0], 1) - 0.5)
        ax.legend()
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    @checked(top_n=TOP_N)
    def from_evaluations(
        cls,
        result: EvaluationResult,
        baseline: EvaluationResult,
        *,
        metric: str,
        name: str | None = None,
        baseline_name: str | None = None,
        top_n: int = 0,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the differences between two evaluations of the same queries.

        Parameters
        ----------
        result, baseline : EvaluationResult
            The system's and the baseline's, from
            :func:`skirm.metrics.evaluate` or :func:`skirm.trec.evaluate_run`,
            on the same queries.
        metric : str
            A metric name both hold.
        name, baseline_name : str, default=None
        top_n : int, default=0
            Label the ``top_n`` largest wins and losses with their query id.
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PerQueryDisplay
        """
        ids, system, base = _aligned(result, baseline, metric)
        return cls(
            group_ids=ids,
            differences=system - base,
            metric=metric,
            name=name,
            baseline_name=baseline_name,
        ).plot(ax=ax, top_n=top_n, **kwargs)

    @classmethod
    @checked(top_n=TOP_N)
    def from_predictions(
        cls,
        y_true: Labels,
        y_score: ArrayLike | None,
        y_score_baseline: ArrayLike | None,
        *,
        groups: ArrayLike | None = None,
        metric: str = "ndcg@10",
        sample_weight: ArrayLike | None = None,
        ties: Ties = "average",
        no_relevant: NoRelevant = 0.0,
        name: str | None = None,
        baseline_name: str | None = None,
        top_n: int = 0,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the differences between two systems' scores of the same rows.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Relevance labels.
        y_score, y_score_baseline : array-like of shape (n_samples,)
            The system's and the baseline's scores.
        groups, sample_weight, ties, no_relevant
            As in :func:`skirm.metrics.evaluate`.
        metric : str, default="ndcg@10"
            A registered metric name.
        name, baseline_name, top_n, ax, **kwargs
            As in :meth:`from_evaluations`.

        Returns
        -------
        display : PerQueryDisplay
        """
        options: dict[str, Any] = dict(
            groups=groups,
            metrics=[metric],
            sample_weight=sample_weight,
            ties=ties,
            no_relevant=no_relevant,
        )
        result = evaluate(y_true, y_score, **options)
        baseline = evaluate(y_true, y_score_baseline, **options)
        return cls.from_evaluations(
            result,
            baseline,
            metric=metric,
            name=name,
            baseline_name=baseline_name,
            top_n=top_n,
            ax=ax,
            **kwargs,
        )
