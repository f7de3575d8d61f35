"""Benchmark skirm.dask on a local cluster against the single-process path.

Run after ``pip install -e ".[bench]"``::

    python benchmarks/bench_dask.py --rows 5000000 50000000 --workdir /tmp/bench

For each size, synthetic rows (``_data.make_flat``: about 100 rows per query,
float64 labels and scores, int64 query ids) are written to Parquet files of
``--rows-per-file`` rows, once (reused on later runs), in one of two
layouts (``--layout``, both by default). The rows of each file are in
random order. **split**: two consecutive files share their query ids, so
that the rows of every query sit in two files and Dask must shuffle them.
**aligned**: every file holds its own queries (as files written by query),
so ``shuffle="auto"`` finds that no shuffle is needed.

* **single process**: a fresh process reads the Parquet files with pyarrow
  and calls ``skirm.metrics.evaluate(ndcg@10, map, mrr)`` with ``n_jobs=1``
  and ``n_jobs=2`` (alternating, the best of two runs each); reported: the
  read and evaluate times, rows/s of the evaluation, and the process's peak
  resident memory. Sizes above
  ``--single-max-rows`` are skipped.
* **Dask**: a fresh ``distributed.LocalCluster`` of two single-threaded
  worker processes with ``--memory-limit`` each reads the files
  (``dask.dataframe.read_parquet``) and calls ``skirm.dask.evaluate`` with
  the same metrics (``shuffle="auto"``: each partition evaluated as it
  stands; if a query is found in two partitions, the shuffle on the query id
  and the numpy engine per partition again). Reported: the wall time from
  the Parquet files to the result, rows/s, each worker process's peak
  resident memory, the tasks run (``distributed.get_task_stream``) and the
  bytes the shuffle sent between workers and wrote to disk (the
  scheduler's ``cumulative_worker_metrics``, the counters behind the
  dashboard's fine performance metrics).

The means of the two paths are compared (largest absolute difference). The
output is markdown; ``--output FILE`` also writes it to a file. Timings are
single runs of long tasks: on a shared machine, read them with the load
figures printed beside them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import make_flat

THREE = ("ndcg@10", "map", "mrr")


def write_parquet(folder, n_rows, rows_per_file, layout):
    """The synthetic rows as Parquet files in ``folder`` (reused if complete)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    done = folder / "_COMPLETE"
    if done.exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    n_files = max(1, -(-n_rows // rows_per_file))
    offset = 0
    for i in range(n_files):
        size = min(rows_per_file, n_rows - i * rows_per_file)
        y_true, y_score, groups = make_flat(size, seed=i)
        if layout == "aligned":
            offset = i * 10 * (rows_per_file // 100 + 1)
        elif i % 2 == 0:
            offset = (i // 2) * 10 * (rows_per_file // 100 + 1)
        perm = np.random.default_rng(1000 + i).permutation(size)
        table = pa.table(
            {
                "qid": groups[perm] + offset,
                "label": y_true[perm],
                "score": y_score[perm],
            }
        )
        pq.write_table(table, folder / f"part-{i:04d}.parquet")
    done.touch()


def peak_rss():
    """Peak resident memory of this process, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def single_process(folder):
    """Run in a fresh process: read the files, evaluate with 1 and 2 threads."""
    import pyarrow.parquet as pq

    from skirm.metrics import evaluate

    t0 = time.perf_counter()
    table = pq.read_table(folder)
    y_true = table["label"].to_numpy()
    y_score = table["score"].to_numpy()
    groups = table["qid"].to_numpy()
    del table
    read = time.perf_counter() - t0
    times = {1: np.inf, 2: np.inf}
    for n_jobs in (1, 2, 1, 2):  # alternating; the best of two runs each
        t0 = time.perf_counter()
        result = evaluate(y_true, y_score, groups=groups, metrics=THREE, n_jobs=n_jobs)
        times[n_jobs] = min(times[n_jobs], time.perf_counter() - t0)
    return read, times, dict(result.means), peak_rss()


def on_dask(folder, memory_limit):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, get_task_stream

    import skirm.dask

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as client,
    ):
        before = client.run_on_scheduler(_worker_metrics)
        with get_task_stream(client) as stream:
            t0 = time.perf_counter()
            rows = dd.read_parquet(str(folder))
            result = skirm.dask.evaluate(
                rows["label"], rows["score"], groups=rows["qid"], metrics=THREE
            )
            seconds = time.perf_counter() - t0
        peaks = client.run(peak_rss)
        n_partitions = rows.npartitions
        time.sleep(3)  # the workers report their counters with the heartbeat
        after = client.run_on_scheduler(_worker_metrics)
    moved = {key: after.get(key, 0) - before.get(key, 0) for key in (SENT, WRITTEN)}
    counts = (len(stream.data), moved[SENT], moved[WRITTEN])
    return seconds, dict(result.means), sorted(peaks.values()), n_partitions, counts


#: The shuffle's bytes sent between workers and written to their disks.
SENT = ("p2p", "background-comms", "process", "bytes")
WRITTEN = ("p2p", "background-disk", "disk-write", "bytes")


def _worker_metrics(dask_scheduler):
    return dict(dask_scheduler.cumulative_worker_metrics)


def gib(n_bytes):
    return f"{n_bytes / 2**30:.2f} GiB"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[5_000_000])
    parser.add_argument("--rows-per-file", type=int, default=2_500_000)
    parser.add_argument(
        "--layout",
        nargs="+",
        choices=("split", "aligned"),
        default=["split", "aligned"],
    )
    parser.add_argument("--single-max-rows", type=int, default=50_000_000)
    parser.add_argument("--memory-limit", default="4GiB", help="per Dask worker")
    parser.add_argument("--workdir", type=Path, required=True, help="Parquet files")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)

    lines = []

    def out(text=""):
        print(text, flush=True)
        lines.append(text)

    import dask

    out("# skirm.dask benchmark")
    out()
    out(
        f"{os.cpu_count()} logical cores; numpy {np.__version__}, dask "
        f"{dask.__version__}; Dask workers: 2 processes x 1 thread, memory limit "
        f"{args.memory_limit} each; metrics {', '.join(THREE)}."
    )
    out()
    header = (
        "| rows | layout | files | load before | single: read | single: evaluate "
        "1 thread | 2 threads | single peak RSS | Dask: total | Dask / single "
        "(read + best evaluate) | tasks | shuffle: sent / written to disk "
        "| Dask peak RSS per worker | max abs diff of means |"
    )
    out(header)
    out("|" + "---:|" * 14)
    spawn = get_context("spawn")
    growth = {}
    for n_rows in args.rows:
        for layout in args.layout:
            folder = args.workdir / f"rows-{n_rows}-{layout}"
            write_parquet(folder, n_rows, args.rows_per_file, layout)
            load = os.getloadavg()[0]
            single = None
            if n_rows <= args.single_max_rows:
                with ProcessPoolExecutor(1, mp_context=spawn) as pool:
                    single = pool.submit(single_process, folder).result()
            seconds, means, peaks, n_parts, counts = on_dask(folder, args.memory_limit)
            growth[n_rows, layout] = seconds
            cells = [f"{n_rows:,}", layout, str(n_parts), f"{load:.1f}"]
            ratio = "-"
            if single:
                read, times, single_means, rss = single
                diff = max(abs(means[m] - single_means[m]) for m in THREE)
                cells += [
                    f"{read:.2f} s",
                    f"{times[1]:.2f} s",
                    f"{times[2]:.2f} s ({times[1] / times[2]:.2f}x)",
                    gib(rss),
                ]
                ratio = f"{seconds / (read + min(times.values())):.1f}x"
            else:
                diff = None
                cells += ["-"] * 4
            n_tasks, sent, written = counts
            cells += [
                f"{seconds:.1f} s",
                ratio,
                str(n_tasks),
                f"{sent / 2**20:.0f} / {written / 2**20:.0f} MiB",
                " / ".join(gib(p) for p in peaks),
                "-" if diff is None else f"{diff:.1e}",
            ]
            out("| " + " | ".join(cells) + " |")
    out()
    base = min(n for n, _ in growth)
    out(f"Dask growth from {base:,} rows (time ratio ÷ row ratio; 1.0 is linear):")
    out()
    for (n_rows, layout), seconds in growth.items():
        if (base, layout) in growth:
            ratio = seconds / growth[base, layout] / (n_rows / base)
            out(f"* {n_rows:,} rows, {layout}: {ratio:.2f}")
    if args.output:
        args.output.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
