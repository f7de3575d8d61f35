"""A drop-in for ir_measures: its functions, its numbers, ties included.

A translator: the names are read by the measure table's grammars, where
ir_measures' spellings and aliases are rows, each naming the provider
ir_measures' default pipeline computes it with (``IrName.provider``); the
inputs are read as ir_measures reads them (:mod:`._ir_inputs`); then one
evaluation (:func:`~skirm.trec._evaluate_run.evaluate_request`, trec_eval 9's
conventions, pytrec_eval's) ranks the run's own scores once per tie order
and score type in use, each measure's provider's
(``Reference.order``, ``Reference.score_type``), and the results are
reported as that provider reports them (its queries, its summary).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

from skirm._errors import EmptyRunError, NoCommonQueryError
from skirm._measures import _table as table
from skirm._measures._table import IR_ACCURACY
from skirm._measures._unknown import UnknownMeasureError, unknown_measure
from skirm._measures._vocabulary import IR_CWL_EVAL, IR_GDEVAL
from skirm.io import Run
from skirm.io._sources import is_path
from skirm.io._text import SplitChecked, SplitsOtherwise
from skirm.metrics._cwl import CWL_DEPTH
from skirm.trec._evaluate_run import evaluate_request
from skirm.trec._ir_inputs import (
    floats_tie_more,
    ir_graded,
    ir_name_of,
    ir_query_codes,
    ir_readings,
    ir_subtopics,
    missing_queries,
    read_ir_qrels,
    read_ir_run,
)
from skirm.trec._request import Options, Request, parse_measures

__all__ = ["CalcResults", "Evaluator", "QueryValue", "calc", "calc_aggregate",
           "evaluator", "iter_calc"]  # fmt: skip


class QueryValue(NamedTuple):
    """One measure's value for one query: ir_measures' ``Metric`` record
    (not :class:`skirm.metrics.Metric`, a measure of the metrics table).

    Attributes
    ----------
    query_id : str
        The query.
    measure : str
        The measure, as it was asked for.
    value : float
        Its value for the query.

    Examples
    --------
    >>> from skirm.trec import iter_calc
    >>> record = next(iter_calc(["P@1"], {"q1": {"d1": 1}}, {"q1": {"d1": 2.0}}))
    >>> record
    QueryValue(query_id='q1', measure='P@1', value=1.0)
    >>> record.value
    1.0
    """

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """The summaries and the per-query records, as ir_measures' ``calc``.

    Attributes
    ----------
    aggregated : dict
        Each measure's summary over the queries: ``{measure: value}``.
    per_query : list of QueryValue
        Each query's value of each measure.

    Examples
    --------
    >>> from skirm.trec import calc
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    >>> run = {"q1": {"d1": 1.0}, "q2": {"d3": 1.0}}
    >>> aggregated, per_query = calc(["P@1"], qrels, run)
    >>> aggregated
    {'P@1': 0.5}
    >>> [(m.query_id, m.value) for m in per_query]
    [('q1', 1.0), ('q2', 0.0)]
    """

    aggregated: dict
    per_query: list


#: The tie rule of evaluate_run's options for each provider's order.
_TIES = {"trec_eval": "docno", "input": "input", "docno_ascending": "docno_ascending"}
#: pyndeval's nNRBP is NaN for a query without a relevant document.
_NNRBP = table.NNRBP.ir_measures[0].name
#: evaluate_run(..., compat="9.0")'s options (pytrec_eval's conventions).
_OPTIONS = Options(1, False, None, False, "9.0")
#: How unknown names are told: as ir_measures' names.
_DOOR = "ir_measures"
#: What the output telling the queries accuracy reports is named.
_GUARD = "accuracy reports: "
#: A cutoff in an ir_measures name (``@k`` or ``cutoff=k``).
_CUTOFF = re.compile(r"(@|cutoff=)(\d+)")


class _Asked(NamedTuple):
    """One measure as asked (``key``, the key of its results), its name as
    evaluated (``text``), the provider ir_measures computes it with
    (``reference``), whether that provider sums it over the queries, and
    its relevance level where its queries depend on it (accuracy's and
    nNRBP's)."""

    key: Any
    text: str
    reference: Any
    sums: bool
    rel: Any
    diversity: bool


def _text(measure: Any) -> str:
    return (measure if isinstance(measure, str) else ir_name_of(measure)).strip()


def _to_depth(text: str) -> str:
    """A C/W/L cutoff as cwl_eval reads it: every ranking to its first
    :data:`CWL_DEPTH` documents, where a cutoff past them stops no user
    (a continuation reads its cutoff only as ``rank < k``), so the values
    are those of the cutoff at the depth."""
    return _CUTOFF.sub(lambda m: m[1] + str(min(int(m[2]), CWL_DEPTH)), text)


def _read(texts: list) -> tuple:
    """The request of ``texts`` and its outputs and diversity measures by
    name."""
    try:
        request = parse_measures(texts, "9.0", diversity=True, door=_DOOR)
    except UnknownMeasureError as error:
        raise type(error)(f"`measures`: {error}") from None
    found = {o.name: o for o in request.outputs}
    return request, found | {d.text: d for d in request.diversity}


def _parse(measures: list) -> tuple:
    """``(asked, request)``: each measure (:class:`_Asked`) and the
    :class:`~skirm.trec._request.Request` of them all, read once by the
    measure table's grammars (ir_measures' spellings and aliases are rows
    of the table); a C/W/L cutoff past cwl_eval's depth read at the depth."""
    texts = [_text(m) for m in measures]
    request, found = _read(texts)
    deep = [
        _to_depth(t) if getattr(found.get(t), "reference", None) is IR_CWL_EVAL else t
        for t in texts
    ]
    if deep != texts:
        texts = deep
        request, found = _read(texts)
    asked = []
    for measure, text in zip(measures, texts, strict=True):
        named = found.get(text)
        if named is None or named.reference is None:
            error = unknown_measure(text, _DOOR)
            raise type(error)(f"`measures`: {error}")
        diversity = named in request.diversity
        if diversity:
            sums, rel = False, named.options.get("rel", 1)
        else:
            sums = any(t.summary in ("sum", "count") for t in named.measure.trec)
            rel = _rel(named)
        reference = named.reference
        if _exponential(named):
            reference = IR_GDEVAL  # pytrec_eval has only dcg='log2'
        asked.append(_Asked(measure, text, reference, sums, rel, diversity))
    return asked, request


def _exponential(output) -> bool:
    """Whether ``output`` is nDCG with exponential gains (``dcg='exp-log2'``,
    gdeval's nDCG)."""
    metric = getattr(output, "metric", None)
    return (
        getattr(output, "measure", None) is table.NDCG
        and metric is not None
        and metric.params.get("gain") == "exponential"
    )


def _rel(output) -> Any:
    """The relevance level an output's name gives (1 by default)."""
    for key, value in output.variant:
        if key == "level":
            return value
    if output.metric is not None:
        level = output.metric.params.get("relevance_threshold")
        if level is not None:
            return int(level) if float(level).is_integer() else level
    return 1


def _guard(asked: _Asked, output) -> str:
    """The measure telling whether a relevant document is above the cutoff
    of accuracy's ``output``: the queries accuracy reports."""
    k = output.metric.k if output.metric is not None else None
    if k is None:
        return f"NumRet(rel={asked.rel})"
    return f"Success(rel={asked.rel})@{k}"


def _ranked_by(output, reference, as_floats):
    """``output`` with its provider's tie rule and score type as the
    options of its evaluation (C floats only where they order the run
    otherwise than doubles: ``as_floats``)."""
    score_type = reference.score_type
    if score_type == "float32" and not as_floats:
        score_type = "float64"
    variant = (*output.variant, ("ties", _TIES[reference.order]))
    return output.replace(variant=(*variant, ("score_type", score_type)))


class Evaluator:
    """Measures and qrels, to evaluate runs with, as ir_measures'
    ``evaluator(measures, qrels)``.

    Parameters
    ----------
    measures : iterable of ir_measures measures or str
        ir_measures ``Measure`` objects (``nDCG@10``) or their names
        (``"nDCG@10"``, ``"RBP(rel=1)"``); results are keyed by them.
    qrels : dict, DataFrame, iterable or path
        Judgments in any shape ir_measures takes.

    Examples
    --------
    >>> from skirm.trec import evaluator
    >>> ev = evaluator(["P@1", "RBP(rel=1)"], {"q1": {"d1": 1, "d2": 0}})
    >>> res = ev.calc_aggregate({"q1": {"d1": 0.5, "d2": 0.5}})
    >>> {name: round(value, 3) for name, value in res.items()}
    {'P@1': 0.0, 'RBP(rel=1)': 0.2}
    """

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        if isinstance(measures, str) or not isinstance(measures, Iterable):
            measures = [measures]
        self.requests, self._request = _parse(list(dict.fromkeys(measures)))
        self._judgments = read_ir_qrels(qrels)
        self.qrels = ir_graded(self._judgments)
        self._subtopics = None
        if self._request.diversity:
            self._subtopics = ir_subtopics(self._judgments, self.qrels)
        self._ids = self.qrels._query_codes()[1]  # sorted, as np.unique
        # each reading of a judgment given twice that a measure's provider
        # asks for (one, "last", unless the judgments hold such a document)
        plain = [r for r in self.requests if not r.diversity]
        asked = {r.reference.judgments for r in plain}
        read = ir_readings(self._judgments, asked, self.qrels)
        self._readings = {r.text: "last" for r in self.requests}
        self._readings |= {r.text: read[r.reference.judgments] for r in plain}
        self._graded = {"last": self.qrels}
        # a run file is streamed by the pipeline, as evaluate_run streams it,
        # where nothing but the evaluation reads it: no measure's provider
        # reads C floats where another of its tie order reads doubles, and
        # none names judgments apart from the run's documents (gdeval's)
        self._streams = not self._float_orders() and "positive" not in set(
            self._readings.values()
        )

    def _run(self, run: Any) -> Run | Any:
        """The run as the evaluation reads it: a regular file's path as it
        is, streamed and checked as it is read (:class:`~skirm.io._text.
        SplitChecked`), where the evaluation alone reads it; else
        :func:`read_ir_run`'s records."""
        checked = self._streams and is_path(run) and SplitChecked.of(run)
        return checked or self._read(run)

    def _read(self, run: Any) -> Run | Any:
        read = read_ir_run(run)
        if self._request.diversity and read is not run:  # the repeats checked
            from skirm.trec._ndeval_report import no_repeat  # loaded to evaluate

            no_repeat(read)
        return read

    def query_ids(self) -> list[str]:
        """The queries with a judgment."""
        return self._ids.tolist()

    def _evaluated(self, run: Run) -> dict:
        """``{reading: (ids, per_query)}``: every measure evaluated once on
        the run, each ranked as its provider ranks it (its tie order and
        score type, :class:`~skirm._measures._rows.Reference`), against the
        judgments as it reads a document judged twice (one evaluation per
        reading in use: one unless such a document differs by reading)."""
        # C floats order the run as doubles do unless two scores of a query
        # differ only beyond a float's precision: then a ranking of its own
        # (asked only where a ranking of doubles has the same tie order: a
        # ranking of floats alone orders the run as doubles do or better)
        as_floats = not self._float_orders() or floats_tie_more(run)
        by_text = {o.name: o for o in self._request.outputs}
        outputs: dict[str, list] = {}
        for r in self.requests:
            if r.diversity:
                continue
            output = _ranked_by(by_text[r.text], r.reference, as_floats)
            outputs.setdefault(self._readings[r.text], []).append(output)
        guards: dict[str, list] = {}
        for r in self.requests:
            if r.reference is IR_ACCURACY:
                guard = _guard(r, by_text[r.text])
                guards.setdefault(self._readings[r.text], []).append(guard)
        for reading, names in guards.items():
            parsed = parse_measures(list(dict.fromkeys(names)), "9.0")
            outputs[reading] += [
                _ranked_by(o.replace(name=_GUARD + o.name), IR_ACCURACY, False)
                for o in parsed.outputs
            ]
        variants = [o.variant for these in outputs.values() for o in these]
        diversity = self._request.diversity
        options = _OPTIONS
        if diversity:
            options = options._replace(ties=_TIES[diversity[0].reference.order])
            outputs.setdefault("last", [])
        ranks = {(v["ties"], v["score_type"]) for v in map(dict, variants)}
        if diversity:
            ranks.add((options.ties, "float64"))
        if isinstance(run, Run) and sum(t != "input" for t, _ in ranks) > 1:
            run._tokens()[1].order_key()  # ties by docno: ranked once, for all
        evaluated: dict[str, tuple[np.ndarray, dict]] = {}
        for reading, these in outputs.items():
            subtopics = self._subtopics if reading == "last" else None
            try:
                result = evaluate_request(
                    self._graded_as(reading, run),
                    run,
                    Request(these, diversity if reading == "last" else []),
                    options,
                    rel_format="qrels",
                    zscores=None,
                    verbose=0,
                    subtopics=subtopics,
                )
            except (NoCommonQueryError, EmptyRunError):  # every qrels query is 0
                evaluated[reading] = np.empty(0, dtype=str), {}
            else:
                ids = np.asarray(result.group_ids).astype(str)
                evaluated[reading] = ids, result.per_query
        return evaluated

    def _graded_as(self, reading: str, run: Run):
        """The judgments read as ``reading`` says (:func:`ir_graded`): kept
        across runs, but for gdeval's extra rows, named apart from the
        run's documents."""
        if reading == "positive":  # the run's docnos as it holds them
            docs = run._d if run._doc_ids is None else run._doc_ids
            return ir_graded(self._judgments, reading, docs)
        if reading not in self._graded:
            self._graded[reading] = ir_graded(self._judgments, reading)
        return self._graded[reading]

    def _float_orders(self) -> bool:
        """Whether a tie order ranks both C floats and doubles here (some
        measure's provider reads floats, another's of its tie order doubles):
        only then can reading floats as doubles spare a ranking."""
        orders: dict = {}
        for r in self.requests:
            if not r.diversity:
                orders.setdefault(r.reference.order, set()).add(r.reference.score_type)
        if self.requests and any(r.reference is IR_ACCURACY for r in self.requests):
            orders.setdefault(IR_ACCURACY.order, set()).add(IR_ACCURACY.score_type)
        return any(len(types) > 1 for types in orders.values())

    def _columns(self, run: Any) -> Iterator[tuple[_Asked, np.ndarray, np.ndarray]]:
        """Each measure's queries and values, as its provider reports them."""
        try:
            evaluated = self._evaluated(run) if is_path(run) or len(run) else {}
        except SplitsOtherwise:  # a byte str.split() may split at: read whole
            run = self._read(os.fspath(run))
            evaluated = self._evaluated(run) if len(run) else {}
        none: tuple[np.ndarray, dict] = np.empty(0, dtype=str), {}
        # ir_measures reports 0 for the qrels queries a provider left out;
        # its accuracy provider does not, unless another provider's measure
        # is in the same request (then the pipeline's own filling does).
        fill_accuracy = any(r.reference is not IR_ACCURACY for r in self.requests)
        outputs = {o.name: o for o in self._request.outputs}
        for request in self.requests:
            ids, per_query = evaluated.get(self._readings[request.text], none)
            values = np.asarray(per_query.get(request.text, ()), dtype=np.float64)
            these = ids
            if request.reference is IR_ACCURACY and ids.shape[0]:
                guard = _guard(request, outputs[request.text])
                keep = per_query[_GUARD + guard] > 0
                these, values = ids[keep], values[keep]
            nan_for = self._no_relevant(request)
            if nan_for.shape[0]:
                values = np.where(np.isin(these, nan_for), np.nan, values)
            if request.reference is not IR_ACCURACY or fill_accuracy:
                missing = missing_queries(self._ids, these)
                these = np.concatenate([these, missing])
                values = np.concatenate([values, np.zeros(missing.shape[0])])
            yield request, these, values

    def _no_relevant(self, request: _Asked) -> np.ndarray:
        """The queries pyndeval gives nNRBP as NaN: no judgment at its
        relevance level (0 over 0)."""
        if not (request.diversity and request.text.startswith(_NNRBP)):
            return np.empty(0, dtype=str)
        jg = self._subtopics
        if jg is None:  # pragma: no cover - read for every diversity measure
            return np.empty(0, dtype=str)
        codes, ids = ir_query_codes(self._judgments)  # jg's rows, in order
        relevant = np.zeros(ids.shape[0], dtype=bool)
        relevant[codes[jg.labels >= float(request.rel)]] = True
        return ids[~relevant]

    def iter_calc(self, run: Any) -> Iterator[QueryValue]:
        """Yield each query's value of each measure (:class:`QueryValue` records).

        Parameters
        ----------
        run : dict, DataFrame, iterable or path
            A run in any shape ir_measures takes (see :func:`iter_calc`).
        """
        for request, ids, values in self._columns(self._run(run)):
            for qid, value in zip(ids.tolist(), values.tolist(), strict=True):
                yield QueryValue(qid, request.key, value)

    def calc_aggregate(self, run: Any) -> dict:
        """Each measure's summary over the queries: ``{measure: value}``.

        Parameters
        ----------
        run : dict, DataFrame, iterable or path
            A run in any shape ir_measures takes (see :func:`iter_calc`).
        """
        aggregated = {}
        for request, _, values in self._columns(self._run(run)):
            aggregated[request.key] = _summary(request, values)
        return {r.key: aggregated[r.key] for r in self.requests}

    def calc(self, run: Any) -> CalcResults:
        """The summaries and the per-query records.

        Parameters
        ----------
        run : dict, DataFrame, iterable or path
            A run in any shape ir_measures takes (see :func:`iter_calc`).
        """
        aggregated, records = {}, []
        for request, ids, values in self._columns(self._run(run)):
            aggregated[request.key] = _summary(request, values)
            records += [
                QueryValue(q, request.key, v)
                for q, v in zip(ids.tolist(), values.tolist(), strict=True)
            ]
        return CalcResults({r.key: aggregated[r.key] for r in self.requests}, records)


def _summary(request: _Asked, values: np.ndarray) -> float:
    """ir_measures' aggregation: a sum for the counts, else the mean (NaN if none)."""
    if request.sums:
        return float(values.sum())
    return float(values.mean()) if values.shape[0] else float("nan")


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """An :class:`Evaluator` of these measures against these qrels, as
    ir_measures' ``evaluator``: give it several runs.

    Parameters
    ----------
    measures : iterable of ir_measures measures or str
        ``Measure`` objects or ir_measures names.
    qrels : dict, DataFrame, iterable or path
        Judgments in any shape ir_measures takes.

    Returns
    -------
    evaluator : Evaluator
        With ``calc_aggregate(run)``, ``iter_calc(run)`` and ``calc(run)``.

    Examples
    --------
    >>> from skirm.trec import evaluator
    >>> ev = evaluator(["Compat(p=0.8)"], {"q1": {"d1": 1, "d2": 0}})
    >>> ev.calc_aggregate({"q1": {"d1": 0.5, "d2": 0.5}})
    {'Compat(p=0.8)': 1.0}
    """
    return Evaluator(measures, qrels)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[QueryValue]:
    """Each query's value of each measure, as ``ir_measures.iter_calc``.

    Every measure is computed as ir_measures' default pipeline computes it:
    with the order its provider gives tied documents (pytrec_eval and
    gdeval: docno descending; cwl_eval and accuracy: the order the run gave
    them; compat, pyndeval, judged and MS MARCO: docno ascending) and that
    provider's queries (0 for a qrels query the run lacks; accuracy leaves
    out a query without a relevant document above its cutoff).

    Parameters
    ----------
    measures : iterable of ir_measures measures or str
        ``Measure`` objects (``ir_measures.nDCG@10``) or ir_measures names
        (``"nDCG@10"``, ``"RBP(rel=1)"``, ``"alpha_nDCG@20"``).
    qrels : dict, DataFrame, iterable or path
        ``{qid: {docid: rel}}``, a DataFrame with ``query_id``, ``doc_id``,
        ``relevance`` (and ``iteration``: the subtopic), ``Qrel``
        namedtuples, an ir_datasets dataset or a TREC qrels file.
    run : dict, DataFrame, iterable or path
        ``{qid: {docid: score}}``, a DataFrame with ``query_id``,
        ``doc_id``, ``score``, ``ScoredDoc`` namedtuples or a TREC run
        file, in the order its ties are to keep where the provider keeps
        it.

    Yields
    ------
    metric : QueryValue
        ``(query_id, measure, value)``; ``measure`` is the one asked.

    Examples
    --------
    >>> from skirm.trec import iter_calc
    >>> qrels = {"q1": {"d1": 1, "d2": 0}}
    >>> run = {"q1": {"d1": 0.5, "d2": 0.5}}
    >>> [round(m.value, 3) for m in iter_calc(["INST(T=1.0,max_rel=1)"], qrels, run)]
    [0.608]
    """
    return Evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict:
    """Each measure's summary, as ``ir_measures.calc_aggregate``.

    The mean over the queries :func:`iter_calc` reports (a sum for
    ``NumQ``, ``NumRet``, ``NumRel`` and ``NumRelRet``).

    Parameters
    ----------
    measures : iterable of ir_measures measures or str
        ``Measure`` objects or ir_measures names; the keys of the result.
    qrels : dict, DataFrame, iterable or path
        Judgments in any shape ir_measures takes.
    run : dict, DataFrame, iterable or path
        A run in any shape ir_measures takes.

    Returns
    -------
    results : dict
        ``{measure: value}``.

    Examples
    --------
    >>> from skirm.trec import calc_aggregate
    >>> res = calc_aggregate(["RBP(p=0.8,rel=1)"], {"q1": {"d1": 1, "d2": 0}},
    ...                      {"q1": {"d1": 0.5, "d2": 0.5}})
    >>> round(res["RBP(p=0.8,rel=1)"], 3)
    0.2
    """
    return Evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
    """The summaries and the per-query records, as ``ir_measures.calc``.

    Parameters
    ----------
    measures : iterable of ir_measures measures or str
        ``Measure`` objects or ir_measures names.
    qrels : dict, DataFrame, iterable or path
        Judgments in any shape ir_measures takes.
    run : dict, DataFrame, iterable or path
        A run in any shape ir_measures takes.

    Returns
    -------
    results : CalcResults
        ``aggregated`` (as :func:`calc_aggregate`) and ``per_query`` (the
        records of :func:`iter_calc`).

    Examples
    --------
    >>> from skirm.trec import calc
    >>> res = calc(["P@1"], {"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d2": 1.0}})
    >>> res.aggregated, res.per_query[0].value
    ({'P@1': 1.0}, 1.0)
    """
    return Evaluator(measures, qrels).calc(run)
