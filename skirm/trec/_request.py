"""Request: the measures asked for and the options, checked once.

:func:`parse_measures` reads the measure names once (trec_eval's, with
parameters and nicknames, skirm's, or the diversity measures') into a
:class:`Request`: the :class:`Output` objects to print, in trec_eval's
order, and the diversity measures. The options are declared rules
(:data:`RELEVANCE_LEVEL`, ...), checked at the door, and travel together as
:class:`Options` down the stages.
"""

from __future__ import annotations

from typing import NamedTuple

from skirm._errors import InvalidParameterError, UnknownMeasureError
from skirm._measures._grammar import (
    parse_diversity,
    parse_metric,
    parse_trec,
)
from skirm._measures._unknown import unknown_measure
from skirm._params import NONE, Interval, OneOf, Param
from skirm.metrics._registry import Metric, metric_of

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
    # Tied scores: by docno descending (trec_eval's rule), "docno_ascending"
    # or, "input", in the order the run gave the rows (the orders of
    # ir_measures' providers, Reference.order).
    ties: str = "docno"
    # How scores are read: "float32" (C floats, as trec_eval 9.0.x holds
    # them), "float64", or None for the version's (compat).
    score_type: str | None = None

    @property
    def c_floats(self) -> bool:
        """Whether scores are compared as C floats."""
        if self.score_type is not None:
            return self.score_type == "float32"
        return self.compat == "9.0"

    def variant(self, settings) -> Options:
        """These options with a variant's (``{option: value}``: the relevance
        level, ``judged_only``, the tie rule, the score type) applied."""
        return self._replace(**{k: v for k, v in settings.items() if k != "gains"})

    def keywords(self) -> dict:
        """The options as :func:`skirm.trec.evaluate_run`'s keyword
        arguments (those a display's ``run_params`` takes)."""
        return {
            "relevance_level": self.level,
            "judged_only": self.judged_only,
            "max_docs": self.max_docs,
            "all_queries": self.all_queries,
            "compat": self.compat,
        }


class Output:
    """One measure a TREC evaluation prints: its printed name, the table's
    measure, and how it is computed.

    A trec_eval measure has its :class:`~skirm._measures._rows.Trec`
    spelling and its parameter (a cutoff, coefficients, gains); a skirm
    metric named on the TREC path (``ndcg@10``, ``err@20``) its bound
    :class:`~skirm.metrics.Metric`, computed on trec_eval's ranking.
    """

    __slots__ = (
        "measure",
        "metric",
        "name",
        "param",
        "reference",
        "spelling",
        "variant",
    )

    def __init__(
        self,
        name,
        measure,
        *,
        spelling=None,
        param=None,
        metric=None,
        variant=(),
        reference=None,
    ):
        self.name, self.measure, self.spelling = name, measure, spelling
        self.param, self.metric = param, metric
        # What the name's options change in the evaluation (ir_measures'
        # rel=, judged_only=, gains=; the drop-in's tie rule and score type),
        # as sorted pairs; () for nothing.
        self.variant = tuple(sorted(variant))
        # The ir_measures provider that computes it, for an ir_measures name.
        self.reference = reference

    @property
    def summary(self) -> str:
        """How the queries are summarised: trec_eval's rule, or the mean."""
        return self.spelling.summary if self.spelling is not None else "mean"

    def bound(self, metric):
        """The same output computed by another bound ``metric``."""
        return self.replace(metric=metric)

    def replace(self, **changes):
        """The same output with some of its attributes changed."""
        kwargs = {name: getattr(self, name) for name in self.__slots__}
        kwargs.update(changes)
        return Output(kwargs.pop("name"), kwargs.pop("measure"), **kwargs)

    def __repr__(self):
        return f"Output({self.name!r})"


class Request:
    """The measures of one evaluation, parsed once: the outputs in print
    order (trec_eval's measures, then skirm's metrics), and the diversity
    measures (:class:`~skirm._measures._grammar.DiversityName`), computed
    apart from subtopic judgments."""

    __slots__ = ("diversity", "outputs")

    def __init__(self, outputs, diversity=()):
        self.outputs, self.diversity = tuple(outputs), tuple(diversity)

    @property
    def labels(self) -> list:
        """The names of every output and diversity measure, as printed."""
        return [o.name for o in self.outputs] + [d.text for d in self.diversity]

    def plain(self) -> Request:
        """The request without its diversity measures."""
        return Request(self.outputs)

    def plain_variant(self) -> Request:
        """The request with its outputs' variants applied (their options
        then given to the evaluation as a whole)."""
        return Request(o.replace(variant=()) for o in self.outputs)

    def variants(self) -> dict:
        """``{variant: Request}``: the outputs grouped by what their options
        change in the evaluation (``()`` first: the call's own options)."""
        groups: dict = {(): []}
        for output in self.outputs:
            groups.setdefault(output.variant, []).append(output)
        return {key: Request(outputs) for key, outputs in groups.items() if outputs}

    def __repr__(self):
        return f"Request({self.labels})"


def parse_measures(metrics, compat="10.0", *, diversity=False, door="trec") -> Request:
    """The :class:`Request` of measure names (trec_eval's, with parameters
    and nicknames; skirm's; and where ``diversity`` allows them, the
    diversity measures'), its outputs in trec_eval's print order; an
    unknown name is told as ``door`` (``"trec"``, ``"ir_measures"``) reads
    names."""
    if isinstance(metrics, Request):
        return metrics
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise InvalidParameterError(
            "`metrics` must name at least one measure, got none"
        )
    skirm, diverse, parsed_names = [], [], []
    for metric in metrics:
        names = parse_trec(metric, compat) if isinstance(metric, str) else None
        if names is not None:
            parsed_names.append(names)
            continue
        divers = parse_diversity(metric)
        if divers is not None:
            if not diversity:
                raise InvalidParameterError(
                    f"{metric!r} is a diversity measure, which needs subtopic "
                    "judgments: evaluate it with skirm.trec.evaluate_run or "
                    "evaluate_diversity"
                )
            diverse.append(divers)
            continue
        variant, reference = (), None
        if isinstance(metric, str):
            named = parse_metric(metric, door=door)
            parsed, variant = metric_of(named), named.variant
            reference = named.reference
        elif isinstance(metric, Metric):
            parsed = metric
        else:
            raise unknown_measure(metric, door)
        label = metric if isinstance(metric, str) else parsed.name
        skirm.append(
            Output(
                label,
                parsed.spec.measure,
                metric=parsed,
                variant=variant,
                reference=reference,
            )
        )
    # As in trec_eval, parameters given for a measure (P.5, relstring.20)
    # replace its default parameters, also those a nickname asks for.
    explicit = {
        n.spelling.name
        for names in parsed_names
        for n in names
        if n.text is not None and not n.label
    }
    trec: dict[str, Output] = {}
    for names in parsed_names:
        nickname = len(names) > 1
        for name in names:
            if name.spelling.unsupported:
                if nickname:
                    continue
                raise UnknownMeasureError(
                    f"trec_eval measure {name.spelling.name!r} is not supported: "
                    f"{name.spelling.unsupported}"
                )
            if name.text is None and name.spelling.name in explicit:
                continue
            for printed, param in name.outputs():
                trec.setdefault(
                    printed,
                    Output(
                        printed,
                        name.measure,
                        spelling=name.spelling,
                        param=param,
                        variant=name.variant,
                        reference=name.reference,
                    ),
                )
    outputs = sorted(trec.values(), key=lambda o: (o.spelling.order, _param_key(o)))
    seen = set(trec)
    labels = [o.name for o in skirm] + [d.text for d in diverse]
    for label in labels:
        if label in seen:
            raise InvalidParameterError(f"`metrics` names {label!r} twice")
        seen.add(label)
    return Request([*outputs, *skirm], diverse)


def _param_key(output):
    param = output.param
    if isinstance(param, (int, float)):
        return (0, param)
    return (1, str(param))


def bind_qrels_wide(outputs, max_label):
    """The outputs with the skirm metrics' defaults that are taken over all
    the labels (ERR's ``max_grade``) bound to the qrels' largest label
    (``max_label()``), so that no block or partition of the run changes
    them."""
    skirm = {o.name: o.metric for o in outputs if o.metric is not None}
    if not skirm:
        return outputs
    # skirm's metrics only: trec_eval's measures need no metric evaluation
    from skirm.metrics._evaluate import bind_input_wide

    bound = bind_input_wide(skirm, max_label)
    return tuple(
        o if o.metric is None or bound[o.name] is o.metric else o.bound(bound[o.name])
        for o in outputs
    )
