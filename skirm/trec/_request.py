"""Request: the measures asked for and the options, checked once.

:func:`parse_measures` turns measure names (trec_eval's, with parameters and
nicknames, skirm's, or the diversity measures') into the outputs to print,
in trec_eval's order; the ``check_*`` functions validate the options, which
then travel together as :class:`Options` down the stages.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

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

#: The trec_eval versions whose semantics :func:`skirm.trec.evaluate_run`
#: follows.
COMPAT = ("10.0", "9.0")


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
        raise ValueError("`metrics` must name at least one measure, got none")
    trec, other, parsed_requests = {}, [], []
    for metric in metrics:
        requests = parse_trec_name(metric, compat) if isinstance(metric, str) else None
        if requests is None:
            try:
                parsed = get_metric(metric)
            except ValueError:
                if is_diversity_name(metric):
                    if not diversity:
                        raise ValueError(
                            f"{metric!r} is a diversity measure, which needs "
                            "subtopic judgments: evaluate it with "
                            "skirm.trec.evaluate_run or evaluate_diversity"
                        ) from None
                    other.append((metric, "diversity", metric))
                    continue
                raise ValueError(
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
            raise ValueError(f"`metrics` names {label!r} twice")
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


def check_max_docs(max_docs):
    if max_docs is None:
        return
    if isinstance(max_docs, bool) or not isinstance(max_docs, numbers.Integral):
        raise TypeError(
            f"`max_docs` must be a positive integer or None, got {max_docs!r}"
        )
    if max_docs < 1:
        raise ValueError(
            f"`max_docs` must be a positive integer or None, got {max_docs}"
        )


def check_level(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`relevance_level` must be an integer >= 1, got {value!r}")
    return int(value)


def check_compat(compat):
    if compat not in COMPAT:
        raise ValueError(
            "`compat` must be '10.0' (trec_eval 10.0, the default) or '9.0' "
            f"(trec_eval 9.0.x, as pytrec_eval), got {compat!r}"
        )
    return compat


def check_collection_size(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"`collection_size` must be a non-negative integer, got {value!r}"
        )
    if value < 0:
        raise ValueError(
            f"`collection_size` must be a non-negative integer, got {value}"
        )
    return int(value)


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
