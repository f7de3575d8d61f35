"""Fusion of runs: skirm next to ranx, and the tuning of weights on folds.

Every case runs in a fresh process; the data are built there (seeded, not
timed) and the tool imported (not timed), then the call is timed (wall and
CPU time, and the process's peak resident memory, ``VmHWM``: its own, where
``ru_maxrss`` would keep the size of the process that started it):

- ``rrf`` and ``mnz``: three runs of ``--queries`` queries x ``--docs``
  documents (each run the top ``--docs`` of 1.5 x ``--docs`` candidates,
  so most documents are in two or three runs), held as dicts of dicts,
  fused by reciprocal rank fusion (k = 60) and by CombMNZ with min-max
  normalisation. *End to end*: the runs' objects built from the dicts and
  fused (ranx: ``Run(d)`` three times, then ``ranx.fuse``; skirm:
  ``skirm.trec.fuse(dicts)``, which converts them). ranx is also timed with
  its ``Run`` objects already built (``fuse`` alone), and skirm's kernels
  alone, ``skirm.fusion.fuse_scores`` on the same rows as a matrix. ranx compiles its
  kernels with numba: each ranx process fuses tiny runs first (the warm-up,
  reported, not timed). Each process checks its fused run against a digest
  of the other tool's (count and sum of the fused scores).
- ``tune``: three runs of ``--tune-queries`` queries, the weights chosen on
  5 folds of queries (every multiple of 0.1 summing to 1: 66 vectors):
  ``skirm.trec.tune_fusion(qrels, runs, "ndcg@10", folds=5)`` (trec_eval's
  NDCG@10, the held-out run and the evaluations of the comparison
  included); ``FusionRanker(weights="search")`` fitted on the training rows
  of each of the 5 folds and predicting the held-out ones (the array door,
  skirm's NDCG@10); and, for scale, ranx's ``optimize_fusion`` (``wsum``,
  min-max, the same 66 vectors) once on all queries -- the grid search of
  one fold, which a 5-fold tuning repeats.

The tools' processes alternate (ranx, skirm, ranx, ...) ``--repeats`` times
so that load from elsewhere hits both alike; the report gives medians and
the load average.

Run: ``python benchmarks/bench_fusion.py [--queries 10000] [--docs 100]
[--tune-queries 1000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import CHILD_PRELUDE, cache_bytecode

CHILD = (
    CHILD_PRELUDE
    + r"""
import json, resource, sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")

n_queries, n_docs = int(sys.argv[1]), int(sys.argv[2])
tool, case = sys.argv[3], sys.argv[4]

def make(seed, n_queries):
    rng = np.random.default_rng(seed)
    pool = n_docs * 3 // 2
    labels = rng.choice(4, size=(n_queries, pool), p=[0.7, 0.15, 0.1, 0.05])
    runs = []
    for noise in (1.0, 1.3, 1.6):
        scores = labels + noise * rng.standard_normal(labels.shape)
        top = np.argsort(-scores, axis=1)[:, :n_docs]
        run = {}
        for q in range(n_queries):
            docs = top[q]
            run[f"q{q}"] = dict(zip([f"d{d}" for d in docs.tolist()],
                                    scores[q, docs].tolist()))
        runs.append(run)
    qrels = {f"q{q}": {f"d{d}": int(labels[q, d]) for d in range(pool)
                       if labels[q, d] > 0 or d % 5 == 0}
             for q in range(n_queries)}
    return runs, qrels

def digest(pairs):
    values = np.fromiter((s for _, _, s in pairs), dtype=float)
    return [int(values.shape[0]), float(values.sum())]

runs, qrels = make(0, n_queries)
tiny_runs, tiny_qrels = make(1, 3)
out = {"warm_up": 0.0}
method = {"rrf": ("rrf", None), "mnz": ("mnz", "min-max")}.get(case)
start = time.perf_counter()
if tool == "ranx":  # numba compiles (or loads its cache) on first use
    import ranx
    from ranx import Qrels, Run, optimize_fusion
    if method is not None:
        ranx.fuse([Run(r) for r in tiny_runs], method=method[0], norm=method[1])
    else:
        optimize_fusion(Qrels(tiny_qrels), [Run(r) for r in tiny_runs],
                        norm="min-max", method="wsum", metric="ndcg@10",
                        show_progress=False)
else:  # skirm's modules imported and first calls made, as ranx's
    from skirm.model_selection import QueryGroupKFold
    from skirm.ranker import FusionRanker
    from skirm.trec import fuse, tune_fusion
    fuse(tiny_runs)
    tune_fusion(tiny_qrels, tiny_runs, folds=2, weight_step=0.5)
out["warm_up"] = time.perf_counter() - start
if case in ("rrf", "mnz"):
    start, cpu = time.perf_counter(), time.process_time()
    if tool == "ranx":
        objects = [Run(run) for run in runs]
        built, built_cpu = time.perf_counter(), time.process_time()
        fused = ranx.fuse(objects, method=method[0], norm=method[1])
        out["fuse_alone"] = time.perf_counter() - built
        out["fuse_alone_cpu"] = time.process_time() - built_cpu
    else:
        name = "rrf" if case == "rrf" else "combmnz"
        fused = fuse(runs, method=name, norm="min-max")
    out["seconds"] = time.perf_counter() - start
    out["cpu"] = time.process_time() - cpu
    # the fused run as Python objects, for the digest: not timed
    if tool == "ranx":
        fused = fused.to_dict()
        pairs = [(q, d, s) for q in fused for d, s in fused[q].items()]
    else:
        pairs = list(zip(fused.query_ids, fused.doc_ids, fused.scores.tolist()))
        # the kernels alone: the same rows as a matrix (built, not timed)
        from skirm.fusion import fuse_scores
        index = {}
        for j, run in enumerate(runs):
            for q, docs in run.items():
                for d, score in docs.items():
                    index.setdefault((q, d), [np.nan] * len(runs))[j] = score
        X = np.array(list(index.values()))
        groups = np.array([int(q[1:]) for q, _ in index])
        start, cpu = time.perf_counter(), time.process_time()
        fuse_scores(X, groups=groups, method=name, norm="min-max")
        out["arrays"] = time.perf_counter() - start
        out["arrays_cpu"] = time.process_time() - cpu
    out["digest"] = digest(pairs)
elif case == "tune":
    if tool == "ranx":
        objects = [Run(run) for run in runs]
        qrels_object = Qrels(qrels)
        start, cpu = time.perf_counter(), time.process_time()
        best = optimize_fusion(qrels_object, objects, norm="min-max", method="wsum",
                               metric="ndcg@10", step=0.1, show_progress=False)
        out["weights"] = [list(best["weights"])]
    elif tool == "skirm-runs":
        start, cpu = time.perf_counter(), time.process_time()
        tuned = tune_fusion(qrels, runs, "ndcg@10", method="combsum", folds=5)
        out["weights"] = tuned.weights.tolist()
    else:  # skirm-arrays: FusionRanker on the aligned rows, 5 folds
        keys = sorted({(q, d) for run in runs for q in run for d in run[q]})
        X = np.array([[run[q].get(d, np.nan) for run in runs] for q, d in keys])
        groups = np.array([int(q[1:]) for q, _ in keys])
        y = np.array([qrels[q].get(d, 0) for q, d in keys])
        start, cpu = time.perf_counter(), time.process_time()
        held_out, weights = np.empty(y.shape[0]), []
        for train, test in QueryGroupKFold(5).split(X, y, groups=groups):
            model = FusionRanker("combsum", weights="search")
            model.fit(X[train], y[train], groups=groups[train])
            held_out[test] = model.predict(X[test], groups=groups[test])
            weights.append(model.weights_.tolist())
        out["weights"] = weights
    out["seconds"] = time.perf_counter() - start
    out["cpu"] = time.process_time() - cpu
out["peak_mib"] = peak_mib()
print(json.dumps(out))
"""
)

ROOT = Path(__file__).resolve().parent.parent


def run_case(tool, case, queries, docs):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as where:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(queries), str(docs), tool, case],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode:
        raise RuntimeError(f"{tool} {case} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(rows, key):
    return statistics.median(row[key] for row in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--tune-queries", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=["rrf", "mnz", "tune"])
    args = parser.parse_args(argv)
    cache_bytecode()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    lines = []
    for case in ("rrf", "mnz"):
        if case not in args.only:
            continue
        rows = {"ranx": [], "skirm": []}
        for _ in range(args.repeats):
            for tool in rows:
                rows[tool].append(run_case(tool, case, args.queries, args.docs))
        a, b = rows["ranx"][0]["digest"], rows["skirm"][0]["digest"]
        agree = a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 * max(abs(a[1]), 1.0)
        ranx_s, skirm_s = (
            _median(rows["ranx"], "seconds"),
            _median(rows["skirm"], "seconds"),
        )
        alone = _median(rows["ranx"], "fuse_alone")
        alone_cpu = _median(rows["ranx"], "fuse_alone_cpu")
        lines.append(
            f"| {case} | {ranx_s:.2f} s ({_median(rows['ranx'], 'cpu'):.2f} s CPU), "
            f"{_median(rows['ranx'], 'peak_mib'):.0f} MiB | {alone:.2f} s "
            f"({alone_cpu:.2f} s CPU) | "
            f"{skirm_s:.2f} s ({_median(rows['skirm'], 'cpu'):.2f} s CPU), "
            f"{_median(rows['skirm'], 'peak_mib'):.0f} MiB | "
            f"{_median(rows['skirm'], 'arrays'):.2f} s "
            f"({_median(rows['skirm'], 'arrays_cpu'):.2f} s CPU) | "
            f"**{ranx_s / skirm_s:.1f}x** ({alone / skirm_s:.1f}x); CPU "
            f"{_median(rows['ranx'], 'cpu') / _median(rows['skirm'], 'cpu'):.1f}x "
            f"({alone_cpu / _median(rows['skirm'], 'cpu'):.1f}x) | "
            f"{'yes' if agree else 'NO'} | "
            f"{_median(rows['ranx'], 'warm_up'):.1f} s |"
        )
    if lines:
        print(
            f"\n{args.queries} queries x {args.docs} documents x 3 runs "
            "(median of fresh processes)\n"
        )
        print(
            "| case | ranx end to end | ranx fuse alone | skirm end to end | "
            "skirm fuse_scores on the matrix | "
            "ratio wall, CPU (to ranx's fuse alone) | same digest | ranx warm-up |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        print("\n".join(lines))
    if "tune" in args.only:
        rows = {"ranx": [], "skirm-runs": [], "skirm-arrays": []}
        for _ in range(args.repeats):
            for tool in rows:
                rows[tool].append(run_case(tool, "tune", args.tune_queries, args.docs))
        print(
            f"\nTuning 3 weights (66 vectors), {args.tune_queries} queries x "
            f"{args.docs} documents x 3 runs (median of fresh processes)\n"
        )
        print("| tool | what | time | CPU | peak | weights chosen |")
        print("| --- | --- | --- | --- | --- | --- |")
        what = {
            "ranx": "optimize_fusion, all queries at once (one fold's search)",
            "skirm-runs": "tune_fusion, 5 folds, trec_eval's NDCG@10, comparison",
            "skirm-arrays": "FusionRanker(weights='search'), 5 folds",
        }
        for tool, found in rows.items():
            print(
                f"| {tool} | {what[tool]} | {_median(found, 'seconds'):.2f} s | "
                f"{_median(found, 'cpu'):.2f} s | {_median(found, 'peak_mib'):.0f} MiB"
                f" | {found[0]['weights'][0]} |"
            )
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
