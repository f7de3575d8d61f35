"""The engine's door: public arguments in, checked rows or a ranking out.

Every entry point that takes ``y_true, y_score, groups`` (metric functions,
``evaluate``, scorers, displays) comes through :func:`check_input`, then
:func:`~skirm._engine.rank` (whole) or
:func:`~skirm._engine.map_query_blocks` (block by block). Ranked id lists (a
:class:`~skirm._engine.RankedLists`, or relevant sets or ``{id: grade}``
dicts with id lists) are ranked by position at once; flat or 2-D rows are
checked, and left to the caller to rank.
"""

from __future__ import annotations

from skirm._engine._check import CheckedInput, check_rows
from skirm._engine._lists import is_lists_input, rank_lists
from skirm._engine._ranking import Ranking
from skirm._errors import InvalidParameterError
from skirm._params import UNJUDGED


def check_input(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    ignore_ties=False,
    unjudged="raise",
    n_jobs=None,
    propensity=None,
) -> CheckedInput | Ranking:
    """Validate the public arguments once: the :class:`CheckedInput` of rows
    (see :func:`~skirm._engine._check.check_rows`), or the :class:`Ranking`
    of ranked lists. :func:`~skirm._engine.rank` ranks either. Per-row
    ``propensity`` comes with rows only."""
    if is_lists_input(y_true):
        if propensity is not None:
            raise InvalidParameterError(
                "`propensity` must be None for ranked lists: give rows "
                "(y_true, y_score, groups) with one propensity per row"
            )
        return rank_lists(y_true, y_score, groups, sample_weight, UNJUDGED(unjudged))
    return check_rows(
        y_true,
        y_score,
        groups=groups,
        sample_weight=sample_weight,
        ties=ties,
        ignore_ties=ignore_ties,
        unjudged=unjudged,
        n_jobs=n_jobs,
        propensity=propensity,
    )
