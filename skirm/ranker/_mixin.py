"""What the rankers share: where query ids come from, and ``score``."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from skirm._query_ids import resolve_groups
from skirm.metrics._registry import get_metric
from skirm.metrics._response import response

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

    from skirm._typing import MatrixLike


class QueryScoreMixin:
    """Query-aware ``score`` for rankers with ``metric`` and ``groups_from``.

    Requests ``groups`` for ``fit`` and ``score`` by default, as scikit-learn's
    group splitters do for ``split``, so a routed ``GridSearchCV.fit(X, y,
    groups=qid)`` reaches the ranker with no ``set_*_request`` call.
    """

    __metadata_request__fit: ClassVar[dict] = {"groups": True}
    __metadata_request__score: ClassVar[dict] = {"groups": True}
    metric: str
    groups_from: str

    if TYPE_CHECKING:

        def predict(self, X: MatrixLike) -> NDArray[Any]: ...

    def _groups(self, X, groups, *, required=True):
        owner = type(self).__name__
        return resolve_groups(owner, X, groups, self.groups_from, required=required)

    def score(
        self,
        X: MatrixLike,
        y: ArrayLike,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> float:
        """The metric (NDCG@10 by default) of the predictions, per query.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels.
        groups : array-like of shape (n_samples,), default=None
            The query of each row; read from ``X`` when None.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights given per row, constant within each query.

        Returns
        -------
        score : float
        """
        y_score = response(self, X, ("predict",), groups)
        groups = self._groups(X, groups)
        metric = get_metric(self.metric)
        return metric(y, y_score, groups=groups, sample_weight=sample_weight)
