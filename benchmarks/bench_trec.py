"""TREC evaluation end to end: files to numbers, skirm next to pytrec_eval.

Generates (seeded, in a temporary directory) a 1,000,000-line run of 1,000
queries x 1,000 documents and its qrels (~200 judgements per query, graded
0-3, a quarter of the judged documents not retrieved), then times

- skirm: ``read_qrels`` + ``read_run`` + ``evaluate_run`` with 8 measures;
- pytrec_eval: reading both files into dicts with a plain Python loop,
  building ``RelevanceEvaluator`` and ``evaluate``, same 8 measures;

and the parse time of the run alone. Prints a markdown table of medians.

Run: ``python benchmarks/bench_trec.py [--repeats 5] [--queries 1000]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = [
    "map",
    "ndcg",
    "ndcg_cut.10",
    "P.10",
    "recall.100",
    "recip_rank",
    "bpref",
    "Rprec",
]


def generate(folder: Path, n_queries: int, n_docs: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.arange(n_queries) + 1000, n_docs).astype(str)
    doc_numbers = rng.choice(10**8, size=n_queries * n_docs, replace=False)
    docs = np.char.add("clueweb09-en", np.char.zfill(doc_numbers.astype(str), 8))
    # scores with 4 decimals: exact enough for float32 ties to match float64
    scores = np.round(rng.gamma(2.0, 2.0, size=qids.shape[0]), 4)
    ranks = np.tile(np.arange(1, n_docs + 1), n_queries)
    run_path = folder / "run.txt"
    lines = [
        f"{q} Q0 {d} {r} {s:.4f} bench\n"
        for q, d, r, s in zip(qids, docs, ranks, scores, strict=True)
    ]
    run_path.write_text("".join(lines))
    # qrels: 150 judged retrieved docs + 50 judged docs not retrieved
    judged = rng.random(qids.shape[0]) < 0.15
    extra_q = np.repeat(np.arange(n_queries) + 1000, 50).astype(str)
    extra_d = np.char.add("clueweb12-", np.arange(extra_q.shape[0]).astype(str))
    q_all = np.concatenate([qids[judged], extra_q])
    d_all = np.concatenate([docs[judged], extra_d])
    labels = rng.choice([0, 0, 0, 1, 1, 2, 3], size=q_all.shape[0])
    qrels_path = folder / "qrels.txt"
    qrels_path.write_text(
        "".join(
            f"{q} 0 {d} {label}\n"
            for q, d, label in zip(q_all, d_all, labels, strict=True)
        )
    )
    return qrels_path, run_path


def skirm_end_to_end(qrels_path, run_path):
    from skirm.io import read_qrels, read_run
    from skirm.trec import evaluate_run

    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    return evaluate_run(qrels, run, MEASURES)


def skirm_parse_run(qrels_path, run_path):
    from skirm.io import read_run

    return read_run(run_path)


def skirm_evaluate_only(qrels, run):
    from skirm.trec import evaluate_run

    return evaluate_run(qrels, run, MEASURES)


def pytrec_end_to_end(qrels_path, run_path):
    import pytrec_eval

    qrels = {}
    with open(qrels_path) as fh:
        for line in fh:
            q, _, d, rel = line.split()
            qrels.setdefault(q, {})[d] = int(rel)
    run = {}
    with open(run_path) as fh:
        for line in fh:
            q, _, d, _, score, _ = line.split()[:6]
            run.setdefault(q, {})[d] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    return evaluator.evaluate(run)


def timed(function, *args, repeats):
    function(*args)  # warm-up: imports, page cache
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = generate(Path(tmp), args.queries, args.docs)
        n_lines = args.queries * args.docs
        t_parse, _ = timed(skirm_parse_run, qrels_path, run_path, repeats=args.repeats)
        t_skirm, result = timed(
            skirm_end_to_end, qrels_path, run_path, repeats=args.repeats
        )
        t_pytrec, ref = timed(
            pytrec_end_to_end, qrels_path, run_path, repeats=args.repeats
        )
        from skirm.io import read_qrels, read_run

        t_qrels, qrels = timed(read_qrels, qrels_path, repeats=args.repeats)
        run = read_run(run_path)
        t_eval, _ = timed(skirm_evaluate_only, qrels, run, repeats=args.repeats)
    worst = 0.0
    names = {"ndcg_cut.10": "ndcg_cut_10", "P.10": "P_10", "recall.100": "recall_100"}
    for name in MEASURES:
        key = names.get(name, name)
        ours = result.per_query[key]
        theirs = np.array([ref[q][key] for q in result.group_ids.tolist()])
        worst = max(worst, float(np.max(np.abs(ours - theirs))))
    print(f"Run: {n_lines:,} lines, {args.queries} queries; {len(MEASURES)} measures; ")
    print(f"median of {args.repeats}; max per-query difference {worst:.1e}\n")
    print("| task | time (s) | speed-up |")
    print("|---|---:|---:|")
    print(f"| pytrec_eval: parse to dicts + evaluate | {t_pytrec:.2f} | 1.0x |")
    print(
        f"| skirm: read_qrels + read_run + evaluate_run | {t_skirm:.2f} | "
        f"{t_pytrec / t_skirm:.1f}x |"
    )
    print(f"| skirm: read_run alone ({n_lines:,} lines) | {t_parse:.2f} | |")
    print(f"| skirm: read_qrels alone ({len(qrels):,} lines) | {t_qrels:.2f} | |")
    print(f"| skirm: evaluate_run alone (files already read) | {t_eval:.2f} | |")


if __name__ == "__main__":
    main()
