"""Runs to fuse, generated one dimension at a time, and a slow reference of
skirm's fusion rules (a Python loop per query and document, from the
formulas of the user guide), for the tests of skirm.fusion, FusionRanker,
skirm.trec.fuse and skirm fuse."""

from __future__ import annotations

import math

import numpy as np

#: ranx's name of each skirm method.
RANX_METHODS = {
    "rrf": "rrf",
    "isr": "isr",
    "borda": "bordafuse",
    "rbc": "rbc",
    "combsum": "sum",
    "combmnz": "mnz",
    "combmax": "max",
    "combmin": "min",
    "combanz": "anz",
}
#: ranx's name of each skirm normalisation.
RANX_NORMS = {
    "min-max": "min-max",
    "max": "max",
    "sum": "sum",
    "zscore": "zmuv",
    "rank": "rank",
    "borda": "borda",
    "none": None,
}
RANK_METHODS = ("rrf", "isr", "borda", "rbc")
SCORE_METHODS = ("combsum", "combmnz", "combmax", "combmin", "combanz")

#: The dimensions the generated runs vary, one at a time.
DIMENSIONS = (
    "plain",
    "missing",
    "ties",
    "single",
    "negative",
    "one_retriever",
    "empty",
)


def make_runs(dimension, seed, n_queries=12, n_runs=3):
    """``n_runs`` runs as dicts of dicts ``{qid: {docid: score}}``, every
    query in every run, varying ``dimension`` from the plain case:

    - ``plain``: 3 to 15 documents of a pool of 20 per run and query, scores
      distinct and positive (half-normal);
    - ``missing``: each run draws from its own part of a pool of 40 with a
      small overlap, so most documents are missing from most runs;
    - ``ties``: scores drawn from four values, and a fifth, larger, once;
    - ``single``: one query in two with a single document in each run;
    - ``negative``: every score negative (log-probabilities);
    - ``one_retriever``: one run;
    - ``empty``: one query in three empty in one run.
    """
    rng = np.random.default_rng(seed)
    if dimension == "one_retriever":
        n_runs = 1
    runs = [{} for _ in range(n_runs)]
    for q in range(n_queries):
        qid = f"q{q}"
        for r, run in enumerate(runs):
            n = int(rng.integers(3, 16))
            if dimension == "single" and q % 2 == 0:
                n = 1
            if dimension == "empty" and q % 3 == 0 and r == q % n_runs:
                run[qid] = {}
                continue
            if dimension == "missing":
                lo = 10 * r
                docs = rng.choice(np.arange(lo, lo + 16), min(n, 16), replace=False)
            else:
                docs = rng.choice(20, n, replace=False)
            scores = np.abs(rng.normal(size=docs.shape[0])) * 3 + 0.01
            if dimension == "ties":  # never all equal: see "single"
                scores = rng.integers(1, 5, size=docs.shape[0]).astype(float)
                scores[0] = 5.0
            if dimension == "negative":
                scores = -scores
            run[qid] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
    return runs


def aligned(runs):
    """``(keys, X, groups)``: the (qid, docid) pairs of the runs, sorted, and
    each run's score of each (NaN where absent), built with Python dicts."""
    keys = sorted({(q, d) for run in runs for q in run for d in run[q]})
    X = np.array(
        [[run.get(q, {}).get(d, np.nan) for run in runs] for q, d in keys]
    ).reshape(len(keys), len(runs))
    return keys, X, [q for q, _ in keys]


def as_values(fused_dict, keys):
    """The values of ``{qid: {docid: value}}`` at ``keys`` (NaN if absent)."""
    return np.array([fused_dict.get(q, {}).get(d, np.nan) for q, d in keys])


def assert_same_ranking(got, want, groups, atol=1e-12):
    """Within each query, ordering the rows by ``got`` orders ``want`` too
    (equal up to ``atol`` where ``got`` ties)."""
    groups = np.asarray(groups)
    for q in np.unique(groups):
        rows = np.flatnonzero(groups == q)
        order = rows[np.argsort(-got[rows], kind="stable")]
        assert np.all(np.diff(want[order]) <= atol), q


# --------------------------------------------------------------------------
# The slow reference: skirm's rules, query by query, document by document
# --------------------------------------------------------------------------


def _tie_mean(values, scores):
    """``values`` (one per position of ``scores`` sorted descending)
    averaged over equal scores."""
    out = []
    for s in scores:
        tied = [values[j] for j, t in enumerate(scores) if t == s]
        out.append(sum(tied) / len(tied))
    return out


def _ranked(run_q):
    """Documents and scores of one run's query, best first."""
    items = sorted(run_q.items(), key=lambda item: -item[1])
    return [d for d, _ in items], [s for _, s in items]


def _normalized(run_q, norm, candidates):
    docs, scores = _ranked(run_q)
    n, big_n = len(docs), len(candidates)
    if n == 0 and norm != "borda":
        return {}
    if norm == "none":
        values = scores
    elif norm == "min-max":
        lo, hi = min(scores), max(scores)
        values = [1.0 if hi == lo else (s - lo) / (hi - lo) for s in scores]
    elif norm == "max":
        values = [s / max(scores) for s in scores]
    elif norm == "sum":
        lo = min(scores)
        total = sum(s - lo for s in scores)
        values = [1.0 / n if total == 0 else (s - lo) / total for s in scores]
    elif norm == "zscore":
        mean = sum(scores) / n
        std = math.sqrt(sum((s - mean) ** 2 for s in scores) / n)
        values = [0.0 if std == 0 else (s - mean) / std for s in scores]
    elif norm == "rank":
        values = _tie_mean([1 - i / n for i in range(n)], scores)
    else:  # borda
        values = _tie_mean([1 - i / big_n for i in range(n)], scores)
    out = dict(zip(docs, values, strict=True))
    if norm == "borda":
        for d in candidates:
            out.setdefault(d, 0.5 - (n - 1) / (2 * big_n))
    return out


def _rank_values(run_q, method, k, phi, candidates):
    docs, scores = _ranked(run_q)
    n, big_n = len(docs), len(candidates)
    f = {
        "rrf": lambda i: 1 / (k + i + 1),
        "isr": lambda i: 1 / (i + 1) ** 2,
        "rbc": lambda i: (1 - phi) * phi**i,
        "borda": lambda i: big_n - i,
    }[method]
    out = dict(zip(docs, _tie_mean([f(i) for i in range(n)], scores), strict=True))
    if method == "borda":
        for d in candidates:
            out.setdefault(d, (big_n - n + 1) / 2)
    return out


def reference_fuse(runs, method="rrf", norm="min-max", k=60.0, phi=0.8, weights=None):
    """``{qid: {docid: fused}}`` by skirm's rules, one query at a time; runs
    of weight 0 are left out, and so are the documents only they returned."""
    weights = [1.0] * len(runs) if weights is None else list(weights)
    kept = [(run, w) for run, w in zip(runs, weights, strict=True) if w > 0]
    fused = {}
    for q in sorted({q for run in runs for q in run}):
        candidates = sorted({d for run, _ in kept for d in run.get(q, {})})
        if not candidates:
            continue
        parts = []
        for run, w in kept:
            run_q = run.get(q, {})
            if method in RANK_METHODS:
                values = _rank_values(run_q, method, k, phi, candidates)
            else:
                values = _normalized(run_q, norm, candidates)
            parts.append({d: w * v for d, v in values.items()})
        fused[q] = {}
        for d in candidates:
            got = [p[d] for p in parts if d in p]
            total = 0.0
            for v in got:
                total += v
            fused[q][d] = {
                "combmnz": total * len(got),
                "isr": total * len(got),
                "combanz": total / len(got),
                "combmax": max(got),
                "combmin": min(got),
            }.get(method, total)
    return fused
