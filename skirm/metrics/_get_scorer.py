"""Ready ranking scorers by name: :func:`get_scorer`, :func:`get_scorer_names`."""

from __future__ import annotations

import copy

from skirm._errors import InvalidParameterError
from skirm._measures import _table as table
from skirm._params import describe
from skirm.metrics._scorer import RankingScorer

#: Ready scorers: names scikit-learn users would try first, each a measure
#: at its cutoffs (None: without one).
_READY = tuple(
    measure.name if k is None else f"{measure.name}@{k}"
    for measure, cutoffs in (
        (table.NDCG, (None, 1, 3, 5, 10, 20)),
        (table.DCG, (10,)),
        (table.MAP, (None, 10)),
        (table.MRR, (None, 10)),
        (table.PRECISION, (1, 5, 10)),
        (table.RECALL, (10, 100)),
        (table.HIT_RATE, (10,)),
        (table.R_PRECISION, (None,)),
        (table.ERR, (10,)),
    )
    for k in cutoffs
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
