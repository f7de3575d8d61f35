"""Input shapes: the cost of turning users' objects into a Run, and the
pytrec_eval drop-in next to pytrec_eval itself.

Builds (seeded, in memory) a run of ``--queries`` x ``--docs`` rows
(default 1,000 x 1,000 = 1,000,000) and its qrels (~200 judgements per
query), in every shape :func:`skirm.io.as_run` takes, then reports the median
time and the peak memory (tracemalloc, numpy included) of

- the floor: ``Run`` of three columns held as Python lists, each turned into
  a numpy array the fastest way (strings through an object array): what
  any shape made of Python objects costs at least;
- ``as_run`` of a dict of dicts, a pandas DataFrame, a list of tuples and a
  list of ir_measures ``ScoredDoc``;
- a plain Python loop over the dict of dicts appending to lists, then ``Run``
  (what the conversion would cost written the obvious way);
- ``RelevanceEvaluator(qrels, measures).evaluate(run)`` on dicts: skirm's
  drop-in and pytrec_eval's, with the largest per-query difference.

Run: ``python benchmarks/bench_inputs.py [--repeats 5] [--queries 1000]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np

MEASURES = ["map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref"]


def generate(n_queries, n_docs, seed=0):
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.arange(n_queries) + 1000, n_docs).astype(str)
    numbers = rng.choice(10**8, size=qids.shape[0], replace=False).astype(str)
    docs = np.char.add("clueweb09-en", np.char.zfill(numbers, 8))
    scores = np.round(rng.gamma(2.0, 2.0, size=qids.shape[0]), 4)
    judged = rng.random(qids.shape[0]) < 0.2
    labels = rng.choice([0, 0, 0, 1, 1, 2, 3], size=int(judged.sum()))
    run_dict, qrels_dict = {}, {}
    for q, d, s in zip(qids.tolist(), docs.tolist(), scores.tolist(), strict=True):
        run_dict.setdefault(q, {})[d] = s
    for q, d, label in zip(
        qids[judged].tolist(), docs[judged].tolist(), labels.tolist(), strict=True
    ):
        qrels_dict.setdefault(q, {})[d] = label
    return (qids, docs, scores), run_dict, qrels_dict


def floor(q, d, s):
    from skirm.io import Run

    return Run(
        np.array(q, dtype=object).astype(str),
        np.array(d, dtype=object).astype(str),
        np.array(s),
    )


def loop_conversion(run_dict):
    from skirm.io import Run

    q, d, s = [], [], []
    for qid, docs in run_dict.items():
        for doc, score in docs.items():
            q.append(qid)
            d.append(doc)
            s.append(score)
    return Run(q, d, s)


def measure(function, *args, repeats):
    function(*args)  # warm-up: imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = function(*args)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    function(*args)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return statistics.median(times), peak, out


def main():
    import ir_measures
    import pandas as pd
    import pytrec_eval

    from skirm.io import as_run
    from skirm.trec import RelevanceEvaluator

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    (qids, docs, scores), run_dict, qrels_dict = generate(args.queries, args.docs)
    n = qids.shape[0]
    frame = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": scores})
    tuples = list(zip(qids.tolist(), docs.tolist(), scores.tolist(), strict=True))
    named = [ir_measures.ScoredDoc(*t) for t in tuples]

    rows = []
    r = args.repeats
    lists = (qids.tolist(), docs.tolist(), scores.tolist())
    base = measure(floor, *lists, repeats=r)
    rows.append(("floor: Run of three Python lists", *base[:2]))
    rows.append(("as_run(dict of dicts)", *measure(as_run, run_dict, repeats=r)[:2]))
    rows.append(("as_run(DataFrame)", *measure(as_run, frame, repeats=r)[:2]))
    rows.append(("as_run(list of tuples)", *measure(as_run, tuples, repeats=r)[:2]))
    rows.append(
        ("as_run(ir_measures ScoredDoc)", *measure(as_run, named, repeats=r)[:2])
    )
    rows.append(
        (
            "Python loop over the dict, then Run",
            *measure(loop_conversion, run_dict, repeats=r)[:2],
        )
    )

    def ours():
        return RelevanceEvaluator(qrels_dict, set(MEASURES)).evaluate(run_dict)

    def theirs():
        return pytrec_eval.RelevanceEvaluator(qrels_dict, set(MEASURES)).evaluate(
            run_dict
        )

    t_ours, m_ours, v_ours = measure(ours, repeats=r)
    t_theirs, m_theirs, v_theirs = measure(theirs, repeats=r)
    worst = max(
        abs(v_ours[q][m] - v_theirs[q][m]) for q in v_theirs for m in v_theirs[q]
    )

    print(f"{n:,} run rows, {args.queries} queries; median of {r}\n")
    print("| conversion | time (s) | x floor | peak memory (MiB) | bytes/row |")
    print("|---|---:|---:|---:|---:|")
    for name, t, peak in rows:
        print(
            f"| {name} | {t:.3f} | {t / base[0]:.1f} | {peak / 2**20:.0f} | "
            f"{peak / n:.0f} |"
        )
    print(
        f"\nRelevanceEvaluator, {len(MEASURES)} measures, max difference {worst:.1e}\n"
    )
    print(
        "| evaluator (dicts in, dict out) | time (s) | speed-up | peak memory (MiB) |"
    )
    print("|---|---:|---:|---:|")
    print(f"| pytrec_eval | {t_theirs:.2f} | 1.0x | {m_theirs / 2**20:.0f} |")
    print(
        f"| skirm.trec.RelevanceEvaluator | {t_ours:.2f} | {t_theirs / t_ours:.1f}x | "
        f"{m_ours / 2**20:.0f} |"
    )


if __name__ == "__main__":
    main()
