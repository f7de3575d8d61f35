"""FusionRanker: fusion of several retrievers as an estimator.

Its parameters are the fusion's (method, normalisation, ``k``, ``phi``,
weights), so :class:`~sklearn.model_selection.GridSearchCV` with
:class:`~skirm.model_selection.QueryGroupKFold` tunes them on training
queries and scores them on held-out ones; ``weights="search"`` makes ``fit``
choose the weights itself, on the training queries only. The kernels are
:mod:`skirm.fusion`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import NONE, OneOf, Param
from skirm._query_ids import n_rows
from skirm._validation import check_sample_weight
from skirm.fusion._matrix import fusion_of
from skirm.fusion._rules import (
    METHOD,
    NORM,
    PHI,
    RRF_K,
    WEIGHT_STEP,
    WEIGHT_VALUES,
    check_weights,
)
from skirm.fusion._search import best_weights, weight_grid
from skirm.metrics._registry import get_metric
from skirm.ranker._mixin import QueryScoreMixin
from skirm.ranker._query import MAX_QUERIES, _check_y, _draw_queries

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from skirm._typing import (
        FloatArray,
        FusionMethod,
        FusionNorm,
        MatrixLike,
        RandomState,
    )

__all__ = ["FusionRanker"]

#: The estimator's weights: fixed, or searched by ``fit``.
FUSION_WEIGHTS = Param(
    "weights",
    NONE,
    OneOf("search"),
    WEIGHT_VALUES,
    expected="None, 'search' or a 1-D array-like of non-negative finite numbers "
    "(at least one positive)",
)


class FusionRanker(QueryScoreMixin, BaseEstimator):
    """Fuse the scores of several retrievers, as an estimator.

    Each column of ``X`` is a retriever's score of a row (a document of a
    query), NaN where that retriever did not return it. :meth:`predict`
    normalises (or ranks) each retriever's scores per query and combines
    them into one score per row, as :func:`skirm.fusion.fuse_scores` does.
    Every choice of the fusion is a parameter, so a search over them with
    :class:`~skirm.model_selection.QueryGroupKFold` chooses it on training
    queries and scores it on held-out ones; with ``weights="search"``,
    :meth:`fit` itself chooses each retriever's weight on the training
    queries, maximising ``metric`` over a grid of weights (as ranx's
    ``optimize_fusion`` does on all queries at once).

    The query of each row comes from ``groups`` (routed by default under
    metadata routing, to ``fit``, ``predict`` and ``score``; skirm's scorers
    pass it to ``predict``) or from the pandas index level (or column) of
    ``X`` named ``groups_from``. :meth:`predict` needs it: a fused score
    depends on the other rows of the query.

    Parameters
    ----------
    method : str, default="rrf"
        ``"rrf"``, ``"isr"``, ``"borda"``, ``"rbc"`` (rank methods) or
        ``"combsum"``, ``"combmnz"``, ``"combmax"``, ``"combmin"``,
        ``"combanz"`` (score methods); see the user guide for each formula.
    norm : str, default="min-max"
        The per-query normalisation of the score methods: ``"min-max"``,
        ``"max"``, ``"sum"``, ``"zscore"``, ``"rank"``, ``"borda"`` or
        ``"none"``. The rank methods do not read it.
    k : float, default=60.0
        Reciprocal rank fusion's constant: ``1 / (k + rank)``, ranks from 1.
    phi : float, default=0.8
        Rank-biased centroid's persistence, in (0, 1).
    weights : None, "search" or array-like of shape (n_retrievers,), \
default=None
        Each retriever's weight (its contribution is multiplied by it; 0
        leaves it out); None weighs each 1; ``"search"`` chooses them in
        :meth:`fit` on the training queries.
    weight_step : float, default=0.1
        With ``weights="search"``: the weights tried are every vector of
        multiples of ``weight_step`` summing to 1.
    metric : str, default="ndcg@10"
        The registered metric :meth:`score` computes, and the one the weight
        search maximises.
    groups_from : str, default="qid"
        The index level (or column) of a pandas ``X``, or the column of a
        polars ``X``, read for the query ids when ``groups`` is None.
    max_queries : int or None, default=None
        With ``weights="search"``: search on at most this many whole training
        queries, drawn at random (``random_state``); the resource of
        :class:`~skirm.model_selection.QueryHalvingGridSearchCV`.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw of ``max_queries``.

    Attributes
    ----------
    weights_ : ndarray of shape (n_retrievers,)
        The weights :meth:`predict` uses.
    n_features_in_ : int
        The number of retrievers seen in :meth:`fit`.
    feature_names_in_ : ndarray of str
        The retrievers' names, for a DataFrame ``X`` with string columns.
    search_weights_ : ndarray of shape (n_candidates, n_retrievers)
        With ``weights="search"``: every weight vector tried.
    search_scores_ : ndarray of shape (n_candidates,)
        The training ``metric`` of each.
    best_score_ : float
        The training ``metric`` of the weights chosen.

    See Also
    --------
    skirm.fusion.fuse_scores : The fusion as a function.
    skirm.trec.fuse : The fusion of TREC runs.

    Notes
    -----
    Among weight vectors with the same best training score, the one nearest
    to equal weights is chosen. Rows no retriever returned get ``-inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.ranker import FusionRanker
    >>> X = np.array([[3.0, 0.2], [2.0, 0.9], [1.0, np.nan], [0.5, 0.4]])
    >>> groups = [0, 0, 0, 1]
    >>> model = FusionRanker(k=0).fit(X)
    >>> model.predict(X, groups=groups).tolist()
    [1.5, 1.5, 0.3333333333333333, 2.0]

    The weights chosen on a metric, from the labels:

    >>> y = [0, 1, 0, 1]
    >>> model = FusionRanker(weights="search", weight_step=0.5).fit(
    ...     X, y, groups=groups
    ... )
    >>> model.weights_.tolist(), model.best_score_
    ([0.0, 1.0], 1.0)
    """

    __metadata_request__predict: ClassVar[dict] = {"groups": True}

    def __init__(
        self,
        method: FusionMethod = "rrf",
        *,
        norm: FusionNorm = "min-max",
        k: float = 60.0,
        phi: float = 0.8,
        weights: ArrayLike | Literal["search"] | None = None,
        weight_step: float = 0.1,
        metric: str = "ndcg@10",
        groups_from: str = "qid",
        max_queries: int | None = None,
        random_state: RandomState = None,
    ) -> None:
        self.method = method
        self.norm = norm
        self.k = k
        self.phi = phi
        self.weights = weights
        self.weight_step = weight_step
        self.metric = metric
        self.groups_from = groups_from
        self.max_queries = max_queries
        self.random_state = random_state

    def _settings(self):
        """``(method, norm, k, phi)``, checked."""
        return METHOD(self.method), NORM(self.norm), RRF_K(self.k), PHI(self.phi)

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Check the retrievers' scores; with ``weights="search"``, choose
        the weights on these (training) queries.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_retrievers)
            Scores, NaN where a retriever did not return the row.
        y : array-like of shape (n_samples,), default=None
            Relevance labels; needed by ``weights="search"`` only.
        groups : array-like of shape (n_samples,), default=None
            The query of each row (read from ``X`` when None); needed by
            ``weights="search"`` only.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights given per row, for the metric of the search.

        Returns
        -------
        self : FusionRanker
        """
        settings = self._settings()
        weights = FUSION_WEIGHTS(self.weights)
        get_metric(self.metric)  # fail early on a bad name
        step = WEIGHT_STEP(self.weight_step)
        max_queries = MAX_QUERIES(self.max_queries)
        searched = isinstance(weights, str)
        query_ids = self._groups(X, groups, required=searched)
        X = validate_data(self, X, ensure_all_finite="allow-nan", reset=True)
        sw = check_sample_weight(sample_weight, X.shape[0])
        if sw is not None and not (sw > 0).any():
            raise InvalidInputError(
                "`sample_weight` must hold at least one non-zero weight, got all zero"
            )
        for name in ("search_weights_", "search_scores_", "best_score_"):
            self.__dict__.pop(name, None)
        if not searched:
            self.weights_ = check_weights(weights, X.shape[1])
            return self
        if y is None:
            raise InvalidParameterError(
                "weights='search' chooses the weights on the labels: pass `y` to fit"
            )
        y = _check_y(y, X.shape[0], "y")
        rng = check_random_state(self.random_state)
        rows = _draw_queries(query_ids, X.shape[0], max_queries, rng)
        fusion, _ = fusion_of(X[rows], query_ids[rows], *settings)
        metric = get_metric(self.metric)
        grid = weight_grid(X.shape[1], step)
        y, w, codes = y[rows], None if sw is None else sw[rows], fusion.codes
        scores = np.array(
            [metric(y, fusion.fuse(v), groups=codes, sample_weight=w) for v in grid]
        )
        best = int(best_weights(grid, scores)[0])
        self.weights_ = grid[best]
        self.search_weights_, self.search_scores_ = grid, scores
        self.best_score_ = float(scores[best])
        return self

    def predict(self, X: MatrixLike, groups: ArrayLike | None = None) -> FloatArray:
        """The fused score of each row, in the order of ``X``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_retrievers)
            Scores, NaN where a retriever did not return the row.
        groups : array-like of shape (n_samples,), default=None
            The query of each row; read from ``X`` when None.

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
            ``-inf`` for a row no retriever (of positive weight) returned.
        """
        check_is_fitted(self, "weights_")
        given = X
        X = validate_data(self, X, ensure_all_finite="allow-nan", reset=False)
        query_ids = self._groups(given, groups)
        if n_rows(X) == 0:
            return np.zeros(0)
        fusion, _ = fusion_of(X, query_ids, *self._settings())
        return fusion.fuse(self.weights_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
