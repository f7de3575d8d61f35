"""Runs in, rows out, and back: the (query, docno) pairs of several runs
aligned into one matrix of scores, and fused scores made a run.

Each run is a :class:`skirm.io.Run` (read or converted by :mod:`skirm.io`).
Its query ids are coded against the union of every run's queries, its
docnos hashed; the union of the pairs is found by one sort of keys made of
the query code and the docno's hash, and every row verified byte for byte
against a row of its pair (on the strings after a collision). No Python
statement runs per row or per query.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skirm._engine import rank_order
from skirm._errors import DuplicateDocnoError
from skirm.io._dict_union import union_rows
from skirm.io._records import Run
from skirm.io._tokens import Tokens, first_duplicate

__all__ = ["Aligned", "align_dicts", "align_runs", "fused_run"]


class Aligned(NamedTuple):
    """The rows of several runs: one per (query, docno) any run holds.

    ``X`` holds each run's score of each row (NaN where the run lacks it),
    ``codes`` each row's index into ``query_ids`` (sorted), ``docs`` each
    row's docno; the rows are grouped by query code.
    """

    X: np.ndarray
    codes: np.ndarray
    query_ids: np.ndarray
    docs: Tokens


def _duplicate(run, index, pair, codes, query_ids):
    first, second = pair
    doc = str(run._tokens()[1].strings(np.array([second]))[0])
    query = str(query_ids[codes[second]])
    lines = run._lines
    if lines is not None:
        where = f"{run._source}:{int(lines[second]) + 1}: "
        at = f"line {int(lines[first]) + 1}"
    else:
        where, at = "", f"row {first}"
    return DuplicateDocnoError(
        f"{where}duplicate docno {doc!r} for query {query!r} (first at {at}) in "
        f"run {index} ({run.run_id!r}); a run to fuse holds each docno once "
        "per query"
    )


def align_dicts(runs) -> Aligned | None:
    """The rows of ``runs`` held as plain dicts ``{qid: {docno: score}}``,
    read by :func:`skirm.io._dict_union.union_rows`: the rows
    :func:`align_runs` finds for the same runs as records, with the same
    scores, each query's rows in another order (which no fusion reads);
    None where the runs are not all such dicts (the caller reads them as
    records)."""
    rows = union_rows(runs)
    return None if rows is None else Aligned(*rows)


def align_runs(runs) -> Aligned:
    """The union of the (query, docno) pairs of ``runs`` (skirm.io.Run),
    with each run's score of each."""
    tokens = [run._tokens()[1] for run in runs]
    coded = [run._query_codes() for run in runs]
    query_ids = np.unique(np.concatenate([ids for _, ids in coded]))
    codes = [np.searchsorted(query_ids, ids)[c] for c, ids in coded]
    sizes = np.array([len(run) for run in runs], dtype=np.int64)
    first, inverse = _pairs(codes, tokens, sizes, query_ids.shape[0])
    starts = np.concatenate(([0], np.cumsum(sizes)))
    X = np.full((first.shape[0], len(runs)), np.nan)
    for j, run in enumerate(runs):
        pairs = inverse[starts[j] : starts[j + 1]]
        if (np.bincount(pairs, minlength=first.shape[0]) > 1).any():
            pair = first_duplicate(codes[j], tokens[j])
            raise _duplicate(run, j, pair, codes[j], query_ids)
        X[pairs, j] = run.scores
    # the docnos of the pairs, each from the run of its first row
    run_of = np.searchsorted(starts, first, side="right") - 1
    parts, where = [], np.empty(first.shape[0], dtype=np.int64)
    at = 0
    for j, docs in enumerate(tokens):
        mine = np.flatnonzero(run_of == j)
        parts.append(docs.take(first[mine] - starts[j]))
        where[mine] = np.arange(at, at + mine.shape[0])
        at += mine.shape[0]
    docs = Tokens.concat(parts).take(where)
    all_codes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.intp)
    return Aligned(X, all_codes[first], query_ids, docs)


def _pairs(codes, tokens, sizes, n_queries):
    """``(first, inverse)``: a row (of the runs' rows, one after the other)
    of each distinct (query code, docno) pair, the pairs in code order, and
    each row's pair.

    A pair's key is its query code in the high bits and its docno's hash in
    the others, so that one sort finds the pairs already grouped by query.
    Each row is then verified against its pair's row byte for byte; on a
    collision of keys, the pairs are found on the strings instead.
    """
    shift = np.uint64(max(int(n_queries).bit_length(), 1))
    top = np.uint64(64) - shift
    all_codes = np.concatenate(codes)
    keys = np.concatenate(
        [
            (c.astype(np.uint64) << top) | (d.hash(cache=False) >> shift)
            for d, c in zip(tokens, codes, strict=True)
        ]
    )
    first, inverse = _distinct(keys)
    n = keys.shape[0]
    rep = first[inverse]
    other = np.flatnonzero(rep != np.arange(n))  # each pair's other rows
    starts = np.concatenate(([0], np.cumsum(sizes)))
    run_of = np.searchsorted(starts, other, side="right") - 1
    rep_run = np.searchsorted(starts, rep[other], side="right") - 1
    m = len(tokens)
    same = np.ones(other.shape[0], dtype=bool)
    for combined in np.unique(run_of * m + rep_run).tolist():
        j, i = divmod(combined, m)
        at = np.flatnonzero((run_of == j) & (rep_run == i))
        rows, reps = other[at] - starts[j], rep[other[at]] - starts[i]
        same[at] = tokens[j].equal(rows, tokens[i], reps)
    if not same.all():  # a collision of keys: decide on the strings
        strings = np.concatenate([d.strings() for d in tokens])
        _, d_codes = np.unique(strings, return_inverse=True)
        keys = all_codes.astype(np.int64) * max(n, 1) + d_codes.reshape(-1)
        first, inverse = _distinct(keys)
    return first, inverse


def _distinct(keys):
    """``(first, inverse)``: a position of each distinct key, ascending by
    key, and each key's index among them."""
    order = np.argsort(keys)
    sorted_keys = keys[order]
    new = np.ones(keys.shape[0], dtype=bool)
    new[1:] = sorted_keys[1:] != sorted_keys[:-1]
    inverse = np.empty(keys.shape[0], dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


def fused_run(aligned: Aligned, fused: np.ndarray, run_id: str) -> Run:
    """The rows of positive fused score weight (``fused > -inf``) as a run,
    ranked: by query id, then fused score descending, then docno descending
    (trec_eval's order of ties)."""
    codes, docs = aligned.codes, aligned.docs
    keep = np.flatnonzero(fused > -np.inf)
    if keep.shape[0] < fused.shape[0]:  # rows only runs of weight 0 hold
        fused, codes, docs = fused[keep], codes[keep], docs.take(keep)
    queries = Tokens.from_strings(aligned.query_ids)
    if fused.shape[0]:
        ordered = rank_order(
            fused,
            codes,
            aligned.query_ids.shape[0],
            tiebreak=lambda rows: -docs.order_key(rows),
        )
        order, codes, scores = ordered.order, ordered.codes, ordered.scores
    else:  # nothing returned
        order, scores = keep, fused
    return Run._from_tokens(
        queries.take(codes),
        docs.take(order),
        scores,
        None,
        "<fused>",
        run_id="" if run_id is None else run_id,
    )
