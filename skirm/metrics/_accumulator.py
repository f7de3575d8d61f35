"""Metrics over a validation set seen in batches: :class:`MetricAccumulator`.

A training loop scores its validation set batch by batch; the accumulator
keeps each batch's rows on the host (a PyTorch tensor is moved there once
per batch, without importing torch unless one is given) and evaluates their
concatenation once, in :meth:`~MetricAccumulator.compute`, with
:func:`~skirm.metrics.evaluate`: the result is the one ``evaluate`` gives on
all the rows, whatever the batch boundaries, a query split over batches
included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures._table import DEFAULT_METRICS
from skirm._params import NO_RELEVANT, TIES, UNJUDGED, as_python
from skirm.metrics._conventions import CONVENTIONS, apply_conventions
from skirm.metrics._evaluate import bind_metrics, evaluate

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from skirm.metrics._registry import Metric
    from skirm.metrics._result import EvaluationResult

__all__ = ["MetricAccumulator"]

#: The arguments of :func:`evaluate` an accumulator passes on, with their rules.
_EVALUATE_OPTIONS = {
    "ties": TIES,
    "no_relevant": NO_RELEVANT,
    "unjudged": UNJUDGED,
    "conventions": CONVENTIONS,
    "n_jobs": None,
}


def to_host(values, name):
    """A 1-D numpy array of ``values``: a PyTorch tensor (on any device) is
    detached and copied to the host once; torch is never imported here.

    A floating-point tensor numpy has no dtype for (``bfloat16``, the
    ``float8`` types) becomes float32, which holds each of its values
    exactly; a tensor of another such dtype is refused, naming it.
    """
    if type(values).__module__.split(".")[0] == "torch":
        values = values.detach().cpu()
        try:
            values = values.numpy()
        except TypeError as exc:  # "Got unsupported ScalarType BFloat16"
            if not values.is_floating_point():
                raise InvalidInputError(
                    f"`{name}` is a tensor of dtype {values.dtype}, which numpy "
                    "cannot hold; convert it first (e.g. tensor.long() or "
                    "tensor.float())"
                ) from exc
            values = values.float().numpy()
    values = np.asarray(values)
    if values.ndim != 1:
        raise InvalidInputError(
            f"`{name}` must be 1-D, one value per row, got shape {values.shape}"
        )
    return values


def concatenate_ids(parts):
    """The query ids of every batch, concatenated without losing one.

    numpy promotes int64 with uint64 to float64, which merges ids above
    2**53; such ids are concatenated as uint64 when none is negative (as
    numpy reads one list of such ints), else as Python ints (object).
    """
    ids = np.concatenate(parts)
    if ids.dtype.kind != "f" or not all(p.dtype.kind in "biu" for p in parts):
        return ids
    if all(p.shape[0] == 0 or p.min() >= 0 for p in parts):
        return np.concatenate([p.astype(np.uint64) for p in parts])
    return np.concatenate([p.astype(object) for p in parts])


def _ordinal(n):
    suffix = (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
    return f"{n}{suffix}"


class MetricAccumulator:
    """Accumulate batches of ``(y_true, y_score, groups)``; evaluate them once.

    For training loops that score the validation set in batches (a PyTorch
    ranker, a data loader). :meth:`update` keeps each batch on the host;
    :meth:`compute` returns the :class:`EvaluationResult` that
    :func:`evaluate` gives on the rows of every batch concatenated, bit for
    bit, whatever the batch boundaries: the rows of one query may be spread
    over several batches. :meth:`merge` adds another accumulator's rows
    (data-parallel workers), :meth:`reset` forgets them.

    Parameters
    ----------
    metrics : str, Metric or sequence of them, default=("ndcg@10", "map", "mrr")
        The metrics, as in :func:`evaluate`.
    **options
        The other keyword arguments of :func:`evaluate` (``ties``,
        ``no_relevant``, ``conventions``, ``unjudged``, ``n_jobs``) and metric
        options (``gain``, ...). ``conventions="torchmetrics"`` gives the
        numbers of torchmetrics' ``RetrievalNormalizedDCG``,
        ``RetrievalMRR``, ``RetrievalPrecision``, ``RetrievalRecall`` and
        ``RetrievalMAP`` (``map@k``: ``top_k=k``) where their conventions
        meet, scores of either sign included.

    Attributes
    ----------
    n_rows : int
        Rows accumulated since the last :meth:`reset`.

    See Also
    --------
    evaluate : Every metric on rows given at once.

    Examples
    --------
    >>> from skirm.metrics import MetricAccumulator, evaluate
    >>> acc = MetricAccumulator(["ndcg@2", "mrr"])
    >>> acc.update([2, 0, 1], [0.9, 0.8, 0.7], ["q1", "q1", "q1"])
    >>> acc.update([0, 0, 1, 0], [0.1, 0.9, 0.8, 0.7], ["q1", "q2", "q2", "q2"])
    >>> acc.n_rows
    7
    >>> acc.compute()
    EvaluationResult(n_queries=2, means={'ndcg@2': 0.6956, 'mrr': 0.7500})
    >>> evaluate([2, 0, 1, 0, 0, 1, 0], [0.9, 0.8, 0.7, 0.1, 0.9, 0.8, 0.7],
    ...          groups=["q1"] * 4 + ["q2"] * 3, metrics=["ndcg@2", "mrr"])
    EvaluationResult(n_queries=2, means={'ndcg@2': 0.6956, 'mrr': 0.7500})
    """

    def __init__(
        self,
        metrics: str | Metric | Sequence[str | Metric] = DEFAULT_METRICS,
        **options: Any,
    ) -> None:
        params = {k: v for k, v in options.items() if k not in _EVALUATE_OPTIONS}
        bound = bind_metrics(metrics, params)  # fail now on a bad name or option
        given = {k: v for k, v in options.items() if k in _EVALUATE_OPTIONS}
        for key, rule in _EVALUATE_OPTIONS.items():
            if key in given and rule is not None and given[key] is not None:
                rule(given[key])
        if given.get("conventions") is not None:
            apply_conventions(
                given["conventions"],
                bound,
                given.get("ties", "average"),
                given.get("no_relevant", 0.0),
            )
        self.metrics = metrics
        self.options = dict(options)
        self.reset()

    def __repr__(self):
        shown = "".join(f", {key}={value!r}" for key, value in self.options.items())
        return f"MetricAccumulator({self.metrics!r}{shown})"

    @property
    def n_rows(self) -> int:
        return sum(batch[0].shape[0] for batch in self._batches)

    def reset(self) -> None:
        """Forget every accumulated row."""
        self._batches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._propensity: list[np.ndarray] = []
        self._n_updates = 0

    def update(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        groups: ArrayLike,
        propensity: ArrayLike | None = None,
    ) -> None:
        """Add a batch of rows.

        A NaN score is refused here, naming the batch and the query, not
        later in :meth:`compute`. An empty batch adds nothing (its dtypes do
        not change those of the rows kept).

        Parameters
        ----------
        y_true, y_score, groups : array-like or tensor of shape (n_rows,)
            Labels, scores and the query of each row: numpy arrays, lists or
            PyTorch tensors on any device (copied to the host here; a
            ``bfloat16`` tensor as float32, which holds its values exactly).
        propensity : array-like or tensor of shape (n_rows,), default=None
            Each row's probability of being observed, for the
            propensity-scored metrics (as in :func:`evaluate`): given with
            every (non-empty) batch or with none.
        """
        self._n_updates += 1
        batch = (
            to_host(y_true, "y_true"),
            to_host(y_score, "y_score"),
            to_host(groups, "groups"),
        )
        lengths = [values.shape[0] for values in batch]
        if len(set(lengths)) > 1:
            raise InvalidInputError(
                "`y_true`, `y_score` and `groups` must have one value per row, "
                f"got lengths {lengths[0]}, {lengths[1]} and {lengths[2]}"
            )
        if lengths[0] == 0:
            return
        if self._batches and (propensity is None) != (not self._propensity):
            raise InvalidInputError(
                "`propensity` must be given with every batch or with none"
            )
        rows = None
        if propensity is not None:
            rows = to_host(propensity, "propensity")
            if rows.shape[0] != lengths[0]:
                raise InvalidInputError(
                    "`propensity` must have one value per row, got length "
                    f"{rows.shape[0]} for {lengths[0]} rows"
                )
        scores = batch[1]
        if scores.dtype.kind in "fc" and np.isnan(scores).any():
            row = int(np.argmax(np.isnan(scores)))
            query = as_python(batch[2][row])
            raise InvalidInputError(
                f"`y_score` must not contain NaN, got NaN in the "
                f"{_ordinal(self._n_updates)} batch since the last reset, at its "
                f"row {row} (query {query!r})"
            )
        if rows is not None:
            self._propensity.append(rows)
        self._batches.append(batch)

    def merge(self, other: MetricAccumulator) -> Self:
        """Add the rows of another accumulator (after this one's).

        Parameters
        ----------
        other : MetricAccumulator
            Of the same metrics and options.

        Returns
        -------
        self : MetricAccumulator
        """
        if not isinstance(other, MetricAccumulator):
            raise InvalidParameterError(
                f"`other` must be a MetricAccumulator, got {type(other).__name__}"
            )
        if repr(other) != repr(self):
            raise InvalidParameterError(
                f"`other` must have the same metrics and options: {self!r}, got "
                f"{other!r}"
            )
        if (
            self._batches
            and other._batches
            and (bool(self._propensity) != bool(other._propensity))
        ):
            raise InvalidInputError(
                "`other` must hold propensities if this accumulator does, and "
                "not otherwise"
            )
        self._batches.extend(other._batches)
        self._propensity.extend(other._propensity)
        return self

    def compute(self) -> EvaluationResult:
        """:func:`evaluate` on every row accumulated, in the order added.

        Returns
        -------
        result : EvaluationResult
        """
        if not self._batches:
            given = " (every batch given was empty)" if self._n_updates else ""
            raise InvalidInputError(f"compute() needs rows: call update() first{given}")
        y_true, y_score = (
            np.concatenate([batch[i] for batch in self._batches]) for i in range(2)
        )
        groups = concatenate_ids([batch[2] for batch in self._batches])
        propensity = np.concatenate(self._propensity) if self._propensity else None
        return evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=self.metrics,
            propensity=propensity,
            **self.options,
        )
