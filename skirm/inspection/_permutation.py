"""Permutation importance of the features of a ranker, query by query.

scikit-learn's :func:`sklearn.inspection.permutation_importance` permutes a
column over all rows, so a row receives the value of a document of another
query. For a ranker the question is usually narrower: how much does the
ranking *within* each query depend on the feature? Permuting the column
within each query answers that, and leaves a feature that is constant within
every query (a query-level feature) exactly unimportant to an additive model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skirm._engine import encode_groups
from skirm._errors import InvalidInputError
from skirm._frames import library
from skirm._params import NONE, Instance, Interval, OneOf, Param, checked
from skirm._query_ids import GROUPS_FROM, n_rows, resolve_groups
from skirm.metrics._get_scorer import get_scorer
from skirm.metrics._scorer import RankingScorer, make_ranking_scorer

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike
    from pandas import DataFrame

    from skirm._typing import RandomState

__all__ = ["permutation_importance"]

#: Where a column is permuted: within each query, or over all rows.
PERMUTATIONS = ("query", "all")
PERMUTE = Param("permute", OneOf(*PERMUTATIONS))
#: The permutations of each feature.
N_REPEATS = Param("n_repeats", Interval(int, 1, closed="left"))
#: The ranking score whose drop is the importance.
SCORING = Param(
    "scoring",
    NONE,
    Instance(str, "a metric name"),
    Instance((list, tuple), "a list of metric names"),
    Instance(RankingScorer, "a skirm RankingScorer"),
    expected="None, a metric name, a list of metric names or a skirm "
    "RankingScorer (make_ranking_scorer)",
)


def _scorer(scoring):
    """The RankingScorer of a checked ``scoring``: None, a name, a list of
    names or a scorer."""
    if scoring is None:
        return make_ranking_scorer("ndcg@10")
    if isinstance(scoring, RankingScorer):
        return scoring
    if isinstance(scoring, str):
        return get_scorer(scoring)
    return make_ranking_scorer(list(scoring))


def _permutations(groups, n_samples, n_repeats, permute, seed):
    """One row permutation per repeat, the same for every feature.

    ``"all"`` draws them as scikit-learn does (one RandomState from ``seed``
    shuffling an index array in place), ``"query"`` moves every row to a
    random row of its own query (random keys sorted within each query).
    """
    rng = check_random_state(seed)
    if permute == "all":
        index, perms = np.arange(n_samples), []
        for _ in range(n_repeats):
            rng.shuffle(index)
            perms.append(index.copy())
        return perms
    codes, _ = encode_groups(groups)
    by_query = np.argsort(codes, kind="stable")
    perms = []
    for _ in range(n_repeats):
        shuffled = np.lexsort((rng.random_sample(n_samples), codes))
        perm = np.empty(n_samples, dtype=np.intp)
        perm[by_query] = shuffled  # same query layout, rows drawn within it
        perms.append(perm)
    return perms


def _as_matrix(X) -> np.ndarray | DataFrame:
    """A pandas or polars DataFrame as is; anything else as a 2-D numpy array."""
    if hasattr(X, "iloc") or _is_polars_frame(X):
        return X
    if hasattr(X, "tocsr") or hasattr(X, "toarray"):
        raise InvalidInputError(
            "`X` must be a dense array or a DataFrame, got a sparse matrix; "
            "call X.toarray() first"
        )
    X = np.asarray(X)
    if X.ndim != 2:
        raise InvalidInputError(
            f"`X` must be 2-D (n_samples, n_features), got shape {X.shape}"
        )
    return X


def _is_polars_frame(X):
    return library(X) == "polars" and type(X).__name__ == "DataFrame"


def _column_scores(scorer, estimator, X, y, j, perms, kwargs):
    """Scores with column ``j`` permuted, repeat after repeat (cumulatively)."""
    polars = _is_polars_frame(X)
    X_perm = X.clone() if polars else X.copy()
    scores = []
    for perm in perms:
        if polars:  # immutable columns: a new frame sharing the others
            column = X_perm.to_series(j)
            X_perm = X_perm.with_columns(column[perm])
        elif hasattr(X_perm, "iloc"):
            X_perm.isetitem(j, X_perm.iloc[:, j].to_numpy()[perm])
        else:
            X_perm[:, j] = X_perm[perm, j]
        scores.append(scorer(estimator, X_perm, y, **kwargs))
    return scores


def _bunch(baseline, scores):
    importances = baseline - np.asarray(scores, dtype=np.float64)
    return Bunch(
        importances_mean=importances.mean(axis=1),
        importances_std=importances.std(axis=1),
        importances=importances,
    )


@overload
def permutation_importance(
    estimator: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    groups: ArrayLike | None = ...,
    scoring: str | None = ...,
    n_repeats: int = ...,
    permute: Literal["query", "all"] = ...,
    random_state: RandomState = ...,
    sample_weight: ArrayLike | None = ...,
    groups_from: str = ...,
) -> Bunch: ...


@overload
def permutation_importance(
    estimator: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    groups: ArrayLike | None = ...,
    scoring: list[str] | tuple[str, ...],
    n_repeats: int = ...,
    permute: Literal["query", "all"] = ...,
    random_state: RandomState = ...,
    sample_weight: ArrayLike | None = ...,
    groups_from: str = ...,
) -> dict[str, Bunch]: ...


@overload
def permutation_importance(
    estimator: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    groups: ArrayLike | None = ...,
    scoring: RankingScorer,
    n_repeats: int = ...,
    permute: Literal["query", "all"] = ...,
    random_state: RandomState = ...,
    sample_weight: ArrayLike | None = ...,
    groups_from: str = ...,
) -> Bunch | dict[str, Bunch]: ...


@checked(permute=PERMUTE, n_repeats=N_REPEATS, scoring=SCORING, groups_from=GROUPS_FROM)
def permutation_importance(
    estimator: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    scoring: str | list[str] | tuple[str, ...] | RankingScorer | None = None,
    n_repeats: int = 5,
    permute: Literal["query", "all"] = "query",
    random_state: RandomState = None,
    sample_weight: ArrayLike | None = None,
    groups_from: str = "qid",
) -> Bunch | dict[str, Bunch]:
    """Permutation importance of each feature, permuting within queries.

    The importance of a feature is the drop of a ranking score when its
    column is permuted. With ``permute="query"`` (the default) each row gets
    the value of a row *of the same query*, so the score drop measures how
    much the ranking within queries relies on the feature; a feature constant
    within every query is never moved and scores exactly 0.
    ``permute="all"`` permutes over all rows, across queries, exactly as
    :func:`sklearn.inspection.permutation_importance` does (same random
    draws, same numbers).

    scikit-learn's function routes no metadata, so there the query ids can
    only travel in the index of ``X``; here they are an argument.

    Parameters
    ----------
    estimator : fitted estimator
        A ranker (or any model with ``predict``) that the scorer can call.
    X : ndarray or DataFrame of shape (n_samples, n_features)
        The rows to score (a held-out set, preferably): an array, or a
        pandas or polars DataFrame (kept as a frame, its columns permuted
        one at a time).
    y : array-like of shape (n_samples,)
        Relevance labels.
    groups : array-like of shape (n_samples,), default=None
        The query of each row; read from the index level (or column)
        ``groups_from`` of a DataFrame ``X`` when None (a column of a
        polars ``X``, which then counts as a feature too).
    scoring : None, str, list of str or RankingScorer, default=None
        The ranking score: None means NDCG@10; a name or a list of names
        builds :func:`~skirm.metrics.make_ranking_scorer` (a list gives one
        result per metric).
    n_repeats : int, default=5
        Number of permutations per feature.
    permute : {"query", "all"}, default="query"
        Permute within each query, or over all rows.
    random_state : int, RandomState instance or None, default=None
        Seed of the permutations; every feature sees the same ones.
    sample_weight : array-like of shape (n_samples,), default=None
        Query weights given per row, passed to the scorer.
    groups_from : str, default="qid"
        The index level or column of a DataFrame ``X`` read when ``groups``
        is None.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch` or dict of them
        ``importances_mean`` and ``importances_std`` of shape (n_features,),
        ``importances`` of shape (n_features, n_repeats); a dict by metric
        name for a multi-metric ``scoring``.

    See Also
    --------
    sklearn.inspection.permutation_importance : Permutations over all rows.

    Examples
    --------
    Column 1 is constant within each query: permuted within queries it
    cannot change any ranking, whatever weight the model gives it.

    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skirm.inspection import permutation_importance
    >>> groups = np.repeat([0, 1, 2, 3], 5)
    >>> rng = np.random.default_rng(0)
    >>> X = np.column_stack([rng.normal(size=20), groups % 2 + 0.5 * groups])
    >>> y = (X[:, 0] > 0).astype(int) + (groups % 2)
    >>> model = LinearRegression().fit(X, y)
    >>> result = permutation_importance(
    ...     model, X, y, groups=groups, n_repeats=3, random_state=0)
    >>> result.importances_mean.round(3)
    array([0.159, 0.   ])
    >>> across = permutation_importance(
    ...     model, X, y, groups=groups, permute="all", n_repeats=3, random_state=0)
    >>> bool(across.importances_mean[1] > 0)
    True
    """
    scorer = _scorer(scoring)
    X = _as_matrix(X)
    n_samples = n_rows(X)
    groups = resolve_groups("permutation_importance", X, groups, groups_from)
    kwargs = {"groups": groups, "sample_weight": sample_weight}
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max + 1)
    perms = _permutations(groups, n_samples, n_repeats, permute, seed)
    baseline = scorer(estimator, X, y, **kwargs)
    scores = [
        _column_scores(scorer, estimator, X, y, j, perms, kwargs)
        for j in range(X.shape[1])
    ]
    if isinstance(baseline, dict):
        return {
            name: _bunch(value, [[s[name] for s in col] for col in scores])
            for name, value in baseline.items()
        }
    return _bunch(baseline, scores)
