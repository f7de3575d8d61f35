"""Rank: trec_eval's ranking of a joined block, on the shared engine.

Documents go by score descending, ties by docno descending (byte order, as
``strcmp``); then ``-M`` keeps the top of each query and ``-J`` drops the
unjudged documents. :func:`ranked` joins a block of run rows to the qrels
index and ranks it: the measure stage's :class:`Context`.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import Judgments, Ranking, rank_order, ranking_of
from skirm.io._join import (
    block_duplicate_error,
    block_repeat,
    join,
    judgment_of_rows,
    raw_type,
)
from skirm.trec._measures import Context


def ranked(index, block, options):
    """The :class:`~skirm.trec._measures.Context` of a block of run rows
    (every row of its queries) joined to the qrels ``index`` and ranked
    under ``options`` (a :class:`~skirm.trec._request.Options`); None when
    none of the block's queries is in the qrels. The context's
    ``ranking.group_ids`` are the evaluated queries, sorted."""
    contexts = ranked_each(index, block, [options])
    return None if contexts is None else contexts[0]


def ranked_each(index, block, each):
    """The context of the block under each options of ``each``, from one
    join and one ranking per tie rule and score type (the entries of a
    plan differ in them, or only in the relevance level, ``-J`` and the
    outputs); None when none of the block's queries is in the qrels.

    Tied scores go by docno descending (``ties="docno"``, trec_eval's rule),
    ascending (``"docno_ascending"``) or in the block's row order
    (``"input"``). Each array of the joined rows is freed once the last
    ranking is built, and the labels are taken from the relevance values
    once ranked: no array of them in run order is built.
    """
    eval_ids, keep, codes, raw, j_codes, j_raw, repeats = join(index, block)
    if not eval_ids.shape[0]:
        return None
    every = keep.shape[0] == len(block)
    scores = block.scores if every else block.scores[keep]
    # Any docno twice in a query? Asked by the join; only then is the first
    # repeat looked for.

    def check(ranking, cut):
        if repeats:
            _check_duplicates(block, keep, ranking, cut)

    def of_rows():
        return judgment_of_rows(index, block, keep, codes, eval_ids)

    rankings = {}
    keys = [(options.ties, options.c_floats) for options in each]
    for ties, floats in keys:
        if (ties, floats) in rankings:
            continue
        if ties == "input":
            tiebreak = keep.take
        else:
            tiebreak = by_docno(block._d, keep, ties == "docno")
        last = len(rankings) + 1 == len(set(keys))
        rankings[ties, floats] = rank_joined(
            eval_ids, scores, codes, raw, j_codes, j_raw, tiebreak, floats, of_rows
        )
        if last:
            del scores, raw
    contexts, checked = [], set()
    for options, key in zip(each, keys, strict=True):
        ranking, ranked_raw = rankings[key]
        first = key not in checked  # the run's duplicates, once per ranking
        checked.add(key)
        contexts.append(
            cut_context(ranking, ranked_raw, j_codes, j_raw, options, first and check)
        )
    return contexts


def joined_context(
    eval_ids,
    scores,
    codes,
    raw,
    j_codes,
    j_raw,
    tiebreak,
    options,
    check=None,
    of_rows=None,
    judged_cache=None,
):
    """The :class:`~skirm.trec._measures.Context` of joined run rows
    (:func:`rank_joined`) under ``options``
    (:class:`~skirm.trec._request.Options`), once ``-M`` and ``-J`` have
    cut its ranking (:func:`cut_context`; ``judged_cache``: the
    context's)."""
    ranking, ranked_raw = rank_joined(
        eval_ids, scores, codes, raw, j_codes, j_raw, tiebreak, options.c_floats,
        of_rows,
    )  # fmt: skip
    return cut_context(
        ranking, ranked_raw, j_codes, j_raw, options, check, judged_cache
    )


def rank_joined(
    eval_ids, scores, codes, raw, j_codes, j_raw, tiebreak, floats, of_rows=None
):
    """``(ranking, ranked relevance values)`` of joined run rows: ``codes``
    (their query's index into the sorted ``eval_ids``), ``scores`` (compared
    as C floats with ``floats``), ``raw`` (trec_eval's relevance value of
    each) and every judgement of the evaluated queries (``j_codes``,
    ``j_raw``); ties broken by ``tiebreak`` (a
    :func:`~skirm._engine.rank_order` key). ``raw`` may also be a function
    of the :class:`~skirm._engine.Ordered` rows that returns the relevance
    values in rank order (the dicts' join, which looks the judgements up in
    the ranking rather than the rows in the qrels). ``of_rows()`` gives the
    judgement of each row (an index into ``j_codes``, -1 if none), computed
    only when a measure asks (see :class:`~skirm._engine.Judgments`)."""
    if floats:
        scores = c_floats(scores)
    ordered = rank_order(
        scores, codes, int(eval_ids.shape[0]), "first", tiebreak=tiebreak
    )
    ranked_raw = raw(ordered) if callable(raw) else raw[ordered.order]
    judgments = _judgments(j_codes, j_raw, of_rows)
    ranking = ranking_of(ordered, _labels(ranked_raw), eval_ids, judgments=judgments)
    return ranking, ranked_raw


def placed_context(
    eval_ids,
    at,
    raw,
    starts,
    sort,
    j_codes,
    j_raw,
    options,
    of_rows,
    judged_cache=None,
):
    """:func:`joined_context` of rows placed by their ranks: trec_eval's
    relevance values ``raw`` of the judged rows at ranked positions ``at``,
    every other row unjudged (query ``c`` at ``starts[c]:starts[c + 1]``,
    ranked as :func:`joined_context` ranks). ``sort()`` returns the
    ranking's ``(order, scores)``, called only if a measure reads them (few
    do: the ranked labels are all most need). ``judged_cache``: the
    :class:`~skirm.trec._measures.Context`'s."""
    n = int(starts[-1])
    ranked_raw = np.full(n, -1, dtype=raw_type(j_raw))
    ranked_raw[at] = raw
    # the rows of a positive label, in order (found in the ranked values:
    # no sort): the labels of every row are made only if a measure reads
    # them (most read the relevant rows alone)
    rows = np.flatnonzero(ranked_raw > 0)
    placed = rows, ranked_raw[rows].astype(np.float64)
    sizes = starts[1:] - starts[:-1]
    judgments = _judgments(j_codes, j_raw, of_rows)
    ranking = Ranking(
        None,
        None,
        None,
        None,
        eval_ids,
        "first",
        judgments=judgments,
        sizes=sizes,
        starts=starts,
        sort=sort,
        placed=placed,
    )
    return cut_context(
        ranking, ranked_raw, j_codes, j_raw, options, judged_cache=judged_cache
    )


def c_floats(scores):
    """``scores`` as trec_eval 9.0.x holds them: C floats (as float64)."""
    with np.errstate(over="ignore"):
        return scores.astype(np.float32).astype(np.float64)


def _judgments(j_codes, j_raw, of_rows):
    gains = np.maximum(j_raw, 0).astype(np.float64)
    return Judgments(j_codes, gains, of_rows)


def _labels(ranked_raw):
    """The ranked labels: unjudged rows and negative levels 0."""
    labels = ranked_raw.astype(np.float64)
    np.maximum(labels, 0.0, out=labels)
    return labels


def cut_context(
    ranking, ranked_raw, j_codes, j_raw, options, check=None, judged_cache=None
):
    """The :class:`Context` of a ranking of every retrieved row, once ``-M``
    and ``-J`` have cut it (``check(ranking, cut)`` sees it before;
    ``judged_cache``: the context's)."""
    max_docs = options.max_docs
    cut = None
    if max_docs is not None:
        cut = ranking.position < max_docs
    if check:
        check(ranking, cut)
    if options.judged_only:
        judged = ranked_raw >= 0
        cut = judged if cut is None else cut & judged
    if cut is not None and not cut.all():
        order, scores, sort = ranking.sorted_later(cut)
        ranking = Ranking(
            order,
            ranking.codes[cut],
            ranking.labels[cut],
            scores,
            ranking.group_ids,
            "first",
            judgments=ranking.judgments,
            sort=sort,
        )
        ranked_raw = ranked_raw[cut]
    # A document is judged when the qrels list it for the query, whatever
    # its label: what the registry's judged@k reads.
    ranking.judged = ranked_raw != -1
    return Context(ranking, ranked_raw, j_codes, j_raw, options, judged_cache)


def _check_duplicates(block, keep, ranking, inside):
    """Each docno at most once per evaluated query, within ``max_docs``
    (``inside``), as trec_eval checks."""
    order = ranking.order if inside is None else ranking.order[inside]
    pair = block_repeat(block, keep[order])
    if pair is not None:
        raise block_duplicate_error(block, pair, "the run")


def by_docno(docs, keep, descending=True):
    """The tiebreak of :func:`~skirm._engine.rank_order` that puts tied
    rows by docno descending (byte order, as strcmp), or ascending: a
    function of the ranked rows of whole tie blocks (``docs[keep[rows]]``
    are their docnos), called on the tied rows only."""

    def key(rows):
        rank = docs.order_key(keep[rows])
        if descending:
            np.negative(rank, out=rank)
        return rank

    return key
