"""trec_eval-exact evaluation of a run against qrels, on the shared engine."""

from __future__ import annotations

import collections
import concurrent.futures
import numbers
import os
import warnings

import numpy as np

from skirm._trec_names import (
    MEASURES,
    ORDER,
    check_supported,
    parse_trec_name,
    trec_measure_names,
)
from skirm.io._convert import convert_qrels, convert_run
from skirm.io._tokens import Tokens
from skirm.io._trec import (
    RunBlock,
    RunNotGrouped,
    count_parts,
    iter_run_blocks,
    iter_run_parts,
)
from skirm.metrics._evaluate import EvaluationResult, bind_input_wide
from skirm.metrics._registry import Metric, get_metric
from skirm.trec._formats import (
    check_qrels_type,
    check_rel_format,
)
from skirm.trec._groups import as_qrels_jg, group_topics, split_topics
from skirm.trec._join import QrelsIndex, join
from skirm.trec._measures import measure
from skirm.trec._prefs import PrefsEvaluation, as_prefs
from skirm.trec._rank import trec_ranking
from skirm.trec._summary import concatenate, summarize_outputs
from skirm.trec._zscores import as_zscores, zscore_values

__all__ = ["evaluate_run"]

#: Threads that evaluate the blocks of a streamed run (at most).
MAX_THREADS = 4


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


def _blocks(run):
    """The run's blocks (each with all rows of its queries), and a restart.

    A path is streamed block by block; if its queries turn out not to be
    grouped, ``restart()`` gives the run again in parts by query hash (read
    in passes, memory bounded by the largest part). An open file is read
    whole; so is every other shape :func:`skirm.io.as_run` takes.
    """
    if not isinstance(run, (str, os.PathLike)):
        return [RunBlock.of_run(_as_run(run))], None

    def restart(exc):
        n_parts = count_parts(run)
        if n_parts > 1:
            warnings.warn(
                f"{exc}; evaluating the run in {n_parts} passes over the file "
                "instead of one (sort it by query to stream it in one pass)",
                UserWarning,
                stacklevel=4,
            )
        return iter_run_parts(run, n_parts)

    return iter_run_blocks(run), restart


def _absent_topics(index, parts):
    """The qrels topics that no block of the run evaluated (sorted)."""
    return np.setdiff1d(index.topic_ids, np.concatenate([p[0] for p in parts]))


def _placeholder_block(topics):
    """trec_eval 10.0 ``-c``: each qrels topic missing from the run is
    evaluated on a ranking of one document, :data:`PLACEHOLDER_DOCNO`
    (unjudged unless the qrels judge that docno), scored 1."""
    n = topics.shape[0]
    return RunBlock(
        Tokens.from_strings(topics),
        Tokens.from_strings(np.full(n, PLACEHOLDER_DOCNO)),
        np.ones(n),
        None,
        "<placeholder>",
        None,
    )


def _placeholder_part(step, topics, outputs):
    """The placeholder topics' values, some outputs cleared as trec_eval 10.0
    clears them (:func:`_clear_placeholders`)."""
    ids, values, _, _ = step(_placeholder_block(topics))
    _clear_all(outputs, values, np.ones(ids.shape[0], dtype=bool))
    return ids, values


def _clear_all(outputs, values, placeholder):
    """:func:`_clear_placeholders` on every trec_eval output in ``values``."""
    for name, kind, what, _ in outputs:
        if kind == "trec" and name in values:
            values[name] = _clear_placeholders(what, name, values[name], placeholder)


def _map_blocks(step, blocks, restart):
    """``[step(block)]`` over the run's blocks, restarted if not grouped."""
    try:
        return _threaded_map(step, blocks)
    except RunNotGrouped as exc:
        if restart is None:  # pragma: no cover - only streams raise it
            raise
        return _threaded_map(step, restart(exc))


def _n_threads():
    try:
        return min(len(os.sched_getaffinity(0)), MAX_THREADS)
    except AttributeError:  # pragma: no cover - not on Linux
        return min(os.cpu_count() or 1, MAX_THREADS)


def _threaded_map(step, blocks):
    """``[step(block)]`` in order; blocks are evaluated by worker threads
    while the next ones are read (numpy releases the GIL in its loops). At
    most one block per thread waits, so memory stays bounded."""
    n = _n_threads()
    if n < 2 or isinstance(blocks, list):
        return [step(block) for block in blocks]
    out, pending = [], collections.deque()
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        for block in blocks:
            pending.append(pool.submit(step, block))
            while len(pending) > n:
                out.append(pending.popleft().result())
        out.extend(future.result() for future in pending)
    return out


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
    if _missing_rule(all_queries, compat) != "raise":
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


def _bind_qrels_wide(outputs, qrels):
    """The outputs with the skirm metrics' defaults that are taken over all
    the labels (ERR's ``max_grade``) bound to the qrels' largest label, so
    that no block or partition of the run changes them."""
    skirm = {name: what for name, kind, what, _ in outputs if kind == "skirm"}
    if not skirm:
        return outputs
    bound = bind_input_wide(skirm, lambda: max(float(np.max(qrels.labels)), 0.0))
    return [(n, k, bound.get(n, w), p) for n, k, w, p in outputs]


def _missing_rule(all_queries, compat):
    """What becomes of the qrels topics missing from the run: ``"raise"``
    (trec_eval 10.0), ``"score"`` (10.0 ``-c``: placeholder rankings) or
    ``"leave out"`` (9.0.x, with or without ``-c``)."""
    if compat == "9.0":
        return "leave out"
    return "score" if all_queries else "raise"


def _no_common_error(run_query_ids, topic_ids):
    return ValueError(
        "no query of the run appears in the qrels: nothing to evaluate "
        f"(run queries e.g. {run_query_ids[:3].tolist()}, qrels queries e.g. "
        f"{topic_ids[:3].tolist()})"
    )


def _missing_topics_error(qrels, present):
    """:func:`_missing_queries_error` for the qrels topics not in ``present``."""
    return _missing_queries_error(np.setdiff1d(qrels._query_codes()[1], present))


def query_values(
    qrels,
    run,
    outputs,
    level,
    judged_only,
    max_docs,
    missing,
    compat,
    placeholders=False,
):
    """``(group_ids, per_query, n_topics, ranking)`` of a :class:`Run` against
    plain qrels in one context: the evaluated queries (sorted), each output's
    per-query values, the number of qrels topics and the ranking measured.

    For a run evaluated in parts (:mod:`skirm.dask`): ``missing`` is the rule
    of :func:`_missing_rule` for this part (``"leave out"``: the rule is
    applied to the whole run by the caller); ``placeholders=True`` scores
    every qrels topic on trec_eval 10.0's ``-c`` placeholder ranking (``run``
    is then empty).
    """
    index = QrelsIndex(qrels)
    block = (
        _placeholder_block(index.topic_ids) if placeholders else RunBlock.of_run(run)
    )
    joined = join(index, block)
    if not joined.eval_ids.shape[0]:
        raise _no_common_error(block.queries()[1], index.topic_ids)
    if missing == "raise" and joined.eval_ids.shape[0] < index.n_topics:
        raise _missing_queries_error(np.setdiff1d(index.topic_ids, joined.eval_ids))
    ctx = trec_ranking(joined, block, level, judged_only, max_docs, compat)
    per_query = measure(ctx, _bind_qrels_wide(outputs, qrels), level)
    if placeholders:
        _clear_all(outputs, per_query, np.ones(joined.eval_ids.shape[0], dtype=bool))
    return np.asarray(joined.eval_ids), per_query, index.n_topics, ctx.ranking


def _check_compat(compat):
    if compat not in COMPAT:
        raise ValueError(
            "`compat` must be '10.0' (trec_eval 10.0, the default) or '9.0' "
            f"(trec_eval 9.0.x, as pytrec_eval), got {compat!r}"
        )
    return compat


def _grouped_context(qrels, run, level, judged_only, max_docs, all_queries, compat):
    """``-R qrels_jg``: one context over every (query, group) topic of the
    grouped run (a :class:`Run` in memory), with trec_eval 10.0's ``-c``
    placeholders among them; and the mask of those placeholders."""
    index = QrelsIndex(qrels)
    block = RunBlock.of_run(run)
    ids = block.queries()[1]
    absent = np.setdiff1d(index.topic_ids, ids)
    placeholders = all_queries and compat == "10.0" and absent.shape[0] > 0
    if placeholders:
        extra = _placeholder_block(absent)
        block = RunBlock(
            Tokens.concat([block.q, extra.q]),
            Tokens.concat([block.d, extra.d]),
            np.concatenate([block.scores, extra.scores]),
            None,
            block.name,
            block.run_id,
        )
    joined = join(index, block)
    if not joined.eval_ids.shape[0]:
        raise _no_common_error(ids, index.topic_ids)
    ctx = trec_ranking(joined, block, level, judged_only, max_docs, compat)
    mask = np.isin(joined.eval_ids, absent) if placeholders else None
    return ctx, mask


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
        DataFrame, ``(qid, docid, score)`` tuples). A path is streamed: read
        a few MiB at a time, each block of whole queries evaluated on its own
        (by worker threads), so memory does not grow with the run. That needs
        each query's lines together, as in TREC runs; a run whose queries are
        interleaved is read again in parts by query (a ``UserWarning`` says
        so when that takes more than one pass over the file).
    metrics : str or sequence of str, default="official"
        trec_eval measure names (``map``, ``P_10``, ``P.5,10``,
        ``ndcg_cut.10``, ``map_cut.100``, ``recall.1000``, ``bpref``,
        ``infAP``, ``iprec_at_recall``, ``11pt_avg``, ``set_F``, ``rbp``,
        ``unj.5``, ``judged.10`` ...), the nicknames ``official``,
        ``all_trec`` and ``set``, or skirm metric names (``ndcg@10``,
        ``err@20``). See :func:`skirm.trec.trec_measure_names`. A trec_eval name wins
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
    all_queries, judged_only = bool(all_queries), bool(judged_only)
    if rel_format == "qrels":
        qrels = _as_qrels(qrels)
        options = (level, judged_only, max_docs, all_queries, compat, num_docs)
        ids, per_query, n_topics, run_id = _stream(qrels, run, outputs, options)
    else:
        run = _as_run(run)
        run_id = run.run_id
        if rel_format == "qrels_jg":
            qrels_jg = as_qrels_jg(qrels)
            _check_all_judged(qrels_jg.query_ids, run, all_queries, compat)
            qrels, grouped, n_topics = group_topics(qrels_jg, run, max_docs)
            outputs = _bind_qrels_wide(outputs, qrels)
            ctx, placeholder = _grouped_context(
                qrels, grouped, level, judged_only, max_docs, all_queries, compat
            )
            ids, group_codes = split_topics(np.asarray(ctx.ranking.group_ids))
        else:
            prefs = as_prefs(qrels, rel_format)
            _check_all_judged(prefs.query_ids, run, all_queries, compat)
            placeholders = all_queries and compat == "10.0"
            ctx = PrefsEvaluation(prefs, run, placeholders, max_docs)
            ids, group_codes, placeholder = ctx.query_ids, None, None
            n_topics = np.unique(prefs.query_ids).shape[0]
        ctx.num_docs = num_docs
        per_query = measure(ctx, outputs, level, group_codes, ids.shape[0])
        if placeholder is not None and placeholder.any():
            _clear_all(outputs, per_query, placeholder)
    n_eval = ids.shape[0]
    n_total = n_topics if all_queries else n_eval
    if zscores is not None:
        for name, kind, what, _ in outputs:
            if name in per_query and per_query[name].dtype.kind == "f":
                summary = "mean" if kind == "skirm" else MEASURES[what].summary
                per_query[name] = zscore_values(
                    zscores, ids, name, summary, per_query[name]
                )
    means = summarize_outputs(
        outputs,
        per_query,
        n_total,
        n_total - n_eval,
        qrels,
        all_queries,
        zscored=zscores is not None,
    )
    result = EvaluationResult(ids, per_query, means)
    result.run_id = run_id
    result.zscored = zscores is not None
    return result


def _stream(qrels, run, outputs, options):
    """``(ids, per-query values, n_topics, run_id)`` of a run against qrels,
    block by block: join, rank, measure (see :func:`_blocks`)."""
    level, judged_only, max_docs, all_queries, compat, num_docs = options
    index = QrelsIndex(qrels)
    outputs = _bind_qrels_wide(outputs, qrels)

    def step(block):
        joined = join(index, block)
        if not joined.eval_ids.shape[0]:
            return None, None, block.run_id, block.q.codes()[1][:3].tolist()
        ctx = trec_ranking(joined, block, level, judged_only, max_docs, compat)
        ctx.num_docs = num_docs
        return joined.eval_ids, measure(ctx, outputs, level), block.run_id, None

    parts = _map_blocks(step, *_blocks(run))
    run_id = next((p[2] for p in reversed(parts) if p[2] is not None), "")
    found = [p[:2] for p in parts if p[0] is not None]
    if not found:
        sample = next((p[3] for p in parts if p[3]), [])
        if not sample:  # no block held a line
            raise ValueError("the run is empty: nothing to evaluate")
        raise _no_common_error(np.asarray(sample), index.topic_ids)
    absent = _absent_topics(index, found)
    missing = _missing_rule(all_queries, compat)
    if absent.shape[0] and missing != "leave out":
        if missing == "raise":
            raise _missing_queries_error(absent)
        found.append(_placeholder_part(step, absent, outputs))
    ids, per_query = concatenate(found)
    return ids, per_query, index.n_topics, run_id


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
