"""The metric registry: every measure on arrays bound to its kernel.

The measures, their names in every grammar and their options are the
measure table's (:mod:`skirm._measures`); a family module of this package
binds each measure on arrays to its kernel and its public function (a
:class:`~skirm.metrics._spec.MetricSpec`). Here they are gathered (each
family module loaded on the first use of one of its measures), and a
name (``"ndcg@10"``, ``"ndcg_cut.10"``, ``"P(rel=2)@5"``) becomes a
:class:`Metric`: a record bound to a cutoff and options.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from skirm._errors import InvalidParameterError
from skirm._measures import _table as table
from skirm._measures._grammar import parse_metric
from skirm._measures._names import SKIRM_NAMES, metric_names as table_metric_names
from skirm._measures._table import MEASURES
from skirm._measures._unknown import unknown_measure
from skirm._params import describe
from skirm.metrics._spec import MetricSpec, mean_over_queries, score

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    from skirm._engine import Ranking
    from skirm._measures._grammar import Named
    from skirm._measures._rows import Measure
    from skirm._typing import FloatArray, NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels

#: The module of this package that binds each measure on arrays to its
#: kernel (its ``MetricSpec``). A family loads on the first use of one of its
#: measures: ``skirm eval -m all_trec`` loads the few families trec_eval's
#: measures are computed with, not C/W/L, accuracy, compatibility or ERR.
#: A test checks that the table names every ``MetricSpec`` of the package.
FAMILIES: dict[Measure, str] = {
    **dict.fromkeys((table.NDCG, table.DCG, table.CG), "_dcg"),
    **dict.fromkeys(
        (table.PRECISION, table.RECALL, table.CAPPED_RECALL, table.F1),
        "_counts",
    ),
    table.R_PRECISION: "_counts",
    **dict.fromkeys((table.HIT_RATE, table.MRR, table.MAP, table.RBP), "_positions"),
    table.ERR: "_err",
    table.JUDGED: "_judged",
    table.ACCURACY: "_accuracy",
    table.COMPATIBILITY: "_compat",
    **dict.fromkeys(
        (table.INST, table.INSQ, table.BPM, table.NERR8, table.NERR9),
        "_cwl_measures",
    ),
    **dict.fromkeys((table.NERR10, table.NERR11, table.SDCG), "_cwl_measures"),
    **dict.fromkeys((table.GAUC, table.FALLOUT, table.OPA, table.ARP), "_auc"),
    **dict.fromkeys((table.NE, table.PCOC, table.ECE), "_calibration"),
    **dict.fromkeys((table.PSP, table.PSNDCG), "_propensity"),
    **dict.fromkeys(
        (table.IPS_PRECISION, table.IPS_RECALL, table.IPS_DCG, table.IPS_RBP),
        "_propensity",
    ),
}

#: The records loaded so far: ``{measure: MetricSpec}``.
_RECORDS: dict[Measure, MetricSpec] = {}


def _load(module_name: str) -> None:
    """Import a family module and record every ``MetricSpec`` it defines."""
    module = importlib.import_module(f"{__package__}.{module_name}")
    for value in vars(module).values():
        if isinstance(value, MetricSpec):
            _RECORDS[value.measure] = value


def record(measure: Measure) -> MetricSpec:
    """The registry record of a measure on arrays, its family loaded first
    if it is not yet."""
    spec = _RECORDS.get(measure)
    if spec is None:
        _load(FAMILIES[measure])
        spec = _RECORDS[measure]
    return spec


def _specs() -> tuple[MetricSpec, ...]:
    """Every record, every family loaded, in the order of the measure table."""
    for module_name in dict.fromkeys(FAMILIES.values()):
        _load(module_name)
    return tuple(record(measure) for measure in MEASURES if measure in FAMILIES)


#: Every metric, in the order of the measure table (and the documentation);
#: built on first use (every family loaded), like the records by function.
SPECS: tuple[MetricSpec, ...]
_BY_FUNCTION: dict[Callable | None, MetricSpec] = {}


def __getattr__(name: str) -> Any:
    if name == "SPECS":
        globals()[name] = value = _specs()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _by_function() -> dict[Callable | None, MetricSpec]:
    if not _BY_FUNCTION:
        _BY_FUNCTION.update((spec.function, spec) for spec in _specs())
    return _BY_FUNCTION


#: Properties every ranking metric keeps, and the metrics that do not keep
#: one, with the reason: ``{property: {measure: why}}``. The
#: registry-driven invariant tests read this table; a metric added to
#: ``SPECS`` inherits every property it is not listed under.
_ADAPTIVE = (
    "its continuation depends on the gains already read, so its mean over "
    "the orderings of tied rows has no closed form: ValueError on tied scores"
)
_CWL_RATE = "C/W/L expected utility is a rate per item read, not normalised"
_CWL_CUT = (
    "its cutoff ends the user's reading: a query shorter than k is still read "
    "to k (padded with gain 0), not to cwl_eval's depth"
)

_PROBABILITY = (
    "it reads y_score as click probabilities in [0, 1], not only their order: "
    "a strictly increasing transform changes it, and scores outside [0, 1] "
    "(or infinite) are refused"
)
_OWN_UNDEFINED = (
    "no_relevant does not apply: a query whose value is undefined (one class "
    "of labels, no click) takes the metric's one_class option"
)
_CALIBRATION = "a calibration measure: it reads the scores' values, not the ordering"

NOT_HELD: dict[str, dict[Measure, str]] = {
    # A non-relevant row appended below every other row of its query.
    "low_nonrelevant_row": {
        table.PRECISION: "without k, the denominator is the number of rows",
        table.F1: "without k, its precision's denominator is the number of rows",
        table.ACCURACY: "without k, the row is one more correctly ordered pair",
        table.COMPATIBILITY: "the overlap is read to depth max(rows, R): one row "
        "more, one depth more",
        table.GAUC: "the row is one more correctly ordered pair per relevant row",
        table.OPA: "the row is one more correctly ordered pair per relevant row",
        table.NE: "the row's log loss joins the group's mean",
        table.PCOC: "the row's predicted probability joins the group's sum",
        table.ECE: "without k, the row joins the group's bins",
        table.IPS_PRECISION: "without k, the denominator is the number of rows",
    },
    # The same, at a cutoff within the query's old length.
    "low_nonrelevant_row_at_k": {
        table.FALLOUT: "the row is one more non-relevant row in the denominator",
    },
    # Ordering tied rows by label, higher first, gives the best value.
    "optimistic_is_best": {
        table.ACCURACY: "an AUC of the rows shown in the top k: showing one more "
        "relevant row below a non-relevant one can lower it",
    },
    # ties="average" on tied scores.
    "average_ties": dict.fromkeys(
        (table.INST, table.BPM, table.NERR8, table.NERR9, table.NERR10, table.NERR11),
        _ADAPTIVE,
    )
    | {
        table.COMPATIBILITY: "its ideal ranking follows the ranking's order within "
        "a grade: no closed form over tied orderings (ValueError on tied scores)"
    },
    # The ideal ranking of a query with relevant rows scores 1.
    "ideal_is_one": dict.fromkeys(
        (m for m in MEASURES if m in FAMILIES and m.reference is table.CWL_EVAL),
        _CWL_RATE,
    ),
    # A cutoff beyond every query equals no cutoff.
    "k_beyond_is_no_k": dict.fromkeys(
        (table.BPM, table.NERR8, table.NERR9, table.SDCG), _CWL_CUT
    ),
    # A strictly increasing transform of the scores changes nothing.
    "score_transform": dict.fromkeys((table.NE, table.PCOC, table.ECE), _PROBABILITY),
    # no_relevant sets the value of a query without relevant rows.
    "no_relevant": dict.fromkeys(
        (
            table.GAUC,
            table.FALLOUT,
            table.OPA,
            table.ARP,
            table.NE,
            table.PCOC,
            table.ECE,
        ),
        _OWN_UNDEFINED,
    ),
    # No ordering of a query scores better than the ideal one.
    "ideal_is_best": {table.ECE: _CALIBRATION},
}
NOT_HELD["ideal_is_one"].update(
    {
        table.ECE: _CALIBRATION,
        table.FALLOUT: "lower is better: the ideal ranking shows the fewest "
        "non-relevant rows in the top k, not none",
    }
)
_ACROSS_CUTOFF = (
    "which tied rows are shown when a tie straddles the cutoff changes its "
    "bins: no closed form (ValueError there, and only there: without a cutoff "
    "the order does not matter)"
)
NOT_HELD["average_ties"][table.ECE] = _ACROSS_CUTOFF
# Of those, the metrics that refuse ties="average" only where a tie block
# straddles the cutoff.
NOT_HELD["average_ties_across_cutoff"] = {table.ECE: _ACROSS_CUTOFF}


def not_held(property: str) -> dict[str, str]:
    """``{metric name: why}`` of the metrics that do not keep ``property``
    (a key of :data:`NOT_HELD`)."""
    return {measure.name: why for measure, why in NOT_HELD[property].items()}


def metric_names() -> list[str]:
    """All metric names and aliases the registry understands.

    Names of metrics that take a cutoff are listed bare (``"ndcg"``) and with
    the placeholder ``@k`` (``"ndcg@k"``).

    Returns
    -------
    names : list of str
        Sorted names.

    Examples
    --------
    >>> from skirm.metrics import metric_names
    >>> "ndcg@k" in metric_names(), "rprec" in metric_names()
    (True, True)
    """
    return table_metric_names()


def spec_for(metric) -> MetricSpec:
    """The registry record of a base name or a public metric function."""
    if callable(metric) and metric in _by_function():
        return _BY_FUNCTION[metric]
    if isinstance(metric, str) and metric.lower() in SKIRM_NAMES:
        return record(SKIRM_NAMES[metric.lower()])
    raise unknown_measure(metric)


class Metric:
    """A registered metric bound to a cutoff and options.

    Build one with :func:`get_metric`. Calling it computes the metric like
    the corresponding function, with the bound ``k`` and options.

    Attributes
    ----------
    name : str
        The display name, e.g. ``"ndcg@10"``.
    spec : MetricSpec
        The registry record.
    k : int or None
        The cutoff.
    params : dict
        Metric-specific options (``gain``, ``relevance_threshold``, ...).

    Examples
    --------
    >>> from skirm.metrics import get_metric
    >>> p5 = get_metric("p@5")
    >>> p5.name, p5.k
    ('precision@5', 5)
    >>> p5([1, 0, 1], [3, 2, 1], groups=[0, 0, 0])
    0.4
    """

    def __init__(
        self,
        spec: MetricSpec,
        k: int | None = None,
        params: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        self.spec = spec
        self.k = k
        self.params = spec.check_params(dict(params or {}))
        self._given = dict(params or {})
        self.name = name or (spec.name if k is None else f"{spec.name}@{k}")

    def __call__(
        self,
        y_true: Labels,
        y_score: ArrayLike | None,
        *,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        ties: Ties = "average",
        no_relevant: NoRelevant = 0.0,
        unjudged: Unjudged = "raise",
        propensity: ArrayLike | None = None,
    ) -> float:
        return score(
            self.spec,
            y_true,
            y_score,
            groups=groups,
            k=self.k,
            sample_weight=sample_weight,
            ties=ties,
            no_relevant=no_relevant,
            unjudged=unjudged,
            propensity=propensity,
            **self._given,
        )

    def values(self, ranking: Ranking) -> tuple[FloatArray, NDArray[np.bool_]]:
        """``(per-query values, empty-query mask)`` on an existing ranking.

        Parameters
        ----------
        ranking : Ranking
            The engine's ranking of the rows, as :meth:`RankedLists.ranking`
            returns it.
        """
        return self.spec.values(ranking, self.k, self.params)

    def per_query(
        self, ranking: Ranking, no_relevant: NoRelevant
    ) -> tuple[float, FloatArray]:
        """``(mean, per-query values)`` on an existing ranking.

        Parameters
        ----------
        ranking : Ranking
            The engine's ranking of the rows, as :meth:`RankedLists.ranking`
            returns it.
        no_relevant : float in [0, 1], "skip" or "raise"
            The value of a query without any relevant row (see
            :func:`evaluate`).
        """
        values, empty, weights = self.weighted_values(ranking)
        return mean_over_queries(
            values, empty, ranking, no_relevant, self.name, weights
        )

    def weighted_values(
        self, ranking: Ranking
    ) -> tuple[FloatArray, NDArray[np.bool_], FloatArray | None]:
        """``(per-query values, empty-query mask, query weights)`` on an
        existing ranking: the weights of the metric's own mean (impressions,
        clicks, ...), None for a plain mean.

        Parameters
        ----------
        ranking : Ranking
            The engine's ranking of the rows, as :meth:`RankedLists.ranking`
            returns it.
        """
        return self.spec.weighted_values(ranking, self.k, self.params)

    def __repr__(self):
        opts = "".join(f", {key}={value!r}" for key, value in self._given.items())
        return f"get_metric({self.name!r}{opts})"

    def __eq__(self, other):
        return (
            isinstance(other, Metric)
            and other.spec is self.spec
            and other.k == self.k
            and other.params == self.params
        )

    def __hash__(self):
        return hash((self.spec.name, self.k, tuple(sorted(self.params.items()))))

    def __reduce__(self):
        return _rebuild_metric, (self.name, self._given)


def _rebuild_metric(name, params):
    return get_metric(name, **params)


def metric_for(measure: Measure, **params: Any) -> Metric:
    """The metric of a measure of the table (a row on arrays), without a
    cutoff, with ``params`` bound."""
    return Metric(record(measure), None, params)


def get_metric(name: str | Metric, **params: Any) -> Metric:
    """Parse a metric name such as ``"ndcg@10"`` into a callable metric.

    Parameters
    ----------
    name : str or Metric
        A registered name or alias, optionally with ``@k`` (see
        :func:`metric_names`); a trec_eval name (``ndcg_cut.10``, ``P_5``,
        ``recip_rank``); or an ir_measures string (``nDCG@10``,
        ``P(rel=2)@5``, ``AP``, ``RBP(p=0.8)``). See :ref:`names`.
    **params
        Metric-specific options bound to the metric, e.g. ``gain``,
        ``relevance_threshold``, ``p``.

    Returns
    -------
    metric : Metric
        Callable as ``metric(y_true, y_score, groups=...)``.

    Raises
    ------
    UnknownMeasureError
        For an unknown or malformed name (the message suggests the close
        names and lists the valid ones).
    InvalidParameterError
        For a cutoff on a metric that takes none, or an option it does not
        take or a value its rule refuses (both are ``ValueError``).

    Examples
    --------
    >>> from skirm.metrics import get_metric
    >>> ndcg10 = get_metric("ndcg@10", gain="exponential")
    >>> ndcg10
    get_metric('ndcg@10', gain='exponential')
    >>> ndcg10([2, 0, 1], [0.3, 0.2, 0.1], groups=[0, 0, 0])
    0.9639...
    >>> get_metric("P@5").name
    'precision@5'

    trec_eval names and ir_measures strings parse to the same records:

    >>> get_metric("ndcg_cut.10") == get_metric("nDCG@10") == get_metric("ndcg@10")
    True
    >>> get_metric("P(rel=2)@5")
    get_metric('precision@5', relevance_threshold=2.0)
    """
    if isinstance(name, Metric):
        if not params:
            return name
        return Metric(name.spec, name.k, {**name._given, **params})
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"metric name must be a string, got {describe(name)}"
        )
    return metric_of(parse_metric(name), **params)


def metric_of(named: Named, **params: Any) -> Metric:
    """The :class:`Metric` of a parsed name, with ``params`` bound too."""
    for key, value in named.options.items():
        if key in params and params[key] != value:
            raise InvalidParameterError(
                f"option {key!r} is given twice: {value!r} by the name "
                f"{named.text!r} and {params[key]!r} as a keyword"
            )
    return Metric(record(named.measure), named.k, {**named.options, **params})
