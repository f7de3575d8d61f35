"""Precision against recall for rankings, averaged over queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._measures import _table as table
from skirm._params import OneOf, Param, checked
from skirm.metrics._curves import RECALL_LEVELS, mean_interpolated_precision
from skirm.metrics._evaluate import evaluate
from skirm.plot._plumbing import axes_and_figure, check_cutoffs, run_name

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any, Literal

    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from skirm._typing import NoRelevant, Ties
    from skirm.io import Prefs, QrelsJG
    from skirm.io._input_types import QrelsLike, RunLike
    from skirm.metrics._label_types import Labels

#: The curves: interpolated precision at recall levels, or precision against
#: recall at cutoffs.
KINDS = ("interpolated", "cutoff")
KIND = Param("kind", OneOf(*KINDS))


def _cutoff_names(k):
    """The checked cutoffs and the metric names precision@k, recall@k of each."""
    cutoffs = check_cutoffs(k)
    measures = (table.PRECISION.name, table.RECALL.name)
    return cutoffs, [f"{m}@{c}" for c in cutoffs for m in measures]


def _cutoff_curve(result, cutoffs):
    recall = np.array([result.means[f"recall@{k}"] for k in cutoffs])
    precision = np.array([result.means[f"precision@{k}"] for k in cutoffs])
    return recall, precision


class PrecisionRecallDisplay:
    """Precision against recall of a ranking, averaged over queries.

    Two curves, named by ``kind``:

    * ``"interpolated"``: trec_eval's interpolated precision at the recall
      levels 0.0, 0.1, ..., 1.0 (``iprec_at_recall``), averaged over queries;
      at level ``r`` a query's value is its best precision at or below the
      rank where it reaches ``round(r * R)`` relevant rows.
    * ``"cutoff"``: the mean recall@k against the mean precision@k, for
      k = 1, 2, ...: not interpolated, one point per cutoff.

    Parameters
    ----------
    recall, precision : ndarray of shape (n_points,)
        The curve's points.
    kind : {"interpolated", "cutoff"}
    name : str, default=None
        The legend entry.

    Attributes
    ----------
    line_ : matplotlib Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skirm.plot import PrecisionRecallDisplay
    >>> y_true = [1, 0, 1, 0, 0, 1, 0, 1]
    >>> y_score = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> groups = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> display = PrecisionRecallDisplay.from_predictions(
    ...     y_true, y_score, groups=groups
    ... )
    >>> display.recall[[0, 5, 8, 10]]
    array([0. , 0.5, 0.8, 1. ])
    >>> display.precision[[0, 5, 8, 10]]
    array([0.75      , 0.75      , 0.58333333, 0.58333333])
    """

    line_: Line2D

    @checked(kind=KIND)
    def __init__(
        self,
        *,
        recall: ArrayLike,
        precision: ArrayLike,
        kind: Literal["interpolated", "cutoff"] = "interpolated",
        name: str | None = None,
    ) -> None:
        self.recall = np.asarray(recall, dtype=np.float64)
        self.precision = np.asarray(precision, dtype=np.float64)
        self.kind = kind
        self.name = name

    def plot(
        self, ax: Axes | None = None, *, name: str | None = None, **kwargs: Any
    ) -> Self:
        """Draw the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        name : str, default=None
            The legend entry; ``self.name`` when None.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        self : PrecisionRecallDisplay
        """
        ax, figure = axes_and_figure(type(self).__name__, ax)
        name = self.name if name is None else name
        if name is not None:
            kwargs.setdefault("label", name)
        if self.kind == "interpolated":
            kwargs.setdefault("marker", "o")
            kwargs.setdefault("drawstyle", "default")
        (self.line_,) = ax.plot(self.recall, self.precision, **kwargs)
        ax.set_xlabel("recall")
        ax.set_ylabel(
            "interpolated precision, mean over queries"
            if self.kind == "interpolated"
            else "precision@k, mean over queries"
        )
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        if not ax.get_title():
            ax.set_title(
                "11-point interpolated precision-recall"
                if self.kind == "interpolated"
                else "Precision-recall over cutoffs k"
            )
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    @checked(kind=KIND)
    def from_predictions(
        cls,
        y_true: Labels,
        y_score: ArrayLike | None,
        *,
        groups: ArrayLike | None = None,
        kind: Literal["interpolated", "cutoff"] = "interpolated",
        k: Iterable[int] = range(1, 101),
        sample_weight: ArrayLike | None = None,
        ties: Ties = "first",
        no_relevant: NoRelevant = 0.0,
        relevance_threshold: float | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the curve from labels, scores and query ids.

        R comes from the rows given (see :func:`skirm.metrics.evaluate`); for
        a run against qrels use :meth:`from_run`.

        Parameters
        ----------
        y_true, y_score, groups, sample_weight, no_relevant
            As in :func:`skirm.metrics.evaluate`.
        kind : {"interpolated", "cutoff"}, default="interpolated"
        k : iterable of int, default=range(1, 101)
            The cutoffs of ``kind="cutoff"``.
        ties : {"first", "optimistic", "pessimistic", "average"}, default="first"
            ``"average"`` is available for ``kind="cutoff"`` only: the
            interpolated precision (a maximum over ranks) has no exact average
            over tied orderings here.
        relevance_threshold : float, default=None
            A row is relevant when its label is at least this (> 0 if None).
        name : str, default=None
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PrecisionRecallDisplay
        """
        if kind == "interpolated":
            levels, precision, _ = mean_interpolated_precision(
                y_true,
                y_score,
                groups=groups,
                sample_weight=sample_weight,
                ties=ties,
                no_relevant=no_relevant,
                relevance_threshold=relevance_threshold,
            )
            return cls(recall=levels, precision=precision, kind=kind, name=name).plot(
                ax=ax, **kwargs
            )
        cutoffs, names = _cutoff_names(k)
        result = evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=names,
            sample_weight=sample_weight,
            ties=ties,
            no_relevant=no_relevant,
            relevance_threshold=relevance_threshold,
        )
        recall, precision = _cutoff_curve(result, cutoffs)
        return cls(recall=recall, precision=precision, kind=kind, name=name).plot(
            ax=ax, **kwargs
        )

    @classmethod
    @checked(kind=KIND)
    def from_run(
        cls,
        qrels: QrelsLike | QrelsJG | Prefs,
        run: RunLike,
        *,
        kind: Literal["interpolated", "cutoff"] = "interpolated",
        k: Iterable[int] = range(1, 101),
        name: str | None = None,
        ax: Axes | None = None,
        run_params: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the curve of a TREC run scored against qrels.

        ``kind="interpolated"`` plots trec_eval's ``iprec_at_recall`` means;
        ``kind="cutoff"`` its ``P_k`` against ``recall_k``, both from
        :func:`skirm.trec.evaluate_run`.

        Parameters
        ----------
        qrels, run
            As in :func:`skirm.trec.evaluate_run`.
        kind : {"interpolated", "cutoff"}, default="interpolated"
        k : iterable of int, default=range(1, 101)
            The cutoffs of ``kind="cutoff"``.
        name : str, default=None
            The legend entry; the run's file name when None and ``run`` is a
            path.
        ax : matplotlib Axes, default=None
        run_params : dict, default=None
            Options of :func:`~skirm.trec.evaluate_run`.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PrecisionRecallDisplay
        """
        from skirm.trec import evaluate_run

        if name is None:
            name = run_name(run)
        if kind == "interpolated":
            iprec = table.IPREC.trec[0].name
            result = evaluate_run(qrels, run, [iprec], **(run_params or {}))
            precision = np.array(
                [
                    result.means[f"iprec_at_recall_{level:.2f}"]
                    for level in RECALL_LEVELS
                ]
            )
            return cls(
                recall=RECALL_LEVELS.copy(), precision=precision, kind=kind, name=name
            ).plot(ax=ax, **kwargs)
        cutoffs, names = _cutoff_names(k)
        result = evaluate_run(qrels, run, names, **(run_params or {}))
        recall, precision = _cutoff_curve(result, cutoffs)
        return cls(recall=recall, precision=precision, kind=kind, name=name).plot(
            ax=ax, **kwargs
        )
