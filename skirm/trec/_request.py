"""Request: the measures asked for and the options, checked once.

:func:`parse_measures` turns measure names (trec_eval's, with parameters and
nicknames, skirm's, or the diversity measures') into the outputs to print,
in trec_eval's order; the ``check_*`` functions validate the options, which
then travel together as :class:`Options` down the stages.
"""

from __future__ import annotations

from typing import NamedTuple

from skirm._errors import InvalidParameterError, UnknownMeasureError
from skirm._params import NONE, Interval, OneOf, Param
from skirm._trec_names import (
    MEASURES,
    ORDER,
    check_supported,
    parse_trec_name,
    trec_measure_names,
)
from skirm.metrics._evaluate import bind_input_wide
from skirm.metrics._names import parse_diversity_name
from skirm.metrics._registry import Metric, get_metric

#: The trec_eval version whose semantics :func:`skirm.trec.evaluate_run`
#: follows.
VERSIONS = ("10.0", "9.0")
COMPAT = Param(
    "compat",
    OneOf(*VERSIONS),
    expected="'10.0' (trec_eval 10.0, the default) or '9.0' (trec_eval 9.0.x, "
    "as pytrec_eval)",
    option="--compat",
)
#: trec_eval ``-l``: the least relevant level.
RELEVANCE_LEVEL = Param(
    "relevance_level",
    Interval(int, 1, closed="left", text="an integer >= 1"),
    option="-l",
)
#: trec_eval ``-M``: the documents evaluated per query.
MAX_DOCS = Param("max_docs", Interval(int, 1, closed="left"), NONE, option="-M")
#: trec_eval ``-N``: the number of documents in the collection.
COLLECTION_SIZE = Param("collection_size", Interval(int, 0, closed="left"), option="-N")


class Options(NamedTuple):
    """The checked options of an evaluation, as the stages read them."""

    level: int  # -l: the least relevant level
    judged_only: bool  # -J
    max_docs: int | None  # -M
    all_queries: bool  # -c
    compat: str  # "10.0" or "9.0"
    num_docs: int = 0  # -N: the collection size, for utility


def parse_measures(metrics, compat="10.0", *, diversity=False):
    """``[(output name, kind, request or Metric, parameter)]`` in print order.

    ``kind`` is ``"trec"``, ``"skirm"`` or (where ``diversity`` allows them)
    ``"diversity"``, whose request is the measure string."""
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise InvalidParameterError(
            "`metrics` must name at least one measure, got none"
        )
    trec, other, parsed_requests = {}, [], []
    for metric in metrics:
        requests = parse_trec_name(metric, compat) if isinstance(metric, str) else None
        if requests is None:
            try:
                parsed = get_metric(metric)
            except ValueError:
                if is_diversity_name(metric):
                    if not diversity:
                        raise InvalidParameterError(
                            f"{metric!r} is a diversity measure, which needs "
                            "subtopic judgments: evaluate it with "
                            "skirm.trec.evaluate_run or evaluate_diversity"
                        ) from None
                    other.append((metric, "diversity", metric))
                    continue
                raise UnknownMeasureError(
                    f"unknown measure {metric!r}; valid trec_eval names: "
                    f"{', '.join(trec_measure_names())}; or a skirm metric name "
                    "(see skirm.metrics.metric_names()); or a diversity "
                    "measure (see skirm.trec.evaluate_diversity)"
                ) from None
            label = metric if isinstance(metric, str) else parsed.name
            other.append((label, "skirm", parsed))
            continue
        parsed_requests.append(requests)
    # As in trec_eval, parameters given for a measure (P.5, relstring.20)
    # replace its default parameters, also those a nickname asks for.
    explicit = {
        r.base
        for rs in parsed_requests
        for r in rs
        if r.text is not None and not r.label
    }
    for requests in parsed_requests:
        nickname = len(requests) > 1
        for request in requests:
            if MEASURES[request.base].unsupported:
                if nickname:
                    continue
                check_supported(request)
            if request.text is None and request.base in explicit:
                continue
            for name, param in request.outputs():
                trec.setdefault(name, (request.base, param))
    ordered = sorted(
        trec.items(),
        key=lambda item: (ORDER[item[1][0]], _param_key(item[1][1])),
    )
    out = [(name, "trec", base, param) for name, (base, param) in ordered]
    seen = set(trec)
    for label, kind, parsed in other:
        if label in seen:
            raise InvalidParameterError(f"`metrics` names {label!r} twice")
        seen.add(label)
        out.append((label, kind, parsed, None))
    return out


def is_diversity_name(name):
    """Whether ``name`` is a diversity measure (ndeval's or ir_measures'
    spelling); a known diversity name with bad options raises its error."""
    if not isinstance(name, str):
        return False
    try:
        parse_diversity_name(name)
    except ValueError as exc:
        if str(exc).startswith("unknown diversity measure"):
            return False
        raise
    return True


def _param_key(param):
    if isinstance(param, (int, float)):
        return (0, param)
    return (1, str(param))


def bind_qrels_wide(outputs, max_label):
    """The outputs with the skirm metrics' defaults that are taken over all
    the labels (ERR's ``max_grade``) bound to the qrels' largest label
    (``max_label()``), so that no block or partition of the run changes
    them."""
    skirm = {name: what for name, kind, what, _ in outputs if kind == "skirm"}
    if not skirm:
        return outputs
    bound = bind_input_wide(skirm, max_label)
    return [(n, k, bound.get(n, w), p) for n, k, w, p in outputs]
