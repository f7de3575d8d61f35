"""The engine's one door: public arguments in, checked rows or a ranking out.

Every entry point that takes ``y_true, y_score, groups`` (metric functions,
``evaluate``, scorers, displays) comes through here. Ranked id lists (a
:class:`~skirm._engine.RankedLists`, or relevant sets or ``{id: grade}``
dicts with id lists) are ranked by position at once; flat or 2-D rows are
checked, and ranked whole or block by block by the caller.
"""

from __future__ import annotations

from skirm._engine._check import CheckedInput, check_input
from skirm._engine._lists import is_lists_input, rank_lists
from skirm._engine._rank import rank_checked
from skirm._engine._ranking import Ranking


def enter(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    ignore_ties=False,
    unjudged="raise",
    n_jobs=None,
) -> Ranking | CheckedInput:
    """Validate the public arguments once: the :class:`Ranking` of ranked
    lists, or the :class:`CheckedInput` of rows (see :func:`check_input`)."""
    if is_lists_input(y_true):
        return rank_lists(y_true, y_score, groups, sample_weight)
    return check_input(
        y_true,
        y_score,
        groups=groups,
        sample_weight=sample_weight,
        ties=ties,
        ignore_ties=ignore_ties,
        unjudged=unjudged,
        n_jobs=n_jobs,
    )


def rank_input(y_true, y_score, **options) -> Ranking:
    """Validate the public arguments once and rank the rows: :func:`enter`
    (same arguments), with rows ranked whole.

    Ranked id lists (``y_true`` of relevant sets or dicts, or from
    :func:`skirm.metrics.from_lists`) are ranked by position.
    """
    entered = enter(y_true, y_score, **options)
    return entered if isinstance(entered, Ranking) else rank_checked(entered)
