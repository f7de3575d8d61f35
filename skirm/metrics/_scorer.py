"""Scorers: skirm metrics in scikit-learn's ``scoring=`` slot.

A scorer is called as ``scorer(estimator, X, y_true, groups=..., sample_weight=...)``
by :class:`~sklearn.model_selection.GridSearchCV`, ``cross_validate`` and
friends. It gets one response from the estimator, ranks the rows once, and
reduces that ranking for every metric it holds; it never computes a metric
itself.

Where the query ids come from, in order:

1. ``groups`` passed to the call: with metadata routing enabled the scorer
   requests ``groups`` by default, so ``GridSearchCV.fit(X, y, groups=qid)``
   feeds it per fold;
2. a pandas ``X`` whose index has a level named ``groups_from`` (default
   ``"qid"``), or that has a column of that name;
3. otherwise a ValueError naming both fixes.
"""

from __future__ import annotations

import copy
import sys
import warnings
from typing import TYPE_CHECKING

from skirm._engine import check_input, rank
from skirm._errors import InvalidParameterError, UnknownMeasureError
from skirm._measures._options import OPTIONS
from skirm._params import NO_RELEVANT, TIES, UNJUDGED, K, describe
from skirm._query_ids import (
    GROUPS_FROM,
    has_id_column,
    missing_groups_message,
    resolve_groups,
    trained_on_column,
    trained_on_ids_message,
)
from skirm.metrics._conventions import apply_conventions
from skirm.metrics._evaluate import preset_metrics
from skirm.metrics._registry import Metric, get_metric, spec_for
from skirm.metrics._response import check_response_method, response
from skirm.metrics._spec import check_directions

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from numpy.typing import ArrayLike
    from sklearn.utils.metadata_routing import MetadataRequest
    from typing_extensions import Self

    from skirm._typing import (
        Conventions,
        MatrixLike,
        NoRelevant,
        ResponseMethod,
        Ties,
        Unjudged,
    )

__all__ = ["RankingScorer", "make_ranking_scorer"]

_DEFAULT_REQUEST: dict[str, bool | str | None] = {
    "groups": True,
    "sample_weight": None,
    "propensity": None,
}
#: scikit-learn's "leave this request as it is" marker (its value, so that
#: importing skirm does not import scikit-learn).
UNCHANGED = "$UNCHANGED$"


# --------------------------------------------------------------------------
# Argument parsing
# --------------------------------------------------------------------------


def _bind(metric, params, where):
    """One metric (name, Metric or registered function) bound to ``params``."""
    if isinstance(metric, (str, Metric)):
        if params.get("k") is not None:
            raise InvalidParameterError(
                f"`k` is only for metric functions; put the cutoff in the name "
                f"(e.g. 'ndcg@{params['k']}'), got k={params['k']!r} with {metric!r}"
            )
        parsed = get_metric(metric)
        options = {key: value for key, value in params.items() if key != "k"}
    elif callable(metric):
        try:
            spec = spec_for(metric)
        except UnknownMeasureError:
            raise InvalidParameterError(
                f"{where} must be a metric name, a skirm.metrics.get_metric() "
                "result or a skirm metric function (e.g. skirm.metrics.ndcg_score), "
                f"got {describe(metric)}; to score with another function use "
                "sklearn.metrics.make_scorer"
            ) from None
        k = params.get("k")
        if k is not None and not spec.takes_k:
            raise InvalidParameterError(f"{spec.name} takes no `k`, got k={k!r}")
        parsed = Metric(spec, K(k))
        options = {key: value for key, value in params.items() if key != "k"}
    else:
        raise InvalidParameterError(
            f"{where} must be a metric name, a Metric or a skirm metric function, "
            f"got {describe(metric)}"
        )
    options = {
        key: value for key, value in options.items() if key in parsed.spec.params
    }
    bound = get_metric(parsed, **options) if options else parsed
    return bound


def _parse_metrics(metric, params):
    """``(metrics dict label -> Metric, multi)`` from the user's ``metric``."""
    if isinstance(metric, (str, Metric)) or callable(metric):
        return {"score": _bind(metric, params, "`metric`")}, False
    if isinstance(metric, dict):
        items = list(metric.items())
        for label, _ in items:
            if not isinstance(label, str):
                raise InvalidParameterError(
                    "the keys of a `metric` dict must be strings, got "
                    f"{describe(label)}"
                )
    elif isinstance(metric, (list, tuple)):
        items = []
        for m in metric:
            if isinstance(m, str):
                label = m
            elif isinstance(m, Metric):
                label = m.name
            else:
                raise InvalidParameterError(
                    "a `metric` list must hold metric names or Metric objects (use a "
                    f"dict to name metric functions), got {describe(m)}"
                )
            items.append((label, m))
    else:
        raise InvalidParameterError(
            "`metric` must be a metric name, a Metric, a skirm metric function, or a "
            f"list, tuple or dict of them, got {describe(metric)}"
        )
    if not items:
        raise InvalidParameterError("`metric` must name at least one metric, got none")
    bound = {}
    for label, m in items:
        if label in bound:
            raise InvalidParameterError(f"`metric` names {label!r} twice")
        bound[label] = _bind(m, params, f"`metric[{label!r}]`")
    return bound, True


def _check_params(params, metrics):
    for key, value in params.items():
        if key == "ignore_ties":
            raise InvalidParameterError(
                "make_ranking_scorer() takes no `ignore_ties`; pass ties='first' to "
                "break ties in input order"
            )
        if key == "k":
            continue
        if key not in OPTIONS:
            raise InvalidParameterError(
                f"make_ranking_scorer() got an unexpected keyword argument {key!r}"
            )
        OPTIONS[key](value)
        if not any(key in m.spec.params for m in metrics.values()):
            raise InvalidParameterError(
                f"option {key!r} is taken by none of the scorer's metrics "
                f"({', '.join(m.name for m in metrics.values())})"
            )


def _metric_repr(metric):
    if isinstance(metric, (str, Metric)):
        return repr(metric)
    if isinstance(metric, (list, tuple)):
        body = ", ".join(_metric_repr(m) for m in metric)
        return f"[{body}]" if isinstance(metric, list) else f"({body})"
    if isinstance(metric, dict):
        body = ", ".join(f"{k!r}: {_metric_repr(v)}" for k, v in metric.items())
        return "{" + body + "}"
    return getattr(metric, "__name__", repr(metric))


# --------------------------------------------------------------------------
# Reading the inputs
# --------------------------------------------------------------------------


def _caller_error_score():
    """The ``error_score`` of the scikit-learn cross-validation loop calling
    the scorer, or ``"raise"`` when it is called any other way.

    scikit-learn gives a scorer no way to know whether a failure will be
    raised or turned into a number, so the frame of its ``_score`` helper is
    read; should that helper change, scorers fall back to raising.
    """
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            break
        module = frame.f_globals.get("__name__", "")
        if frame.f_code.co_name == "_score" and module.startswith("sklearn."):
            return frame.f_locals.get("error_score", "raise")
        frame = frame.f_back
    return "raise"


# --------------------------------------------------------------------------
# The scorer
# --------------------------------------------------------------------------


class RankingScorer:
    """A scorer computing one or several skirm metrics from one ranking.

    Build one with :func:`make_ranking_scorer` or :func:`get_scorer`; the
    constructor takes the same arguments as :func:`make_ranking_scorer`.
    Calling it as ``scorer(estimator, X, y_true, groups=None,
    sample_weight=None)`` returns a float (one metric) or a dict of floats
    (several metrics, usable with ``GridSearchCV(refit=<name>)``).

    The scorer requests ``groups`` (and not ``sample_weight``) for ``score``
    by default under metadata routing; change that with
    :meth:`set_score_request`.

    See Also
    --------
    make_ranking_scorer : The factory, with the full parameter description.

    Examples
    --------
    >>> from skirm.metrics import RankingScorer
    >>> RankingScorer(["ndcg@10", "map"], no_relevant=1.0)
    make_ranking_scorer(['ndcg@10', 'map'], no_relevant=1.0)
    """

    def __init__(
        self,
        metric: str
        | Metric
        | Callable[..., float]
        | Sequence[str | Metric]
        | Mapping[str, str | Metric | Callable[..., float]],
        *,
        response_method: ResponseMethod = "auto",
        groups_from: str = "qid",
        ties: Ties = "average",
        no_relevant: NoRelevant = 0.0,
        conventions: Conventions | None = None,
        unjudged: Unjudged = "raise",
        **params: Any,
    ) -> None:
        self._metrics, self._multi = _parse_metrics(metric, params)
        _check_params(params, self._metrics)
        check_directions(self._metrics)
        self._conventions = conventions
        self._methods = check_response_method(response_method)
        self._metric = metric
        self._response_method = response_method
        self._groups_from = GROUPS_FROM(groups_from)
        self._ties = TIES(ties)
        self._no_relevant = NO_RELEVANT(no_relevant)
        self._unjudged = UNJUDGED(unjudged)
        self._params = dict(params)
        self._request = dict(_DEFAULT_REQUEST)
        self._rank_ties, self._rank_no_relevant = self._ties, self._no_relevant
        if conventions is not None:
            self._metrics, self._rank_ties, self._rank_no_relevant = apply_conventions(
                conventions, self._metrics, ties, self._no_relevant
            )

    # -- introspection -------------------------------------------------------

    @property
    def metrics(self) -> dict:
        """The bound metrics by result name (``{"score": m}`` for one metric)."""
        return dict(self._metrics)

    @property
    def multimetric(self) -> bool:
        """True when calls return a dict of scores."""
        return self._multi

    def __repr__(self):
        parts = [_metric_repr(self._metric)]
        if self._response_method != "auto":
            parts.append(f"response_method={self._response_method!r}")
        if self._groups_from != "qid":
            parts.append(f"groups_from={self._groups_from!r}")
        if self._ties != "average":
            parts.append(f"ties={self._ties!r}")
        if self._no_relevant != 0.0:
            parts.append(f"no_relevant={self._no_relevant!r}")
        if self._conventions is not None:
            parts.append(f"conventions={self._conventions!r}")
        if self._unjudged != "raise":
            parts.append(f"unjudged={self._unjudged!r}")
        parts.extend(f"{key}={value!r}" for key, value in self._params.items())
        text = f"make_ranking_scorer({', '.join(parts)})"
        changed = {
            key: value
            for key, value in self._request.items()
            if _DEFAULT_REQUEST[key] != value
        }
        if changed:
            body = ", ".join(f"{key}={value!r}" for key, value in changed.items())
            text += f".set_score_request({body})"
        return text

    def _routing_repr(self):
        return repr(self)

    def __sklearn_clone__(self):
        return copy.deepcopy(self)

    # -- metadata routing ----------------------------------------------------

    def get_metadata_routing(self) -> MetadataRequest:
        """The metadata this scorer requests for ``score``.

        Returns
        -------
        request : sklearn.utils.metadata_routing.MetadataRequest
            ``groups`` requested (``True``) and ``sample_weight`` not set
            (``None``) unless changed by :meth:`set_score_request`.
        """
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=self)
        for param, alias in self._request.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def set_score_request(
        self,
        *,
        groups: bool | str | None = UNCHANGED,
        sample_weight: bool | str | None = UNCHANGED,
        propensity: bool | str | None = UNCHANGED,
    ) -> Self:
        """Set which routed metadata the scorer receives.

        Unlike scikit-learn's own scorers this also works while routing is
        disabled (the setting only matters once it is enabled).

        Parameters
        ----------
        groups, sample_weight, propensity : bool, None or str, default=UNCHANGED
            ``True`` to request, ``False`` to refuse, ``None`` to raise if
            passed, or an alias (the name of the metadata to use instead). The
            parameter's current setting is kept when it is not given.
            ``propensity`` (each row's chance of being observed) feeds the
            propensity-scored metrics, as in :func:`skirm.metrics.evaluate`.

        Returns
        -------
        self : RankingScorer

        Examples
        --------
        >>> from skirm.metrics import make_ranking_scorer
        >>> make_ranking_scorer("ndcg@10").set_score_request(sample_weight=True)
        make_ranking_scorer('ndcg@10').set_score_request(sample_weight=True)
        """
        from sklearn.utils.metadata_routing import MetadataRequest

        given = {
            "groups": groups,
            "sample_weight": sample_weight,
            "propensity": propensity,
        }
        for key in [key for key, value in given.items() if value is not UNCHANGED]:
            probe = MetadataRequest(owner=self)
            probe.score.add_request(param=key, alias=given[key])
            self._request[key] = given[key]
        return self

    def _accept_sample_weight(self):
        # scikit-learn's legacy (routing disabled) path asks every scorer.
        return True

    # -- scoring -------------------------------------------------------------

    def __call__(
        self,
        estimator: Any,
        X: MatrixLike,
        y_true: ArrayLike,
        *,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        propensity: ArrayLike | None = None,
    ) -> float | dict[str, float]:
        """Score ``estimator`` on ``X`` against ``y_true``, per query.

        Parameters
        ----------
        estimator : object
            A fitted model with one of the response methods.
        X : array-like or pandas DataFrame
            The rows to score; a DataFrame may carry the query ids in an index
            level or column named ``groups_from``. A model trained on that
            column (its ``feature_names_in_``) gets a warning naming it: the
            ids are no feature.
        y_true : array-like of shape (n_samples,)
            Relevance labels.
        groups : array-like of shape (n_samples,), default=None
            The query of each row.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights given per row, constant within each query.
        propensity : array-like of shape (n_samples,), default=None
            Each row's chance of being observed, for the propensity-scored
            metrics (routed once requested with :meth:`set_score_request`).

        Returns
        -------
        score : float or dict of str to float
        """
        if groups is None:
            keep_keys = self._multi and _caller_error_score() != "raise"
            groups = resolve_groups(
                repr(self), X, None, self._groups_from, required=not keep_keys
            )
            if groups is None:
                return self._missing_groups_scores()
        if has_id_column(X, self._groups_from) and trained_on_column(
            estimator, self._groups_from
        ):
            warnings.warn(
                trained_on_ids_message(repr(self), estimator, self._groups_from),
                UserWarning,
                stacklevel=2,
            )
        y_score = response(estimator, X, self._methods, groups)
        ranking = rank(
            check_input(
                y_true,
                y_score,
                groups=groups,
                sample_weight=sample_weight,
                ties=self._rank_ties,
                unjudged=self._unjudged,
                propensity=propensity,
            )
        )
        scores, _, _ = preset_metrics(
            self._conventions, self._metrics, ranking, self._rank_no_relevant
        )
        for label, metric in self._metrics.items():
            if metric.spec.measure.better == "lower":
                scores[label] = -scores[label]  # scikit-learn maximises
        if self._multi:
            return scores
        return scores["score"]

    def _missing_groups_scores(self):
        # scikit-learn replaces a failing scorer's result with one number
        # (its error_score), so a multi-metric search would lose its keys
        # (``test_ndcg@10`` becomes ``test_score``); keep them, each NaN, and
        # say why.
        warnings.warn(
            missing_groups_message(repr(self), self._groups_from, as_nan=True),
            UserWarning,
            stacklevel=2,
        )
        return dict.fromkeys(self._metrics, float("nan"))


def make_ranking_scorer(
    metric: str
    | Metric
    | Callable[..., float]
    | Sequence[str | Metric]
    | Mapping[str, str | Metric | Callable[..., float]],
    *,
    response_method: ResponseMethod = "auto",
    groups_from: str = "qid",
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    conventions: Conventions | None = None,
    unjudged: Unjudged = "raise",
    **params: Any,
) -> RankingScorer:
    """Make a scorer from skirm metrics for scikit-learn's model selection.

    The scorer gets one response from the estimator, ranks the rows of every
    query once and computes all its metrics on that ranking. It is a
    module-level object: picklable (``n_jobs``, dask), clonable, and its
    ``repr`` reads like this call.

    Parameters
    ----------
    metric : str, Metric, callable, or list, tuple or dict of them
        A registered name (``"ndcg@10"``, see
        :func:`skirm.metrics.metric_names`), a
        :func:`skirm.metrics.get_metric` result, or a skirm metric function
        (``skirm.metrics.ndcg_score``, its cutoff given as ``k=``). A list or
        tuple of names, or a dict mapping result names to metrics, gives a
        multi-metric scorer returning a dict: use it with
        ``GridSearchCV(..., refit=<name>)``.

    response_method : "auto", str or list of str, default="auto"
        The estimator method giving the scores, or several in order of
        preference, from ``"predict"``, ``"decision_function"`` and
        ``"predict_proba"`` (its last column). ``"auto"`` tries ``predict``,
        ``decision_function``, then ``predict_proba``; for classifiers it skips
        ``predict`` (class labels rank poorly).

    groups_from : str, default="qid"
        Where to read the query ids when none are passed: the pandas index
        level of ``X`` of that name, or else its column of that name.

    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        How tied scores are ordered (see :func:`skirm.metrics.ndcg_score`).

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query without relevant rows: ``0.0`` as scikit-learn
        and trec_eval, ``1.0`` as LightGBM's and XGBoost's ``ndcg@k``.

    conventions : str, default=None
        A preset reproducing another library's numbers (``"lightgbm"``,
        ``"xgboost"``, ``"sklearn"``, ...), as in
        :func:`skirm.metrics.evaluate`: in a grid search, the scorer then
        gives the booster's own ``ndcg@k``.

    unjudged : {"raise", "nonrelevant", "condensed"}, default="raise"
        What a NaN label in the held-out ``y`` (an unjudged row) means, as in
        :func:`skirm.metrics.evaluate`: an error, a non-relevant row, or a
        row dropped before ranking.

    **params
        Metric options (``gain``, ``relevance_threshold``, ``p``, ...),
        applied to every metric that takes them; ``k`` for a metric function.

    Returns
    -------
    scorer : RankingScorer
        Called as ``scorer(estimator, X, y, groups=None, sample_weight=None)``.
        A metric whose smaller values are better (``ne``, ``ece@k``,
        ``fallout@k``, ``arp``) is negated, as scikit-learn's
        ``neg_log_loss``, so that a search maximises every score; ``pcoc``
        (best at 1) is refused.

    Raises
    ------
    InvalidParameterError
        When called with no query ids: no ``groups`` passed (routing disabled,
        or nothing routed) and no pandas index level or column
        ``groups_from``. The message names both fixes. (A ``ValueError``.)

    Notes
    -----
    Under metadata routing the scorer requests ``groups`` by default, like
    scikit-learn's group splitters, so ``GridSearchCV.fit(X, y, groups=qid)``
    gives each fold's query ids to the splitter, the scorer and (if it asks)
    the estimator. ``sample_weight`` (query weights given per row) is routed
    like scikit-learn's scorers: request it with
    ``set_score_request(sample_weight=True)``. With routing disabled,
    scikit-learn passes ``sample_weight`` to the scorer and nothing else, so
    the query ids must travel inside ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skirm.metrics import make_ranking_scorer
    >>> X = np.array([[0.0], [1.0], [2.0], [0.0], [1.0], [2.0]])
    >>> y = np.array([0, 1, 2, 2, 0, 0])
    >>> groups = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])   # higher x, higher label
    >>> scorer = make_ranking_scorer(["ndcg@2", "mrr"])
    >>> scorer
    make_ranking_scorer(['ndcg@2', 'mrr'])
    >>> scores = scorer(model, X, y, groups=groups)
    >>> {name: round(value, 4) for name, value in scores.items()}
    {'ndcg@2': 0.5, 'mrr': 0.6667}

    Without ``groups`` the query ids come from a pandas index level:

    >>> import pandas as pd
    >>> frame = pd.DataFrame(X, index=pd.Index(groups, name="qid"))
    >>> model = LinearRegression().fit(frame.iloc[:3], y[:3])
    >>> round(make_ranking_scorer("ndcg@2")(model, frame, y), 4)
    0.5
    """
    return RankingScorer(
        metric,
        response_method=response_method,
        groups_from=groups_from,
        ties=ties,
        no_relevant=no_relevant,
        conventions=conventions,
        unjudged=unjudged,
        **params,
    )
