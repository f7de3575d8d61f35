"""Ready ranking scorers by name: :func:`get_scorer`, :func:`get_scorer_names`."""

from __future__ import annotations

import copy

from skirm._errors import InvalidParameterError
from skirm._params import describe
from skirm.metrics._scorer import RankingScorer

#: Ready scorers: names scikit-learn users would try first.
_READY = (
    "ndcg",
    "ndcg@1",
    "ndcg@3",
    "ndcg@5",
    "ndcg@10",
    "ndcg@20",
    "dcg@10",
    "map",
    "map@10",
    "mrr",
    "mrr@10",
    "precision@1",
    "precision@5",
    "precision@10",
    "recall@10",
    "recall@100",
    "hit_rate@10",
    "r_precision",
    "err@10",
)
_SCORERS = {name: RankingScorer(name) for name in _READY}


def get_scorer_names() -> list[str]:
    """The names of the ready ranking scorers.

    :func:`get_scorer` also accepts any other registered metric name.

    Returns
    -------
    names : list of str
        Sorted names.

    Examples
    --------
    >>> from skirm.metrics import get_scorer_names
    >>> "ndcg@10" in get_scorer_names()
    True
    """
    return sorted(_SCORERS)


def get_scorer(scoring: str | RankingScorer) -> RankingScorer:
    """A ranking scorer from a metric name, such as ``"ndcg@10"``.

    Parameters
    ----------
    scoring : str or RankingScorer
        A ready name (:func:`get_scorer_names`) or any registered metric name;
        a scorer is returned as a copy.

    Returns
    -------
    scorer : RankingScorer
        A fresh copy: changing its requests leaves the ready one untouched.

    Examples
    --------
    >>> from skirm.metrics import get_scorer
    >>> get_scorer("ndcg@10")
    make_ranking_scorer('ndcg@10')
    >>> get_scorer("P@3")
    make_ranking_scorer('P@3')
    """
    if isinstance(scoring, RankingScorer):
        return copy.deepcopy(scoring)
    if not isinstance(scoring, str):
        raise InvalidParameterError(
            f"`scoring` must be a metric name or a RankingScorer, got "
            f"{describe(scoring)}"
        )
    ready = _SCORERS.get(scoring)
    if ready is not None:
        return copy.deepcopy(ready)
    return RankingScorer(scoring)
