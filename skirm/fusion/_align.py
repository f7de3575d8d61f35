"""Runs in, rows out, and back: the (query, docno) pairs of several runs
aligned into one matrix of scores, and fused scores made a run.

Each run is a :class:`skirm.io.Run` (read or converted by :mod:`skirm.io`).
Its query ids are coded against the union of every run's queries, its
docnos hashed with their query code; the union of the pairs is found on the
hashes and every row verified byte for byte against the first row of its
pair (on the strings after a hash collision). No Python statement runs per
row or per query.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skirm._engine import rank_order
from skirm._errors import DuplicateDocnoError
from skirm.io._records import Run, RunBlock, run_of_block
from skirm.io._tokens import Tokens, first_duplicate, mix

__all__ = ["Aligned", "align_runs", "fused_run"]


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


def align_runs(runs) -> Aligned:
    """The union of the (query, docno) pairs of ``runs`` (skirm.io.Run),
    with each run's score of each."""
    tokens = [run._tokens() for run in runs]
    coded = [run._query_codes() for run in runs]
    query_ids = np.unique(np.concatenate([ids for _, ids in coded]))
    codes = [np.searchsorted(query_ids, ids)[c] for c, ids in coded]
    for index, (run, c) in enumerate(zip(runs, codes, strict=True)):
        pair = first_duplicate(c, tokens[index][1])
        if pair is not None:
            raise _duplicate(run, index, pair, c, query_ids)
    docs = Tokens.concat([d for _, d in tokens])
    all_codes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.intp)
    first, inverse = _pairs(all_codes, docs)
    X = np.full((first.shape[0], len(runs)), np.nan)
    at = 0
    for j, run in enumerate(runs):
        X[inverse[at : at + len(run)], j] = run.scores
        at += len(run)
    return Aligned(X, all_codes[first], query_ids, docs.take(first))


def _pairs(codes, docs):
    """``(first, inverse)``: the first row of each distinct (code, docno)
    pair, grouped by code, and each row's pair."""
    n = codes.shape[0]
    keys = mix(docs.hash(cache=False), codes)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rep = first[inverse]
    other = np.flatnonzero(rep != np.arange(n))  # each pair's later rows
    same = (codes[other] == codes[rep[other]]) & docs.equal(other, docs, rep[other])
    if not same.all():  # a hash collision: decide on the strings
        _, d_codes = np.unique(docs.strings(), return_inverse=True)
        keys = codes.astype(np.int64) * max(n, 1) + d_codes.reshape(-1)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    order = np.argsort(codes[first], kind="stable")
    place = np.empty_like(order)
    place[order] = np.arange(order.shape[0])
    return first[order], place[inverse]


def fused_run(aligned: Aligned, fused: np.ndarray, run_id: str) -> Run:
    """The rows of positive fused score weight (``fused > -inf``) as a run,
    ranked: by query id, then fused score descending, then docno descending
    (trec_eval's order of ties)."""
    keep = np.flatnonzero(fused > -np.inf)
    codes, docs = aligned.codes[keep], aligned.docs.take(keep)
    ordered = rank_order(
        fused[keep],
        codes,
        aligned.query_ids.shape[0],
        tiebreak=lambda rows: -docs.byte_rank(rows),
    )
    order = ordered.order
    queries = Tokens.from_strings(aligned.query_ids)
    block = RunBlock(
        queries.take(ordered.codes),
        docs.take(order),
        ordered.scores,
        None,
        "<fused>",
        run_id,
    )
    return run_of_block(block)
