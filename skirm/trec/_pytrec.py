"""A drop-in for pytrec_eval's ``RelevanceEvaluator``, on skirm's engine."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from itertools import compress
from operator import not_
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from skirm._errors import InvalidParameterError, NoCommonQueryError
from skirm._measures._grammar import parse_trec
from skirm._measures._names import PYTREC_EVAL_NAMES, PYTREC_EVAL_NICKNAMES
from skirm._measures._rows import QRELS
from skirm._measures._table import NUM_Q, NUM_REL, UTILITY
from skirm._measures._unknown import unknown_measure
from skirm.io._convert import convert_qrels, convert_run
from skirm.io._dict_rows import NOT_PLAIN, DictIndex, plain_dicts, plain_qrels
from skirm.trec._dicts import dict_context
from skirm.trec._evaluate_run import evaluate_request
from skirm.trec._measures import GM_FLOOR, measure
from skirm.trec._request import (
    RELEVANCE_LEVEL,
    Options,
    Output,
    Request,
    bind_qrels_wide,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from skirm.io._input_types import QrelsLike, RunLike

__all__ = ["RelevanceEvaluator", "supported_measures", "supported_nicknames"]


# pytrec_eval's measures and nicknames (trec_eval 9.0.x), from the measure
# table: the drop-in answers to pytrec_eval's names whatever else skirm's
# TREC path adds.
class _Measures(frozenset):
    """The base names of the measures pytrec_eval knows, as
    ``pytrec_eval.supported_measures``: a frozenset, the same as
    ``RelevanceEvaluator.supported_measures``.

    Examples
    --------
    >>> from skirm.trec import supported_measures
    >>> "ndcg_cut" in supported_measures, "ndcg_cut_10" in supported_measures
    (True, False)
    """

    __slots__ = ()


class _Nicknames(Mapping):
    """The nicknames pytrec_eval computes (``official``, ``set``,
    ``all_trec``) and the measures each stands for, as
    ``pytrec_eval.supported_nicknames``: a read-only mapping of str to
    frozenset, the same as ``RelevanceEvaluator.supported_nicknames``.

    Examples
    --------
    >>> from skirm.trec import supported_nicknames
    >>> sorted(supported_nicknames)
    ['all_trec', 'official', 'set']
    >>> "map" in supported_nicknames["official"]
    True
    """

    __slots__ = ("_names",)

    def __init__(self, names: Mapping) -> None:
        self._names = MappingProxyType(dict(names))

    def __getitem__(self, nickname):
        return self._names[nickname]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return repr(dict(self._names))


_MEASURES = _Measures(PYTREC_EVAL_NAMES)
_NICKNAMES = _Nicknames(
    {nick: frozenset(names) for nick, names in PYTREC_EVAL_NICKNAMES.items()}
)
# Longest first, so that "ndcg_cut_10" is ndcg_cut with 10, not ndcg.
_BASES = sorted(_MEASURES, key=len, reverse=True)


class _Output(NamedTuple):
    """One value pytrec_eval returns: the output computed, and its key in
    pytrec_eval's dict (the base name alone for coefficient measures)."""

    output: Output
    key: str


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator``, computed by skirm.

    Switch with one import line: ``from skirm.trec import RelevanceEvaluator``
    in place of ``from pytrec_eval import RelevanceEvaluator``. The measure
    names and nicknames, the arguments and the output dict are pytrec_eval's,
    and so are the numbers: trec_eval 9.0.x semantics, scores compared as C
    floats (float32) as pytrec_eval does, ties broken by docno descending.

    Parameters
    ----------
    query_relevance : dict of dicts, or any shape :func:`skirm.io.as_qrels` takes
        ``{qid: {docid: relevance}}`` with integer relevance levels.
    measures : iterable of str, or str
        pytrec_eval measure names (``supported_measures``), nicknames
        (``supported_nicknames``: ``official``, ``set``, ``all_trec``)
        and parameterised names (``P.5,10``, ``P_5``, ``ndcg_cut.10``,
        ``iprec_at_recall.0.25``, ``set_F.0.5``). As in pytrec_eval, a
        measure asked for with parameters is computed only at those: ``P``
        and ``P_5`` give ``P_5`` alone. A single string is one measure.
    relevance_level : int, default=1
        A document is relevant when its level is at least this (trec_eval
        ``-l``).
    judged_docs_only_flag : bool, default=False
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Attributes
    ----------
    supported_measures : frozenset of str
        The base names pytrec_eval knows (its ``pytrec_eval.supported_measures``).
    supported_nicknames : mapping of str to frozenset of str
        The nicknames and the measures each stands for (read-only).

    See Also
    --------
    skirm.trec.evaluate_run : The full TREC evaluation (means, ``-M``, ``-c``,
        skirm metric names, every input shape) with an
        :class:`~skirm.metrics.EvaluationResult`.

    Notes
    -----
    As in pytrec_eval: queries are evaluated when they are in the run and
    have judgements; a query of the run with no documents gets the values
    of an empty ranking (0 for most measures); ``gm_map`` and ``gm_bpref``
    are per-query logarithms (``log(max(AP, 1e-5))``), whose mean is the log
    of the geometric mean; ``runid`` and ``relstring`` are 0.0 (pytrec_eval
    cannot return strings). Unlike pytrec_eval, an unknown or malformed
    name raises a ValueError naming it, and ids may also be integers. The
    interpolated precision of a query that ``judged_docs_only_flag`` leaves
    without documents (NaN in pytrec_eval, 0 / 0) is what
    :func:`~skirm.trec.evaluate_run` gives for it; so is that of a query the
    run names with no document (0 at every ``iprec_at_recall`` level and
    in ``11pt_avg``, where pytrec_eval gives NaN at times).

    Examples
    --------
    >>> from skirm.trec import RelevanceEvaluator
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d7": 1}}
    >>> run = {"q1": {"d1": 0.5, "d2": 0.5, "d9": 0.9}, "q2": {"d8": 1.0}}
    >>> evaluator = RelevanceEvaluator(qrels, {"map", "P.1,3"})
    >>> values = evaluator.evaluate(run)
    >>> values["q1"]
    {'map': 0.1666..., 'P_1': 0.0, 'P_3': 0.3333...}
    >>> values["q2"]
    {'map': 0.0, 'P_1': 0.0, 'P_3': 0.0}

    The unjudged ``d9`` ranks first, and the tie between ``d1`` and ``d2``
    goes to ``d2`` (docno descending), so the relevant ``d1`` is third;
    ``d3`` was not retrieved but counts in R: AP = (1/3) / 2.
    """

    supported_measures = _MEASURES
    supported_nicknames = _NICKNAMES

    def __init__(
        self,
        query_relevance: QrelsLike,
        measures: str | Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        # Plain dicts with checked labels are kept as dicts (:mod:`._dicts`),
        # and read as Qrels only if a run needs the general path; any other
        # shape is read (and checked) now.
        self._dicts, self._max_label, labels = plain_qrels(query_relevance)
        if self._dicts is None:
            self._qrels_read = convert_qrels(query_relevance, "query_relevance")
            self._judged = np.unique(self._qrels_read.query_ids)
        else:
            # indexed once: every run evaluated is joined to this index
            self._index = DictIndex(self._dicts, labels, many_runs=True)
            self._judged = self._index.ids  # sorted
        self._level = RELEVANCE_LEVEL(relevance_level)
        if not isinstance(judged_docs_only_flag, (bool, np.bool_, int)):
            raise InvalidParameterError(
                "`judged_docs_only_flag` must be a bool, got "
                f"{type(judged_docs_only_flag).__name__}"
            )
        self._judged_only = bool(judged_docs_only_flag)
        self._outputs = _parse_measures(measures)
        self._request = Request(
            [o.output for o in self._outputs if not _is_text(o.output)]
        )
        # trec_eval 9.0.x, as pytrec_eval (scores compared as C floats)
        self._options = Options(self._level, self._judged_only, None, False, "9.0")

    @property
    def _qrels(self):
        """The qrels as :class:`~skirm.io.Qrels`, read when first needed."""
        if self.__dict__.get("_qrels_read") is None:
            self._qrels_read = convert_qrels(self._dicts, "query_relevance")
        return self._qrels_read

    def __repr__(self) -> str:
        return (
            f"RelevanceEvaluator(n_measures={len(self._outputs)}, "
            f"relevance_level={self._level}, "
            f"judged_docs_only_flag={self._judged_only})"
        )

    def evaluate(self, scores: RunLike) -> dict[str, dict[str, float]]:
        """Evaluate a run: ``{qid: {measure: value}}``, as pytrec_eval.

        Parameters
        ----------
        scores : dict of dicts, or any shape :func:`skirm.io.as_run` takes
            ``{qid: {docid: score}}``.

        Returns
        -------
        values : dict of dict
            For each query of the run that has judgements, each measure's
            value (a float). Empty when no query of the run is judged.
        """
        fast = self._evaluate_dicts(scores) if self._dicts is not None else NOT_PLAIN
        if isinstance(fast, dict):
            out = fast
        else:
            run = convert_run(scores, "scores")
            out = self._evaluate(run) if len(run) else {}
        empty = _empty_queries(scores, self._judged, plain=isinstance(fast, dict))
        if empty.shape[0]:
            out.update(self._nothing_retrieved(empty))
        return out

    def _evaluate(self, run):
        """The values of the run's judged queries (``{}`` if none is)."""
        if not self._request.outputs:  # only runid / relstring: nothing to compute
            queries = np.unique(run.query_ids)
            return _as_dict(queries[np.isin(queries, self._judged)], {}, self._outputs)
        try:
            result = evaluate_request(
                self._qrels, run, self._request, self._options,
                rel_format=QRELS, zscores=None, verbose=0,
            )  # fmt: skip
        except NoCommonQueryError:
            return {}  # no query of the run is judged: pytrec_eval gives {}
        return _as_dict(result.group_ids, result.per_query, self._outputs)

    def _evaluate_dicts(self, run):
        """The values of a dict run's judged queries, the dicts joined as
        they are; :data:`~skirm.trec._dicts.NOT_PLAIN` for any other run."""
        if not self._request.outputs:
            return NOT_PLAIN
        ctx = dict_context(self._index, run, self._options)
        if ctx is None or ctx is NOT_PLAIN:
            return {} if ctx is None else ctx
        outputs = bind_qrels_wide(self._request.outputs, lambda: self._max_label)
        per_query = measure(ctx, outputs)
        return _as_dict(ctx.ranking.group_ids, per_query, self._outputs)

    def _nothing_retrieved(self, queries):
        """The values of queries whose ranking is empty (all from the qrels)."""
        q = self._qrels
        codes = np.searchsorted(queries, q.query_ids)
        inside = (codes < queries.shape[0]) & (
            queries[np.minimum(codes, queries.shape[0] - 1)] == q.query_ids
        )
        relevant = inside & (q.labels >= self._level)
        R = np.bincount(codes[relevant], minlength=queries.shape[0]).astype(float)
        per_query = {}
        for output, _ in self._outputs:
            if output.measure is NUM_Q:
                values = np.ones_like(R)
            elif output.measure is NUM_REL:
                values = R
            elif output.measure is UTILITY:  # no document retrieved: c = R, d = -R
                values = (output.param[2] - output.param[3]) * R
            else:  # gm_map and gm_bpref too: _as_dict takes the log
                values = np.zeros_like(R)
            per_query[output.name] = values
        return _as_dict(queries, per_query, self._outputs)


def _split(name):
    """``(base, parameter text)`` of a pytrec_eval name, or None. After
    ``_`` the parameters are numbers (``P_5``, ``ndcg_cut_10``), as
    pytrec_eval reads them: ``ndcg_cut10`` is no measure, not ``ndcg`` with
    the parameters ``cut10``."""
    if name in _MEASURES:
        return name, None
    for base in _BASES:
        if (
            name.startswith(base)
            and len(name) > len(base) + 1
            and name[len(base)] in "._"
        ):
            text = name[len(base) + 1 :]
            if name[len(base)] == "_" and not (text[0].isdigit() or text[0] in "+-."):
                continue
            return base, text
    return None


def _parse_measures(measures):
    """The :class:`_Output` of every value pytrec_eval returns, in print order.

    pytrec_eval's rules: nicknames expand; a base asked for with parameters
    is computed at the union of them only, without its default parameters.
    """
    if isinstance(measures, str):
        measures = [measures]
    try:
        names = list(measures)
    except TypeError:
        raise InvalidParameterError(
            "`measures` must be an iterable of measure names, got "
            f"{type(measures).__name__}"
        ) from None
    if not names:
        raise InvalidParameterError(
            "`measures` must name at least one measure, got none"
        )
    texts = {}  # base -> parameter texts, in request order
    for name in names:
        if not isinstance(name, str):
            raise InvalidParameterError(f"`measures` must hold strings, got {name!r}")
        expanded = _NICKNAMES.get(name, (name,))
        for item in sorted(expanded):
            split = _split(item)
            if split is None:
                raise unknown_measure(item, "pytrec_eval")
            base, text = split
            params = texts.setdefault(base, [])
            if text is not None and text not in params:
                params.append(text)
    outputs = {}
    for base, params in texts.items():
        for text in params or [None]:
            (parsed,) = parse_trec(base if text is None else f"{base}.{text}")
            if _is_text(parsed):  # computed by nobody: pytrec_eval's 0.0
                output = Output(base, parsed.measure, spelling=parsed.spelling)
                outputs.setdefault(base, _Output(output, base))
                continue
            for name, param in parsed.outputs():
                output = Output(
                    name, parsed.measure, spelling=parsed.spelling, param=param
                )
                outputs.setdefault(name, _Output(output, _key(output, params)))
    return sorted(outputs.values(), key=_print_order)


def _is_text(output):
    """runid and relstring: pytrec_eval cannot return strings (0.0)."""
    return output.measure.kind == "text"


def _print_order(item):
    """trec_eval's print order: by measure, then by parameter."""
    param = item.output.param
    number = param if isinstance(param, (int, float)) else 0
    return item.output.spelling.order, number


def _key(output, params):
    """pytrec_eval's output name: the base alone for coefficient measures."""
    spelling = output.spelling
    if spelling.params in ("floats", "pairs"):
        if len(params) > 1:
            raise InvalidParameterError(
                f"measure {spelling.name!r} takes one set of parameters, got "
                f"{', '.join(f'{spelling.name}.{p}' for p in params)}"
            )
        return spelling.name
    return output.name


def _empty_queries(scores, judged, plain=False):
    """Judged queries the run names with no document (dict runs only);
    ``plain``: ``scores`` is known to be plain dicts."""
    if not isinstance(scores, Mapping):
        return np.zeros(0, dtype=str)
    if plain or plain_dicts(scores):  # every value a dict: the empty ones, in C
        empty = list(compress(scores, map(not_, scores.values())))
    else:
        empty = [
            q for q, docs in scores.items() if hasattr(docs, "__len__") and not docs
        ]
    if not empty:
        return np.zeros(0, dtype=str)
    empty = np.unique(np.asarray(empty).astype(str))
    return empty[np.isin(empty, judged)]


def _as_dict(queries, per_query, outputs):
    columns, keys = [], []
    n = len(queries)
    for output, key in outputs:
        if _is_text(output):
            values = np.zeros(n)
        else:
            values = np.asarray(per_query[output.name], dtype=np.float64)
            if output.spelling.summary == "gm":  # gm_map, gm_bpref
                values = np.log(np.maximum(values, GM_FLOOR))
        columns.append(values.tolist())
        keys.append(key)
    queries = np.asarray(queries).tolist()
    return dict(zip(queries, map(_dict_of(tuple(keys)), *columns), strict=True))


@functools.lru_cache(maxsize=64)
def _dict_of(keys):
    """A function of ``len(keys)`` values that returns the dict of ``keys``
    to them: a dict display (``{k0: v0, k1: v1}``), which builds a query's
    dict at once, where ``dict(zip(keys, values))`` adds its pairs one by
    one (measured: 50,000 dicts of 5 measures, 18 against 26-31 ms). The
    keys are names in the display's namespace, never its source; a key
    given twice keeps its last value, as in ``dict(zip(keys, values))``."""
    values = ", ".join(f"v{i}" for i in range(len(keys)))
    pairs = ", ".join(f"k{i}: v{i}" for i in range(len(keys)))
    namespace = {f"k{i}": key for i, key in enumerate(keys)}
    return eval(f"lambda {values}: {{{pairs}}}", namespace)


# As pytrec_eval's module names them (documented by their classes' docstrings).
supported_measures = _MEASURES
supported_nicknames = _NICKNAMES
