"""trec_eval's other relevance formats as whole processes: ``skirm eval``
against trec_eval 10.0's C on ``-R prefs`` and ``-R qrels_jg``.

A run of ``--queries`` x ``--docs`` lines (ClueWeb-like docnos, distinct
scores); preferences: ``--judged`` documents per query in one judgment
group of 3 sub-groups, levels 0-3; judgment groups: the same documents in 2
groups, labels 0-2; chains: pairwise preferences (a sub-group per pair)
along a chain through half the judged documents, which the transitive
closure of the preferences needs several rounds to close. Each command is
timed as a fresh process (``skirm eval`` through ``python -m skirm``,
bytecode compiled), the two sides alternating, ``--repeats`` times;
medians of wall and CPU (user + system) time, and whether the outputs are
the same bytes.

    python benchmarks/bench_rel_formats.py --repeats 5 [--trec-eval PATH]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from bench_trec import trec_eval_path

CASES = {
    "prefs": ("prefs", "prefs_simp"),
    "prefs, chains": ("chains", "prefs_simp"),
    "qrels_jg": ("jg", "map_avgjg"),
}


def _files(folder, n_queries, n_docs, n_judged):
    rng = np.random.default_rng(3)
    chain_rng = np.random.default_rng(4)  # (the other files as they were)
    names = ("prefs", "chains", "jg", "run")
    paths = {name: os.path.join(folder, name) for name in names}
    with (
        open(paths["prefs"], "w") as prefs,
        open(paths["chains"], "w") as chains,
        open(paths["jg"], "w") as jg,
        open(paths["run"], "w") as run,
    ):
        for q in range(n_queries):
            shard = rng.integers(0, 9999, n_docs)
            docs = [
                f"clueweb09-en{shard[j]:04d}-{q % 100:02d}-{j:05d}"
                for j in range(n_docs)
            ]
            for j in rng.permutation(n_docs)[:n_judged]:
                prefs.write(f"{q} u1 s{j % 3} {docs[j]} {rng.integers(0, 4)}\n")
                for group in ("a", "b"):
                    jg.write(f"{q} {group} {docs[j]} {rng.integers(0, 3)}\n")
            # a user's pairwise preferences: one sub-group per pair, a chain
            # through the judged documents (closed over several rounds)
            chain = [docs[j] for j in chain_rng.permutation(n_docs)[: n_judged // 2]]
            for k in range(len(chain) - 1):
                chains.write(f"{q} u p{k} {chain[k]} 2\n{q} u p{k} {chain[k + 1]} 1\n")
            scores = rng.permutation(n_docs)
            run.writelines(
                f"{q} Q0 {docs[j]} {j} {scores[j]} run\n" for j in range(n_docs)
            )
    return paths


def _timed(argv, folder):
    """``(wall, cpu, stdout)`` of one child process, run in ``folder`` (not
    in a checkout, whose ``skirm`` ``python -m`` would import first)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, cwd=folder)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", default=None, help="default: built from source")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    trec_eval = trec_eval_path(args.trec_eval)
    if trec_eval is None:
        raise SystemExit("no trec_eval: give --trec-eval PATH")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    compile_skirm = (
        "import compileall, os, skirm; "
        "compileall.compile_dir(os.path.dirname(skirm.__file__), quiet=1)"
    )
    subprocess.run(
        [sys.executable, "-c", compile_skirm],
        check=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| format | side | wall (s) | CPU (s) | same output |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        paths = _files(folder, args.queries, args.docs, args.judged)
        for case, (judged, measure) in CASES.items():
            rel_format = case.partition(",")[0]
            flags = ["-R", rel_format, "-m", measure, paths[judged], paths["run"]]
            sides = {
                "trec_eval 10.0": [trec_eval, *flags],
                "skirm eval": [sys.executable, "-m", "skirm", "eval", *flags],
            }
            got = {side: [] for side in sides}
            for _ in range(args.repeats):
                for side, argv in sides.items():
                    got[side].append(_timed(argv, folder))
            outputs = {out for runs in got.values() for _, _, out in runs}
            for side, runs in got.items():
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                same = len(outputs) == 1
                print(f"| {case} | {side} | {wall:.3f} | {cpu:.3f} | {same} |")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
