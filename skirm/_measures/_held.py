"""A measure name as typed, found among the names a result holds.

Results keep the names they were computed under: ``evaluate`` the labels it
was given (``ndcg@10``), ``evaluate_run`` trec_eval's output names
(``ndcg_cut_10``). A user who asks a statistic for ``ndcg_cut.10``,
``nDCG@10`` or ``ndcg@10`` means that one measure. Two names are spellings
of one measure when the grammars read them to the same thing: the measure,
its cutoff (or trec_eval parameter), and the options and qrels variant the
spelling implies (``ERR@20``, gdeval's, is not ``err@20``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from skirm._errors import InvalidParameterError
from skirm._measures._grammar import parse_metric, parse_trec

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["held_name"]


@lru_cache(maxsize=4096)
def _identity(name: str) -> tuple | None:
    """What ``name`` computes, or None for a name no grammar reads as one
    measure (a label of the caller's, a nickname, ``P.5,10``)."""
    try:
        named = parse_metric(name)
    except InvalidParameterError:
        named = None
    if named is not None:
        options = tuple(sorted(named.options.items()))
        return ("arrays", named.measure.name, named.k, options, named.variant)
    try:
        outputs = parse_trec(name)
    except InvalidParameterError:
        return None
    if outputs is None or len(outputs) != 1 or len(outputs[0].outputs()) != 1:
        return None
    (trec,) = outputs
    ((_, parameter),) = trec.outputs()
    return ("trec", trec.measure.name, trec.spelling.name, parameter, trec.variant)


def held_name(name: str, held: Iterable[str]) -> str | None:
    """The name in ``held`` that ``name`` spells: ``name`` itself when held,
    else the one held name read as the same measure, else None.

    Raises :class:`~skirm.InvalidParameterError` when ``name`` spells two
    held names (a result holding one measure under two spellings).
    """
    held = list(held)
    if name in held:
        return name
    if not isinstance(name, str):
        return None
    want = _identity(name)
    if want is None:
        return None
    found = [key for key in held if isinstance(key, str) and _identity(key) == want]
    if len(found) > 1:
        raise InvalidParameterError(
            f"{name!r} spells one measure that the result holds under "
            f"{len(found)} names ({', '.join(map(repr, found))}); name one of them"
        )
    return found[0] if found else None
