"""What every metric shares: its registry record, the mean over queries, and
the text of the common parameters in the docstrings."""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import numpy as np

from skirm._engine import Ranking, check_input, rank
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._frames import column_names, frame_column, is_frame
from skirm._measures._options import OPTIONS
from skirm._measures._table import DEFAULT_METRICS
from skirm._params import BOOLEAN, NO_RELEVANT, K, Param, as_python
from skirm._validation import type_name

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from skirm._measures._rows import Measure

    #: A function, its signature kept through a decorator.
    F = TypeVar("F", bound=Callable[..., Any])

# --------------------------------------------------------------------------
# The registry record
# --------------------------------------------------------------------------

#: scikit-learn's ``ignore_ties`` of ``ndcg_score`` and ``dcg_score``: an
#: order of the rows, so a ranking option, not a metric's.
IGNORE_TIES = Param("ignore_ties", BOOLEAN)


class MetricSpec:
    """A measure of the table (:mod:`skirm._measures`) bound to what computes
    it on arrays: its kernel and its public function.

    ``kernel(ranking, k, **options)`` returns ``(values, empty)``: one value
    per query and a boolean mask of the queries without any relevant row (or
    with an ideal score of zero), to which ``no_relevant`` applies. A kernel
    whose mean weights the queries by the data (impressions, clicks, pairs:
    the ``weights`` option of the measures of impression logs) returns
    ``(values, empty, weights)``, the weights shaped as the values (None for
    a plain mean); a query it leaves out (``one_class="skip"``) holds NaN.
    The measure's name, aliases, kind, cutoff, bounds, definition and
    options are the table's.
    """

    __slots__ = ("function", "kernel", "measure")

    def __init__(
        self, measure: Measure, kernel: Callable, function: Callable | None = None
    ) -> None:
        self.measure, self.kernel, self.function = measure, kernel, function

    name = property(lambda self: self.measure.name)
    aliases = property(lambda self: self.measure.aliases)
    names = property(lambda self: self.measure.skirm)
    kind = property(lambda self: self.measure.kind)
    takes_k = property(lambda self: self.measure.takes_k)
    bounded = property(lambda self: self.measure.bounded)
    definition = property(lambda self: self.measure.definition)
    #: The options and their defaults.
    params = property(lambda self: self.measure.options)

    def __repr__(self):
        return f"MetricSpec({self.name!r})"

    def check_params(self, params: dict) -> dict:
        """Validate metric-specific options; fill in the defaults."""
        unknown = set(params) - set(self.params)
        if unknown:
            hint = (
                "; `ignore_ties` orders the rows, it is not an option of the "
                "measure: pass ties='first' (input order among tied scores) "
                "to the metric or the scorer, or call ndcg_score or dcg_score "
                "with ignore_ties=True"
                if IGNORE_TIES.name in unknown
                else ""
            )
            raise InvalidParameterError(
                f"{self.name} got unexpected option(s) {sorted(unknown)}; it takes "
                f"{sorted(self.params) or 'no options'}{hint}"
            )
        out = dict(self.params)
        for key, value in params.items():
            out[key] = OPTIONS[key](value)
        return out

    def values(self, ranking: Ranking, k, params: dict):
        """Per-query values and the empty-query mask (params already checked)."""
        return self.weighted_values(ranking, k, params)[:2]

    def weighted_values(self, ranking: Ranking, k, params: dict):
        """``(values, empty, weights)``: :meth:`values` and the query weights
        of the measure's own mean (None for a plain mean)."""
        if self.takes_k:
            out = self.kernel(ranking, k, **params)
        else:
            out = self.kernel(ranking, **params)
        return out if len(out) == 3 else (*out, None)


def check_directions(metrics):
    """Refuse a metric with no better direction (best in between, as PCOC's
    1): scikit-learn's searches maximise a score."""
    for metric in metrics.values():
        if metric.spec.measure.better is None:
            raise InvalidParameterError(
                f"{metric.name!r} is best at a value in between (PCOC: 1), not "
                "higher nor lower, so it cannot be a score to maximise; score "
                "calibration with 'ne' or 'ece' (negated, as scikit-learn's "
                "neg_log_loss), and report pcoc with skirm.metrics.evaluate"
            )


def refuse_average_ties(ranking: Ranking, what: str, why: str, first="input order"):
    """ValueError for ``ties="average"`` on tied scores, for a measure whose
    mean over the orderings of tied rows has no closed form (``why``)."""
    if ranking.ties == "average" and ranking.has_ties:
        raise InvalidParameterError(
            f"ties='average' is not available for {what} on tied scores: {why}, "
            "so the mean over the orderings of tied rows has no closed form; "
            f"pass ties='first' ({first}), 'optimistic' or 'pessimistic'"
        )


def mean_over_queries(
    values, empty, ranking: Ranking, no_relevant, name: str, weights=None
):
    """Apply the ``no_relevant`` policy and average over queries.

    ``weights`` are the measure's own query weights (see :class:`MetricSpec`),
    multiplied by the ranking's query weights. Returns ``(mean,
    per_query)``; queries left out (``no_relevant="skip"``, or the measure's
    own ``one_class="skip"``) hold NaN in ``per_query``.
    """
    per_query = apply_no_relevant(values, empty, ranking.group_ids, no_relevant, name)
    skipped = np.isnan(per_query)
    keep = None
    if skipped.any():
        keep = ~skipped
        if not keep.any() and not (no_relevant == "skip" and empty.all()):
            raise nothing_defined(name)
    own = weights is not None
    weights = query_weights(ranking.group_weights, weights)
    mean = average(per_query, weights, name, keep, own=own, plain=ranking.group_weights)
    return mean, per_query


def nothing_defined(name: str) -> InvalidInputError:
    """The error of a measure whose value no query defines."""
    return InvalidInputError(
        f"{name}: no query has a defined value (one_class='skip' leaves out the "
        "queries whose value is undefined: a single class of labels, no click), "
        "so there is nothing to average; pass one_class=<a number in [0, 1]> to "
        "score them"
    )


def query_weights(group_weights, weights):
    """The weights of a mean over queries: the queries' own (``sample_weight``)
    times a measure's (impressions, clicks, ...); None when neither is."""
    if weights is None:
        return group_weights
    if group_weights is None:
        return weights
    return (
        group_weights * weights
        if weights.ndim == 1
        else group_weights[:, None] * weights
    )


def apply_no_relevant(values, empty, group_ids, no_relevant, name: str, copy=True):
    """Per-query values (a new array, or ``values`` itself with
    ``copy=False``) with the ``no_relevant`` policy applied to the ``empty``
    queries: NaN for ``"skip"``. The queries are the last axis of
    ``values`` (one line per metric of a batch)."""
    per_query = np.asarray(values, dtype=np.float64)
    if copy:
        per_query = per_query.copy()
    if empty.any():
        if no_relevant == "raise":
            bad = as_python(group_ids[int(np.argmax(empty))])
            raise InvalidInputError(
                f"{name}: query {bad!r} has no relevant row (no_relevant='raise'); "
                "pass no_relevant=0.0, 1.0 or 'skip' to score such queries"
            )
        per_query[..., empty] = np.nan if no_relevant == "skip" else no_relevant
    return per_query


def average(
    per_query, weights, name: str, keep=None, *, own=False, plain=None
) -> float:
    """The (weighted) mean of the per-query values selected by ``keep``.

    The one place means are taken, so that :func:`mean_over_queries` and
    :meth:`EvaluationResult.concat` give the same number for the same values.
    """
    kept = per_query if keep is None else per_query[keep]
    if kept.shape[0] == 0:
        raise InvalidInputError(
            f"{name}: every query has no relevant row, so with "
            "no_relevant='skip' there is nothing to average"
        )
    if weights is None:
        return float(np.mean(kept))
    w = weights if keep is None else weights[keep]
    total = w.sum()
    if total <= 0 and own:
        # No scored query carries weight in the measure's own mean (psP@k's
        # micro mean where no query has a relevant row): the plain mean.
        # ``plain``: the queries' own weights (``sample_weight``) alone.
        return average(per_query, plain, name, keep)
    if total <= 0:
        raise InvalidInputError(
            f"{name}: the query weights (`sample_weight`) of the scored queries sum "
            "to zero"
        )
    return float(np.dot(w, kept) / total)


def score(
    spec: MetricSpec,
    y_true,
    y_score,
    *,
    groups,
    k,
    sample_weight,
    ties,
    no_relevant,
    unjudged="raise",
    ignore_ties=False,
    propensity=None,
    **params,
) -> float:
    """Validate, rank once, compute one metric, average: a metric function's body."""
    k = K(k) if spec.takes_k else None
    no_relevant = NO_RELEVANT(no_relevant)
    params = spec.check_params(params)
    ranking = rank(
        check_input(
            y_true,
            y_score,
            groups=groups,
            sample_weight=sample_weight,
            ties=ties,
            ignore_ties=IGNORE_TIES(ignore_ties),
            unjudged=unjudged,
            propensity=propensity,
        )
    )
    values, empty, weights = spec.weighted_values(ranking, k, params)
    return mean_over_queries(values, empty, ranking, no_relevant, spec.name, weights)[0]


def _is_table(obj):
    """A pandas, polars or pyarrow frame (any object with ``columns`` that
    is not an array)."""
    if is_frame(obj):
        return True
    return hasattr(obj, "columns") and not isinstance(obj, np.ndarray)


def _table_columns(frame):
    if is_frame(frame):
        return column_names(frame)
    return list(frame.columns)


def _table_column(frame, name):
    return frame_column(frame, name) if is_frame(frame) else frame[name]


def _is_metric(obj):
    """A metric name or a :class:`~skirm.metrics.Metric` (by its ``spec``)."""
    return isinstance(obj, str) or hasattr(obj, "spec")


def _is_metrics(obj):
    """Metric names (or metrics), not data."""
    if _is_metric(obj):
        return True
    return isinstance(obj, (list, tuple)) and all(map(_is_metric, obj))


def frame_arguments(
    first,
    second,
    groups,
    sample_weight,
    metrics,
    given,
    door,
    *,
    propensity=None,
    is_table=_is_table,
    columns_of=_table_columns,
    column=_table_column,
):
    """``(y_true, y_score, groups, sample_weight, metrics, propensity)`` of a
    call of ``door``: its two positional arguments, ``y_true`` and
    ``y_score`` given by keyword (``given``), its other keywords.

    A frame passed first with ``y_true=`` naming a column is the frame
    form: ``y_true``, ``y_score``, ``groups``, ``sample_weight`` and
    ``propensity`` are column names, and the second positional argument, if
    any, the metrics (``metrics`` None: a door without metrics, which takes
    none there). Otherwise the arrays come positionally or by keyword, not
    both.
    """
    if is_table(first) and "y_true" in given and not isinstance(given["y_true"], str):
        raise InvalidParameterError(
            "`y_true` must name a column of the frame passed first (its columns: "
            f"{columns_of(first)}), got {type_name(given['y_true'])}"
        )
    if is_table(first) and "y_true" in given:
        if second is not None:
            if metrics is None:
                raise InvalidParameterError(
                    f"{door}() takes the frame alone positionally, got a second "
                    "argument; name its columns by keyword (y_true=, y_score=, "
                    "groups=)"
                )
            if metrics is not DEFAULT_METRICS:
                raise InvalidParameterError(
                    "`metrics` given twice: after the frame and as metrics=; "
                    "give it once"
                )
            metrics = second
        available = columns_of(first)
        named = {
            "y_true": given["y_true"],
            "y_score": given.get("y_score"),
            "groups": groups,
            "sample_weight": sample_weight,
            "propensity": propensity,
        }
        if named["y_score"] is None:
            raise InvalidParameterError(
                "`y_score` must name the scores column of the frame passed "
                f"first (its columns: {available}), got none"
            )
        out = {}
        for name, col in named.items():
            if col is None:
                out[name] = None
                continue
            if not isinstance(col, str):
                raise InvalidParameterError(
                    f"`{name}` must name a column of the frame passed first "
                    f"(its columns: {available}), got {type_name(col)}"
                )
            if col not in available:
                raise InvalidParameterError(
                    f"`{name}` must name a column of the frame passed first, "
                    f"got {col!r}; its columns: {available}"
                )
            out[name] = column(first, col)
        return (*list(out.values())[:4], metrics, out["propensity"])
    for name, value in zip(("y_true", "y_score"), (first, second), strict=True):
        if name in given and value is not None:
            raise InvalidParameterError(
                f"`{name}` given twice: positionally and as {name}=; give it once"
            )
    y_true = given.get("y_true", first)
    y_score = given.get("y_score", second)
    if is_table(y_true) and _is_metrics(y_score):
        raise InvalidParameterError(
            "a frame passed first needs its columns named: y_true=<labels "
            "column>, y_score=<scores column>, groups=<query column> (its "
            f"columns: {columns_of(y_true)})"
        )
    for name, value in (
        ("y_true", y_true),
        ("y_score", y_score),
        ("groups", groups),
        ("propensity", propensity),
    ):
        if isinstance(value, str):
            raise InvalidParameterError(
                f"`{name}` is a column name ({value!r}): pass the frame that "
                f"holds it first, as in {door}(frame, {name}={value!r}, ...)"
            )
    if y_true is None:
        raise InvalidParameterError(
            "`y_true` must be given: the labels, or a frame passed first with "
            "its columns named (y_true=..., y_score=..., groups=...)"
        )
    return y_true, y_score, groups, sample_weight, metrics, propensity


def takes_frames(function: F) -> F:
    """A metric function that also takes a frame first, its columns named
    by keyword: ``ndcg_score(frame, y_true="rel", y_score="score",
    groups="qid")`` (see :func:`frame_arguments`). Calls without ``y_true``
    or ``y_score`` by keyword go straight through."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if ("y_true" not in kwargs and "y_score" not in kwargs) or len(args) > 2:
            return function(*args, **kwargs)
        given = {
            name: kwargs.pop(name) for name in ("y_true", "y_score") if name in kwargs
        }
        first, second = (*args, None, None)[:2]
        y_true, y_score, groups, weight, _, propensity = frame_arguments(
            first,
            second,
            kwargs.get("groups"),
            kwargs.get("sample_weight"),
            None,
            given,
            function.__name__,
            propensity=kwargs.get("propensity"),
        )
        for name, value in (
            ("groups", groups),
            ("sample_weight", weight),
            ("propensity", propensity),
        ):
            if name in kwargs:
                kwargs[name] = value
        return function(y_true, y_score, **kwargs)

    return wrapper  # type: ignore[return-value]


# --------------------------------------------------------------------------
# Docstring text shared by the metric functions
# --------------------------------------------------------------------------

COMMON_DOC = {
    "arrays": """\
y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
    Relevance labels: non-negative numbers (graded or binary), one per row.

y_score : array-like of the same shape as ``y_true``
    Scores; higher ranks first. ``+/-inf`` is allowed, NaN is not.

    Only the rows given count: a query's relevant documents that are
    not among its rows are not in R nor in the ideal ranking. For a
    run scored against qrels (trec_eval's numbers, where judged but
    unretrieved documents count), use :func:`skirm.trec.evaluate_run`.

    Or a frame (pandas, polars, pyarrow ``Table``) passed first, whose
    columns ``y_true``, ``y_score``, ``groups`` and ``sample_weight``
    name by keyword: ``f(frame, y_true="rel", y_score="score",
    groups="qid")``.""",
    "groups": """\
groups : array-like of shape (n_samples,), default=None
    The query of each row: any hashable labels (ints, strings, a pandas
    Series or Categorical), in any order. Required for 1-D input. Must be
    None for 2-D input, where each row of the matrices is one query.""",
    "k": """\
k : int, default=None
    Only the top ``k`` rows of each query count. ``None`` means all rows;
    ``k`` larger than a query is fine.""",
    "sample_weight": """\
sample_weight : array-like of shape (n_samples,), default=None
    Query weights given per row, constant within each query (for 2-D input,
    one weight per query row). The result is the weighted mean over
    queries.""",
    "propensity": """\
propensity : array-like of shape (n_samples,), default=None
    Each row's propensity: the probability that it was observed (its
    click could be logged), in (0, 1], as :func:`jain_propensity`,
    :func:`popularity_propensity` or :func:`position_propensity` give
    it, or a logging policy's. A relevant row counts ``1 /
    propensity`` times. ``None`` means every row was observed for sure.
    With a frame: the name of its column.""",
    "ties": """\
ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
    How rows with equal scores within a query are ordered. ``"average"``
    gives the exact expected value over all orderings of the tied rows;
    ``"first"`` keeps input order; ``"optimistic"`` / ``"pessimistic"``
    put higher labels first / last.""",
    "no_relevant": """\
no_relevant : float in [0, 1], "skip" or "raise", default=0.0
    The value of a query without any relevant row. ``0.0`` follows
    scikit-learn and trec_eval, ``1.0`` LightGBM and XGBoost; ``"skip"``
    leaves such queries out of the mean; ``"raise"`` raises ValueError.""",
    "unjudged": """\
unjudged : {"raise", "nonrelevant", "condensed"}, default="raise"
    What a NaN label (an unjudged row) means: an error, a non-relevant
    row (as trec_eval reads documents missing from the qrels), or a row
    dropped before ranking (condensed lists, trec_eval ``-J``). See
    :ref:`unjudged`.""",
    "relevance_threshold": """\
relevance_threshold : float, default=None
    A row is relevant when ``y_true >= relevance_threshold``; ``None``
    means ``y_true > 0``.""",
    "gain": """\
gain : {"linear", "exponential"}, default="linear"
    The gain of a label: the label itself (scikit-learn, trec_eval) or
    ``2 ** label - 1`` (LightGBM, XGBoost, Burges et al.).""",
    "cwl": """\
min_rel, max_rel : float, default=0.0 and None
    A label becomes a gain in [0, 1] as ``(clip(label, min_rel, max_rel)
    - min_rel) / (max_rel - min_rel)``, as cwl_eval reads qrels.
    ``max_rel=None`` means the largest label in ``y_true`` (all queries),
    so the value depends on the data passed; set it (e.g. 4 for 0-4
    labels) to compare runs.

depth : int, default=1000
    How far the user model reads every ranking (cwl_eval's 1,000):
    shorter rankings are padded with gain 0, longer ones cut.""",
    "cwl_ties": """\
ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
    How rows with equal scores within a query are ordered. ``"first"``
    keeps input order, as cwl_eval reads a run. The continuation of this
    measure depends on the gains read so far, so ``"average"`` has no
    closed form here: it is exact without ties and raises ValueError on
    tied scores.""",
    "returns": """\
Returns
-------
score : float
    The mean over queries (weighted by ``sample_weight`` if given).""",
}


#: A placeholder alone on its line, and the indentation it stands at.
_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.MULTILINE)


def fill_doc(function: F) -> F:
    """Substitute the shared parameter descriptions into a docstring.

    A placeholder ``%(name)s`` stands alone on its line; every line of the
    text it stands for is indented as the placeholder is. Python 3.13
    strips a docstring's indentation when it compiles it and earlier
    versions keep it, so the text must follow the docstring's indentation,
    whichever it is, for numpydoc (and ``help()``) to read each parameter.
    """
    doc = cast("str", function.__doc__)

    def indented(match: re.Match[str]) -> str:
        return textwrap.indent(COMMON_DOC[match.group(2)], match.group(1))

    function.__doc__ = _PLACEHOLDER.sub(indented, doc)
    return function
