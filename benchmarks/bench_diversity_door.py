"""The diversity measures' TREC door against pyndeval (ndeval's C).

Every ndeval measure at ndeval's cutoffs, from subtopic judgments and a
run, each measurement in a fresh process (``--repeats`` of them per
side, alternating): skirm's ``evaluate_diversity`` on the two TREC files,
skirm's ``evaluate_diversity`` on the tuples pyndeval is given, and
``pyndeval.ndeval`` on those tuples (built before its timing starts, as its
users hold them). Two regimes:

- ``web``: TREC Web track's shape, 50 topics x 1,000 retrieved documents,
  500 judged per topic for each of 5 subtopics (125,000 judgments);
- ``many``: 5,000 queries x 100 documents, 20 judged for each of 3
  subtopics (300,000 judgments).

Docnos are ClueWeb-like (25 bytes), 20% of judgments relevant, scores
distinct (ndeval breaks ties by docno descending, pyndeval ascending).
Prints wall and CPU seconds (medians), the peak resident memory of the
process, and pyndeval's time over skirm's.

    python benchmarks/bench_diversity_door.py --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from _data import peak_mib

REGIMES = {"web": (50, 1000, 500, 5), "many": (5000, 100, 20, 3)}


def _data(regime):
    """``(qrels rows, run rows)`` of the regime, seeded."""
    nq, nd, nj, ns = REGIMES[regime]
    rng = np.random.default_rng(7)
    q = np.repeat((np.arange(nq) + 101).astype(str), nd)
    shard = rng.integers(0, 9999, nq * nd)
    d = np.array(
        [
            f"clueweb09-en{shard[k]:04d}-{k // nd % 100:02d}-{k % nd:05d}"
            for k in range(nq * nd)
        ]
    )
    scores = rng.permutation(q.shape[0]) / 8.0  # distinct: the tie rules differ
    judged = q.reshape(nq, nd)[:, :nj].ravel(), d.reshape(nq, nd)[:, :nj].ravel()
    jq, jd = (np.repeat(column, ns) for column in judged)
    js = np.tile(np.arange(1, ns + 1).astype(str), nq * nj)
    jl = (rng.random(jq.shape[0]) < 0.2).astype(int)
    qrels = list(zip(jq.tolist(), js.tolist(), jd.tolist(), jl.tolist(), strict=True))
    run = list(zip(q.tolist(), d.tolist(), scores.tolist(), strict=True))
    return qrels, run


def _files(regime, folder):
    qrels, run = _data(regime)
    qpath, rpath = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    with open(qpath, "w") as f:
        f.writelines(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels)
    with open(rpath, "w") as f:
        f.writelines(f"{q} Q0 {d} {i} {s} r\n" for i, (q, d, s) in enumerate(run))
    return qpath, rpath


def _child(side, regime, qpath, rpath):
    """One measurement, in this (fresh) process: prints a JSON line."""
    if side == "skirm-files":
        from skirm.trec import evaluate_diversity

        wall, cpu = time.perf_counter(), time.process_time()
        report = evaluate_diversity(qpath, rpath)
        mean = report["mean"]["alpha-nDCG@20"]
    else:
        qrels, run = _data(regime)
        if side == "pyndeval":
            import pyndeval

            wall, cpu = time.perf_counter(), time.process_time()
            per_query = pyndeval.ndeval(qrels, run)
            values = [v["alpha-nDCG@20"] for v in per_query.values()]
            mean = sum(values) / len(values)
        else:
            from skirm.trec import evaluate_diversity

            wall, cpu = time.perf_counter(), time.process_time()
            report = evaluate_diversity(qrels, run)
            mean = report["mean"]["alpha-nDCG@20"]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = peak_mib()
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_mib": peak, "mean": mean}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--regimes", nargs="+", default=sorted(REGIMES))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    sides = ("skirm-files", "skirm-tuples", "pyndeval")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| regime | side | wall (s) | CPU (s) | peak (MiB) | pyndeval CPU / CPU |")
    print("| --- | --- | --- | --- | --- | --- |")
    for regime in args.regimes:
        with tempfile.TemporaryDirectory() as folder:
            qpath, rpath = _files(regime, folder)
            got = {side: [] for side in sides}
            for _ in range(args.repeats):
                for side in sides:
                    command = [
                        sys.executable,
                        __file__,
                        "--child",
                        side,
                        regime,
                        qpath,
                        rpath,
                    ]
                    out = subprocess.run(
                        command, check=True, capture_output=True, text=True
                    )
                    got[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
            means = {side: round(got[side][0]["mean"], 9) for side in sides}
            if len(set(means.values())) != 1:
                raise SystemExit(f"{regime}: the means differ: {means}")
            reference = statistics.median(r["cpu"] for r in got["pyndeval"])
            for side in sides:
                wall = statistics.median(r["wall"] for r in got[side])
                cpu = statistics.median(r["cpu"] for r in got[side])
                peak = max(r["peak_mib"] for r in got[side])
                print(
                    f"| {regime} | {side} | {wall:.3f} | {cpu:.3f} | {peak:.0f} | "
                    f"{reference / cpu:.2f}x |"
                )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
