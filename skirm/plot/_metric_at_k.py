"""A metric against its cutoff k, one line per system."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures import _table as table
from skirm._params import Param, Satisfies, checked
from skirm.metrics._evaluate import evaluate
from skirm.metrics._registry import SPECS, get_metric, spec_for
from skirm.plot._plumbing import (
    CONFIDENCE,
    axes_and_figure,
    check_cutoffs,
    estimator_scores,
    run_name,
    t_interval,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from skirm._typing import MatrixLike, NoRelevant, ResponseMethod, Ties
    from skirm.io import Prefs, QrelsJG
    from skirm.io._input_types import QrelsLike, RunLike
    from skirm.metrics import EvaluationResult
    from skirm.metrics._label_types import Labels


#: The metric drawn against its cutoff: a base name, without ``@k``.
BASE_METRIC = Param(
    "metric",
    Satisfies(
        lambda metric: isinstance(metric, str) and "@" not in metric,
        "a base name",
        rejected=("ndcg@10", 10),
    ),
    expected="the base name of a metric with a cutoff, such as 'ndcg' or "
    "'precision' (the cutoffs go in `k`)",
)


def _metric_spec(metric):
    """The registry record of a base metric name that takes a cutoff."""
    spec = spec_for(metric)
    if not spec.takes_k:
        with_k = ", ".join(s.name for s in SPECS if s.takes_k)
        raise InvalidParameterError(
            f"`metric` {metric!r} takes no cutoff, so it has no curve over k; "
            f"metrics with a cutoff: {with_k}"
        )
    return spec


class MetricAtKDisplay:
    """A ranking metric against its cutoff ``k``, averaged over queries.

    Build one with :meth:`from_predictions`, :meth:`from_estimator`,
    :meth:`from_run`, :meth:`from_evaluation` or :meth:`from_cv_results`;
    each computes every cutoff from one ranking of the rows (one pass, not
    one sort per cutoff) and draws a line. Pass ``ax=display.ax_`` to draw
    several systems on one axes.

    Parameters
    ----------
    k : ndarray of shape (n_cutoffs,)
        The cutoffs, increasing.
    values : ndarray of shape (n_cutoffs,)
        The metric's mean over queries at each cutoff.
    metric : str
        The metric's base name (``"ndcg"``).
    name : str, default=None
        The system's name, shown in the legend.
    ci_low, ci_high : ndarray of shape (n_cutoffs,), default=None
        A confidence band around ``values``.
    fold_values : ndarray of shape (n_folds, n_cutoffs), default=None
        Per-fold curves (:meth:`from_cv_results`), drawn thin under the mean.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The line of the means.
    band_ : matplotlib PolyCollection or None
        The confidence band.
    fold_lines_ : list of Line2D
        The per-fold lines (empty unless ``fold_values`` is given).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skirm.datasets import make_ranking
    >>> from skirm.plot import MetricAtKDisplay
    >>> X, y, groups = make_ranking(n_groups=30, random_state=0)
    >>> display = MetricAtKDisplay.from_predictions(
    ...     y, X[:, 0], groups=groups, metric="ndcg", k=range(1, 21), name="feature 0"
    ... )
    >>> display.line_.get_xdata()[:3]
    array([1, 2, 3])
    >>> display = MetricAtKDisplay.from_predictions(
    ...     y, X[:, 1], groups=groups, k=range(1, 21), name="feature 1", ax=display.ax_
    ... )
    >>> [text.get_text() for text in display.ax_.get_legend().get_texts()]
    ['feature 0', 'feature 1']
    """

    line_: Line2D

    def __init__(
        self,
        *,
        k: ArrayLike,
        values: ArrayLike,
        metric: str,
        name: str | None = None,
        ci_low: NDArray[np.float64] | None = None,
        ci_high: NDArray[np.float64] | None = None,
        fold_values: NDArray[np.float64] | None = None,
    ) -> None:
        self.k = np.asarray(k)
        self.values = np.asarray(values, dtype=np.float64)
        self.metric = metric
        self.name = name
        self.ci_low = ci_low
        self.ci_high = ci_high
        self.fold_values = fold_values

    def plot(
        self,
        ax: Axes | None = None,
        *,
        name: str | None = None,
        band_alpha: float = 0.2,
        **kwargs: Any,
    ) -> Self:
        """Draw the curve (and its band, and the folds' curves, if any).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure's axes when None.
        name : str, default=None
            The legend entry; ``self.name`` when None.
        band_alpha : float, default=0.2
            Opacity of the confidence band.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot` for the line.

        Returns
        -------
        self : MetricAtKDisplay
        """
        ax, figure = axes_and_figure(type(self).__name__, ax)
        name = self.name if name is None else name
        self.fold_lines_ = []
        if self.fold_values is not None:
            for i, fold in enumerate(self.fold_values):
                (line,) = ax.plot(
                    self.k,
                    fold,
                    color="grey",
                    alpha=0.4,
                    linewidth=0.8,
                    label="folds" if i == 0 else None,
                )
                self.fold_lines_.append(line)
        if name is not None:
            kwargs.setdefault("label", name)
        (self.line_,) = ax.plot(self.k, self.values, **kwargs)
        self.band_ = None
        if self.ci_low is not None:
            self.band_ = ax.fill_between(
                self.k,
                self.ci_low,
                self.ci_high,  # type: ignore[arg-type, unused-ignore]  # as ci_low
                color=self.line_.get_color(),
                alpha=band_alpha,
                linewidth=0,
            )
        ax.set_xlabel("cutoff k")
        ax.set_ylabel(f"{self.metric}@k, mean over queries")
        if not ax.get_title():
            ax.set_title(f"{self.metric}@k")
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        self.ax_, self.figure_ = ax, figure
        return self

    @classmethod
    @checked(metric=BASE_METRIC, confidence=CONFIDENCE)
    def from_evaluation(
        cls,
        result: EvaluationResult,
        *,
        metric: str = table.NDCG.name,
        confidence: float | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the curve from an :class:`~skirm.metrics.EvaluationResult`
        that holds the metric at several cutoffs.

        Parameters
        ----------
        result : EvaluationResult
            From :func:`skirm.metrics.evaluate` or
            :func:`skirm.trec.evaluate_run`, with metrics named ``metric@k``.
        metric : str, default="ndcg"
            The metric's base name.
        confidence : float, default=None
            Draw a Student-t confidence band of this level (0.95) around the
            mean, from the per-query values.
        name : str, default=None
            The legend entry.
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        spec = _metric_spec(metric)
        found = {}
        for label in result.per_query:
            try:
                parsed = get_metric(label.strip())
            except (ValueError, TypeError):
                continue
            if parsed.spec is spec and parsed.k is not None:
                found[parsed.k] = label
        if not found:
            raise InvalidInputError(
                f"the result holds no {metric}@k values; its metrics are "
                f"{list(result.per_query)}"
            )
        k = np.array(sorted(found))
        labels = [found[value] for value in k]
        values = np.array([result.means[label] for label in labels])
        low = high = None
        if confidence is not None:
            per_query = np.column_stack([result.per_query[label] for label in labels])
            low, high = t_interval(per_query, confidence)
        return cls(
            k=k, values=values, metric=spec.name, name=name, ci_low=low, ci_high=high
        ).plot(ax=ax, **kwargs)

    @classmethod
    @checked(metric=BASE_METRIC, confidence=CONFIDENCE)
    def from_predictions(
        cls,
        y_true: Labels,
        y_score: ArrayLike | None,
        *,
        groups: ArrayLike | None = None,
        metric: str = table.NDCG.name,
        k: Iterable[int] = range(1, 51),
        sample_weight: ArrayLike | None = None,
        ties: Ties = "average",
        no_relevant: NoRelevant = 0.0,
        metric_params: Mapping[str, Any] | None = None,
        confidence: float | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the metric against k from labels, scores and query ids.

        Parameters
        ----------
        y_true, y_score, groups, sample_weight, ties, no_relevant
            As in :func:`skirm.metrics.evaluate`.
        metric : str, default="ndcg"
            The base name of a registered metric with a cutoff.
        k : iterable of int, default=range(1, 51)
            The cutoffs.
        metric_params : dict, default=None
            The metric's options (``{"gain": "exponential"}``).
        confidence : float, default=None
            Draw a Student-t confidence band of this level around the mean.
        name : str, default=None
            The legend entry.
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        spec = _metric_spec(metric)
        cutoffs = check_cutoffs(k)
        result = evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=[f"{spec.name}@{value}" for value in cutoffs],
            sample_weight=sample_weight,
            ties=ties,
            no_relevant=no_relevant,
            **(metric_params or {}),
        )
        return cls.from_evaluation(
            result,
            metric=spec.name,
            confidence=confidence,
            name=name,
            ax=ax,
            **kwargs,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: MatrixLike,
        y: ArrayLike,
        *,
        groups: ArrayLike | None = None,
        response_method: ResponseMethod = "auto",
        groups_from: str = "qid",
        name: str | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the metric against k for a fitted model's scores on ``X``.

        Parameters
        ----------
        estimator : fitted estimator
            Scored with ``predict`` (regressors, rankers) or
            ``predict_proba``/``decision_function`` (classifiers), as the
            ranking scorers do.
        X : array-like or DataFrame
            The rows; a DataFrame may carry the query ids in an index level or
            column named ``groups_from``.
        y : array-like
            Relevance labels.
        groups : array-like, default=None
            The query of each row (else read from ``X``).
        response_method : str or list of str, default="auto"
            As in :func:`skirm.metrics.make_ranking_scorer`.
        groups_from : str, default="qid"
        name : str, default=None
            The legend entry; the estimator's class name when None.
        **kwargs
            Passed to :meth:`from_predictions`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        groups, scores = estimator_scores(
            cls.__name__, X, groups, groups_from, response_method
        )
        y_score = scores(estimator, X)
        if name is None:
            name = type(estimator).__name__
        return cls.from_predictions(y, y_score, groups=groups, name=name, **kwargs)

    @classmethod
    @checked(metric=BASE_METRIC, confidence=CONFIDENCE)
    def from_run(
        cls,
        qrels: QrelsLike | QrelsJG | Prefs,
        run: RunLike,
        *,
        metric: str = table.NDCG.name,
        k: Iterable[int] = range(1, 51),
        confidence: float | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        run_params: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the metric against k for a TREC run scored against qrels.

        The values are :func:`skirm.trec.evaluate_run`'s (R and the ideal
        ranking from the qrels, ties broken by docno).

        Parameters
        ----------
        qrels, run
            As in :func:`skirm.trec.evaluate_run`.
        metric : str, default="ndcg"
        k : iterable of int, default=range(1, 51)
        confidence : float, default=None
        name : str, default=None
            The legend entry; the run's file name when None and ``run`` is a
            path.
        ax : matplotlib Axes, default=None
        run_params : dict, default=None
            Options of :func:`~skirm.trec.evaluate_run` (``relevance_level``,
            ``judged_only``, ...).
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        from skirm.trec import evaluate_run

        spec = _metric_spec(metric)
        cutoffs = check_cutoffs(k)
        result = evaluate_run(
            qrels,
            run,
            [f"{spec.name}@{value}" for value in cutoffs],
            **(run_params or {}),
        )
        if name is None:
            name = run_name(run)
        return cls.from_evaluation(
            result, metric=spec.name, confidence=confidence, name=name, ax=ax, **kwargs
        )

    @classmethod
    @checked(metric=BASE_METRIC)
    def from_cv_results(
        cls,
        cv_results: Mapping[str, Any],
        X: MatrixLike,
        y: ArrayLike,
        *,
        groups: ArrayLike | None = None,
        metric: str = table.NDCG.name,
        k: Iterable[int] = range(1, 51),
        response_method: ResponseMethod = "auto",
        ties: Ties = "average",
        no_relevant: NoRelevant = 0.0,
        metric_params: Mapping[str, Any] | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw one curve per cross-validation fold and their mean.

        Parameters
        ----------
        cv_results : dict
            The output of :func:`sklearn.model_selection.cross_validate` with
            ``return_estimator=True`` and ``return_indices=True``.
        X, y, groups
            The data given to ``cross_validate``.
        metric, k, ties, no_relevant, metric_params
            As in :meth:`from_predictions`.
        response_method : str or list of str, default="auto"
        name : str, default=None
            The legend entry of the mean curve.
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
            ``values`` is the mean of the folds' curves, ``fold_values`` the
            folds' curves.
        """
        from sklearn.utils import _safe_indexing

        if "estimator" not in cv_results or "indices" not in cv_results:
            raise InvalidParameterError(
                "`cv_results` must come from cross_validate(..., "
                "return_estimator=True, return_indices=True); it has keys "
                f"{sorted(cv_results)}"
            )
        spec = _metric_spec(metric)
        cutoffs = check_cutoffs(k)
        groups, scores = estimator_scores(
            cls.__name__, X, groups, "qid", response_method
        )
        y = np.asarray(y)
        names = [f"{spec.name}@{value}" for value in cutoffs]
        folds = []
        for estimator, test in zip(
            cv_results["estimator"], cv_results["indices"]["test"], strict=True
        ):
            X_test = _safe_indexing(X, test)
            y_score = scores(estimator, X_test)
            result = evaluate(
                y[test],
                y_score,
                groups=groups[test],
                metrics=names,
                ties=ties,
                no_relevant=no_relevant,
                **(metric_params or {}),
            )
            folds.append([result.means[label] for label in names])
        fold_values = np.array(folds)
        return cls(
            k=np.array(cutoffs),
            values=fold_values.mean(axis=0),
            metric=spec.name,
            name="mean of the folds" if name is None else name,
            fold_values=fold_values,
        ).plot(ax=ax, **kwargs)
