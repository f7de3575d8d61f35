"""Evaluate a run against qrels as trec_eval does: the stages, top down.

:func:`evaluate_run` checks the request once (:mod:`._request`), reads its
inputs once (:mod:`._inputs`: qrels rows, run blocks), indexes the qrels
(:mod:`._join`), and hands every block of run rows down the stages: join and
rank (:mod:`._rank`), measure (:mod:`._measures`); then the topics the run
lacks (:mod:`._missing`) and the summary (:mod:`._summary`). No stage goes
back to a reader: each takes what the previous one returned.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import side_by_side
from skirm._errors import DuplicateDocnoError, EmptyRunError, RunNotGroupedError
from skirm._frames import frame_names, library
from skirm._measures._rows import QRELS, QRELS_JG
from skirm._measures._table import OFFICIAL
from skirm._params import checked
from skirm._progress import reporting
from skirm.io._join import QrelsIndex, index_of
from skirm.io._records import Qrels, Run
from skirm.io._sources import is_path, is_path_or_file
from skirm.io._tokens import Tokens
from skirm.trec._groups import group_topics, split_topics
from skirm.trec._inputs import (
    judgements,
    map_blocks,
    run_blocks,
    run_input,
)
from skirm.trec._measures import measure
from skirm.trec._missing import (
    check_all_judged,
    clear_placeholders,
    missing_queries_error,
    missing_rule,
    no_common_error,
    placeholder_block,
    placeholder_blocks,
)
from skirm.trec._plan import make_plan
from skirm.trec._ranked import ranked, ranked_each
from skirm.trec._rel_formats import check_qrels_type
from skirm.trec._request import (
    COLLECTION_SIZE,
    COMPAT,
    MAX_DOCS,
    RELEVANCE_LEVEL,
    Options,
    bind_qrels_wide,
    parse_measures,
)
from skirm.trec._summary import PerQuery, as_zscores, finish

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from skirm._typing import PathOrFile
    from skirm.io import Prefs, QrelsJG
    from skirm.io._input_types import QrelsLike, RunLike
    from skirm.io._zscores import ZScores
    from skirm.metrics._registry import Metric
    from skirm.metrics._result import EvaluationResult

__all__ = ["evaluate_run"]

#: Judgements from which the qrels are indexed (and read, if a frame) in a
#: thread of their own while a run given in memory is read (an index of
#: fewer is made in a few ms at most, about the cost of starting a thread).
SIDE_BY_SIDE_QRELS = 1 << 14


@checked(
    relevance_level=RELEVANCE_LEVEL,
    max_docs=MAX_DOCS,
    collection_size=COLLECTION_SIZE,
    compat=COMPAT,
)
def evaluate_run(
    qrels: QrelsLike | QrelsJG | Prefs,
    run: RunLike,
    metrics: str | Metric | Sequence[str | Metric] = OFFICIAL,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    max_docs: int | None = None,
    all_queries: bool = False,
    rel_format: Literal["qrels", "qrels_jg", "prefs", "qrels_prefs"] = "qrels",
    collection_size: int = 0,
    zscores: ZScores | PathOrFile | None = None,
    compat: Literal["10.0", "9.0"] = "10.0",
    verbose: int = 0,
) -> EvaluationResult:
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
        (by two threads in turn), so memory does not grow with the run. That needs
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
        Diversity measures (``alpha_nDCG@20``, ``ERR_IA@20``, ``NRBP``,
        ``AP_IA``, ``P_IA@10``, ``StRecall@10``, in ir_measures' or ndeval's
        spelling) read ``qrels`` as subtopic judgments (a file, or a
        :class:`~skirm.io.QrelsJG`) and give :func:`evaluate_diversity`'s
        values; the user guide's diversity page says how they mix with the
        other measures.
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
    compat : {"10.0", "9.0"}, default="10.0"
        The trec_eval version to follow. ``"10.0"``: the current release.
        ``"9.0"``: trec_eval 9.0.x, which pytrec_eval bundles and most
        published numbers used: scores compared as C floats (``12.25000004``
        and ``12.25000001`` tie), the older recall cutoffs of
        ``iprec_at_recall`` and ``11pt_avg``, qrels queries missing from the
        run left out, and ``all_trec`` without ``rbp``, ``rbp_resid`` and
        ``unj``. The user guide's TREC page lists every difference.
    verbose : int, default=0
        Progress messages on standard error, one per line: 0 prints none;
        1 a line a second while a run file is read and evaluated (the share
        of its bytes read, the queries evaluated) and one per stage when it
        ends; 2 or more up to ten lines a second.

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
    DuplicateDocnoError
        For a docno twice in an evaluated query of the run or the qrels.
    NoCommonQueryError
        For no query in common.
    MissingQueriesError
        For (``compat="10.0"`` without ``all_queries``) qrels queries missing
        from the run, on which trec_eval 10.0 stops.
    UnknownMeasureError
        For a measure name no grammar knows (all are ``ValueError``).

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
    request = parse_measures(metrics, compat, diversity=True)
    options = Options(
        relevance_level,
        bool(judged_only),
        max_docs,
        bool(all_queries),
        compat,
        collection_size,
    )
    return evaluate_request(
        qrels, run, request, options, rel_format=rel_format, zscores=zscores,
        verbose=verbose,
    )  # fmt: skip


def evaluate_request(
    qrels, run, request, options, *, rel_format, zscores, verbose, subtopics=None
):
    """:func:`evaluate_run` of a parsed :class:`Request` with checked
    :class:`Options` (the command line evaluates every run of a call with
    one request): its :class:`~skirm.trec._plan.Plan` evaluated on the
    inputs read once, then :func:`~skirm.trec._summary.finish`. The
    diversity measures read ``subtopics`` where given (and the others
    ``qrels``), else ``qrels`` read as subtopic judgments."""
    plan = make_plan(request, options, rel_format, zscores is not None)
    if plan.diversity:
        # Imported here: a request without diversity names never loads them.
        from skirm.trec._diversity_run import (
            diversity_part,
            diversity_values,
            plain_qrels,
            subtopics_twice,
        )

        given = qrels if subtopics is None else subtopics
        jg, run, report = diversity_part(given, run, request, options)
        if subtopics is None:
            qrels = plain_qrels(jg)
    else:
        check_qrels_type(qrels, plan.rel_format)
    zscores = as_zscores(zscores)
    ids, per_query, means = None, {}, {}
    run_id, n_topics, n_relevant = "", 0, None
    if plan.entries:
        with reporting(verbose, "skirm.trec.evaluate_run") as progress:
            try:
                evaluated = _evaluate(qrels, run, plan, progress)
            except DuplicateDocnoError as exc:
                if not plan.diversity or subtopics is not None:
                    raise
                raise subtopics_twice(exc) from None
        ids, per_query, run_id, n_topics, n_relevant = evaluated
    else:
        run_id = run.run_id
    if plan.diversity:
        ids, values, means = diversity_values(
            request, jg, report, ids, options.all_queries
        )
        per_query.update(values)
    return finish(
        [o for entry in plan.entries for o in entry.outputs],
        ids,
        per_query,
        run_id=run_id,
        n_topics=n_topics,
        n_relevant=n_relevant,
        all_queries=options.all_queries,
        zscores=zscores,
        means=means,
        names=plan.names,
    )


def _mapped(qrels, gains):
    """``qrels`` with each grade of ``gains`` (sorted ``(grade, gain)``
    pairs) replaced by its gain, others kept (as ir_measures maps them)."""
    grades = np.array([g for g, _ in gains], dtype=np.int64)
    values = np.array([v for _, v in gains], dtype=np.int64)
    at = np.minimum(np.searchsorted(grades, qrels.labels), grades.shape[0] - 1)
    labels = np.where(grades[at] == qrels.labels, values[at], qrels.labels)
    return Qrels(qrels.query_ids, qrels.doc_ids, labels)


def _name(source, what):
    """How the progress names an input: a file's name, else ``what``."""
    if is_path(source):
        return os.path.basename(os.fspath(source)) or what
    return what


def _evaluate(qrels, run, plan, progress):
    """``(ids, per_query, run_id, n_topics, n_relevant)``: the inputs read
    and every entry of the ``plan`` evaluated by the stages of its relevance
    format, told to ``progress``."""
    rel_format = plan.rel_format
    if rel_format == QRELS:
        (entry, *more) = plan.entries
        if not more and not entry.gains and entry.options.ties == "docno":
            if not is_path_or_file(run) and not isinstance(run, Run):
                # dicts of dicts joined as they are (the same values, sooner);
                # imported here: a run read already never takes that path
                from skirm.trec._dicts import NOT_PLAIN, evaluate_dicts

                joined = evaluate_dicts(qrels, run, entry.outputs, entry.options)
                if joined is not NOT_PLAIN:
                    return joined
        progress.stage(
            f"reading {_name(qrels, '')}" if is_path(qrels) else "indexing the qrels"
        )
        in_memory = not (is_path(run) or isinstance(run, Run))
        n = _known_length(qrels) if in_memory else None
        read = judgements(qrels, QRELS) if n is None else None

        def index():
            got = judgements(qrels, QRELS) if read is None else read
            return _indexes(got, plan.entries)

        run_read = None  # (blocks, restart) of a run read beside the index
        if not in_memory or (len(read) if n is None else n) < SIDE_BY_SIDE_QRELS:
            indexes = index()
        else:  # the qrels (read then, if a frame) indexed while the run is read
            indexes, run_read = side_by_side(index, lambda: run_blocks(run))
        index = indexes[()]
        ids, per_query, run_id = _stream(indexes, run, plan.entries, progress, run_read)
        progress.finish()
        return ids, per_query, run_id, index.n_topics, index.n_relevant
    ((outputs, options, _),) = plan.entries
    progress.stage(f"reading {_name(run, 'the run')}")
    block = run_input(run)
    progress.stage(f"evaluating against {_name(qrels, 'the qrels')}")
    read = judgements(qrels, rel_format)
    if rel_format == QRELS_JG:
        ids, per_query, n_topics, n_relevant = _judgment_groups(
            read, block, outputs, options
        )
    else:
        ids, per_query, n_topics = _preferences(read, block, outputs, options)
        n_relevant = None  # no preference measure counts R
    progress.advance(queries=ids.shape[0])
    progress.finish()
    return ids, per_query, block.run_id, n_topics, n_relevant


def _known_length(qrels):
    """The judgements of ``qrels`` known before they are read (the rows of a
    frame or of a :class:`~skirm.io.Qrels`), else None."""
    if isinstance(qrels, Qrels) or (
        library(qrels) is not None and frame_names(qrels) is not None
    ):
        try:
            return len(qrels)
        except TypeError:  # a polars LazyFrame
            return None
    return None


def _indexes(qrels, entries):
    """``{gains: QrelsIndex}``: the qrels (a :class:`~skirm.io.Qrels`)
    indexed once, and once more for each mapping of their grades the
    entries ask for (``()`` first)."""
    indexes = {(): index_of(qrels)}
    for gains in {e.gains for e in entries} - {()}:
        indexes[gains] = QrelsIndex(_mapped(qrels, gains))
    return indexes


def _stream(indexes, run, entries, progress, run_read=None):
    """``(ids, per-query values, run_id)`` of a run against indexed qrels
    (``indexes``, by the mapping of grades of each entry), block by block:
    join, rank, measure each entry (see
    :func:`~skirm.trec._inputs.run_blocks`); then the topics the run lacks.
    ``progress`` is told the bytes read and the queries evaluated, once per
    block. ``run_read``: the run's blocks and restart where
    :func:`~skirm.trec._inputs.run_blocks` has given them already (a run in
    memory, read while the qrels were indexed)."""
    index = indexes[()]
    entries = [
        (indexes[e.gains], bind_qrels_wide(e.outputs, indexes[e.gains].max_label), e)
        for e in entries
    ]
    options = entries[0][2].options
    # the entries of one index share its join, and their rankings where
    # their tie rule and score type agree
    shared: dict[int, tuple] = {}
    for i, (these, _, _) in enumerate(entries):
        shared.setdefault(id(these), (these, []))[1].append(i)

    def step(block):
        values, ids = {}, None
        contexts = [None] * len(entries)
        for these, at in shared.values():
            each = ranked_each(these, block, [entries[i][2].options for i in at])
            if each is None:
                return None, None, block.run_id, block._query_codes()[1][:3].tolist()
            for i, ctx in zip(at, each, strict=True):
                contexts[i] = ctx
        for ctx, (_, outputs, _) in zip(contexts, entries, strict=True):
            values.update(measure(ctx, outputs))
            ids = ctx.ranking.group_ids
        progress.advance(queries=len(ids))
        return ids, values, block.run_id, None

    def on_read(done, total):
        progress.advance(done=done, total=total)

    name = _name(run, "the run")
    progress.stage(name, unit="bytes")
    blocks, restart = run_blocks(run, on_read) if run_read is None else run_read
    if restart is not None and restart.on is RunNotGroupedError:
        in_parts = restart.blocks

        def again(exc):  # the run read again, by query: its queries count anew
            progress.stage(f"{name} (by query)", unit="bytes")
            return in_parts(exc)

        restart = restart._replace(blocks=again)
    parts = map_blocks(step, blocks, restart, _Parts)
    if not parts.n:
        if not parts.sample:  # no block held a line
            raise EmptyRunError("the run is empty: nothing to evaluate")
        raise no_common_error(np.asarray(parts.sample), index.topic_ids)
    absent = index.absent_topics(parts.id_parts)
    missing = missing_rule(options.all_queries, options.compat)
    if absent.shape[0] and missing != "leave out":
        if missing == "raise":
            raise missing_queries_error(absent)
        for block in placeholder_blocks(index, absent):
            ids, values, _, _ = step(block)
            placeholder = np.ones(ids.shape[0], dtype=bool)
            for _, outputs, _ in entries:
                clear_placeholders(outputs, values, placeholder)
            parts.add(ids, values)
    ids, per_query = parts.result()
    return ids, per_query, parts.run_id


class _Parts(PerQuery):
    """What the steps of :func:`_stream` return, gathered in block order:
    the values, the last run id and the first sample of ids of a block with
    no query in the qrels."""

    def __init__(self):
        super().__init__()
        self.run_id, self.sample = "", []

    def append(self, part):
        ids, values, run_id, sample = part
        if run_id is not None:
            self.run_id = run_id
        if ids is not None:
            self.add(ids, values)
        elif sample and not self.sample:
            self.sample = sample


def query_values(index, block, outputs, options, missing):
    """``(group_ids, per_query)`` of one block of run rows (a partition of a
    run, :mod:`skirm.dask`) against indexed qrels: the evaluated queries
    (sorted) and each output's per-query values.

    ``missing`` is the rule of :func:`~skirm.trec._missing.missing_rule` for
    this block (``"leave out"``: the caller applies the rule to the whole
    run). ``block=None`` scores every qrels topic on trec_eval 10.0's ``-c``
    placeholder ranking.
    """
    placeholders = block is None
    if placeholders:
        block = placeholder_block(index.topic_ids)
    ctx = ranked(index, block, options)
    if ctx is None:
        raise no_common_error(block._query_codes()[1], index.topic_ids)
    ids = np.asarray(ctx.ranking.group_ids)
    if missing == "raise" and ids.shape[0] < index.n_topics:
        raise missing_queries_error(index.absent_topics([ids]))
    per_query = measure(ctx, bind_qrels_wide(outputs, index.max_label))
    if placeholders:
        clear_placeholders(outputs, per_query, np.ones(ids.shape[0], dtype=bool))
    return ids, per_query


def _judgment_groups(qrels_jg, block, outputs, options):
    """``-R qrels_jg``: each measure against every judgment group of a query,
    averaged over its groups; ``(ids, per_query, n_topics, n_relevant)``.

    Every (query, group) pair is a topic of one ranking of the grouped run,
    with trec_eval 10.0's ``-c`` placeholders among them.
    """
    check_all_judged(qrels_jg.query_ids, block._query_codes()[1], options)
    rows, grouped, n_topics = group_topics(qrels_jg, block, options.max_docs)
    index = QrelsIndex(rows)
    outputs = bind_qrels_wide(outputs, index.max_label)
    ids = grouped._query_codes()[1]
    absent = index.absent_topics([ids])
    placeholders = (
        missing_rule(options.all_queries, options.compat) == "score"
        and absent.shape[0] > 0
    )
    if placeholders:
        extra = placeholder_block(absent)
        grouped = Run._from_tokens(
            Tokens.concat([grouped._q, extra._q]),
            Tokens.concat([grouped._d, extra._d]),
            np.concatenate([grouped.scores, extra.scores]),
            None,
            grouped._source,
            run_id=grouped.run_id,
        )
    ctx = ranked(index, grouped, options)
    if ctx is None:
        raise no_common_error(ids, index.topic_ids)
    topics = np.asarray(ctx.ranking.group_ids)
    query_ids, group_codes = split_topics(topics)
    per_query = measure(ctx, outputs, group_codes, query_ids.shape[0])
    if placeholders:
        placeholder = np.isin(topics, absent)
        if placeholder.any():
            clear_placeholders(outputs, per_query, placeholder)
    return query_ids, per_query, n_topics, index.n_relevant


def _preferences(prefs, block, outputs, options):
    """``-R prefs`` / ``qrels_prefs``: the preference measures;
    ``(ids, per_query, n_topics)``."""
    from skirm.trec._preferences import PrefsEvaluation

    check_all_judged(prefs.query_ids, block._query_codes()[1], options)
    placeholders = missing_rule(options.all_queries, options.compat) == "score"
    ctx = PrefsEvaluation(prefs, block, placeholders, options)
    ids = ctx.query_ids
    per_query = measure(ctx, outputs, None, ids.shape[0])
    n_topics = np.unique(prefs.query_ids).shape[0]
    return ids, per_query, n_topics
