"""trec_eval-exact evaluation of a run against qrels, on the shared engine."""

from __future__ import annotations

import numbers

import numpy as np

from skirm._ranking import Judgments, Ranking, rank
from skirm.io._tokens import find_sorted, mix
from skirm.io._trec import Qrels, Run, read_qrels, read_run
from skirm.metrics._evaluate import EvaluationResult
from skirm.metrics._registry import Metric, get_metric
from skirm.trec._formats import (
    MissingTopics,
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
    if isinstance(qrels, Qrels):
        return qrels
    return read_qrels(qrels)


def _as_run(run):
    if isinstance(run, Run):
        return run
    return read_run(run)


def _parse_metrics(metrics):
    """``[(output name, kind, request or Metric, parameter)]`` in print order."""
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("`metrics` must name at least one measure, got none")
    trec, other = {}, []
    for metric in metrics:
        requests = parse_trec_name(metric) if isinstance(metric, str) else None
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
        nickname = len(requests) > 1
        for request in requests:
            if MEASURES[request.base].unsupported:
                if nickname:
                    continue
                check_supported(request)
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


def _trec_ranking(qrels, run, level, judged_only, max_docs):
    eval_ids, n_topics, keep, codes, raw, j_codes, j_raw = _join(qrels, run)
    if eval_ids.shape[0] == 0:
        raise ValueError(
            "no query of the run appears in the qrels: nothing to evaluate "
            f"(run queries e.g. {run.query_ids[:3].tolist()}, qrels queries e.g. "
            f"{np.unique(qrels.query_ids)[:3].tolist()})"
        )
    judgments = Judgments(j_codes, np.maximum(j_raw, 0).astype(np.float64))
    y_true = np.maximum(raw, 0).astype(np.float64)
    scores = run.scores[keep]
    ranking = rank(y_true, scores, codes, eval_ids, ties="first", judgments=judgments)
    order = _docno_tie_order(ranking, run._d_tokens(), keep)
    if order is not None:
        ranking = Ranking(
            order,
            ranking.codes,
            y_true[order],
            ranking.scores,
            ranking.group_ids,
            "first",
            judgments=judgments,
        )
    ranked_raw = raw[ranking.order]
    cut = None
    if max_docs is not None:
        cut = ranking.position < max_docs
    if judged_only:
        judged = ranked_raw >= 0
        cut = judged if cut is None else cut & judged
    if cut is not None and not cut.all():
        ranking = Ranking(
            ranking.order[cut],
            ranking.codes[cut],
            ranking.labels[cut],
            ranking.scores[cut],
            ranking.group_ids,
            "first",
            judgments=judgments,
        )
        ranked_raw = ranked_raw[cut]
    return Context(ranking, ranked_raw, level, j_codes, j_raw), n_topics


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
):
    """Evaluate a TREC run against qrels exactly as trec_eval 9.0.x does.

    Documents are ranked by score descending, ties broken by docno descending
    (byte order). R and the ideal DCG come from the qrels, so relevant
    documents the run missed count. Retrieved documents missing from the qrels
    are unjudged: non-relevant for most measures, skipped by bpref and infAP.
    Negative qrels labels are judged non-relevant. Queries of the run missing
    from the qrels are ignored; qrels queries without relevant documents are
    evaluated (most measures are 0 for them).

    The ranking is built once by the same engine as
    :func:`skirm.metrics.evaluate`, and measures the array API has are
    computed by its registered kernels.

    Parameters
    ----------
    qrels : Qrels, str or path-like
        Judgements (see :func:`skirm.io.read_qrels`).
    run : Run, str or path-like
        The run (see :func:`skirm.io.read_run`).
    metrics : str or sequence of str, default="official"
        trec_eval measure names (``map``, ``P_10``, ``P.5,10``,
        ``ndcg_cut.10``, ``map_cut.100``, ``recall.1000``, ``bpref``,
        ``infAP``, ``iprec_at_recall``, ``11pt_avg``, ``set_F``, ``judged.10``
        ...), the nicknames ``official``, ``all_trec`` and ``set``, or skirm
        metric names (``ndcg@10``, ``err@20``, ``rbp``). See
        :func:`trec_measure_names`.
    relevance_level : int, default=1
        trec_eval ``-l``: a document is relevant when its qrels level is at
        least this. Binary measures only; ``ndcg`` uses the raw levels as
        gains regardless.
    judged_only : bool, default=False
        trec_eval ``-J``: drop unjudged documents from the ranking first.
    max_docs : int, default=None
        trec_eval ``-M``: only the top ``max_docs`` documents of each query.
    all_queries : bool, default=False
        trec_eval ``-c``: queries of the qrels missing from the run count as 0
        in the summary (``means``); they have no per-query values.
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
        ``result.group_ids`` are the evaluated queries (in the run and the
        qrels, sorted), ``result.per_query[name]`` their values and
        ``result.means[name]`` trec_eval's summary ("all"): the mean for
        most measures, the sum for ``num_ret``, ``num_rel``, ``num_rel_ret``
        and ``num_nonrel_judged_ret``, the query count for ``num_q`` and the
        geometric mean for ``gm_map`` and ``gm_bpref`` (whose per-query values
        are AP and bpref). ``result.run_id`` holds the run id. A string
        measure (``relstring``) has per-query values of dtype str and no
        entry in ``means``. ``result.zscored`` tells whether ``zscores``
        converted the values.

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
    """
    outputs = _parse_metrics(metrics)
    level = _check_level(relevance_level)
    if max_docs is not None:
        if isinstance(max_docs, bool) or not isinstance(max_docs, numbers.Integral):
            raise TypeError(
                f"`max_docs` must be a positive integer or None, got {max_docs!r}"
            )
        if max_docs < 1:
            raise ValueError(
                f"`max_docs` must be a positive integer or None, got {max_docs}"
            )
    rel_format = check_rel_format(rel_format, outputs)
    check_qrels_type(qrels, rel_format)
    num_docs = _check_collection_size(collection_size)
    zscores = as_zscores(zscores)
    run = _as_run(run)
    if rel_format == "qrels_jg":
        qrels, grouped, n_topics = group_topics(as_qrels_jg(qrels), run)
        ctx, _ = _trec_ranking(qrels, grouped, level, bool(judged_only), max_docs)
        query_ids, group_codes = split_topics(np.asarray(ctx.ranking.group_ids))
    elif rel_format in ("prefs", "qrels_prefs"):
        ctx = PrefsEvaluation(as_prefs(qrels, rel_format), run, all_queries, max_docs)
        query_ids, group_codes, n_topics = ctx.query_ids, None, ctx.n_topics
    else:
        qrels = _as_qrels(qrels)
        ctx, n_topics = _trec_ranking(qrels, run, level, bool(judged_only), max_docs)
        query_ids, group_codes = np.asarray(ctx.ranking.group_ids), None
    ctx.num_docs = num_docs
    n_eval = query_ids.shape[0]
    n_total = n_topics if all_queries else n_eval
    if isinstance(ctx, PrefsEvaluation):
        missing = ctx.missing
    else:
        missing = MissingTopics(qrels, query_ids, level, all_queries, group_codes)
    per_query, means = {}, {}
    for name, kind, what, param in outputs:
        if kind == "skirm":
            params = {}
            if "relevance_threshold" in what.spec.params and not what.params.get(
                "relevance_threshold"
            ):
                params["relevance_threshold"] = level
            metric = get_metric(what, **params) if params else what
            values = metric.per_query(ctx.ranking, 0.0)[1]
            summary = "mean"
        else:
            if what == "runid":
                continue
            if group_codes is not None:
                values = group_values(ctx, what, param, group_codes, n_eval)
            else:
                values = ctx.value(what, param)
            summary = MEASURES[what].summary
            if MEASURES[what].string:
                per_query[name] = np.asarray(values, dtype=str)
                continue
        per_query[name] = np.asarray(values, dtype=np.float64)
        extra = missing.values(what if kind == "trec" else None, name, param, num_docs)
        if zscores is not None:
            per_query[name] = zscore_values(
                zscores, query_ids, name, summary, per_query[name]
            )
            extra = zscore_values(zscores, missing.query_ids, name, summary, extra)
        if what == "num_rel" and all_queries:
            # trec_eval -c recounts num_rel over every qrels topic, rel > 0.
            means[name] = float(np.count_nonzero(qrels.labels > 0))
        elif zscores is not None:
            means[name] = zscore_summary(
                summary, np.concatenate([per_query[name], extra]), n_total
            )
        else:
            values = np.concatenate([per_query[name], extra])
            means[name] = summarize(summary, values, n_total, 0)
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
