"""Frames of pandas, polars and pyarrow turned into a Run, and back out.

Builds (seeded, in memory) a run of ``--rows`` rows (default 1,000,000) with
string query ids (``"q<n>"``, 10,000 queries) and string doc ids
(``"doc-<n>"``, 5 to 11 characters), as a pandas DataFrame (pandas' default
string dtype), a polars DataFrame and LazyFrame, a polars frame with
categorical query ids, a pyarrow Table and one with dictionary-encoded query
ids, and reports the median time and the peak memory (tracemalloc, numpy
included; polars' and pyarrow's own allocations are not traced) of
``skirm.io.as_run`` on each, then of ``Run.to_frame`` for both backends.

Run: ``python benchmarks/bench_frames.py [--rows 1000000] [--repeats 5]``.

With ``--evaluate-run``, the whole evaluation instead: ``evaluate_run`` of
the run as a pandas frame (the rows above, a query's 100 documents
together) against qrels as a pandas frame (a tenth of the documents judged,
grades 0-2), five measures, next to ``skirm.metrics.evaluate`` of the same
rows as arrays (the grades joined, the queries as integer codes): the
medians of the two (wall and CPU time), and their ratios (the cost of
reading frames of string ids and joining them, over the evaluation itself).
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_inputs import measure  # median time and tracemalloc peak


def generate(n, seed=0):
    rng = np.random.default_rng(seed)
    queries = np.char.add("q", rng.integers(0, 10_000, n).astype(str))
    docs = np.char.add("doc-", rng.integers(0, 10**7, n).astype(str))
    return {"query_id": queries, "doc_id": docs, "score": rng.random(n)}


def evaluate_run_on_frames(n, repeats, order="grouped"):
    """``evaluate_run`` on pandas frames and ``evaluate`` on the same rows
    as arrays: a markdown table of their medians and ratio."""
    import os

    import pandas as pd

    from skirm.metrics import evaluate
    from skirm.trec import evaluate_run

    rng = np.random.default_rng(0)
    per = 100
    codes = np.arange(n) // per
    docs = np.char.add("doc-", rng.permutation(10 * n)[:n].astype(str))
    queries = np.char.add("q", codes.astype(str))
    scores = rng.random(n)
    rows = np.arange(n)
    if order == "shuffled":
        rows = rng.permutation(n)
    elif order == "score":
        rows = np.argsort(-scores, kind="stable")
    run = pd.DataFrame(
        {"query_id": queries[rows], "doc_id": docs[rows], "score": scores[rows]}
    )
    judged = np.arange(0, n, 10)
    labels = np.zeros(n)
    labels[judged] = rng.integers(0, 3, judged.shape[0])
    qrels = pd.DataFrame(
        {
            "query_id": queries[judged],
            "doc_id": docs[judged],
            "relevance": labels[judged],
        }
    )
    measures = ["ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"]
    names = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100"]
    t_frames, _, _ = measure(evaluate_run, qrels, run, measures, repeats=repeats)

    def arrays():
        return evaluate(labels, scores, groups=codes, metrics=names)

    t_arrays, _, _ = measure(arrays, repeats=repeats)
    c_frames = _cpu(lambda: evaluate_run(qrels, run, measures), repeats)
    c_arrays = _cpu(arrays, repeats)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{n:,} run rows, {n // per:,} queries, string ids, rows {order}; medians "
          f"of {repeats}; load average {load}\n")  # fmt: skip
    print("| call | time (s) | CPU (s) | ratio to the arrays (time, CPU) |")
    print("|---|---:|---:|---:|")
    print(f"| evaluate_run(qrels frame, run frame) | {t_frames:.3f} | {c_frames:.3f} | "
          f"{t_frames / t_arrays:.1f}x, {c_frames / c_arrays:.1f}x |")  # fmt: skip
    print(f"| evaluate(labels, scores, groups=codes) | {t_arrays:.3f} | {c_arrays:.3f} "
          "| 1.0x |")  # fmt: skip


def _cpu(call, repeats):
    """The median CPU time (this process's, every thread) of ``repeats``
    calls."""
    import statistics
    import time

    times = []
    for _ in range(repeats):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main():
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from skirm.io import as_run

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--evaluate-run", action="store_true")
    parser.add_argument(
        "--order", choices=["grouped", "shuffled", "score"], default="grouped"
    )
    args = parser.parse_args()
    if args.evaluate_run:
        evaluate_run_on_frames(args.rows, args.repeats, args.order)
        return
    columns = generate(args.rows)
    frames = {
        "pandas DataFrame": pd.DataFrame(columns),
        "polars DataFrame": pl.DataFrame(columns),
        "polars LazyFrame": pl.DataFrame(columns).lazy(),
        "polars, categorical query ids": pl.DataFrame(columns).with_columns(
            pl.col("query_id").cast(pl.Categorical)
        ),
        "pyarrow Table": pa.table(columns),
        "pyarrow, dictionary query ids": pa.table(
            {**columns, "query_id": pa.array(columns["query_id"]).dictionary_encode()}
        ),
    }
    rows = []
    for name, frame in frames.items():
        t, peak, run = measure(as_run, frame, repeats=args.repeats)
        assert (run.doc_ids == columns["doc_id"]).all()
        rows.append((f"as_run({name})", t, peak))
    for backend in ("pandas", "polars"):
        t, peak, _ = measure(run.to_frame, backend, repeats=args.repeats)
        rows.append((f'Run.to_frame(backend="{backend}")', t, peak))
    n = args.rows
    print(f"{n:,} rows, string ids; median of {args.repeats}\n")
    print("| conversion | time (s) | peak memory (MiB) | bytes/row |")
    print("|---|---:|---:|---:|")
    for name, t, peak in rows:
        print(f"| {name} | {t:.3f} | {peak / 2**20:.0f} | {peak / n:.0f} |")


if __name__ == "__main__":
    main()
