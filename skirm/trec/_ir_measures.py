"""A drop-in for ir_measures: its functions, its numbers, ties included.

Each measure is computed as ir_measures' default pipeline computes it: by
the provider the measure table names for it (``IrName.provider``), which
gives tied documents that provider's order (``Reference.order``) and
reports that provider's queries. The run is ranked once per order in use,
from the order it was given, and evaluated by :func:`evaluate_run` with
trec_eval 9's conventions (pytrec_eval's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

from skirm._errors import InvalidParameterError, NoCommonQueryError
from skirm._measures import _table as table
from skirm._measures._grammar import parse_metric
from skirm._measures._names import IR_NAMES
from skirm._measures._rows import DIVERSITY
from skirm._measures._table import IR_ACCURACY
from skirm._measures._unknown import unknown_measure
from skirm._measures._vocabulary import IR_CWL_EVAL, IR_GDEVAL
from skirm.io import Qrels, QrelsJG, Run
from skirm.metrics._cwl import CWL_DEPTH
from skirm.trec._evaluate import evaluate_request
from skirm.trec._ir_inputs import IrQrels, IrRun, read_ir_qrels, read_ir_run
from skirm.trec._rank import c_floats
from skirm.trec._request import Options, parse_measures

__all__ = ["CalcResults", "Evaluator", "Metric", "calc", "calc_aggregate",
           "evaluator", "iter_calc"]  # fmt: skip


class Metric(NamedTuple):
    """One measure's value for one query, as ir_measures' ``Metric``.

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
    Metric(query_id='q1', measure='P@1', value=1.0)
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
    per_query : list of Metric
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


#: ir_measures' aliases (``MAP`` is ``AP``), to the name the table spells.
_ALIASES = {
    "MAP": table.MAP.ir_measures[0].name,
    "MRR": table.MRR.ir_measures[0].name,
    "NDCG": table.NDCG.ir_measures[0].name,
    "Precision": table.PRECISION.ir_measures[0].name,
    "Recall": table.RECALL.ir_measures[0].name,
    "RPrec": table.R_PRECISION.ir_measures[0].name,
}
#: ``SetP(relative=True)`` is trec_eval's ``set_relative_P``.
_SET_P = table.PRECISION.ir_measures[1].name
_SET_REL_P = table.SET_RELATIVE_P.ir_measures[0].name
#: pyndeval's nNRBP is NaN for a query without a relevant document.
_NNRBP = table.NNRBP.ir_measures[0].name
#: evaluate_run(..., compat="9.0")'s options (pytrec_eval's conventions), and
#: the same with tied rows kept in the order given.
_OPTIONS = Options(1, False, None, False, "9.0")
_IN_ORDER = _OPTIONS._replace(ties="input")
_NDCG = table.NDCG.ir_measures[0].name
_HEAD = re.compile(r"(?P<base>[^(@]+)(?:\((?P<opts>[^()]*)\))?(?P<rest>@.*)?$")


class _Request:
    """One measure as asked (the key of its results), its spelling for
    :func:`evaluate_run`, the provider ir_measures would use and how that
    provider summarises it."""

    __slots__ = ("cutoff", "diversity", "key", "name", "provider", "rel", "sums")

    def __init__(self, measure: Any) -> None:
        self.key = measure
        text = measure if isinstance(measure, str) else _name_of(measure)
        match = _HEAD.match(text.strip())
        if match is None:
            raise InvalidParameterError(
                f"`measures` must hold ir_measures measures or their names; "
                f"got {measure!r}."
            )
        base = str(match["base"])
        base = _ALIASES.get(base, base)
        opts = [o for o in (match["opts"] or "").split(",") if o]
        if base == _SET_P and "relative=True" in opts:
            base, opts = _SET_REL_P, [o for o in opts if o != "relative=True"]
        opts = [o for o in opts if o != "relative=False"]
        if base not in IR_NAMES:
            error = unknown_measure(text.strip(), "ir_measures")
            raise type(error)(f"`measures`: {error}")
        row, spelling = IR_NAMES[base]
        self.cutoff = match["rest"] is not None or any(
            o.startswith("cutoff=") for o in opts
        )
        self.provider = spelling.cutoff_provider if self.cutoff else spelling.provider
        if base == _NDCG and _exponential(base, opts):
            self.provider = IR_GDEVAL  # pytrec_eval has only dcg='log2'
        rest = match["rest"] or ""
        if self.provider is IR_CWL_EVAL:
            rest, opts = _read_to_depth(rest, opts)
        self.sums = any(t.summary in ("sum", "count") for t in row.trec)
        self.rel = next((o[4:] for o in opts if o.startswith("rel=")), "1")
        self.name = base + (f"({','.join(opts)})" if opts else "") + rest
        self.diversity = row.engine == DIVERSITY

    def accuracy_guard(self) -> str:
        """The measure telling whether a relevant document is above the
        cutoff: the queries accuracy reports."""
        cut = self.name[self.name.index("@") :] if "@" in self.name else None
        if cut is None:
            return f"NumRet(rel={self.rel})"
        return f"Success(rel={self.rel}){cut}"


def _name_of(measure: Any) -> str:
    """The name of an ir_measures ``Measure`` from its parameters, spelt as
    its ``repr`` but with every pair of a dict option (the repr leaves out
    the pairs whose grade is its gain: ``nDCG(gains={0:0,1:1,2:2})`` prints
    as ``nDCG(gains={})``)."""
    params = getattr(measure, "params", None)
    supported = getattr(measure, "SUPPORTED_PARAMS", None)
    if not isinstance(params, dict) or not isinstance(supported, dict):
        return str(measure)
    at = getattr(measure, "AT_PARAM", "cutoff")
    opts = []
    for key, value in params.items():
        info = supported.get(key)
        if key == at or (info is not None and value == info.default):
            continue
        if isinstance(value, dict):
            pairs = ",".join(f"{k}:{v}" for k, v in sorted(value.items()))
            opts.append(f"{key}={{{pairs}}}")
        else:
            opts.append(f"{key}={value!r}")
    name = getattr(measure, "__name__", None) or measure.NAME
    text = f"{name}({','.join(opts)})" if opts else str(name)
    return text + (f"@{params[at]}" if at in params else "")


def _read_to_depth(rest: str, opts: list[str]) -> tuple[str, list[str]]:
    """A C/W/L cutoff as cwl_eval reads it: every ranking to its first
    :data:`CWL_DEPTH` documents, where a cutoff past them stops no user
    (a continuation reads its cutoff only as ``rank < k``), so the values
    are those of the cutoff at the depth."""

    def within(text: str) -> str:
        return str(CWL_DEPTH) if text.isdigit() and int(text) > CWL_DEPTH else text

    if rest.startswith("@"):
        rest = "@" + within(rest[1:])
    opts = ["cutoff=" + within(o[7:]) if o.startswith("cutoff=") else o for o in opts]
    return rest, opts


def _exponential(base: str, opts: list[str]) -> bool:
    """Whether the options ask for exponential gains (``dcg='exp-log2'``,
    gdeval's nDCG), as the name's grammar reads them."""
    if not opts:
        return False
    named = parse_metric(f"{base}({','.join(opts)})", door="trec")
    return named.options.get("gain") == "exponential"


class _Prepared:
    """The qrels as skirm's objects, built once per evaluator (plain and by
    subtopic, when asked), and a run's rankings by each provider's order."""

    __slots__ = ("_jg", "_read", "qrels")

    def __init__(self, qrels: IrQrels) -> None:
        self.qrels = qrels
        self._read: dict[str, tuple] = {}
        self._jg: QrelsJG | None = None

    def judgments(self, diversity: bool, reading: str, run: IrRun) -> Qrels | QrelsJG:
        """The qrels as ``run``'s measures of a provider read them: by
        subtopic (``diversity``), or one judgment per document read as
        ``reading`` (``Reference.judgments``) says; gdeval's positive rows
        beyond one per document are judgments of documents of their own,
        under names ``run`` does not hold, so that they enter the ideal
        DCG and nothing else."""
        if diversity:
            self._jg = self._jg or QrelsJG(*self.qrels.rows)
            return self._jg
        if reading not in self._read:
            self._read[reading] = self.qrels.judged(reading)
        (q, d, labels), (extra_q, extra_labels) = self._read[reading]
        if not extra_q.shape[0]:
            return Qrels(q, d, labels)
        prefix = "\x01extra judgment "  # no docno of a TREC file
        names = np.char.add(prefix, np.arange(extra_q.shape[0]).astype(str))
        while np.isin(names, run.doc_ids).any() or np.isin(names, d).any():
            prefix += "+"
            names = np.char.add(prefix, np.arange(extra_q.shape[0]).astype(str))
        return Qrels(
            np.concatenate([q, extra_q]),
            np.concatenate([d, names]),
            np.concatenate([labels, extra_labels]),
        )

    @staticmethod
    def rankings(run: IrRun):
        """``ranked(order, score_type, diversity)``: the run ranked by score
        (read as ``score_type``) descending, then by ``order``'s rule.

        For the diversity measures (ndeval's path, which breaks ties by
        itself), scores that rank the documents so and tie none. For the
        others, the rows in that order with scores that keep the run's ties
        and signs (each query's distinct scores numbered: ``P, ..., 1`` the
        positive ones, 0, then ``-1, ...``), to be evaluated with ties in
        the order given: Compat's ideal ranking reads the ties and the
        sign."""
        n = run.scores.shape[0]
        query_codes = run.query_codes

        def ranked(order: str, score_type: str, diversity: bool) -> Run:
            scores = run.scores
            if score_type == "float32":
                scores = c_floats(scores)
            if order == "input":
                tiebreak = np.arange(n)
            elif order == "docno_ascending":
                tiebreak = run.doc_codes
            else:
                tiebreak = -run.doc_codes
            rank_order = np.lexsort((tiebreak, -scores, query_codes))
            codes = query_codes[rank_order]
            first = np.searchsorted(codes, codes, side="left")
            ranked_scores = scores[rank_order]
            if diversity:
                # P, P-1, ..., 1 for the P positive ones of a query, then 0, -1, ...
                positive = np.bincount(codes, weights=ranked_scores > 0, minlength=1)
                unique = np.empty(n, dtype=np.float64)
                unique[rank_order] = positive[codes] - (np.arange(n) - first)
                return Run(run.query_ids, run.doc_ids, unique)
            new = np.ones(n, dtype=bool)
            new[1:] = (codes[1:] != codes[:-1]) | (
                ranked_scores[1:] != ranked_scores[:-1]
            )
            distinct = np.cumsum(new)
            distinct -= distinct[first]  # 0 for each query's top score
            n_queries = int(codes[-1]) + 1 if n else 0
            above = np.bincount(
                codes, weights=new & (ranked_scores > 0), minlength=n_queries
            )
            zero = (
                np.bincount(codes, weights=ranked_scores == 0, minlength=n_queries) > 0
            )
            top = above[codes]
            numbered = np.where(
                ranked_scores > 0,
                top - distinct,
                np.where(ranked_scores == 0, 0.0, top + zero[codes] - distinct - 1),
            )
            return Run(run.query_ids[rank_order], run.doc_ids[rank_order], numbered)

        return ranked


def _floats_tie_more(run: IrRun) -> bool:
    """Whether two scores of a query differ as doubles but tie as C floats
    (trec_eval 9.0.x's reading)."""
    scores = run.scores
    floats = c_floats(scores)
    if np.array_equal(scores, floats):
        return False
    order = np.lexsort((scores, run.query_codes))
    codes, scores, floats = run.query_codes[order], scores[order], floats[order]
    same_query = codes[1:] == codes[:-1]
    return bool(
        np.any(same_query & (scores[1:] != scores[:-1]) & (floats[1:] == floats[:-1]))
    )


def _no_relevant(qrels: IrQrels, request: _Request) -> set[str]:
    """The queries pyndeval gives nNRBP as NaN: no judgment at its
    relevance level (0 over 0)."""
    if not (request.diversity and request.name.startswith(_NNRBP)):
        return set()
    q, _, _, labels = qrels.rows
    return set(q.tolist()) - set(q[labels >= float(request.rel)].tolist())


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
        self.requests = [_Request(m) for m in dict.fromkeys(measures)]
        self.qrels = read_ir_qrels(qrels)
        self._prepared = _Prepared(self.qrels)

    def _columns(self, run: IrRun) -> Iterator[tuple[_Request, np.ndarray, np.ndarray]]:
        """Each measure's queries and values, as its provider reports them."""
        qrel_ids = np.asarray(self.qrels.query_ids(), dtype=str)
        groups: dict[tuple, list[_Request]] = {}
        # C floats order the run as doubles do unless two scores of a query
        # differ only beyond a float's precision: then their own group
        as_floats = _floats_tie_more(run)
        for request in self.requests:
            score_type = request.provider.score_type
            if score_type == "float32" and not as_floats:
                score_type = "float64"
            key = (
                request.provider.order,
                score_type,
                request.diversity,
                self.qrels.reading(request.provider.judgments),
            )
            groups.setdefault(key, []).append(request)
        # ir_measures reports 0 for the qrels queries a provider left out;
        # its accuracy provider does not, unless another provider's measure
        # is in the same request (then the pipeline's own filling does).
        fill_accuracy = any(r.provider is not IR_ACCURACY for r in self.requests)
        ranked = _Prepared.rankings(run)
        for (order, score_type, diversity, reading), requests in groups.items():
            names = list(dict.fromkeys(r.name for r in requests))
            guards = [r.accuracy_guard() for r in requests if r.provider is IR_ACCURACY]
            ids, per_query = np.empty(0, dtype=str), {}
            if run.query_ids.shape[0]:
                try:
                    result = evaluate_request(
                        self._prepared.judgments(diversity, reading, run),
                        ranked(order, score_type, diversity),
                        parse_measures([*names, *guards], "9.0", diversity=True),
                        _OPTIONS if diversity else _IN_ORDER,
                        rel_format="qrels",
                        zscores=None,
                        verbose=0,
                    )
                except NoCommonQueryError:
                    pass  # as an empty run: every qrels query is 0
                else:
                    ids = np.asarray(result.group_ids).astype(str)
                    per_query = result.per_query
            for request in requests:
                values = np.asarray(per_query.get(request.name, ()), dtype=np.float64)
                these = ids
                if request.provider is IR_ACCURACY and ids.shape[0]:
                    keep = per_query[request.accuracy_guard()] > 0
                    these, values = ids[keep], values[keep]
                nan_for = _no_relevant(self.qrels, request)
                if nan_for:
                    values = np.where(np.isin(these, list(nan_for)), np.nan, values)
                if request.provider is not IR_ACCURACY or fill_accuracy:
                    missing = np.setdiff1d(qrel_ids, these)
                    these = np.concatenate([these, missing])
                    values = np.concatenate([values, np.zeros(missing.shape[0])])
                yield request, these, values

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield each query's value of each measure (``Metric`` records).

        Parameters
        ----------
        run : dict, DataFrame, iterable or path
            A run in any shape ir_measures takes (see :func:`iter_calc`).
        """
        for request, ids, values in self._columns(read_ir_run(run)):
            for qid, value in zip(ids.tolist(), values.tolist(), strict=True):
                yield Metric(qid, request.key, value)

    def calc_aggregate(self, run: Any) -> dict:
        """Each measure's summary over the queries: ``{measure: value}``.

        Parameters
        ----------
        run : dict, DataFrame, iterable or path
            A run in any shape ir_measures takes (see :func:`iter_calc`).
        """
        aggregated = {}
        for request, _, values in self._columns(read_ir_run(run)):
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
        for request, ids, values in self._columns(read_ir_run(run)):
            aggregated[request.key] = _summary(request, values)
            records += [
                Metric(q, request.key, v)
                for q, v in zip(ids.tolist(), values.tolist(), strict=True)
            ]
        return CalcResults({r.key: aggregated[r.key] for r in self.requests}, records)


def _summary(request: _Request, values: np.ndarray) -> float:
    """ir_measures' aggregation: a sum for the counts, else the mean (NaN
    over no query)."""
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


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """Each query's value of each measure, as ``ir_measures.iter_calc``.

    Every measure is computed as ir_measures' default pipeline computes it:
    with the order its provider gives tied documents (pytrec_eval and
    gdeval: docno descending; cwl_eval and accuracy: the order the run gave
    them; compat, pyndeval, judged and MS MARCO: docno ascending) and that
    provider's queries (0 for a qrels query the run lacks; accuracy leaves
    out a query without a relevant document above its cutoff). A document
    judged more than once is read as that provider reads it (the last row;
    for MS MARCO's ``RR@k``, relevant if any row reaches ``rel``; for
    gdeval's, the positive rows, every one in the ideal DCG); a run listing
    a document twice for a query, or holding a NaN or None score, is
    refused as :func:`evaluate_run` refuses it.

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
    metric : Metric
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
