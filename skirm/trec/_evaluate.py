"""trec_eval-exact evaluation of a run against qrels, on the shared engine."""

from __future__ import annotations

import numbers

import numpy as np

from skirm._ranking import Judgments, Ranking, rank
from skirm.io._convert import convert_qrels, convert_run
from skirm.io._tokens import Tokens, find_sorted, mix
from skirm.io._trec import (
    duplicate_error,
    find_duplicate,
)
from skirm.metrics._evaluate import EvaluationResult
from skirm.metrics._registry import Metric, get_metric
from skirm.trec._formats import (
    check_qrels_type,
    check_rel_format,
    group_values,
)
from skirm.trec._groups import as_qrels_jg, group_topics, split_topics
from skirm.trec._measures import (
    MEASURES,
    NICKNAMES,
    ORDER,
    Context,
    check_supported,
    parse_trec_name,
    summarize,
)
from skirm.trec._prefs import PrefsEvaluation, as_prefs
from skirm.trec._zscores import as_zscores, zscore_summary, zscore_values

__all__ = ["evaluate_run", "trec_measure_names"]


def trec_measure_names() -> list[str]:
    """The trec_eval measure names and nicknames :func:`evaluate_run` accepts.

    Parameterised measures are also accepted with parameters (``P.5,10``,
    ``P_10``, ``P@10``, ``iprec_at_recall.0.5``, ``ndcg.1=3,2=9``), and every
    :func:`skirm.metrics.metric_names` name works too.

    Returns
    -------
    names : list of str
        Measure names in trec_eval's print order, then the nicknames.

    Examples
    --------
    >>> from skirm.trec import trec_measure_names
    >>> names = trec_measure_names()
    >>> "bpref" in names, "all_trec" in names, "relstring" in names
    (True, True, True)
    """
    names = [n for n, d in MEASURES.items() if not d.unsupported]
    return [*names, *sorted(NICKNAMES)]


def _as_qrels(qrels):
    return convert_qrels(qrels, "qrels")


def _as_run(run):
    return convert_run(run, "run")


def _parse_metrics(metrics, compat="10.0"):
    """``[(output name, kind, request or Metric, parameter)]`` in print order."""
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
                raise ValueError(
                    f"unknown measure {metric!r}; valid trec_eval names: "
                    f"{', '.join(trec_measure_names())}; or a skirm metric name "
                    "(see skirm.metrics.metric_names())"
                ) from None
            label = metric if isinstance(metric, str) else parsed.name
            other.append((label, parsed))
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
    for label, parsed in other:
        if label in seen:
            raise ValueError(f"`metrics` names {label!r} twice")
        seen.add(label)
        out.append((label, "skirm", parsed, None))
    return out


def _param_key(param):
    if isinstance(param, (int, float)):
        return (0, param)
    return (1, str(param))


def _check_max_docs(max_docs):
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


def _check_level(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`relevance_level` must be an integer >= 1, got {value!r}")
    return int(value)


def _evaluated_queries(qrels, run):
    """Queries of the run that are in the qrels, and both sides' maps to them."""
    rq_codes, rq_ids = run._query_codes()
    qq_codes, qq_ids = qrels._query_codes()
    pos = np.searchsorted(qq_ids, rq_ids)
    pos_c = np.minimum(pos, max(qq_ids.shape[0] - 1, 0))
    in_qrels = (pos < qq_ids.shape[0]) & (
        qq_ids[pos_c] == rq_ids if qq_ids.shape[0] else False
    )
    eval_ids = rq_ids[in_qrels]
    run_to_eval = np.full(rq_ids.shape[0], -1, dtype=np.int64)
    run_to_eval[in_qrels] = np.arange(eval_ids.shape[0])
    qrels_to_eval = np.full(qq_ids.shape[0], -1, dtype=np.int64)
    qrels_to_eval[pos[in_qrels]] = np.arange(eval_ids.shape[0])
    return eval_ids, qq_ids.shape[0], run_to_eval[rq_codes], qrels_to_eval[qq_codes]


def _join(qrels, run):
    """Evaluated queries and, per kept run row, its trec_eval relevance value.

    Rows are matched to judgements on a 64-bit hash of (query, docno) and
    every match is verified byte for byte; a hash collision among the
    judgements falls back to matching the strings.
    """
    eval_ids, n_topics, rows, j_eval = _evaluated_queries(qrels, run)
    keep = np.flatnonzero(rows >= 0)
    codes = rows[keep]
    jk = np.flatnonzero(j_eval >= 0)
    j_codes = j_eval[jk]
    j_raw = qrels.labels[jk]
    run_docs, qrels_docs = run._d_tokens(), qrels._d_tokens()
    # Judgements keyed with the run's own query codes, so that the run's
    # keys (already sorted by the duplicate check) can be merged in order.
    run_codes, _ = run._query_codes()
    eval_to_run = np.empty(eval_ids.shape[0], dtype=np.int64)
    eval_to_run[codes] = run_codes[keep]
    jkey = mix(qrels_docs.hash()[jk], eval_to_run[j_codes])
    o = np.argsort(jkey)
    jkey = jkey[o]
    if (jkey[1:] == jkey[:-1]).any():
        return _join_exact(qrels, run)
    found = find_sorted(jkey, run._keys()[keep])
    cand = np.flatnonzero(found >= 0)
    run_row = keep[cand]
    judged_at = o[found[cand]]  # index into jk
    same = (rows[run_row] == j_codes[judged_at]) & run_docs.equal(
        run_row, qrels_docs, jk[judged_at]
    )  # a key equal by chance is no match: the judgement keys are distinct
    cand, judged_at = cand[same], judged_at[same]
    raw = np.full(keep.shape[0], -1, dtype=np.int64)
    raw[cand] = np.where(j_raw[judged_at] >= 0, j_raw[judged_at], -2)
    return eval_ids, n_topics, keep, codes, raw, j_codes, j_raw


def _join_exact(qrels, run):
    """:func:`_join` on the strings (slower; used after a hash collision)."""
    rq_codes, rq_ids, rd_codes, rd_ids = run._factorized()
    qq_codes, qq_ids, _, _ = qrels._factorized()
    # Queries of the run that are in the qrels are evaluated; others ignored.
    pos = np.searchsorted(qq_ids, rq_ids)
    pos_c = np.minimum(pos, max(qq_ids.shape[0] - 1, 0))
    in_qrels = (pos < qq_ids.shape[0]) & (
        qq_ids[pos_c] == rq_ids if qq_ids.shape[0] else False
    )
    eval_ids = rq_ids[in_qrels]
    n_eval = eval_ids.shape[0]
    run_to_eval = np.full(rq_ids.shape[0], -1, dtype=np.int64)
    run_to_eval[in_qrels] = np.arange(n_eval)
    qrels_to_eval = np.full(qq_ids.shape[0], -1, dtype=np.int64)
    qrels_to_eval[pos[in_qrels]] = np.arange(n_eval)

    rows = run_to_eval[rq_codes]
    keep = np.flatnonzero(rows >= 0)
    codes = rows[keep]
    dcodes = rd_codes[keep]

    # Judgements of the evaluated queries; their docnos as run docno codes.
    j_eval = qrels_to_eval[qq_codes]
    jk = j_eval >= 0
    j_codes = j_eval[jk]
    j_raw = qrels.labels[jk]
    j_docs = qrels.doc_ids[jk]
    dpos = np.searchsorted(rd_ids, j_docs)
    dpos_c = np.minimum(dpos, max(rd_ids.shape[0] - 1, 0))
    found = (dpos < rd_ids.shape[0]) & (rd_ids[dpos_c] == j_docs)
    n_docs = max(rd_ids.shape[0], 1)
    jkey = j_codes[found] * n_docs + dpos[found]
    jlab = j_raw[found]
    o = np.argsort(jkey, kind="stable")
    jkey, jlab = jkey[o], jlab[o]
    rkey = codes * n_docs + dcodes
    idx = np.searchsorted(jkey, rkey)
    idx_c = np.minimum(idx, max(jkey.shape[0] - 1, 0))
    hit = (idx < jkey.shape[0]) & (jkey[idx_c] == rkey if jkey.shape[0] else False)
    raw = np.full(keep.shape[0], -1, dtype=np.int64)
    raw[hit] = np.where(jlab[idx_c[hit]] >= 0, jlab[idx_c[hit]], -2)
    return eval_ids, qq_ids.shape[0], keep, codes, raw, j_codes, j_raw


def _docno_tie_order(ranking, docs, keep):
    """The ranked order with ties in score broken by docno, descending.

    ``ranking`` keeps input order among equal scores; only the rows of tie
    blocks are reordered, comparing docnos as big-endian 64-bit words (byte
    order, as strcmp). Returns None when no query has tied scores.
    """
    scores, codes = ranking.scores, ranking.codes
    tie = (scores[1:] == scores[:-1]) & (codes[1:] == codes[:-1])
    if not tie.any():
        return None
    tied = np.zeros(scores.shape[0], dtype=bool)
    tied[:-1] |= tie
    tied[1:] |= tie
    positions = np.flatnonzero(tied)
    block = np.cumsum(np.concatenate(([True], ~tie)))[positions]
    rows = ranking.order[positions]
    words = docs.order_words(keep[rows])
    # within each tie block (contiguous positions), docno descending
    perm = np.lexsort([*(~w for w in reversed(words)), block])
    order = ranking.order.copy()
    order[positions] = rows[perm]
    return order


#: The trec_eval versions whose semantics :func:`evaluate_run` follows.
COMPAT = ("10.0", "9.0")

#: trec_eval 10.0's placeholder ranking for a qrels topic the run lacks (-c).
PLACEHOLDER_DOCNO = "ceci_nest_pas_un_docno"
#: Measures trec_eval 10.0 sets to 0 for such a topic.
PLACEHOLDER_ZEROS = {"num_ret", "utility", "unj", "rbp_resid"}


def _clear_placeholders(base, name, values, placeholder):
    """trec_eval 10.0 clears some outputs of a placeholder topic by their
    printed name: ``num_ret``, ``utility``, ``rbp_resid`` and ``relstring``
    exactly, ``unj*`` by prefix; ``utility.1,-1,0,0`` or ``relstring.20`` keep
    the placeholder's one unjudged document."""
    if base not in PLACEHOLDER_ZEROS and base != "relstring":
        return values
    if name.startswith("unj") or name in ("num_ret", "utility", "rbp_resid"):
        return np.where(placeholder, 0.0, values)
    if name == "relstring":
        return np.where(placeholder, "", values)
    return values


def _check_all_judged(judged_query_ids, run, all_queries, compat):
    """trec_eval 10.0 stops on a judged query missing from the run (no -c)."""
    if compat != "10.0" or all_queries:
        return
    judged = np.unique(judged_query_ids)
    absent = np.setdiff1d(judged, np.asarray(run.query_ids))
    if 0 < absent.shape[0] < judged.shape[0]:  # none in common: reported later
        raise _missing_queries_error(absent)


def _missing_queries_error(absent):
    return ValueError(
        f"{absent.shape[0]} qrels queries are missing from the run (e.g. "
        f"{absent[:3].tolist()}); trec_eval 10.0 stops on them. Pass "
        "all_queries=True (trec_eval -c) to score them as empty rankings, "
        "or compat='9.0' to leave them out as trec_eval 9.0.x did"
    )


def _check_compat(compat):
    if compat not in COMPAT:
        raise ValueError(
            "`compat` must be '10.0' (trec_eval 10.0, the default) or '9.0' "
            f"(trec_eval 9.0.x, as pytrec_eval), got {compat!r}"
        )
    return compat


def _placeholders(qrels, eval_ids, keep, codes, raw, scores):
    """trec_eval 10.0 ``-c``: every qrels topic missing from the run is
    evaluated on a ranking of one document, :data:`PLACEHOLDER_DOCNO`
    (unjudged unless the qrels judge that docno), scored 1.

    Returns the joined arrays over every qrels topic, the judgements and a
    mask of the placeholder topics.
    """
    q_codes, q_ids = qrels._query_codes()
    missing = np.ones(q_ids.shape[0], dtype=bool)
    missing[np.searchsorted(q_ids, eval_ids)] = False
    topics = np.flatnonzero(missing)
    codes = np.searchsorted(q_ids, eval_ids)[codes]
    label = np.full(q_ids.shape[0], -1, dtype=np.int64)
    docs = qrels._d_tokens()
    target = Tokens.from_strings(np.array([PLACEHOLDER_DOCNO])).hash()[0]
    hits = np.flatnonzero(docs.hash() == target)
    if hits.shape[0]:
        hits = hits[docs.strings(hits) == PLACEHOLDER_DOCNO]
        value = qrels.labels[hits]
        label[q_codes[hits]] = np.where(value >= 0, value, -2)
    order = np.argsort(np.concatenate([codes, topics]), kind="stable")
    joined = (
        np.concatenate([keep, np.full(topics.shape[0], -1)])[order],
        np.concatenate([codes, topics])[order],
        np.concatenate([raw, label[topics]])[order],
        np.concatenate([scores, np.ones(topics.shape[0])])[order],
    )
    return q_ids, joined, q_codes, qrels.labels, missing


def _judged_rows(qrels, eval_ids):
    """Rows of the qrels whose query is evaluated."""
    q_codes, q_ids = qrels._query_codes()
    return np.flatnonzero(np.isin(q_ids, eval_ids)[q_codes])


def _check_no_duplicates(record, rows, what):
    pair = find_duplicate(record, rows)
    if pair is not None:
        raise duplicate_error(record, pair, what)


def _missing_topics_error(qrels, eval_ids):
    _, q_ids = qrels._query_codes()
    return _missing_queries_error(np.setdiff1d(q_ids, eval_ids))


def _ranked(y_true, scores, codes, eval_ids, judgments, docs, keep):
    """The engine's ranking with trec_eval's tie order (docno descending)."""
    ranking = rank(y_true, scores, codes, eval_ids, ties="first", judgments=judgments)
    order = _docno_tie_order(ranking, docs, keep)
    if order is None:
        return ranking
    return Ranking(
        order,
        ranking.codes,
        y_true[order],
        ranking.scores,
        ranking.group_ids,
        "first",
        judgments=judgments,
    )


def _kept(ranking, keep_rows, judgments):
    """The ranking restricted to the ranked positions ``keep_rows`` (-M, -J)."""
    return Ranking(
        ranking.order[keep_rows],
        ranking.codes[keep_rows],
        ranking.labels[keep_rows],
        ranking.scores[keep_rows],
        ranking.group_ids,
        "first",
        judgments=judgments,
    )


def _trec_ranking(qrels, run, level, judged_only, max_docs, all_queries, compat):
    """The measure context of the evaluated queries (trec_eval's order, ``-M``
    and ``-J`` applied), the number of qrels topics and the placeholder
    topics of trec_eval 10.0's ``-c``."""
    if len(run) == 0:
        raise ValueError("the run is empty: nothing to evaluate")
    eval_ids, n_topics, keep, codes, raw, j_codes, j_raw = _join(qrels, run)
    if eval_ids.shape[0] == 0:
        raise ValueError(
            "no query of the run appears in the qrels: nothing to evaluate "
            f"(run queries e.g. {np.unique(run.query_ids)[:3].tolist()}, "
            "qrels queries e.g. "
            f"{np.unique(qrels.query_ids)[:3].tolist()})"
        )
    scores = run.scores[keep]
    if compat == "9.0":  # trec_eval 9.0.x holds scores as C floats
        with np.errstate(over="ignore"):
            scores = scores.astype(np.float32).astype(np.float64)
    placeholder = np.zeros(eval_ids.shape[0], dtype=bool)
    if eval_ids.shape[0] < n_topics and compat == "10.0":
        if not all_queries:
            raise _missing_topics_error(qrels, eval_ids)
        eval_ids, joined, j_codes, j_raw, placeholder = _placeholders(
            qrels, eval_ids, keep, codes, raw, scores
        )
        keep, codes, raw, scores = joined
    judgments = Judgments(j_codes, np.maximum(j_raw, 0).astype(np.float64))
    y_true = np.maximum(raw, 0).astype(np.float64)
    ranking = _ranked(y_true, scores, codes, eval_ids, judgments, run._d_tokens(), keep)
    ranked_raw = raw[ranking.order]
    # trec_eval checks duplicates after -M and before -J
    cut = None if max_docs is None else ranking.position < max_docs
    run_rows = keep if cut is None else keep[ranking.order[cut]]
    if placeholder.any():
        run_rows = run_rows[run_rows >= 0]
    _check_no_duplicates(run, run_rows, "the run")
    _check_no_duplicates(qrels, _judged_rows(qrels, eval_ids), "the qrels")
    if judged_only:
        cut = ranked_raw >= 0 if cut is None else cut & (ranked_raw >= 0)
    if cut is not None and not cut.all():
        ranking, ranked_raw = _kept(ranking, cut, judgments), ranked_raw[cut]
    context = Context(ranking, ranked_raw, level, j_codes, j_raw, compat=compat)
    return context, n_topics, placeholder


def evaluate_run(
    qrels,
    run,
    metrics="official",
    *,
    relevance_level=1,
    judged_only=False,
    max_docs=None,
    all_queries=False,
    rel_format="qrels",
    collection_size=0,
    zscores=None,
    compat="10.0",
):
    """Evaluate a TREC run against qrels exactly as trec_eval does.

    Documents are ranked by score descending, ties broken by docno descending
    (byte order). R and the ideal DCG come from the qrels, so relevant
    documents the run missed count. Retrieved documents missing from the qrels
    are unjudged: non-relevant for most measures, skipped by bpref and infAP.
    Negative qrels labels are judged non-relevant. Queries of the run missing
    from the qrels are ignored; qrels queries without relevant documents are
    evaluated (most measures are 0 for them). A docno twice in an evaluated
    query (within the top ``max_docs``) is an error, as in trec_eval.

    The ranking is built once by the same engine as
    :func:`skirm.metrics.evaluate`, and measures the array API has are
    computed by its registered kernels.

    Parameters
    ----------
    qrels : Qrels, path, file, dict, DataFrame, iterable or dataset
        Judgements: a TREC qrels file (see :func:`skirm.io.read_qrels`), or
        any shape :func:`skirm.io.as_qrels` takes (``{qid: {docid: rel}}``,
        a DataFrame, ``(qid, docid, rel)`` tuples, an ir_datasets dataset).
    run : Run, path, file, dict, DataFrame or iterable
        The run: a TREC run file (see :func:`skirm.io.read_run`), or any
        shape :func:`skirm.io.as_run` takes (``{qid: {docid: score}}``, a
        DataFrame, ``(qid, docid, score)`` tuples).
    metrics : str or sequence of str, default="official"
        trec_eval measure names (``map``, ``P_10``, ``P.5,10``,
        ``ndcg_cut.10``, ``map_cut.100``, ``recall.1000``, ``bpref``,
        ``infAP``, ``iprec_at_recall``, ``11pt_avg``, ``set_F``, ``rbp``,
        ``unj.5``, ``judged.10`` ...), the nicknames ``official``,
        ``all_trec`` and ``set``, or skirm metric names (``ndcg@10``,
        ``err@20``). See :func:`trec_measure_names`. A trec_eval name wins
        over a skirm name: ``"rbp"`` is trec_eval's; pass
        ``skirm.metrics.get_metric("rbp")`` for skirm's.
    relevance_level : int, default=1
        trec_eval ``-l``: a document is relevant when its qrels level is at
        least this. Binary measures only; ``ndcg`` uses the raw levels as
        gains regardless.
    judged_only : bool, default=False
        trec_eval ``-J``: drop unjudged documents from the ranking first.
    max_docs : int, default=None
        trec_eval ``-M``: only the top ``max_docs`` documents of each query.
    all_queries : bool, default=False
        trec_eval ``-c``: every query of the qrels counts in the summary. A
        query missing from the run is scored (10.0) as a ranking of one
        unjudged document, with ``num_ret`` 0, and has per-query values;
        with ``compat="9.0"`` it counts as 0 in the summary only.
    compat : {"10.0", "9.0"}, default="10.0"
        The trec_eval version to follow. ``"10.0"``: the current release.
        ``"9.0"``: trec_eval 9.0.x, which pytrec_eval bundles and most
        published numbers used: scores compared as C floats (``12.25000004``
        and ``12.25000001`` tie), the older recall cutoffs of
        ``iprec_at_recall`` and ``11pt_avg``, qrels queries missing from the
        run left out, and ``all_trec`` without ``rbp``, ``rbp_resid`` and
        ``unj``. The user guide's TREC page lists every difference.
    rel_format : {"qrels", "qrels_jg", "prefs", "qrels_prefs"}, default="qrels"
        trec_eval ``-R``: the format of ``qrels``. ``"qrels_jg"`` reads
        judgment groups (:func:`skirm.io.read_qrels_jg`, the second column
        names the group) for the measures ``map_avgjg``, ``P_avgjg`` and
        ``Rprec_mult_avgjg`` (nickname ``qrels_jg``): each is computed
        against every group of a query and averaged over its groups.
        ``"prefs"`` (:func:`skirm.io.read_prefs`) and ``"qrels_prefs"`` (a
        qrels file read as preferences, :func:`skirm.io.read_qrels_prefs`)
        are for the preference measures ``prefs_*`` (nicknames ``all_prefs``
        and ``prefs``); ``qrels`` may then also be a
        :class:`~skirm.io.Prefs`.
    collection_size : int, default=0
        trec_eval ``-N``: the number of documents in the collection, used by
        ``utility`` for the non-relevant documents not retrieved.
    zscores : ZScores, str, path-like or file, default=None
        trec_eval ``-Z``: convert each per-query value into a z-score
        ``(value - mean) / stddev`` with the reference means and standard
        deviations of :func:`read_zscores`, before the summary. A query or
        measure the z-scores lack gives -1000000, as in trec_eval.

    Returns
    -------
    result : EvaluationResult
        ``result.group_ids`` are the evaluated queries (sorted),
        ``result.per_query[name]`` their values and ``result.means[name]``
        trec_eval's summary ("all"): the mean for most measures, the sum for
        ``num_ret``, ``num_rel``, ``num_rel_ret`` and
        ``num_nonrel_judged_ret``, the query count for ``num_q`` and the
        geometric mean for ``gm_map`` and ``gm_bpref`` (whose per-query values
        are AP and bpref). ``result.run_id`` holds the run id. A string
        measure (``relstring``) has per-query values of dtype str and no
        entry in ``means``. ``result.zscored`` tells whether ``zscores``
        converted the values.

    Raises
    ------
    ValueError
        For a docno twice in an evaluated query of the run or the qrels, no
        query in common, or (``compat="10.0"`` without ``all_queries``) qrels
        queries missing from the run, on which trec_eval 10.0 stops.

    Examples
    --------
    >>> from skirm.io import Qrels, Run
    >>> from skirm.trec import evaluate_run
    >>> qrels = Qrels(["q1", "q1", "q1"], ["d1", "d2", "d3"], [1, 0, 2])
    >>> run = Run(["q1", "q1", "q1"], ["d1", "d2", "d9"], [0.5, 0.5, 0.9])
    >>> result = evaluate_run(qrels, run, ["map", "P_3", "bpref", "num_rel"])
    >>> result.means
    {'num_rel': 2.0, 'map': 0.1666..., 'bpref': 0.0, 'P_3': 0.3333...}

    The unjudged ``d9`` ranks first; the tie between ``d1`` and ``d2`` goes to
    ``d2`` (docno descending), so the relevant ``d1`` is third. ``d3`` was not
    retrieved but counts in R, hence AP = (1/3) / 2. bpref skips ``d9`` and
    sees the judged non-relevant ``d2`` above ``d1``: 0.

    Scores that differ only beyond a C float's precision tie in 9.0.x:

    >>> run = Run(["q1", "q1"], ["d1", "d2"], [12.25000004, 12.25000001])
    >>> evaluate_run(qrels, run, "recip_rank").means
    {'recip_rank': 1.0}
    >>> evaluate_run(qrels, run, "recip_rank", compat="9.0").means
    {'recip_rank': 0.5}
    """
    compat = _check_compat(compat)
    outputs = _parse_metrics(metrics, compat)
    level = _check_level(relevance_level)
    _check_max_docs(max_docs)
    rel_format = check_rel_format(rel_format, outputs)
    check_qrels_type(qrels, rel_format)
    num_docs = _check_collection_size(collection_size)
    zscores = as_zscores(zscores)
    run = _as_run(run)
    all_queries = bool(all_queries)
    if rel_format == "qrels_jg":
        qrels_jg = as_qrels_jg(qrels)
        _check_all_judged(qrels_jg.query_ids, run, all_queries, compat)
        qrels, grouped, n_topics = group_topics(qrels_jg, run, max_docs)
        ctx, _, _ = _trec_ranking(
            qrels, grouped, level, bool(judged_only), max_docs, all_queries, compat
        )
        query_ids, group_codes = split_topics(np.asarray(ctx.ranking.group_ids))
        placeholder = np.zeros(query_ids.shape[0], dtype=bool)
    elif rel_format in ("prefs", "qrels_prefs"):
        prefs = as_prefs(qrels, rel_format)
        _check_all_judged(prefs.query_ids, run, all_queries, compat)
        ctx = PrefsEvaluation(prefs, run, all_queries and compat == "10.0", max_docs)
        query_ids, group_codes = ctx.query_ids, None
        n_topics = np.unique(prefs.query_ids).shape[0]
        placeholder = np.zeros(query_ids.shape[0], dtype=bool)
    else:
        qrels = _as_qrels(qrels)
        ctx, n_topics, placeholder = _trec_ranking(
            qrels, run, level, bool(judged_only), max_docs, all_queries, compat
        )
        query_ids, group_codes = np.asarray(ctx.ranking.group_ids), None
    ctx.num_docs = num_docs
    n_eval = query_ids.shape[0]
    n_total = n_topics if all_queries else n_eval
    n_missing = n_total - n_eval
    per_query = {}
    for name, kind, what, param in outputs:
        if kind == "skirm":
            params = {}
            if "relevance_threshold" in what.spec.params and not what.params.get(
                "relevance_threshold"
            ):
                params["relevance_threshold"] = level
            metric = get_metric(what, **params) if params else what
            values = metric.per_query(ctx.ranking, 0.0)[1]
        else:
            if what == "runid":
                continue
            if group_codes is not None:
                values = group_values(ctx, what, param, group_codes, n_eval)
            else:
                values = ctx.value(what, param)
            if placeholder.any():
                values = _clear_placeholders(what, name, values, placeholder)
            if MEASURES[what].string:
                per_query[name] = np.asarray(values, dtype=str)
                continue
        per_query[name] = np.asarray(values, dtype=np.float64)
        if zscores is not None:
            summary = "mean" if kind == "skirm" else MEASURES[what].summary
            per_query[name] = zscore_values(
                zscores, query_ids, name, summary, per_query[name]
            )
    means = summarize_outputs(
        outputs,
        per_query,
        n_total,
        n_missing,
        qrels,
        all_queries,
        zscored=zscores is not None,
    )
    result = EvaluationResult(query_ids, per_query, means)
    result.run_id = run.run_id
    result.zscored = zscores is not None
    return result


def _check_collection_size(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"`collection_size` must be a non-negative integer, got {value!r}"
        )
    if value < 0:
        raise ValueError(
            f"`collection_size` must be a non-negative integer, got {value}"
        )
    return int(value)


def summarize_outputs(
    outputs, per_query, n_total, n_missing, qrels, all_queries, zscored=False
):
    """trec_eval's summary ("all") of each measure's per-query values
    (``zscored``: of their z-scores). String measures have none."""
    means = {}
    for name, kind, what, _ in outputs:
        if name not in per_query:
            continue  # runid
        if kind == "trec" and MEASURES[what].string:
            continue  # relstring: per query only
        if what == "num_rel" and all_queries:
            # trec_eval -c recounts num_rel over every qrels topic, rel > 0.
            means[name] = float(np.count_nonzero(qrels.labels > 0))
            continue
        summary = "mean" if kind == "skirm" else MEASURES[what].summary
        if zscored:
            means[name] = zscore_summary(summary, per_query[name], n_total)
        else:
            means[name] = summarize(summary, per_query[name], n_total, n_missing)
    return means
