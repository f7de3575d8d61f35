"""Plan: what one evaluation computes, decided before anything is read.

A :class:`~skirm.trec._request.Request` names measures; some carry options
of their own (ir_measures' ``rel=``, ``judged_only=`` and ``gains=``) and
some need subtopic judgements (the diversity measures). :func:`make_plan`
turns it into a :class:`Plan`: entries, each a set of outputs evaluated
under one set of :class:`~skirm.trec._request.Options` (and, for
``gains=``, with the qrels' grades mapped), all evaluated on the same
inputs, read once; and the diversity measures, one more part of the same
evaluation. No entry calls the evaluation again.
"""

from __future__ import annotations

from typing import NamedTuple

from skirm._errors import InvalidParameterError
from skirm._measures._rows import QRELS
from skirm.trec._rel_formats import check_rel_format

__all__ = ["Entry", "Plan", "make_plan"]


class Entry(NamedTuple):
    """Outputs evaluated under one set of options: their own ``options``
    (the call's, with a variant's relevance level, ``judged_only``, tie rule
    and score type) and
    ``gains``, the sorted ``(grade, gain)`` pairs the qrels' grades are
    mapped by (``()``: the grades as they are)."""

    outputs: tuple
    options: object
    gains: tuple = ()


class Plan(NamedTuple):
    """The entries of an evaluation, its diversity measures
    (:class:`~skirm._measures._grammar.DiversityName`), the printed names of
    every output in print order, and the relevance format of its qrels."""

    entries: tuple
    diversity: tuple
    names: tuple
    rel_format: str


def make_plan(request, options, rel_format, zscored=False) -> Plan:
    """The :class:`Plan` of a request under the call's ``options``, with
    the options that cannot apply refused: for the diversity measures,
    ``max_docs``, ``zscores`` (``zscored``) and a relevance format other
    than qrels; for the options of a measure name, a relevance format other
    than qrels; for every other measure, a format that does not serve it."""
    if request.diversity:
        refuse_options(
            request,
            {
                ("max_docs", "-M"): options.max_docs is not None,
                ("zscores", "-Z"): zscored,
                (f"rel_format={rel_format!r}", f"-R {rel_format}"): rel_format != QRELS,
            },
        )
    variants = request.variants()
    if list(variants) != [()] and rel_format != QRELS:
        raise InvalidParameterError(
            "the options rel=, judged_only= and gains= of a measure name need "
            f"qrels (rel_format='qrels'), got rel_format={rel_format!r}"
        )
    entries = []
    for key, part in variants.items():
        settings = dict(key)
        outputs = part.plain_variant().outputs
        rel_format = check_rel_format(rel_format, outputs)
        these = options.variant(settings)
        entries.append(Entry(outputs, these, settings.get("gains", ())))
    if not request.outputs:  # the diversity measures alone
        entries = []
    names = tuple(o.name for o in request.outputs)
    names += tuple(d.text for d in request.diversity)
    return Plan(tuple(entries), request.diversity, names, rel_format)


def refuse_options(request, given):
    """The options that do not apply to the diversity measures are refused:
    ``given`` maps ``(python name, command-line option)`` to whether it was
    given."""
    given = [names for names, was_given in given.items() if was_given]
    if not given:
        return
    labels = ", ".join(d.text for d in request.diversity)
    text = "{} {} not apply to the diversity measures ({}); evaluate them apart"
    verb = "does" if len(given) == 1 else "do"
    raise InvalidParameterError(
        text.format(" and ".join(python for python, _ in given), verb, labels),
        command_line=text.format(
            " and ".join(option for _, option in given), verb, labels
        ),
    )
