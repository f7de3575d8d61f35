"""Successive halving over whole queries (or boosting rounds), never over rows.

scikit-learn's halving searches with ``resource="n_samples"`` draw a fraction
of the *rows* of every training and test fold, so each query keeps only some
of its rows: rankers train on cut queries and are scored on partial
rankings. The searches here spend another resource: whole queries, through
:class:`~skirm.ranker.QueryRanker`'s ``max_queries`` parameter (the
default), or any estimator parameter such as boosting rounds. The test folds
are never subsampled.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import (
    HalvingGridSearchCV,
    HalvingRandomSearchCV,
    check_cv,
)
from sklearn.utils.metadata_routing import process_routing

from skirm._engine import encode_groups
from skirm._params import Param, Satisfies
from skirm._query_ids import resolve_groups
from skirm.model_selection._split import QueryGroupKFold

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, Literal

    from skirm._typing import RandomState

__all__ = ["QueryHalvingGridSearchCV", "QueryHalvingRandomSearchCV"]

#: The resource that counts whole queries.
QUERY_RESOURCE = "max_queries"
#: What a halving search spends: any parameter of the estimator, never rows.
RESOURCE = Param(
    "resource",
    Satisfies(
        lambda resource: not (isinstance(resource, str) and resource == "n_samples"),
        "an estimator parameter",
        rejected=("n_samples",),
    ),
    expected=f"{QUERY_RESOURCE!r} (whole queries, a parameter of "
    "skirm.ranker.QueryRanker) or a boosting-rounds parameter such as "
    "'estimator__n_estimators'",
    hint="a query-aware halving search does not subsample rows: "
    "resource='n_samples' would cut queries apart",
)


def _is_query_resource(resource):
    return resource == QUERY_RESOURCE or str(resource).endswith("__" + QUERY_RESOURCE)


class _QueryHalvingMixin:
    """What the two query-aware halving searches add to scikit-learn's."""

    def _query_cv(self):
        """An int ``cv`` means folds of whole queries."""
        if isinstance(self.cv, int) and not isinstance(self.cv, bool):
            return QueryGroupKFold(self.cv)
        return self.cv

    def _groups_from(self):
        params = self.estimator.get_params()
        keys = [key for key in params if key.split("__")[-1] == "groups_from"]
        return params[keys[0]] if keys else "qid"

    def _n_queries(self, X, params):
        """The number of queries in the data."""
        owner = type(self).__name__
        groups = resolve_groups(owner, X, params.get("groups"), self._groups_from())
        return encode_groups(groups)[1].shape[0]

    @contextlib.contextmanager
    def _resolved(self, **values):
        """Set parameters for the duration of one fit, then restore them."""
        saved = {name: getattr(self, name) for name in values}
        try:
            for name, value in values.items():
                setattr(self, name, value)
            yield
        finally:
            for name, value in saved.items():
                setattr(self, name, value)

    def fit(self, X, y=None, **params):
        """Run the halving search; the resource is never rows.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Training data; a DataFrame may carry the query ids in an index
            level (see ``groups_from`` of the estimator and splitter).
        y : array-like of shape (n_samples,)
            Relevance labels.
        **params : dict
            ``groups`` (the query of each row) and other fit parameters, as
            for :class:`~sklearn.model_selection.GridSearchCV`.

        Returns
        -------
        self : object
            The fitted search.
        """
        RESOURCE(self.resource)
        cv = check_cv(self._query_cv(), y, classifier=False)
        values = {"cv": cv}
        on_queries = _is_query_resource(self.resource)
        if self.max_resources == "auto" and on_queries:
            values["max_resources"] = self._n_queries(X, params)
        refit_all = on_queries and self.refit is True
        if refit_all:
            values["refit"] = False  # refitted below, on every query
        with self._resolved(**values):
            super().fit(X, y, **params)
        if refit_all:
            self._refit_on_every_query(X, y, params)
        return self

    def _refit_on_every_query(self, X, y, params):
        """Refit the best candidate with ``max_queries=None``: every query."""
        if sklearn.get_config()["enable_metadata_routing"]:
            fit_params = process_routing(self, "fit", **params)["estimator"]["fit"]
        else:  # as scikit-learn's searches: groups go to the splitter only
            fit_params = {key: v for key, v in params.items() if key != "groups"}
        best = clone(self.estimator).set_params(
            **{**self.best_params_, self.resource: None}
        )
        start = time.perf_counter()
        self.best_estimator_ = best.fit(X, y, **fit_params)
        self.refit_time_ = time.perf_counter() - start


#: The docstring both searches share; each fills in its candidates, its
#: defaults and its example.
_DOC = """{summary}

    A :class:`~sklearn.model_selection.{base}` whose
    resource keeps every query whole; all its parameters, attributes and
    methods apply.

    Unlike scikit-learn's halving searches, the resource is never rows:
    ``resource="n_samples"`` raises ValueError. By default the resource is
    ``max_queries`` of a :class:`~skirm.ranker.QueryRanker` (use
    ``"<step>__max_queries"`` for one inside a pipeline): each candidate is
    fitted on that many whole queries drawn from the training fold (seeded
    by the ranker's ``random_state``), and scored on the whole test fold.
    With ``max_resources="auto"`` the largest budget is the number of
    queries in ``X``: a fit given more queries than its training fold holds
    uses them all. The refit (``refit=True``) fits the best candidate on
    every query (``max_queries=None``), as scikit-learn's row resource refits
    on every row; ``best_params_`` still shows the budget of the iteration
    that chose it. Any other estimator parameter
    (for instance ``"estimator__n_estimators"``, boosting rounds) works as in
    scikit-learn, with an explicit ``max_resources``.

    An int ``cv`` means :class:`~skirm.model_selection.QueryGroupKFold` with
    that many folds (scikit-learn's ``KFold`` would cut queries apart).

    Parameters
    ----------
    estimator : estimator object
        Usually a :class:`~skirm.ranker.QueryRanker`.
{candidates}
    factor : int or float, default=3
        The halving rate: each iteration keeps ``1 / factor`` of the
        candidates and gives them ``factor`` times the resource.
    resource : str, default="max_queries"
        The estimator parameter that grows with the iterations.
    max_resources : int or "auto", default="auto"
        The largest resource; "auto" only for a query resource (see above).
    min_resources : int, "exhaust" or "smallest", default="{min_resources}"
        As in scikit-learn ("smallest" means 1 for a parameter resource).
    aggressive_elimination : bool, default=False
        As in scikit-learn.
    cv : int, cross-validation generator or iterable, default=5
        An int means ``QueryGroupKFold(cv)``.
    scoring, refit, error_score, return_train_score, random_state, n_jobs, \
verbose :
        As in :class:`~sklearn.model_selection.{base}`.

    See Also
    --------
    {see_also}

    Examples
    --------
    >>> import sklearn
{examples}"""


def _arguments(names):
    """The arguments of a search's ``__init__`` (``locals()`` there), to hand
    to scikit-learn's: each search spells its signature out, since
    scikit-learn reads it for ``get_params``, and only the defaults differ."""
    return {k: v for k, v in names.items() if k not in ("self", "__class__")}


class QueryHalvingGridSearchCV(_QueryHalvingMixin, HalvingGridSearchCV):
    __doc__ = _DOC.format(
        summary="Successive halving over a grid, spending whole queries, not rows.",
        base="HalvingGridSearchCV",
        candidates="""    param_grid : dict or list of dicts
        The candidates, as in :class:`~sklearn.model_selection.GridSearchCV`.""",
        min_resources="exhaust",
        see_also="QueryHalvingRandomSearchCV",
        examples="""    >>> from sklearn.linear_model import Ridge
    >>> from skirm.datasets import make_ranking
    >>> from skirm.metrics import make_ranking_scorer
    >>> from skirm.model_selection import QueryHalvingGridSearchCV
    >>> from skirm.ranker import QueryRanker
    >>> X, y, groups = make_ranking(n_groups=60, random_state=0)
    >>> search = QueryHalvingGridSearchCV(
    ...     QueryRanker(Ridge(), random_state=0),
    ...     {"estimator__alpha": [0.1, 1.0, 10.0, 100.0]},
    ...     cv=3, scoring=make_ranking_scorer("ndcg@10"), factor=2,
    ... )
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, groups=groups)
    >>> search.max_resources_          # the number of queries
    60
    >>> search.n_resources_            # whole queries per fit, iteration by iteration
    [15, 30, 60]
    """,
    )

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Sequence[Any]]],
        *,
        factor: float = 3,
        resource: str = QUERY_RESOURCE,
        max_resources: int | Literal["auto"] = "auto",
        min_resources: int | Literal["exhaust", "smallest"] = "exhaust",
        aggressive_elimination: bool = False,
        cv: int | Any = 5,
        scoring: Any = None,
        refit: bool | str | Callable[..., Any] = True,
        error_score: float | Literal["raise"] = np.nan,
        return_train_score: bool = True,
        random_state: RandomState = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(**_arguments(locals()))


class QueryHalvingRandomSearchCV(_QueryHalvingMixin, HalvingRandomSearchCV):
    __doc__ = _DOC.format(
        summary="Successive halving over random candidates, spending whole queries.",
        base="HalvingRandomSearchCV",
        candidates="""    param_distributions : dict or list of dicts
        The candidates' distributions, as in
        :class:`~sklearn.model_selection.RandomizedSearchCV`.
    n_candidates : int or "exhaust", default="exhaust"
        Number of candidates of the first iteration.""",
        min_resources="smallest",
        see_also="QueryHalvingGridSearchCV",
        examples="""    >>> from scipy.stats import loguniform
    >>> from sklearn.linear_model import Ridge
    >>> from skirm.datasets import make_ranking
    >>> from skirm.metrics import make_ranking_scorer
    >>> from skirm.model_selection import QueryHalvingRandomSearchCV
    >>> from skirm.ranker import QueryRanker
    >>> X, y, groups = make_ranking(n_groups=60, random_state=0)
    >>> search = QueryHalvingRandomSearchCV(
    ...     QueryRanker(Ridge(), random_state=0),
    ...     {"estimator__alpha": loguniform(1e-2, 1e2)},
    ...     n_candidates=4, min_resources=10, factor=2, cv=3,
    ...     scoring=make_ranking_scorer("ndcg@10"), random_state=0,
    ... )
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, groups=groups)
    >>> search.n_resources_, search.n_candidates_
    ([10, 20, 40], [4, 2, 1])
    """,
    )

    def __init__(
        self,
        estimator: Any,
        param_distributions: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        n_candidates: int | Literal["exhaust"] = "exhaust",
        factor: float = 3,
        resource: str = QUERY_RESOURCE,
        max_resources: int | Literal["auto"] = "auto",
        min_resources: int | Literal["exhaust", "smallest"] = "smallest",
        aggressive_elimination: bool = False,
        cv: int | Any = 5,
        scoring: Any = None,
        refit: bool | str | Callable[..., Any] = True,
        error_score: float | Literal["raise"] = np.nan,
        return_train_score: bool = True,
        random_state: RandomState = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(**_arguments(locals()))
