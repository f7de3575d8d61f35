"""trec_eval's less common surface: skirm next to the trec_eval 10.0 binary.

Generates (seeded, in a temporary directory) the run and qrels of
``bench_trec.py`` (``--queries`` x ``--docs`` lines), then derives

- a z-scores file (mean and standard deviation of 4 measures per query);
- judgment groups: each judgement copied into 3 groups with perturbed labels;
- the qrels read as preferences (``-R qrels_prefs``);

and times, end to end from the files, ``skirm eval --format trec`` against
``trec_eval`` (when ``../shared/tools/build-trec-eval`` can build it) for:
relstring + yaap + utility with ``-N``, ``-Z``, ``-R qrels_jg`` and
``-R qrels_prefs -m all_prefs``. Also reports skirm's peak traced memory
(tracemalloc) for ``evaluate_run`` on the files already read. Prints a
markdown table of medians; the outputs of both programs are compared line
for line (the table says how many lines matched).

Run: ``python benchmarks/bench_trec_surface.py [--repeats 3] [--queries 200]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from bench_trec import generate

TOOLS = Path(__file__).resolve().parents[1].parent / "shared" / "tools"


def derive(folder: Path, qrels_path: Path, seed: int = 0):
    """The z-scores and judgment-group files beside ``qrels_path``."""
    rng = np.random.default_rng(seed)
    rows = [line.split() for line in qrels_path.read_text().splitlines()]
    groups = []
    for g in range(3):
        for q, _, d, label in rows:
            level = int(label) if rng.random() < 0.7 else int(rng.integers(0, 4))
            groups.append(f"{q} g{g} {d} {level}\n")
    jg_path = folder / "qrels.jg"
    jg_path.write_text("".join(groups))
    qids = sorted({q for q, _, _, _ in rows})
    lines = [
        f"{q} {m} {rng.uniform(0, 0.5):.4f} {rng.uniform(0.05, 0.3):.4f}\n"
        for q in qids
        for m in ("map", "P_10", "ndcg", "recip_rank")
    ]
    z_path = folder / "zscores"
    z_path.write_text("".join(lines))
    return jg_path, z_path


def cases(qrels, run, jg, z):
    return {
        "relstring.20 + yaap + utility, -N": [
            "-q", "-m", "relstring.20", "-m", "yaap", "-m", "utility.1,-1,-1,0.01",
            "-N", "100000", qrels, run,
        ],
        "-Z (4 measures)": [
            "-q", "-Z", z, "-m", "map", "-m", "P.10", "-m", "ndcg",
            "-m", "recip_rank", qrels, run,
        ],
        "-R qrels_jg -m qrels_jg": ["-q", "-R", "qrels_jg", "-m", "qrels_jg", jg, run],
        "-R qrels_prefs -m all_prefs": [
            "-q", "-R", "qrels_prefs", "-m", "all_prefs", qrels, run,
        ],
    }  # fmt: skip


def run_skirm(argv):
    from skirm._cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["eval", "--format", "trec", *map(str, argv)])
    assert status == 0
    return out.getvalue()


def run_trec_eval(binary, argv):
    done = subprocess.run(
        [binary, *map(str, argv)], capture_output=True, text=True, check=True
    )
    return done.stdout


def timed(function, *args, repeats):
    function(*args)  # warm-up: imports, page cache
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def peak_memory(argv):
    """Peak traced memory of evaluate_run (files read beforehand), in MB."""
    from skirm._cli._eval_command import READERS as _READERS
    from skirm._cli._parser import build_parser as _build_parser
    from skirm.io import read_run
    from skirm.trec import evaluate_run, read_zscores

    args = _build_parser().parse_args(["eval", *map(str, argv)])
    qrels = _READERS[args.rel_format](args.qrels)
    run = read_run(args.runs[0])
    zscores = read_zscores(args.zscores) if args.zscores else None
    tracemalloc.start()
    evaluate_run(
        qrels,
        run,
        args.measures,
        rel_format=args.rel_format,
        collection_size=args.collection_size,
        zscores=zscores,
    )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def build_trec_eval():
    script = TOOLS / "build-trec-eval"
    if not script.is_file():
        return None
    done = subprocess.run(["sh", str(script)], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    binary = build_trec_eval()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, run = generate(folder, args.queries, args.docs)
        jg, z = derive(folder, qrels)
        for name, argv in cases(qrels, run, jg, z).items():
            t_skirm, ours = timed(run_skirm, argv, repeats=args.repeats)
            memory = peak_memory(argv)
            if binary is None:
                rows.append((name, t_skirm, None, memory, "-"))
                continue
            t_te, theirs = timed(run_trec_eval, binary, argv, repeats=args.repeats)
            same = sum(
                a == b
                for a, b in zip(ours.splitlines(), theirs.splitlines(), strict=False)
            )
            total = len(theirs.splitlines())
            rows.append((name, t_skirm, t_te, memory, f"{same}/{total}"))
    print(
        f"{args.queries} queries x {args.docs} documents; median of "
        f"{args.repeats}; end to end from the files\n"
    )
    print("| task | skirm (s) | trec_eval (s) | skirm peak MB | lines equal |")
    print("|---|---:|---:|---:|---:|")
    for name, t_skirm, t_te, memory, equal in rows:
        te = f"{t_te:.2f}" if t_te is not None else "n/a"
        print(f"| {name} | {t_skirm:.2f} | {te} | {memory:.0f} | {equal} |")


if __name__ == "__main__":
    main()
